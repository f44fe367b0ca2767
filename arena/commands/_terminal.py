"""Text for the terminal: what a bot chose (its stderr, its build's output, the names of
its files, the words of its manifest) is shown, never obeyed.

A terminal acts on control characters: an escape sequence in a bot's stderr could
retitle the window, clear the screen, recolour or rewrite lines (a carriage return
prints over what came before), or on some terminals do worse. `printable` writes
every control character but the newline and the tab as a Python escape (`\\x1b`).
"""

from __future__ import annotations

import re

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""Unicode's control characters (category Cc) but tab and newline."""


def printable(text: str) -> str:
    """`text` with each control character but tab and newline written as `\\xNN`."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
