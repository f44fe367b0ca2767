"""How a league's games get played: game runners.

`run_league` keeps the schedule and the store; a *game runner* plays the games. It is
opened with the league's `Setup` (the bots, how to run them, the rules) and gives a
list of players: each plays one game at a time (`Play` in, `Played` out), and the
league keeps every player busy with the next game of the schedule. A new way to play
games (several per process, a cluster) is one more class here; nothing else changes.

- `LocalRunner`: one player, in this process.
- `WorkerPool`: worker processes (`python -m arena.worker`), so that the refereeing
  runs on every core; each plays several games at once when asked to (a player per
  game slot).

Tests inject a runner of their own that returns scripted results.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Protocol

import trio

from arena.bots import BotSpec
from arena.errors import ArenaError
from arena.messages import Failed, FromWorker, Play, Played, Reader, Setup, encode
from arena.referee import Settings, Wrap
from arena.worker import open_games

Player = Callable[[Play], Awaitable[Played]]
"""Plays one game and hands back its result."""


class GameRunner(Protocol):
    """Something that plays a league's games (see the module docstring)."""

    def players(self, setup: Setup) -> contextlib.AbstractAsyncContextManager[list[Player]]:
        """Ready players for `setup`; on the way out everything they started is gone
        (also when the block is cancelled: games in progress are abandoned)."""
        ...

    async def build_bots(
        self, specs: Sequence[BotSpec], settings: Settings
    ) -> Callable[[BotSpec], None] | None:
        """Build `specs` where the games run and return a check that raises BotError
        for a bot whose build failed there (`arena.cluster`); or None: the games run
        where the caller is, which builds them itself."""
        ...


