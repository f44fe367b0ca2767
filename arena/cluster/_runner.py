"""The coordinator's side: `DaskRunner`, a game runner whose games are Dask tasks.

Dask's client runs its own event loop in a thread of its own; this module calls its
blocking methods from trio in worker threads (`trio.to_thread`), so that the league's
trio loop keeps recording results while games are in flight.

A task costs Dask several milliseconds of CPU (scheduler, worker and client together:
about 13 ms on the 2-core machine of `bench/cluster.py`), as much as a quick game of
instant bots. So a task carries one game, or, when games are quick, a few games of the
schedule played one after the other (a *batch*): as many as fill about
`BATCH_SECONDS`, at most `MAX_BATCH`, judged from the games' own durations as they come
back. A game of bots that think takes long enough to be a task on its own. Either way
each game's result is recorded once, when its task's results arrive.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import trio

from arena import __version__
from arena.bots import BotSpec, BuildSettings, real_path
from arena.cluster._address import DEFAULT_PORT
from arena.cluster._bundles import WorkerBuild, pack
from arena.cluster._tasks import (
    BuildReport,
    ClusterError,
    RunInfo,
    TaskAbandoned,
    WorkerProcessDied,
    about_worker,
    close_run,
    gate,
    plain,
    play_games,
    prepare_bot,
    worker_verdict,
)
from arena.errors import BotError, BuildError
from arena.messages import FromWorker, Play, Played, Reader, Setup, encode

if TYPE_CHECKING:
    from distributed import Client, Future

    from arena.referee import Settings
    from arena.runners import Player

WAIT_FOR_WORKERS = 60.0
"""Seconds to wait for a first worker at a scheduler that has none."""

PROBE_SECONDS = 60.0
"""Seconds a first small task may take to come back before the cluster is declared
unable to run arena's tasks (the scheduler or the workers lack arena)."""

MAX_BATCH = 8
"""The most games one task plays."""

BATCH_SECONDS = 0.25
"""How long a task's games should take together, when games are quick."""

LOST_RETRIES = 3
"""How often a task whose arena worker process died (`WorkerProcessDied`) is sent
again, as Dask sends again a task whose worker died (its allowed failures, 3)."""

LINGER = 0.005
"""Seconds a game waits for others to fill its batch before it is sent with fewer."""

GameTask = Callable[[RunInfo, dict[str, bytes], list[bytes]], list[bytes]]
"""What runs games on a worker: the run's info, the bundles of the bots at the tables,
the `Play` frames in; the `Played` frames out (`arena.cluster._tasks.play_games`)."""


