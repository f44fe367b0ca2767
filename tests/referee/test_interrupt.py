"""Ctrl-C lands where the main thread happens to be. As a KeyboardInterrupt raised in
the middle of the referee's bookkeeping, it broke trio itself: between a game's handing
itself to its thread and its wait for the thread, the thread's answer later
rescheduled a task that had moved on ('internal error in Trio', or a hung match; seen
in CI about one Ctrl-C in a hundred on a loaded machine). A command now takes Ctrl-C
as it takes SIGTERM, as a cancellation at a checkpoint, and the places that hand work
to threads are protected from KeyboardInterrupt, as trio's own thread calls are."""

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


def test_ctrl_c_stops_a_run_at_a_checkpoint_not_in_the_middle_of_its_code() -> None:
    steps: list[str] = []
    kept: list[str] = []

    async def run() -> None:
        signal.raise_signal(signal.SIGINT)  # as if Ctrl-C came in this very line
        steps.append("the synchronous code after it ran to its end")
        await trio.sleep_forever()

    def stored() -> str:
        kept.append("asked")
        return " after 0 games"

    with pytest.raises(SystemExit) as stopped:
        run_stoppable(run, stored)
    assert stopped.value.code == 130
    assert steps == ["the synchronous code after it ran to its end"]
    assert kept == ["asked"]


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