def spread(concurrency: int, todo: int) -> tuple[int, int]:
    """(worker processes, games each plays at once) for `concurrency` games at once of
    `todo` games here: a worker a core at most, the games shared out among them."""
    workers = max(1, min(concurrency, os.cpu_count() or 1, todo))
    return workers, -(-min(concurrency, max(1, todo)) // workers)


def runner_for(
    concurrency: int, todo: int, *, pin: bool = False, wrap: Wrap | None = None
) -> GameRunner:
    """The runner of `concurrency` games at once (of `todo`) on this machine: in this
    process at 1 (its bots run under `wrap`, if given, not the setup's sandbox), else
    worker processes as `spread` says (each pinned to a CPU with `pin`). A league, an
    SPRT, a ladder and a match choose theirs here; a cluster's
    (`arena.cluster.DaskRunner`) is opened by the command that asks for it."""
    if concurrency <= 1:
        return LocalRunner(wrap)
    workers, games = spread(concurrency, todo)
    return WorkerPool(workers, games, pin=pin)


class _BuildsHere:
    """Bots built by the caller, where the games run (this machine)."""

    async def build_bots(
        self, specs: Sequence[BotSpec], settings: Settings
    ) -> Callable[[BotSpec], None] | None:
        return None


class LocalRunner(_BuildsHere):
    """Games in this process, one at a time, with the bodies of a worker process's
    (`arena.worker.Games`). `wrap`: run the bots under it rather than the sandbox the
    setup names (a wrap of the caller's own, which a worker process could not rebuild
    from a name)."""

    def __init__(self, wrap: Wrap | None = None) -> None:
        self.wrap = wrap

    @contextlib.asynccontextmanager
    async def players(self, setup: Setup) -> AsyncIterator[list[Player]]:
        async with open_games(setup, self.wrap) as games:
            yield [games.play]


class WorkerPool(_BuildsHere):
    """Games in `count` worker processes, `games` at a time each (they share the
    worker's bot processes, within `Setup.settings.max_processes`). With `pin`, worker i
    runs on the i-th CPU this process may use (in turn), and so do its bots."""

    def __init__(self, count: int, games: int = 1, *, pin: bool = False) -> None:
        self.count = count
        self.games = games
        self.pin = pin

    @contextlib.asynccontextmanager
    async def players(self, setup: Setup) -> AsyncIterator[list[Player]]:
        workers: list[WorkerProcess] = []
        finished = False
        async with trio.open_nursery() as nursery:
            try:
                cpus = sorted(os.sched_getaffinity(0))
                for i in range(self.count):
                    cpu = cpus[i % len(cpus)] if self.pin else None
                    workers.append(await WorkerProcess.start(setup, cpu))
                    nursery.start_soon(workers[-1].read_answers)
                # worker by worker in turn, so that fewer games than players still
                # spread over every worker
                yield [w.play for _ in range(self.games) for w in workers]
                finished = True
            finally:
                with trio.CancelScope(shield=True):
                    if not finished:  # all told at once, so that they stop together
                        for worker in workers:
                            worker.terminate()
                    async with trio.open_nursery() as closing:
                        for worker in workers:
                            closing.start_soon(worker.aclose)


_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class _Answer:
    """Where the answer to one game sent to a worker arrives."""

    def __init__(self) -> None:
        self.done = trio.Event()
        self.played: Played | None = None
        self.error: ArenaError | None = None


class WorkerLost(ArenaError):
    """A worker process ended (killed, or it died) with games in flight: the machine's
    failure, not a bot's (`arena.cluster` plays their games again)."""


def _ignore_interrupt() -> None:
    """In a worker between fork and exec: Ctrl-C (SIGINT, at the terminal of the league)
    is ignored until the worker takes it itself (`arena.worker`), once its imports are
    done: one that came while it imported printed a KeyboardInterrupt traceback onto the
    terminal (the league stops its workers itself)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class WorkerProcess:
    """The one client of a worker process (`python -m arena.worker`): games go in as
    they are given, results come back as they finish and go to whoever waits for that
    game id. A `WorkerPool` holds some; so does each Dask worker of a cluster
    (`arena.cluster._tasks`). `read_answers` must run while games are played."""

    def __init__(self, process: trio.Process) -> None:
        self._process = process
        assert process.stdin is not None
        assert process.stdout is not None
        self._stdin = process.stdin
        self._stdout = process.stdout
        self._reader = Reader(FromWorker, "a worker process")
        self._sending = trio.Lock()
        self._waiting: dict[str, _Answer] = {}
        self._failure: ArenaError | None = None

    @classmethod
    async def start(
        cls, setup: Setup, cpu: int | None = None, *, own_session: bool = False
    ) -> WorkerProcess:
        """Start a worker (on `cpu` alone, if given; in a session of its own with
        `own_session`, so that a Ctrl-C at its parent's terminal does not reach it) and
        send it `setup`; if that fails, no process is left."""
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
        pin = [] if cpu is None else ["--cpu", str(cpu)]
        process = await trio.lowlevel.open_process(
            [sys.executable, "-m", "arena.worker", *pin],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            start_new_session=own_session,
            preexec_fn=_ignore_interrupt,
        )
        worker = cls(process)
        try:
            await worker._stdin.send_all(encode(setup))
        except BaseException:
            with trio.CancelScope(shield=True):
                worker.terminate()
                await worker.aclose()
            raise
        return worker

    async def play(self, game: Play) -> Played:
        """Play `game` in the worker; its answer must be about that game."""
        if self._failure is not None:
            raise self._failure
        if game.game_id in self._waiting:
            raise ArenaError(f"{game.game_id} is already in play in this worker")
        answer = self._waiting[game.game_id] = _Answer()
        try:
            async with self._sending:
                await self._stdin.send_all(encode(game))
        except (trio.BrokenResourceError, trio.ClosedResourceError) as err:
            self._waiting.pop(game.game_id, None)
            raise WorkerLost(f"lost a worker process during {game.game_id}: {err}") from err
        await answer.done.wait()
        if answer.error is not None:
            raise answer.error
        assert answer.played is not None
        return answer.played

    async def read_answers(self) -> None:
        """Hand each result to the game waiting for it, until the worker ends; then every
        game still waiting fails with the reason."""
        failure: ArenaError | None = None
        try:
            while failure is None:
                data = await self._stdout.receive_some(1 << 16)
                if not data:
                    playing = ", ".join(sorted(self._waiting)) or "no game"
                    failure = WorkerLost(f"a worker process died while playing {playing}")
                    break
                self._reader.feed(data)
                while failure is None and (reply := self._reader.next()) is not None:
                    if isinstance(reply, Failed):
                        failure = ArenaError(f"a worker process failed: {reply.message}")
                    elif not isinstance(reply, Played) or reply.game_id not in self._waiting:
                        failure = ArenaError(
                            f"a worker process answered with the result of {reply.game_id},"
                            " a game it was not playing"
                        )
                    else:
                        answer = self._waiting.pop(reply.game_id)
                        answer.played = reply
                        answer.done.set()
        except (trio.BrokenResourceError, trio.ClosedResourceError) as err:
            failure = WorkerLost(f"lost a worker process: {err}")
        except ArenaError as err:  # a message that is not one
            failure = err
        self._failure = failure
        for answer in self._waiting.values():
            answer.error = failure
            answer.done.set()
        self._waiting.clear()

    def alive(self) -> bool:
        """Whether the process runs and has answered nothing wrong."""
        return self._failure is None and self._process.poll() is None

    def terminate(self) -> None:
        """Tell the worker to stop now (it abandons its games and kills its bots)."""
        with contextlib.suppress(ProcessLookupError):
            self._process.send_signal(signal.SIGTERM)

    async def aclose(self) -> None:
        """Close the worker's input (it ends after its games) and wait for it to exit."""
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            await self._stdin.aclose()
        with trio.move_on_after(30):
            await self._process.wait()
            return
        self._process.kill()
        await self._process.wait()
