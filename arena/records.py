"""Results as plain records: what the store holds and the standings read.

This module imports neither numpy nor tabulate (a test checks it), so that anything
can read a store, a web server included, without the ratings' weight.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from arena.rules import FAULT_ORDER

FORFEIT = "forfeit"
"""The cause of a seat that forfeited its game (its bot was disqualified)."""

FAULT_CAUSES = (*(cause.value for cause in FAULT_ORDER), FORFEIT)
"""Elimination causes that are the bot's fault, in the order the tables show them."""


@dataclass(frozen=True)
class SeatRecord:
    """How one player finished one game."""

    player: str
    """The bot's name."""
    place: int
    """Finishing place: 1 is best; tied players share a place."""
    points: int | None = None
    """Final score, in formats that keep one (None otherwise)."""
    cause: str | None = None
    """Why the player was eliminated ("bust", "timeout", ...); None for the winner."""

    def __post_init__(self) -> None:
        if not self.player:
            raise ValueError("a seat needs a player name")
        if self.place < 1:
            raise ValueError(f"place must be >= 1, not {self.place}")

    @property
    def is_fault(self) -> bool:
        """Whether the player was eliminated for breaking the rules or the protocol."""
        return self.cause in FAULT_CAUSES

    @classmethod
    def checked(cls, player: str, place: int, points: int | None, cause: str | None) -> SeatRecord:
        """A record of values its reader has already checked (a non-empty player, a
        place >= 1): made without checking them again, for the millions of rows of a
        large file (issue 14.6)."""
        record = _new(cls)
        record.__dict__.update(player=player, place=place, points=points, cause=cause)
        return record


@dataclass(frozen=True)
class GameRecord:
    """The result of one finished game."""

    game_id: str
    """Unique id of the game."""
    group: str | None
    """Duplicate-deal group: games dealt from one shuffle. None: the game is its own."""
    seats: tuple[SeatRecord, ...]
    """Every player of the game with its place."""

    def __post_init__(self) -> None:
        players = [seat.player for seat in self.seats]
        if len(set(players)) != len(players):
            twice = sorted(p for p, n in Counter(players).items() if n > 1)
            raise ValueError(f"game {self.game_id!r}: {', '.join(twice)} seated twice")

    @classmethod
    def checked(cls, game_id: str, group: str | None, seats: tuple[SeatRecord, ...]) -> GameRecord:
        """A record whose reader has already checked that no player sits twice."""
        record = _new(cls)
        record.__dict__.update(game_id=game_id, group=group, seats=seats)
        return record

    def ranking(self) -> list[list[str]]:
        """The finishing order: groups of tied players, best place first."""
        seats = sorted(self.seats, key=_place)
        ranking: list[list[str]] = []
        last = 0
        for seat in seats:
            if seat.place == last:
                ranking[-1].append(seat.player)
            else:
                ranking.append([seat.player])
                last = seat.place
        return ranking


_new = object.__new__


def _place(seat: SeatRecord) -> int:
    return seat.place
