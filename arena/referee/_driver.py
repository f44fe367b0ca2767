"""The two drivers of a game's steps (`arena.referee._connection.Steps`): one thread
that plays every game between bot processes in this process (`run`), and a trio task
for any other game (`run_trio`: in-memory bots, a test's fake clock).

The steps are the game: the drivers only wait for what they yield, call its slow
function at its time, and tell them when the wait ended (or that the deadline passed).

A game between bot processes is played with blocking waits on their pipes: a decision
then costs little more than the bare round trip, where trio's run loop, cancel scopes
and stream wrappers cost several times that. Each game is a generator of `Steps`
(`arena.referee._connection`): it yields what it waits for, a bot's output or room in
its input, by a deadline. This thread waits for all of them in one `poll` and takes
each game one step on when its wait is over. With several games at once, it finds an
answer waiting more often than not, where a thread per game would sleep and wake for
each answer and fight the others for the GIL (measured: 4 games in 4 threads cost 60%
more CPU per decision than one, where 2 games here cost less than one game).

trio keeps running meanwhile (stderr drains, start-ups, signals). A game hands every
fault back to its trio task (which kills the bot) and is started again where it stopped.
Cancelling a game waits until this thread has dropped it, so that nothing touches a
bot's pipes after the game has let go of them.

An answer's time is when `poll` found it, not when this thread came to it: a bot is
not charged for the other games' steps taken first.
"""

from __future__ import annotations

import contextlib
import math
import os
import select
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import outcome
import trio

from arena.errors import RefereeError
from arena.referee._connection import Steps, Wait
from arena.referee._ports import MemoryBuffer

STOPPED = object()
"""What a cancelled game's task is handed back."""

_IN = select.POLLIN | select.POLLPRI

_BUSY_S = 0.001
"""After steps that took longer than this since the last poll, what came meanwhile is
taken as seen when they began."""

T = TypeVar("T")


class Play:
    """One game in the driver: its steps, what it waits for, and how to hand back its
    end (from the driver's thread)."""

    __slots__ = ("deadline", "deliver", "done", "fd", "since", "slow", "slow_at", "steps")

    def __init__(self, steps: Steps[Any], deliver: Callable[[outcome.Outcome[Any]], None]):
        self.steps = steps
        self.deliver = deliver
        self.fd = -1
        self.deadline = math.inf
        self.slow_at: float | None = None
        self.slow: Callable[[], None] | None = None
        self.done = False
        """Handed back (only the driver's thread reads or writes this)."""
        self.since = time.perf_counter()
        """When the present wait began (at first, when the game was posted): the
        watchdog of `run` measures a game's progress from it."""


