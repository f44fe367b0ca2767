"""Ctrl-C lands where the main thread happens to be: trio raises KeyboardInterrupt
there unless the code is protected from it. Raised in the middle of the referee's
handing a game to its thread (after the thread's start, before the wait for it), the
thread's answer later rescheduled a task that had moved on: 'internal error in Trio',
or a hung match (CI's Ctrl-C test; 2 of 300 Ctrl-Cs on a loaded machine, none of 300
after). The places that hand work to threads are protected now, as trio's own thread
calls are, so Ctrl-C reaches them as a cancellation at their next checkpoint."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
import trio

import arena.bots._spawn as spawn_module
from arena.commands._stopping import run_stoppable
from arena.match import run_match
from arena.referee import RunSettings
from arena.rules import GameConfig

from .botscripts import spec


def test_ctrl_c_ignored_at_the_start_stays_ignored() -> None:
    """A job that a script put in the background starts with SIGINT ignored: taking
    it for a stop would end what the user meant to leave running."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:

        async def run() -> str:
            signal.raise_signal(signal.SIGINT)
            await trio.sleep(0.05)
            return "played on"

        assert run_stoppable(run, lambda: "") == "played on"
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
    bots = [spec("good", tmp_path / "pids.txt", name) for name in ("alice", "bob")]
    results, _ = trio.run(
        lambda: run_match(bots, GameConfig(players=2), games=2, seed=1, settings=RunSettings())
    )
    assert len(results) == 2
    assert not any(r.faults for r in results)
    assert len(threads) >= 2  # a thread per game at least
    assert all(threads)
    assert len(spawns) == 2
    assert all(spawns)
