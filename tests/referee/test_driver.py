"""The driver: one thread that takes many games' steps on (arena.referee._driver), with
real pipes and real time. Each test's steps stand for a game: they yield what they
wait for and are sent when it came (or None at the deadline)."""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time
from collections.abc import Iterator

import pytest
import trio

from arena.errors import RefereeError
from arena.referee import _driver
from arena.referee._connection import Steps

IN = select.POLLIN


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    read, write = os.pipe2(os.O_NONBLOCK)
    yield read, write
    for fd in (read, write):
        with contextlib.suppress(OSError):
            os.close(fd)


def reader(fd: int, deadline: float, got: list[float | None]) -> Steps[bytes | None]:
    """Wait once for `fd`; note what the driver sent, and return what was there."""
    seen = yield (fd, IN, deadline, None, None)
    got.append(seen)
    return None if seen is None else os.read(fd, 100)


async def test_an_answer_comes_back_with_the_time_it_was_seen(pipe: tuple[int, int]) -> None:
    read, write = pipe
    got: list[float | None] = []
    threading.Timer(0.05, os.write, [write, b"hi"]).start()
    before = time.perf_counter()
    assert await _driver.run(reader(read, before + 5, got)) == b"hi"
    seen = got[0]
    assert seen is not None
    assert before + 0.04 <= seen <= time.perf_counter()


async def test_no_answer_by_the_deadline_is_sent_none(pipe: tuple[int, int]) -> None:
    got: list[float | None] = []
    start = time.perf_counter()
    assert await _driver.run(reader(pipe[0], start + 0.1, got)) is None
    assert got == [None]
    assert 0.09 <= time.perf_counter() - start < 5


async def test_several_games_wait_at_once_and_each_gets_its_own_answer() -> None:
    pipes = [os.pipe2(os.O_NONBLOCK) for _ in range(4)]
    results: dict[int, bytes | None] = {}
    try:

        async def game(i: int) -> None:
            results[i] = await _driver.run(reader(pipes[i][0], time.perf_counter() + 5, []))

        async with trio.open_nursery() as nursery:
            for i in range(4):
                nursery.start_soon(game, i)
            await trio.sleep(0.05)
            for i in reversed(range(4)):  # the last to start answers first
                os.write(pipes[i][1], f"game {i}".encode())
                await trio.sleep(0.01)
    finally:
        for pair in pipes:
            for fd in pair:
                os.close(fd)
    assert results == {i: f"game {i}".encode() for i in range(4)}


async def test_an_answer_there_at_the_deadline_is_taken_after_a_busy_step(
    pipe: tuple[int, int],
) -> None:
    """Another game's step holds the thread past this game's deadline; its answer came
    in time, and the driver hands it over (with the time it saw it: the steps judge
    lateness) rather than calling the wait over."""
    read, write = pipe
    busy_read, busy_write = os.pipe2(os.O_NONBLOCK)
    got: list[float | None] = []

    def busy() -> Steps[None]:
        yield (busy_read, IN, time.perf_counter() + 5, None, None)
        time.sleep(0.4)  # the referee busy with this game

    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_driver.run, busy())
            await trio.sleep(0.05)
            os.write(busy_write, b"x")  # its step, 0.4 s long, starts now
            await trio.sleep(0.05)
            os.write(write, b"on time")
            answer = await _driver.run(reader(read, time.perf_counter() + 0.1, got))
    finally:
        os.close(busy_read)
        os.close(busy_write)
    assert answer == b"on time"
    assert got[0] is not None


async def test_the_slow_hook_is_called_once_at_its_mark(pipe: tuple[int, int]) -> None:
    read, write = pipe
    calls: list[float] = []
    start = time.perf_counter()

    def steps() -> Steps[float | None]:
        return (
            yield (read, IN, start + 5, start + 0.05, lambda: calls.append(time.perf_counter()))
        )

    threading.Timer(0.2, os.write, [write, b"x"]).start()
    assert await _driver.run(steps()) is not None
    assert len(calls) == 1
    assert calls[0] - start >= 0.05


