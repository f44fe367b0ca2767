"""Results as plain records: what the store holds and the standings read.

This module imports neither numpy nor tabulate (a test checks it), so that anything
can read a store, a web server included, without the ratings' weight.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

from arena.rules import FAULT_ORDER

if TYPE_CHECKING:
    import numpy.typing as npt

IntColumn: TypeAlias = "Sequence[int] | npt.NDArray[Any]"
"""A column of whole numbers: a list, or a numpy array of the reader that made it."""

FORFEIT = "forfeit"
"""The cause of a seat that forfeited its game (its bot was disqualified)."""

FAULT_CAUSES = (*(cause.value for cause in FAULT_ORDER), FORFEIT)
"""Elimination causes that are the bot's fault, in the order the tables show them."""


def forfeited(causes: Iterable[str | None]) -> bool:
    """Whether a game whose seats have these elimination causes is a forfeit: a game
    at which a disqualified bot sat, stored with cause "forfeit" for its seat and a
    shared first place for the others (`Store.record_forfeit`), never played.

    The one rule every reader of results follows (the standings and their fit, the
    head-to-head table, the report's pages, a ladder's ratings): a forfeit is no
    finishing order. It is left out of every rating and of the games, wins and places
    of every bot at its table, the forfeiting bot's included; only its count in the
    "forfeit" column remains, for the forfeiting bot. A shared first place that was
    never played says nothing of the bots that shared it, and a loss the forfeiting
    bot never played says nothing of its play (its faults in the games it did play,
    which got it disqualified, are rated as they happened)."""
    return FORFEIT in causes


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

    @property
    def forfeited(self) -> bool:
        """Whether the game is a forfeit, which no table rates or counts (`forfeited`)."""
        return forfeited(seat.cause for seat in self.seats)

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


