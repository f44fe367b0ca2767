"""Game configuration: edition, match format and their options (R2, R8, R9)."""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

from arena._declared import about
from arena.errors import ConfigError
from arena.rules._cards import Edition

MAX_PLAY_CAP = 100_000
"""The largest play cap: it bounds a game's event log, and so every frame the referee
sends, well below the 16 MiB that protocol/SPEC.md promises bots."""


class Format(enum.Enum):
    """The match format (R9)."""

    SINGLE = "single"
    """One hand; the result is the finishing order (R9.1)."""
    TOKENS = "tokens"
    """Rounds until one player is left; a player who cannot play loses a token (R9.2)."""
    POINTS = "points"
    """Rounds scored by the cards left in hand, towards a target (R9.3)."""


class Ending(enum.Enum):
    """How a points game ends (R9.3.a, R9.3.b)."""

    ELIMINATION = "elimination"
    """Players who reach the target leave the game; the last one left wins (R9.3.a)."""
    LOWEST = "lowest"
    """The game ends after the first round in which anyone reaches the target (R9.3.b)."""


@dataclasses.dataclass(frozen=True, slots=True)
class GameConfig:
    """Everything that fixes the rules of one game, apart from the seed."""

    # Each setting's help is its command-line option's (`arena._declared`); the rule ids
    # are for readers of this file.
    players: int = 4
    """Number of seats, 2 to 6 (R2.3)."""
    edition: Edition = dataclasses.field(
        default=Edition.E2022, metadata=about("Rules edition.", shown="2022")
    )
    """The edition: deck and card rules (R2, R8)."""
    format: Format = dataclasses.field(
        default=Format.SINGLE, metadata=about("Match format.", shown="single")
    )
    """The match format (R9)."""
    tokens: int = dataclasses.field(
        default=3, metadata=about("Tokens each player starts with (tokens format).")
    )
    """Tokens each player starts with in the tokens format (R9.2)."""
    target: int = dataclasses.field(default=100, metadata=about("Target score (points format)."))
    """Target score of the points format (R9.3)."""
    ending: Ending = dataclasses.field(
        default=Ending.ELIMINATION,
        metadata=about("Points format ending.", shown="elimination"),
    )
    """How a points game ends (R9.3.a/b)."""
    ono_on_tens: bool = dataclasses.field(
        default=False, metadata=about("1980 option: ONO 99 on tens.")
    )
    """The 1980 option "ONO on tens" (R8.4); refused with the 2022 edition."""
    play_cap: int = dataclasses.field(default=5000, metadata=about("Plays before a draw."))
    """Plays after which the game ends as a draw among those still in it (R5.4)."""

    def __post_init__(self) -> None:
        if not 2 <= self.players <= 6:
            raise ConfigError(f"players must be 2 to 6, not {self.players} (R2.3)")
        if self.tokens < 0:
            raise ConfigError(f"tokens must be 0 or more, not {self.tokens}")
        if self.target < 1:
            raise ConfigError(f"target must be at least 1, not {self.target}")
        if not 1 <= self.play_cap <= MAX_PLAY_CAP:
            raise ConfigError(f"play_cap must be 1 to {MAX_PLAY_CAP:,}, not {self.play_cap}")
        if self.ono_on_tens and self.edition is not Edition.E1980:
            raise ConfigError("ono_on_tens is an option of the 1980 edition only (R8.4)")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict; `from_dict` reads it back."""
        return {
            "players": self.players,
            "edition": self.edition.value,
            "format": self.format.value,
            "tokens": self.tokens,
            "target": self.target,
            "ending": self.ending.value,
            "ono_on_tens": self.ono_on_tens,
            "play_cap": self.play_cap,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameConfig:
        """Read a dict written by `to_dict` (missing keys take their defaults)."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ConfigError(f"unknown game option(s): {', '.join(sorted(unknown))}")
        kwargs = dict(data)
        try:
            if "edition" in kwargs:
                kwargs["edition"] = Edition(str(kwargs["edition"]))
            if "format" in kwargs:
                kwargs["format"] = Format(kwargs["format"])
            if "ending" in kwargs:
                kwargs["ending"] = Ending(kwargs["ending"])
        except ValueError as err:
            raise ConfigError(str(err)) from None
        for name in ("players", "tokens", "target", "play_cap"):
            if name in kwargs and (
                not isinstance(kwargs[name], int) or isinstance(kwargs[name], bool)
            ):
                raise ConfigError(f"{name} must be an integer, not {kwargs[name]!r}")
        if "ono_on_tens" in kwargs and not isinstance(kwargs["ono_on_tens"], bool):
            raise ConfigError(f"ono_on_tens must be true or false, not {kwargs['ono_on_tens']!r}")
        return cls(**kwargs)


FORMAT_OPTIONS = {"tokens": "tokens", "target": "points", "ending": "points"}
"""The options of one format only, and that format: the others play without them."""


def rules_in_play(data: Any) -> Any:
    """A `GameConfig.to_dict()` without the options its format does not play by (the
    tokens of a single or points game, say), for telling whether two games are played
    by the same rules: arena once stored such an option as given (`--tokens 5` with the
    single format), and a store made then resumes under the same rules. Anything but a
    dict is returned as it is."""
    if not isinstance(data, dict):
        return data
    fmt = data.get("format", Format.SINGLE.value)
    return {k: v for k, v in data.items() if FORMAT_OPTIONS.get(k, fmt) == fmt}
