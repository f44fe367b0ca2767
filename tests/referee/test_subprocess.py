"""Real bot processes that misbehave: each is contained, and nothing is left running."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from arena.bots import Limits
from arena.match import run_match
from arena.referee import Clocks, GameResult, RunSettings
from arena.rules import GameConfig

from .botscripts import alive, pids, spec

pytestmark = pytest.mark.subprocess

FAST = Clocks(decision_ms=2000, startup_ms=10000, grace_ms=50, exit_grace_ms=500, kill_grace_ms=200)


async def play(
    tmp_path: Path,
    behaviour: str,
    *,
    games: int = 2,
    clocks: Clocks = FAST,
    limits: Limits = Limits(),
    fresh: bool = False,
) -> tuple[list[GameResult], dict[str, int], list[int]]:
    bad_pids = tmp_path / "bad.pids"
    good_pids = tmp_path / "good.pids"
    specs = [spec(behaviour, bad_pids, name="bad"), spec("good", good_pids, name="good")]
    settings = RunSettings(
        clocks=clocks, limits=limits, fresh_process=fresh, log_dir=tmp_path / "logs"
    )
    results, started = await run_match(
        specs, GameConfig(players=2), games=games, seed=5, settings=settings
    )
    everyone = pids(bad_pids) + pids(good_pids)
    assert everyone, "the bots ran"
    # SIGKILL is delivered when the process next runs: on a loaded machine a killed
    # child may take a moment to die (seen in CI). A leak stays alive past 5 s.
    for _ in range(100):
        if not [p for p in everyone if alive(p)]:
            break
        await trio.sleep(0.05)
    assert [p for p in everyone if alive(p)] == [], "no stray process is left"
    return results, started, pids(bad_pids)


def bad_faults(results: list[GameResult]) -> list[str]:
    return [f.cause for r in results for f in r.faults if r.names[f.seat] == "bad"]


async def test_good_bots_reuse_their_processes(tmp_path: Path) -> None:
    results, started, _ = await play(tmp_path, "good", games=4)
    assert bad_faults(results) == []
    assert started == {"bad": 1, "good": 1}
    assert all(sorted(r.outcome.places) == [1, 2] for r in results)


async def test_fresh_process_per_game(tmp_path: Path) -> None:
    results, started, _ = await play(tmp_path, "good", games=3, fresh=True)
    assert started == {"bad": 3, "good": 3}
    assert bad_faults(results) == []


async def test_hang_is_a_timeout_and_a_fresh_process_plays_the_next_game(tmp_path: Path) -> None:
    clocks = Clocks(decision_ms=300, grace_ms=50, exit_grace_ms=300, kill_grace_ms=200)
    results, started, _ = await play(tmp_path, "hang", clocks=clocks)
    assert bad_faults(results) == ["timeout", "timeout"]
    assert started["bad"] == 2
    assert started["good"] == 1
    assert all(r.outcome.places[r.names.index("good")] == 1 for r in results)


async def test_crash_at_start(tmp_path: Path) -> None:
    results, _, _ = await play(tmp_path, "crash_at_start")
    assert bad_faults(results) == ["crash", "crash"]


async def test_crash_mid_game(tmp_path: Path) -> None:
    results, _, _ = await play(tmp_path, "crash_mid_game", games=1)
    assert bad_faults(results) in (["crash"], [])  # the game may end before the third act
    if bad_faults(results):
        assert results[0].faults[0].plays >= 4


async def test_garbage_is_malformed(tmp_path: Path) -> None:
    results, _, _ = await play(tmp_path, "garbage")
    assert bad_faults(results) == ["malformed", "malformed"]


async def test_huge_length_prefix_is_refused(tmp_path: Path) -> None:
    results, _, _ = await play(tmp_path, "huge_length")
    assert bad_faults(results) == ["malformed", "malformed"]
    assert "exceeds the limit" in results[0].faults[0].message


async def test_stdout_flood_is_contained(tmp_path: Path) -> None:
    results, _, _ = await play(tmp_path, "flood_stdout")
    assert bad_faults(results) == ["malformed", "malformed"]


async def test_stderr_flood_is_drained_and_capped(tmp_path: Path) -> None:
    limits = Limits(stderr_kb=64)
    results, _, _ = await play(tmp_path, "flood_stderr", limits=limits, games=1)
    assert bad_faults(results) == []
    log = (tmp_path / "logs" / "bad.log").read_bytes()
    assert 64 * 1024 <= len(log) < 64 * 1024 + 100
    assert log.endswith(b"[arena: stderr log truncated]\n")


async def test_the_log_cap_is_per_bot_not_per_process(tmp_path: Path) -> None:
    """Issue 10.5: a bot that writes 40 KB to stderr and crashes, game after game, gets a
    new process each time; its log stays within its 64 KiB over all of them (it used
    to be 64 KiB per process: 20 MB of log in 40 games)."""
    results, started, _ = await play(
        tmp_path, "stderr_then_crash", limits=Limits(stderr_kb=64), games=6
    )
    assert bad_faults(results) == ["crash"] * 6
    assert started["bad"] == 6
    log = (tmp_path / "logs" / "bad.log").read_bytes()
    assert 64 * 1024 <= len(log) <= 64 * 1024 + 100
    assert log.endswith(b"[arena: stderr log truncated]\n")


async def test_forked_child_is_killed_with_its_parent(tmp_path: Path) -> None:
    results, _, bad = await play(tmp_path, "fork_child", games=1)
    assert len(bad) == 2  # the bot and its child, both gone (checked in play)
    assert bad_faults(results) == []


async def test_bot_ignoring_sigterm_is_killed(tmp_path: Path) -> None:
    start = trio.current_time()
    results, _, _bad = await play(tmp_path, "ignore_sigterm", games=1)
    assert bad_faults(results) == []
    assert trio.current_time() - start < 10


async def test_memory_hog_hits_the_address_space_limit(tmp_path: Path) -> None:
    results, _, _ = await play(tmp_path, "memory_hog", limits=Limits(memory_mb=512), games=1)
    assert bad_faults(results) == ["crash"]
    log = (tmp_path / "logs" / "bad.log").read_text()
    assert "MemoryError" in log
