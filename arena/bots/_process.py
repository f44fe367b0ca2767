"""Bot processes: start with limits in a clean environment, capture stderr, kill.

Every bot process is the leader of its own process group (a new session), so that
killing it kills its children too: SIGTERM to the group, a grace period, then SIGKILL.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import resource
import shutil
import signal
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import trio

from arena._declared import about
from arena._memgroups import (
    joined,
    new_cpu_group,
    new_group,
    oom_kills,
    release_group,
    share_cpu,
)
from arena.bots._manifest import BotSpec, resolve_command
from arena.bots._spawn import Child, signal_group, spawn
from arena.errors import ConfigError, MachineError

_CORES = os.cpu_count() or 1
"""The machine's cores, counted once: `os.cpu_count` reads a file of /sys at every call,
and `cpu_worn` is asked of every idle process at every game's start."""

MiB = 1024 * 1024


def remove_tree(path: Path) -> None:
    """Remove `path` and everything in it, as far as it can (never raises): with
    Python's walk, which recurses once per level, and for a tree too deep for that (a
    bot without the sandbox could nest its private folder thousands deep) with rm."""
    try:
        shutil.rmtree(path, ignore_errors=True)
    except RecursionError:
        import subprocess

        subprocess.run(
            ["rm", "-rf", "--", str(path)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
            start_new_session=True,  # out of reach of the terminal's Ctrl-C
        )


@dataclasses.dataclass(frozen=True, slots=True)
class Limits:
    """Resource limits applied to every bot process (None: no limit). A limit above the
    hard limit arena itself runs under (``ulimit -H``) is lowered to that one."""

    memory_mb: int | None = dataclasses.field(
        default=4096,
        metadata=about(
            "Address space of each bot process; in the sandbox, where arena can make cgroups,"
            " also the memory of a bot process and its children together."
        ),
    )
    """Address space (RLIMIT_AS) of each process, in MiB; in the sandbox where arena can make
    cgroups also the memory of a bot process and all its children together (`arena._memgroups`)."""
    cpu_seconds: int | None = dataclasses.field(default=3600, metadata=about("CPU time per game."))
    """CPU time a bot may use in one game, in seconds. RLIMIT_CPU counts over a process's
    whole life, so it is set to twice this, and a reused process that could have used
    this much already (its age times the cores) is replaced between games: a game always
    starts with at least this much CPU time left (see `BotProcess.cpu_worn`)."""
    processes: int | None = dataclasses.field(default=256, metadata=about("Process limit."))
    """Processes of the bot's user (RLIMIT_NPROC); not enforced for root without a sandbox."""
    file_size_mb: int | None = dataclasses.field(default=64, metadata=about("File size limit."))
    """Largest file the bot may write (RLIMIT_FSIZE), in MiB."""
    open_files: int | None = dataclasses.field(
        default=1024, metadata=about("Open files of each bot process.")
    )
    """Files (and pipes and sockets) each bot process may hold open (RLIMIT_NOFILE). Not
    arena's own: a bot of 256 processes each holding arena's 20,000 could fill the
    machine's file table, and arena, unable to open a file, would stop the league
    without charging the bot (again at every resume)."""
    stderr_kb: int = dataclasses.field(default=1024, metadata=about("Size of a bot's log, in KiB."))
    """Size of a bot's log (its stderr, and its build's output), in KiB, over all its
    processes in a league; the rest is read and dropped."""


def _rlimits(limits: Limits) -> list[tuple[int, int]]:
    out = []
    if limits.memory_mb is not None:
        out.append((resource.RLIMIT_AS, limits.memory_mb * MiB))
    if limits.cpu_seconds is not None:
        out.append((resource.RLIMIT_CPU, 2 * limits.cpu_seconds))
    if limits.processes is not None:
        out.append((resource.RLIMIT_NPROC, limits.processes))
    if limits.file_size_mb is not None:
        out.append((resource.RLIMIT_FSIZE, limits.file_size_mb * MiB))
    if limits.open_files is not None:
        out.append((resource.RLIMIT_NOFILE, limits.open_files))
    return [(which, _within_hard(which, value)) for which, value in out]


def _within_hard(which: int, value: int) -> int:
    """`value`, or the hard limit arena runs under if that is lower (``ulimit -H``): a
    process cannot raise its hard limit, and a bot so gets the lower of the two."""
    hard = resource.getrlimit(which)[1]
    return value if hard == resource.RLIM_INFINITY else min(value, hard)


def _preexec(
    rlimits: list[tuple[int, int]], then: Callable[[], None] | None = None
) -> Callable[[], None]:
    def apply() -> None:  # runs in the child between fork and exec
        for which, value in rlimits:
            resource.setrlimit(which, (value, value))
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        if then is not None:
            then()

    return apply


def clean_env(home: Path) -> dict[str, str]:
    """The environment of a bot: a PATH, a UTF-8 locale, and its own home and temp folder."""
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "LANG": "C.UTF-8",
        "HOME": str(home),
        "TMPDIR": str(home),
        "PYTHONDONTWRITEBYTECODE": "1",
    }


