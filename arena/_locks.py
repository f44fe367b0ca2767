"""Locks by key, forgotten once no task holds or waits for them (`KeyedLocks`)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Hashable

import trio


class KeyedLocks:
    """A trio lock for each key while a task holds it or waits for it (`hold`), gone
    after the last of them: a league or an SPRT running for days keeps one for each
    deal or pair in play, not one for every deal or pair it played (some 350 bytes
    each: about 90 MB a million games)."""

    def __init__(self) -> None:
        self._locks: dict[Hashable, tuple[trio.Lock, list[int]]] = {}
        """Each key's lock, and how many tasks hold it or wait for it."""

    def __len__(self) -> int:
        """The keys held or waited for now."""
        return len(self._locks)

    @contextlib.asynccontextmanager
    async def hold(self, key: Hashable) -> AsyncIterator[None]:
        """Hold `key`'s lock for the block (waiting while another task holds it)."""
        if key not in self._locks:
            self._locks[key] = (trio.Lock(), [0])
        lock, users = self._locks[key]
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if not users[0]:
                del self._locks[key]
