"""`arena submit`: send a bot folder to a ladder, or ask what became of a submission."""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import click

from arena.errors import ArenaError, InputError

TOKEN_ENV = "ARENA_TOKEN"
FINAL = ("active", "failed", "retired")


class LadderRefused(ArenaError):
    """The ladder answered with an error."""

    exit_status = 1


def _token(token: str | None, token_file: Path | None) -> str | None:
    if token and token_file:
        raise InputError("give --token or --token-file, not both")
    if token_file is not None:
        try:
            text = token_file.read_text().strip()
        except OSError as err:
            raise InputError(f"{token_file}: cannot read: {err.strerror or err}") from None
        if not text:
            raise InputError(f"{token_file}: empty, no token in it")
        return text
    return token or os.environ.get(TOKEN_ENV) or None


def _request(url: str, *, data: bytes | None = None, token: str | None = None) -> dict[str, Any]:
    headers = {"Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if data is not None:
        headers["Content-Type"] = "application/gzip"
    request = urllib.request.Request(url, data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            answer = json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as err:
        try:
            detail = json.loads(err.read()).get("error", "")
        except (ValueError, AttributeError, OSError):
            detail = ""
        raise LadderRefused(f"the ladder answered {err.code} {err.reason}: {detail}") from None
    except urllib.error.URLError as err:
        raise LadderRefused(f"cannot reach {url}: {err.reason}") from None
    except (OSError, ValueError) as err:
        raise LadderRefused(f"{url}: {err}") from None
    if not isinstance(answer, dict):
        raise LadderRefused(f"{url}: an answer that is not a ladder's")
    return answer


def _show(answer: dict[str, Any]) -> None:
    who = f"{answer.get('bot')} (author {answer.get('author')})"
    line = f"{answer.get('id')}: {who}: {answer.get('state')}"
    if answer.get("reason"):
        line += f": {answer['reason']}"
    click.echo(line)
    if answer.get("output") and answer.get("state") == "failed":
        click.echo(answer["output"])


@click.command()
@click.argument("folder", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--to", "url", required=True, metavar="URL", envvar="ARENA_LADDER",
              help="The ladder's address (http://HOST:PORT), or $ARENA_LADDER.")  # fmt: skip
@click.option("--token", default=None, help=f"Your token (or --token-file, or ${TOKEN_ENV}).")
@click.option("--token-file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="A file holding your token.")  # fmt: skip
@click.option("--status", "sid", default=None, metavar="ID",
              help="Show the state of submission ID instead of submitting.")  # fmt: skip
@click.option("--wait", is_flag=True,
              help="Wait until the submission is active or failed (exit 1 if failed).")  # fmt: skip
def submit(
    folder: Path | None, url: str, token: str | None, token_file: Path | None,
    sid: str | None, wait: bool,
) -> None:  # fmt: skip
    """Pack the bot FOLDER and send it to the ladder at --to; prints its submission id.

    Its state then goes received, building, checking, and active (it plays), or failed
    (with the reason, and for you the build's and check's output). A folder whose bot
    name you submitted before is that bot's next version."""
    base = url.rstrip("/")
    if not base.startswith(("http://", "https://")):
        raise InputError(f"--to {url!r}: give the ladder's address as http://HOST:PORT")
    secret = _token(token, token_file)
    if (folder is None) == (sid is None):
        raise InputError("give a bot FOLDER to submit, or --status ID (one of them)")
    if sid is not None:
        answer = _request(f"{base}/api/submissions/{sid}", token=secret)
    else:
        assert folder is not None
        if secret is None:
            raise InputError(f"no token: give --token, --token-file or ${TOKEN_ENV}")
        from arena.bots import load_manifest
        from arena.cluster._bundles import pack

        spec = load_manifest(folder)
        bundle = pack(spec)
        answer = _request(f"{base}/api/submit", data=bundle, token=secret)
        click.echo(f"submitted {spec.name} ({len(bundle) / 1024:.0f} KiB)", err=True)
    _show(answer)
    if wait:
        while answer.get("state") not in FINAL:
            time.sleep(1.0)
            answer = _request(f"{base}/api/submissions/{answer.get('id')}", token=secret)
        _show(answer)
        if answer.get("state") == "failed":
            raise SystemExit(1)
