"""The ladder's own tables, in the league store's file: authors (their tokens' hashes),
names (who owns each bot name), submissions (each upload and its state) and tables
(each table the ladder chose, kept before it is played, so that a killed ladder plays
on the tables it had begun).

They live beside the league tables (`arena.store`), which hold the games as any
league's do: `arena standings`, `report` and `export` read a ladder's store as a
league's. The ladder's settings are the store's meta key `LADDER_KEY` (proved, as
every setting is). These tables are written through a connection of their own, so that
`arena ladder author add` works while the server runs (SQLite's write-ahead log lets
one writer in at a time; each write is one short transaction).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import hmac
import json
import secrets
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arena.errors import InputError, StoreError
from arena.store import FORMAT, LADDER_KEY, Store, store_error

STATES = ("received", "building", "checking", "active", "failed", "retired")
"""A submission's states, in the order it goes through them (failed and retired end)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS ladder_authors (
    name TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL,
    created REAL NOT NULL,
    revoked REAL
);
CREATE TABLE IF NOT EXISTS ladder_names (
    name TEXT PRIMARY KEY,
    author TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS ladder_submissions (
    id TEXT PRIMARY KEY,
    author TEXT NOT NULL,
    name TEXT NOT NULL,
    version INTEGER NOT NULL,
    bot TEXT NOT NULL UNIQUE,
    state TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    output TEXT NOT NULL DEFAULT '',
    digest TEXT NOT NULL,
    received REAL NOT NULL,
    updated REAL NOT NULL,
    activated REAL
);
CREATE INDEX IF NOT EXISTS ladder_submissions_author ON ladder_submissions(author, received);
CREATE TABLE IF NOT EXISTS ladder_sessions (
    hash TEXT PRIMARY KEY,
    author TEXT NOT NULL,
    expires REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS ladder_tables (
    tab INTEGER PRIMARY KEY,
    seats TEXT NOT NULL,
    seed TEXT NOT NULL,
    chosen REAL NOT NULL,
    why TEXT NOT NULL DEFAULT ''
);
"""

AUTHOR_NAME_MAX = 64


def token_hash(token: str) -> str:
    """What the store keeps of a token: its SHA-256 (a token is 256 random bits, so a
    plain hash is as good as a slow one)."""
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


def version_name(name: str, version: int) -> str:
    """The name a submission plays under: its bot's name and its version ("mybot.v2").
    The version is the digits after the last ".v", so no two (name, version) give one
    name: "a.v2" version 1 is "a.v2.v1", which no version of "a" is."""
    return f"{name}.v{version}"


@dataclasses.dataclass(frozen=True, slots=True)
class Submission:
    """One upload and what became of it."""

    id: str
    author: str
    name: str
    version: int
    bot: str
    """The name it plays under (`version_name`)."""
    state: str
    reason: str
    output: str
    digest: str
    received: float
    updated: float
    activated: float | None

    def public(self, *, owner: bool) -> dict[str, Any]:
        """What the API shows of it: its output (the build's and the checks') only to
        its author."""
        shown = {
            "id": self.id,
            "author": self.author,
            "name": self.name,
            "version": self.version,
            "bot": self.bot,
            "state": self.state,
            "reason": self.reason,
            "received": self.received,
            "updated": self.updated,
        }
        if owner:
            shown["output"] = self.output
        return shown


_COLUMNS = (
    "id, author, name, version, bot, state, reason, output, digest, received, updated, activated"
)


class LadderDB:
    """The ladder's tables of the store at `path` (see the module docstring)."""

    def __init__(self, db: sqlite3.Connection, path: Path) -> None:
        self._db = db
        self.path = path

    @classmethod
    def open(cls, path: Path, *, create: bool = False) -> LadderDB:
        """The ladder tables of the store at `path`. With `create`, a store that does not
        exist yet is made (a league store, marked a ladder's); otherwise StoreError. A
        league's store (not a ladder's) is refused."""
        created = False
        path = Path(path)
        if not path.exists():
            if not create:
                raise StoreError(f"{path}: no such ladder store")
            with Store.open(path) as store:
                mark_ladder(store)
            created = True
        else:  # a folder, a FIFO, an empty file, a damaged one, an SPRT's: said as a store's
            Store.open(path, readonly=True).close()
        try:
            db = sqlite3.connect(str(path), isolation_level=None, timeout=30)
        except sqlite3.Error as err:
            raise store_error(path, "cannot open", err) from None
        ladder = cls(db, path)
        try:
            with ladder._guard("cannot open"):
                row = db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
                if row is None or json.loads(row[0]) != FORMAT:
                    raise StoreError(f"{path}: not an arena store")
                marked = db.execute("SELECT 1 FROM meta WHERE key = ?", (LADDER_KEY,)).fetchone()
                if marked is None and not created:
                    raise StoreError(
                        f"{path}: a league's store, not a ladder's (arena ladder serve makes one)"
                    )
                db.executescript(_SCHEMA)
        except BaseException:
            db.close()
            raise
        return ladder

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> LadderDB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _guard(self, doing: str) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as err:
            raise store_error(self.path, doing, err) from None
        except (ValueError, TypeError) as err:
            raise StoreError(f"{self.path}: {doing}: the store is damaged ({err})") from None

    @contextlib.contextmanager
    def _write(self, doing: str) -> Iterator[sqlite3.Connection]:
        with self._guard(doing):
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    # ------------------------------------------------------------------ authors

    def add_author(self, name: str) -> str:
        """Add author `name` (or give a revoked one a new token); the token, to be shown
        once: only its hash is kept."""
        check_author_name(name)
        token = "arena_" + secrets.token_urlsafe(32)
        with self._write(f"cannot add author {name}") as db:
            row = db.execute(
                "SELECT revoked FROM ladder_authors WHERE name = ?", (name,)
            ).fetchone()
            if row is not None and row[0] is None:
                raise InputError(
                    f"author {name!r} exists and has a token (revoke it first to issue another)"
                )
            db.execute(
                "INSERT INTO ladder_authors(name, token_hash, created, revoked)"
                " VALUES (?, ?, ?, NULL) ON CONFLICT(name) DO UPDATE SET"
                " token_hash = excluded.token_hash, created = excluded.created, revoked = NULL",
                (name, token_hash(token), time.time()),
            )
        return token

    def revoke_author(self, name: str) -> None:
        with self._write(f"cannot revoke author {name}") as db:
            row = db.execute(
                "SELECT revoked FROM ladder_authors WHERE name = ?", (name,)
            ).fetchone()
            if row is None:
                raise InputError(f"no author {name!r} in {self.path}")
            if row[0] is not None:
                raise InputError(f"author {name!r} is revoked already")
            db.execute("UPDATE ladder_authors SET revoked = ? WHERE name = ?", (time.time(), name))
            db.execute("DELETE FROM ladder_sessions WHERE author = ?", (name,))

    def author_of_token(self, token: str) -> tuple[str | None, bool]:
        """(the author whose token this is, whether it is revoked); (None, False) for a
        token of nobody. Every stored hash is compared, each in constant time, so the
        time taken tells nothing of how near a guess came."""
        given = token_hash(token)
        with self._guard("cannot read the authors"):
            rows = self._db.execute(
                "SELECT name, token_hash, revoked FROM ladder_authors"
            ).fetchall()
        found: tuple[str | None, bool] = (None, False)
        for name, stored, revoked in rows:
            if hmac.compare_digest(str(stored), given):
                found = (str(name), revoked is not None)
        return found

    def authors(self) -> list[tuple[str, bool]]:
        with self._guard("cannot read the authors"):
            rows = self._db.execute(
                "SELECT name, revoked FROM ladder_authors ORDER BY name"
            ).fetchall()
        return [(str(n), r is not None) for n, r in rows]

    # ------------------------------------------------------------------ sessions

    def add_session(self, author: str, seconds: float, now: float | None = None) -> str:
        """A new session of `author` for `seconds`: its id (256 random bits), to give the
        browser. The store keeps only its hash (as a token's), so that whoever reads the
        store cannot sign in with it; sessions survive a restart of the server. Expired
        sessions are dropped."""
        now = time.time() if now is None else now
        sid = secrets.token_urlsafe(32)
        with self._write("cannot record a session") as db:
            db.execute("DELETE FROM ladder_sessions WHERE expires <= ?", (now,))
            db.execute(
                "INSERT INTO ladder_sessions(hash, author, expires) VALUES (?, ?, ?)",
                (token_hash(sid), author, now + seconds),
            )
        return sid

    def session_author(self, sid: str, now: float | None = None) -> str | None:
        """The author of session `sid`, if it is known, not expired, and its author not
        revoked; else None. (Found by its hash: a lookup of 256 random bits' hash tells
        nothing by its timing.)"""
        now = time.time() if now is None else now
        with self._guard("cannot read the sessions"):
            row = self._db.execute(
                "SELECT s.author FROM ladder_sessions s JOIN ladder_authors a"
                " ON a.name = s.author WHERE s.hash = ? AND s.expires > ?"
                " AND a.revoked IS NULL",
                (token_hash(sid), now),
            ).fetchone()
        return None if row is None else str(row[0])

    def end_session(self, sid: str) -> None:
        with self._write("cannot end a session") as db:
            db.execute("DELETE FROM ladder_sessions WHERE hash = ?", (token_hash(sid),))

    # ------------------------------------------------------------------ submissions

    def owner_of(self, name: str) -> str | None:
        with self._guard("cannot read the names"):
            row = self._db.execute(
                "SELECT author FROM ladder_names WHERE name = ?", (name,)
            ).fetchone()
        return None if row is None else str(row[0])

    def submitted_since(self, author: str, since: float) -> int:
        with self._guard("cannot read the submissions"):
            row = self._db.execute(
                "SELECT count(*) FROM ladder_submissions WHERE author = ? AND received >= ?",
                (author, since),
            ).fetchone()
        return int(row[0])

    def add_submission(
        self, author: str, name: str, digest: str, bots_per_author: int = 0
    ) -> Submission:
        """Record a new submission of `name` by `author` ("received"): the name's next
        version, the name taken for `author` if nobody has it. InputError if another
        author owns the name (checked again here, in the transaction), or if `name` is
        a new one and `author` has `bots_per_author` bots in play already (0: any
        number; see `in_play`). A new version of a bot in play is always taken (an
        author over a limit lowered since keeps a way to go on)."""
        now = time.time()
        with self._write("cannot record the submission") as db:
            owner = db.execute("SELECT author FROM ladder_names WHERE name = ?", (name,)).fetchone()
            if owner is not None and owner[0] != author:
                raise InputError(f"the name {name!r} belongs to another author")
            others = self._in_play(db, author)
            if bots_per_author and name not in others and len(others) >= bots_per_author:
                raise InputError(
                    f"author {author!r} has {len(others)} bot(s) in play already"
                    f" ({', '.join(others)}), the most allowed (--bots-per-author"
                    f" {bots_per_author}): submit a new version of one of them"
                )
            if owner is None:
                db.execute("INSERT INTO ladder_names(name, author) VALUES (?, ?)", (name, author))
            version = 1 + int(
                db.execute(
                    "SELECT count(*) FROM ladder_submissions WHERE name = ?", (name,)
                ).fetchone()[0]
            )
            count = int(db.execute("SELECT count(*) FROM ladder_submissions").fetchone()[0])
            sid = f"s{count + 1:06d}"
            bot = version_name(name, version)
            db.execute(
                f"INSERT INTO ladder_submissions({_COLUMNS})"
                " VALUES (?, ?, ?, ?, ?, 'received', '', '', ?, ?, ?, NULL)",
                (sid, author, name, version, bot, digest, now, now),
            )
        found = self.submission(sid)
        assert found is not None
        return found

    def in_play(self, author: str) -> list[str]:
        """The names of `author`'s bots that play or are about to (a version active,
        or received, built or checked)."""
        with self._guard("cannot read the submissions"):
            return self._in_play(self._db, author)

    @staticmethod
    def _in_play(db: sqlite3.Connection, author: str) -> list[str]:
        rows = db.execute(
            "SELECT DISTINCT name FROM ladder_submissions WHERE author = ? AND state IN"
            " ('received', 'building', 'checking', 'active') ORDER BY name",
            (author,),
        ).fetchall()
        return [str(row[0]) for row in rows]

    def set_state(
        self, sid: str, state: str, reason: str | None = None, output: str | None = None
    ) -> None:
        assert state in STATES
        with self._write(f"cannot update submission {sid}") as db:
            db.execute(
                "UPDATE ladder_submissions SET state = ?, updated = ?,"
                " reason = coalesce(?, reason), output = coalesce(?, output),"
                " activated = CASE WHEN ? = 'active' THEN ? ELSE activated END WHERE id = ?",
                (state, time.time(), reason, output, state, time.time(), sid),
            )

    def activate(self, sid: str, output: str) -> list[Submission]:
        """Make `sid` active, and retire the active versions of its name before it; the
        retired ones."""
        now = time.time()
        with self._write(f"cannot activate submission {sid}") as db:
            name = db.execute("SELECT name FROM ladder_submissions WHERE id = ?", (sid,)).fetchone()
            rows = db.execute(
                f"SELECT {_COLUMNS} FROM ladder_submissions WHERE name = ? AND state = 'active'"
                " AND id != ?",
                (name[0], sid),
            ).fetchall()
            db.execute(
                "UPDATE ladder_submissions SET state = 'retired', updated = ?,"
                " reason = 'a newer version is active' WHERE name = ? AND state = 'active'",
                (now, name[0]),
            )
            db.execute(
                "UPDATE ladder_submissions SET state = 'active', updated = ?, activated = ?,"
                " reason = '', output = ? WHERE id = ?",
                (now, now, output, sid),
            )
        return [_submission(row) for row in rows]

    def withdraw(self, name: str, reason: str = "withdrawn by the organiser") -> Submission:
        """Retire the active version of bot `name` (`arena ladder withdraw`): it keeps its
        games, as any retired version, and plays no more (a running ladder sees it after
        the table in play: `active_bots`). Its status among the store's bots is set in
        the same transaction (the store is held by a running ladder, and `arena
        standings` reads the active versions from it). InputError if no version of it
        is active."""
        with self._write(f"cannot withdraw {name}") as db:
            row = db.execute(
                f"SELECT {_COLUMNS} FROM ladder_submissions WHERE name = ? AND state = 'active'",
                (name,),
            ).fetchone()
            if row is None:
                raise InputError(f"no version of bot {name!r} is active in {self.path}")
            db.execute(
                "UPDATE ladder_submissions SET state = 'retired', updated = ?, reason = ?"
                " WHERE id = ?",
                (time.time(), reason, row[0]),
            )
            db.execute(
                "UPDATE bots SET status = 'retired', note = ? WHERE name = ?", (reason, row[4])
            )
        return _submission(row)

    def active_bots(self) -> set[str]:
        """The active versions' names (a cheap read, after every table)."""
        with self._guard("cannot read the submissions"):
            rows = self._db.execute(
                "SELECT bot FROM ladder_submissions WHERE state = 'active'"
            ).fetchall()
        return {str(row[0]) for row in rows}

    def submission(self, sid: str) -> Submission | None:
        with self._guard("cannot read the submissions"):
            row = self._db.execute(
                f"SELECT {_COLUMNS} FROM ladder_submissions WHERE id = ?", (sid,)
            ).fetchone()
        return None if row is None else _submission(row)

    def submissions(self, state: str | None = None) -> list[Submission]:
        with self._guard("cannot read the submissions"):
            if state is None:
                rows = self._db.execute(
                    f"SELECT {_COLUMNS} FROM ladder_submissions ORDER BY id"
                ).fetchall()
            else:
                rows = self._db.execute(
                    f"SELECT {_COLUMNS} FROM ladder_submissions WHERE state = ? ORDER BY id",
                    (state,),
                ).fetchall()
        return [_submission(row) for row in rows]

    # ------------------------------------------------------------------ tables

    def add_table(self, seats: tuple[str, ...], seed: int, why: str) -> int:
        """Keep a chosen table before it is played; its number."""
        with self._write("cannot record a table") as db:
            cursor = db.execute(
                "INSERT INTO ladder_tables(seats, seed, chosen, why) VALUES (?, ?, ?, ?)",
                (json.dumps(list(seats)), str(seed), time.time(), why),
            )
            number = cursor.lastrowid
        assert number is not None
        return int(number)

    def tables_since(self, after: int = 0) -> list[tuple[int, tuple[str, ...], int]]:
        """(number, seats, seed) of every table chosen after table `after`."""
        with self._guard("cannot read the tables"):
            rows = self._db.execute(
                "SELECT tab, seats, seed FROM ladder_tables WHERE tab > ? ORDER BY tab", (after,)
            ).fetchall()
        return [(int(t), tuple(json.loads(s)), int(seed)) for t, s, seed in rows]

    def table_count(self) -> int:
        with self._guard("cannot read the tables"):
            return int(self._db.execute("SELECT count(*) FROM ladder_tables").fetchone()[0])


def _submission(row: Any) -> Submission:
    return Submission(
        str(row[0]), str(row[1]), str(row[2]), int(row[3]), str(row[4]), str(row[5]),
        str(row[6]), str(row[7]), str(row[8]), float(row[9]), float(row[10]),
        None if row[11] is None else float(row[11]),
    )  # fmt: skip


def mark_ladder(store: Store, table_size: int | None = None) -> dict[str, Any]:
    """The ladder's settings in `store` (open to write), made the first time: its secret
    seed (every deal comes from it) and its table size."""
    settings = store.get_setting(LADDER_KEY)
    if settings is None:
        settings = {"seed": secrets.token_hex(16), "table_size": table_size or 4}
        store.set_meta(LADDER_KEY, settings)
    elif table_size is not None and settings.get("table_size") != table_size:
        settings = {**settings, "table_size": table_size}
        store.set_meta(LADDER_KEY, settings)
    return settings


def check_author_name(name: str) -> str:
    ok = (
        0 < len(name) <= AUTHOR_NAME_MAX
        and name[0].isalnum()
        and name.isascii()
        and all(c.isalnum() or c in "-_." for c in name)
    )
    if not ok:
        raise InputError(
            f"author name {name!r} must be 1 to {AUTHOR_NAME_MAX} ASCII letters, digits or"
            " - _ . and start with a letter or digit"
        )
    return name