async def test_a_cancel_closes_the_steps_before_the_game_goes_on(pipe: tuple[int, int]) -> None:
    closed = threading.Event()

    def steps() -> Steps[None]:
        try:
            yield (pipe[0], IN, time.perf_counter() + 60, None, None)
        finally:
            closed.set()

    start = time.perf_counter()
    with trio.move_on_after(0.1) as scope:
        await _driver.run(steps())
    assert scope.cancelled_caught
    assert closed.is_set()
    assert time.perf_counter() - start < 5


async def test_a_defect_in_the_steps_is_raised_in_the_game_and_others_go_on(
    pipe: tuple[int, int],
) -> None:
    read, write = pipe

    def broken() -> Steps[None]:
        yield (read, IN, time.perf_counter() + 5, None, None)
        raise ZeroDivisionError("a defect")

    def fine(fd: int) -> Steps[bytes]:
        yield (fd, IN, time.perf_counter() + 5, None, None)
        return os.read(fd, 10)

    other_read, other_write = os.pipe2(os.O_NONBLOCK)
    try:
        os.write(write, b"x")
        with pytest.raises(ZeroDivisionError, match="a defect"):
            await _driver.run(broken())
        os.write(other_write, b"ok")
        assert await _driver.run(fine(other_read)) == b"ok"
    finally:
        os.close(other_read)
        os.close(other_write)


async def test_a_raising_slow_hook_is_raised_in_the_game(pipe: tuple[int, int]) -> None:
    def hook() -> None:
        raise ValueError("hook")

    def steps() -> Steps[None]:
        now = time.perf_counter()
        yield (pipe[0], IN, now + 5, now + 0.01, hook)

    with pytest.raises(ValueError, match="hook"):
        await _driver.run(steps())


async def test_steps_that_wait_for_nothing_return_at_once() -> None:
    def steps() -> Steps[int]:
        return 7
        yield  # a generator all the same

    assert await _driver.run(steps()) == 7


async def test_a_defect_in_the_driver_fails_the_games_in_hand_and_it_starts_again(
    pipe: tuple[int, int],
) -> None:
    """A wait the driver cannot register (no such descriptor) breaks its loop: the game
    waiting meanwhile hears of it too, rather than hanging, and the next game is played
    by a new loop."""
    read, write = pipe
    errors: list[BaseException] = []

    async def game(steps: Steps[object]) -> None:
        try:
            await _driver.run(steps)
        except ValueError as err:
            errors.append(err)

    def bad() -> Steps[None]:
        yield (-5, IN, time.perf_counter() + 5, None, None)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(game, reader(read, time.perf_counter() + 30, []))
        await trio.sleep(0.05)
        nursery.start_soon(game, bad())
    assert len(errors) == 2
    os.write(write, b"again")
    assert await _driver.run(reader(read, time.perf_counter() + 5, [])) == b"again"


async def test_a_game_is_not_charged_the_time_another_games_step_took(
    pipe: tuple[int, int],
) -> None:
    """A game waits (0.3 s left); another game's step then holds the thread for 0.5 s,
    during which the first game's answer comes. It is handed over, not timed out, and
    with the time of the step taken off: before its deadline."""
    read, write = pipe
    busy_read, busy_write = os.pipe2(os.O_NONBLOCK)
    got: list[float | None] = []

    def busy() -> Steps[None]:
        yield (busy_read, IN, time.perf_counter() + 5, None, None)
        os.write(write, b"meanwhile")  # the first game's answer, in good time
        time.sleep(0.5)

    try:
        async with trio.open_nursery() as nursery:
            deadline = time.perf_counter() + 0.3
            nursery.start_soon(_driver.run, reader(read, deadline, got))
            await trio.sleep(0.05)
            nursery.start_soon(_driver.run, busy())
            await trio.sleep(0.05)
            os.write(busy_write, b"x")
    finally:
        os.close(busy_read)
        os.close(busy_write)
    seen = got[0]
    assert seen is not None, "timed out for the other game's step"
    assert seen < deadline
    assert time.perf_counter() > deadline + 0.1  # the step did hold the thread past it


