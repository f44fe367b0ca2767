"""An open store's SQLite connection, shared by the league store and the SPRT store:
SQLite's errors in words (`store_error`, `StoreConnection.guard`), transactions, read
snapshots, meta values, and connecting with clean-up on failure (`connect`)."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from arena.errors import StoreError

_T = TypeVar("_T")

LEAGUE_STORE = "an arena league store"
"""What a league store is called in errors (`StoreConnection.what`)."""

# What an SQLite error means for the person running arena, by its primary result code.
_MEANINGS = {
    "SQLITE_CORRUPT": "the store is damaged",
    "SQLITE_BUSY": "the store is locked by another process",
    "SQLITE_LOCKED": "the store is locked",
    "SQLITE_READONLY": "the store is read-only",
    "SQLITE_FULL": "the disk is full",
    "SQLITE_CANTOPEN": "cannot open the file",
    "SQLITE_IOERR": "a read or write failed",
    "SQLITE_PERM": "permission denied",
}


def store_error(path: Path, doing: str, err: sqlite3.Error, what: str = LEAGUE_STORE) -> StoreError:
    """A `StoreError` that says what an SQLite error means (`what`: the kind of store
    the file should be, for a file that is no SQLite database)."""
    name = getattr(err, "sqlite_errorname", None) or ""
    primary = "_".join(name.split("_")[:2])  # SQLITE_IOERR_WRITE -> SQLITE_IOERR
    if isinstance(err, sqlite3.ProgrammingError) and "closed" in str(err):
        return StoreError(f"{path}: {doing}: the store is closed")
    meaning = _MEANINGS.get(primary)
    if isinstance(err, sqlite3.OperationalError) and "Could not decode" in str(err):
        meaning = "the store is damaged"  # text that is not UTF-8: Python's check
    if primary == "SQLITE_NOTADB":
        return StoreError(f"{path}: not {what} (not an SQLite database)")
    if primary == "SQLITE_CANTOPEN" and path.exists() and not _writable_folder(path.parent):
        # SQLite makes the write-ahead log's files beside the store: no folder to write in,
        # and its only word is "unable to open database file".
        meaning = (
            f"its folder {path.parent} cannot be written (a read-only file system, or"
            " another user's folder), and a store open to write keeps its log files beside"
            " it; arena standings, report and serve read it there"
        )
    if primary == "SQLITE_READONLY" and (stuck := _read_only_side_files(path)):
        # SQLite makes them with the store's mode: a reader of a read-only store leaves
        # them read-only, and the store, made writable again, was still "read-only".
        meaning = (
            f"the store can be written, but its side file(s) {', '.join(stuck)} cannot"
            " (made read-only as the store was, when it was read): make them writable too"
        )
    if meaning:
        return StoreError(f"{path}: {doing}: {meaning} ({err})")
    return StoreError(f"{path}: {doing}: {err}")


def _read_only_side_files(path: Path) -> list[str]:
    """The names of the store's write-ahead log files (-wal, -shm) that this process
    may not write, where it may write the store itself."""
    if not os.access(path, os.W_OK):
        return []
    sides = [path.with_name(path.name + end) for end in ("-wal", "-shm")]
    return [side.name for side in sides if side.exists() and not os.access(side, os.W_OK)]


def _writable_folder(folder: Path) -> bool:
    """Whether this process may make files in `folder` (not on a read-only mount)."""
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return False
    except OSError:
        return True  # cannot tell: say what SQLite said
    return os.access(folder, os.W_OK | os.X_OK)


class Transaction:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on any error (a league's store and an
    SPRT's)."""

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
        try:
            if kind is None:
                self._db.execute("COMMIT")
        finally:
            if self._db.in_transaction:  # an error, or a COMMIT that failed
                self._db.execute("ROLLBACK")


def use_wal(db: sqlite3.Connection, path: Path) -> None:
    """Keep a write-ahead log (raises StoreError where SQLite cannot: a network file
    system), synchronous=NORMAL: a power cut may lose the last games, never half one."""
    mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
    if str(mode).lower() != "wal":
        raise StoreError(
            f"{path}: SQLite cannot keep a write-ahead log here (journal mode {mode}); put"
            " the store on a local file system"
        )
    db.execute("PRAGMA synchronous=NORMAL")


