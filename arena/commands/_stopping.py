"""Runs that play games (a league, an SPRT, a match, a bot's check) stopped from
outside, alike and cleanly: by Ctrl-C, SIGTERM, a hang-up, or the end of the output.

`run_stoppable` runs a trio function. Any of these stops it as promptly as Ctrl-C (the
cancellation reaches every game, every bot process is killed on the way out):

- Ctrl-C (SIGINT): exit 130.
- SIGTERM: exit 143.
- SIGHUP, the terminal closing (an ssh session that drops): exit 129. Unless SIGHUP
  was ignored when arena started (`nohup arena league ...`): then it still is.
- The output gone: a write to stdout or stderr whose reader has closed the pipe
  (`arena league --progress jsonl | head`), exit 141; or whose terminal has hung up,
  exit 129. As a shell reports a program that the signal killed.

Either way it says what is kept (and, for a league or an SPRT, that the same command
resumes), where it still can.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Awaitable, Callable, Iterator
from types import FrameType
from typing import Any, TypeVar

import trio

from arena.commands._ended import output_lost, stop
from arena.errors import StoreError

T = TypeVar("T")


class _Signalled(Exception):
    """SIGINT, SIGTERM or SIGHUP arrived: the run stops."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _signals() -> list[int]:
    """SIGTERM, SIGINT, and SIGHUP unless this process was started with it ignored
    (nohup). SIGINT stops a run whoever started arena: a script's background job
    starts with it ignored, and then a SIGINT to its process group stopped the worker
    processes (which take it) but not arena, which failed with "a worker process died"
    (issue 44). Ctrl-C too is taken as a signal here, not left
    to trio's KeyboardInterrupt: that is raised wherever the code is not protected,
    trio's own `start_soon` among it, where it left a child task in its nursery but
    never scheduled, and the nursery waited for it for ever (`arena match` hung at
    Ctrl-C, about once in 100-300 stops under load)."""
    hangup = [] if signal.getsignal(signal.SIGHUP) == signal.SIG_IGN else [signal.SIGHUP]
    return [signal.SIGTERM, signal.SIGINT, *hangup]


_late: list[int] = []
"""Signals held by `_hold`."""


def _hold(signum: int, frame: FrameType | None) -> None:
    _late.append(signum)


async def _until_signalled(run: Callable[[], Awaitable[T]], taken: list[int]) -> T:
    # Once the receiver below closes, it puts back the handlers it found: these hold
    # the signals until arena has said its last words and exits. A second SIGTERM
    # while a stopped run said them killed arena before them (20-80 ms after the
    # first). One that came before the receiver opened stops the run at once.
    for signum in taken:
        signal.signal(signum, _hold)
    with trio.open_signal_receiver(*taken) as signals:
        if _late:
            raise _Signalled(_late[0])
        async with trio.open_nursery() as nursery:

            async def watch() -> None:
                async for signum in signals:
                    raise _Signalled(signum)

            nursery.start_soon(watch)
            result = await run()
            nursery.cancel_scope.cancel()
    return result


def _leaves(err: BaseException) -> Iterator[BaseException]:
    """`err`, or the exceptions inside it if it is a group (depth first)."""
    if isinstance(err, BaseExceptionGroup):
        for inner in err.exceptions:
            yield from _leaves(inner)
    else:
        yield err


def _store_error(err: BaseException) -> StoreError | None:
    """A store's error that ended the run as it was stopped (in a group with the stop):
    what a store removed while it was written says of where its games were saved, or
    why it could not store them. Told in place of what the store holds."""
    return next((e for e in _leaves(err) if isinstance(e, StoreError)), None)


def _stop_of(err: BaseException) -> int | None:
    """The signal that stopped the run, if `err` (or a group holding it) is a stop."""
    for leaf in _leaves(err):
        if isinstance(leaf, KeyboardInterrupt):
            return signal.SIGINT
        if isinstance(leaf, _Signalled):
            return leaf.signum
        if (lost := output_lost(leaf)) is not None:
            return lost
    return None


def run_stoppable(
    run: Callable[[], Awaitable[T]],
    stored: Callable[[], str],
    *,
    resumable: bool = True,
    moved: Callable[[], str | None] | None = None,
) -> T:
    """`trio.run(run)`; stopped (see the module docstring), print what stopped it, then
    `stored()` (what is kept, where; it may print more first), and that the same
    command resumes (if `resumable`), and exit with the signal's status.

    `moved` (a store's `OpenStore.moved`) is asked first: a store removed or replaced
    while the run wrote it has its games saved elsewhere, and its words say where,
    in place of `stored()`'s (which would count games in a file nobody can open). A
    store's error that ended the run as it was stopped (such words, said by the check
    after a game, which closed the store) is said likewise."""
    taken = _signals()
    before = {signum: signal.getsignal(signum) for signum in taken}
    _late.clear()
    try:
        result = trio.run(_until_signalled, run, taken)
    except BaseException as err:
        signum = _stop_of(err)
        if signum is None:
            _put_back(before)
            raise
        try:  # the signals held until the last words are said
            kept = ""
            # A store that cannot tell what it holds now leaves the stop a stop (exit 130...).
            with contextlib.suppress(OSError, StoreError):
                if moved is not None and (said := moved()) is not None:
                    stop(signum, f": {said}")
                if (failed := _store_error(err)) is not None:  # said, not lost in the stop
                    stop(signum, f": {failed}")
                kept = stored()
            resume = "; run the same command to resume" if resumable else ""
            stop(signum, kept + resume)
        finally:
            _put_back(before)
    _put_back(before)
    if _late:  # came as the run ended: taken as it would have been then
        signal.raise_signal(_late[0])
    return result


def _put_back(handlers: dict[int, Any]) -> None:
    for signum, handler in handlers.items():
        signal.signal(signum, handler if handler is not None else signal.SIG_DFL)