class BotProcess:
    """A running bot process: its pipes, its stderr log and its process group."""

    def __init__(
        self,
        process: Child,
        workdir: Path,
        log_path: Path | None,
        group: Path | None = None,
        cpu_group: Path | None = None,
    ) -> None:
        self.process = process
        self.group = group
        """Its memory group (`arena._memgroups`), removed once it is gone; or None."""
        self.cpu_group = cpu_group
        """Its cpu group (`arena._memgroups`), removed once it is gone; or None."""
        self._oom_killed = False
        """Whether the group had killed a process of it, read before the group went."""
        self.workdir = workdir
        """The bot's private writable folder (its HOME and TMPDIR)."""
        self.log_path = log_path
        """Where its stderr goes, or None when it is dropped."""
        self.stream = trio.StapledStream(process.stdin, process.stdout)
        """Its stdin and stdout as one stream."""
        self.started = time.monotonic()
        """When it started (time.monotonic)."""
        self.paused = False
        """True while its process group is stopped (`pause`)."""
        self.pausable = False
        """Whether `pause` stops it: only in the sandbox, which kills a stopped bot
        when arena dies (outside it a killed arena would leave it stopped for ever)."""
        self.stderr: StderrTail | None = None
        """The end of what it wrote to its stderr (`start_process` sets it)."""

    def exit_status(self) -> str | None:
        """How the process ended ("exited with status 0", "was killed by SIGKILL"), or
        None while it runs. In the sandbox bubblewrap exits with 128 + N for a bot killed
        by signal N, which is said too."""
        code = self.process.returncode
        if code is None:
            return None
        if code < 0:
            return f"was killed by {_signal_name(-code) or f'signal {-code}'}"
        if self.pausable and code > 128 and (name := _signal_name(code - 128)):
            return f"exited with status {code} (in the sandbox: killed by {name})"
        return f"exited with status {code}"

    def memory_exhausted(self) -> bool:
        """Whether the kernel killed a process of its memory group (`arena._memgroups`)
        for passing the group's limit: so a crash can say why."""
        if self.group is None or self._oom_killed:
            return self._oom_killed
        return oom_kills(self.group) > 0

    def cpu_worn(self, cpu_seconds: int | None) -> bool:
        """True if the process may have used `cpu_seconds` of CPU time already.

        No process can use more CPU time than its age times the machine's cores, so this
        reads nothing of the process: a reused process is replaced once this is True, and
        its RLIMIT_CPU (twice `cpu_seconds`) then leaves every game `cpu_seconds` at least.
        """
        if cpu_seconds is None:
            return False
        return (time.monotonic() - self.started) * _CORES >= cpu_seconds

    @property
    def pid(self) -> int:
        """The process id, also its process group id."""
        return self.process.pid

    def pause(self) -> None:
        """Stop every process of the bot (SIGSTOP to its process group) until `resume`:
        while another bot decides, or between its games, it gets no CPU time. Only
        under the sandbox (`pausable`), which keeps the group whole (a bot cannot leave
        it: arena.sandbox)."""
        if self.pausable and not self.paused:
            self.paused = True
            signal_group(self.pid, signal.SIGSTOP)

    def resume(self) -> None:
        """Let the bot's processes run again (SIGCONT to the group)."""
        if self.paused:
            self.paused = False
            signal_group(self.pid, signal.SIGCONT)

    async def wait_exit(self, seconds: float) -> bool:
        """Wait up to `seconds` for the process to exit; True if it did."""
        with trio.move_on_after(seconds):
            await self.process.wait()
            return True
        return False

    async def kill(self, grace: float = 0.5) -> None:
        """SIGTERM the whole process group, then SIGKILL it after `grace` seconds."""
        signal_group(self.pid, signal.SIGTERM)
        signal_group(self.pid, signal.SIGCONT)  # a stopped process takes it once it runs
        self.paused = False
        if not await self.wait_exit(grace):
            signal_group(self.pid, signal.SIGKILL)
        with trio.CancelScope(shield=True):
            with trio.move_on_after(grace):
                await self.process.wait()
        # Children that outlived their leader (or ignored SIGTERM) go too.
        signal_group(self.pid, signal.SIGKILL)
        if self.process.returncode is None:
            self.process.kill()
            with trio.CancelScope(shield=True):
                await self.process.wait()
        await self.stream.aclose()
        remove_tree(self.workdir)
        if self.group is not None:
            # Read first: a fault is written once the process is gone (a start-up crash
            # is), and the group may go with it.
            self._oom_killed = self.memory_exhausted()
            release_group(self.group)
            self.group = None
        if self.cpu_group is not None:
            release_group(self.cpu_group)
            self.cpu_group = None


