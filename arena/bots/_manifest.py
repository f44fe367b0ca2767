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

import codecs
import dataclasses
import hashlib
import os
import re
import shlex
import shutil
import stat
import sys
import tomllib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from arena.errors import ConfigError, ManifestError, shown

MANIFEST = "bot.toml"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}")


MAX_SUBMISSION_MB = 512
"""The largest submission, in MiB, counted without `IGNORED` folders."""

IGNORED = frozenset(
    {".git", "__pycache__", "node_modules", ".cache", ".cargo-home", ".m2", "target", "out"}
)
"""Folders that are build outputs, caches or version control, not the submission: a
digest neither reads nor counts them (nor files ending in .log)."""


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

    def digest(self, max_mb: int = MAX_SUBMISSION_MB) -> str:
        """A hash of the submission: the manifest and every file of the folder but build
        outputs and caches (`IGNORED`), read in chunks.

        Raises ManifestError, naming the bot, for a submission over `max_mb` MiB (by
        the files' sizes, before anything is read: a sparse 20 GB file is refused, not
        read), a special file (a FIFO would block the read forever, a device is no
        part of a bot) or a symbolic link that leads out of the folder.
        """
        h = hashlib.sha256()
        h.update(repr((self.name, self.command, self.build)).encode())
        if self.folder is None:
            return h.hexdigest()[:16]
        files = _submission_files(self.name, self.folder)
        total = sum(size for _, _, size in files)
        if total > max_mb * 1024 * 1024:
            raise ManifestError(
                f"{self.name}: the submission holds {total / 1024 / 1024:.0f} MiB of files,"
                f" more than the {max_mb} MiB allowed ({self.folder})"
            )
        for rel, path, _ in files:
            # The names' bytes as the file system has them: a name need not be UTF-8.
            h.update(os.fsencode(rel) + b"\0")
            try:
                if path.is_symlink():
                    h.update(b"link\0" + os.fsencode(os.readlink(path)))
                    continue
                with open(path, "rb") as f:
                    while chunk := f.read(1 << 20):
                        h.update(chunk)
            except OSError as err:
                raise _unreadable(self.name, rel, err) from None
        return h.hexdigest()[:16]


def _unreadable(name: str, rel: object, err: OSError) -> ManifestError:
    return ManifestError(f"{name}: cannot read {rel}: {err.strerror}")


MAX_DEPTH = 64
"""The deepest a submission's folders may nest (before and after its build): a deeper
tree is refused, not walked (Python's own walk recursed once per level, and a tree some
thousand levels deep crashed the league that met it)."""


def walk_tree(name: str, folder: Path) -> Iterator[tuple[str, Path, os.DirEntry[str], bool]]:
    """(relative path, path, its directory entry, inside an `IGNORED` folder) of
    everything in `folder`, folders before their contents, names sorted; links are
    listed, never followed (a link named as an `IGNORED` folder, to a folder, is left
    out whole: a shared `target` or `node_modules`). Iterative, and reads each folder
    once, with the types its entries carry (a lstat only where asked for). Raises
    ManifestError, naming the bot, for a folder nested more than `MAX_DEPTH` deep and
    for anything it cannot read (caches included: a special file could hide there)."""
    stack: list[tuple[Path, str, int, bool]] = [(folder, "", 0, False)]
    while stack:
        top, prefix, depth, ignored = stack.pop()
        try:
            with os.scandir(top) as found:
                entries = sorted(found, key=lambda e: e.name)
        except OSError as err:
            raise _unreadable(name, prefix or ".", err) from None
        below: list[tuple[Path, str, int, bool]] = []
        for entry in entries:
            rel = prefix + entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                if entry.name in IGNORED and entry.is_symlink() and entry.is_dir():
                    continue
            except OSError as err:
                raise _unreadable(name, rel, err) from None
            inside = ignored or (is_dir and entry.name in IGNORED)
            yield rel, Path(entry.path), entry, inside
            if is_dir:
                if depth + 1 > MAX_DEPTH:
                    raise ManifestError(
                        f"{name}: {rel} is nested more than {MAX_DEPTH} folders deep, more"
                        " than a submission may be"
                    )
                below.append((Path(entry.path), rel + os.sep, depth + 1, inside))
        stack.extend(reversed(below))


