"""Building a set of bots in a worker thread that a stop (Ctrl-C, SIGTERM, a hang-up)
cuts short: `run_builds`, for a league, an SPRT, a match and a check alike."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import trio

from arena.bots._manifest import BUILD_STOP, BotSpec, BuildsStopped, BuildStop

T = TypeVar("T")


async def run_builds(specs: Sequence[BotSpec], build_all: Callable[..., T], *args: Any) -> T:
    """`build_all(*args)`, which builds `specs`, in a worker thread. A stop (Ctrl-C,
    SIGTERM, a hang-up) kills the build in progress and starts no other, then waits
    for the thread: a sandboxed build gives the submission folder back to its owner on
    its way out. Run in the trio thread, SIGTERM and a hang-up waited for the build to
    end (up to its timeout, 10 minutes by default). With nothing to build it runs here:
    no thread (nor, under a test's virtual clock, its real time racing the test's)."""
    if all(spec.build is None for spec in specs):
        return build_all(*args)
    stop = BuildStop()
    done: list[T] = []

    async def stop_on_cancel() -> None:
        try:
            await trio.sleep_forever()
        finally:
            stop.stop()

    async def in_thread(nursery: trio.Nursery) -> None:
        try:
            done.append(await trio.to_thread.run_sync(build_all, *args))
        except BuildsStopped:  # by the cancellation that this raises
            await trio.lowlevel.checkpoint()
            raise
        nursery.cancel_scope.cancel()

    # The wait for the thread is a child task's: Ctrl-C's KeyboardInterrupt goes to the
    # main task, which a thread's wait does not let go (it waited for the build), and
    # which the nursery's wait does.
    reset = BUILD_STOP.set(stop)  # the tasks, and the thread, run in copies of this context
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(stop_on_cancel)
            nursery.start_soon(in_thread, nursery)
    finally:
        BUILD_STOP.reset(reset)
    return done[0]
