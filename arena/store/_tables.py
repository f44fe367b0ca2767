"""The league store's tables (see `arena.store`): made, recognised, and checked for
damage."""

from __future__ import annotations

import secrets
import zlib

from arena.errors import StoreError, shown
from arena.store._files import FORMAT, SPRT_FORMAT
from arena.store._replays import inflate
from arena.store._sqlite import StoreConnection

SCHEMA_VERSION = 2
"""The version of the tables below, marked in every store this arena makes or writes.
Version 2 is version 1 with a proof of every game and setting (`arena.store._proofs`):
an arena made before proofs reads only version 1, and so refuses a store of version 2
("store schema 2, this arena reads 1") instead of writing games without proofs into
it, which this arena would then refuse, every game of it, as edited by hand. A store
of version 1 (made before proofs, or by an arena that wrote them under version 1) is
read as it is, and marked 2 when a league resumes it (`Store.adopt_proofs`)."""
READS = (1, SCHEMA_VERSION)
"""The versions of the tables this arena reads (and writes, marking them its own)."""
STREAKS = "fault_streaks"
"""The meta key of the bots' fault streaks, written with each game of a ladder (a league
stores the bots that faulted in each game instead: `FAULTS`)."""
PROOF_KEY = "proof_key"
"""The meta key of the store's secret for its proofs (`Store.verify_rows`)."""
FAULTS_SINCE = "faults_since"
"""The meta key of the games' last row number when the `FAULTS` table was made in a
store of an older arena: the games up to it were stored before it, and a resumed league
counts them as they are stored."""
FAULT_LIMITS = "fault_limits"
"""The meta key of the fault limits a league's games were played under, where a resume
changed it: a list of [row, limit], rows ascending: the games after the previous row (or
`FAULTS_SINCE`) up to this one were played under `limit`; those after the last row,
under the league's limit now (`Store.keep_fault_limit`)."""
RESERVED_KEYS = frozenset({"format", "schema", STREAKS, PROOF_KEY, FAULTS_SINCE, FAULT_LIMITS})
"""Meta keys the store keeps for itself."""
PROOFS = "CREATE TABLE IF NOT EXISTS proofs (id TEXT PRIMARY KEY, replay TEXT, mac TEXT NOT NULL)"
"""Each game's proof (id: its game id, replay: the SHA-256 of its packed replay) and each
setting's ("meta:KEY"): HMAC-SHA256 under the store's own secret of what they prove."""
FAULTS = (
    "CREATE TABLE IF NOT EXISTS faults (game_id TEXT NOT NULL REFERENCES games(game_id),"
    " bot TEXT NOT NULL, PRIMARY KEY (game_id, bot))"
)
"""The bots that faulted in each played game of a league (also after they were out of
it, which their seat's cause does not show), written with the game: a resumed league
counts faults in a row from them (`arena.league`). Made in a store of an older arena
when a league resumes it; no proof covers it (as none covered the streaks)."""


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


def make_tables(conn: StoreConnection) -> None:
    """Make the tables of a new store, with its marks and its proofs' secret (in one
    transaction; nothing if another process made them since we looked)."""
    with conn.transaction():
        if conn.db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0:
            conn.create(_SCHEMA)
            conn.set("format", FORMAT)
            conn.set("schema", SCHEMA_VERSION)
            conn.db.execute(PROOFS)
            conn.db.execute(FAULTS)
            conn.set(PROOF_KEY, secrets.token_bytes(32).hex())


def check_identity(conn: StoreConnection, tables: set[str]) -> None:
    """Raise `StoreError` unless the file holds a league store of this schema with all
    its tables (an SPRT's store is named as such)."""
    path = conn.path
    if "meta" in tables:  # (another program's table of that name: not a store of ours)
        columns = {row[1] for row in conn.db.execute("PRAGMA table_info(meta)")}
        if not {"key", "value"} <= columns:
            tables = tables - {"meta"}
    if "meta" in tables and conn.get("format") == SPRT_FORMAT:
        raise StoreError(
            f"{path} is the store of an SPRT test (arena sprt), not of a league:"
            " the test's command run again with --store pointing at it prints its result"
            " (a finished test plays nothing more)"
        )
    if "meta" not in tables or conn.get("format") != FORMAT:
        raise StoreError(f"{path}: an SQLite file, but not an arena league store")
    version = conn.get("schema")
    if version not in READS:
        raise StoreError(
            f"{path}: store schema {version}, this arena reads {SCHEMA_VERSION} and older"
            " (a store of a newer arena: read and resume it with that arena, or a newer one)"
        )
    missing = [t for t in _TABLES if t not in tables]
    if missing:
        raise StoreError(f"{path}: the store is damaged (no table {', '.join(missing)})")


def quick_check(conn: StoreConnection) -> None:
    """Raise `StoreError` if SQLite finds a page of the file damaged (``PRAGMA
    quick_check``)."""
    problems = [str(r[0]) for r in conn.db.execute("PRAGMA quick_check").fetchall()]
    if problems != ["ok"]:
        first = " ".join(problems[0].replace("*** in database main ***", "").split())
        raise StoreError(f"{conn.path}: the store is damaged ({first})")


def find_damage(conn: StoreConnection) -> None:
    """Raise `StoreError` at the first damage found in the whole file: a damaged page
    (`quick_check`), seats or a replay of no game, or a replay whose checksum fails
    (each is a zlib stream with an Adler-32 of its content, so a damaged byte inside
    a replay, which quick_check cannot see, is found too)."""
    db, path = conn.db, conn.path
    quick_check(conn)
    tables = ("seats", "replays", "faults") if "faults" in conn.tables() else ("seats", "replays")
    for table in tables:  # a game's rows without the game (hand-edited)
        row = db.execute(
            f"SELECT game_id FROM {table} WHERE game_id NOT IN (SELECT game_id FROM games) LIMIT 1"
        ).fetchone()
        if row is not None:
            raise StoreError(
                f"{path}: the store is damaged ({table} of game {shown(row[0])},"
                " which is not stored)"
            )
    for game_id, blob in db.execute("SELECT game_id, log FROM replays"):
        try:
            inflate(blob)
        except (zlib.error, TypeError):
            raise StoreError(
                f"{path}: the store is damaged (the replay of {game_id!r} does"
                " not match its checksum)"
            ) from None
        except ValueError as err:
            raise StoreError(
                f"{path}: the store is damaged (the replay of {game_id!r}: {err})"
            ) from None
