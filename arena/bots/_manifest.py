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

import contextlib
import contextvars
import dataclasses
import hashlib
import os
import re
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import threading
import tomllib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from arena.errors import BuildError, ConfigError, ManifestError, shown

MANIFEST = "bot.toml"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$")


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


def _submission_files(name: str, folder: Path) -> list[tuple[str, Path, int]]:
    """(relative path, path, size) of every file and link to hash, sorted; raises
    ManifestError for special files and for links that lead out of the folder."""
    out = []
    root = os.path.realpath(folder)

    def unreadable(err: OSError) -> None:  # os.walk would skip the folder unhashed
        where = Path(err.filename or folder)
        rel = where.relative_to(folder) if where.is_relative_to(folder) else where
        raise _unreadable(name, rel, err)

    for top, dirs, files in os.walk(folder, onerror=unreadable):  # links: listed, not walked
        dirs[:] = sorted(d for d in dirs if d not in IGNORED)
        for entry in [*dirs, *files]:
            path = Path(top) / entry
            rel = str(path.relative_to(folder))
            try:
                info = path.lstat()
            except OSError as err:
                raise _unreadable(name, rel, err) from None
            if stat.S_ISLNK(info.st_mode):
                target = os.path.realpath(path)
                if target != root and not target.startswith(root + os.sep):
                    raise ManifestError(
                        f"{name}: {rel} is a link out of the submission (to {os.readlink(path)})"
                    )
                out.append((rel, path, 0))
            elif stat.S_ISREG(info.st_mode):
                if not entry.endswith(".log"):
                    out.append((rel, path, info.st_size))
            elif not stat.S_ISDIR(info.st_mode):
                raise ManifestError(
                    f"{name}: {rel} is a special file (FIFO, socket or device), which a"
                    " submission may not hold"
                )
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
    if not _NAME.match(name):
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
        raise ManifestError(
            f"{shown(str(folder))}: the folder's path is not UTF-8 text (rename the folder)"
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


BUILD_TIMEOUT = 600.0
"""Seconds a build may take by default."""


def build(
    spec: BotSpec,
    *,
    sandbox: str = "none",
    network: bool = False,
    timeout: float = BUILD_TIMEOUT,
    log_path: Path | None = None,
    log_kb: int = 1024,
) -> str:
    """Run the bot's build command in its folder; returns its output, raises BuildError.

    With `sandbox` "bwrap" the build runs under bubblewrap as the bot will (see
    `arena.sandbox.sandboxed_build`): its own folder writable, the toolchains visible
    read-only, no network unless `network`. It is killed after `timeout` seconds. Its
    output goes to the bot's log at `log_path` too (within the log's cap of `log_kb`);
    `MachineError` if that log cannot be written.
    """
    if spec.build is None or spec.folder is None:
        return ""
    command = resolve_command(spec.build, spec.folder)
    try:
        if sandbox == "bwrap":
            from arena.sandbox import sandboxed_build

            code, data = sandboxed_build(command, spec.folder, network=network, timeout=timeout)
        else:
            code, data = run_build(command, spec.folder, timeout=timeout)
    except OSError as err:
        raise BuildError(f"{spec.name}: build failed: {err}") from None
    output: str = data.decode(errors="replace")
    if log_path is not None:
        _log_build(log_path, log_kb, command, code, data)
    if code is None:
        raise BuildError(f"{spec.name}: build did not finish in {timeout:g} s")
    if code != 0:
        tail = "\n".join(output.strip().splitlines()[-5:])
        raise BuildError(f"{spec.name}: build exited with status {code}: {tail}")
    return output


class BuildStop:
    """Stops builds that run in another thread (a league builds its bots in a worker
    thread, so that SIGTERM or a hang-up need not wait for a build of minutes): `stop`
    kills the build running (its whole process group) and refuses every later one.
    The builds it governs are those run where `BUILD_STOP` holds it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: set[int] = set()
        self.stopped = False

    def stop(self) -> None:
        with self._lock:
            self.stopped = True
            running = list(self._running)
        for group in running:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(group, signal.SIGKILL)

    def started(self, pid: int) -> bool:
        """Count a build's process group; False if the builds were stopped already."""
        with self._lock:
            if self.stopped:
                return False
            self._running.add(pid)
            return True

    def ended(self, pid: int) -> None:
        with self._lock:
            self._running.discard(pid)


BUILD_STOP: contextvars.ContextVar[BuildStop | None] = contextvars.ContextVar(
    "arena_build_stop", default=None
)
"""The `BuildStop` of the builds run in this context, if any."""


def run_build(
    command: Sequence[str],
    cwd: Path,
    *,
    timeout: float,
    env: dict[str, str] | None = None,
    preexec_fn: Callable[[], None] | None = None,
) -> tuple[int | None, bytes]:
    """Run a build command in its own process group; (exit status or None if it timed
    out and was killed with its whole group, output and errors together). Stopped
    (Ctrl-C raises KeyboardInterrupt in the wait), it kills the group before it goes:
    in a session of its own, the build would not get the terminal's Ctrl-C, and
    Python's `Popen` leaves a process it was waiting for running on KeyboardInterrupt.
    Where `BUILD_STOP` holds a stopped `BuildStop`, raises BuildError."""
    stop = BUILD_STOP.get()
    if stop is not None and stop.stopped:
        raise BuildError("the builds were stopped")
    with subprocess.Popen(
        list(command),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
        start_new_session=True,
        preexec_fn=preexec_fn,
    ) as proc:
        try:
            if stop is not None and not stop.started(proc.pid):  # stopped as it started
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)
            data, _ = proc.communicate(timeout=timeout)
            if stop is not None and stop.stopped:
                raise BuildError("the builds were stopped")
            return proc.returncode, data
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            data, _ = proc.communicate()
            return None, data
        except BaseException:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise
        finally:
            if stop is not None:
                stop.ended(proc.pid)


def _log_build(path: Path, kb: int, command: Sequence[str], code: int | None, data: bytes) -> None:
    from arena.bots._process import CappedLog

    log = CappedLog(path, kb * 1024)  # MachineError if it cannot be written
    status = "timed out" if code is None else f"exit status {code}"
    log.write(f"[arena: build {shlex.join(command)}: {status}]\n".encode() + data + b"\n")
    log.close()
