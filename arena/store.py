"""The league store: one SQLite file (WAL), one transaction per finished game.

Tables: meta (key, JSON value), bots (name, command, digest, status, note), games (one
row per finished or forfeited game), seats (one row per seat of a game), replays (the
game's replay log, zlib-compressed JSON lines). A game and its seats and replay are
written in one transaction, so a process killed at any moment leaves every game either
wholly stored or not at all; recording a game twice is refused.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from arena.errors import StoreError
from arena.referee import GameResult
from arena.standings import GameRecord, SeatRecord

SCHEMA_VERSION = 1
_MAGIC = "arena-league-store"

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE bots (
    name TEXT PRIMARY KEY,
    command TEXT NOT NULL,
    digest TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'ok',
    note TEXT NOT NULL DEFAULT ''
);
CREATE TABLE games (
    game_id TEXT PRIMARY KEY,
    idx INTEGER NOT NULL,
    seed TEXT NOT NULL,
    grp TEXT,
    status TEXT NOT NULL CHECK (status IN ('done', 'forfeit')),
    started_at REAL,
    finished_at REAL,
    seconds REAL,
    decisions INTEGER,
    plays INTEGER,
    rounds INTEGER,
    reason TEXT,
    config TEXT
);
CREATE TABLE seats (
    game_id TEXT NOT NULL REFERENCES games(game_id),
    seat INTEGER NOT NULL,
    bot TEXT NOT NULL,
    place INTEGER NOT NULL,
    points INTEGER,
    tokens INTEGER,
    cause TEXT,
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE replays (
    game_id TEXT PRIMARY KEY REFERENCES games(game_id),
    log BLOB NOT NULL
);
CREATE INDEX seats_bot ON seats(bot);
"""


def pack_replay(log: Sequence[dict[str, Any]]) -> bytes:
    """A replay log as the store keeps it: zlib-compressed JSON lines."""
    text = "\n".join(json.dumps(r, separators=(",", ":")) for r in log)
    return zlib.compress(text.encode(), 6)


