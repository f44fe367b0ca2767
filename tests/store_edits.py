"""Stores edited by hand, as a stranger's store may be: the edit also removes the
store's proofs (`arena.store.Store.verify_rows`), so that the store reads as one made
before them, and what is tested is how arena reads the values themselves. (An edit
that leaves the proofs is refused by them: tests/league/test_store_proofs.py.)"""

from __future__ import annotations

import sqlite3


def without_proofs(db: sqlite3.Connection) -> None:
    """Remove the proofs of the store open in `db` (in its transaction)."""
    db.execute("DELETE FROM meta WHERE key = 'proof_key'")
    db.execute("DROP TABLE IF EXISTS proofs")