def _kind(name: str, rel: str, entry: os.DirEntry[str]) -> str:
    """ "dir", "file", "link" or "special" (a FIFO, a socket, a device)."""
    try:
        if entry.is_symlink():
            return "link"
        if entry.is_dir(follow_symlinks=False):
            return "dir"
        if entry.is_file(follow_symlinks=False):
            return "file"
    except OSError as err:
        raise _unreadable(name, rel, err) from None
    return "special"


def _lstat(name: str, rel: str, entry: os.DirEntry[str]) -> os.stat_result:
    try:
        return entry.stat(follow_symlinks=False)
    except OSError as err:
        raise _unreadable(name, rel, err) from None


def _special(name: str, rel: str) -> ManifestError:
    return ManifestError(
        f"{name}: {rel} is a special file (FIFO, socket or device), which a submission may"
        " not hold (nor its build make: a FIFO outlives the process that wrote to it, and"
        " would carry what one process of a bot saw to the next)"
    )


def check_tree(name: str, folder: Path) -> None:
    """Raise ManifestError if anything in `folder`, build outputs and caches included,
    is a special file, or if it nests more than `MAX_DEPTH` deep."""
    for rel, _, entry, _ in walk_tree(name, folder):
        if _kind(name, rel, entry) == "special":
            raise _special(name, rel)


def _submission_files(name: str, folder: Path) -> list[tuple[str, Path, int]]:
    """(relative path, path, size) of every file and link to hash, sorted; raises
    ManifestError for special files anywhere in the folder (`IGNORED` folders too) and
    for links that lead out of the folder (outside `IGNORED` folders)."""
    out = []
    root = os.path.realpath(folder)
    for rel, path, entry, ignored in walk_tree(name, folder):
        kind = _kind(name, rel, entry)
        if kind == "special":
            raise _special(name, rel)
        if ignored or kind == "dir":
            continue
        if kind == "link":
            target = os.path.realpath(path)
            if target != root and not target.startswith(root + os.sep):
                raise ManifestError(
                    f"{name}: {rel} is a link out of the submission (to {os.readlink(path)})"
                )
            out.append((rel, path, 0))
        elif not entry.name.endswith(".log"):
            out.append((rel, path, _lstat(name, rel, entry).st_size))
    return sorted(out)


def _split(text: object, field: str, where: Path) -> tuple[str, ...]:
    if not isinstance(text, str) or not text.strip():
        raise ManifestError(f"{where}: '{field}' must be a non-empty string")
    if "\0" in text:  # no program can be given one: exec refuses it
        raise ManifestError(f"{where}: '{field}' holds a NUL character")
    try:
        words = shlex.split(text)
    except ValueError as err:
        raise ManifestError(f"{where}: '{field}' is not a valid command line: {err}") from None
    return tuple(words)


def real_path(path: Path) -> Path:
    """`path` with its links followed as far as they lead: a loop of links is left as
    it is, for the open that follows to refuse (`Path.resolve` raises RuntimeError on
    one in Python 3.11, which would end a command in a traceback)."""
    return Path(os.path.realpath(path))


def check_name(name: str, where: str) -> str:
    """Return `name` if it is a valid bot name; raise ManifestError otherwise."""
    if not _NAME.fullmatch(name):  # (match and $ took a final newline)
        raise ManifestError(
            f"{where}: bot name {shown(name)} must be 1 to 64 letters, digits or - _ . +"
            " and start with a letter or digit"
        )
    return name


MANIFEST_BYTES = 64 * 1024
"""The largest bot.toml read: a stranger's file is not read into memory whole."""


