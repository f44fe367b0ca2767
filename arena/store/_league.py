"""The league store's class (`Store`): its tables, its proofs, and reading and writing
its games. See `arena.store` for the file's format and its guarantees."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import itertools
import json
import os
import secrets
import sqlite3
import zlib
from collections import defaultdict
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from arena._gc import paused_collector
from arena.errors import StoreError, shown
from arena.records import FAULT_CAUSES, FORFEIT, GameRecord, ResultColumns
from arena.store._columns import (
    _CHUNK_ROWS,
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
from arena.store._files import (
    FORMAT,
    SPRT_FORMAT,
    Transaction,
    _at,
    _finished_out_of_reach,
    check_in_place,
    hold_store,
    make_whole,
    refuse_no_file,
    store_error,
    use_wal,
    write_meta,
)
from arena.store._replays import inflate, pack_replay, unpack_replay

if TYPE_CHECKING:
    from arena.referee import GameResult


SCHEMA_VERSION = 1
"""The version of the tables below; a store of another version is refused."""
STREAKS = "fault_streaks"
"""The meta key of the bots' fault streaks, written with each game."""
PROOF_KEY = "proof_key"
"""The meta key of the store's secret for its proofs (`Store.verify_rows`)."""
RESERVED_KEYS = frozenset({"format", "schema", STREAKS, PROOF_KEY})
"""Meta keys the store keeps for itself."""
_UNPROVED = frozenset({"format", "schema", STREAKS, PROOF_KEY})
"""Meta keys no proof covers (the streaks change with every game, the rest are the
store's own)."""
_PROOFS = "CREATE TABLE IF NOT EXISTS proofs (id TEXT PRIMARY KEY, replay TEXT, mac TEXT NOT NULL)"
"""Each game's proof (id: its game id, replay: the SHA-256 of its packed replay) and each
setting's ("meta:KEY"): HMAC-SHA256 under the store's own secret of what they prove."""

_TABLES = ("meta", "bots", "games", "seats", "replays")

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

# What an SQLite error means for the person running arena, by its primary result code.


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


def _material(game: Sequence[Any] | None, seats: Sequence[Sequence[Any]]) -> bytes:
    """What a game's proof covers: its games row and its seats rows (without the game
    id, in seat order)."""
    return json.dumps([list(game or []), [list(s) for s in seats]]).encode()