def write_meta(db: sqlite3.Connection, key: str, value: object) -> None:
    """Set meta `key` to `value` as JSON (in the caller's transaction)."""
    db.execute(
        "INSERT INTO meta(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, json.dumps(value)),
    )


class StoreConnection:
    """A store's SQLite connection (`db`) with its file's name (`path`) and what kind
    of store it is (`what`, for errors): every store's plumbing."""

    def __init__(self, db: sqlite3.Connection, path: Path, what: str = LEAGUE_STORE) -> None:
        self.db = db
        self.path = path
        self.what = what

    @contextlib.contextmanager
    def guard(self, doing: str) -> Iterator[None]:
        """Turn the errors of SQLite into a `StoreError` that names the file and says
        what is wrong, and so data that cannot be read back (zlib, JSON, JSON nested too
        deeply, a value of the wrong kind or out of range, a seat of no game): a store
        can be anyone's, and its errors are never a traceback."""
        try:
            yield
        except sqlite3.Error as err:
            raise store_error(self.path, doing, err, self.what) from None
        except (zlib.error, ValueError, TypeError, KeyError, IndexError, OverflowError) as err:
            # OverflowError: int() of an infinite REAL, or of JSON's 1e400
            raise StoreError(f"{self.path}: {doing}: the store is damaged ({err})") from None
        except RecursionError:  # a value nested too deeply for what reads it ("[" * 100000)
            raise StoreError(
                f"{self.path}: {doing}: the store is damaged (a value nested too deeply)"
            ) from None

    def transaction(self) -> Transaction:
        """A write transaction (`Transaction`)."""
        return Transaction(self.db)

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """Read in one snapshot (a league may be writing meanwhile): a read transaction,
        unless the caller is in one already."""
        db = self.db
        begun = not db.in_transaction
        if begun:
            db.execute("BEGIN")
        try:
            yield
        finally:
            if begun and db.in_transaction:
                db.execute("COMMIT")

    def create(self, schema: str) -> None:
        """Run each statement of `schema` (in the caller's transaction: executescript
        would commit it)."""
        for statement in schema.split(";"):
            if statement.strip():
                self.db.execute(statement)

    def tables(self) -> set[str]:
        """The names of the store's tables."""
        return {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}

    def get(self, key: str) -> Any:
        """The JSON value of meta `key`, or None; ValueError if it is not JSON, or nests
        deeper than the parser recurses (the text "[" * 100000)."""
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            return json.loads(row[0])
        except RecursionError:
            raise ValueError(f"setting {key!r}: JSON nested too deeply") from None

    def set(self, key: str, value: Any) -> None:
        """Set meta `key` to `value` as JSON (in the caller's transaction)."""
        write_meta(self.db, key, value)

    def check_new(self, game_id: str) -> None:
        """Raise `StoreError` if the games table holds `game_id` already."""
        if self.db.execute("SELECT 1 FROM games WHERE game_id = ?", (game_id,)).fetchone():
            raise StoreError(f"{self.path}: game {game_id} is already stored")


def connect(
    path: Path,
    what: str,
    init: Callable[[StoreConnection], _T],
    *,
    target: str | None = None,
    any_thread: bool = False,
) -> tuple[StoreConnection, _T]:
    """Connect to the store at `path` (or to `target`, a file: URI) and run `init` on
    the connection under its guard ("cannot open"); the connection is closed if that
    fails. With `any_thread`, threads other than this one may use it too, one at a
    time. Returns the connection and what `init` returned."""
    try:
        db = sqlite3.connect(
            str(path) if target is None else target,
            uri=target is not None,
            isolation_level=None,
            timeout=30,
            check_same_thread=not any_thread,
        )
    except sqlite3.Error as err:
        raise store_error(path, "cannot open", err, what) from None
    conn = StoreConnection(db, path, what)
    opened = False
    try:
        with conn.guard("cannot open"):
            made = init(conn)
        opened = True
    finally:
        if not opened:
            db.close()
    return conn, made