@dataclass(frozen=True, eq=False)
class ResultColumns:
    """Finished games in columns: the same results as a list of `GameRecord`s, without
    an object per game or seat, for the millions of seats of a large store or file
    (issue 14.6). The standings read these columns straight into arrays.

    Each seat of each game is one entry of the seat columns (``seat_game`` ...
    ``seat_cause``); the seats of one game are consecutive and in seat order. Whoever
    makes the columns has checked them: every index in range, places >= 1, every game
    with a seat, no player twice in one game.
    """

    game_ids: Sequence[str]
    """Every game's id, each once, in the order of the games (a store's schedule)."""
    groups: Sequence[str | None]
    """Every game's duplicate-deal group, or None."""
    players: Sequence[str]
    """Every player, sorted by name, each once."""
    causes: Sequence[str]
    """Every elimination cause that occurs, each once."""
    seat_game: IntColumn
    """The game of each seat: an index into ``game_ids``."""
    seat_player: IntColumn
    """The player in each seat: an index into ``players``."""
    place: IntColumn
    """The finishing place of each seat."""
    points: Sequence[int | None]
    """The final score of each seat, in formats that keep one (None otherwise)."""
    seat_cause: IntColumn
    """The elimination cause of each seat: an index into ``causes``, or -1 for none."""

    @classmethod
    def from_records(cls, records: Iterable[GameRecord]) -> ResultColumns:
        """The columns of ``records`` (games in the same order)."""
        games = list(records)
        players = sorted({seat.player for game in games for seat in game.seats})
        causes = sorted({s.cause for game in games for s in game.seats if s.cause is not None})
        player_index = {name: k for k, name in enumerate(players)}
        cause_index: dict[str | None, int] = {cause: k for k, cause in enumerate(causes)}
        cause_index[None] = -1
        seats = [(g, seat) for g, game in enumerate(games) for seat in game.seats]
        return cls(
            game_ids=[game.game_id for game in games],
            groups=[game.group for game in games],
            players=tuple(players),
            causes=tuple(causes),
            seat_game=[g for g, _ in seats],
            seat_player=[player_index[seat.player] for _, seat in seats],
            place=[seat.place for _, seat in seats],
            points=[seat.points for _, seat in seats],
            seat_cause=[cause_index[seat.cause] for _, seat in seats],
        )

    def forfeit_games(self) -> list[bool]:
        """For each game, whether it is a forfeit (`forfeited`: a seat's cause is
        "forfeit")."""
        out = [False] * len(self.game_ids)
        if FORFEIT in self.causes:
            code = self.causes.index(FORFEIT)
            for g, cause in zip(_plain(self.seat_game), _plain(self.seat_cause), strict=True):
                if cause == code:
                    out[g] = True
        return out

    def forfeits(self) -> dict[str, int]:
        """Each player's forfeits: its seats with cause "forfeit" (none: not named)."""
        if FORFEIT not in self.causes:
            return {}
        code = self.causes.index(FORFEIT)
        counts: Counter[str] = Counter()
        for p, cause in zip(_plain(self.seat_player), _plain(self.seat_cause), strict=True):
            if cause == code:
                counts[self.players[p]] += 1
        return dict(counts)

    def played(self) -> ResultColumns:
        """The same results without the forfeits (`forfeited`): the games to rate and
        count. The players of no game left are left out. These columns themselves if
        there is no forfeit (the usual case: no copy)."""
        if FORFEIT not in self.causes:
            return self
        import numpy as np

        forfeit = np.asarray(self.forfeit_games(), dtype=bool)
        seat_game = np.asarray(self.seat_game, dtype=np.int64)
        seat = ~forfeit[seat_game]
        new_game = np.cumsum(~forfeit) - 1
        player = np.asarray(self.seat_player, dtype=np.int64)[seat]
        cause = np.asarray(self.seat_cause, dtype=np.int64)[seat]
        used_players = np.unique(player)
        used_causes = np.unique(cause[cause >= 0])
        player_index = np.full(len(self.players), -1, dtype=np.int64)
        player_index[used_players] = np.arange(len(used_players))
        cause_index = np.full(len(self.causes) + 1, -1, dtype=np.int64)  # [-1]: none
        cause_index[used_causes] = np.arange(len(used_causes))
        kept = np.flatnonzero(~forfeit).tolist()
        return ResultColumns(
            game_ids=[self.game_ids[g] for g in kept],
            groups=[self.groups[g] for g in kept],
            players=tuple(self.players[p] for p in used_players.tolist()),
            causes=tuple(self.causes[c] for c in used_causes.tolist()),
            seat_game=new_game[seat_game[seat]],
            seat_player=player_index[player],
            place=np.asarray(self.place, dtype=np.int64)[seat],
            points=[p for p, k in zip(self.points, seat.tolist(), strict=True) if k],
            seat_cause=cause_index[cause],
        )

    def only(self, keep: Iterable[str]) -> ResultColumns:
        """The same games between the players of `keep` only: every other player's seat
        is left out and the places of the rest close up (1, 2, 3, 4 without the second
        is 1, 2, 3); a game left with fewer than two players is left out. Under
        Plackett–Luce the order of a subset of a game's players is itself such an
        order, with the same strengths (a ladder rates its active versions so).

        A forfeit (`forfeited`) is no finishing order: it is kept (the kept players'
        seats) only if one of the kept players forfeited it, whatever their number,
        so that its forfeit is still counted; else it is left out, as a game the kept
        players never played (without its forfeiting seat it would read as a played
        game whose players all tied).

        Column by column, with no object per game or seat: a ladder refits its ratings
        so every few seconds (20,000 games: 0.05 s, against 1 s by way of `records`)."""
        kept = set(keep)
        wanted = [name in kept for name in self.players]
        games, places, points = _plain(self.seat_game), _plain(self.place), self.points
        players, causes = _plain(self.seat_player), _plain(self.seat_cause)
        game_ids: list[str] = []
        groups: list[str | None] = []
        seat_game: list[int] = []
        seat_player: list[int] = []
        place: list[int] = []
        seat_points: list[int | None] = []
        seat_cause: list[int] = []
        forfeit = self.causes.index(FORFEIT) if FORFEIT in self.causes else -2
        count, first = len(games), 0
        while first < count:  # the seats of a game are consecutive
            g, end = games[first], first + 1
            while end < count and games[end] == g:
                end += 1
            seats = [k for k in range(first, end) if wanted[players[k]]]
            lost = any(causes[k] == forfeit for k in range(first, end))
            first = end
            if lost:  # a forfeit: kept for a kept player's forfeit only
                if not any(causes[k] == forfeit for k in seats):
                    continue
            elif len(seats) < 2:
                continue
            mine = [places[k] for k in seats]
            new = len(game_ids)
            game_ids.append(self.game_ids[g])
            groups.append(self.groups[g])
            for k, at in zip(seats, mine, strict=True):
                seat_game.append(new)
                seat_player.append(players[k])
                place.append(1 + sum(other < at for other in mine))
                seat_points.append(points[k])
                seat_cause.append(causes[k])
        used_players = sorted(set(seat_player))
        player_index = {old: new for new, old in enumerate(used_players)}
        used_causes = sorted({c for c in seat_cause if c >= 0}, key=self.causes.__getitem__)
        cause_index = {old: new for new, old in enumerate(used_causes)}
        cause_index[-1] = -1
        return ResultColumns(
            game_ids=game_ids,
            groups=groups,
            players=tuple(self.players[p] for p in used_players),
            causes=tuple(self.causes[c] for c in used_causes),
            seat_game=seat_game,
            seat_player=[player_index[p] for p in seat_player],
            place=place,
            points=seat_points,
            seat_cause=[cause_index[c] for c in seat_cause],
        )

    def records(self) -> list[GameRecord]:
        """The same results as game records, in the order of ``game_ids``."""
        players, causes = self.players, (*self.causes, None)
        seat = SeatRecord.checked
        seats: list[list[SeatRecord]] = [[] for _ in self.game_ids]
        for g, p, place, points, cause in zip(
            _plain(self.seat_game),
            _plain(self.seat_player),
            _plain(self.place),
            self.points,
            _plain(self.seat_cause),
            strict=True,
        ):
            seats[g].append(seat(players[p], place, points, causes[cause]))
        return [
            GameRecord.checked(game_id, group, tuple(s))
            for game_id, group, s in zip(self.game_ids, self.groups, seats, strict=True)
        ]


def _plain(column: IntColumn) -> Sequence[int]:
    """The column as Python ints."""
    return column if isinstance(column, Sequence) else column.tolist()


_new = object.__new__


def _place(seat: SeatRecord) -> int:
    return seat.place


def misplaced(place: Any, game: Any, seats: Any, first: Any) -> Any:
    """Which seats (numpy arrays: each seat's place and game; each game's count of seats
    and the index of its first, as if its seats came together) hold a place that is not
    1 plus the number of their game's players placed better (1, 1, 3 are right; 7 of 3
    seats, or 1, 1, 2, are not), as arena places every game. The seats may come in any
    order."""
    import numpy as np

    over = place > seats[game]
    # Seat k's place p is slot first + p - 1 of its game; it is right if exactly p - 1
    # seats of its game take the slots before it, that is if as many seats as the
    # slot's index take the slots before it in all the games.
    slot = np.where(over, first[game], first[game] + place - 1)
    taken = np.bincount(slot, minlength=len(place))
    before = np.cumsum(taken) - taken
    return over | (before[slot] != slot)
