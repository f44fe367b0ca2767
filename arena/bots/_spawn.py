"""Starting bot processes from one thread that lives as long as arena.

Linux ties a child's "parent death signal" (PR_SET_PDEATHSIG, which bubblewrap's
`--die-with-parent` sets) to the *thread* that forked it, not to the process. trio
starts processes from its worker threads, which it retires after 10 s idle: every
sandboxed bot started that way was SIGKILLed about 10 s later, in the middle of its
games. So arena forks every bot from a single spawner thread that is never retired
(a one-thread executor), and waits for the processes with a pidfd on the trio side.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Callable, Sequence

import trio

_lock = threading.Lock()
_executor: concurrent.futures.ThreadPoolExecutor | None = None


def _spawner() -> concurrent.futures.ThreadPoolExecutor:
    """The executor whose one thread forks every bot; its thread never idles out."""
    global _executor
    with _lock:
        if _executor is None:
            _executor = concurrent.futures.ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="arena-spawner"
            )
        return _executor


class Child:
    """A started process: its pipes as trio streams, its pid, and waiting for its exit."""

    def __init__(
        self,
        popen: subprocess.Popen[bytes],
        stdin: trio.lowlevel.FdStream,
        stdout: trio.lowlevel.FdStream,
        stderr: trio.lowlevel.FdStream,
    ) -> None:
        self._popen = popen
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        self.pid = popen.pid
        self._pidfd: int | None = None
        with contextlib.suppress(OSError, AttributeError):
            self._pidfd = os.pidfd_open(popen.pid)

    @property
    def returncode(self) -> int | None:
        """The exit status (negative: killed by that signal), or None while it runs."""
        return self._popen.poll()

    async def wait(self) -> int:
        """Wait for the process to exit and return its status."""
        while (code := self._popen.poll()) is None:
            if self._pidfd is not None:
                await trio.lowlevel.wait_readable(self._pidfd)
            else:  # no pidfd (an old kernel): poll
                await trio.sleep(0.01)
        self._close_pidfd()
        return code

    def send_signal(self, sig: signal.Signals) -> None:
        """Signal the process itself (not yet reaped)."""
        if self._popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self._popen.send_signal(sig)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def _close_pidfd(self) -> None:
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None

    def __del__(self) -> None:
        self._close_pidfd()


@trio.lowlevel.enable_ki_protection  # a KeyboardInterrupt would lose a started process
async def spawn(
    command: Sequence[str],
    *,
    cwd: str,
    env: dict[str, str],
    preexec_fn: Callable[[], None] | None,
    pass_fds: Sequence[int] = (),
) -> Child:
    """Start `command` with three pipes in a new session, forked by the spawner thread;
    `pass_fds` stay open in it (the caller closes its own copies). Without `preexec_fn`
    the child is started with vfork, which does not copy arena's memory map (a fork
    with code to run in the child costs milliseconds, in the one spawner thread).
    Either way signals Python ignores (SIGPIPE) are back to their defaults in it.

    Raises OSError when the program cannot be started. Not cancellable while the fork
    is under way (a fork takes milliseconds), so a started process is never lost: a
    KeyboardInterrupt that trio raises in the wait anyway (it does so in its main task)
    waits for the fork, then kills and reaps what it started before propagating.
    """
    pipes = [os.pipe() for _ in range(3)]  # (read, write) for stdin, stdout, stderr
    ours = [pipes[0][1], pipes[1][0], pipes[2][0]]
    theirs = [pipes[0][0], pipes[1][1], pipes[2][1]]

    def start() -> subprocess.Popen[bytes]:
        # The child's ends are closed here, in the spawner thread, before it forks the
        # next bot: a child forked while arena still held them (for a preexec_fn, for
        # milliseconds, longer on a busy machine) held them too, and a bot that closed
        # its input then took its next act in silence (a timeout, not a crash), as one
        # whose output had closed stayed open to the referee.
        try:
            return subprocess.Popen(
                list(command),
                stdin=theirs[0],
                stdout=theirs[1],
                stderr=theirs[2],
                cwd=cwd,
                env=env,
                start_new_session=True,
                preexec_fn=preexec_fn,
                pass_fds=tuple(pass_fds),
            )
        finally:
            for fd in theirs:
                os.close(fd)

    done = trio.Event()
    token = trio.lowlevel.current_trio_token()

    def wake(_: object) -> None:
        # The fork can end after trio.run did (a Ctrl-C below): then there is no one to wake.
        with contextlib.suppress(trio.RunFinishedError):
            token.run_sync_soon(done.set)

    try:
        future = _spawner().submit(start)
    except BaseException:  # (an interpreter shutting down): nothing was started
        for fd in (*theirs, *ours):
            os.close(fd)
        raise
    future.add_done_callback(wake)
    try:
        with trio.CancelScope(shield=True):
            await done.wait()
        popen = future.result()
    except BaseException:
        # In trio's main task (`arena check-bot` spawns there) a pending Ctrl-C is raised
        # at this wait, KI protection and shield or not: the fork may still be under way.
        _end_started(future)
        for fd in ours:
            os.close(fd)
        raise
    return Child(popen, *(trio.lowlevel.FdStream(fd) for fd in ours))


def signal_group(pgid: int, sig: signal.Signals) -> None:
    """Send `sig` to the process group `pgid`, if it is still there (and ours)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _end_started(future: concurrent.futures.Future[subprocess.Popen[bytes]]) -> None:
    """Wait for the fork (milliseconds), then kill the process it started, with its
    whole process group (its session: it leads both), and reap it: nobody else would."""
    try:
        popen = future.result()
    except BaseException:  # nothing was started (the error is the caller's, or Popen's)
        return
    signal_group(popen.pid, signal.SIGKILL)
    popen.wait()  # killed, it ends at once
