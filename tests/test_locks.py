"""`arena._locks.KeyedLocks`: a lock a key while tasks hold or wait for it, then gone."""

from __future__ import annotations

import trio
import trio.testing

from arena._locks import KeyedLocks


async def test_a_key_is_held_by_one_task_at_a_time_and_forgotten_after_the_last() -> None:
    """Two tasks on one key take turns, a task on another key goes at once, and no lock
    is kept once nobody holds or waits (an SPRT kept one for every pair it played)."""
    locks = KeyedLocks()
    inside: list[str] = []
    release = trio.Event()

    async def use(key: str, name: str) -> None:
        async with locks.hold(key):
            inside.append(name)
            await release.wait()
            inside.remove(name)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(use, "a", "first")
        nursery.start_soon(use, "a", "second")
        nursery.start_soon(use, "b", "other")
        await trio.testing.wait_all_tasks_blocked()
        assert sorted(inside) in (["first", "other"], ["other", "second"])
        assert len(locks) == 2  # "a" (held, and waited for) and "b"
        release.set()
    assert inside == []
    assert len(locks) == 0


async def test_a_cancelled_waiter_leaves_no_lock_behind() -> None:
    locks = KeyedLocks()
    release = trio.Event()

    async def holder() -> None:
        async with locks.hold("a"):
            await release.wait()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(holder)
        await trio.testing.wait_all_tasks_blocked()
        with trio.CancelScope() as waiting:
            waiting.cancel()  # a waiter given up on (a league stopped) before its turn
            async with locks.hold("a"):
                raise AssertionError("the key is held")
        assert len(locks) == 1  # the holder's
        release.set()
    assert len(locks) == 0
