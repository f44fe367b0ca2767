"""The league store's class (`Store`): the front door to its tables (`_tables`), its
proofs (`_proofs`), writing (`_writing`) and reading (`_reading`) its games, and its
settings and bots, kept here. See `arena.store` for the file's format and its
guarantees."""

from __future__ import annotations

import json
from collections.abc import Generator, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena._gc import paused_collector
from arena.errors import StoreError, shown
from arena.records import GameRecord, ResultColumns
from arena.store import _reading, _writing
from arena.store._columns import _typed
from arena.store._files import OpenStore, open_to_read, open_to_write
from arena.store._proofs import Proofs
from arena.store._reading import GameRow, SeatRow
from arena.store._sqlite import LEAGUE_STORE, StoreConnection, use_wal
from arena.store._tables import (
    FAULT_LIMITS,
    FAULTS,
    FAULTS_SINCE,
    RESERVED_KEYS,
    SCHEMA_VERSION,
    STREAKS,
    check_identity,
    find_damage,
    make_tables,
    quick_check,
)

if TYPE_CHECKING:
    from arena.referee import GameResult


LADDER_KEY = "ladder"
"""The meta key of a ladder's settings ({"seed": ..., "table_size": ...}): it marks
a ladder's store (`arena.ladder`)."""

VERSIONS_KEY = "versions"
"""The meta key of the bots played as more than one version (`Store.changed_versions`)."""


def _set_up(conn: StoreConnection, check: bool) -> Proofs:
    """Check a store open to write and set it up: its identity, the write-ahead log,
    foreign keys, the tables of an SQLite file that has none (as an older arena left
    one), with `check` every page; returns its proofs."""
    tables = conn.tables()
    if tables:
        check_identity(conn, tables)
    use_wal(conn.db, conn.path)
    conn.db.execute("PRAGMA foreign_keys=ON")
    if not tables:
        make_tables(conn)
    elif "faults" not in tables:  # (a store of an older arena)
        with conn.transaction():
            conn.db.execute(FAULTS)
            conn.set(FAULTS_SINCE, _reading.last_game_row(conn))
    if check:
        quick_check(conn)
    return Proofs.load(conn)


def _check_readable(conn: StoreConnection, check: bool) -> Proofs:
    """Check a store open to read (its identity, with `check` every page); returns its
    proofs."""
    check_identity(conn, conn.tables())
    if check:
        quick_check(conn)
    return Proofs.load(conn)


