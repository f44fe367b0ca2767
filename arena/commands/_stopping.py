"""Runs that play games (a league, an SPRT, a match, a bot's check) stopped by Ctrl-C
or SIGTERM, alike and cleanly.

`run_stoppable` runs a trio function; SIGTERM stops it as promptly as Ctrl-C (the
cancellation reaches every game, every bot process is killed on the way out). Either
way it says what is kept (and, for a league or an SPRT, that the same command
resumes), and exits 130 (Ctrl-C) or 143 (SIGTERM), as shells report those signals.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Awaitable, Callable
from typing import TypeVar

import click
import trio

T = TypeVar("T")


class _Terminated(Exception):
    """SIGTERM arrived: the run stops as on Ctrl-C."""


async def _until_terminated(run: Callable[[], Awaitable[T]]) -> T:
    with trio.open_signal_receiver(signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:

            async def watch() -> None:
                async for _ in signals:
                    raise _Terminated

            nursery.start_soon(watch)
            result = await run()
            nursery.cancel_scope.cancel()
    return result


def run_stoppable(
    run: Callable[[], Awaitable[T]], stored: Callable[[], str], *, resumable: bool = True
) -> T:
    """`trio.run(run)`; on Ctrl-C or SIGTERM print "interrupted"/"terminated", then
    `stored()` (what is kept, where; it may print more first), and that the same
    command resumes (if `resumable`); exit 130 or 143."""
    try:
        return trio.run(_until_terminated, run)
    except (KeyboardInterrupt, _Terminated, BaseExceptionGroup) as err:
        stops = (KeyboardInterrupt, _Terminated)
        if isinstance(err, BaseExceptionGroup) and not err.subgroup(stops):
            raise
        terminated = isinstance(err, _Terminated) or (
            isinstance(err, BaseExceptionGroup) and err.subgroup(_Terminated) is not None
        )
        kept = stored()
        resume = "; run the same command to resume" if resumable else ""
        click.echo(f"\n{'terminated' if terminated else 'interrupted'}{kept}{resume}", err=True)
        sys.exit(143 if terminated else 130)