async def test_a_wait_begun_in_the_same_round_as_a_long_step_is_credited_too() -> None:
    """Two games' answers are found by one poll. The first game's step begins a new wait
    (0.3 s); the second's step then holds the thread for 0.5 s, during which the first
    game's next answer comes. That wait began after the poll, in the same round: it is
    credited from its own start, and its answer is handed over before its deadline."""
    a_read, a_write = os.pipe2(os.O_NONBLOCK)
    a2_read, a2_write = os.pipe2(os.O_NONBLOCK)
    b_read, b_write = os.pipe2(os.O_NONBLOCK)
    got: list[float | None] = []
    deadlines: list[float] = []

    def first() -> Steps[None]:
        yield (a_read, IN, time.perf_counter() + 5, None, None)
        deadlines.append(time.perf_counter() + 0.3)
        got.append((yield (a2_read, IN, deadlines[0], None, None)))

    def second() -> Steps[None]:
        yield (b_read, IN, time.perf_counter() + 5, None, None)
        os.write(a2_write, b"meanwhile")  # the first game's next answer, in good time
        time.sleep(0.5)

    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_driver.run, first())
            await trio.sleep(0.05)
            nursery.start_soon(_driver.run, second())
            await trio.sleep(0.05)
            os.write(b_write, b"x")
            os.write(a_write, b"x")  # both found by one poll, the first game's first
    finally:
        for fd in (a_read, a_write, a2_read, a2_write, b_read, b_write):
            os.close(fd)
    seen = got[0]
    assert seen is not None, "timed out for the other game's step"
    assert seen < deadlines[0]


