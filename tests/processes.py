"""Processes a test starts that must not outlive the test session: a pytest killed
(Ctrl-C twice, a CI timeout, SIGKILL) cannot run its fixtures' clean-up, and a Dask
scheduler and its workers, a CPU hog or an `arena serve` started in a session of their
own ran on for an hour after a killed `make test` (issue 42)."""

from __future__ import annotations

import ctypes
import os
import signal
from collections.abc import Callable

_PR_SET_PDEATHSIG = 1


def dies_with_us() -> Callable[[], None]:
    """A `preexec_fn` that has the kernel SIGKILL the child once this process (strictly,
    the thread that starts it: call it from the main thread) is gone."""
    parent = os.getpid()
    libc = ctypes.CDLL(None, use_errno=True)

    def preexec() -> None:
        if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            os._exit(126)
        if os.getppid() != parent:  # gone before the signal was set
            os._exit(126)

    return preexec