def load_manifest(folder: Path) -> BotSpec:
    """Read `folder/bot.toml`; raises ManifestError with the reason (a FIFO or a
    device there is refused, not read)."""
    path = folder / MANIFEST
    # A submission's manifest is its own: a link out of its folder (to /etc/shadow, to
    # the organiser's files) would be read with arena's rights, and its keys or its
    # name shown.
    inside = os.path.realpath(folder)
    if os.path.commonpath([inside, os.path.realpath(path)]) != inside:
        raise ManifestError(f"{path}: a link out of its folder (a submission's files are its own)")
    try:
        # Without waiting: a FIFO's open would wait for a writer, and then its read.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO, a device, a folder
            os.close(fd)
            raise ManifestError(f"{path}: not a regular file")
        with open(fd, "rb") as file:
            raw = file.read(MANIFEST_BYTES + 1)
        if len(raw) > MANIFEST_BYTES:
            raise ManifestError(f"{path}: larger than {MANIFEST_BYTES // 1024} KiB")
        raw = raw.removeprefix(codecs.BOM_UTF8)  # as some editors save UTF-8: no TOML of its own
        data = tomllib.loads(raw.decode("utf-8"))
    except FileNotFoundError:
        raise ManifestError(f"{folder}: no {MANIFEST} in this folder") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ManifestError(f"{path}: cannot read: {err}") from None
    except ValueError as err:  # TOMLDecodeError, or an int of over 4,300 digits
        raise ManifestError(f"{path}: not valid TOML: {err}") from None
    unknown = set(data) - {"name", "run", "build", "description", "author", "version"}
    if unknown:
        missing = [k for k in ("name", "run") if k not in data]
        also = f"; and {' and '.join(repr(k) for k in missing)} is missing" if missing else ""
        raise ManifestError(
            f"{path}: unknown key(s): {', '.join(sorted(unknown))}{also} (the keys are name,"
            " run, build, description, author, version)"
        )
    for key in ("name", "run"):
        if key not in data:
            raise ManifestError(f"{path}: {key!r} is missing")
    name = data.get("name")
    if not isinstance(name, str):
        raise ManifestError(f"{path}: 'name' must be a string")
    check_name(name, str(path))
    command = _split(data.get("run"), "run", path)
    build = _split(data["build"], "build", path) if "build" in data else None
    folder = real_path(folder)
    try:  # it is sent to worker processes as text
        str(folder).encode()
    except UnicodeEncodeError:
        # Its end is what to rename: a long path is cut at its start, not its end.
        where = repr(str(folder))
        where = where if len(where) <= 240 else f"'...{where[-236:]}"
        raise ManifestError(
            f"{where}: the folder's path is not UTF-8 text (rename the folder)"
        ) from None
    return BotSpec(name=name, command=command, folder=folder, build=build)


def load_bot(arg: str) -> BotSpec:
    """A BOT argument: a folder with bot.toml, or a command line (`NAME=COMMAND` names it)."""
    path = Path(arg)
    if path.is_dir():
        return load_manifest(path)
    if path.name == MANIFEST and path.is_file():  # the manifest itself: its folder
        return load_manifest(path.parent)
    if " " not in arg.strip() and not path.exists() and ("/" in arg or arg.endswith(".toml")):
        raise ManifestError(f"{arg}: no such bot folder (a bot is a folder with a {MANIFEST})")
    if path.is_file() and (path.parent / MANIFEST).is_file() and not os.access(path, os.X_OK):
        raise ManifestError(
            f"{arg} is a file of the bot folder {path.parent}: give the folder"
            f" (arena runs a folder's bot as its {MANIFEST} says)"
        )
    if (
        arg.strip()
        and " " not in arg.strip()
        and "=" not in arg
        and "/" not in arg
        and not path.exists()
        and shutil.which(arg.strip(), path=os.environ.get("PATH", os.defpath)) is None
    ):
        raise ManifestError(
            f"no bot folder or command named {shown(arg.strip())} (a bot is a folder with a"
            f' {MANIFEST}, or a command line such as "python3 my_bot.py")'
        )
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
            if _NAME.fullmatch(stem):
                return stem
    base = Path(words[0]).name
    return base if _NAME.fullmatch(base) else "bot"


