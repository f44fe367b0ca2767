"""Settings declared once: a dataclass field with its help for people (`about`), which
the command-line option of the setting shows as its own (`help_of`), so that an option
cannot say other than its setting."""

from __future__ import annotations

import dataclasses
from typing import Any

_HELP = "help"
_SHOWN = "shown"


def about(help: str, shown: str | None = None) -> dict[str, str]:
    """The metadata of a setting's field (``dataclasses.field(default=...,
    metadata=about(...))``): its `help` (one or more sentences, as its option shows
    them), and `shown`, the default as people read it where the field's own is not what
    they get ("the number of cores"); without it a number's default is shown as it is,
    and none for a flag or None."""
    return {_HELP: help} if shown is None else {_HELP: help, _SHOWN: shown}


def help_of(kind: Any, name: str, fill: dict[str, Any] | None = None) -> str:
    """The help of the setting `name` of the dataclass `kind`, its default at the end
    ("... [default: 600]"), with the values of `fill` put in for their names ("at most
    {most}"); KeyError if it has none."""
    field = next((f for f in dataclasses.fields(kind) if f.name == name), None)
    if field is None or _HELP not in field.metadata:
        raise KeyError(f"{kind.__name__}.{name} is no setting declared with its help")
    text: str = field.metadata[_HELP]
    if fill is not None:
        text = text.format_map(fill)
    shown = field.metadata.get(_SHOWN)
    default = field.default
    if shown is None and isinstance(default, int | float) and not isinstance(default, bool):
        shown = f"{default:g}" if isinstance(default, float) else str(default)
    return text if shown is None else f"{text} [default: {shown}]"
