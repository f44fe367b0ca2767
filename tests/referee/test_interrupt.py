"""Ctrl-C lands where the main thread happens to be: trio raises KeyboardInterrupt
there unless the code is protected from it. Raised in the middle of the referee's
handing a game to its thread (after the thread's start, before the wait for it), the
thread's answer later rescheduled a task that had moved on: 'internal error in Trio',
or a hung match (CI's Ctrl-C test; 2 of 300 Ctrl-Cs on a loaded machine, none of 300
after). The places that hand work to threads are protected now, as trio's own thread
calls are, so Ctrl-C reaches them as a cancellation at their next checkpoint."""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio

import arena.bots._spawn as spawn_module
from arena.commands._stopping import run_stoppable
from arena.match import run_match
from arena.referee import RunSettings, _driver
from arena.rules import GameConfig
from arena.testing import spec


def test_ctrl_c_stops_a_run_at_a_checkpoint_not_wherever_the_code_is() -> None:
    """trio raised Ctrl-C's KeyboardInterrupt in whatever unprotected code ran, trio's
    own `start_soon` among it: a child task was left in a nursery, never scheduled,
    and `arena match` hung (once in 100-300 stops under load). A run now takes SIGINT
    as it takes SIGTERM: the code it lands in runs on, and the run stops at its next
    checkpoint, with the status of an interrupt."""
    caught: list[str] = []

    async def run() -> str:
        try:
            signal.raise_signal(signal.SIGINT)
            total = 0
            for i in range(10_000):  # unprotected code, where the interrupt was raised
                total += i
        except KeyboardInterrupt:
            caught.append("raised in the middle of unprotected code")
            raise
        await trio.sleep(5)
        return "played on"

    with pytest.raises(SystemExit) as stopped:
        run_stoppable(run, lambda: "")
    assert stopped.value.code == 130
    assert caught == []


