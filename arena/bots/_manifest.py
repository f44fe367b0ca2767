"""Bot submissions: a folder with a `bot.toml` manifest, or a command line.

    # bot.toml
    name = "heuristic"          # 1 to 64 characters: letters, digits, - _ . +
    run = "python3 bot.py"      # the command line, run inside the bot's folder
    build = "make"              # optional: run once before a match or league

In `run` and `build`, a first word `python3` or `python` means the Python that runs
arena (so Python bots find msgpack and the `protocol` package); any other first word
is looked up on the PATH, or taken relative to the bot's folder when it holds a `/`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path

from arena.errors import BuildError, ManifestError

MANIFEST = "bot.toml"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$")


@dataclasses.dataclass(frozen=True, slots=True)
class BotSpec:
    """How to run one bot."""

    name: str
    """The bot's name in results: unique within a match or league."""
    command: tuple[str, ...]
    """The command line, as given (`resolve_command` makes it absolute)."""
    folder: Path | None
    """The bot's folder (its working directory); None for a bare command line."""
    build: tuple[str, ...] | None = None
    """The build command, run in `folder`, or None."""

    def digest(self) -> str:
        """A hash of the submission: the manifest and every file in the folder."""
        h = hashlib.sha256()
        h.update(repr((self.name, self.command, self.build)).encode())
        if self.folder is not None:
            for path in sorted(self.folder.rglob("*")):
                rel = path.relative_to(self.folder)
                if path.is_file() and not _ignored(rel):
                    h.update(str(rel).encode() + b"\0")
                    h.update(path.read_bytes())
        return h.hexdigest()[:16]


def _ignored(rel: Path) -> bool:
    return any(
        part in {"__pycache__", "node_modules", ".git"} or part.endswith(".log")
        for part in rel.parts
    )


def _split(text: object, field: str, where: Path) -> tuple[str, ...]:
    if not isinstance(text, str) or not text.strip():
        raise ManifestError(f"{where}: '{field}' must be a non-empty string")
    try:
        words = shlex.split(text)
    except ValueError as err:
        raise ManifestError(f"{where}: '{field}' is not a valid command line: {err}") from None
    return tuple(words)


def check_name(name: str, where: str) -> str:
    """Return `name` if it is a valid bot name; raise ManifestError otherwise."""
    if not _NAME.match(name):
        raise ManifestError(
            f"{where}: bot name {name!r} must be 1 to 64 letters, digits or - _ . +"
            " and start with a letter or digit"
        )
    return name


def load_manifest(folder: Path) -> BotSpec:
    """Read `folder/bot.toml`; raises ManifestError with the reason."""
    path = folder / MANIFEST
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ManifestError(f"{folder}: no {MANIFEST} in this folder") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ManifestError(f"{path}: cannot read: {err}") from None
    except tomllib.TOMLDecodeError as err:
        raise ManifestError(f"{path}: not valid TOML: {err}") from None
    unknown = set(data) - {"name", "run", "build", "description", "author", "version"}
    if unknown:
        raise ManifestError(f"{path}: unknown key(s): {', '.join(sorted(unknown))}")
    name = data.get("name")
    if not isinstance(name, str):
        raise ManifestError(f"{path}: 'name' must be a string")
    check_name(name, str(path))
    command = _split(data.get("run"), "run", path)
    build = _split(data["build"], "build", path) if "build" in data else None
    return BotSpec(name=name, command=command, folder=folder.resolve(), build=build)


def load_bot(arg: str) -> BotSpec:
    """A BOT argument: a folder with bot.toml, or a command line (`NAME=COMMAND` names it)."""
    path = Path(arg)
    if path.is_dir():
        return load_manifest(path)
    name = None
    if "=" in arg.split(" ", 1)[0]:
        name, arg = arg.split("=", 1)
        check_name(name, "bot argument")
    try:
        words = tuple(shlex.split(arg))
    except ValueError as err:
        raise ManifestError(f"bot {arg!r} is not a valid command line: {err}") from None
    if not words:
        raise ManifestError("empty bot command line")
    if name is None:
        name = _name_from(words)
    return BotSpec(name=name, command=words, folder=None)


def _name_from(words: Sequence[str]) -> str:
    """A readable name for a bare command line: its script's folder or stem."""
    for word in reversed(words):
        p = Path(word)
        if p.suffix and not word.startswith("-"):
            stem = p.parent.name if p.stem in {"bot", "main", "index"} and p.parent.name else p.stem
            if _NAME.match(stem):
                return stem
    base = Path(words[0]).name
    return base if _NAME.match(base) else "bot"


def unique_names(specs: Sequence[BotSpec]) -> list[BotSpec]:
    """Rename bots that share a name: alice, alice-2, alice-3 ..."""
    seen: dict[str, int] = {}
    out = []
    for spec in specs:
        count = seen.get(spec.name, 0) + 1
        seen[spec.name] = count
        if count > 1:
            spec = dataclasses.replace(spec, name=f"{spec.name}-{count}")
        out.append(spec)
    return out


def resolve_command(words: Sequence[str], folder: Path | None) -> list[str]:
    """The command with its program made absolute (see the module docstring)."""
    program, *rest = words
    if program in {"python", "python3"}:
        return [sys.executable, *rest]
    if "/" in program:
        # Not resolve(): a virtualenv's python is a symlink that must stay one.
        base = folder if folder is not None else Path.cwd()
        path = os.path.normpath(base / program)
        if not os.access(path, os.X_OK):
            raise ManifestError(f"program {program!r} not found or not executable")
        return [path, *rest]
    found = shutil.which(program, path=os.environ.get("PATH", os.defpath))
    if found is None:
        raise ManifestError(f"command {program!r} not found on the PATH")
    return [found, *rest]


def build(spec: BotSpec, *, timeout: float = 600.0) -> str:
    """Run the bot's build command in its folder; returns its output, raises BuildError."""
    if spec.build is None or spec.folder is None:
        return ""
    command = resolve_command(spec.build, spec.folder)
    try:
        done = subprocess.run(
            command,
            cwd=spec.folder,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        raise BuildError(f"{spec.name}: build failed: {err}") from None
    output = (done.stdout + done.stderr).decode(errors="replace")
    if done.returncode != 0:
        tail = "\n".join(output.strip().splitlines()[-5:])
        raise BuildError(f"{spec.name}: build exited with status {done.returncode}: {tail}")
    return output
