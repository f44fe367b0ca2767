"""Writing a league's games: a played game's rows, seats and replay, or a forfeit's, in
one transaction with their proof (`Store.record_game`, `Store.record_forfeit`)."""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from arena.errors import StoreError
from arena.records import FORFEIT
from arena.store._proofs import Proofs
from arena.store._replays import pack_replay
from arena.store._sqlite import StoreConnection
from arena.store._tables import STREAKS

if TYPE_CHECKING:
    from arena.referee import GameResult
    from arena.rules import GameConfig


def _at(values: Sequence[int] | None, seat: int) -> int | None:
    return values[seat] if values is not None else None


def record_game(
    conn: StoreConnection,
    proofs: Proofs,
    result: GameResult,
    *,
    index: int,
    group: str | None,
    started_at: float,
    finished_at: float,
    replay: bytes | None,
    streaks: dict[str, int] | None,
    faulted: Sequence[str] = (),
) -> None:
    """`Store.record_game` (the caller then checks that the store is in its place)."""
    outcome = result.outcome
    if not len(result.names) == len(outcome.places) == result.config.players:
        raise StoreError(
            f"game {result.game_id}: {len(result.names)} names and "
            f"{len(outcome.places)} places for {result.config.players} players"
        )
    causes = {e.seat: e.cause.value for e in outcome.eliminations}
    blob = replay if replay is not None else pack_replay(result.log)
    game_row = (
        result.game_id, index, str(result.seed), group, started_at, finished_at,
        finished_at - started_at, result.decisions, outcome.plays, outcome.rounds,
        outcome.reason.value, _config_json(result.config),
    )  # fmt: skip
    seat_rows = [
        (result.game_id, seat, name, outcome.places[seat], _at(outcome.points, seat),
         _at(outcome.tokens, seat), causes.get(seat))
        for seat, name in enumerate(result.names)
    ]  # fmt: skip
    db = conn.db
    with conn.guard(f"cannot record game {result.game_id}"), conn.transaction():
        conn.check_new(result.game_id)
        if streaks is not None:
            conn.set(STREAKS, streaks)
        db.execute(
            "INSERT INTO games(game_id, idx, seed, grp, status, started_at, finished_at,"
            " seconds, decisions, plays, rounds, reason, config)"
            " VALUES (?, ?, ?, ?, 'done', ?, ?, ?, ?, ?, ?, ?, ?)",
            game_row,
        )
        db.executemany(
            "INSERT INTO seats(game_id, seat, bot, place, points, tokens, cause)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            seat_rows,
        )
        db.execute("INSERT INTO replays(game_id, log) VALUES (?, ?)", (result.game_id, blob))
        db.executemany(
            "INSERT INTO faults(game_id, bot) VALUES (?, ?)",
            [(result.game_id, name) for name in sorted(set(faulted))],
        )
        proofs.prove_game(result.game_id, blob)


@functools.lru_cache(maxsize=16)
def _config_json(config: GameConfig) -> str:
    """A game's configuration as its row holds it (the same for every game of a league)."""
    return json.dumps(config.to_dict())


def record_forfeit(
    conn: StoreConnection,
    proofs: Proofs,
    game_id: str,
    index: int,
    group: str | None,
    seats: Sequence[str],
    forfeiting: Sequence[str],
    seed: int,
    *,
    replace: bool = False,
) -> None:
    """`Store.record_forfeit` (the caller then checks that the store is in its place)."""
    out = set(forfeiting)
    if not out or not out <= set(seats) or len(set(seats)) != len(seats):
        raise StoreError(
            f"game {game_id}: the forfeiting bots {sorted(out)} must be some of its "
            f"seats {list(seats)}, each seated once"
        )
    last = len(seats) - len(out) + 1
    rows = [
        (game_id, seat, name, last if name in out else 1, FORFEIT if name in out else None)
        for seat, name in enumerate(seats)
    ]
    with conn.guard(f"cannot record forfeit {game_id}"), conn.transaction():
        if replace:
            for table in ("faults", "replays", "seats", "games"):
                conn.db.execute(f"DELETE FROM {table} WHERE game_id = ?", (game_id,))
        conn.check_new(game_id)
        conn.db.execute(
            "INSERT INTO games(game_id, idx, seed, grp, status, reason)"
            " VALUES (?, ?, ?, ?, 'forfeit', 'forfeit')",
            (game_id, index, str(seed), group),
        )
        conn.db.executemany(
            "INSERT INTO seats(game_id, seat, bot, place, cause) VALUES (?, ?, ?, ?, ?)",
            rows,
        )
        proofs.prove_game(game_id, None)