def _busy(seconds: float) -> None:
    """Hold the thread (a step slow to decode, on a busy machine)."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def test_a_game_posted_while_the_last_one_ends_in_a_busy_round_is_played(
    pipe: tuple[int, int],
) -> None:
    """Issue 39, the lost wake-up: a game whose two steps each take 3 ms (more than the
    driver's busy mark) ends in one of the busy rounds after a poll; its result's
    delivery posts the next game at once (as a league's task does). The next busy
    round's poll finds the wake pipe readable: the post must not be drained there and
    never taken, which left the thread in poll(None) with the game in its inbox."""
    read, write = pipe
    os.write(write, b"x")  # the first game's wait is over as soon as it begins
    driver = _driver.Driver()
    second_ran = threading.Event()
    delivered: list[object] = []

    def first() -> Steps[str]:
        _busy(0.003)
        yield (read, IN, time.perf_counter() + 5, None, None)
        _busy(0.003)
        return "first"

    def second() -> Steps[str]:
        return "second"
        yield  # a generator all the same

    def deliver_second(result: object) -> None:
        delivered.append(result)
        second_ran.set()

    def deliver_first(result: object) -> None:
        delivered.append(result)
        driver.start(_driver.Play(second(), deliver_second))  # from inside the callback

    try:
        driver.start(_driver.Play(first(), deliver_first))
        # Fails by its own timeout, never hangs the suite.
        assert second_ran.wait(timeout=10), "the second game was never taken on"
    finally:
        if not second_ran.is_set():  # let the stuck thread go
            driver.cancel(_driver.Play(second(), lambda _: None))
    assert [getattr(r, "value", r) for r in delivered] == ["first", "second"]


async def test_a_game_the_driver_never_takes_on_fails_as_the_referees_error(
    pipe: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 39, the watchdog: a game lost by the driver (its post never taken, as the
    lost wake-up did) fails with a RefereeError naming the game's state, rather than
    holding its task up for ever; the next game plays as usual."""
    driver = _driver._driver()
    monkeypatch.setattr(driver, "start", lambda play: None)  # the post is lost
    begun = time.perf_counter()
    with trio.fail_after(20), pytest.raises(RefereeError) as caught:
        await _driver.run(
            reader(pipe[0], time.perf_counter() + 0.1, []),
            stall_s=0.3,
            state=lambda: "g7 was at the act of seat 1",
        )
    assert time.perf_counter() - begun >= 0.3
    message = str(caught.value)
    assert "no progress" in message
    assert "g7 was at the act of seat 1" in message
    assert "never took the game on" in message
    monkeypatch.undo()
    os.write(pipe[1], b"next")
    assert await _driver.run(reader(pipe[0], time.perf_counter() + 5, []), stall_s=5) == b"next"


async def test_a_wedged_driver_is_given_up_and_later_games_get_a_new_one(
    pipe: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A driver that takes neither the game nor the watchdog's cancel (its thread
    wedged): the game still fails after HANDBACK_S, and the next game is played by a
    new driver."""
    monkeypatch.setattr(_driver, "HANDBACK_S", 0.2)
    wedged = _driver._driver()
    monkeypatch.setattr(wedged, "start", lambda play: None)
    monkeypatch.setattr(wedged, "cancel", lambda play: None)
    with trio.fail_after(20), pytest.raises(RefereeError, match="did not let the game go"):
        await _driver.run(reader(pipe[0], time.perf_counter() + 0.1, []), stall_s=0.2)
    assert _driver._driver() is not wedged
    os.write(pipe[1], b"next")
    assert await _driver.run(reader(pipe[0], time.perf_counter() + 5, []), stall_s=5) == b"next"


async def test_one_watchdog_serves_games_of_any_limit_at_once() -> None:
    """The watchdog is one task for every game of the run: a game with a short limit,
    posted while it sleeps until a long one's, is called stalled at its own limit (its
    wait of 20 s never ends), and the long one, its wait over, plays on to its end."""
    (slow_read, slow_write), (stuck_read, stuck_write) = os.pipe2(0), os.pipe2(0)
    try:
        async with trio.open_nursery() as nursery:
            got: list[bytes | None] = []

            async def slow() -> None:
                got.append(
                    await _driver.run(reader(slow_read, time.perf_counter() + 20, []), stall_s=30)
                )

            nursery.start_soon(slow)
            await trio.sleep(0.05)  # the watchdog sleeps until the first game's limit
            with trio.fail_after(10), pytest.raises(RefereeError, match="no progress"):
                await _driver.run(
                    reader(stuck_read, time.perf_counter() + 20, []),
                    stall_s=0.3,
                    state=lambda: "the stuck game",
                )
            assert got == []  # still waiting, not called stalled with the other
            os.write(slow_write, b"late")
        assert got == [b"late"]
    finally:
        for fd in (slow_read, slow_write, stuck_read, stuck_write):
            os.close(fd)


async def test_a_game_that_keeps_stepping_is_never_called_stalled(pipe: tuple[int, int]) -> None:
    """The watchdog measures from the latest step, not from the game's start: twenty
    waits of 0.05 s each (1 s in all) under a limit of 0.9 s run to their end."""
    read, _ = pipe

    def steps() -> Steps[int]:
        for _ in range(20):
            seen = yield (read, IN, time.perf_counter() + 0.05, None, None)
            assert seen is None  # each wait ends at its deadline
        return 20

    begun = time.perf_counter()
    assert await _driver.run(steps(), stall_s=0.9) == 20
    assert time.perf_counter() - begun >= 1


@pytest.mark.parametrize("chains", [1, 2, 4])
async def test_thousands_of_short_games_posted_as_the_last_ends_all_run(chains: int) -> None:
    """Issue 39's stress at the driver itself: `chains` tasks play 1,200 tiny games in
    all, each game posted the moment the one before it in its chain is handed back (as
    a league's task does). Every other game's two steps take 1.2 ms each, so that the
    busy rounds run, and the game ends in one of them. Every game must run: a lost
    wake-up (the driver before the fix lost one within the first 100 games) shows as
    this test's own timeout, never as a hang of the suite."""
    games = 1200 // chains
    pipes = [os.pipe2(os.O_NONBLOCK) for _ in range(chains)]
    for _, write in pipes:
        os.write(write, b"x")  # every wait is over at once
    played = [0] * chains

    def game(read: int, i: int) -> Steps[int]:
        _busy((i % 2) * 0.0012)
        yield (read, IN, time.perf_counter() + 5, None, None)
        _busy((i % 2) * 0.0012)
        return i

    async def chain(c: int) -> None:
        for i in range(games):
            assert await _driver.run(game(pipes[c][0], i)) == i
            played[c] += 1

    try:
        with trio.move_on_after(30):
            async with trio.open_nursery() as nursery:
                for c in range(chains):
                    nursery.start_soon(chain, c)
    finally:
        for pair in pipes:
            for fd in pair:
                os.close(fd)
    assert played == [games] * chains, f"{played}: a game was never taken on (a lost wake-up)"
