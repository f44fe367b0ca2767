"""The `arena` command's entry point: Ctrl-C while the command line loads is taken
after the imports, not inside them.

Pressed while Python imported click and arena, Ctrl-C printed a KeyboardInterrupt
traceback; raised inside the import machinery's own callbacks, it was once only
"ignored", and that league played on to its end.
"""

from __future__ import annotations

import signal
import sys
from types import FrameType


def run() -> None:
    """Load the command line with Ctrl-C held back, then run it (or stop, exit 130,
    if Ctrl-C came meanwhile)."""
    pressed: list[int] = []

    def later(signum: int, frame: FrameType | None) -> None:
        pressed.append(signum)

    previous = signal.signal(signal.SIGINT, later)
    try:
        from arena.cli import main
    finally:
        signal.signal(signal.SIGINT, previous)
    if pressed:
        sys.stderr.write("\ninterrupted\n")
        raise SystemExit(128 + signal.SIGINT)
    main()
