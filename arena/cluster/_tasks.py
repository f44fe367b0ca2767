"""What runs on the Dask workers: a bot's build, and games handed to arena's own worker
process, so that a game on the cluster takes the same code path as a local one.

A game task gets the run's `RunInfo` (the league's `Setup` as the coordinator sent it),
the bundles of the bots at its tables and its games' `Play` frames (one game, or a few
quick ones: see `arena.cluster._runner`). It unpacks and builds those
bots here the first time (`arena.cluster._bundles`), rewrites the setup's bot folders
to this machine's cache, and sends the `Play` to a `python -m arena.worker` process kept
for the run in this Dask worker (started on first need, reused for the next game, one
per game at once): the referee, the sandbox, the clocks and the limits all run there.
The answer goes back to the coordinator as a `Played` frame.

Every Dask worker keeps arena's state (the bots built, each run's setup and worker
processes) in the `ArenaPlugin` the coordinator registers (`arena.cluster._plugin`):
`Here`, whose trio loop speaks to the worker processes with the client a local league
uses (`arena.runners.WorkerProcess`). A task the coordinator cancelled (Ctrl-C, a
coordinator that died), as the plugin hears from Dask, stops its worker process, which
abandons the game and kills its bots. `close_run` ends a run's processes when its
league is over; the idle processes of a run whose coordinator is gone (the scheduler no
longer knows the data its games depend on) are closed within seconds, and any idle for
`IDLE_SECONDS`; the worker closing closes them all.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import trio

from arena.bots import BUILD_STOP, BotSpec, BuildsStopped, BuildStop, resolve_command
from arena.cluster._bundles import BundleError, WorkerBuild, bot_folder, ensure_built
from arena.errors import ArenaError, BotError, BuildError, ConfigError
from arena.messages import Play, Played, Reader, Setup, ToWorker, encode
from arena.runners import WorkerLost, WorkerProcess
from arena.sandbox import bwrap_problem, wrap_for

if TYPE_CHECKING:
    from distributed import Worker

IDLE_SECONDS = 120.0
"""A worker process unused this long is closed (its bots say goodbye and exit)."""

_SWEEP = 2.0
"""Seconds between two looks at whether the runs with idle processes are still on."""


class ClusterError(ArenaError):
    """The Dask cluster cannot play the league: unreachable, without workers, a worker
    that cannot build or run the bots, a game lost more often than Dask retries it."""


class WorkerProcessDied(ClusterError):
    """The arena worker process of a game task ended in the middle of it, or before it
    (killed: by the machine's OOM killer, by an operator): the machine's failure, not a
    bot's. The coordinator plays the task's games again, as when a Dask worker dies."""


class TaskAbandoned(ClusterError):
    """A game stopped because its task was cancelled (nobody waits for its result), or
    its worker closes. Dask may still give the task's error to a coordinator that waits
    for it (the task was given back to this worker after the stop, or the error was sent
    before the worker closed): the coordinator then plays its games again."""


@dataclasses.dataclass(frozen=True, slots=True)
class RunInfo:
    """What every game task of one league run shares (sent to the cluster once)."""

    token: str
    """Names the run: its tasks' keys and its worker processes."""
    setup: bytes
    """The coordinator's `Setup`, framed (`arena.messages.encode`)."""
    digests: dict[str, str]
    """Each bot's submission digest, by name."""
    build: WorkerBuild


@dataclasses.dataclass(frozen=True, slots=True)
class BuildReport:
    """How the build of one bot went on one worker."""

    worker: str
    """The worker's address."""
    name: str
    problem: str | None
    """None: ready to play; else what went wrong, with the build's output."""
    kind: str
    """"ok"; "build": its build failed; "missing": a program it needs is not there;
    "worker": this worker cannot run bots at all; "stopped": its task was cancelled."""


GATE_AMOUNT = 1_000_000.0
"""How much of its `gate` resource a worker fit for arena's games declares (each game
task takes 1: the resource only says which workers may have games, not how many)."""


def gate(sandbox: str, version: str | None = None) -> str:
    """The Dask resource that a worker running arena `version` (this one's by default)
    declares when it can run bots under `sandbox` (`ArenaPlugin` declares it). Game
    tasks require it: a worker of another arena, or one whose sandbox does not work
    (bwrap installed in a container without the privilege to make namespaces), is never
    given a game, so its failures are never charged to the bots."""
    if version is None:
        from arena import __version__

        version = __version__
    return f"arena-{version}-{sandbox}"


def fit_gates(here: Here) -> dict[str, float]:
    """The `gate` resources this worker declares: one per sandbox it can run bots in."""
    from arena.sandbox import SANDBOXES

    return {gate(s): GATE_AMOUNT for s in SANDBOXES if here.sandbox_problem(s) is None}


def worker_verdict(sandbox: str, dask_worker: Worker | None = None) -> tuple[str, str | None]:
    """(this worker's arena version, why it cannot run bots under `sandbox`, or None).
    Run on a worker by the coordinator (`Client.run`)."""
    from arena import __version__

    worker = dask_worker or _worker()
    plugin = worker.plugins.get(PLUGIN) if worker is not None else None
    here = getattr(plugin, "here", None)
    if not isinstance(here, Here):  # (a worker that is joining: its plugin comes next)
        here = Here(worker)
    return __version__, here.sandbox_problem(sandbox)


def prepare_bot(spec: BotSpec, digest: str, bundle: bytes, settings: WorkerBuild) -> BuildReport:
    """Unpack and build `spec` on this worker (once per machine), and check that its
    program can be found and run here, in the sandbox if the league has one. The build
    stops when the task is no longer wanted (the coordinator stopped: Ctrl-C)."""
    worker = _worker()
    address = _address(worker)
    here = _here(worker)
    problem = here.sandbox_problem(settings.sandbox)
    if problem is not None:
        return BuildReport(address, spec.name, problem, "worker")
    wrap = wrap_for(settings.sandbox)
    try:
        with here.building(_current_task(worker)):
            folder = ensure_built(spec, digest, bundle, settings)
        command = resolve_command(spec.command, folder)
        if wrap is not None:  # fails if the sandbox would hide the program
            wrap(command, Path("/tmp/arena-check"), folder)
    except BuildsStopped:
        return BuildReport(address, spec.name, "the build was stopped", "stopped")
    except BuildError as err:
        return BuildReport(address, spec.name, _without_name(spec.name, err), "build")
    except BundleError as err:
        return BuildReport(address, spec.name, str(err), "worker")
    except BotError as err:
        return BuildReport(address, spec.name, _without_name(spec.name, err), "missing")
    except OSError as err:
        return BuildReport(address, spec.name, f"{type(err).__name__}: {err}", "worker")
    return BuildReport(address, spec.name, None, "ok")


def play_games(info: RunInfo, bundles: dict[str, bytes], plays: list[bytes]) -> list[bytes]:
    """Play the games framed in `plays` (`Play` messages), one after the other, and
    return their `Played` frames in the same order."""
    worker = _worker()
    here = _here(worker)
    setup, local = here.runs.get(info)
    problem = here.sandbox_problem(setup.settings.sandbox)
    if problem is not None:  # (the `gate` resource keeps games away from such a worker)
        raise ClusterError(
            f"worker {here.address} cannot run bots in the sandbox"
            f" {setup.settings.sandbox}: {problem}"
        )
    games = [_game(play) for play in plays]
    key = _current_task(worker)
    try:
        with here.building(key):
            _ensure_bots(here, setup, info, bundles)
    except BuildsStopped:
        raise TaskAbandoned(
            f"worker {here.address}: the bots' build was stopped: the task was cancelled"
        ) from None
    if worker is not None and key is not None:
        here.watch(info.token, _dependencies(worker, key))
    played = here.play(info.token, local, games, key)
    return [encode(result) for result in played]


def about_worker() -> str:
    """The version of arena where this runs (the coordinator's first task)."""
    from arena import __version__

    return __version__


def close_run(token: str, abandon: bool, dask_worker: Worker | None = None) -> int:
    """End the worker processes of run `token` in this Dask worker (`abandon`: also those
    in the middle of a game); returns how many. Run on every worker by the coordinator
    (`Client.run`, which passes `dask_worker`)."""
    here = _here(dask_worker or _worker())
    here.runs.forget(token)
    return here.close(token, abandon)


# ---------------------------------------------------------------------- the worker


def _worker() -> Worker | None:
    """The Dask worker this runs in, or None outside one."""
    try:
        from distributed import get_worker

        return get_worker()
    except (ImportError, ValueError):
        return None


def _address(worker: Worker | None) -> str:
    if worker is None:
        return f"process {os.getpid()}"
    return str(worker.address)


def _here(worker: Worker | None) -> Here:
    """What this Dask worker holds for arena (its `ArenaPlugin`'s), or, outside a Dask
    worker (a test), this process's own."""
    global _OUTSIDE
    if worker is None:
        if _OUTSIDE is None:
            _OUTSIDE = Here(None)
        return _OUTSIDE
    plugin = worker.plugins.get(PLUGIN)
    here = getattr(plugin, "here", None)
    if not isinstance(here, Here):
        raise ClusterError(f"worker {worker.address}: arena's worker plugin is not registered")
    return here


PLUGIN = "arena"
"""The name of arena's plugin in each Dask worker (`Worker.plugins`): `ArenaPlugin`
(`arena.cluster._plugin`), which holds the worker's `Here`."""

_OUTSIDE: Here | None = None
"""What `_here` gives outside a Dask worker."""


def _current_task(worker: Worker | None) -> str | None:
    if worker is None:
        return None
    try:
        return str(worker.get_current_task())
    except (AttributeError, ValueError, KeyError):
        return None


def _dependencies(worker: Worker, key: str) -> set[str]:
    """The keys of the data task `key` depends on (the coordinator's)."""
    try:
        task = worker.state.tasks[key]
        return {str(dependency.key) for dependency in task.dependencies}
    except (AttributeError, KeyError, ValueError):
        return set()


def plain(problem: str) -> str:
    """A missing program's problem without the advice on shell syntax that follows it
    (`arena.bots.resolve_command`): where other workers found the program, the command
    line is not at fault."""
    found = problem.find(" not found on the PATH")
    return problem[: found + len(" not found on the PATH")] if found >= 0 else problem


def _without_name(name: str, err: Exception) -> str:
    text = str(err)
    return text[len(name) + 2 :] if text.startswith(f"{name}: ") else text


def _game(play: bytes) -> Play:
    reader = Reader(ToWorker, "the coordinator")
    reader.feed(play)
    message = reader.next()
    if not isinstance(message, Play):
        raise ClusterError(f"a game task was sent a {type(message).__name__}, not a game")
    return message


def _ensure_bots(here: Here, setup: Setup, info: RunInfo, bundles: dict[str, bytes]) -> None:
    """Unpack and build here the bots whose bundles came with the task."""
    address = here.address
    specs = {info.digests[s.name]: s for s in setup.bots if s.name in info.digests}
    for digest, bundle in bundles.items():
        if digest in here.ready:
            continue
        spec = specs.get(digest)
        if spec is None:
            raise ClusterError(f"worker {address}: a bundle of no bot in the league ({digest})")
        try:
            ensure_built(spec, digest, bundle, info.build)
            resolve_command(spec.command, bot_folder(digest))
        except BuildError as err:
            raise ClusterError(
                f"{spec.name}: build failed on worker {address}, which had not built it"
                f" before: {_without_name(spec.name, err)}"
            ) from None
        except BotError as err:  # its build's or its program missing here
            raise ClusterError(
                f"worker {address} lacks what {spec.name} needs, which other workers have:"
                f" {plain(_without_name(spec.name, err))}. Install the bots' toolchains on"
                " every worker (or stop that worker)"
            ) from None
        except BundleError as err:
            raise ClusterError(f"worker {address}: {err}") from None
        here.ready.add(digest)


class _Runs:
    """Each run's setup as this worker plays it (bot folders in its cache), by token."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[str, tuple[Setup, Setup]] = {}

    def get(self, info: RunInfo) -> tuple[Setup, Setup]:
        """(the coordinator's setup, the setup for a worker process here)."""
        with self._lock:
            found = self._runs.get(info.token)
        if found is not None:
            return found
        reader = Reader(ToWorker, "the coordinator")
        reader.feed(info.setup)
        setup = reader.next()
        if not isinstance(setup, Setup):
            raise ClusterError(f"a run's setup is a {type(setup).__name__}, not a Setup")
        bots = tuple(
            dataclasses.replace(spec, folder=bot_folder(info.digests[spec.name]))
            if spec.folder is not None and spec.name in info.digests
            else spec
            for spec in setup.bots
        )
        here = Setup(bots=bots, settings=setup.settings, config=setup.config)
        found = (setup, here)
        with self._lock:
            while len(self._runs) >= 16:  # runs whose coordinator never closed them
                del self._runs[next(iter(self._runs))]
            self._runs[info.token] = found
        return found

    def forget(self, token: str) -> None:
        with self._lock:
            self._runs.pop(token, None)


# ---------------------------------------------------------------------- worker processes


@dataclasses.dataclass(eq=False)
class _Held:
    """A worker process kept for a run, and when it last finished a game."""

    process: WorkerProcess
    used: float


class Here:
    """What one Dask worker holds for arena (its `ArenaPlugin`'s state): the bots built
    here, each run's setup, and each run's `python -m arena.worker` processes, one per
    game at once, spoken to by `arena.runners.WorkerProcess` in a trio loop of a
    thread of its own (started on first need). Game tasks call in from Dask's threads;
    the plugin tells it of cancelled tasks (`stop`) and of the worker closing."""

    def __init__(self, worker: Worker | None) -> None:
        self.worker = worker
        self.address = _address(worker)
        self.ready: set[str] = set()
        """Digests unpacked and built in this machine's cache."""
        self.runs = _Runs()
        self._problems: dict[str, str | None] = {}
        """Why bots cannot run here under each sandbox (None: they can), found once."""
        self._builds: dict[str, BuildStop] = {}
        """The stop of the builds each running task makes, by its key."""
        self._unwanted: dict[str, None] = {}
        """Keys of tasks no longer wanted (the latest 1,000), read under `_guard` by
        builds and games alike."""
        self._guard = threading.Lock()
        self._start = threading.Lock()
        self._token: trio.lowlevel.TrioToken | None = None
        self._thread: threading.Thread | None = None
        # Only in the trio loop:
        self._nursery: trio.Nursery | None = None
        self._idle: dict[str, list[_Held]] = {}
        self._busy: dict[str, set[_Held]] = {}
        self._closed: dict[str, None] = {}
        self._keys: dict[str, set[str]] = {}
        """Per run, the keys of the data its games depend on (the coordinator's)."""
        self._scopes: dict[str, trio.CancelScope] = {}
        """The games of each running task, by its key."""
        self._reaping = trio.CancelScope()
        self._shutting = False

    # ------------------------------------------------------------- from other threads

    def sandbox_problem(self, sandbox: str) -> str | None:
        """Why bots cannot run here under `sandbox` (the check the coordinator makes of
        its own machine: `arena.sandbox.bwrap_problem`), or None; found once."""
        with self._guard:
            if sandbox in self._problems:
                return self._problems[sandbox]
        try:
            wrap_for(sandbox)
            problem = bwrap_problem() if sandbox == "bwrap" else None
        except ConfigError as err:
            problem = str(err)
        with self._guard:
            self._problems[sandbox] = problem
        return problem

    @contextlib.contextmanager
    def building(self, key: str | None) -> Iterator[None]:
        """Builds made in this block stop (BuildsStopped) when task `key` is no longer
        wanted (`stop`): a coordinator stopped mid-build leaves no build running."""
        if key is None:
            yield
            return
        stop = BuildStop()
        with self._guard:
            self._builds[key] = stop
            if key in self._unwanted:
                stop.stop()
        reset = BUILD_STOP.set(stop)
        try:
            yield
        finally:
            BUILD_STOP.reset(reset)
            with self._guard:
                self._builds.pop(key, None)

    def play(self, token: str, setup: Setup, games: list[Play], key: str | None) -> list[Played]:
        """Play `games` of run `token` one after the other in a worker process of the run
        (from a task's thread); `TaskAbandoned` if task `key` is cancelled meanwhile."""
        return trio.from_thread.run(self._play, token, setup, games, key, trio_token=self._loop())

    def watch(self, token: str, keys: set[str]) -> None:
        """Note the data run `token`'s games depend on: while the scheduler knows none of
        it, the run's coordinator is gone."""
        if keys:
            self._loop().run_sync_soon(lambda: self._keys.setdefault(token, set()).update(keys))

    def close(self, token: str, abandon: bool) -> int:
        """Close run `token`'s processes (`abandon`: those in a game too) for good."""
        if self._token is None:
            return 0
        return trio.from_thread.run_sync(self._close, token, abandon, True, trio_token=self._token)

    def stop(self, key: str) -> None:
        """Task `key` is no longer wanted (cancelled, its client gone): stop its builds
        and its games (from the Dask worker's event loop)."""
        if not key.startswith(("arena-games-", "arena-build-")):
            return
        with self._guard:
            self._unwanted[key] = None
            while len(self._unwanted) > 1000:
                del self._unwanted[next(iter(self._unwanted))]
            stop = self._builds.get(key)
        if stop is not None:
            stop.stop()
        if self._token is not None and key.startswith("arena-games-"):
            with contextlib.suppress(trio.RunFinishedError):
                self._token.run_sync_soon(self._stop, key)

    def want(self, key: str) -> None:
        """Task `key` is given to this worker again after a `stop` (Dask took it away,
        to another worker that then died, or to steal it, and gives it back with the same
        key): it is played, not stopped at its start (from the Dask worker's event
        loop)."""
        with self._guard:
            self._unwanted.pop(key, None)

    def shut(self) -> None:
        """The Dask worker closes: abandon every game, stop every process."""
        thread, token = self._thread, self._token
        if thread is None or token is None:
            return
        with contextlib.suppress(trio.RunFinishedError):
            token.run_sync_soon(self._shut)
        thread.join(30)

    def _loop(self) -> trio.lowlevel.TrioToken:
        with self._start:
            if self._token is None:
                ready = threading.Event()
                self._thread = threading.Thread(
                    target=trio.run, args=(self._main, ready), name="arena-games", daemon=True
                )
                self._thread.start()
                ready.wait()
            assert self._token is not None
            return self._token

    # ------------------------------------------------------------- in the trio loop

    async def _main(self, ready: threading.Event) -> None:
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            self._token = trio.lowlevel.current_trio_token()
            ready.set()
            with self._reaping:
                await self._reap()

    async def _play(
        self, token: str, setup: Setup, games: list[Play], key: str | None
    ) -> list[Played]:
        held = await self._take(token, setup)
        played: list[Played] = []
        with trio.CancelScope() as scope:
            if key is not None:
                self._scopes[key] = scope
                with self._guard:  # stopped before its scope was here to cancel
                    if key in self._unwanted:
                        scope.cancel()
            try:
                for game in games:
                    try:
                        played.append(await held.process.play(game))
                    except WorkerLost as err:
                        raise WorkerProcessDied(
                            f"worker {self.address}: its arena worker process ended during"
                            f" {game.game_id} ({err})"
                        ) from None
                    except ArenaError as err:
                        raise ClusterError(f"worker {self.address}: {err}") from None
            finally:
                if key is not None:
                    self._scopes.pop(key, None)
                self._give_back(token, held, len(played) == len(games))
        if len(played) < len(games):
            # The coordinator cancels games only when its league stops (or it died): the
            # run's idle processes here have nothing more to play. (Should the run go on
            # after all, the next game starts a process again.)
            self._close(token, abandon=False, final=False)
            first = games[len(played)].game_id
            raise TaskAbandoned(
                f"worker {self.address}: game {first} abandoned: its task was cancelled"
            )
        return played

    async def _take(self, token: str, setup: Setup) -> _Held:
        if token in self._closed or self._shutting:
            raise TaskAbandoned(f"worker {self.address}: run {token} is over")
        idle = self._idle.get(token, [])
        while idle:
            held = idle.pop()
            if held.process.alive():
                self._busy.setdefault(token, set()).add(held)
                return held
            self._end(held, abandon=False)
        try:
            process = await WorkerProcess.start(setup, own_session=True)
        except OSError as err:
            raise ClusterError(
                f"worker {self.address}: cannot start an arena worker process: {err}"
            ) from None
        assert self._nursery is not None
        self._nursery.start_soon(process.read_answers)
        held = _Held(process, time.monotonic())
        self._busy.setdefault(token, set()).add(held)
        return held

    def _give_back(self, token: str, held: _Held, reuse: bool) -> None:
        self._busy.get(token, set()).discard(held)
        held.used = time.monotonic()
        if reuse and token not in self._closed and held.process.alive():
            self._idle.setdefault(token, []).append(held)
        else:  # its run is over, or a game that did not finish: abandon it
            self._end(held, abandon=not reuse)

    def _end(self, held: _Held, abandon: bool) -> None:
        """Close a process in the background (`abandon`: stop its games now)."""
        if abandon:
            held.process.terminate()
        assert self._nursery is not None
        self._nursery.start_soon(held.process.aclose)

    def _close(self, token: str, abandon: bool, final: bool = True) -> int:
        """Close the idle processes of run `token` (`abandon`: the busy ones too); after
        a `final` close the run starts none again."""
        if final:
            self._closed[token] = None
            while len(self._closed) > 1000:
                del self._closed[next(iter(self._closed))]
        idle = self._idle.pop(token, [])
        busy = list(self._busy.get(token, ())) if abandon else []
        for held in idle:
            self._end(held, abandon=False)
        for held in busy:
            held.process.terminate()
        return len(idle) + len(busy)

    def _stop(self, key: str) -> None:
        scope = self._scopes.get(key)
        if scope is not None:
            scope.cancel()

    def _shut(self) -> None:
        self._shutting = True
        self._reaping.cancel()
        for scope in self._scopes.values():
            scope.cancel()
        for token in set(self._idle) | set(self._busy):
            self._close(token, abandon=True)
        # The loop ends when the processes have (each closed, or killed in 30 s).

    async def _reap(self) -> None:
        """Close the idle processes of runs that are over, and any idle too long."""
        while True:
            await trio.sleep(_SWEEP)
            now = time.monotonic()
            for subs in self._idle.values():
                for held in [h for h in subs if now - h.used >= IDLE_SECONDS]:
                    subs.remove(held)
                    self._end(held, abandon=False)
            quiet = {
                token: self._keys.get(token, set())
                for token, subs in self._idle.items()
                if subs and not self._busy.get(token) and all(now - h.used >= _SWEEP for h in subs)
            }
            for token, keys in quiet.items():
                worker = self.worker
                if keys and worker is not None:
                    known = await trio.to_thread.run_sync(_known, worker, keys)
                    if not known:
                        self._close(token, abandon=False, final=False)
                        self._keys.pop(token, None)


def _known(worker: Worker, keys: set[str]) -> bool:
    """Whether the scheduler still holds any of `keys` (True if it cannot be asked)."""
    try:
        from distributed.utils import sync

        found = sync(worker.loop, worker.scheduler.who_has, keys=sorted(keys), callback_timeout=10)
        return any(found.get(key) for key in keys)
    except Exception:  # the scheduler is away: keep the processes until it is back
        return True
