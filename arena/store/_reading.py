"""Reading a league's games back: as columns for the standings, as seat rows, as whole
games for an export, and their replays; every value checked, for a store can be
anyone's (`Store.result_columns`, `Store.games`, ...)."""

from __future__ import annotations

import bisect
import itertools
import json
from collections import defaultdict
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from arena.errors import StoreError, shown
from arena.records import FAULT_CAUSES, ResultColumns
from arena.store import _columns as columns
from arena.store._columns import (
    _INT_OR_NONE,
    _REAL_OR_NONE,
    _STR_OR_NONE,
    _all_of,
    _columns,
    _first_column,
    _report_first,
    _SeatColumns,
    _typed,
)
from arena.store._proofs import Proofs
from arena.store._replays import unpack_replay
from arena.store._sqlite import StoreConnection
from arena.store._tables import FAULT_LIMITS, FAULTS_SINCE


@dataclass(frozen=True, slots=True)
class SeatRow:
    """One seat of one stored game."""

    game_id: str
    """The game."""
    index: int
    """The game's position in the schedule."""
    status: str
    """"done" (played) or "forfeit"."""
    seat: int
    """The seat, from 0."""
    bot: str
    """The bot in the seat."""
    place: int
    """Finishing place, 1 best; tied seats share a place."""
    points: int | None
    """Final score in the points format, else None."""
    tokens: int | None
    """Tokens left in the tokens format, else None."""
    cause: str | None
    """Why the seat was eliminated ("bust", "timeout", "forfeit", ...); None if never."""


@dataclass(frozen=True, slots=True)
class GameRow:
    """One stored game with its seats, as `Store.games` reads it (`arena export`)."""

    game_id: str
    index: int
    """The game's position in the schedule."""
    seed: int
    group: str | None
    """The duplicate group, or None."""
    status: str
    """"done" (played) or "forfeit"."""
    reason: str | None
    """Why the game ended ("target", "last_standing", "forfeit", ...)."""
    config: dict[str, Any] | None
    """The game's settings (`GameConfig.to_dict`); None for a forfeit."""
    started_at: float | None
    finished_at: float | None
    seconds: float | None
    decisions: int | None
    plays: int | None
    rounds: int | None
    seats: tuple[SeatRow, ...]
    """In seat order."""
    replay: bytes | None
    """The packed replay (`pack_replay`), if asked for and the game has one."""


_MANY = 500
"""Game ids asked for in one query (SQLite's limit of parameters is far above)."""


def result_columns(conn: StoreConnection) -> ResultColumns:
    """`Store.result_columns`, under the caller's guard: both tables in one snapshot,
    a chunk of seat rows at a time (the rows of a large store never are all in memory
    at once, only the compact columns made of them)."""
    db = conn.db
    with conn.snapshot():
        games = db.execute("SELECT game_id, grp FROM games ORDER BY idx, game_id").fetchall()
        game_ids, groups = _columns(games, 2)
        if not (_all_of(set(game_ids), str) and _all_of(set(groups), _STR_OR_NONE)):
            _report_first(games, lambda row: type(row[0]) is str and type(row[1]) in _STR_OR_NONE)
        del games
        seats = _SeatColumns(game_ids)
        rows = db.execute(
            "SELECT game_id, bot, place, points, cause FROM seats ORDER BY game_id, seat"
        )
        while chunk := rows.fetchmany(columns._CHUNK_ROWS):
            seats.add(chunk)
    return seats.finish(groups)


_SEAT_ROWS = (
    "SELECT g.game_id, g.idx, g.status, s.seat, s.bot, s.place, s.points, s.tokens, s.cause"
    " FROM seats AS s JOIN games AS g USING (game_id)"
)
_SEAT_KINDS = (str, int, str, int, str, int, _INT_OR_NONE, _INT_OR_NONE, _STR_OR_NONE)


def seat_rows(conn: StoreConnection, game_ids: Sequence[str] | None = None) -> list[SeatRow]:
    """`Store.seat_rows` (every game's, in order), or `Store.seat_rows_of` the games
    `game_ids` (in any order)."""
    with conn.guard("cannot read the seats"):
        if game_ids is None:
            rows = conn.db.execute(_SEAT_ROWS + " ORDER BY g.idx, g.game_id, s.seat")
            return [SeatRow(*_typed(row, *_SEAT_KINDS)) for row in rows]
        out = []
        for start in range(0, len(game_ids), _MANY):
            chunk = list(game_ids[start : start + _MANY])
            marks = ", ".join("?" for _ in chunk)
            rows = conn.db.execute(_SEAT_ROWS + f" WHERE g.game_id IN ({marks})", chunk)
            out += [SeatRow(*_typed(row, *_SEAT_KINDS)) for row in rows]
        return out