class Driver:
    """The thread and its inbox; the thread runs while it has games and ends when it
    has none (trio's thread cache makes a new start cheap)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._inbox: list[tuple[Play, bool]] = []
        """Games to start (False) or to cancel (True), for the thread to take."""
        self._running = False
        self._wake_read, self._wake_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)

    def start(self, play: Play) -> None:
        """Take `play` on; its end goes to `play.deliver`, once."""
        self._post(play, cancel=False)

    def cancel(self, play: Play) -> None:
        """Drop `play` (closing its steps) and hand back `STOPPED`, unless its end has
        been handed back already."""
        self._post(play, cancel=True)

    def _post(self, play: Play, *, cancel: bool) -> None:
        with self._lock:
            self._inbox.append((play, cancel))
            running, self._running = self._running, True
        if running:
            with contextlib.suppress(BlockingIOError):  # full: a wake-up is pending
                os.write(self._wake_write, b"x")
            return
        try:
            trio.lowlevel.start_thread_soon(self._run, _ignore, name="arena games")
        except BaseException:  # no thread (the machine is out of them): the next tries
            with self._lock:
                self._running = False
                with contextlib.suppress(ValueError):
                    self._inbox.remove((play, cancel))
            raise

    def _run(self) -> None:
        live: set[Play] = set()
        while True:
            try:
                self._loop(live)
                return
            except BaseException as exc:  # a defect here: every game in hand hears of it
                # Still marked as running meanwhile: a cancel posted now is taken by the
                # next loop (and finds its game handed back), not by a second thread.
                with self._lock:
                    inbox, self._inbox = self._inbox, []
                live.update(play for play, cancel in inbox if not cancel)
                for play in live:
                    if not play.done:
                        play.done = True
                        with contextlib.suppress(BaseException):
                            play.steps.close()
                        with contextlib.suppress(trio.RunFinishedError):
                            play.deliver(outcome.Error(exc))
                live.clear()

    def _loop(self, live: set[Play]) -> None:
        """Take the games on until there are none (`live`: those not handed back)."""
        clock = time.perf_counter
        poller = select.poll()
        poller.register(self._wake_read, _IN)
        waiting: dict[int, Play] = {}
        """The games by the descriptor they wait on."""

        def finish(play: Play, result: outcome.Outcome[Any]) -> None:
            play.done = True
            live.discard(play)
            play.deliver(result)

        def step(play: Play, seen: float | None) -> None:
            """Send `seen` into the game's steps and register what it waits for next."""
            try:
                target, events, play.deadline, play.slow_at, play.slow = play.steps.send(seen)
                fd = target if type(target) is int else _no_pipe(target)
            except StopIteration as end:
                finish(play, outcome.Value(end.value))
            except BaseException as exc:  # a defect: raised in the game's task
                finish(play, outcome.Error(exc))
            else:
                play.fd = fd
                play.since = clock()
                waiting[fd] = play
                poller.register(fd, events)

        def drop(play: Play) -> None:
            del waiting[play.fd]
            poller.unregister(play.fd)

        wake_read = self._wake_read
        woken = False
        """A poll found the wake pipe readable. It is drained here alone, right before
        the inbox is taken: a post appends to the inbox, then writes the pipe, so a post
        after the take leaves the pipe readable for the next poll. (Drained anywhere
        else, a post made meanwhile could be drained and never taken: the thread then
        waited in poll(None) with the game in its inbox, issue 39.)"""
        batch = clock()
        """When the latest poll returned."""
        while True:
            # The inbox read without the lock: a post also wakes the pipe.
            if woken or self._inbox or not waiting:
                if woken:
                    woken = False
                    with contextlib.suppress(BlockingIOError):
                        os.read(wake_read, 4096)
                with self._lock:
                    inbox, self._inbox = self._inbox, []
                    if not inbox and not waiting:
                        self._running = False
                        return
                live.update(play for play, cancel in inbox if not cancel)
                for play, cancel in inbox:
                    if not cancel:
                        step(play, None)
                    elif not play.done:
                        if waiting.get(play.fd) is play:
                            drop(play)
                        play.steps.close()
                        finish(play, outcome.Value(STOPPED))
                if not waiting:
                    continue
            now = clock()
            # Steps that took long since the last poll (an answer slow to decode): what
            # came meanwhile may have come at their start, and is taken as seen then (or
            # when its wait began, if later), before anything else. No deadline moves:
            # what has not come by then was not there. The steps so taken may take long
            # too: a few rounds more, at most, so that the deadlines below are judged
            # however busy the thread is.
            rounds = 0
            while now - batch > _BUSY_S and rounds < 4:
                rounds += 1
                early = batch
                batch = now
                for fd, _ in poller.poll(0):
                    if (mover := waiting.pop(fd, None)) is not None:
                        poller.unregister(fd)
                        step(mover, max(mover.since, early))
                    elif fd == wake_read:
                        woken = True  # left readable: the poll below returns at once
                now = clock()
            # The slow marks that have passed; the poll waits until the nearest mark or
            # deadline (not at all if one has passed).
            wake = due = math.inf
            failed: list[tuple[Play, BaseException]] = []
            for play in waiting.values():
                if play.deadline < due:
                    due = play.deadline
                if (slow_at := play.slow_at) is None:
                    continue
                if now < slow_at:
                    if slow_at < wake:
                        wake = slow_at
                    continue
                play.slow_at = None
                assert play.slow is not None
                try:
                    play.slow()
                except BaseException as exc:  # a defect: raised in the game's task
                    failed.append((play, exc))
            if failed:
                for play, error in failed:
                    drop(play)
                    play.steps.close()
                    finish(play, outcome.Error(error))
                continue
            if due < wake:
                wake = due
            ready = poller.poll(
                None if wake == math.inf else math.ceil(max(0.0, wake - now) * 1000)
            )
            seen = batch = clock()
            # What has come is taken before any deadline is judged, as one exchange alone
            # does; its time is when this poll found it.
            for fd, _ in ready:
                if (mover := waiting.pop(fd, None)) is not None:
                    poller.unregister(fd)
                    step(mover, seen)
                elif fd == wake_read:
                    woken = True
            if seen >= due:
                for play in [p for p in waiting.values() if seen >= p.deadline]:
                    drop(play)
                    step(play, None)


