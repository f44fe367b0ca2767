"""Text for the terminal: what a bot chose (its stderr, its build's output, the names of
its files, the words of its manifest) is shown, never obeyed.

A terminal acts on control characters: an escape sequence in a bot's stderr could
retitle the window, clear the screen, recolour or rewrite lines (a carriage return
prints over what came before), or on some terminals do worse. `printable` writes
every control character but the newline and the tab as a Python escape (`\\x1b`).

Format characters (Unicode category Cf) are invisible, and the bidirectional ones
reorder what follows them on the line: a right-to-left override (U+202E) in a bot's
hello shows the rest of its line backwards ("SSAP" reads "PASS"), and a zero-width
space makes two names look alike. `printable` writes them as escapes too (`\\u202e`), at
the cost of showing the joiners of an emoji sequence as escapes.

`printable_name` is `printable` for a name in a table or a CSV cell, where a tab or a
newline would split the cell or the row; `printable_json` makes JSON text safe to
print without changing the data it holds.
"""

from __future__ import annotations

import json
import re

_FORMAT = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
    "\U000e0020-\U000e007f"
)
"""Unicode's format characters (category Cf, as of Unicode 15), spelled out: finding
them with `unicodedata` would mean a look-up per character shown."""

_SURROGATES = "\ud800-\udfff"
"""Halves of a character (category Cs) that JSON's \\u escapes can spell alone: no
encoding writes one alone, and printing one raised UnicodeEncodeError."""

_CONTROL = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_FORMAT}{_SURROGATES}]")
"""Unicode's control characters (category Cc) but tab and newline, its format
characters (category Cf) and the halves of characters (Cs)."""

_CONTROL_IN_NAME = re.compile(f"[\x00-\x1f\x7f-\x9f{_FORMAT}{_SURROGATES}]")
"""Every control character (tab and newline too), format character and half."""

_UNESCAPED_BY_JSON = re.compile(f"[\x7f-\x9f{_FORMAT}{_SURROGATES}]")
"""What a terminal acts on (or hides) that `json.dumps(..., ensure_ascii=False)` writes
as it is: DEL, the C1 controls (U+009B is the CSI of ESC [, U+009D the OSC of ESC ])
and the format characters. JSON escapes the C0 controls itself."""


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def printable(text: str) -> str:
    """`text` with each control character but tab and newline written as `\\xNN`, and
    each format character as `\\uNNNN` (or `\\UNNNNNNNN`)."""
    return _CONTROL.sub(_escape, text)


def printable_name(text: str) -> str:
    """`printable` for a name that must keep to one cell: tab and newline are written
    as escapes too."""
    return _CONTROL_IN_NAME.sub(_escape, text)


def printable_json(text: str) -> str:
    """JSON text with every character a terminal acts on written as a JSON escape
    (`\\u009b`), so that it can be printed: it decodes to the same data. (Outside its
    strings JSON text holds only spaces, newlines and ASCII, so every such character is
    in a string.)"""
    return _UNESCAPED_BY_JSON.sub(lambda m: json.dumps(m.group())[1:-1], text)
