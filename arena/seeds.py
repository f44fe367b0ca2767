"""Seeds: the secret a league or match derives every deal from.

A deal must be unpredictable to the bots. A seed the organiser gives (`--seed 1`) is
reproducible and, for the same reason, guessable: anyone who knows it and has the
engine's code (which is public) knows every hand and the draw order of every game.
So when no seed is given, arena draws a fresh secret of 128 bits from the operating
system, keeps it where only the organiser sees it (the league's store, the match's
JSON summary and replay files), and derives each game's deal seed from it with a
keyed function (`arena.rules.keyed_seed`): neither a game id nor a table or deal
number tells a bot anything about the deal.
"""

from __future__ import annotations

import secrets

from arena.errors import ConfigError
from arena.rules import keyed_seed

SECRET_BYTES = 16
"""Bytes of a drawn secret (128 bits), written as 32 hex digits."""


def new_secret() -> str:
    """A fresh secret seed: 128 bits from the operating system, as hex."""
    return secrets.token_hex(SECRET_BYTES)


def seed_key(seed: int | str) -> str:
    """The text a seed is keyed by: `1`, `"1"` and `--seed 1` are one seed."""
    if isinstance(seed, bool) or not isinstance(seed, int | str):
        raise ConfigError(f"the seed must be a whole number or a string, not {seed!r}")
    key = str(seed).strip()
    if not key:
        raise ConfigError("the seed must not be empty")
    if any("\ud800" <= c <= "\udfff" for c in key):  # from argv bytes not UTF-8
        raise ConfigError(f"the seed must be UTF-8 text, not {key!r}")
    return key


def is_drawn(seed: str) -> bool:
    """True for a seed that looks drawn by `new_secret` (32 hex digits)."""
    return len(seed) == 2 * SECRET_BYTES and all(c in "0123456789abcdef" for c in seed)


def made_up_names(secret: str, purpose: str, count: int, *at: int | str) -> tuple[str, ...]:
    """`count` distinct names (`bot-` and six hex digits) for the seats of a game, which
    its bots see instead of the real ones (SPEC §5.2: an SPRT's and a ladder's), drawn
    from `secret` under `purpose` for the game at `at`: nobody without the secret can
    tell who sits where, nor follow a bot from game to game."""
    names: list[str] = []
    draw = 0
    while len(names) < count:
        name = f"bot-{keyed_seed(secret, purpose, *at, draw) & 0xFFFFFF:06x}"
        draw += 1
        if name not in names:
            names.append(name)
    return tuple(names)
