"""What runs on the Dask workers: a bot's build, and games handed to arena's own worker
process, so that a game on the cluster takes the same code path as a local one.

A game task gets the run's `RunInfo` (the league's `Setup` as the coordinator sent it),
the bundles of the bots at its tables and its games' `Play` frames (one game, or a few
quick ones: see `arena.cluster._runner`). It unpacks and builds those
bots here the first time (`arena.cluster._bundles`), rewrites the setup's bot folders
to this machine's cache, and sends the `Play` to a `python -m arena.worker` process kept
for the run in this Dask worker (started on first need, reused for the next game, one
per game at once): the referee, the sandbox, the clocks and the limits all run there.
The answer goes back to the coordinator as the worker process wrote it (a `Played`
frame), checked to be about the game asked.

While a game runs, its task watches whether it is still wanted: a task the coordinator
cancelled (Ctrl-C, a coordinator that died) stops its worker process, which abandons the
game and kills its bots. `close_run` ends a run's processes when its league is over; the
idle processes of a run whose coordinator is gone (the scheduler no longer knows the
data its games depend on) are closed within seconds, and any idle for `IDLE_SECONDS`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from arena.bots import BotSpec, resolve_command
from arena.cluster._bundles import BuildSettings, BundleError, bot_folder, ensure_built
from arena.errors import ArenaError, BotError, BuildError, ConfigError
from arena.messages import HEADER, Failed, FromWorker, Play, Played, Reader, Setup, ToWorker, encode

if TYPE_CHECKING:
    from distributed import Worker

IDLE_SECONDS = 120.0
"""A worker process unused this long is closed (its bots say goodbye and exit)."""

_POLL = 0.25
"""Seconds between two looks at whether a running game's task is still wanted."""

_SWEEP = 2.0
"""Seconds between two looks at whether the runs with idle processes are still on."""


class ClusterError(ArenaError):
    """The Dask cluster cannot play the league: unreachable, without workers, a worker
    that cannot build or run the bots, a game lost more often than Dask retries it."""


class WorkerProcessDied(ClusterError):
    """The arena worker process of a game task ended in the middle of it, or before it
    (killed: by the machine's OOM killer, by an operator): the machine's failure, not a
    bot's. The coordinator plays the task's games again, as when a Dask worker dies."""


class _Abandoned(ClusterError):
    """A game stopped because its task was cancelled (nobody waits for its result)."""