def games_by_bot(conn: StoreConnection) -> dict[str, int]:
    """`Store.games_by_bot`."""
    with conn.guard("cannot read the seats"):
        rows = conn.db.execute("SELECT bot, count(*) FROM seats GROUP BY bot ORDER BY bot")
        return dict(_typed(row, str, int) for row in rows)


def latest_games_of(conn: StoreConnection, bots: Sequence[str], limit: int) -> list[str]:
    """`Store.latest_games_of`."""
    found: set[tuple[int, str]] = set()
    with conn.guard("cannot read the seats"):
        for start in range(0, len(bots), _MANY):
            chunk = list(bots[start : start + _MANY])
            marks = ", ".join("?" for _ in chunk)
            rows = conn.db.execute(
                "SELECT rowid, game_id FROM games WHERE game_id IN"
                f" (SELECT game_id FROM seats WHERE bot IN ({marks}))"
                " ORDER BY rowid DESC LIMIT ?",
                [*chunk, limit],
            )
            found.update(_typed(row, int, str) for row in rows)
    return [game_id for _, game_id in sorted(found, reverse=True)[:limit]]


def fault_counts(conn: StoreConnection) -> dict[str, dict[str, int]]:
    """`Store.fault_counts`."""
    marks = ", ".join("?" for _ in FAULT_CAUSES)
    counts: dict[str, dict[str, int]] = defaultdict(dict)
    with conn.guard("cannot read the seats"):
        for row in conn.db.execute(
            f"SELECT bot, cause, count(*) FROM seats WHERE cause IN ({marks})"
            " GROUP BY bot, cause ORDER BY bot, cause",
            FAULT_CAUSES,
        ):
            bot, cause, n = _typed(row, str, str, int)
            counts[bot][cause] = n
    return dict(counts)


def game_rows(
    conn: StoreConnection, after: int
) -> list[tuple[int, str, str, str | None, int | None, str | None]]:
    """`Store.game_rows`."""
    with conn.guard("cannot read the games"):
        return [
            _typed(row, int, str, str, _STR_OR_NONE, _INT_OR_NONE, _STR_OR_NONE)
            for row in conn.db.execute(
                "SELECT rowid, game_id, status, reason, plays, grp FROM games"
                " WHERE rowid > ? ORDER BY rowid",
                (after,),
            )
        ]


def replay_logs(
    conn: StoreConnection, game_ids: Sequence[str]
) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """`Store.replay_logs`."""
    with conn.guard("cannot read the replays"):
        for start in range(0, len(game_ids), _MANY):
            chunk = list(game_ids[start : start + _MANY])
            marks = ", ".join("?" for _ in chunk)
            for row in conn.db.execute(
                f"SELECT game_id, log FROM replays WHERE game_id IN ({marks})", chunk
            ):
                game_id, blob = _typed(row, str, bytes)
                yield game_id, unpack_replay(blob)  # under the guard: damage is reported


def replay(conn: StoreConnection, game_id: str) -> list[dict[str, Any]]:
    """`Store.replay`."""
    with conn.guard(f"cannot read the replay of {game_id}"):
        row = conn.db.execute("SELECT log FROM replays WHERE game_id = ?", (game_id,)).fetchone()
        if row is None:
            raise StoreError(f"{conn.path}: no replay of game {game_id}")
        (blob,) = _typed(row, bytes)
        log = unpack_replay(blob)
        if not all(isinstance(record, dict) for record in log):
            raise ValueError("a replay record that is not a JSON object")
        return log


_GAME_KINDS = (
    str, int, str, _STR_OR_NONE, str, _STR_OR_NONE, _STR_OR_NONE, _REAL_OR_NONE,
    _REAL_OR_NONE, _REAL_OR_NONE, _INT_OR_NONE, _INT_OR_NONE, _INT_OR_NONE,
)  # fmt: skip
_GAME_SEAT_KINDS = (int, str, int, _INT_OR_NONE, _INT_OR_NONE, _STR_OR_NONE)


