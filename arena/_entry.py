"""The `arena` command's entry point: Ctrl-C while the command line loads is taken
after the imports, not inside them.

Pressed while Python imported click and arena, Ctrl-C printed a KeyboardInterrupt
traceback; raised inside the import machinery's own callbacks, it was once only
"ignored", and that league played on to its end.
"""

from __future__ import annotations

import os
import signal
import sys
from types import FrameType

BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
"""The settings of numpy's linear algebra threads that `run` sets to 1 unless given."""


def one_blas_thread() -> None:
    """Let numpy's linear algebra run on one thread, unless the environment says
    otherwise (before numpy is imported: it reads them once). arena's matrices are as
    wide as the bots rated (the fit, its covariance), and it runs beside busy bots:
    on two busy cores a threaded solve and inverse of 100 × 100 took 1.7 ms against
    0.38 ms on one thread (the ladder's bench: 6 ms against 0.07 for a solve); on
    idle cores, the same. Bots and builds get an environment of their own
    (`arena.bots.clean_env`), untouched by this."""
    for variable in BLAS_THREADS:
        os.environ.setdefault(variable, "1")


def run() -> None:
    """Load the command line with Ctrl-C held back, then run it (or stop, exit 130,
    if Ctrl-C came meanwhile)."""
    pressed: list[int] = []

    def later(signum: int, frame: FrameType | None) -> None:
        pressed.append(signum)

    one_blas_thread()
    previous = signal.signal(signal.SIGINT, later)
    if not callable(previous):
        # Ignored (a script's background job starts so) or left to the system: a
        # SIGINT stops arena all the same (as `arena.commands._stopping` takes it once
        # a run begins). Put back as it was, it was ignored until then: in a league's
        # start-up, and the league played to its end.
        previous = signal.default_int_handler
    try:
        from arena.cli import main
    finally:
        signal.signal(signal.SIGINT, previous)
    if pressed:
        sys.stderr.write("\ninterrupted\n")
        raise SystemExit(128 + signal.SIGINT)
    main()