@dataclasses.dataclass(frozen=True, slots=True)
class RunInfo:
    """What every game task of one league run shares (sent to the cluster once)."""

    token: str
    """Names the run: its tasks' keys and its worker processes."""
    setup: bytes
    """The coordinator's `Setup`, framed (`arena.messages.encode`)."""
    digests: dict[str, str]
    """Each bot's submission digest, by name."""
    build: BuildSettings


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
    "worker": this worker cannot run bots at all."""


def prepare_bot(spec: BotSpec, digest: str, bundle: bytes, settings: BuildSettings) -> BuildReport:
    """Unpack and build `spec` on this worker (once per machine), and check that its
    program can be found and run here, in the sandbox if the league has one."""
    address = _address(_worker())
    try:
        wrap = _sandbox(settings.sandbox)
    except ConfigError as err:
        return BuildReport(address, spec.name, str(err), "worker")
    try:
        folder = ensure_built(spec, digest, bundle, settings)
        command = resolve_command(spec.command, folder)
        if wrap is not None:  # fails if the sandbox would hide the program
            wrap(command, Path("/tmp/arena-check"), folder)
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
    address = _address(worker)
    setup, frame = _RUNS.get(info)
    game_ids = [_game_id(play) for play in plays]
    _ensure_bots(setup, info, bundles, address)
    stop = _stop_check(worker)
    _POOL.watch(info.token, worker)
    sub = _POOL.take(info.token, frame, address)
    reuse = False
    try:
        replies = [
            sub.play(play, game_id, stop) for play, game_id in zip(plays, game_ids, strict=True)
        ]
        reuse = True
        return replies
    except _Abandoned:
        # The coordinator cancels games only when its league stops (or it died): the
        # run's idle processes here have nothing more to play. (Should the run go on
        # after all, the next game starts a process again.)
        _POOL.close(info.token, abandon=False, final=False)
        raise
    finally:
        _POOL.give_back(info.token, sub, reuse)


def about_worker() -> str:
    """The version of arena where this runs (the coordinator's first task)."""
    from arena import __version__

    return __version__


def close_run(token: str, abandon: bool) -> int:
    """End the worker processes of run `token` in this Dask worker (`abandon`: also those
    in the middle of a game); returns how many. Run on every worker by the coordinator."""
    _RUNS.forget(token)
    return _POOL.close(token, abandon)


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


def _stop_check(worker: Worker | None) -> Callable[[], bool]:
    """A test of whether the current task is no longer wanted: cancelled by its client,
    its client gone, or the worker closing."""
    if worker is None:
        return lambda: False
    try:
        key = worker.get_current_task()
    except (AttributeError, ValueError, KeyError):
        return lambda: False

    def stop() -> bool:
        try:
            task = worker.state.tasks.get(key)
            if task is None or task.state in ("cancelled", "released", "forgotten"):
                return True
            return str(worker.status.name) in ("closing", "closed", "failed")
        except (AttributeError, RuntimeError):  # another version of Dask's internals
            return False

    return stop


def _sandbox(sandbox: str) -> Callable[[list[str], Path, Path | None], list[str]] | None:
    if sandbox == "none":
        return None
    if sandbox != "bwrap":
        raise ConfigError(f"unknown sandbox {sandbox!r}")
    from arena.sandbox import bwrap_wrap

    return bwrap_wrap()


def _without_name(name: str, err: Exception) -> str:
    text = str(err)
    return text[len(name) + 2 :] if text.startswith(f"{name}: ") else text


def _game_id(play: bytes) -> str:
    reader = Reader(ToWorker, "the coordinator")
    reader.feed(play)
    message = reader.next()
    if not isinstance(message, Play):
        raise ClusterError(f"a game task was sent a {type(message).__name__}, not a game")
    return str(message.game_id)


def _ensure_bots(setup: Setup, info: RunInfo, bundles: dict[str, bytes], address: str) -> None:
    """Unpack and build here the bots whose bundles came with the task."""
    specs = {info.digests[s.name]: s for s in setup.bots if s.name in info.digests}
    for digest, bundle in bundles.items():
        if digest in _READY:
            continue
        spec = specs.get(digest)
        if spec is None:
            raise ClusterError(f"worker {address}: a bundle of no bot in the league ({digest})")
        try:
            ensure_built(spec, digest, bundle, info.build)
            resolve_command(spec.command, bot_folder(digest))
        except BuildError as err:
            raise ClusterError(
                f"{spec.name}: build failed on worker {address}, which joined after the"
                f" league's bots were built: {_without_name(spec.name, err)}"
            ) from None
        except (BotError, BundleError) as err:
            raise ClusterError(f"worker {address}: {err}") from None
        _READY.add(digest)


_READY: set[str] = set()
"""Digests unpacked and built in this process's cache."""


class _Runs:
    """Each run's setup as this worker plays it (bot folders in its cache), by token."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[str, tuple[Setup, bytes]] = {}

    def get(self, info: RunInfo) -> tuple[Setup, bytes]:
        """(the coordinator's setup, the framed setup for a worker process here)."""
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
        found = (setup, encode(here))
        with self._lock:
            while len(self._runs) >= 16:  # runs whose coordinator never closed them
                del self._runs[next(iter(self._runs))]
            self._runs[info.token] = found
        return found

    def forget(self, token: str) -> None:
        with self._lock:
            self._runs.pop(token, None)


_RUNS = _Runs()


# ---------------------------------------------------------------------- worker processes

_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class _Sub:
    """One `python -m arena.worker` process, spoken to over blocking pipes."""

    def __init__(self, setup: bytes, address: str) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
        self.address = address
        # A session of its own: a Ctrl-C meant for the Dask worker's terminal is not one
        # for the games; the process ends when its input does (the Dask worker died).
        self.process = subprocess.Popen(
            [sys.executable, "-m", "arena.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            start_new_session=True,
        )
        self.used = time.monotonic()
        self._buffer = bytearray()
        self._send(setup)

    def _send(self, frame: bytes) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            stdin.write(frame)
            stdin.flush()
        except (BrokenPipeError, ValueError, OSError) as err:
            raise WorkerProcessDied(
                f"worker {self.address}: its arena worker process died: {err}"
            ) from None

    def play(self, play: bytes, game_id: str, stop: Callable[[], bool]) -> bytes:
        """Send a game and return the worker process's answer; terminate the process
        and raise `_Abandoned` if `stop` says the game is no longer wanted."""
        self._send(play)
        stdout = self.process.stdout
        assert stdout is not None
        fd = stdout.fileno()
        while (frame := self._frame()) is None:
            ready, _, _ = select.select([fd], [], [], _POLL)
            if not ready:
                if stop():
                    self.terminate()
                    raise _Abandoned(f"game {game_id} abandoned: its task was cancelled")
                continue
            data = os.read(fd, 1 << 16)
            if not data:
                code = self.process.poll()
                raise WorkerProcessDied(
                    f"worker {self.address}: its arena worker process ended during"
                    f" {game_id} (exit status {code})"
                )
            self._buffer += data
        reader = Reader(FromWorker, f"the arena worker process on {self.address}")
        reader.feed(frame)
        reply = reader.next()
        if isinstance(reply, Failed):
            raise ClusterError(f"worker {self.address}: {reply.message}")
        if not isinstance(reply, Played) or reply.game_id != game_id:
            raise ClusterError(
                f"worker {self.address}: asked for {game_id}, its worker process answered"
                f" with {getattr(reply, 'game_id', None)}"
            )
        self.used = time.monotonic()
        return frame

    def _frame(self) -> bytes | None:
        """The next whole frame read, or None."""
        if len(self._buffer) < HEADER:
            return None
        size = int.from_bytes(self._buffer[:HEADER], "big")
        if len(self._buffer) < HEADER + size:
            return None
        frame = bytes(self._buffer[: HEADER + size])
        del self._buffer[: HEADER + size]
        return frame

    def alive(self) -> bool:
        return self.process.poll() is None

    def terminate(self) -> None:
        """Stop now: the worker process abandons its game and kills its bots."""
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(signal.SIGTERM)
        self._reap(30.0)

    def close(self) -> None:
        """Close its input: it finishes, says goodbye to its bots and exits."""
        with contextlib.suppress(OSError, ValueError):
            if self.process.stdin is not None:
                self.process.stdin.close()
        self._reap(30.0)

    def _reap(self, seconds: float) -> None:
        """Wait for the process in the background (SIGKILL after `seconds`)."""

        def wait() -> None:
            try:
                self.process.wait(seconds)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            with contextlib.suppress(OSError, ValueError):
                if self.process.stdout is not None:
                    self.process.stdout.close()

        threading.Thread(target=wait, name="arena-reap", daemon=True).start()


class _Pool:
    """This Dask worker's arena worker processes, by run: one per game at once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: dict[str, list[_Sub]] = {}
        self._busy: dict[str, set[_Sub]] = {}
        self._closed: dict[str, None] = {}
        self._reaper: threading.Thread | None = None
        self._worker: Worker | None = None
        self._keys: dict[str, set[str]] = {}
        """Per run, the keys of the data its games depend on (the coordinator's)."""

    def watch(self, token: str, worker: Worker | None) -> None:
        """Note the data the current game task of run `token` depends on: while the
        scheduler knows none of it, the run's coordinator is gone."""
        if worker is None:
            return
        try:
            task = worker.state.tasks[worker.get_current_task()]
            keys = {str(dependency.key) for dependency in task.dependencies}
        except (AttributeError, KeyError, ValueError):
            return
        with self._lock:
            self._worker = worker
            self._keys.setdefault(token, set()).update(keys)

    def take(self, token: str, setup: bytes, address: str) -> _Sub:
        with self._lock:
            if token in self._closed:
                raise _Abandoned(f"run {token} is over")
            idle = self._idle.get(token, [])
            while idle:
                sub = idle.pop()
                if sub.alive():
                    self._busy.setdefault(token, set()).add(sub)
                    return sub
                sub.close()
            if self._reaper is None:
                self._reaper = threading.Thread(target=self._reap, name="arena-idle", daemon=True)
                self._reaper.start()
        sub = _Sub(setup, address)
        with self._lock:
            self._busy.setdefault(token, set()).add(sub)
        return sub

    def give_back(self, token: str, sub: _Sub, reuse: bool) -> None:
        with self._lock:
            self._busy.get(token, set()).discard(sub)
            if reuse and token not in self._closed and sub.alive():
                self._idle.setdefault(token, []).append(sub)
                return
        if not sub.alive():
            return
        if reuse:
            sub.close()  # its run is over
        else:
            sub.terminate()  # a game that did not finish: abandon it

    def close(self, token: str, abandon: bool, final: bool = True) -> int:
        """Close the idle processes of run `token` (`abandon`: the busy ones too); after
        a `final` close the run starts none again."""
        with self._lock:
            if final:
                self._closed[token] = None
                while len(self._closed) > 1000:
                    del self._closed[next(iter(self._closed))]
            idle = self._idle.pop(token, [])
            busy = list(self._busy.get(token, ())) if abandon else []
        for sub in idle:
            sub.close()
        for sub in busy:
            sub.terminate()
        return len(idle) + len(busy)

    def _reap(self) -> None:
        """Close the idle processes of runs that are over, and any idle too long."""
        while True:
            time.sleep(_SWEEP)
            now = time.monotonic()
            old: list[_Sub] = []
            with self._lock:
                for token, subs in self._idle.items():
                    keep = [s for s in subs if now - s.used < IDLE_SECONDS]
                    old += [s for s in subs if s not in keep]
                    self._idle[token] = keep
                quiet = {
                    token: self._keys.get(token, set())
                    for token, subs in self._idle.items()
                    if subs
                    and not self._busy.get(token)
                    and all(now - s.used >= _SWEEP for s in subs)
                }
                worker = self._worker
            for sub in old:
                sub.close()
            for token, keys in quiet.items():
                if keys and worker is not None and not _known(worker, keys):
                    self.close(token, abandon=False, final=False)
                    with self._lock:
                        self._keys.pop(token, None)


def _known(worker: Worker, keys: set[str]) -> bool:
    """Whether the scheduler still holds any of `keys` (True if it cannot be asked)."""
    try:
        from distributed.utils import sync

        found = sync(worker.loop, worker.scheduler.who_has, keys=sorted(keys), callback_timeout=10)
        return any(found.get(key) for key in keys)
    except Exception:  # the scheduler is away: keep the processes until it is back
        return True


_POOL = _Pool()