def games(conn: StoreConnection, proofs: Proofs, replays: bool) -> Generator[GameRow]:
    """`Store.games`: checked against the proofs, then read, in one snapshot, one game
    (its rows grouped from one sorted query) at a time."""
    db = conn.db
    with conn.guard("cannot read the games"), conn.snapshot():
        proofs.verify(replays=replays)
        rows = db.execute(
            "SELECT g.game_id, g.idx, g.seed, g.grp, g.status, g.reason, g.config,"
            " g.started_at, g.finished_at, g.seconds, g.decisions, g.plays, g.rounds,"
            " s.seat, s.bot, s.place, s.points, s.tokens, s.cause"
            " FROM games AS g JOIN seats AS s USING (game_id)"
            " ORDER BY g.idx, g.game_id, s.seat"
        )
        for _, group in itertools.groupby(rows, key=_first_column):
            first, *rest = group
            game = _typed(first[:13], *_GAME_KINDS)
            seats = tuple(
                SeatRow(game[0], game[1], game[4], *_typed(row[13:], *_GAME_SEAT_KINDS))
                for row in (first, *rest)
            )
            config = None if game[6] is None else json.loads(game[6])
            if config is not None and not isinstance(config, dict):
                raise ValueError(f"game {shown(game[0])}: settings {shown(config)}")
            blob = None
            if replays and game[4] == "done":
                row = db.execute("SELECT log FROM replays WHERE game_id = ?", (game[0],)).fetchone()
                blob = None if row is None else _typed(row, bytes)[0]
            started, finished, seconds, decisions, plays, rounds = game[7:]
            yield GameRow(
                game[0], game[1], int(game[2]), game[3], game[4], game[5], config,
                started, finished, seconds, decisions, plays, rounds, seats, blob,
            )  # fmt: skip


def fault_record(
    conn: StoreConnection,
) -> list[tuple[str, str, frozenset[str], bool, int | None]]:
    """`Store.fault_record`."""
    marks = ", ".join("?" for _ in FAULT_CAUSES)
    bots: dict[str, set[str]] = defaultdict(set)
    with conn.guard("cannot read the faults"), conn.snapshot():
        since = faults_since(conn)
        kept = fault_limits(conn)
        rows = conn.db.execute("SELECT game_id, status, rowid FROM games")
        games = [_typed(r, str, str, int) for r in rows]
        for row in conn.db.execute(
            f"SELECT game_id, bot FROM seats WHERE cause IN ({marks})", FAULT_CAUSES
        ):
            game_id, bot = _typed(row, str, str)
            bots[game_id].add(bot)
        if since >= 0:  # (a faults table)
            for row in conn.db.execute("SELECT game_id, bot FROM faults"):
                game_id, bot = _typed(row, str, str)
                bots[game_id].add(bot)
    ends = [row for row, _ in kept]
    record = []
    for game_id, status, row in games:
        older, at = since < 0 or row <= since, bisect.bisect_left(ends, row)
        limit = None if older or at == len(ends) else kept[at][1]
        record.append((game_id, status, frozenset(bots.get(game_id, ())), older, limit))
    return record


def last_game_row(conn: StoreConnection) -> int:
    """The row number of the game stored last (0: none): where `FAULTS_SINCE` and
    `FAULT_LIMITS` mark the games stored so far."""
    last = conn.db.execute("SELECT max(rowid) FROM games").fetchone()[0]
    return int(last or 0)


def faults_since(conn: StoreConnection) -> int:
    """The games' last row stored by an older arena (`FAULTS_SINCE`; -1: every game, the
    store has no faults table)."""
    since = conn.get(FAULTS_SINCE)
    return since if type(since) is int else 0 if "faults" in conn.tables() else -1


def fault_limits(conn: StoreConnection) -> list[tuple[int, int]]:
    """`FAULT_LIMITS`: each (row, limit) (none where the value is not such a list)."""
    value = conn.get(FAULT_LIMITS)
    kept = [
        (entry[0], entry[1])
        for entry in (value if isinstance(value, list) else ())
        if isinstance(entry, list) and len(entry) == 2 and all(type(v) is int for v in entry)
    ]
    return kept if [row for row, _ in kept] == sorted({row for row, _ in kept}) else []
