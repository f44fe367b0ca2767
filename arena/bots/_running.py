"""Running one build command: its process group killed by a stop (`BuildStop`, for
builds run in another thread), its output bounded, its disk use watched, what it left
running reaped (`run_build`); `arena.bots._builds` builds a bot with it, in the
sandbox (`arena.bots._sandboxed`) or not."""

from __future__ import annotations

import contextlib
import contextvars
import math
import os
import select
import signal
import stat
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from arena.bots._spawn import signal_group
from arena.errors import BuildError


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
            signal_group(group, signal.SIGKILL)

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


class BuildsStopped(Exception):
    """The builds were stopped (`BuildStop.stop`). No `BotError`: it is no bot's fault,
    and whoever builds the bots one after another goes no further."""


OUTPUT_HEAD = 1 << 20
"""A build's first output kept, in bytes (with its last `OUTPUT_TAIL`): a build that
writes without end does not fill arena's memory."""
OUTPUT_TAIL = 64 << 10

_SLICE = 0.2
"""Seconds between looks at a build's stop, clock and disk use."""
EOF_GRACE = 2.0
"""Seconds a build's output is read on after the build has exited: a process it left
behind (out of its process group) may hold the pipe open, and is not waited for."""


INODE_BYTES = 16384
"""What each file or folder counts on the disk besides its blocks: an inode, at the
bytes-per-inode that mke2fs gives a file system by default, so that a build that makes
a million empty files fills the disk cap as it would fill the inode table (200,000
empty files passed a 4 GiB cap when only blocks counted)."""


def disk_use(paths: Iterable[Path]) -> int:
    """Bytes the files under `paths` take on the disk, each also counting an inode
    (`INODE_BYTES`) (links not followed; what cannot be read, or is gone by the time it
    is looked at, counts nothing). Iterative, as deep as the tree goes."""
    total = 0
    stack = [str(p) for p in paths]
    while stack:
        top = stack.pop()
        try:
            with os.scandir(top) as entries:
                for entry in entries:
                    try:
                        info = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    total += info.st_blocks * 512 + INODE_BYTES
                    if stat.S_ISDIR(info.st_mode):
                        stack.append(entry.path)
        except OSError:
            continue
    return total


class _Output:
    """A build's output: its first `OUTPUT_HEAD` bytes and its last `OUTPUT_TAIL`."""

    def __init__(self) -> None:
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        room = OUTPUT_HEAD - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            over = len(self.tail) - OUTPUT_TAIL
            if over > 0:
                del self.tail[:over]
                self.dropped += over

    def data(self) -> bytes:
        if not self.dropped:
            return bytes(self.head + self.tail)
        cut = f"\n[arena: {self.dropped} bytes of the build's output left out]\n".encode()
        return bytes(self.head) + cut + bytes(self.tail)


def run_build(
    command: Sequence[str],
    cwd: Path,
    *,
    timeout: float,
    env: dict[str, str] | None = None,
    preexec_fn: Callable[[], None] | None = None,
    disk: tuple[Sequence[Path], int] | None = None,
) -> tuple[int | None, bytes]:
    """Run a build command in its own process group; (exit status or None if it timed
    out and was killed with its whole group, its output and errors together, as far as
    kept: `_Output`).

    With `disk` (paths, MiB), the build is killed with its group, and BuildError raised,
    once the files under those paths take more than that many MiB more than at its
    start. Where `BUILD_STOP` holds a stopped `BuildStop`, the build is killed and
    BuildsStopped raised. Stopped (Ctrl-C raises KeyboardInterrupt in the wait), it
    kills the group before it goes: in a session of its own, the build would not get the
    terminal's Ctrl-C. None of these waits for the end of the build's output: a process
    that left the group may hold it open."""
    stop = BUILD_STOP.get()
    if stop is not None and stop.stopped:
        raise BuildsStopped
    base = disk_use(disk[0]) if disk is not None else 0
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
                raise BuildsStopped
            watch = None
            if disk is not None:
                paths, mb = disk

                def watch() -> str | None:
                    if disk_use(paths) - base > mb * 1024 * 1024:
                        return f"the build wrote more than {mb} MiB to the disk"
                    return None

            return _await_build(proc, timeout, stop, watch)
        except BaseException:
            signal_group(proc.pid, signal.SIGKILL)
            proc.wait()  # the build's own process: killed, it ends at once
            raise
        finally:
            if stop is not None:
                stop.ended(proc.pid)


def _group_alive(group: int) -> bool:
    """Whether any process is left in the process group `group`."""
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _await_build(
    proc: subprocess.Popen[bytes],
    timeout: float,
    stop: BuildStop | None,
    watch: Callable[[], str | None] | None,
) -> tuple[int | None, bytes]:
    """Read the build's output until its command has exited and the output ended (a
    job of its own group still writing is waited for, as the build it is part of); a
    process out of the group that holds the output is given `EOF_GRACE` seconds once
    the group is empty. Then whatever is left of the group is killed (nothing of a
    finished build goes on writing into its folder), and `watch` has a last look.
    Looks at `stop`, the clock and `watch` every `_SLICE` seconds meanwhile. The
    caller kills the group on any exception."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    os.set_blocking(fd, False)
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    out = _Output()
    now = time.monotonic()
    deadline = now + timeout
    next_watch = now + 1.0
    emptied_at: float | None = None
    eof = False
    while True:
        if stop is not None and stop.stopped:
            raise BuildsStopped
        now = time.monotonic()
        if now >= deadline:
            signal_group(proc.pid, signal.SIGKILL)
            proc.wait()
            return None, out.data()
        if watch is not None and now >= next_watch:
            if (why := watch()) is not None:
                raise BuildError(why)
            # At most a tenth of the build's time goes to measuring it.
            next_watch = time.monotonic() + max(1.0, 10 * (time.monotonic() - now))
        if proc.poll() is not None:
            if not eof and not _group_alive(proc.pid):
                emptied_at = emptied_at if emptied_at is not None else now
            if eof or (emptied_at is not None and now - emptied_at >= EOF_GRACE):
                signal_group(proc.pid, signal.SIGKILL)  # what it left running
                if watch is not None and (why := watch()) is not None:
                    raise BuildError(why)
                return proc.returncode, out.data()
        if eof:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=min(_SLICE, deadline - now))
            continue
        if poller.poll(math.ceil(min(_SLICE, deadline - now) * 1000)):
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                continue
            if chunk:
                out.add(chunk)
            else:
                eof = True
                poller.unregister(fd)