STALL_MARGIN_S = 30.0
"""How much longer than its longest possible wait a game may go without a step before
the watchdog of `run` calls it stalled (a busy machine delays the thread, never by
this much)."""

HANDBACK_S = 5.0
"""How long the watchdog waits for the driver to drop a stalled game; past it, the
driver's thread is taken as wedged, and later games get a new driver."""


@trio.lowlevel.enable_ki_protection
async def run(
    steps: Steps[T], *, stall_s: float | None = None, state: Callable[[], str] | None = None
) -> T:
    """Run `steps` in the driver's thread and return what they return (or raise what
    they raise); a cancel drops them (closing them) and waits until the driver has.

    With `stall_s` (the longest any of the steps' waits may last, plus
    `STALL_MARGIN_S`), the watchdog fails the game with `RefereeError` when the driver
    takes no step of it for that long, naming `state()` (what the game waits for): a
    game the driver lost, or a thread that no longer runs, must not hold a league up
    without a word (issue 39).

    The same as `trio.to_thread.run_sync` with a wake-up on cancel, without a thread or
    a task of its own. Protected from KeyboardInterrupt, as trio's own thread calls are:
    raised between the start and the wait, it left the driver to reschedule a task that
    had moved on (trio's internal error, or a hang). Ctrl-C reaches this task as a
    cancellation instead.
    """
    task = trio.lowlevel.current_task()
    token = trio.lowlevel.current_trio_token()
    resolved = False

    def resolve(result: outcome.Outcome[Any]) -> None:
        """Reschedule the task once (the driver, or the watchdog that gave up on it)."""
        nonlocal resolved
        if not resolved:
            resolved = True
            trio.lowlevel.reschedule(task, result)

    def deliver(result: outcome.Outcome[Any]) -> None:
        token.run_sync_soon(resolve, result)

    play = Play(steps, deliver)
    driver = _driver()

    def abort(_: object) -> trio.lowlevel.Abort:
        driver.cancel(play)  # it hands back STOPPED, or the end it had
        return trio.lowlevel.Abort.FAILED

    if stall_s is None:
        driver.start(play)
        result = await trio.lowlevel.wait_task_rescheduled(abort)
    else:
        watch = _Watch(play, driver, stall_s, state, resolve)
        watchdog = _watchdog()
        watchdog.add(watch)
        try:
            driver.start(play)
            result = await trio.lowlevel.wait_task_rescheduled(abort)
        finally:
            watchdog.watches.discard(watch)
        if watch.stalled is not None:
            raise watch.stalled
    if result is STOPPED:
        await trio.lowlevel.checkpoint()  # raises the Cancelled that stopped it
        raise AssertionError("the driver dropped the steps, but nothing cancelled them")
    return result  # type: ignore[no-any-return]


class _Watch:
    """A game in the driver, as the watchdog looks after it (see `run`)."""

    __slots__ = ("driver", "handback_at", "limit", "play", "resolve", "stalled", "state")

    def __init__(
        self,
        play: Play,
        driver: Driver,
        limit: float,
        state: Callable[[], str] | None,
        resolve: Callable[[outcome.Outcome[Any]], None],
    ) -> None:
        self.play = play
        self.driver = driver
        self.limit = limit
        self.state = state
        self.resolve = resolve
        self.stalled: RefereeError | None = None
        """The error the game fails with, once it is called stalled."""
        self.handback_at = math.inf
        """Once it is called stalled: when the driver is taken as wedged if it has not
        handed the game back by then (a `time.perf_counter` time)."""

    def look(self, now: float) -> float:
        """Judge the game at `now`; the time of the next look (`time.perf_counter`)."""
        play = self.play
        if self.stalled is None:
            # The driver's thread writes `since` at every step, for nothing.
            if (idle := now - play.since) < self.limit:
                return play.since + self.limit
            where = (
                "the referee's thread never took the game on"
                if play.fd == -1
                else f"the referee's thread last stepped it {idle:.1f} s ago"
            )
            what = ""
            if self.state is not None:
                try:
                    what = f"; {self.state()}"
                except Exception as exc:  # a defect: the stall is still told
                    what = f"; its state could not be told ({exc!r})"
            self.stalled = RefereeError(
                f"internal error: the game made no progress for {idle:.1f} s, longer than"
                f" its clocks allow ({self.limit:.1f} s){what}; {where}"
            )
            self.handback_at = now + HANDBACK_S
            self.driver.cancel(play)  # the driver hands back STOPPED (or the end) when it can
            return self.handback_at
        if now < self.handback_at:
            return self.handback_at
        self.stalled.args = (
            f"{self.stalled}; the thread did not let the game go in {HANDBACK_S:.0f} s either,"
            " so later games get a new one",
        )
        _abandon(self.driver)
        self.resolve(outcome.Value(STOPPED))
        return math.inf


