"""`arena report` and `arena serve`: a league's results and games as web pages."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from arena.commands._versions import active_versions, all_versions_option
from arena.commands.rate import anchor_option
from arena.errors import InputError

F = TypeVar("F", bound=Callable[..., object])


@click.command()
@click.argument("store", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "-o",
    "--out",
    required=True,
    type=click.Path(path_type=Path),
    help=(
        "Folder to write the site into (its index.html opens in any browser, offline): a"
        " new or empty one, or one arena report wrote before, whose site is replaced."
    ),
)
@click.option(
    "--replay",
    "replay_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the viewer of one replay file (arena match --replays) instead of a league.",
)
@anchor_option
@all_versions_option
def report(
    store: Path | None,
    out: Path,
    replay_file: Path | None,
    anchor: tuple[str, float] | None,
    all_versions: bool,
) -> None:
    """Write a static web site of the league in STORE: standings with their Elo
    intervals, head-to-head, a page per bot, the game list and a replay viewer for
    every game. It works from disk and needs no network.

    The -o folder is marked as arena's (a file .arena-report), so that arena report
    writes it again as the league goes on; any other folder that is not empty is
    refused, and nothing in it is changed.

    Of a ladder's store (arena ladder serve): the standings of its active versions
    (--all-versions: of every version) and the games they played."""
    from arena.report import write_replay_site, write_site

    if (store is None) == (replay_file is None):
        raise InputError("give a league STORE or --replay FILE (one of them)")
    if out.exists() and not out.is_dir():
        raise InputError(f"{out} is a file: -o names the folder to write the site into")
    if replay_file is not None:
        from arena.replay import read_replay, readable, rebuild

        log = read_replay(replay_file)
        with readable(replay_file):
            rebuild(log)  # the whole file checked first, as `arena replay` checks it
            write_replay_site(log, out)
        click.echo(f"wrote {out / 'index.html'}", err=True)
        return
    assert store is not None
    from arena.store import Store

    with Store.open(store, readonly=True) as db:
        db.verify_rows(replays=True)  # rows or replays edited by hand are refused
        if anchor is not None and anchor[0] not in db.bot_digests():
            raise InputError(f"--anchor {anchor[0]!r}: no such bot in {store}")
        games = write_site(db, out, anchor, active_versions(db, all_versions))
    click.echo(f"wrote {out / 'index.html'} ({games} games)", err=True)


def _host_names(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """Refuse an empty or blank host (an empty --host listened on every address, a
    league's standings open to the network), and any name with a space, a slash, a
    colon of a port or a character that is not text."""
    for name in (value,) if isinstance(value, str) else value:
        if not name.strip():
            every = " (give 0.0.0.0 to listen on every address)" if param.name == "host" else ""
            raise click.BadParameter(f"an empty name{every}")
        if name.count(":") == 1 or any(
            c.isspace() or c in "/@" or not c.isprintable() for c in name
        ):
            raise click.BadParameter(f"{name!r} is not a host name or address")
    return value


_SERVER_OPTIONS = [
    click.option(
        "--host",
        default="127.0.0.1",
        show_default=True,
        callback=_host_names,
        help="Address to listen on (0.0.0.0: every one).",
    ),
    click.option(
        "--port",
        type=click.IntRange(0, 65535),
        default=8000,
        show_default=True,
        help="Port to listen on (0: any free one, named as it starts).",
    ),
    click.option(
        "--allow-host",
        "allow",
        multiple=True,
        callback=_host_names,
        metavar="NAME",
        help="A host name to answer besides addresses, localhost and this machine's own"
        " names (repeatable): the name a proxy or your DNS gives it.",
    ),
]
"""Where a web server listens, and the names it answers (`serve`, `ladder serve`)."""


def server_options(command: F) -> F:
    """`--host`, `--port` and `--allow-host`."""
    for option in reversed(_SERVER_OPTIONS):
        command = option(command)
    return command


@click.command()
@click.argument("store", type=click.Path(dir_okay=False, path_type=Path))
@server_options
@anchor_option
@all_versions_option
def serve(
    store: Path,
    host: str,
    port: int,
    allow: tuple[str, ...],
    anchor: tuple[str, float] | None,
    all_versions: bool,
) -> None:
    """Serve the report of the league in STORE live, while it runs: the same pages as
    arena report, the standings and progress refreshing by themselves. Read-only; it
    listens on 127.0.0.1 unless told otherwise, and answers only requests by address,
    localhost, this machine's names or --allow-host (a web page cannot read it by a
    name of its own pointed here: DNS rebinding). Of a ladder's store, the versions
    active at each refresh (--all-versions: every one)."""
    from arena.report._serve import run

    run(store, host, port, allow, anchor, all_versions)
