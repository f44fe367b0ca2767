"""A league worker: a process that plays the games it is sent with its own bot processes.

A league with a concurrency above 1 runs its games in worker processes, so that the
refereeing itself runs on every core; a worker plays every game it is sent at once
(the coordinator decides how many are in flight), its bots' processes shared among
them (`arena.referee.open_pools`, within the setup's `max_processes`). The coordinator (the
league) keeps the schedule and the store; a worker knows nothing of either. They talk
over the worker's stdin and stdout in the messages of `arena.messages`: a `Setup`,
then a `Play` per game, each answered when it ends by a `Played` with the same game id (the
replay comes packed for the store, so that the workers do that work in parallel), or
by a `Failed` when the worker cannot go on.

End of input (the coordinator closed it, or died), SIGTERM, SIGINT or SIGHUP (the
terminal of the league closing, unless SIGHUP was ignored when the league started, as
under `nohup`) end the worker: a game in progress is abandoned and every bot process it
started is killed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import sys
import time
from collections.abc import AsyncIterator

import trio

from arena.errors import ArenaError
from arena.messages import Failed, Play, Played, Reader, Setup, ToWorker, Warm, encode
from arena.referee import BotPool, Clocks, Wrap, open_pools, play_seated
from arena.rules import GameConfig
from arena.store import pack_replay


async def _messages(
    stream: trio.abc.ReceiveStream,
    send: trio.MemorySendChannel[ToWorker],
    scope: trio.CancelScope,
) -> None:
    """Pass on the coordinator's messages; at the end of its input, stop everything."""
    reader = Reader(ToWorker, "the coordinator")
    async with send:
        while data := await stream.receive_some(1 << 16):
            reader.feed(data)
            while (message := reader.next()) is not None:
                await send.send(message)
    scope.cancel()


async def serve(stdin: trio.abc.ReceiveStream, stdout: trio.abc.SendStream) -> None:
    """Play the games sent on `stdin` until it ends; results go to `stdout`."""
    send, receive = trio.open_memory_channel[ToWorker](1)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_messages, stdin, send, nursery.cancel_scope)
        try:
            setup = await receive.receive()
        except trio.EndOfChannel:  # the coordinator stopped before it sent one (Ctrl-C
            return  # as the workers started): nothing to play, nor a traceback to show
        if not isinstance(setup, Setup):
            raise ArenaError(f"a worker needs its setup first, not {type(setup).__name__}")
        sending = trio.Lock()

        async def play_and_answer(game: Play) -> None:
            played = await games.play(game)
            async with sending:
                await stdout.send_all(encode(played))

        async with open_games(setup) as games, trio.open_nursery() as playing:
            async for message in receive:
                if not isinstance(message, Play):
                    raise ArenaError(f"a worker plays games, not {type(message).__name__}")
                playing.start_soon(play_and_answer, message)
        nursery.cancel_scope.cancel()


class Games:
    """What plays a setup's games with its bots' processes (`arena.referee.open_pools`):
    the one body of a game, in a worker process and in a league's own process
    (`arena.runners.LocalRunner`)."""

    def __init__(self, pools: dict[str, BotPool], config: GameConfig, clocks: Clocks) -> None:
        self._pools = pools
        self._config = config
        self._clocks = clocks
        self._reported = {name: 0 for name in pools}
        """Each bot's processes started, as far as told in an answer."""

    async def play(self, game: Play) -> Played:
        """Play `game` with sessions from the pools; the result comes with its replay
        packed, the processes held warm after it and those started since the last
        answer."""
        started = time.time()
        result = await play_seated(
            [self._pools[name] for name in game.seats],
            self._config,
            game.seed,
            clocks=self._clocks,
            game_id=game.game_id,
            group=game.group,
            shown=game.shown,
        )
        finished = time.time()
        replay = pack_replay(result.log)
        warm = tuple(
            Warm(name, groups) for name, pool in self._pools.items() for groups in pool.warm()
        )
        new = {}
        for name, pool in self._pools.items():
            if pool.started > self._reported[name]:
                new[name] = pool.started - self._reported[name]
                self._reported[name] = pool.started
        result = dataclasses.replace(result, log=[])
        return Played(game.game_id, result, started, finished, replay, warm, new)


@contextlib.asynccontextmanager
async def open_games(setup: Setup, wrap: Wrap | None = None) -> AsyncIterator[Games]:
    """`Games` for `setup`, its bots run in the sandbox its settings name (or under
    `wrap`, the caller's own in this process); on the way out every bot process is
    closed."""
    async with open_pools(list(setup.bots), setup.settings, wrap=wrap) as pools:
        yield Games(pools, setup.config, setup.settings.clocks)


async def _main() -> None:
    stdin = trio.lowlevel.FdStream(sys.stdin.fileno())
    stdout = trio.lowlevel.FdStream(sys.stdout.fileno())
    ignored = signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
    hangup = () if ignored else (signal.SIGHUP,)
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT, *hangup) as signals:
        async with trio.open_nursery() as nursery:

            async def stop_on_signal() -> None:
                async for _ in signals:
                    nursery.cancel_scope.cancel()
                    return

            nursery.start_soon(stop_on_signal)
            try:
                with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                    await serve(stdin, stdout)
            except* ArenaError as group:
                first: BaseException = group
                while isinstance(first, BaseExceptionGroup):
                    first = first.exceptions[0]
                with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                    await stdout.send_all(encode(Failed(str(first))))
            nursery.cancel_scope.cancel()


def main() -> None:
    """Entry point of `python -m arena.worker [--cpu N]`: with --cpu, the worker runs on
    CPU N alone, before any thread starts, so that its threads and every bot process it
    starts inherit that (`LeagueConfig.pin_cpus`)."""
    args = sys.argv[1:]
    if args[:1] == ["--cpu"] and len(args) == 2 and args[1].isdigit():
        os.sched_setaffinity(0, {int(args[1])})
    elif args:
        sys.exit(f"usage: python -m arena.worker [--cpu N], not {' '.join(args)!r}")
    trio.run(_main)


if __name__ == "__main__":
    main()
