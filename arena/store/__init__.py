"""The league store: one SQLite file (WAL), one transaction per finished game.

Tables (schema version 2)::

    meta     key TEXT PRIMARY KEY, value TEXT (JSON)
             "format" = "arena-league-store" and "schema" = 2 mark an arena store (1: a
             store of an older arena, read as it is and marked 2 when resumed)
    bots     name TEXT PRIMARY KEY, command, digest, status ('ok', 'build_failed',
             'disqualified', ...), note
    games    game_id TEXT PRIMARY KEY, idx (position in the schedule), seed (TEXT: a
             64-bit unsigned seed does not fit SQLite's signed INTEGER), grp (duplicate
             group or NULL), status 'done' | 'forfeit', started_at, finished_at (Unix
             seconds), seconds, decisions, plays, rounds, reason, config (JSON)
    seats    (game_id, seat) PRIMARY KEY, bot, place, points, tokens, cause (the seat's
             elimination cause, NULL if it was never eliminated)
    replays  game_id TEXT PRIMARY KEY, log BLOB (zlib-compressed JSON lines)
    schedule key TEXT PRIMARY KEY (the league's settings), blob BLOB (its schedule, packed
             by the league); made when a league first runs, so older stores lack it
    proofs   id TEXT PRIMARY KEY (a game id, or "meta:KEY"), replay (its SHA-256), mac
             (`_proofs`): every store of schema 2 has it; a store of schema 1 made
             before proofs gets it when a league resumes it
    faults   (game_id, bot) PRIMARY KEY: the bots that faulted in each played game of a
             league (also after they were out of it), with the game; a store of an
             older arena gets it when a league resumes it

Durability. A game, its seats and its replay are written in one transaction, and a
game id is stored at most once (recording it again raises `StoreError`). With the
write-ahead log a process killed at any moment (SIGKILL included) leaves every game
either wholly stored or not at all; ``synchronous=NORMAL`` means a power cut may lose
the last games committed, never half of one, and a resumed league plays them again.
A new store is made whole in a file of its own, which then takes its name
(`make_whole`): killed while it is made, a league leaves no store or a whole one,
never the empty file that would be refused. A store removed or replaced while it is
open to write, or its write-ahead log, is found at the next game recorded, when its
writer stops or fails (`OpenStore.check_in_place`, `OpenStore.moved`), its games
copied beside it.

Errors. Every SQLite, zlib or JSON failure leaves this module as a `StoreError` that
names the file and says what is wrong (not a store, damaged, locked, read-only,
full), never as a traceback. Opening a file that is not an arena store changes
nothing in it.

The store is used from one thread at a time (the league's trio thread), and written by
one process at a time: a store open to write is held (`hold_store`), and a second
league opening it is refused.

The package, one concept a module: `_league` (the `Store` class, the front door),
`_tables` (the schema: made, recognised, checked for damage), `_proofs` (the rows'
HMAC proofs), `_writing` (a game's rows and replay), `_reading` (games read back, and
their record types), `_columns` (seat rows as columns), `_replays` (a replay's
packing); shared with the SPRT store: `_files` (the file's safety, and opening a store)
and `_sqlite` (the connection: errors in words, transactions, meta).
"""

from __future__ import annotations

from arena.store._files import (
    FORMAT,
    SPRT_FORMAT,
    OpenStore,
    format_of,
    hold_store,
    make_whole,
    open_to_write,
)
from arena.store._league import LADDER_KEY, Store
from arena.store._reading import GameRow, SeatRow
from arena.store._replays import (
    REPLAY_LIMIT,
    inflate,
    pack_replay,
    unpack_replay,
)
from arena.store._sqlite import (
    StoreConnection,
    store_error,
    use_wal,
)
from arena.store._tables import PROOF_KEY, RESERVED_KEYS, SCHEMA_VERSION, STREAKS

__all__ = [
    "FORMAT",
    "LADDER_KEY",
    "PROOF_KEY",
    "REPLAY_LIMIT",
    "RESERVED_KEYS",
    "SCHEMA_VERSION",
    "SPRT_FORMAT",
    "STREAKS",
    "GameRow",
    "OpenStore",
    "SeatRow",
    "Store",
    "StoreConnection",
    "format_of",
    "hold_store",
    "inflate",
    "make_whole",
    "open_to_write",
    "pack_replay",
    "store_error",
    "unpack_replay",
    "use_wal",
]