def _signal_name(number: int) -> str | None:
    try:
        return signal.Signals(number).name
    except ValueError:
        return None


TRUNCATED = b"\n[arena: stderr log truncated]\n"


def check_log_dir(folder: Path | None, what: str = "log folder") -> None:
    """Make the folder of the bots' logs (`--log-dir`) and check that a log can be
    written in it; `ConfigError` naming it if not. Otherwise every bot's start fails
    there, and the league charges each bot a crash for it. (`what` names another
    folder arena writes in, checked alike.)"""
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as err:
        raise ConfigError(f"{what} {folder}: cannot write there: {err.strerror or err}") from None


def log_failure(path: Path, err: OSError) -> MachineError:
    """The error for a bot's log that cannot be made, opened or written (a full disk, a
    log folder that became unwritable): the organiser's problem, never the bot's."""
    return MachineError.charging_no_bot(f"cannot write the bot log {path}: {err.strerror or err}")


class CappedLog:
    """Appends to a bot's log file (its folder made if need be) until the *file* holds
    `cap` bytes.

    The cap is the file's size, not what one process wrote: every process of the bot
    (restarted after each crash, or in other worker processes) appends to the same
    file, so a bot's log stays within the cap over the whole league (a few writes
    racing at the end may pass it by at most one chunk each).

    A log that cannot be made, opened or written (a full disk, a folder that became
    unwritable) raises `MachineError` (`log_failure`): the organiser asked for the
    logs, so a league stops (to be resumed) rather than lose them without a word, and
    the bot is charged nothing. (Once the cap is reached, the rest is dropped.)
    """

    def __init__(self, path: Path | None, cap: int) -> None:
        self._file = None
        self._path = path
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                self._file = open(path, "ab")  # noqa: SIM115
            except OSError as err:
                raise log_failure(path, err) from None
        self._cap = cap

    def write(self, data: bytes | bytearray) -> None:
        """Append `data` within the cap; `MachineError` if the file cannot take it."""
        if self._file is None:
            return
        try:
            room = self._cap - os.fstat(self._file.fileno()).st_size
            if room <= 0:
                return
            self._file.write(data[:room])
            if len(data) >= room:
                self._file.write(TRUNCATED)
            self._file.flush()
        except OSError as err:
            self.close()
            assert self._path is not None
            raise log_failure(self._path, err) from None

    def close(self) -> None:
        if self._file is not None:
            file, self._file = self._file, None
            with contextlib.suppress(OSError):  # what it could not write, it drops
                file.close()


class StderrTail:
    """The last bytes a bot wrote to its stderr (whether or not its log keeps them), so
    that a fault can end with what the bot last said; `ended` once the stream ended."""

    KEEP = 4096

    def __init__(self) -> None:
        self._data = bytearray()
        self.ended = trio.Event()

    def add(self, chunk: bytes | bytearray) -> None:
        self._data += chunk
        if len(self._data) > self.KEEP:
            del self._data[: len(self._data) - self.KEEP]

    def last_lines(self, count: int = 3, width: int = 200) -> list[str]:
        """Its last `count` lines that hold anything, each cut to `width` characters."""
        text = self._data.decode(errors="replace")
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        cut = width - 3
        return [line if len(line) <= width else line[:cut] + "..." for line in lines[-count:]]


LAST_WORDS = 1 << 20
"""At most this many bytes are read from a bot's stderr pipe when its reader is stopped
(a league stopped, its processes killed): what it wrote before then, not a flood that
its children, still alive, keep writing."""


def _drain_now(stream: trio.lowlevel.FdStream, log: CappedLog, tail: StderrTail) -> None:
    """Read what is in `stream`'s pipe now, without waiting, into `log` and `tail`. A
    reader cancelled as the bots' processes are closed has not always been scheduled
    since a bot's last write: under load a bot killed at a Ctrl-C lost its last lines."""
    read = 0
    with contextlib.suppress(OSError, ValueError):  # EAGAIN (empty) or a closed stream
        while read < LAST_WORDS:
            chunk = os.read(stream.fileno(), 65536)
            if not chunk:
                break
            read += len(chunk)
            tail.add(chunk)
            with contextlib.suppress(MachineError):  # a log that fails now stays as it is
                log.write(chunk)


