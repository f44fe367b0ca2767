"""The store of an SPRT: one SQLite file (WAL), one transaction per finished game.

Tables (schema version 1)::

    meta   key TEXT PRIMARY KEY, value TEXT (JSON)
           "format" = "arena-sprt-store", "schema" = 1, "test" = the settings that
           fix the test (bots and their submissions, table size, hypotheses, rules,
           clocks, seed): a resume with other settings is refused
    games  game_id TEXT PRIMARY KEY, pair INTEGER, side TEXT ('a' or 'b'), seats TEXT
           (JSON names), seed TEXT (a 64-bit unsigned seed does not fit SQLite's
           INTEGER), places TEXT (JSON, per seat), faults TEXT (JSON [seat, cause,
           message] lists), started REAL, finished REAL (Unix seconds)

A game is written whole or not at all, so an SPRT killed at any moment (SIGKILL
included) loses only the games it was playing, and the same command plays them again
with the same deals; a new store is made whole beside its path, then takes its name
(`arena.store.make_whole`), so an SPRT killed as it starts leaves no empty file that
would be refused. Every SQLite or JSON failure leaves as a `StoreError` naming the
file; a file that is not an SPRT store (an empty one, a league's) is left untouched.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from arena.errors import StoreError
from arena.store import SPRT_FORMAT, OpenStore, StoreConnection, open_to_write, use_wal

FORMAT = SPRT_FORMAT
"""The value of the meta key "format" in every SPRT store."""
SCHEMA_VERSION = 1
"""The version of the tables above."""

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE games (
    game_id TEXT PRIMARY KEY,
    pair INTEGER NOT NULL,
    side TEXT NOT NULL,
    seats TEXT NOT NULL,
    seed TEXT NOT NULL,
    places TEXT NOT NULL,
    faults TEXT NOT NULL,
    started REAL NOT NULL,
    finished REAL NOT NULL
);
CREATE INDEX games_by_pair ON games(pair);
"""


@dataclasses.dataclass(frozen=True, slots=True)
class StoredGame:
    """One game of the store."""

    game_id: str
    pair: int
    side: str
    seats: tuple[str, ...]
    seed: int
    places: tuple[int, ...]
    faults: tuple[tuple[int, str, str], ...]
    """(seat, cause, message) of each fault."""
    started: float
    finished: float

    @property
    def faulted(self) -> tuple[bool, ...]:
        """Per seat, whether it faulted."""
        seats = {seat for seat, _, _ in self.faults}
        return tuple(s in seats for s in range(len(self.seats)))


def _whole(value: object) -> int:
    """A stored whole number as it is (ValueError, the guard's "damaged", for 1.5 or
    "1", which int() would have turned into 1)."""
    if type(value) is not int:
        raise ValueError(f"{value!r} where a whole number belongs")
    return value


def _check(game: StoredGame) -> None:
    """ValueError (the guard's "damaged") for a game no SPRT can have stored: a side
    other than a or b, places that are not one of 1..n per seat, a fault of no seat."""
    n = len(game.seats)
    if game.side not in ("a", "b") or n < 2:
        raise ValueError(f"game {game.game_id}: side {game.side!r}, {n} seats")
    if len(game.places) != n or not all(1 <= place <= n for place in game.places):
        raise ValueError(f"game {game.game_id}: places {list(game.places)} for {n} seats")
    if not all(0 <= seat < n for seat, _, _ in game.faults):
        raise ValueError(f"game {game.game_id}: a fault of a seat it does not have")


_WHAT = "an arena SPRT store"
"""What an SPRT store is called in errors."""


def _make_tables(conn: StoreConnection) -> None:
    """Make the tables of a new store, with its marks (in one transaction)."""
    with conn.transaction():
        conn.create(_SCHEMA)
        conn.set("format", FORMAT)
        conn.set("schema", SCHEMA_VERSION)


def _set_up(conn: StoreConnection) -> None:
    """Check a store open to write (an SPRT store of this schema; a league's store is
    named as one) and set it up: the write-ahead log, and the tables of an SQLite file
    that has none (as an older arena left one)."""
    tables = conn.tables()
    if tables:
        if "meta" not in tables or conn.get("format") != FORMAT:
            raise StoreError(
                f"{conn.path}: an SQLite file, but not an arena SPRT store (a league's"
                " store cannot hold a test: give another --store)"
            )
        if conn.get("schema") != SCHEMA_VERSION:
            raise StoreError(
                f"{conn.path}: SPRT store schema {conn.get('schema')}, this arena"
                f" reads {SCHEMA_VERSION}"
            )
        if "games" not in tables:
            raise StoreError(f"{conn.path}: the store is damaged (no table games)")
    use_wal(conn.db, conn.path)
    if not tables:
        _make_tables(conn)


class SprtStore(OpenStore):
    """An open SPRT store: `SprtStore.open(path)`, best used as a context manager."""

    writer = "SPRT"

    @classmethod
    def open(cls, path: Path) -> SprtStore:
        """Open the store at `path`, creating it (and its folder) if there is none
        (`arena.store.open_to_write`)."""
        remedy = "remove it to start a new test there"
        conn, hold, _ = open_to_write(Path(path), _WHAT, remedy, _make_tables, _set_up)
        return cls(conn, hold)

    # -- meta

    def get_meta(self, key: str) -> Any:
        """The JSON value stored under `key`, or None."""
        with self._conn.guard("cannot read"):
            return self._conn.get(key)

    def set_meta(self, key: str, value: Any) -> None:
        with self._conn.guard("cannot write"), self._conn.transaction():
            self._conn.set(key, value)

    # -- games

    def record(
        self,
        *,
        game_id: str,
        pair: int,
        side: str,
        seats: tuple[str, ...],
        seed: int,
        places: tuple[int, ...],
        faults: list[tuple[int, str, str]],
        started: float,
        finished: float,
    ) -> None:
        """Store one finished game (in one transaction); a game id is stored once."""
        with self._conn.guard("cannot record a game"), self._conn.transaction():
            self._conn.check_new(game_id)
            self._conn.db.execute(
                "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game_id, pair, side, json.dumps(list(seats)), str(seed),
                    json.dumps(list(places)), json.dumps([list(f) for f in faults]),
                    started, finished,
                ),
            )  # fmt: skip
        self.check_in_place()

    def games(self) -> dict[str, StoredGame]:
        """Every stored game, by game id."""
        out: dict[str, StoredGame] = {}
        sides: set[tuple[int, str]] = set()
        with self._conn.guard("cannot read the games"):
            rows = self._conn.db.execute(
                "SELECT game_id, pair, side, seats, seed, places, faults, started, finished"
                " FROM games ORDER BY pair, side"
            )
            for game_id, pair, side, seats, seed, places, faults, started, finished in rows:
                game = StoredGame(
                    game_id=str(game_id),
                    pair=int(pair),
                    side=str(side),
                    seats=tuple(str(s) for s in json.loads(seats)),
                    seed=int(seed),
                    places=tuple(map(_whole, json.loads(places))),
                    faults=tuple((int(s), str(c), str(m)) for s, c, m in json.loads(faults)),
                    started=float(started),
                    finished=float(finished),
                )
                _check(game)
                if (game.pair, game.side) in sides:  # a pair's side is played once
                    raise ValueError(f"pair {game.pair} side {game.side} stored twice")
                sides.add((game.pair, game.side))
                out[game.game_id] = game
        return out

    def count(self) -> int:
        """Games stored."""
        with self._conn.guard("cannot read the games"):
            return int(self._conn.db.execute("SELECT count(*) FROM games").fetchone()[0])