class Store:
    """An open league store. Use `Store.open(path)`, as a context manager."""

    def __init__(self, db: sqlite3.Connection, path: Path) -> None:
        self._db = db
        self.path = path

    @classmethod
    def open(cls, path: Path) -> Store:
        """Open (or create) the store at `path`; StoreError if it is not an arena store."""
        path = Path(path)
        if path.exists() and path.is_dir():
            raise StoreError(f"{path} is a folder, not a league store")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(path, isolation_level=None, timeout=30)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA foreign_keys=ON")
            store = cls(db, path)
            store._init()
        except sqlite3.DatabaseError as err:
            raise StoreError(f"{path}: not an arena league store ({err})") from None
        except OSError as err:
            raise StoreError(f"{path}: cannot open: {err}") from None
        return store

    def _init(self) -> None:
        tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master")}
        if not tables:
            with self._transaction():
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        self._db.execute(statement)
                self._set("format", _MAGIC)
                self._set("schema", SCHEMA_VERSION)
            return
        if "meta" not in tables or self.get_meta("format") != _MAGIC:
            raise StoreError(f"{self.path}: an SQLite file, but not an arena league store")
        version = self.get_meta("schema")
        if version != SCHEMA_VERSION:
            raise StoreError(
                f"{self.path}: store schema {version}, this arena reads {SCHEMA_VERSION}"
            )

    def close(self) -> None:
        """Close the database."""
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)

    # ------------------------------------------------------------------ meta

    def _set(self, key: str, value: Any) -> None:
        self._db.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, json.dumps(value)),
        )

    def get_meta(self, key: str) -> Any:
        """A stored setting (JSON value), or None."""
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def set_meta(self, key: str, value: Any) -> None:
        """Store a setting (any JSON value)."""
        with self._transaction():
            self._set(key, value)

    # ------------------------------------------------------------------ bots

    def sync_bots(self, bots: Sequence[tuple[str, str, str]]) -> list[str]:
        """Register (name, command, digest) of each bot; return those whose digest changed."""
        changed = []
        with self._transaction():
            for name, command, digest in bots:
                row = self._db.execute("SELECT digest FROM bots WHERE name = ?", (name,)).fetchone()
                if row is None:
                    self._db.execute(
                        "INSERT INTO bots(name, command, digest) VALUES (?, ?, ?)",
                        (name, command, digest),
                    )
                elif row[0] != digest:
                    changed.append(name)
                    self._db.execute(
                        "UPDATE bots SET command = ?, digest = ? WHERE name = ?",
                        (command, digest, name),
                    )
        return changed

    def set_bot_status(self, name: str, status: str, note: str) -> None:
        """Mark a bot ok, build_failed or disqualified, with a note."""
        with self._transaction():
            self._db.execute(
                "INSERT INTO bots(name, command, digest, status, note) VALUES (?, '', '', ?, ?)"
                " ON CONFLICT(name) DO UPDATE SET status = excluded.status,"
                " note = excluded.note",
                (name, status, note),
            )

    def bot_statuses(self) -> dict[str, str]:
        """Every bot's status."""
        return dict(self._db.execute("SELECT name, status FROM bots").fetchall())

    # ------------------------------------------------------------------ games

    def done_game_ids(self) -> set[str]:
        """The ids of every stored game (played or forfeited)."""
        return {r[0] for r in self._db.execute("SELECT game_id FROM games")}

    def games_count(self) -> int:
        """How many games are stored."""
        return int(self._db.execute("SELECT count(*) FROM games").fetchone()[0])

    def _check_new(self, game_id: str) -> None:
        if self._db.execute("SELECT 1 FROM games WHERE game_id = ?", (game_id,)).fetchone():
            raise StoreError(f"game {game_id} is already stored")

    def record_game(
        self,
        result: GameResult,
        *,
        index: int,
        group: str | None,
        started_at: float,
        finished_at: float,
        replay: bytes | None = None,
    ) -> None:
        """Store a finished game, its seats and its replay, in one transaction.

        `replay` is the replay already packed by `pack_replay` (a worker process does
        that); by default it is packed from `result.log`.
        """
        outcome = result.outcome
        causes = {e.seat: e.cause.value for e in outcome.eliminations}
        blob = replay if replay is not None else pack_replay(result.log)
        try:
            with self._transaction():
                self._check_new(result.game_id)
                self._db.execute(
                    "INSERT INTO games(game_id, idx, seed, grp, status, started_at,"
                    " finished_at, seconds, decisions, plays, rounds, reason, config)"
                    " VALUES (?, ?, ?, ?, 'done', ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        result.game_id, index, str(result.seed), group, started_at,
                        finished_at, finished_at - started_at, result.decisions,
                        outcome.plays, outcome.rounds, outcome.reason.value,
                        json.dumps(result.config.to_dict()),
                    ),
                )  # fmt: skip
                for seat, name in enumerate(result.names):
                    self._db.execute(
                        "INSERT INTO seats(game_id, seat, bot, place, points, tokens, cause)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (
                            result.game_id, seat, name, outcome.places[seat],
                            outcome.points[seat] if outcome.points is not None else None,
                            outcome.tokens[seat] if outcome.tokens is not None else None,
                            causes.get(seat),
                        ),
                    )  # fmt: skip
                self._db.execute(
                    "INSERT INTO replays(game_id, log) VALUES (?, ?)",
                    (result.game_id, blob),
                )
        except sqlite3.DatabaseError as err:
            raise StoreError(f"{self.path}: cannot record {result.game_id}: {err}") from None

    def record_forfeit(
        self,
        game_id: str,
        index: int,
        group: str | None,
        seats: Sequence[str],
        forfeiting: Sequence[str],
        seed: int,
    ) -> None:
        """Store a game not played because bots were disqualified.

        The forfeiting bots share the last place with cause "forfeit"; the others
        share first place.
        """
        out = set(forfeiting)
        last = len(seats) - len(out) + 1
        with self._transaction():
            self._check_new(game_id)
            self._db.execute(
                "INSERT INTO games(game_id, idx, seed, grp, status, reason)"
                " VALUES (?, ?, ?, ?, 'forfeit', 'forfeit')",
                (game_id, index, str(seed), group),
            )
            for seat, name in enumerate(seats):
                self._db.execute(
                    "INSERT INTO seats(game_id, seat, bot, place, cause) VALUES (?, ?, ?, ?, ?)",
                    (game_id, seat, name, last if name in out else 1,
                     "forfeit" if name in out else None),
                )  # fmt: skip

    def game_records(self) -> list[GameRecord]:
        """Every stored game as a standings record, in schedule order."""
        seats: dict[str, list[SeatRecord]] = {}
        groups: dict[str, str | None] = {}
        for game_id, grp in self._db.execute("SELECT game_id, grp FROM games ORDER BY idx"):
            seats[game_id] = []
            groups[game_id] = grp
        for game_id, bot, place, points, cause in self._db.execute(
            "SELECT game_id, bot, place, points, cause FROM seats ORDER BY game_id, seat"
        ):
            seats[game_id].append(SeatRecord(bot, place, points, cause))
        return [GameRecord(g, groups[g], tuple(s)) for g, s in seats.items()]

    def replay(self, game_id: str) -> list[dict[str, Any]]:
        """The replay log of a stored game; StoreError if there is none."""
        row = self._db.execute("SELECT log FROM replays WHERE game_id = ?", (game_id,)).fetchone()
        if row is None:
            raise StoreError(f"no replay of game {game_id} in {self.path}")
        text = zlib.decompress(row[0]).decode()
        return [json.loads(line) for line in text.splitlines()]


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on any error."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if kind is None:
            self._db.execute("COMMIT")
        else:
            self._db.execute("ROLLBACK")
