"""The driver (arena.referee._driver) with games in one batch: a defect of one game
reaches the others posted with it, and a wait is not put off while other games keep
the thread busy. Real pipes and real time, as in tests/referee/test_driver.py."""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time
from collections.abc import Iterator

import pytest
import trio

from arena.referee import _driver
from arena.referee._connection import Steps

IN = select.POLLIN


@pytest.fixture
def pipes() -> Iterator[list[tuple[int, int]]]:
    made: list[tuple[int, int]] = []
    yield made
    for pair in made:
        for fd in pair:
            with contextlib.suppress(OSError):
                os.close(fd)


def _pipe(made: list[tuple[int, int]]) -> tuple[int, int]:
    pair = os.pipe2(os.O_NONBLOCK)
    made.append(pair)
    return pair


async def test_a_game_posted_in_the_same_batch_as_a_defective_one_hears_of_the_defect(
    pipes: list[tuple[int, int]],
) -> None:
    """Two games reach the driver's inbox together while its thread is busy. The first
    makes the loop fail (a wait it cannot register); the second was taken out of the
    inbox but not yet into the games in hand, so nobody handed it anything: its task
    waited until something cancelled it (here the test's timeout; in a match, nothing
    but Ctrl-C). Every game in hand when the loop fails must hear of it."""
    hold_read, hold_write = _pipe(pipes)
    good_read, _ = _pipe(pipes)
    stepping, release = threading.Event(), threading.Event()

    def holder() -> Steps[None]:
        yield (hold_read, IN, time.perf_counter() + 30, None, None)
        stepping.set()
        release.wait(10)  # the driver's thread busy with this game's step

    def bad() -> Steps[None]:
        yield (-5, IN, time.perf_counter() + 30, None, None)

    def good() -> Steps[None]:
        yield (good_read, IN, time.perf_counter() + 30, None, None)

    errors: list[BaseException] = []
    handed_back: list[bool] = []

    async def game(steps: Steps[None]) -> None:
        try:
            await _driver.run(steps)
        except ValueError as err:
            errors.append(err)

    async def good_game() -> None:
        with trio.move_on_after(5) as scope:
            await game(good())
        handed_back.append(not scope.cancelled_caught)

    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_driver.run, holder())
            await trio.sleep(0.05)
            os.write(hold_write, b"x")  # its step begins, and lasts until released
            assert await trio.to_thread.run_sync(stepping.wait, 10)
            nursery.start_soon(game, bad())
            await trio.sleep(0.05)  # bad() is posted (a new task runs before this wakes)
            nursery.start_soon(good_game)
            await trio.sleep(0.05)  # good() is posted after it
            release.set()  # the thread takes both from its inbox at once
    finally:
        release.set()
    assert handed_back == [True], "the game beside the defective one was never handed back"
    assert len(errors) == 2


async def test_a_wait_is_not_put_off_for_as_long_as_other_games_keep_the_thread_busy(
    pipes: list[tuple[int, int]],
) -> None:
    """Another game's steps take 2 ms each and it always has an answer waiting (as a
    worker full of games has). A bot that does not answer within 0.2 s must time out
    then (give or take a step), and a bot that answers after 0.6 s must be charged
    about 0.6 s. The driver instead put the wait's deadline off by every long round
    of the other game, whether or not the answer had come: the deadline receded as
    fast as time passed, and the late answer was measured as taking a few ms."""
    hot_read, hot_write = _pipe(pipes)
    late_read, late_write = _pipe(pipes)
    os.write(hot_write, b"x")  # never read: the hot game's wait is always over at once
    start = time.perf_counter()

    def hot() -> Steps[None]:
        while time.perf_counter() < start + 1.2:
            yield (hot_read, IN, time.perf_counter() + 30, None, None)
            time.sleep(0.002)  # a step that takes 2 ms (an answer slow to decode)

    got: list[float | None] = []

    def late() -> Steps[None]:
        got.append((yield (late_read, IN, start + 0.2, None, None)))

    timer = threading.Timer(0.6, os.write, [late_write, b"late"])
    timer.start()
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_driver.run, hot())
            await _driver.run(late())
    finally:
        timer.cancel()
    (seen,) = got
    assert seen is None or seen - start >= 0.5, (
        f"an answer written 0.6 s after the act was measured at {seen - start:.3f} s,"
        " within a 0.2 s deadline"
    )
