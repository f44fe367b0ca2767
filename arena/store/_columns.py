"""The store's seat rows read as columns (`arena.records.ResultColumns`), checked cell
by cell: a store can be anyone's."""

from __future__ import annotations

import itertools
from array import array
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from arena.records import ResultColumns, misplaced

if TYPE_CHECKING:
    pass


_STR_OR_NONE = (str, type(None))
_INT_OR_NONE = (int, type(None))
_REAL_OR_NONE = (float, int, type(None))


_CHUNK_ROWS = 1 << 16
"""Seat rows read from SQLite at a time (`Store.result_columns`)."""


class _SeatColumns:
    """The seat columns of `ResultColumns`, built a chunk of rows at a time: each seat
    becomes a few machine ints (its game, its bot and its cause as numbers) and its
    points, so that memory grows by some 40 bytes a seat, not by the 200 of its row."""

    def __init__(self, game_ids: Sequence[str]) -> None:
        self.game_ids = game_ids
        self.games: dict[str, int] = {game_id: k for k, game_id in enumerate(game_ids)}
        self.missing: str | None = None
        """The first game with seats that is not stored (reported after the checks)."""
        self.game = array("q")
        self.bot = array("q")  # codes in the order the bots first appear
        self.place = array("q")
        self.points: list[int | None] = []
        self.cause = array("q")  # codes in the order the causes first appear
        self.bots: defaultdict[str, int] = defaultdict(itertools.count().__next__)
        self.causes: defaultdict[str | None, int] = defaultdict(itertools.count().__next__)

    def add(self, rows: list[Any]) -> None:
        seat_ids, bots, places, points, causes = zip(*rows, strict=True)
        names = set(bots)
        place_set = set(places)
        if not (
            _all_of(set(seat_ids), str)
            and _all_of(names, str)
            and "" not in names
            and _all_of(place_set, int)
            and min(place_set) >= 1
            and _all_of(set(points), _INT_OR_NONE)
            and _all_of(set(causes), _STR_OR_NONE)
        ):
            _report_first(rows, _good_seat)
        try:
            codes = list(map(self.games.__getitem__, seat_ids))
        except KeyError as err:
            if self.missing is None:
                self.missing = err.args[0]
            known = self.games  # and a new number for each game not stored
            codes = [known.setdefault(game_id, len(known)) for game_id in seat_ids]
        self.game.extend(codes)
        self.bot.extend(map(self.bots.__getitem__, bots))
        self.place.extend(places)
        self.points.extend(points)
        self.cause.extend(map(self.causes.__getitem__, causes))

    def finish(self, groups: Sequence[str | None]) -> ResultColumns:
        import numpy as np

        players = sorted(self.bots)
        position = {name: k for k, name in enumerate(players)}
        # From a bot's code (the order it first came in) to its index among the names.
        rank = np.array([position[name] for name in self.bots], dtype=np.int64)
        seat_player = rank[np.frombuffer(self.bot, dtype=np.int64)]
        seat_game = np.frombuffer(self.game, dtype=np.int64)
        names = list(self.games)  # the stored games, then those that are not
        _check_seated_once(seat_game, seat_player, names, players)
        if self.missing is not None:
            raise ValueError(f"seats of game {self.missing}, which is not stored")
        if len(np.unique(seat_game)) != len(self.game_ids):
            raise ValueError("a game without seats")
        place = np.frombuffer(self.place, dtype=np.int64)
        _check_places(seat_game, place, names)
        cause_names = sorted(c for c in self.causes if c is not None)
        order: dict[str | None, int] = {c: k for k, c in enumerate(cause_names)}
        cause_rank = np.array([order.get(c, -1) for c in self.causes], dtype=np.int64)
        return ResultColumns(
            game_ids=self.game_ids,
            groups=groups,
            players=tuple(players),
            causes=tuple(cause_names),
            seat_game=seat_game,
            seat_player=seat_player,
            place=place,
            points=self.points,
            seat_cause=cause_rank[np.frombuffer(self.cause, dtype=np.int64)],
        )


def _check_places(seat_game: Any, place: Any, names: Sequence[str]) -> None:
    """Raise ValueError, naming the first game, unless every place is 1 plus the number
    of its game's players placed better (`arena.records.misplaced`): a place past the
    game's seats (7 of 4) or one its other places rule out (1, 1, 2) made the average
    place wrong."""
    import numpy as np

    seats = np.bincount(seat_game, minlength=len(names))
    wrong = misplaced(place, seat_game, seats, np.cumsum(seats) - seats)
    if np.any(wrong):
        k = int(seat_game[np.argmax(wrong)])
        places = sorted(int(p) for p in place[seat_game == k])
        raise ValueError(
            f"game {names[k]} has places {places} for its {int(seats[k])} players (a place"
            " is 1 plus the number of its game's players placed better)"
        )


def _first_column(row: Sequence[Any]) -> Any:
    return row[0]


def _columns(rows: list[Any], width: int) -> list[tuple[Any, ...]]:
    """The columns of a list of rows of ``width`` values."""
    return list(zip(*rows, strict=True)) if rows else [()] * width


def _all_of(values: set[Any], kinds: type | tuple[type, ...]) -> bool:
    """Whether every value is exactly of one of ``kinds`` (no subclass: no bool)."""
    allowed = kinds if isinstance(kinds, tuple) else (kinds,)
    return all(type(value) in allowed for value in values)


def _good_seat(row: tuple[Any, ...]) -> bool:
    game_id, bot, place, points, cause = row
    return (
        type(game_id) is str
        and type(bot) is str
        and bot != ""
        and type(place) is int
        and place >= 1
        and type(points) in _INT_OR_NONE
        and type(cause) in _STR_OR_NONE
    )


def _report_first(rows: Iterable[tuple[Any, ...]], good: Callable[[tuple[Any, ...]], bool]) -> None:
    """Raise the ValueError that names the first row that is not ``good``."""
    for row in rows:
        if not good(row):
            raise ValueError(f"unexpected values {tuple(row)!r}")
    raise AssertionError("no bad row")  # pragma: no cover - called only when there is one


def _check_seated_once(
    seat_game: Any,
    seat_player: Any,
    game_ids: Sequence[str],
    players: list[str],
) -> None:
    """ValueError if a player sits twice in one game (naming the first such game by id,
    then player); `seat_game` indexes `game_ids`. numpy sorts the seats; it is imported
    here, as reading a store needs no numpy otherwise."""
    import numpy as np

    width = max(len(players), 1)
    key = np.array(seat_game, dtype=np.int64) * width + np.array(seat_player, dtype=np.int64)
    ordered = np.sort(key)
    repeated = set(ordered[1:][ordered[1:] == ordered[:-1]].tolist())
    if repeated:
        game_id, bot = min(
            (game_ids[seat_game[k]], players[seat_player[k]])
            for k, value in enumerate(key.tolist())
            if value in repeated
        )
        raise ValueError(f"game {game_id!r}: {bot} seated twice")


def _typed(row: Sequence[Any], *kinds: type | tuple[type, ...]) -> tuple[Any, ...]:
    """The row, if each value has its kind (SQLite keeps whatever bytes say); else
    ValueError, which the guard reports as damage."""
    if len(row) != len(kinds) or not all(map(isinstance, row, kinds)):
        raise ValueError(f"unexpected values {tuple(row)!r}")
    return tuple(row)