class _Watchdog:
    """The watchdog of a trio run: one task that looks after every game `run` plays
    with a `stall_s`, sleeping until the earliest time one of them could be stalled (a
    task and a nursery of its own for each game cost trio some 150 us a game)."""

    def __init__(self) -> None:
        self.watches: set[_Watch] = set()
        self._sleep = trio.CancelScope()
        """The task's present sleep, whose deadline `add` brings forward."""

    def add(self, watch: _Watch) -> None:
        self.watches.add(watch)
        # The first look is due `limit` from the game's post (perf_counter time), which
        # is now: trio's clock may be another (a test's), and only the sleep is in it.
        due = trio.current_time() + watch.limit
        if due < self._sleep.deadline:
            self._sleep.deadline = due

    async def run(self) -> None:
        while True:
            now = time.perf_counter()
            wake = math.inf
            for watch in list(self.watches):
                try:
                    due = watch.look(now)
                except Exception as exc:  # no thread to hand the cancel to: the game's to raise
                    self.watches.discard(watch)
                    watch.resolve(outcome.Error(exc))
                    continue
                if due == math.inf:
                    self.watches.discard(watch)
                wake = min(wake, due)
            deadline = trio.current_time() + (wake - time.perf_counter())
            with trio.CancelScope(deadline=deadline) as self._sleep:
                await trio.sleep_forever()


_WATCHDOG: trio.lowlevel.RunVar[_Watchdog] = trio.lowlevel.RunVar("arena_watchdog")


def _watchdog() -> _Watchdog:
    """The watchdog of this trio run, started when first needed."""
    try:
        return _WATCHDOG.get()
    except LookupError:
        watchdog = _Watchdog()
        _WATCHDOG.set(watchdog)
        trio.lowlevel.spawn_system_task(watchdog.run, name="arena watchdog")
        return watchdog


def _no_pipe(target: object) -> int:
    raise TypeError(f"the poll driver waits on pipes only, not on {target!r}")


async def run_trio(steps: Steps[T]) -> T:
    """Run `steps` in this trio task, with trio's waits and trio's clock (the steps must
    take their times from `trio.current_time`): for games that are not all between bot
    processes, or under a test's fake clock. The same steps as `run`'s, waited on alike:
    an answer found is taken before its deadline is judged, a slow function is called
    once at its time if the wait goes on, the time sent is when the wait ended."""
    await trio.lowlevel.checkpoint()  # a checkpoint, as any trio call, if nothing waits
    try:
        wait = steps.send(None)
        while True:
            wait = steps.send(await _wait(wait))
    except StopIteration as end:
        return end.value  # type: ignore[no-any-return]
    finally:
        steps.close()


async def _wait(wait: Wait) -> float | None:
    """The trio time `wait`'s target was found ready, or None at its deadline."""
    target, events, deadline, slow_at, slow = wait
    if slow_at is not None and slow_at < deadline:
        with trio.move_on_at(slow_at):
            await _ready(target, events)
            return trio.current_time()
        assert slow is not None
        slow()
    with trio.move_on_at(deadline):
        await _ready(target, events)
        return trio.current_time()
    return None


async def _ready(target: int | MemoryBuffer, events: int) -> None:
    if type(target) is not int:
        assert isinstance(target, MemoryBuffer)
        await target.wait(events)
    elif events & select.POLLOUT:
        await trio.lowlevel.wait_writable(target)
    else:
        await trio.lowlevel.wait_readable(target)


def _ignore(_: object) -> None:
    """The driver's thread returns nothing and raises nothing."""


_DRIVERS: dict[int, Driver] = {}


def _abandon(driver: Driver) -> None:
    """Give up on `driver` (its thread is wedged): the next game gets a new one."""
    if _DRIVERS.get(os.getpid()) is driver:
        del _DRIVERS[os.getpid()]


def _driver() -> Driver:
    """The one driver of this process, made when first needed (a forked child, which
    has no thread of its parent's, makes its own)."""
    pid = os.getpid()
    if (driver := _DRIVERS.get(pid)) is None:
        _DRIVERS.clear()
        driver = _DRIVERS[pid] = Driver()
    return driver
