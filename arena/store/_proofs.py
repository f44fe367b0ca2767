"""The proofs of a league store's rows: an HMAC-SHA256, under the store's own secret,
of each game's rows (bound to its replay's digest) and of each setting, written with
them and checked before they are read, so that a store edited by hand is refused."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import secrets
from collections.abc import Sequence
from typing import Any

from arena.errors import StoreError, shown
from arena.store._columns import _first_column
from arena.store._sqlite import StoreConnection
from arena.store._tables import PROOF_KEY, PROOFS, RESERVED_KEYS

_UNPROVED = RESERVED_KEYS
"""Meta keys no proof covers (the streaks change with every game, the rest are the
store's own)."""


def _material(game: Sequence[Any] | None, seats: Sequence[Sequence[Any]]) -> bytes:
    """What a game's proof covers: its games row and its seats rows (without the game
    id, in seat order)."""
    return json.dumps([list(game or []), [list(s) for s in seats]]).encode()


class Proofs:
    """The proofs of the store open through `conn`: written (`prove_game`,
    `prove_meta`) and checked (`verify`) with the store's secret, `key`; a store made
    before proofs has none (`key` None) until it adopts them (`adopt`)."""

    def __init__(self, conn: StoreConnection, key: bytes | None) -> None:
        self._conn = conn
        self.key = key
        """The secret of the store's proofs; None in a store made before them."""

    @classmethod
    def load(cls, conn: StoreConnection) -> Proofs:
        """The proofs of the store, with its secret if it has one (StoreError if the
        secret or its table is damaged)."""
        key = conn.get(PROOF_KEY)
        if key is None:
            return cls(conn, None)
        if not isinstance(key, str) or "proofs" not in conn.tables():
            raise StoreError(f"{conn.path}: the store is damaged (its proofs)")
        return cls(conn, bytes.fromhex(key))

    def adopt(self) -> None:
        """Give a store made before proofs a secret, and its rows as they are their
        proofs (in a transaction of its own; nothing if it has a secret)."""
        if self.key is not None:
            return
        conn, db = self._conn, self._conn.db
        with conn.guard("cannot write the proofs"), conn.transaction():
            db.execute(PROOFS)
            self.key = secrets.token_bytes(32)
            conn.set(PROOF_KEY, self.key.hex())
            for (game_id,) in db.execute("SELECT game_id FROM games").fetchall():
                row = db.execute("SELECT log FROM replays WHERE game_id = ?", (game_id,)).fetchone()
                self.prove_game(game_id, None if row is None else row[0])
            for (key,) in db.execute("SELECT key FROM meta").fetchall():
                if key not in _UNPROVED:
                    self.prove_meta(key)

    def _mac(self, *parts: bytes) -> str:
        assert self.key is not None
        return hmac.new(self.key, b"\x00".join(parts), hashlib.sha256).hexdigest()

    def prove_game(self, game_id: str, replay: bytes | None) -> None:
        """Write the proof of a game's rows as they are now (in the caller's transaction),
        bound to its replay's digest; nothing in a store without proofs."""
        if self.key is None:
            return
        db = self._conn.db
        game = db.execute(
            "SELECT game_id, idx, seed, grp, status, reason, config FROM games WHERE game_id = ?",
            (game_id,),
        ).fetchone()
        seats = db.execute(
            "SELECT seat, bot, place, points, tokens, cause FROM seats WHERE game_id = ?"
            " ORDER BY seat",
            (game_id,),
        ).fetchall()
        digest = None if replay is None else hashlib.sha256(replay).hexdigest()
        mac = self._mac(_material(game, seats), (digest or "").encode())
        db.execute(
            "INSERT OR REPLACE INTO proofs(id, replay, mac) VALUES (?, ?, ?)",
            (game_id, digest, mac),
        )

    def prove_meta(self, key: str) -> None:
        """Write the proof of setting `key` as it is now (in the caller's transaction);
        nothing in a store without proofs."""
        if self.key is None:
            return
        db = self._conn.db
        row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        if row is not None:
            name = f"meta:{key}"
            db.execute(
                "INSERT OR REPLACE INTO proofs(id, replay, mac) VALUES (?, NULL, ?)",
                (name, self._mac(name.encode(), str(row[0]).encode())),
            )

    def verify(self, *, replays: bool = False, settings: bool = False) -> None:
        """`Store.verify_rows`: the games' rows (with `replays`, their replays too; with
        `settings`, the settings) against their proofs, in one snapshot and one game at
        a time, in one query, so memory stays bounded however many games there are."""
        if self.key is None:
            return
        conn = self._conn
        with conn.guard("cannot check the rows"), conn.snapshot():
            self._verify_games(replays)
            if settings:
                for key, value in conn.db.execute("SELECT key, value FROM meta").fetchall():
                    if key not in _UNPROVED:
                        self._check_value(f"meta:{key}", str(value).encode(), f"setting {key!r}")

    def _verify_games(self, replays: bool) -> None:
        """`verify` of the games: each game's rows with its proof and its seats, in game
        id order (the tables' own indexes: nothing is sorted but a game's seats)."""
        db, path = self._conn.db, self._conn.path
        rows = db.execute(
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
                    f"{path}: the rows of game {shown(game_id)} do not match their"
                    " proof (places, bots, causes or seed edited by hand, or damaged);"
                    " arena refuses to read the store"
                )
            if replays and digest is not None:
                row = db.execute("SELECT log FROM replays WHERE game_id = ?", (game_id,)).fetchone()
                if row is None or hashlib.sha256(row[0]).hexdigest() != digest:
                    raise StoreError(
                        f"{path}: the replay of game {shown(game_id)} does not match"
                        " its proof (edited by hand, or damaged)"
                    )

    def _check_value(self, name: str, value: bytes, what: str) -> None:
        """Raise StoreError if `value` is not what the proof `name` proves."""
        row = self._conn.db.execute("SELECT mac FROM proofs WHERE id = ?", (name,)).fetchone()
        if row is None or not hmac.compare_digest(str(row[0]), self._mac(name.encode(), value)):
            raise StoreError(
                f"{self._conn.path}: {what} does not match its proof: the store was edited"
                " by hand or damaged, and arena refuses to read it"
            )