def check_out_of_reach(specs: Iterable[BotSpec], places: Iterable[tuple[str, Path | None]]) -> None:
    """Refuse (ConfigError) each of `places` ((what, path); None: not given) that lies in
    a bot's folder: the bot sees its folder in the sandbox, and a store, the logs or the
    replays hold the secret seed (so every deal), every game played or the other bots'
    stderr."""
    given = [(what, real_path(path)) for what, path in places if path is not None]
    for spec in specs:
        if spec.folder is None:  # a command, not a submission: it sees no folder of ours
            continue
        folder = real_path(spec.folder)
        for what, path in given:
            if path.is_relative_to(folder):
                raise ConfigError(
                    f"{what} {path} is in the folder of the bot {spec.name} ({folder}),"
                    " which the bot can read: put it outside every submission"
                )


def unique_names(specs: Sequence[BotSpec]) -> list[BotSpec]:
    """Rename bots that share a name: alice, alice-2, alice-3 ... A new name is one no
    bot has, given or made: a bot given the name alice-2 keeps it (bots sharing a name
    would share its processes, a bot's seat played by the other)."""
    taken = {spec.name for spec in specs}
    seen: set[str] = set()
    out = []
    for spec in specs:
        if spec.name in seen:
            count = 2
            while f"{spec.name}-{count}" in taken:
                count += 1
            spec = dataclasses.replace(spec, name=f"{spec.name}-{count}")
            taken.add(spec.name)
        seen.add(spec.name)
        out.append(spec)
    return out


def resolve_run(spec: BotSpec) -> list[str]:
    """`resolve_command` of the bot's run command; a program that is not found is said
    with the bot.toml that names it."""
    try:
        return resolve_command(spec.command, spec.folder)
    except ManifestError as err:
        if spec.folder is None:
            raise
        raise ManifestError(f"{spec.folder / MANIFEST}: {err}") from None


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
            raise ManifestError(f"program {shown(program)} not found or not executable")
        return [path, *rest]
    found = shutil.which(program, path=os.environ.get("PATH", os.defpath))
    if found is None:
        raise ManifestError(
            f"command {shown(program)} not found on the PATH{_not_found(words, folder)}"
        )
    return [found, *rest]


_SHELL_WORD = re.compile(r"^(?:\|\|?|&&?|;;?|\d*[<>].*|&>.*|\$[\w{(].*|~(?:/.*)?)$")
"""A word that means something to a shell but nothing to exec: an operator, a
redirection, a variable, a home folder."""

_SHELL_BUILTINS = frozenset({"cd", "export", "source", ".", "exec", "set", "ulimit", "eval"})

_NO_SHELL = (
    "the command line is not given to a shell: no variable assignments, builtins such as"
    " cd, pipes, redirections, ; or && (for those, write a script with a #! line, make it"
    ' executable and name it: run = "./run.sh"; SPEC §14.2)'
)


def shell_words(words: Sequence[str]) -> list[str]:
    """The words of a command line that only a shell would understand (`|`, `2>/dev/null`,
    `&&`, `$HOME` ...): exec passes them on to the program as arguments."""
    return [word for word in words if _SHELL_WORD.match(word)]


def _not_found(words: Sequence[str], folder: Path | None) -> str:
    """What to do about a first word that is not on the PATH."""
    program = words[0]
    if folder is not None and (folder / program).is_file():
        how = f"write ./{program}"
        if not os.access(folder / program, os.X_OK):
            how = f"name its interpreter (python3 {program}, node {program} ...), or {how}"
            how += " and make the file executable, with a #! line"
        return (
            f": to run the bot folder's {program}, {how} (a first word without a / is"
            " looked up on the PATH; SPEC §14.2)"
        )
    if "=" in program or program in _SHELL_BUILTINS or shell_words(words):
        return f": {_NO_SHELL}"
    return ""