class DaskRunner:
    """Games as tasks on a Dask cluster: `concurrency` players (games taken from the
    schedule at once), whose games go out in at most `tasks` tasks at a time; the bots
    are built on the workers (`build_bots`) before the league's schedule is made. Open
    one with `DaskRunner.open(address)`."""

    def __init__(
        self,
        client: Client,
        address: str,
        concurrency: int,
        say: Callable[[str], None],
        task: GameTask = play_games,
        tasks: int | None = None,
        answer: float = 60.0,
    ) -> None:
        self.client = client
        self.address = address
        self.concurrency = concurrency
        """Games in flight at most (the players)."""
        self.tasks = min(tasks or concurrency, concurrency)
        """Game tasks in flight at most."""
        self._say = say
        self._task = task
        self._bundles: dict[str, Future[bytes]] = {}
        self._packed: dict[str, BotSpec] = {}
        self._digests: dict[str, str] = {}
        self._settings = WorkerBuild(BuildSettings(), "none")
        self.answer = answer
        """Seconds the scheduler, or a worker running a game, may take to answer before
        it is taken as frozen (twice Dask's connection timeout, as for the handshake)."""
        self._removed: set[str] = set()
        self.silent = False
        """The scheduler did not answer (`_silent_scheduler`): nothing more is asked of
        it on the way out, where each request would wait out its time limit."""

    def _watch_joining(self, token: trio.lowlevel.TrioToken) -> None:
        """Name each worker that joins the cluster and cannot run this run's games (it
        runs another arena, or cannot sandbox bots): the `gate` resource keeps every game
        away from it, and this says so, with why."""

        def say(text: str) -> None:
            with contextlib.suppress(Exception):  # (the run is over)
                trio.from_thread.run_sync(self._say, text, trio_token=token)

        def check(address: str) -> None:
            why = _unfit(self.client, [address], self._settings.sandbox).get(address)
            if why is not None:
                say(f"cluster: worker {address} joined and is given no game: {why}")

        def joined(event: tuple[float, Any]) -> None:
            message = event[1]
            if isinstance(message, dict) and message.get("action") == "add-worker":
                address = str(message.get("worker"))
                threading.Thread(target=check, args=(address,), daemon=True).start()

        with contextlib.suppress(Exception):
            self.client.subscribe_topic("all", joined)

    @classmethod
    @contextlib.asynccontextmanager
    async def open(
        cls,
        address: str,
        *,
        concurrency: int | None = None,
        say: Callable[[str], None] = lambda text: None,
        task: GameTask = play_games,
    ) -> AsyncIterator[DaskRunner]:
        """Connect to the scheduler at `address`, wait for a worker, check that the
        cluster runs arena's tasks. Raises ClusterError, saying why, if the cluster
        cannot be used.

        `concurrency` caps the games in flight. None means as many games played at once
        as the workers have threads, and as many tasks again waiting for a free thread
        (a worker then starts its next game as soon as one ends, instead of idling for
        the round trip of a result to the coordinator and a new task back), each task
        of up to `MAX_BATCH` games when games are quick."""
        client = await trio.to_thread.run_sync(_connect, address, abandon_on_cancel=True)
        runner: DaskRunner | None = None
        try:
            threads = await trio.to_thread.run_sync(
                _check_cluster, client, address, say, abandon_on_cancel=True
            )
            total = sum(threads.values())
            tasks = min(concurrency or 2 * total, 2 * total)
            count = concurrency or tasks * MAX_BATCH
            say(
                f"cluster {address}: {len(threads)} worker(s), {total} thread(s);"
                f" {min(count, total)} game(s) at once, up to {count} in flight"
            )
            answer = await trio.to_thread.run_sync(_answer_seconds)
            runner = cls(client, address, count, say, task, tasks, answer)
            runner._watch_joining(trio.lowlevel.current_trio_token())
            yield runner
        finally:
            if runner is None or not runner.silent:
                with trio.CancelScope(shield=True), trio.move_on_after(15):
                    await trio.to_thread.run_sync(_close, client, abandon_on_cancel=True)

    # ------------------------------------------------------------------ bots

    async def build_bots(
        self, specs: Sequence[BotSpec], config: Settings
    ) -> Callable[[BotSpec], None]:
        """Ship every submission to the cluster (packed once, keyed by its digest) and
        build it on every worker. Returns the check `arena.league.prepare` makes of each
        bot: a bot whose build failed on any worker raises BuildError naming the worker
        and quoting its output. A worker that cannot run bots at all, or lacks a program
        that other workers have, raises ClusterError."""
        run, build = config.run, config.build
        self._settings = WorkerBuild(
            build,
            sandbox=run.sandbox,
            log_dir=real_path(run.log_dir) if run.log_dir is not None else None,
            log_kb=run.limits.stderr_kb,
        )
        packed = await trio.to_thread.run_sync(_pack_all, specs, abandon_on_cancel=True)
        workers, unfit = await trio.to_thread.run_sync(
            _fit_workers, self.client, run.sandbox, abandon_on_cancel=True
        )
        for worker, why in sorted(unfit.items()):
            self._say(f"cluster: worker {worker} is given no game: {why}")
        if not workers:
            raise ClusterError(
                f"no worker of the cluster at {self.address} can run the bots: "
                + "; ".join(f"worker {w}: {why}" for w, why in sorted(unfit.items()))
            )
        new = {d: data for d, (_, data) in packed.items() if d not in self._bundles}
        if new:
            futures = await trio.to_thread.run_sync(
                _scatter, self.client, list(new.values()), abandon_on_cancel=True
            )
            self._bundles.update(zip(new, futures, strict=True))
        self._packed.update({d: spec for d, (spec, _) in packed.items()})
        self._digests.update({spec.name: d for d, (spec, _) in packed.items()})
        builds = sum(spec.build is not None for spec, _ in packed.values())
        self._say(
            f"shipping {len(packed)} bot(s) to {len(workers)} worker(s)"
            + (f"; building {builds} there" if builds else "")
        )
        token = secrets.token_hex(6)
        futures = [
            self.client.submit(
                prepare_bot,
                spec,
                digest,
                self._bundles[digest],
                self._settings,
                key=f"arena-build-{token}-{digest}-{i}",
                # On this worker alone: with other workers allowed, Dask's work stealing
                # ignores every restriction, and gave a busy worker's build to an idle
                # one that cannot run bots (its report stopped the league; asked for a
                # resource it lacks, a worker process crashed). A worker that leaves does
                # not hold its build for ever: `_gather` drops it.
                workers=[worker],
                resources={gate(run.sandbox): 1},
                priority=10,  # before the games waiting (a ladder builds as it plays)
                pure=False,
            )
            for digest, (spec, _) in packed.items()
            for i, worker in enumerate(workers)
        ]
        pinned = [worker for _ in packed for worker in workers]
        try:
            reports: list[BuildReport] = await trio.to_thread.run_sync(
                _gather, self.client, futures, pinned, abandon_on_cancel=True
            )
        finally:
            with trio.CancelScope(shield=True), trio.move_on_after(10):
                await trio.to_thread.run_sync(
                    _release, self.client, futures, abandon_on_cancel=True
                )
        failed = _judge(reports)
        return lambda spec: _check_built(spec, failed)

    # ------------------------------------------------------------------ games

    @contextlib.asynccontextmanager
    async def players(self, setup: Setup) -> AsyncIterator[list[Player]]:
        """`concurrency` players, whose games go out as tasks (see the module docstring);
        on the way out (also when cancelled) the tasks still in flight are cancelled and
        the run's worker processes closed on every worker."""
        unbuilt = [
            s.name for s in setup.bots if s.folder is not None and s.name not in self._digests
        ]
        if unbuilt:
            raise ClusterError(
                f"not shipped to the cluster (call build_bots): {', '.join(unbuilt)}"
            )
        token = secrets.token_hex(6)
        digests = {s.name: self._digests[s.name] for s in setup.bots if s.folder is not None}
        info = RunInfo(token, encode(setup), digests, self._settings)
        (info_future,) = await trio.to_thread.run_sync(
            _scatter, self.client, [info], abandon_on_cancel=True
        )
        most = max(1, min(MAX_BATCH, self.concurrency // self.tasks))
        slots, waiting = trio.Semaphore(self.tasks), trio.CapacityLimiter(self.tasks)
        run = _Run(token, info, info_future, slots, waiting, most, _game_seconds(setup))

        async def play(game: Play) -> Played:
            return await self._play(run, game)

        finished = False
        try:
            yield [play] * self.concurrency
            finished = True
        finally:
            if not self.silent:
                with trio.CancelScope(shield=True), trio.move_on_after(15):
                    await trio.to_thread.run_sync(
                        self._end_run, run, not finished, abandon_on_cancel=True
                    )

    async def _play(self, run: _Run, game: Play) -> Played:
        """Play `game`: wait briefly for others to fill a batch, then send a batch with
        this game in it as soon as a task may go out (unless another game sent this one
        meanwhile), and wait for this game's result."""
        waiter = _Waiter(game)
        run.pending.append(waiter)
        run.arrived.set()
        run.arrived = trio.Event()
        try:
            deadline = trio.current_time() + LINGER
            while len(run.pending) < run.batch and not waiter.taken:
                with trio.move_on_at(deadline) as lingered:
                    await run.arrived.wait()
                if lingered.cancelled_caught:
                    break
            if not waiter.taken:
                async with run.slots:
                    if not waiter.taken:
                        run.pending.remove(waiter)
                        batch = [waiter, *run.pending[: run.batch - 1]]
                        del run.pending[: run.batch - 1]
                        for member in batch:
                            member.taken = True
                        await self._send(run, batch)
            await waiter.done.wait()
        finally:
            if not waiter.taken:
                run.pending.remove(waiter)
        if waiter.error is not None:
            raise waiter.error
        assert waiter.played is not None
        return waiter.played

    async def _send(self, run: _Run, batch: list[_Waiter]) -> None:
        """Play `batch` as one task and hand each game its result (or the error); a task
        that loses the data it needs (every worker holding it died) is sent again once
        the data is shipped again."""
        error: ClusterError | None = ClusterError("the game was abandoned")
        try:
            played = await self._task_results(run, [w.game for w in batch])
            for member, result in zip(batch, played, strict=True):
                member.played = result
            run.learn(played)
            error = None
        except ClusterError as err:
            error = err
        finally:  # (cancelled: the others are told, as they may not be cancelled too)
            for member in batch:
                member.error = error
                member.done.set()

    async def _task_results(self, run: _Run, games: list[Play]) -> list[Played]:
        from distributed import KilledWorker
        from distributed.client import FutureCancelledError

        frames = [encode(game) for game in games]
        names = {n for game in games for n in game.seats if n in run.info.digests}
        first = games[0].game_id
        for attempt in itertools.count():
            key = f"arena-games-{run.token}-{first}-{len(games)}-{attempt}"
            bundles = {run.info.digests[n]: self._bundles[run.info.digests[n]] for n in names}
            future = self.client.submit(
                self._task, run.info_future, bundles, frames, key=key, pure=False,
                resources={gate(run.info.build.sandbox): 1},
            )  # fmt: skip
            run.outstanding[key] = future
            try:
                data = await self._wait(run, future, key, first, len(games))
            except _Overdue as err:
                with contextlib.suppress(Exception):
                    await trio.to_thread.run_sync(
                        _release, self.client, [future], abandon_on_cancel=True
                    )
                if attempt >= LOST_RETRIES:
                    raise ClusterError(f"{err}; run the same command to resume") from None
                self._say(f"cluster: {err}: given up, played again")
                continue
            except KilledWorker as err:
                raise ClusterError(
                    f"game {first} was lost with every worker that ran it"
                    f" ({err.allowed_failures} died during it); run the same command to resume"
                ) from None
            except FutureCancelledError as err:
                if err.reason == "scheduler-connection-lost":
                    raise ClusterError(
                        f"lost the connection to the Dask scheduler at {self.address};"
                        " run the same command to resume"
                    ) from None
                if attempt >= 3:
                    raise ClusterError(
                        f"game {first}: its task was cancelled on the cluster ({err.reason})"
                    ) from None
                try:
                    lost = await trio.to_thread.run_sync(
                        self._reship, run, bundles, abandon_on_cancel=True
                    )
                except TimeoutError as err:  # scatter: "No valid workers found"
                    raise self._lost_workers(err) from None
                except Exception as err:
                    raise ClusterError(
                        f"game {first}: shipping its data again failed ({_one_line(err)});"
                        " run the same command to resume"
                    ) from None
                if lost:
                    self._say(f"cluster: data lost with its workers, shipped again: {lost}")
                continue
            except (WorkerProcessDied, TaskAbandoned) as err:
                # Its arena worker process died, or the worker stopped the task while this
                # coordinator still waits for it (Dask took it away, then gave it back)
                if attempt >= LOST_RETRIES:
                    raise ClusterError(
                        f"game {first} was lost {attempt + 1} times on the workers that"
                        f" played it ({err}); run the same command to resume"
                    ) from None
                self._say(f"cluster: {err}; its game(s) are played again")
                continue
            except ClusterError:
                raise
            except Exception as err:
                raise ClusterError(
                    f"game {first} failed on the cluster: {type(err).__name__}: {err}"
                ) from None
            finally:
                if key in run.outstanding and future.done():
                    del run.outstanding[key]
            if len(data) != len(games):
                raise ClusterError(f"a task of {len(games)} games answered {len(data)}")
            return [_played(frame, game.game_id) for frame, game in zip(data, games, strict=True)]
        raise AssertionError("unreachable")

    async def _wait(
        self, run: _Run, future: Future[list[bytes]], key: str, first: str, size: int
    ) -> list[bytes]:
        """The task's result. Each `answer` seconds without it, the scheduler and the
        worker running the task are asked to answer (`_check`): a frozen machine, or one
        whose connections stay open with nobody behind them, is not noticed by Dask for
        minutes, and a league waited for its games for ever, with no word."""
        on_worker: float | None = None
        while True:
            data = await trio.to_thread.run_sync(  # a thread per task: few hops
                _result, future, self.answer, abandon_on_cancel=True, limiter=run.waiting
            )
            if data is not None:
                return data
            worker, said = await trio.to_thread.run_sync(self._check, key, abandon_on_cancel=True)
            if said:
                self._say(said)
            if worker is None:
                on_worker = None  # queued, or sent again elsewhere
                continue
            now = trio.current_time()
            on_worker = now if on_worker is None else on_worker
            # its own games and a batch before them on that worker, and time to answer
            allowed = (size + run.most) * run.game_seconds + self.answer
            if now - on_worker > allowed:
                raise _Overdue(
                    f"game {first}: its task has been on worker {worker} for"
                    f" {now - on_worker:.0f} s, far past what the clocks allow"
                )

    def _check(self, key: str) -> tuple[str | None, str]:
        """Ask the scheduler where task `key` runs and that worker who it is, each with
        `answer` seconds to answer. Returns the worker running the task, if it answered
        (None if the task waits for a thread), and what to say. A worker that does not
        answer is taken out of the cluster, so that Dask plays its tasks again on the
        others, as for a worker that died. Raises ClusterError if the scheduler does not
        answer or has no worker left."""
        client, seconds = self.client, self.answer
        scheduler = client.scheduler
        assert scheduler is not None
        try:
            processing: dict[str, list[str]] = client.sync(
                scheduler.processing, callback_timeout=seconds
            )
        except Exception as err:
            raise self._silent_scheduler(err) from None
        if not processing:
            raise self._lost_workers(None)
        worker = next((w for w, keys in processing.items() if key in keys), None)
        if worker is None:
            return None, ""
        try:
            client.sync(_identity, client, worker, callback_timeout=seconds)
        except Exception:
            if worker in self._removed:
                return None, ""
            self._removed.add(worker)
            try:
                client.sync(
                    scheduler.unregister,
                    address=worker,
                    stimulus_id=f"arena-silent-worker-{secrets.token_hex(4)}",
                    callback_timeout=seconds,
                )
            except Exception as err:
                raise self._silent_scheduler(err) from None
            return None, (
                f"cluster: worker {worker} has not answered for {seconds:g} s: taken out of"
                " the cluster; its games are played again on the other workers"
            )
        return worker, ""

    def _silent_scheduler(self, err: Exception) -> ClusterError:
        self.silent = True
        why = f"no answer in {self.answer:g} s" if isinstance(err, TimeoutError) else _one_line(err)
        return ClusterError(
            f"the Dask scheduler at {self.address} does not answer ({why});"
            " run the same command to resume"
        )

    def _lost_workers(self, err: Exception | None) -> ClusterError:
        why = f" ({_one_line(err)})" if err is not None else ""
        return ClusterError(
            f"no Dask worker left at {self.address}{why}: start `dask worker"
            f" {self.address}` on each machine, then run the same command to resume"
        )

    def _reship(self, run: _Run, bundles: dict[str, Future[bytes]]) -> str:
        """Scatter again the run's data whose every copy is lost; say what (or "")."""
        lost = []
        if run.info_future.status != "finished":
            (run.info_future,) = _scatter(self.client, [run.info])
            lost.append("the league's setup")
        for digest, future in bundles.items():
            if future.status != "finished":
                spec, data = self._packed[digest], pack(self._packed[digest])
                (self._bundles[digest],) = _scatter(self.client, [data])
                lost.append(spec.name)
        return ", ".join(lost)

    def _end_run(self, run: _Run, abandon: bool) -> None:
        """Cancel the run's tasks in flight and close its worker processes everywhere."""
        futures = list(run.outstanding.values())
        run.outstanding.clear()
        with contextlib.suppress(Exception):
            if futures:
                self.client.cancel(futures, force=True)
        with contextlib.suppress(Exception):
            self.client.run(close_run, run.token, abandon, on_error="ignore")
        with contextlib.suppress(Exception):
            run.info_future.release()


@dataclass
class _Waiter:
    """A game waiting to be sent, then for its result."""

    game: Play
    taken: bool = False
    """Sent in a batch (by its own player or another)."""
    done: trio.Event = field(default_factory=trio.Event)
    played: Played | None = None
    error: ClusterError | None = None


@dataclass
class _Run:
    """One league run on the cluster: its info (shipped once), the games waiting to be
    sent, the tasks in flight, and how many games a task gets."""

    token: str
    info: RunInfo
    info_future: Future[RunInfo]
    slots: trio.Semaphore
    """A task slot per task that may be in flight."""
    waiting: trio.CapacityLimiter
    """A thread per task in flight, to wait for its result."""
    most: int
    """The most games per task."""
    game_seconds: float
    """The longest a game may take by its clocks (`_game_seconds`)."""
    batch: int = 1
    """Games per task now (from 1 up to `most`, by the games' durations)."""
    seconds: float | None = None
    """A running mean of the games' durations on the workers."""
    pending: list[_Waiter] = field(default_factory=list)
    arrived: trio.Event = field(default_factory=trio.Event)
    outstanding: dict[str, Future[list[bytes]]] = field(default_factory=dict)

    def learn(self, played: list[Played]) -> None:
        """Size the next batches after these games' durations."""
        for result in played:
            took = max(0.0, result.finished - result.started)
            self.seconds = took if self.seconds is None else 0.8 * self.seconds + 0.2 * took
        if self.seconds is not None:
            wanted = BATCH_SECONDS / max(self.seconds, 1e-3)
            self.batch = max(1, min(self.most, int(wanted)))


def _played(data: bytes, game_id: str) -> Played:
    reader = Reader(FromWorker, "a game task")
    reader.feed(data)
    played = reader.next()
    if not isinstance(played, Played) or played.game_id != game_id:
        raise ClusterError(f"a game task for {game_id} answered {type(played).__name__}")
    return played


# ---------------------------------------------------------------------- blocking calls


def _connect(address: str) -> Client:
    check_scheduler(address)
    from distributed import Client

    try:
        return Client(address, set_as_default=False)
    except Exception as err:  # Dask raises OSError, TimeoutError, ValueError, TypeError...
        raise ClusterError(
            f"cannot reach the Dask scheduler at {address}: {_one_line(err)}"
        ) from None


def check_scheduler(address: str) -> None:
    """Raise ClusterError, saying why, unless a Dask scheduler answers at `address`.
    `arena league` asks before it makes the store, so that an address of something
    else (a worker's, a tls:// one without Dask's TLS settings) leaves no empty store."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise ClusterError(
            "--cluster needs Dask distributed: pip install 'dask[distributed]' where arena"
            " is installed (from arena's repository: pip install '.[cluster]')"
        ) from None
    _no_tracebacks()
    hint = (
        " (tls:// needs Dask's TLS settings: distributed.comm.tls.*)"
        if address.startswith("tls://")
        else ""
    )
    try:
        _handshake(address)
    except _NotScheduler as err:
        raise ClusterError(str(err)) from None
    except _NoHandshake as err:
        raise ClusterError(
            f"nothing at {address} answered as a Dask scheduler within {err.seconds:g} s (is"
            f" it the scheduler's port? `dask scheduler` listens on {DEFAULT_PORT}){hint}"
        ) from None
    except Exception as err:  # Dask raises OSError, TimeoutError, ValueError, TypeError...
        raise ClusterError(
            f"cannot reach the Dask scheduler at {address}: {_one_line(err)}{hint}"
        ) from None


class _NoTraceback(logging.Filter):
    """Lets through what Dask logs in a line, not what it logs with a traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.exc_info is None and record.stack_info is None


def _no_tracebacks() -> None:
    """Keep the tracebacks Dask's client logs on stderr (the scheduler gone: the
    traceback of each reconnection refused) from the coordinator's terminal: arena says
    what went wrong, in a line. Dask's own lines (warnings) still show."""
    for name, logger in list(logging.root.manager.loggerDict.items()):
        if isinstance(logger, logging.Logger) and name.split(".")[0] in _DASK_LOGGERS:
            for handler in logger.handlers:
                if not any(isinstance(f, _NoTraceback) for f in handler.filters):
                    handler.addFilter(_NoTraceback())


_DASK_LOGGERS = frozenset({"distributed", "tornado", "bokeh"})
"""The loggers Dask gives handlers of its own, by their first name."""


class _Overdue(Exception):
    """A task ran far longer than its games' clocks allow, on a worker that answers."""


class _NotScheduler(Exception):
    """Something that speaks Dask's protocol answered, but not as a scheduler."""


class _NoHandshake(Exception):
    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = seconds


def _handshake(address: str) -> None:
    """Connect to `address` and exchange Dask's handshake; `_NoHandshake` if that takes
    past twice Dask's connection timeout (`distributed.comm.timeouts.connect`, 30 s).
    Dask's own connection waits for the handshake with no limit: a server that takes
    the connection and says nothing (a web server, another program's port) held
    `arena league --cluster` forever; and a Client whose connection failed made the
    exit wait a minute, then print a traceback, from its finaliser."""
    import asyncio

    import dask
    from dask.utils import parse_timedelta
    from distributed.comm.core import connect
    from distributed.security import Security

    seconds = parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"), "s")

    async def shake() -> Any:
        args = Security().get_connection_args("client")
        comm = await asyncio.wait_for(connect(address, timeout=seconds, **args), 2 * seconds)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await asyncio.wait_for(comm.read(), 2 * seconds)
        finally:
            await comm.close()

    try:
        identity = asyncio.run(shake())
    except TimeoutError:
        raise _NoHandshake(2 * seconds) from None
    kind = identity.get("type") if isinstance(identity, dict) else None
    if kind != "Scheduler":
        raise _NotScheduler(
            f"the Dask {kind.lower()} at {address} is not a scheduler: give the address"
            f' `dask scheduler` prints ("Scheduler at:"), not a worker\'s'
            if isinstance(kind, str) and kind in ("Worker", "Nanny")
            else f"what answered at {address} is not a Dask scheduler"
        )


def _check_cluster(client: Client, address: str, say: Callable[[str], None]) -> dict[str, int]:
    """Wait for a worker; check that tasks of arena run and that every worker runs this
    version of arena. Returns each worker's threads."""
    if not client.nthreads():
        say(f"cluster {address}: no worker yet; waiting up to {WAIT_FOR_WORKERS:g} s")
        try:
            client.wait_for_workers(1, timeout=WAIT_FOR_WORKERS)
        except Exception:
            raise ClusterError(
                f"the Dask scheduler at {address} has no workers: start `dask worker"
                f" {address}` on each machine"
            ) from None
    versions = client.run(about_worker, on_error="return")
    for worker, version in sorted(versions.items()):
        if isinstance(version, BaseException):
            raise ClusterError(
                f"worker {worker} cannot run arena ({_one_line(version)}): install arena on"
                " every worker"
            )
        if version != __version__:
            raise ClusterError(
                f"worker {worker} runs arena {version}, this coordinator {__version__}:"
                " install the same arena everywhere"
            )
    probe = client.submit(about_worker, key=f"arena-probe-{secrets.token_hex(6)}", pure=False)
    try:
        probe.result(timeout=PROBE_SECONDS)
    except TimeoutError:  # every worker has arena (above): their threads are taken
        raise ClusterError(
            f"the cluster at {address} ran no task within {PROBE_SECONDS:g} s: {_busy(client)};"
            " run the same command again once they are free"
        ) from None
    except Exception as err:
        raise ClusterError(
            f"the cluster at {address} cannot run arena's tasks ({_one_line(err)}): install"
            " arena and dask[distributed] on the scheduler's machine and every worker's"
        ) from None
    finally:
        with contextlib.suppress(Exception):
            probe.release()
    from arena.cluster._plugin import ArenaPlugin

    try:  # arena's state in each worker (one a worker has already is kept)
        client.register_plugin(ArenaPlugin())
    except Exception as err:
        raise ClusterError(
            f"the cluster at {address} cannot take arena's worker plugin: {_one_line(err)}"
        ) from None
    return {str(k): int(v) for k, v in client.nthreads().items()}


def _busy(client: Client) -> str:
    """What the workers' threads are doing, for a first task that did not run."""
    try:
        found = client.run(_threads_taken, on_error="return")
        taken = [v for v in found.values() if isinstance(v, tuple)]
        busy = sum(t for t, _ in taken)
        threads = sum(n for _, n in taken)
    except Exception:
        return "the workers did not take it"
    if threads and busy >= threads:
        return (
            f"every worker thread is busy ({busy} of {threads} running tasks: another run's,"
            " or those of a run that was stopped and are still ending)"
        )
    return f"the workers did not take it ({busy} of {threads} thread(s) busy)"


def _threads_taken(dask_worker: Any) -> tuple[int, int]:
    """(tasks running, threads) on a worker (`Client.run`), cancelled tasks that have
    not ended included."""
    return int(dask_worker.state.executing_count), int(dask_worker.state.nthreads)


def _worker_addresses(dask_scheduler: Any) -> list[str]:
    """The workers in the cluster now (`Client.run_on_scheduler`)."""
    return [str(a) for a in dask_scheduler.workers]


def _gates(dask_scheduler: Any) -> dict[str, dict[str, float]]:
    """Each worker's resources, as the scheduler has them (`Client.run_on_scheduler`)."""
    return {str(a): dict(ws.resources) for a, ws in dask_scheduler.workers.items()}


def _fit_workers(client: Client, sandbox: str) -> tuple[list[str], dict[str, str]]:
    """(the workers that may have this run's games: they declare its `gate`, the others,
    each with why not)."""
    resources: dict[str, dict[str, float]] = client.run_on_scheduler(_gates)
    wanted = gate(sandbox)
    fit = sorted(w for w, r in resources.items() if r.get(wanted, 0) >= 1)
    others = [w for w in resources if w not in fit]
    why = _unfit(client, others, sandbox)
    for worker in others:
        why.setdefault(worker, "it has not declared what it can run (no arena plugin?)")
    return fit, why


def _unfit(client: Client, workers: Sequence[str], sandbox: str) -> dict[str, str]:
    """Why each of `workers` cannot run games of this arena under `sandbox` (the fit
    ones left out)."""
    if not workers:
        return {}
    try:
        found = client.run(worker_verdict, sandbox, workers=list(workers), on_error="return")
    except Exception as err:
        return {w: f"it cannot be asked ({_one_line(err)})" for w in workers}
    why = {}
    for worker, verdict in found.items():
        if isinstance(verdict, BaseException):
            why[worker] = f"it cannot run this arena ({_one_line(verdict)})"
        elif verdict[0] != __version__:
            why[worker] = f"it runs arena {verdict[0]}, this coordinator {__version__}"
        elif verdict[1] is not None:
            why[worker] = f"it cannot run bots in the sandbox {sandbox}: {verdict[1]}"
    return why


def _pack_all(specs: Sequence[BotSpec]) -> dict[str, tuple[BotSpec, bytes]]:
    """Every submission that can be shipped, packed, by digest; a submission refused
    (too large, a special file) is left for `arena.league.prepare` to report."""
    packed = {}
    for spec in specs:
        if spec.folder is None:
            continue
        try:
            digest = spec.digest()
            packed[digest] = (spec, pack(spec))
        except (BotError, OSError):
            continue
    return packed


def _scatter(client: Client, data: list[Any]) -> list[Future[Any]]:
    futures: list[Future[Any]] = client.scatter(data, hash=False)
    return futures


LEFT_CHECK_S = 5.0
"""How often the builds' wait looks for workers that left the cluster."""


def _gather(
    client: Client, futures: list[Future[BuildReport]], pinned: list[str]
) -> list[BuildReport]:
    """The reports of the builds (`futures`, each on its worker of `pinned`); a build
    whose worker left the cluster is dropped (that worker plays no game; one that joins
    builds at its first game)."""
    from distributed import KilledWorker

    waiting = dict(zip(futures, pinned, strict=True))
    try:
        while waiting := {f: w for f, w in waiting.items() if not f.done()}:
            try:
                next(iter(waiting)).result(timeout=LEFT_CHECK_S)
                continue
            except TimeoutError:
                pass
            except (Exception, asyncio.CancelledError):
                continue  # (its error is the gather's, below)
            present = set(client.run_on_scheduler(_worker_addresses))
            gone = [f for f, w in waiting.items() if w not in present]
            if gone:
                client.cancel(gone, force=True)
        kept = [f for f in futures if not f.cancelled()]
        reports: list[BuildReport] = client.gather(kept)
    except KilledWorker as err:
        raise ClusterError(f"workers died while building the bots: {err}") from None
    except ClusterError:
        raise
    except Exception as err:
        raise ClusterError(f"building the bots on the cluster failed: {_one_line(err)}") from None
    return reports


def _release(client: Client, futures: list[Future[Any]]) -> None:
    pending = [f for f in futures if not f.done()]
    if pending:
        client.cancel(pending, force=True)
    for future in futures:
        future.release()


def _result(future: Future[list[bytes]], timeout: float) -> list[bytes] | None:
    """The task's result, or None if it is not there within `timeout` seconds."""
    try:
        data: list[bytes] = future.result(timeout=timeout)
    except TimeoutError:
        if future.status == "pending":
            return None
        data = future.result()  # (the task's own TimeoutError, or done meanwhile)
    return data


async def _identity(client: Client, worker: str) -> None:
    await client.rpc(worker).identity()


def _answer_seconds() -> float:
    """How long the scheduler or a worker may take to answer: twice Dask's connection
    timeout (`distributed.comm.timeouts.connect`, 30 s), as for the handshake."""
    import dask
    from dask.utils import parse_timedelta

    return 2 * float(parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"), "s"))


def _game_seconds(setup: Setup) -> float:
    """The longest a game of `setup` may take by its clocks: every seat's start-up and
    exit, and `play_cap` decisions."""
    clocks = setup.settings.clocks
    seats = setup.config.players
    per_seat = clocks.startup_ms + clocks.exit_grace_ms + 2 * clocks.kill_grace_ms
    plays = setup.config.play_cap * (clocks.decision_ms + clocks.grace_ms)
    return (seats * per_seat + plays) / 1000


def _close(client: Client) -> None:
    with contextlib.suppress(Exception):
        client.close(timeout=10)


def _judge(reports: list[BuildReport]) -> dict[str, str]:
    """The bots to leave out (name: why) from every worker's build reports; raises
    ClusterError for a worker that cannot run bots, or that lacks a program others have."""
    by_bot: dict[str, list[BuildReport]] = {}
    for report in reports:
        by_bot.setdefault(report.name, []).append(report)
    failed = {}
    for name, found in sorted(by_bot.items()):
        for report in found:
            if report.kind == "worker":
                raise ClusterError(f"worker {report.worker} cannot run bots: {report.problem}")
            if report.kind == "stopped":
                raise ClusterError(f"the build of {name} was stopped on worker {report.worker}")
        builds = [r for r in found if r.kind == "build"]
        missing = [r for r in found if r.kind == "missing"]
        if builds:
            first = builds[0]
            failed[name] = f"{name}: build failed on worker {first.worker}: {first.problem}"
        elif missing and len(missing) < len(found):
            first = missing[0]
            raise ClusterError(
                f"worker {first.worker} lacks what {name} needs, which other workers have:"
                f" {plain(first.problem or '')}. Install the bots' toolchains on every worker"
                " (or stop that worker)"
            )
        elif missing:
            failed[name] = f"{name}: {missing[0].problem} (on every worker)"
    return failed


def _check_built(spec: BotSpec, failed: dict[str, str]) -> None:
    if spec.name in failed:
        raise BuildError(failed[spec.name])


def _one_line(err: BaseException) -> str:
    text = " ".join(str(err).split()) or type(err).__name__
    return text if len(text) <= 300 else text[:297] + "..."
