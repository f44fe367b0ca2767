"""Issue 10.3: sandboxed bots live as long as arena needs them.

bubblewrap's --die-with-parent ties a bot's life to the *thread* that started it; trio
retires idle worker threads after 10 s, so bots started from one were SIGKILLed about
10 s into a league (56 crash faults in 2,400 games of the example bots). arena now
forks every bot from one spawner thread that is never retired.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
import trio

from arena.bots import Limits
from arena.referee import Clocks, RunSettings, open_pools, play_seated
from arena.rules import GameConfig

from .helpers import gone, make_bot, needs_bwrap, reports

pytestmark = [pytest.mark.subprocess, pytest.mark.slow]


@needs_bwrap
async def test_sandboxed_bots_play_on_for_more_than_30_seconds(tmp_path: Path) -> None:
    """Two legal bots under bwrap, one thinking 300 ms per decision, play games for more
    than 30 s: no fault, and neither process is ever replaced."""
    token = f"arena-long-{uuid.uuid4().hex}"
    specs = [
        make_bot(tmp_path / "bots", "thinker", "slow", 300, token=token),
        make_bot(tmp_path / "bots", "quick", "slow", 0, token=token),
    ]
    settings = RunSettings(
        clocks=Clocks(decision_ms=2000, startup_ms=15000),
        log_dir=tmp_path / "logs",
        sandbox="bwrap",
    )
    started = trio.current_time()
    games = 0
    async with open_pools(specs, settings) as pools:
        while trio.current_time() - started < 31:  # three times trio's 10 s idle time
            seats = [pools["thinker"], pools["quick"]][:: 1 if games % 2 else -1]
            result = await play_seated(
                seats, GameConfig(players=2), games, clocks=settings.clocks, game_id=f"g{games}"
            )
            assert result.faults == (), result.faults
            games += 1
        assert {name: pool.started for name, pool in pools.items()} == {"thinker": 1, "quick": 1}
    assert games >= 2
    assert len(reports(tmp_path / "logs" / "thinker.log")) == 1
    assert await gone(token)


@pytest.mark.parametrize("sandboxed", [pytest.param(True, marks=needs_bwrap), False])
async def test_the_cpu_limit_is_per_game_not_per_process(tmp_path: Path, sandboxed: bool) -> None:
    """A legal bot that computes 0.6 s of CPU time in every game, with 1 s allowed per
    game: over 5 games it uses 3 s, more than its process's RLIMIT_CPU (2 s), yet it is
    never faulted: a reused process is replaced before it could reach the limit."""
    token = f"arena-cpu-{uuid.uuid4().hex}"
    specs = [
        make_bot(tmp_path / "bots", "burner", "burn", 600, token=token),
        make_bot(tmp_path / "bots", "quick", "slow", 0, token=token),
    ]
    settings = RunSettings(
        clocks=Clocks(decision_ms=3000, startup_ms=15000),
        limits=Limits(cpu_seconds=1),
        log_dir=tmp_path / "logs",
        sandbox="bwrap" if sandboxed else "none",
    )
    async with open_pools(specs, settings) as pools:
        for game in range(5):
            result = await play_seated(
                [pools["burner"], pools["quick"]],
                GameConfig(players=2),
                game,
                clocks=settings.clocks,
                game_id=f"g{game}",
            )
            assert result.faults == (), result.faults
        assert pools["burner"].started >= 2  # replaced between games, not killed in one
    assert await gone(token)
