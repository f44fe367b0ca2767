"""How a command ends when it is stopped from outside: by a signal, or by its output
going away (a pipe's reader that closed it, a terminal that hung up).

It says what stopped it, where the output still reaches someone, and exits as a shell
reports a program that the signal killed: 128 plus the signal's number. Kept free of
trio, so that the command line can use it without the cost of importing that.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import signal
import sys
from typing import NoReturn

import click

_WORDS: dict[int, str] = {
    signal.SIGINT: "interrupted",
    signal.SIGTERM: "terminated",
    signal.SIGHUP: "hung up",
    signal.SIGPIPE: "output closed",
}


def _gone(fd: int) -> bool:
    """Whether writing to `fd` can reach nobody: a pipe whose reader closed it, a
    terminal that hung up (a file, /dev/null or a live pipe can still be written)."""
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))


def output_lost(err: BaseException) -> int | None:
    """The signal a shell would name for `err` if it is a write to stdout or stderr
    that can reach nobody any more: SIGPIPE (the reader closed the pipe) or SIGHUP (the
    terminal hung up); else None. An error of the same kind from elsewhere (a bot's
    pipe, a file) is told apart by asking the two outputs themselves."""
    if not isinstance(err, OSError) or err.errno not in (errno.EPIPE, errno.EIO):
        return None
    if not (_gone(1) or _gone(2)):
        return None
    return signal.SIGPIPE if err.errno == errno.EPIPE else signal.SIGHUP


def stop(signum: int, said: str = "") -> NoReturn:
    """Say how the run ended, with `said` after it (where stderr still reaches
    someone), and exit as a shell reports `signum`. A closed output with nothing to
    add is not said: `arena standings | head` ends as `seq 1000000 | head` does."""
    if signum != signal.SIGPIPE or said:
        with contextlib.suppress(OSError):
            click.echo(f"\n{_WORDS[signum]}{said}", err=True)
    for fd in (1, 2):  # what Python flushes at exit would fail into a closed output
        if _gone(fd):
            os.dup2(os.open(os.devnull, os.O_WRONLY), fd)
    sys.exit(128 + signum)