async def _drain(stream: trio.lowlevel.FdStream, log: CappedLog, tail: StderrTail) -> None:
    """Read a bot's stderr to the end (so it never blocks), keeping the start in `log`
    and the end in `tail`.

    A log that cannot be written raises `MachineError` here, in the nursery of the
    bots' processes: the games in play are abandoned (not recorded) and every bot is
    killed, as when the machine cannot start one."""
    ended = False
    try:
        while True:
            try:
                chunk = await stream.receive_some(65536)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                break
            if not chunk:
                break
            tail.add(chunk)
            log.write(chunk)
        ended = True
    finally:
        if not ended:  # cancelled: what the bot wrote before it was stopped is kept
            _drain_now(stream, log, tail)
        tail.ended.set()
        log.close()
        with trio.CancelScope(shield=True):
            await stream.aclose()


async def start_process(
    spec: BotSpec,
    nursery: trio.Nursery,
    *,
    limits: Limits = Limits(),
    log_path: Path | None = None,
    wrap: Callable[[list[str], Path, Path | None], list[str]] | None = None,
) -> BotProcess:
    """Start `spec`'s process; its stderr drains in `nursery` into `log_path`.

    `wrap` may rewrite the command line (the sandbox does), given the command, the
    bot's private folder and its submission folder.
    """
    # The log first: one that cannot be opened is the machine's problem (MachineError),
    # found before there is a process to clean up.
    log = CappedLog(log_path, limits.stderr_kb * 1024)
    try:
        # Named after no bot: a bot sees this path (its HOME and TMPDIR), and an SPRT's
        # NEW and OLD are NAME.new and NAME.old (blind seats: neither may learn which).
        workdir = Path(tempfile.mkdtemp(prefix="arena-bot-"))
    except BaseException:
        log.close()
        raise
    fds: tuple[int, ...] = ()
    group: Path | None = None
    cpu_group: Path | None = None
    try:
        command = resolve_command(spec.command, spec.folder)
        rlimits = _rlimits(limits)
        # A sandbox that sets the limits on the command line (arena.sandbox: prlimit)
        # leaves nothing to do between fork and exec: the child starts without a copy
        # of arena's memory.
        with_rlimits = getattr(wrap, "with_rlimits", None)
        if with_rlimits is not None:
            command = with_rlimits(command, workdir, spec.folder, rlimits)
        elif wrap is not None:
            command = wrap(command, workdir, spec.folder)
        # The sandbox may have a seccomp program for bubblewrap to install in the bot
        # (arena.sandbox: the allow-list of system calls), read from a memfd.
        with_seccomp = getattr(wrap, "with_seccomp", None)
        if with_seccomp is not None:
            command, fds = with_seccomp(command)
        # In the sandbox, as root, all the bot's processes may share one memory limit.
        memory_root: Path | None = getattr(wrap, "memory_root", None)
        if memory_root is not None and limits.memory_mb is not None:
            try:
                group = new_group(memory_root, limits.memory_mb * MiB)
            except OSError:  # (no more groups to be had): the per-process limits hold
                group = None
        # ... and one share of the CPU, however many processes it runs.
        cpu_root: Path | None = getattr(wrap, "cpu_root", None)
        if cpu_root is not None and group is not None and cpu_root == memory_root:
            # One hierarchy (cgroup v2): a process is in one group, which holds both.
            with contextlib.suppress(OSError):  # the kernel's default weight holds
                share_cpu(group)
        elif cpu_root is not None:
            try:
                cpu_group = new_cpu_group(cpu_root)
            except OSError:  # (no more groups to be had): the kernel's scheduling holds
                cpu_group = None
        groups = [g for g in (group, cpu_group) if g is not None]
        if groups:
            command = joined(command, *groups)
        # A bot folder is its working directory; a bare command line runs where arena runs.
        cwd = spec.folder if spec.folder is not None else Path.cwd()
        # The sandbox may have more to do in the child (arena.sandbox: a seccomp filter).
        then: Callable[[], None] | None = getattr(wrap, "preexec", None)
        preexec = then if with_rlimits is not None else _preexec(rlimits, then)
        process = await spawn(
            command, cwd=str(cwd), env=clean_env(workdir), preexec_fn=preexec, pass_fds=fds
        )
    except BaseException:
        log.close()
        remove_tree(workdir)
        for made in (group, cpu_group):
            if made is not None:
                with contextlib.suppress(OSError):
                    made.rmdir()
        raise
    finally:
        for fd in fds:
            os.close(fd)
    tail = StderrTail()
    nursery.start_soon(_drain, process.stderr, log, tail)
    bot = BotProcess(process, workdir, log_path, group, cpu_group)
    bot.stderr = tail
    bot.pausable = bool(getattr(wrap, "contained", False))
    return bot