class Store:
    """An open league store: `Store.open(path)`, best used as a context manager."""

    def __init__(self, db: sqlite3.Connection, path: Path) -> None:
        self._db = db
        self.path = path
        """The store's file."""
        self._hold: int | None = None  # `hold_store` of a store open to write
        self._key: bytes | None = None
        """The secret of the store's proofs; None in a store made before them, read."""

    # ------------------------------------------------------------------ open, close

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
        refuse_no_file(path, "a league store")
        if readonly:
            return cls._open_readonly(path, check)
        with contextlib.suppress(OSError):
            if path.stat().st_size == 0:
                raise StoreError(
                    f"{path} is an empty file, not an arena league store (a store is never"
                    " empty: remove the file to start a new store there)"
                )
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise StoreError(f"{path}: cannot create its folder: {err}") from None
        make_whole(path, lambda db: cls(db, path)._make_tables())
        hold = hold_store(path)
        try:
            store = cls._connect(path, str(path), lambda store: store._init(check), uri=False)
        except BaseException:
            os.close(hold)
            raise
        store._hold = hold
        return store

    @classmethod
    def _open_readonly(cls, path: Path, check: bool) -> Store:
        if not path.is_file():
            raise StoreError(f"{path}: no such league store")
        if path.stat().st_size == 0:  # SQLite would read it as a database of no tables
            raise StoreError(f"{path} is an empty file, not an arena league store")

        def init(store: Store) -> None:
            store._check_identity(store._tables())
            if check:
                store._quick_check()
            store._load_key()

        uri = Path(os.path.realpath(path)).as_uri() + "?mode=ro"
        if _finished_out_of_reach(path):
            uri += "&immutable=1"
        # Any thread may read, one at a time (`arena serve` reads in worker threads).
        return cls._connect(path, uri, init, uri=True, any_thread=True)

    @classmethod
    def _connect(
        cls,
        path: Path,
        target: str,
        init: Callable[[Store], None],
        *,
        uri: bool,
        any_thread: bool = False,
    ) -> Store:
        """Connect to `target` (a path, or with `uri` a file: URI) and run `init`; the
        connection is closed if that fails. With `any_thread`, threads other than this
        one may use it too, one at a time."""
        try:
            db = sqlite3.connect(
                target,
                uri=uri,
                isolation_level=None,
                timeout=30,
                check_same_thread=not any_thread,
            )
        except sqlite3.Error as err:
            raise store_error(path, "cannot open", err) from None
        store = cls(db, path)
        opened = False
        try:
            with store._guard("cannot open"):
                init(store)
            opened = True
        finally:
            if not opened:
                db.close()
        return store

    def _tables(self) -> set[str]:
        return {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}

    def _init(self, check: bool) -> None:
        db = self._db
        tables = self._tables()
        if tables:
            self._check_identity(tables)
        use_wal(db, self.path)
        db.execute("PRAGMA foreign_keys=ON")
        if not tables:  # an SQLite file with no tables yet (as an older arena left one)
            self._make_tables()
        if check:
            self._quick_check()
        self._load_key()

    def _make_tables(self) -> None:
        with self._transaction():
            # Another process may have created the schema since we looked.
            if self._db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0:
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        self._db.execute(statement)
                self._set("format", FORMAT)
                self._set("schema", SCHEMA_VERSION)
                self._db.execute(_PROOFS)
                self._set(PROOF_KEY, secrets.token_bytes(32).hex())

    def _quick_check(self) -> None:
        problems = [str(r[0]) for r in self._db.execute("PRAGMA quick_check").fetchall()]
        if problems != ["ok"]:
            first = " ".join(problems[0].replace("*** in database main ***", "").split())
            raise StoreError(f"{self.path}: the store is damaged ({first})")

    def verify(self) -> None:
        """Read the whole store and raise `StoreError` at the first damage found: every
        page's structure (``PRAGMA quick_check``) and every replay's checksum (each is a
        zlib stream with an Adler-32 of its content, so a damaged byte inside a replay,
        which quick_check cannot see, is found too)."""
        with self._guard("cannot check"):
            self._quick_check()
            for table in ("seats", "replays"):  # a game's rows without the game (hand-edited)
                row = self._db.execute(
                    f"SELECT game_id FROM {table} WHERE game_id NOT IN"
                    " (SELECT game_id FROM games) LIMIT 1"
                ).fetchone()
                if row is not None:
                    raise StoreError(
                        f"{self.path}: the store is damaged ({table} of game {shown(row[0])},"
                        " which is not stored)"
                    )
            for game_id, blob in self._db.execute("SELECT game_id, log FROM replays"):
                try:
                    inflate(blob)
                except (zlib.error, TypeError):
                    raise StoreError(
                        f"{self.path}: the store is damaged (the replay of {game_id!r} does"
                        " not match its checksum)"
                    ) from None
                except ValueError as err:
                    raise StoreError(
                        f"{self.path}: the store is damaged (the replay of {game_id!r}: {err})"
                    ) from None
            # Last: damage that the checks above name is named so, not as an edit.
            self.verify_rows(replays=True)

    # ------------------------------------------------------------------ proofs

    def _load_key(self) -> None:
        """Read the proofs' secret, if the store has one."""
        key = self._get(PROOF_KEY)
        if key is not None:
            if not isinstance(key, str) or "proofs" not in self._tables():
                raise StoreError(f"{self.path}: the store is damaged (its proofs)")
            self._key = bytes.fromhex(key)

    def adopt_proofs(self) -> None:
        """Give a store made before proofs (open to write) a secret, and its rows as they
        are their proofs: called once its league has checked what it holds, so that a
        refused resume writes nothing."""
        if self._key is not None:
            return
        with self._guard("cannot write the proofs"), self._transaction():
            self._db.execute(_PROOFS)
            self._key = secrets.token_bytes(32)
            self._set(PROOF_KEY, self._key.hex())
            for (game_id,) in self._db.execute("SELECT game_id FROM games").fetchall():
                row = self._db.execute(
                    "SELECT log FROM replays WHERE game_id = ?", (game_id,)
                ).fetchone()
                self._prove_game(game_id, None if row is None else row[0])
            for (key,) in self._db.execute("SELECT key FROM meta").fetchall():
                if key not in _UNPROVED:
                    self._prove_meta(key)

    def _mac(self, *parts: bytes) -> str:
        assert self._key is not None
        return hmac.new(self._key, b"\x00".join(parts), hashlib.sha256).hexdigest()

    def _game_material(self, game_id: str) -> bytes:
        """What a game's proof covers of its rows: the game's and its seats'."""
        game = self._db.execute(
            "SELECT game_id, idx, seed, grp, status, reason, config FROM games WHERE game_id = ?",
            (game_id,),
        ).fetchone()
        seats = self._db.execute(
            "SELECT seat, bot, place, points, tokens, cause FROM seats WHERE game_id = ?"
            " ORDER BY seat",
            (game_id,),
        ).fetchall()
        return _material(game, seats)

    def _prove_game(self, game_id: str, replay: bytes | None) -> None:
        """Write the proof of a game's rows as they are now (in the caller's transaction),
        bound to its replay's digest."""
        digest = None if replay is None else hashlib.sha256(replay).hexdigest()
        mac = self._mac(self._game_material(game_id), (digest or "").encode())
        self._db.execute(
            "INSERT OR REPLACE INTO proofs(id, replay, mac) VALUES (?, ?, ?)",
            (game_id, digest, mac),
        )

    def _prove_value(self, name: str, value: bytes) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO proofs(id, replay, mac) VALUES (?, NULL, ?)",
            (name, self._mac(name.encode(), value)),
        )

    def _prove_meta(self, key: str) -> None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        if row is not None:
            self._prove_value(f"meta:{key}", str(row[0]).encode())

    def _check_value(self, name: str, value: bytes, what: str) -> None:
        """Raise StoreError if `value` is not what the proof `name` proves."""
        if self._key is None:
            return
        row = self._db.execute("SELECT mac FROM proofs WHERE id = ?", (name,)).fetchone()
        if row is None or not hmac.compare_digest(str(row[0]), self._mac(name.encode(), value)):
            raise StoreError(
                f"{self.path}: {what} does not match its proof: the store was edited by hand"
                " or damaged, and arena refuses to read it"
            )

    def verify_rows(self, *, replays: bool = False, settings: bool = False) -> None:
        """Raise StoreError, naming the game, if a game's rows (its places, bots, causes,
        seed, settings) or, with `replays`, its replay no longer match the proof written
        with them; with `settings`, also the settings (the league's secret among them).
        A store made before proofs has none to check. (The schedule needs none: a kept
        schedule is used only if it is the one the settings make.)

        The rows are read in one snapshot (a league may be writing) and one game at a
        time, in one query, so memory stays bounded however many games the store holds
        (`arena export` of a million games)."""
        if self._key is None:
            return
        db = self._db
        with self._guard("cannot check the rows"):
            snapshot = not db.in_transaction
            if snapshot:
                db.execute("BEGIN")
            try:
                self._verify_games(replays)
                if settings:
                    for key, value in db.execute("SELECT key, value FROM meta").fetchall():
                        if key not in _UNPROVED:
                            self._check_value(
                                f"meta:{key}", str(value).encode(), f"setting {key!r}"
                            )
            finally:
                if snapshot and db.in_transaction:
                    db.execute("COMMIT")

    def _verify_games(self, replays: bool) -> None:
        """`verify_rows` of the games: each game's rows with its proof and its seats, in
        game id order (the tables' own indexes: nothing is sorted but a game's seats)."""
        rows = self._db.execute(
            "SELECT g.game_id, g.idx, g.seed, g.grp, g.status, g.reason, g.config,"
            " p.replay, p.mac, s.seat, s.bot, s.place, s.points, s.tokens, s.cause"
            " FROM games AS g LEFT JOIN proofs AS p ON p.id = g.game_id"
            " LEFT JOIN seats AS s ON s.game_id = g.game_id ORDER BY g.game_id, s.seat"
        )
        for _, group in itertools.groupby(rows, key=_first_column):
            first, *rest = group
            game, digest, proved = first[:7], first[7], first[8]
            # A game without seats has one row, of no seat (seat is never NULL).
            seats = [row[9:] for row in (first, *rest) if row[9] is not None]
            game_id = game[0]
            mac = self._mac(_material(game, seats), (digest or "").encode())
            if proved is None or not hmac.compare_digest(str(proved), mac):
                raise StoreError(
                    f"{self.path}: the rows of game {shown(game_id)} do not match their"
                    " proof (places, bots, causes or seed edited by hand, or damaged);"
                    " arena refuses to read the store"
                )
            if replays and digest is not None:
                row = self._db.execute(
                    "SELECT log FROM replays WHERE game_id = ?", (game_id,)
                ).fetchone()
                if row is None or hashlib.sha256(row[0]).hexdigest() != digest:
                    raise StoreError(
                        f"{self.path}: the replay of game {shown(game_id)} does not match"
                        " its proof (edited by hand, or damaged)"
                    )

    def _check_identity(self, tables: set[str]) -> None:
        if "meta" in tables and self._get("format") == SPRT_FORMAT:
            raise StoreError(
                f"{self.path} is the store of an SPRT test (arena sprt), not of a league:"
                " the test's command run again with --store pointing at it prints its result"
                " (a finished test plays nothing more)"
            )
        if "meta" not in tables or self._get("format") != FORMAT:
            raise StoreError(f"{self.path}: an SQLite file, but not an arena league store")
        version = self._get("schema")
        if version != SCHEMA_VERSION:
            raise StoreError(
                f"{self.path}: store schema {version}, this arena reads {SCHEMA_VERSION}"
            )
        missing = [t for t in _TABLES if t not in tables]
        if missing:
            raise StoreError(f"{self.path}: the store is damaged (no table {', '.join(missing)})")

    def close(self) -> None:
        """Close the store; it cannot be used afterwards (closing twice is fine)."""
        self._db.close()
        if self._hold is not None:  # after the connection: see `hold_store`
            os.close(self._hold)
            self._hold = None

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # ------------------------------------------------------------------ plumbing

    @contextlib.contextmanager
    def _guard(self, doing: str) -> Iterator[None]:
        """Turn the errors of SQLite into a `StoreError`, and so data that cannot be
        read back (zlib, JSON, JSON nested too deeply, a value of the wrong kind, a
        seat of no game)."""
        try:
            yield
        except sqlite3.Error as err:
            raise store_error(self.path, doing, err) from None
        except (zlib.error, ValueError, TypeError, KeyError) as err:
            raise StoreError(f"{self.path}: {doing}: the store is damaged ({err})") from None
        except RecursionError:  # a value nested too deeply for what reads it
            raise StoreError(
                f"{self.path}: {doing}: the store is damaged (a value nested too deeply)"
            ) from None

    def _transaction(self) -> Transaction:
        return Transaction(self._db)

    def _set(self, key: str, value: Any) -> None:
        write_meta(self._db, key, value)

    def _get(self, key: str) -> Any:
        """The JSON value of meta `key`, or None; ValueError if it is not JSON, or nests
        deeper than the parser recurses (the text "[" * 100000)."""
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            return json.loads(row[0])
        except RecursionError:
            raise ValueError(f"setting {key!r}: JSON nested too deeply") from None

    def check_in_place(self) -> None:
        """`check_in_place` of this store, if it is open to write."""
        if self._hold is not None:
            check_in_place(self._db, self.path, self._hold, self.close, "league")

    def _check_new(self, game_id: str) -> None:
        if self._db.execute("SELECT 1 FROM games WHERE game_id = ?", (game_id,)).fetchone():
            raise StoreError(f"{self.path}: game {game_id} is already stored")

    # ------------------------------------------------------------------ meta

    def get_meta(self, key: str) -> Any:
        """A stored setting (a JSON value), or None if there is none."""
        with self._guard(f"cannot read setting {key!r}"):
            return self._get(key)

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
        with self._guard(f"cannot store setting {key!r}"), self._transaction():
            self._set(key, value)
            if self._key is not None:
                self._prove_meta(key)

    # ------------------------------------------------------------------ bots

    def sync_bots(self, bots: Sequence[tuple[str, str, str]]) -> list[str]:
        """Register each bot's (name, command, digest); return the names whose digest
        differs from the stored one, in the order given.

        New bots are added with status "ok"; a known bot gets its new command and
        digest (its status and note stay as they are: the league decides).
        """
        changed = []
        with self._guard("cannot store the bots"), self._transaction():
            for name, command, digest in bots:
                row = self._db.execute("SELECT digest FROM bots WHERE name = ?", (name,)).fetchone()
                if row is None:
                    self._db.execute(
                        "INSERT INTO bots(name, command, digest) VALUES (?, ?, ?)",
                        (name, command, digest),
                    )
                    continue
                if row[0] != digest:
                    changed.append(name)
                self._db.execute(
                    "UPDATE bots SET command = ?, digest = ? WHERE name = ?",
                    (command, digest, name),
                )
        return changed

    def bot_digests(self) -> dict[str, str]:
        """Each stored bot's submission digest, by name."""
        with self._guard("cannot read the bots"):
            rows = self._db.execute("SELECT name, digest FROM bots").fetchall()
        return {str(name): str(digest) for name, digest in rows}

    def set_bot_status(self, name: str, status: str, note: str = "") -> None:
        """Mark a bot "ok", "build_failed" or "disqualified", with a note for people.

        A bot not registered yet (one whose build failed) is added with an empty
        command and digest.
        """
        with self._guard(f"cannot store the status of {name}"), self._transaction():
            self._db.execute(
                "INSERT INTO bots(name, command, digest, status, note) VALUES (?, '', '', ?, ?)"
                " ON CONFLICT(name) DO UPDATE SET status = excluded.status,"
                " note = excluded.note",
                (name, status, note),
            )

    def bot_statuses(self) -> dict[str, str]:
        """Every bot's status, by name."""
        with self._guard("cannot read the bots"):
            rows = self._db.execute("SELECT name, status FROM bots ORDER BY name")
            return dict(_typed(row, str, str) for row in rows)

    def bot_notes(self) -> dict[str, str]:
        """Every bot's note (why it is disqualified, why its build failed), by name."""
        with self._guard("cannot read the bots"):
            rows = self._db.execute("SELECT name, note FROM bots ORDER BY name")
            return dict(_typed(row, str, str) for row in rows)

    # ------------------------------------------------------------------ games

    def done_game_ids(self) -> set[str]:
        """The ids of every stored game, played or forfeited."""
        with self._guard("cannot read the games"):
            return {_typed(r, str)[0] for r in self._db.execute("SELECT game_id FROM games")}

    def fault_streaks(self) -> dict[str, int]:
        """Each bot's faults in a row as of the last recorded game (empty if none)."""
        with self._guard("cannot read the fault streaks"):
            value = self._get(STREAKS)
        if value is None:
            return {}
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and type(v) is int and v >= 0 for k, v in value.items()
        ):
            raise StoreError(f"{self.path}: the store is damaged (fault streaks {value!r})")
        return value

    def games_count(self) -> int:
        """How many games are stored, played or forfeited."""
        with self._guard("cannot read the games"):
            return int(self._db.execute("SELECT count(*) FROM games").fetchone()[0])

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
    ) -> None:
        """Store a played game, its seats and its replay, in one transaction.

        ``streaks`` (each bot's faults in a row after this game) are stored in the same
        transaction, so a resumed league disqualifies exactly as an uninterrupted one
        (`fault_streaks`).

        Each seat's cause is the cause of its elimination in the outcome, None if it
        was never eliminated. ``replay`` is the replay already packed by `pack_replay`
        (a worker process does that); by default it is packed from ``result.log``.
        A game id that is already stored raises `StoreError` and changes nothing.
        """
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
            outcome.reason.value, json.dumps(result.config.to_dict()),
        )  # fmt: skip
        seat_rows = [
            (result.game_id, seat, name, outcome.places[seat], _at(outcome.points, seat),
             _at(outcome.tokens, seat), causes.get(seat))
            for seat, name in enumerate(result.names)
        ]  # fmt: skip
        with self._guard(f"cannot record game {result.game_id}"), self._transaction():
            self._check_new(result.game_id)
            if streaks is not None:
                self._set(STREAKS, streaks)
            self._db.execute(
                "INSERT INTO games(game_id, idx, seed, grp, status, started_at, finished_at,"
                " seconds, decisions, plays, rounds, reason, config)"
                " VALUES (?, ?, ?, ?, 'done', ?, ?, ?, ?, ?, ?, ?, ?)",
                game_row,
            )
            self._db.executemany(
                "INSERT INTO seats(game_id, seat, bot, place, points, tokens, cause)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                seat_rows,
            )
            self._db.execute(
                "INSERT INTO replays(game_id, log) VALUES (?, ?)", (result.game_id, blob)
            )
            if self._key is not None:
                self._prove_game(result.game_id, blob)
        self.check_in_place()

    def record_forfeit(
        self,
        game_id: str,
        index: int,
        group: str | None,
        seats: Sequence[str],
        forfeiting: Sequence[str],
        seed: int,
    ) -> None:
        """Store a game not played because bots at its table were disqualified.

        Places follow the rules' ranking of ties: the bots that play on share first
        place, and the forfeiting bots share the place after them, which is the last
        place (of 4 seats with 1 forfeiting: 1, 1, 1 and 4; with 2 forfeiting: 1, 1,
        3, 3). The forfeiting seats have cause "forfeit", the others none. A forfeit
        has no replay, no timings and no config. A game id already stored raises
        `StoreError`.
        """
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
        with self._guard(f"cannot record forfeit {game_id}"), self._transaction():
            self._check_new(game_id)
            self._db.execute(
                "INSERT INTO games(game_id, idx, seed, grp, status, reason)"
                " VALUES (?, ?, ?, ?, 'forfeit', 'forfeit')",
                (game_id, index, str(seed), group),
            )
            self._db.executemany(
                "INSERT INTO seats(game_id, seat, bot, place, cause) VALUES (?, ?, ?, ?, ?)",
                rows,
            )
            if self._key is not None:
                self._prove_game(game_id, None)
        self.check_in_place()

    # ------------------------------------------------------------------ reading

    def game_records(self) -> list[GameRecord]:
        """Every stored game as a standings record, in schedule order (`result_columns`,
        as records)."""
        with paused_collector(), self._guard("cannot read the games"):
            return self._result_columns().records()

    def result_columns(self) -> ResultColumns:
        """Every stored game in columns (`ResultColumns`), games in schedule order.

        Both tables are read in one snapshot (a league may be writing), with one query
        each; the kinds of the values are checked over the distinct values of each
        column, not row by row, and the cyclic garbage collector waits while the rows
        are in memory (none is in a cycle): a large store reads at about the pace of
        its rows (issue 14.6). A value no game can hold is reported as damage."""
        with paused_collector(), self._guard("cannot read the games"):
            return self._result_columns()

    def _result_columns(self) -> ResultColumns:
        db = self._db
        snapshot = not db.in_transaction
        if snapshot:
            db.execute("BEGIN")
        try:
            games = db.execute("SELECT game_id, grp FROM games ORDER BY idx, game_id").fetchall()
            game_ids, groups = _columns(games, 2)
            if not (_all_of(set(game_ids), str) and _all_of(set(groups), _STR_OR_NONE)):
                _report_first(
                    games, lambda row: type(row[0]) is str and type(row[1]) in _STR_OR_NONE
                )
            del games
            seats = _SeatColumns(game_ids)
            rows = db.execute(
                "SELECT game_id, bot, place, points, cause FROM seats ORDER BY game_id, seat"
            )
            # A chunk of rows at a time: the rows of a large store never are all in
            # memory at once, only the compact columns made of them.
            while chunk := rows.fetchmany(_CHUNK_ROWS):
                seats.add(chunk)
        finally:
            if snapshot and db.in_transaction:
                db.execute("COMMIT")
        return seats.finish(groups)

    def seat_rows(self) -> list[SeatRow]:
        """Every seat of every stored game, in schedule order, then seat order."""
        kinds = (str, int, str, int, str, int, _INT_OR_NONE, _INT_OR_NONE, _STR_OR_NONE)
        with self._guard("cannot read the seats"):
            return [
                SeatRow(*_typed(row, *kinds))
                for row in self._db.execute(
                    "SELECT g.game_id, g.idx, g.status, s.seat, s.bot, s.place, s.points,"
                    " s.tokens, s.cause FROM seats AS s JOIN games AS g USING (game_id)"
                    " ORDER BY g.idx, g.game_id, s.seat"
                )
            ]

    def seat_rows_of(self, game_ids: Sequence[str]) -> list[SeatRow]:
        """The seats of `game_ids` (any order)."""
        kinds = (str, int, str, int, str, int, _INT_OR_NONE, _INT_OR_NONE, _STR_OR_NONE)
        out = []
        with self._guard("cannot read the seats"):
            for start in range(0, len(game_ids), 500):
                chunk = list(game_ids[start : start + 500])
                marks = ", ".join("?" for _ in chunk)
                out += [
                    SeatRow(*_typed(row, *kinds))
                    for row in self._db.execute(
                        "SELECT g.game_id, g.idx, g.status, s.seat, s.bot, s.place, s.points,"
                        " s.tokens, s.cause FROM seats AS s JOIN games AS g USING (game_id)"
                        f" WHERE g.game_id IN ({marks})",
                        chunk,
                    )
                ]
        return out

    def fault_counts(self) -> dict[str, dict[str, int]]:
        """For each bot with any, how many games it left for each fault cause
        (timeout, crash, malformed, illegal, forfeit)."""
        marks = ", ".join("?" for _ in FAULT_CAUSES)
        counts: dict[str, dict[str, int]] = defaultdict(dict)
        with self._guard("cannot read the seats"):
            for row in self._db.execute(
                f"SELECT bot, cause, count(*) FROM seats WHERE cause IN ({marks})"
                " GROUP BY bot, cause ORDER BY bot, cause",
                FAULT_CAUSES,
            ):
                bot, cause, n = _typed(row, str, str, int)
                counts[bot][cause] = n
        return dict(counts)

    def game_rows(
        self, after: int = 0
    ) -> list[tuple[int, str, str, str | None, int | None, str | None]]:
        """(row number, game id, status, end reason, plays, duplicate group) of every game
        recorded after row number `after`, in the order they were recorded (for reports
        that follow a running league)."""
        with self._guard("cannot read the games"):
            return [
                _typed(row, int, str, str, _STR_OR_NONE, _INT_OR_NONE, _STR_OR_NONE)
                for row in self._db.execute(
                    "SELECT rowid, game_id, status, reason, plays, grp FROM games"
                    " WHERE rowid > ? ORDER BY rowid",
                    (after,),
                )
            ]

    def replay_logs(self, game_ids: Sequence[str]) -> Iterator[tuple[str, list[dict[str, Any]]]]:
        """The replay logs of `game_ids` that have one (`replay`, many at a time)."""
        with self._guard("cannot read the replays"):
            for start in range(0, len(game_ids), 500):
                chunk = list(game_ids[start : start + 500])
                marks = ", ".join("?" for _ in chunk)
                for row in self._db.execute(
                    f"SELECT game_id, log FROM replays WHERE game_id IN ({marks})", chunk
                ):
                    game_id, blob = _typed(row, str, bytes)
                    yield game_id, unpack_replay(blob)  # under the guard: damage is reported

    def load_schedule(self, key: str) -> bytes | None:
        """The schedule saved under `key` (`save_schedule`), or None."""
        with self._guard("cannot read the schedule"):
            if "schedule" not in self._tables():
                return None
            row = self._db.execute("SELECT blob FROM schedule WHERE key = ?", (key,)).fetchone()
            if row is None:
                return None
            blob: bytes = _typed(row, bytes)[0]
            return blob

    def save_schedule(self, key: str, blob: bytes) -> None:
        """Keep a league's schedule (packed by the league) under `key`, its settings; a
        store keeps one. The table is made when first needed, so stores made before it
        stay readable by anyone."""
        with self._guard("cannot store the schedule"), self._transaction():
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS schedule (key TEXT PRIMARY KEY, blob BLOB NOT NULL)"
            )
            self._db.execute("DELETE FROM schedule")
            self._db.execute("INSERT INTO schedule (key, blob) VALUES (?, ?)", (key, blob))

    def games(self, *, replays: bool = False) -> Generator[GameRow]:
        """Every stored game with its seats (and with `replays` its packed replay), in
        schedule order, one at a time: memory stays bounded however many games there
        are (SQLite sorts them on disk past a few MiB).

        The games are first checked against their proofs (`verify_rows`, with their
        replays if `replays`), then read, all in one snapshot: a store edited by hand
        raises `StoreError` before the first game, and a league writing meanwhile adds
        nothing that was not checked. Damaged values raise `StoreError` when reached.
        Close the iterator (or read it to its end) to end the snapshot."""
        db = self._db
        seat_kinds = (int, str, int, _INT_OR_NONE, _INT_OR_NONE, _STR_OR_NONE)
        game_kinds = (
            str, int, str, _STR_OR_NONE, str, _STR_OR_NONE, _STR_OR_NONE, _REAL_OR_NONE,
            _REAL_OR_NONE, _REAL_OR_NONE, _INT_OR_NONE, _INT_OR_NONE, _INT_OR_NONE,
        )  # fmt: skip
        with self._guard("cannot read the games"):
            snapshot = not db.in_transaction
            if snapshot:
                db.execute("BEGIN")
            try:
                self.verify_rows(replays=replays)
                rows = db.execute(
                    "SELECT g.game_id, g.idx, g.seed, g.grp, g.status, g.reason, g.config,"
                    " g.started_at, g.finished_at, g.seconds, g.decisions, g.plays, g.rounds,"
                    " s.seat, s.bot, s.place, s.points, s.tokens, s.cause"
                    " FROM games AS g JOIN seats AS s USING (game_id)"
                    " ORDER BY g.idx, g.game_id, s.seat"
                )
                for _, group in itertools.groupby(rows, key=_first_column):
                    first, *rest = group
                    game = _typed(first[:13], *game_kinds)
                    seats = tuple(
                        SeatRow(game[0], game[1], game[4], *_typed(row[13:], *seat_kinds))
                        for row in (first, *rest)
                    )
                    config = None if game[6] is None else json.loads(game[6])
                    if config is not None and not isinstance(config, dict):
                        raise ValueError(f"game {shown(game[0])}: settings {shown(config)}")
                    blob = None
                    if replays and game[4] == "done":
                        row = db.execute(
                            "SELECT log FROM replays WHERE game_id = ?", (game[0],)
                        ).fetchone()
                        blob = None if row is None else _typed(row, bytes)[0]
                    started, finished, seconds, decisions, plays, rounds = game[7:]
                    yield GameRow(
                        game[0], game[1], int(game[2]), game[3], game[4], game[5], config,
                        started, finished, seconds, decisions, plays, rounds, seats, blob,
                    )  # fmt: skip
            finally:
                if snapshot and db.in_transaction:
                    db.execute("COMMIT")

    def replay(self, game_id: str) -> list[dict[str, Any]]:
        """The replay log of a played game; StoreError if there is none."""
        with self._guard(f"cannot read the replay of {game_id}"):
            row = self._db.execute(
                "SELECT log FROM replays WHERE game_id = ?", (game_id,)
            ).fetchone()
            if row is None:
                raise StoreError(f"{self.path}: no replay of game {game_id}")
            (blob,) = _typed(row, bytes)
            log = unpack_replay(blob)
            if not all(isinstance(record, dict) for record in log):
                raise ValueError("a replay record that is not a JSON object")
            return log
