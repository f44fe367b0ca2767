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

import contextlib
import dataclasses
import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

from arena.errors import StoreError
from arena.store import (
    SPRT_FORMAT,
    Transaction,
    check_in_place,
    hold_store,
    make_whole,
    refuse_no_file,
    store_error,
    use_wal,
    write_meta,
)

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


class SprtStore:
    """An open SPRT store: `SprtStore.open(path)`, best used as a context manager."""

    def __init__(self, db: sqlite3.Connection, path: Path) -> None:
        self._db = db
        self.path = path
        self._hold: int | None = None  # `arena.store.hold_store`, once open to write

    @classmethod
    def open(cls, path: Path) -> SprtStore:
        """Open the store at `path`, creating it (and its folder) if there is none."""
        path = Path(path)
        refuse_no_file(path, "an SPRT store")
        with contextlib.suppress(OSError):
            if path.stat().st_size == 0:
                raise StoreError(
                    f"{path} is an empty file, not an arena SPRT store (remove it to start a"
                    " new test there)"
                )
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise StoreError(f"{path}: cannot create its folder: {err}") from None
        make_whole(path, lambda db: cls(db, path)._make_tables())
        hold = hold_store(path)
        try:
            db = sqlite3.connect(str(path), isolation_level=None, timeout=30)
        except sqlite3.Error as err:
            os.close(hold)
            raise store_error(path, "cannot open", err) from None
        store = cls(db, path)
        store._hold = hold
        opened = False
        try:
            with store._guard("cannot open"):
                store._init()
            opened = True
        finally:
            if not opened:
                store.close()
        return store

    def _init(self) -> None:
        db = self._db
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if tables:
            if "meta" not in tables or self.get_meta("format") != FORMAT:
                raise StoreError(
                    f"{self.path}: an SQLite file, but not an arena SPRT store (a league's"
                    " store cannot hold a test: give another --store)"
                )
            if self.get_meta("schema") != SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path}: SPRT store schema {self.get_meta('schema')}, this arena"
                    f" reads {SCHEMA_VERSION}"
                )
            if "games" not in tables:
                raise StoreError(f"{self.path}: the store is damaged (no table games)")
        use_wal(db, self.path)
        if not tables:  # an SQLite file with no tables yet (as an older arena left one)
            self._make_tables()

    def _make_tables(self) -> None:
        with self._transaction():
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    self._db.execute(statement)
            self._set("format", FORMAT)
            self._set("schema", SCHEMA_VERSION)

    def close(self) -> None:
        self._db.close()
        if self._hold is not None:  # after the connection (`arena.store.hold_store`)
            os.close(self._hold)
            self._hold = None

    def __enter__(self) -> SprtStore:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    @contextlib.contextmanager
    def _guard(self, doing: str) -> Iterator[None]:
        try:
            yield
        except sqlite3.DatabaseError as err:
            if "not a database" in str(err):
                raise StoreError(f"{self.path}: not an SQLite file (not an SPRT store)") from None
            raise store_error(self.path, doing, err) from None
        except (ValueError, TypeError, KeyError, IndexError, OverflowError) as err:
            # OverflowError: int() of an infinite REAL, or of JSON's 1e400
            raise StoreError(f"{self.path}: {doing}: the store is damaged ({err})") from None
        except RecursionError:  # JSON nested too deeply ("[" * 100000): anyone's store
            raise StoreError(
                f"{self.path}: {doing}: the store is damaged (a value nested too deeply)"
            ) from None
        except sqlite3.Error as err:
            raise StoreError(f"{self.path}: {doing}: {err}") from None

    def _transaction(self) -> Transaction:
        return Transaction(self._db)

    def _set(self, key: str, value: Any) -> None:
        write_meta(self._db, key, value)

    # -- meta

    def get_meta(self, key: str) -> Any:
        """The JSON value stored under `key`, or None."""
        with self._guard("cannot read"):
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
            return json.loads(row[0]) if row else None

    def set_meta(self, key: str, value: Any) -> None:
        with self._guard("cannot write"), self._transaction():
            self._set(key, value)

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
        with self._guard("cannot record a game"), self._transaction():
            if self._db.execute("SELECT 1 FROM games WHERE game_id = ?", (game_id,)).fetchone():
                raise StoreError(f"{self.path}: game {game_id} is already stored")
            self._db.execute(
                "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game_id, pair, side, json.dumps(list(seats)), str(seed),
                    json.dumps(list(places)), json.dumps([list(f) for f in faults]),
                    started, finished,
                ),
            )  # fmt: skip
        self.check_in_place()

    def check_in_place(self) -> None:
        """`arena.store.check_in_place` of this store, if it is open to write: a store
        removed or replaced while the test writes it stops the test, its games saved."""
        if self._hold is not None:
            check_in_place(self._db, self.path, self._hold, self.close, "SPRT")

    def games(self) -> dict[str, StoredGame]:
        """Every stored game, by game id."""
        out: dict[str, StoredGame] = {}
        sides: set[tuple[int, str]] = set()
        with self._guard("cannot read the games"):
            rows = self._db.execute(
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
        with self._guard("cannot read the games"):
            return int(self._db.execute("SELECT count(*) FROM games").fetchone()[0])