class Store(OpenStore):
    """An open league store: `Store.open(path)`, best used as a context manager."""

    def __init__(self, conn: StoreConnection, proofs: Proofs, hold: int | None = None) -> None:
        super().__init__(conn, hold)
        self._proofs = proofs

    # ------------------------------------------------------------------ open

    @classmethod
    def open(cls, path: Path, *, check: bool = False, readonly: bool = False) -> Store:
        """Open the store at ``path``, creating it (and its folder) if there is none.

        A file that is not an arena store (an empty one included: a store is never
        empty), a store of another schema version, or a damaged one raises
        `StoreError`, and is left as it was; so does a store another process has open
        to write (`hold_store`). ``check`` also reads every page of the
        file (``PRAGMA quick_check``); `verify` checks the replays' content as well.

        ``readonly`` opens an existing store for reading only: nothing in it is
        written, not even the journal mode, and it reads while a league writes the
        same file (the write-ahead log lets readers and one writer work at once).
        SQLite may create the log's side files (-wal, -shm) beside it to read; where
        it cannot (a read-only file system, another user's folder) and there are
        none, no league has the store open, and it is read as a file nobody writes.
        Any thread may read it, one at a time.
        """
        path = Path(path)
        if readonly:
            conn, proofs = open_to_read(path, LEAGUE_STORE, lambda c: _check_readable(c, check))
            return cls(conn, proofs)
        remedy = "a store is never empty: remove the file to start a new store there"
        conn, hold, proofs = open_to_write(
            path, LEAGUE_STORE, remedy, make_tables, lambda c: _set_up(c, check)
        )
        return cls(conn, proofs, hold)

    # ------------------------------------------------------------------ checks

    def verify(self) -> None:
        """Read the whole store and raise `StoreError` at the first damage found: every
        page's structure (``PRAGMA quick_check``) and every replay's checksum (each is a
        zlib stream with an Adler-32 of its content, so a damaged byte inside a replay,
        which quick_check cannot see, is found too)."""
        with self._conn.guard("cannot check"):
            find_damage(self._conn)
            # Last: damage that the checks above name is named so, not as an edit.
            self.verify_rows(replays=True)

    def verify_rows(self, *, replays: bool = False, settings: bool = False) -> None:
        """Raise StoreError, naming the game, if a game's rows (its places, bots, causes,
        seed, settings) or, with `replays`, its replay no longer match the proof written
        with them; with `settings`, also the settings (the league's secret among them).
        A store made before proofs has none to check. (The schedule needs none: a kept
        schedule is used only if it is the one the settings make.)

        The rows are read in one snapshot (a league may be writing) and one game at a
        time, so memory stays bounded however many games the store holds (`arena
        export` of a million games)."""
        self._proofs.verify(replays=replays, settings=settings)

    def adopt_proofs(self) -> None:
        """Give a store made before proofs (open to write) a secret, and its rows as they
        are their proofs, and mark a store of an older schema with this arena's
        (`SCHEMA_VERSION`, which an arena made before proofs refuses): called once its
        league has checked what it holds, so that a refused resume writes nothing. Each
        step is a transaction, and either left undone (the process killed) is done at
        the next resume."""
        self._proofs.adopt()
        with self._conn.guard("cannot mark the schema"):
            if self._conn.get("schema") != SCHEMA_VERSION:
                with self._conn.transaction():
                    self._conn.set("schema", SCHEMA_VERSION)

    # ------------------------------------------------------------------ meta

    def get_meta(self, key: str) -> Any:
        """A stored setting (a JSON value), or None if there is none."""
        with self._conn.guard(f"cannot read setting {key!r}"):
            return self._conn.get(key)

    def get_setting(self, key: str) -> dict[str, Any] | None:
        """A stored setting that a league writes as a JSON object, or None if there is
        none; a store can be anyone's, and any other value is damage (`StoreError`)."""
        value = self.get_meta(key)
        if value is not None and not isinstance(value, dict):
            raise StoreError(f"{self.path}: the store is damaged (setting {key!r}: {shown(value)})")
        return value

    def set_meta(self, key: str, value: Any) -> None:
        """Store a setting: any JSON value (TypeError for anything else)."""
        if key in RESERVED_KEYS:
            raise StoreError(f"the setting {key!r} belongs to the store itself")
        json.dumps(value)  # fail before the transaction
        with self._conn.guard(f"cannot store setting {key!r}"), self._conn.transaction():
            self._conn.set(key, value)
            self._proofs.prove_meta(key)

    def fault_streaks(self) -> dict[str, int]:
        """Each bot's faults in a row as of the last recorded game (empty if none)."""
        with self._conn.guard("cannot read the fault streaks"):
            value = self._conn.get(STREAKS)
        if value is None:
            return {}
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and type(v) is int and v >= 0 for k, v in value.items()
        ):
            raise StoreError(f"{self.path}: the store is damaged (fault streaks {value!r})")
        return value

    def load_schedule(self, key: str) -> bytes | None:
        """The schedule saved under `key` (`save_schedule`), or None."""
        with self._conn.guard("cannot read the schedule"):
            if "schedule" not in self._conn.tables():
                return None
            row = self._conn.db.execute(
                "SELECT blob FROM schedule WHERE key = ?", (key,)
            ).fetchone()
            if row is None:
                return None
            blob: bytes = _typed(row, bytes)[0]
            return blob

    def save_schedule(self, key: str, blob: bytes) -> None:
        """Keep a league's schedule (packed by the league) under `key`, its settings; a
        store keeps one. The table is made when first needed, so stores made before it
        stay readable by anyone."""
        db = self._conn.db
        with self._conn.guard("cannot store the schedule"), self._conn.transaction():
            db.execute(
                "CREATE TABLE IF NOT EXISTS schedule (key TEXT PRIMARY KEY, blob BLOB NOT NULL)"
            )
            db.execute("DELETE FROM schedule")
            db.execute("INSERT INTO schedule (key, blob) VALUES (?, ?)", (key, blob))

    # ------------------------------------------------------------------ bots

    def sync_bots(self, bots: Sequence[tuple[str, str, str]]) -> list[str]:
        """Register each bot's (name, command, digest); return the names whose digest
        differs from the stored one, in the order given.

        New bots are added with status "ok"; a known bot gets its new command and
        digest (its status and note stay as they are: the league decides).
        """
        changed = []
        with self._conn.guard("cannot store the bots"), self._conn.transaction():
            for name, command, digest in bots:
                row = self._conn.db.execute(
                    "SELECT digest FROM bots WHERE name = ?", (name,)
                ).fetchone()
                if row is None:
                    self._conn.db.execute(
                        "INSERT INTO bots(name, command, digest) VALUES (?, ?, ?)",
                        (name, command, digest),
                    )
                    continue
                if row[0] != digest:
                    changed.append(name)
                self._conn.db.execute(
                    "UPDATE bots SET command = ?, digest = ? WHERE name = ?",
                    (command, digest, name),
                )
        return changed

    def bot_digests(self) -> dict[str, str]:
        """Each stored bot's submission digest, by name."""
        with self._conn.guard("cannot read the bots"):
            rows = self._conn.db.execute("SELECT name, digest FROM bots").fetchall()
        return {str(name): str(digest) for name, digest in rows}

    def set_bot_status(self, name: str, status: str, note: str = "") -> None:
        """Mark a bot "ok", "build_failed" or "disqualified", with a note for people.

        A bot not registered yet (one whose build failed) is added with an empty
        command and digest.
        """
        with self._conn.guard(f"cannot store the status of {name}"), self._conn.transaction():
            self._conn.db.execute(
                "INSERT INTO bots(name, command, digest, status, note) VALUES (?, '', '', ?, ?)"
                " ON CONFLICT(name) DO UPDATE SET status = excluded.status,"
                " note = excluded.note",
                (name, status, note),
            )

    def bot_statuses(self) -> dict[str, str]:
        """Every bot's status, by name."""
        with self._conn.guard("cannot read the bots"):
            rows = self._conn.db.execute("SELECT name, status FROM bots ORDER BY name")
            return dict(_typed(row, str, str) for row in rows)

    def changed_versions(self) -> dict[str, int]:
        """The bots whose stored games were played by more than one version of their
        submission (it changed between runs, or while a league ran), with the number of
        versions; `count_version` counts them."""
        value = self.get_meta(VERSIONS_KEY)
        if value is None:
            return {}
        if not isinstance(value, dict) or not all(
            type(n) is int and n >= 2 for n in value.values()
        ):
            raise StoreError(
                f"{self.path}: the store is damaged (setting {VERSIONS_KEY!r}: {shown(value)})"
            )
        return {str(name): n for name, n in value.items()}

    def count_version(self, name: str) -> None:
        """Count a new version of `name`'s submission, whose games will be stored with
        those of the earlier ones (under the same name)."""
        versions = self.changed_versions()
        versions[name] = versions.get(name, 1) + 1
        self.set_meta(VERSIONS_KEY, versions)

    def active_versions(self) -> frozenset[str] | None:
        """Of a ladder's store (marked with the meta key `LADDER_KEY`), the bots of
        status "ok": its active versions (a retired or failed version has another
        status); None for a league's store, whose bots are all read."""
        if self.get_meta(LADDER_KEY) is None:
            return None
        return frozenset(name for name, status in self.bot_statuses().items() if status == "ok")

    def bot_notes(self) -> dict[str, str]:
        """Every bot's note (why it is disqualified, why its build failed), by name."""
        with self._conn.guard("cannot read the bots"):
            rows = self._conn.db.execute("SELECT name, note FROM bots ORDER BY name")
            return dict(_typed(row, str, str) for row in rows)

    # ------------------------------------------------------------------ games

    def record_game(
        self,
        result: GameResult,
        *,
        index: int,
        group: str | None,
        started_at: float,
        finished_at: float,
        replay: bytes | None = None,
        streaks: dict[str, int] | None = None,
        faulted: Sequence[str] = (),
    ) -> None:
        """Store a played game, its seats and its replay, in one transaction.

        ``streaks`` (each bot's faults in a row after this game: a ladder's) and
        ``faulted`` (the bots that faulted in it: a league's, `faults`) are stored in
        the same transaction, so a resumed league or ladder disqualifies exactly as an
        uninterrupted one.

        Each seat's cause is the cause of its elimination in the outcome, None if it
        was never eliminated. ``replay`` is the replay already packed by `pack_replay`
        (a worker process does that); by default it is packed from ``result.log``.
        A game id that is already stored raises `StoreError` and changes nothing.
        """
        _writing.record_game(
            self._conn, self._proofs, result, index=index, group=group,
            started_at=started_at, finished_at=finished_at, replay=replay, streaks=streaks,
            faulted=faulted,
        )  # fmt: skip
        self.check_in_place()

    def record_forfeit(
        self,
        game_id: str,
        index: int,
        group: str | None,
        seats: Sequence[str],
        forfeiting: Sequence[str],
        seed: int,
        *,
        replace: bool = False,
    ) -> None:
        """Store a game not played because bots at its table were disqualified.

        Places follow the rules' ranking of ties: the bots that play on share first
        place, and the forfeiting bots share the place after them, which is the last
        place (of 4 seats with 1 forfeiting: 1, 1, 1 and 4; with 2 forfeiting: 1, 1,
        3, 3). The forfeiting seats have cause "forfeit", the others none. A forfeit
        has no replay, no timings and no config. A game id already stored raises
        `StoreError`, unless ``replace``: then what is stored of it (played, or
        forfeited by other bots) is replaced, in the same transaction (a league's game
        under way when a bot at its table was disqualified, in the order faults in a
        row are counted, before it).
        """
        _writing.record_forfeit(
            self._conn, self._proofs, game_id, index, group, seats, forfeiting, seed,
            replace=replace,
        )  # fmt: skip
        self.check_in_place()

    def fault_record(self) -> list[tuple[str, str, frozenset[str], bool, int | None]]:
        """(game id, status, bots, older, limit) of every stored game: for a played one
        ("done"), the bots that faulted in it (`faults`, and a seat put out by a fault:
        a store of an older arena kept no faults); for a forfeit, the bots that
        forfeited; `older`: stored by an older arena, which counted faults in a row in
        the order games finished; `limit`: the fault limit it was played under, where a
        resume changed it since (`keep_fault_limit`), else None."""
        return _reading.fault_record(self._conn)

    def keep_fault_limit(self, limit: int) -> None:
        """The games stored so far were played under the fault limit `limit`, which a
        resume changes: a league counts their faults in a row under it
        (`fault_record`), and the new one applies to the games to come."""
        with self._conn.guard("cannot keep the fault limit"), self._conn.transaction():
            last = _reading.last_game_row(self._conn)
            kept = _reading.fault_limits(self._conn)
            if last > max([_reading.faults_since(self._conn), *(row for row, _ in kept)]):
                self._conn.set(FAULT_LIMITS, [[row, was] for row, was in [*kept, (last, limit)]])
        self.check_in_place()

    def done_game_ids(self) -> set[str]:
        """The ids of every stored game, played or forfeited."""
        with self._conn.guard("cannot read the games"):
            return {_typed(r, str)[0] for r in self._conn.db.execute("SELECT game_id FROM games")}

    def group_of(self, game_id: str) -> str | None:
        """The duplicate group a stored game was played in (None: none, or no game)."""
        with self._conn.guard("cannot read the games"):
            row = self._conn.db.execute(
                "SELECT grp FROM games WHERE game_id = ?", (game_id,)
            ).fetchone()
        return None if row is None or not isinstance(row[0], str) else row[0]

    def games_count(self) -> int:
        """How many games are stored, played or forfeited."""
        with self._conn.guard("cannot read the games"):
            return int(self._conn.db.execute("SELECT count(*) FROM games").fetchone()[0])

    def game_records(self) -> list[GameRecord]:
        """Every stored game as a standings record, in schedule order (`result_columns`,
        as records)."""
        with paused_collector(), self._conn.guard("cannot read the games"):
            return _reading.result_columns(self._conn).records()

    def result_columns(self) -> ResultColumns:
        """Every stored game in columns (`ResultColumns`), games in schedule order.

        Both tables are read in one snapshot (a league may be writing), with one query
        each; the kinds of the values are checked over the distinct values of each
        column, not row by row, and the cyclic garbage collector waits while the rows
        are in memory (none is in a cycle): a large store reads at about the pace of
        its rows (issue 14.6). A value no game can hold is reported as damage."""
        with paused_collector(), self._conn.guard("cannot read the games"):
            return _reading.result_columns(self._conn)

    def seat_rows(self) -> list[SeatRow]:
        """Every seat of every stored game, in schedule order, then seat order."""
        return _reading.seat_rows(self._conn)

    def seat_rows_of(self, game_ids: Sequence[str]) -> list[SeatRow]:
        """The seats of `game_ids` (any order)."""
        return _reading.seat_rows(self._conn, game_ids)

    def games_by_bot(self) -> dict[str, int]:
        """How many games each bot has played (a seat in each), by name: one query."""
        return _reading.games_by_bot(self._conn)

    def latest_games_of(self, bots: Sequence[str], limit: int) -> list[str]:
        """The ids of the `limit` games recorded last in which one of `bots` played,
        latest first."""
        return _reading.latest_games_of(self._conn, bots, limit)

    def fault_counts(self) -> dict[str, dict[str, int]]:
        """For each bot with any, how many games it left for each fault cause
        (timeout, crash, malformed, illegal, forfeit)."""
        return _reading.fault_counts(self._conn)

    def game_rows(
        self, after: int = 0
    ) -> list[tuple[int, str, str, str | None, int | None, str | None]]:
        """(row number, game id, status, end reason, plays, duplicate group) of every game
        recorded after row number `after`, in the order they were recorded (for reports
        that follow a running league)."""
        return _reading.game_rows(self._conn, after)

    def games(self, *, replays: bool = False) -> Generator[GameRow]:
        """Every stored game with its seats (and with `replays` its packed replay), in
        schedule order, one at a time: memory stays bounded however many games there
        are (SQLite sorts them on disk past a few MiB).

        The games are first checked against their proofs (`verify_rows`, with their
        replays if `replays`), then read, all in one snapshot: a store edited by hand
        raises `StoreError` before the first game, and a league writing meanwhile adds
        nothing that was not checked. Damaged values raise `StoreError` when reached.
        Close the iterator (or read it to its end) to end the snapshot."""
        return _reading.games(self._conn, self._proofs, replays)

    def replay(self, game_id: str) -> list[dict[str, Any]]:
        """The replay log of a played game; StoreError if there is none."""
        return _reading.replay(self._conn, game_id)

    def replay_logs(self, game_ids: Sequence[str]) -> Iterator[tuple[str, list[dict[str, Any]]]]:
        """The replay logs of `game_ids` that have one (`replay`, many at a time)."""
        return _reading.replay_logs(self._conn, game_ids)