def test_ctrl_c_stops_a_run_started_with_it_ignored() -> None:
    """A job that a script put in the background starts with SIGINT ignored. It was
    kept ignored, but the worker processes took it: a SIGINT to the job's group
    stopped them and arena failed ("a worker process died while playing ..."). SIGINT
    now stops a run the same way whoever started it (issue 44.5)."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:

        async def run() -> str:
            signal.raise_signal(signal.SIGINT)
            await trio.sleep(5)
            return "played on"

        with pytest.raises(SystemExit) as stopped:
            run_stoppable(run, lambda: "")
        assert stopped.value.code == 130
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_games_thread_and_a_bots_spawn_are_protected_from_keyboard_interrupt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[bool] = []
    spawns: list[bool] = []
    start_thread_soon = trio.lowlevel.start_thread_soon
    spawner = spawn_module._spawner

    def thread_spy(*args: object, **kwargs: object) -> None:
        threads.append(trio.lowlevel.currently_ki_protected())
        start_thread_soon(*args, **kwargs)  # type: ignore[arg-type]

    def spawner_spy() -> object:
        spawns.append(trio.lowlevel.currently_ki_protected())
        return spawner()

    monkeypatch.setattr(trio.lowlevel, "start_thread_soon", thread_spy)
    monkeypatch.setattr(spawn_module, "_spawner", spawner_spy)
    # A driver of its own: the last test's thread, slow to see it has no game left on a
    # busy machine, would take this test's first game without a new start.
    monkeypatch.setattr(_driver, "_DRIVERS", {})
    bots = [spec("good", tmp_path / "pids.txt", name) for name in ("alice", "bob")]
    results, _ = trio.run(
        lambda: run_match(bots, GameConfig(players=2), games=2, seed=1, settings=RunSettings())
    )
    assert len(results) == 2
    assert not any(r.faults for r in results)
    assert threads  # the driver's thread, started once or again for the second game
    assert all(threads)
    assert len(spawns) == 2
    assert all(spawns)


@pytest.mark.subprocess
def test_ctrl_c_in_the_main_task_during_a_spawn_kills_and_reaps_what_it_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """`arena check-bot` spawns its bot from trio's main task, where trio raises a
    pending KeyboardInterrupt at the next blocking wait whatever the KI protection and
    shields: in spawn's wait for the fork. The started process was lost there (its pipes
    closed, never killed or reaped, running on in its own session), and the fork's
    wake-up, after trio.run had ended, logged a RunFinishedError traceback.

    Real process, real SIGINT, nothing left to timing: the fork (a shell that starts a `sleep` in
    its group) sends SIGINT to this process and ends only once that interrupt has been
    raised in spawn's wait; the fork's wake-up waits for trio.run to have ended. Proves:
    the interrupt still reaches the caller; spawn waited for the fork and killed and
    reaped the process it started (its returncode is set: nobody else reaps it), and its
    whole process group (the `sleep` too); and the late wake-up logs nothing."""
    pidfile = tmp_path / "grandchild.pid"
    started: list[subprocess.Popen[bytes]] = []
    interrupted = threading.Event()  # the KeyboardInterrupt was raised in spawn's wait
    run_over = threading.Event()  # trio.run has ended
    real_event = trio.Event

    class InterruptedFork(subprocess.Popen[bytes]):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            started.append(self)
            deadline = time.monotonic() + 60
            while not (pidfile.exists() and pidfile.read_text().endswith("\n")):
                assert time.monotonic() < deadline, "the shell never started its sleep"
                time.sleep(0.01)
            os.kill(os.getpid(), signal.SIGINT)
            interrupted.wait(timeout=60)

    class WatchedEvent:
        def __init__(self) -> None:
            self._event = real_event()

        def set(self) -> None:
            self._event.set()

        async def wait(self) -> None:
            try:
                await self._event.wait()
            except BaseException:
                interrupted.set()
                raise

    class TrioInSpawn:  # trio as _spawn sees it: its Event is watched
        Event = WatchedEvent

        def __getattr__(self, name: str) -> object:
            return getattr(trio, name)

    class Future:  # the fork's future, whose wake-up comes once trio.run has ended
        def __init__(self, future: concurrent.futures.Future[object]) -> None:
            self._future = future

        def result(self, timeout: float | None = None) -> object:
            return self._future.result(timeout)

        def add_done_callback(self, fn: Callable[[object], None]) -> None:
            def late(future: object) -> None:
                run_over.wait(timeout=60)
                fn(future)

            self._future.add_done_callback(late)

    class Spawner:
        def submit(self, fn: Callable[[], object]) -> Future:
            return Future(spawner.submit(fn))

    spawner = spawn_module._spawner()
    monkeypatch.setattr(subprocess, "Popen", InterruptedFork)
    monkeypatch.setattr(spawn_module, "trio", TrioInSpawn())
    monkeypatch.setattr(spawn_module, "_spawner", Spawner)
    command = ["/bin/sh", "-c", f"sleep 600 & echo $! > {pidfile}; wait"]

    async def main() -> None:
        await spawn_module.spawn(
            command, cwd=str(tmp_path), env={"PATH": "/usr/bin:/bin"}, preexec_fn=None
        )

    try:
        with pytest.raises(KeyboardInterrupt):
            trio.run(main)
        run_over.set()
        spawner.submit(lambda: None).result(timeout=60)  # the fork and its wake-up done
        assert interrupted.is_set(), "the interrupt did not land in spawn's wait"
        assert len(started) == 1
        grandchild = int(pidfile.read_text())
        assert started[0].returncode == -signal.SIGKILL, "the started process was lost"
        deadline = time.monotonic() + 60
        while _running(grandchild):
            assert time.monotonic() < deadline, "the process's group was not killed"
            time.sleep(0.01)
        assert not [r for r in caplog.records if r.name == "concurrent.futures"]
    finally:
        run_over.set()
        for process in started:  # whatever the outcome, nothing is left running
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        if pidfile.exists() and pidfile.read_text().endswith("\n"):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(int(pidfile.read_text()), signal.SIGKILL)


def _running(pid: int) -> bool:
    """Whether `pid` runs (a zombie waiting for its reaper does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


SECOND_SIGTERM = """
import signal, trio
from arena.commands._stopping import run_stoppable

async def run():
    signal.raise_signal(signal.SIGTERM)
    await trio.sleep(30)

def stored():
    signal.raise_signal(signal.SIGTERM)  # a second one, while the last words are said
    return ": 3 games are stored in s.sqlite"

run_stoppable(run, stored)
"""


def test_a_second_sigterm_while_a_stopped_run_says_what_it_kept_is_held() -> None:
    """SIGTERM twice, 20-80 ms apart (a supervisor that repeats itself): the second
    came once trio had put the default handler back, and killed arena before it said
    what was stored and how to resume (the audit: on all 7 stops)."""
    done = subprocess.run(
        [sys.executable, "-c", SECOND_SIGTERM], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stderr) == (
        143, "\nterminated: 3 games are stored in s.sqlite; run the same command to resume\n"
    )  # fmt: skip


def test_the_handlers_are_put_back_after_a_run() -> None:
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}

    async def run() -> str:
        await trio.lowlevel.checkpoint()
        return "done"

    assert run_stoppable(run, lambda: "") == "done"
    assert {s: signal.getsignal(s) for s in before} == before

    async def stopped() -> str:
        signal.raise_signal(signal.SIGTERM)
        await trio.sleep(30)
        return "played on"

    with pytest.raises(SystemExit):
        run_stoppable(stopped, lambda: "")
    assert {s: signal.getsignal(s) for s in before} == before
