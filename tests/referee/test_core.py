"""The referee's game core: the C one where it is built, the rules engine otherwise, and
the same games either way (test_fastcore.py compares the two step by step)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path
from typing import Any

import pytest

from arena.match import run_match
from arena.referee import Clocks, GameResult, RunSettings, _core
from arena.rules import Edition, Format, GameConfig

from .botscripts import spec

CONFIGS = [
    GameConfig(players=3),
    GameConfig(players=4, edition=Edition.E1980, format=Format.POINTS, target=60),
    GameConfig(players=4, edition=Edition.E1980, ono_on_tens=True, format=Format.TOKENS, tokens=1),
    GameConfig(players=3, format=Format.POINTS, target=40),
]


def without_times(result: GameResult) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in record.items() if k != "ms"} if record["type"] == "decision" else record
        for record in result.log
    ]


async def play(config: GameConfig, core: type[_core.CoreAPI], tmp_path: Path) -> list[GameResult]:
    kinds = ["varied", "varied_crash", "varied_illegal", "varied_reordered", "varied", "varied"]
    specs = [
        spec(kind, tmp_path / "pids", name=f"{kind}{i}")
        for i, kind in enumerate(kinds[: config.players])
    ]
    kept, _core.Core = _core.Core, core
    try:
        results, _ = await run_match(
            specs, config, games=3, seed=11, settings=RunSettings(clocks=Clocks(decision_ms=5000))
        )
    finally:
        _core.Core = kept
    return results


@pytest.mark.subprocess
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.edition.value}-{c.format.value}")
async def test_the_two_cores_play_the_same_games(config: GameConfig, tmp_path: Path) -> None:
    if _core.Core is _core.PyCore:
        pytest.skip("the C core is not built here")
    fast = await play(config, _core.Core, tmp_path)
    slow = await play(config, _core.PyCore, tmp_path)
    assert [without_times(r) for r in fast] == [without_times(r) for r in slow]
    assert [(r.outcome, r.decisions) for r in fast] == [(r.outcome, r.decisions) for r in slow]
    assert [[(f.seat, f.cause, f.message) for f in r.faults] for r in fast] == [
        [(f.seat, f.cause, f.message) for f in r.faults] for r in slow
    ]
    faults = {f.cause for r in fast for f in r.faults}
    assert {"crash", "illegal"} <= faults, "the games hold the faults they are meant to"


def test_the_referee_plays_on_the_c_core_where_a_compiler_is_found() -> None:
    """make setup compiles the core (hatch_build.py); a machine without a C compiler
    plays on the rules engine."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        pytest.skip(f"no C compiler ({compiler}) here")
    assert _core.CORE_NAME == "C"


def core_name(**env: str) -> str:
    code = "from arena.referee import _core; print(_core.CORE_NAME)"
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def test_arena_pure_python_plays_on_the_rules_engine() -> None:
    assert core_name(ARENA_PURE_PYTHON="1") == "Python"


def test_a_core_older_than_its_source_is_not_used(tmp_path: Path) -> None:
    built, source = tmp_path / "core.so", tmp_path / "core.c"
    built.write_bytes(b"")
    source.write_text("")
    now = time.time()
    os.utime(built, (now, now))
    os.utime(source, (now - 10, now - 10))
    assert _core.usable(str(built), str(source))
    os.utime(source, (now + 10, now + 10))  # edited after the build
    assert not _core.usable(str(built), str(source))
    source.unlink()  # an installed copy, without its source
    assert _core.usable(str(built), str(source))


def test_a_matchs_closing_rating_is_that_of_the_standings() -> None:
    """Issue 44.6: `arena match`'s closing summary counts W/L/D and rates the bots as
    `arena standings` would rate the same games (one fit, not statistics of its own)."""
    from arena.match import rate_match
    from arena.standings import GameRecord, SeatRecord, compute_standings
    from tests.league.test_store_basics import finished

    results = [finished(f"m{k}", k, ("ann", "bob")) for k in range(12)]
    ratings, pair = rate_match(["ann", "bob"], results)
    assert pair is not None
    wins = sum(r.outcome.places[r.names.index("ann")] == 1 for r in results)
    assert (pair.wins, pair.losses, pair.draws) == (wins, 12 - wins, 0)
    records = [
        GameRecord(
            r.game_id,
            None,
            tuple(SeatRecord(n, p) for n, p in zip(r.names, r.outcome.places, strict=True)),
        )
        for r in results
    ]
    table = {row.player: row for row in compute_standings(records).rows}
    assert pair.elo == pytest.approx(table["ann"].elo - table["bob"].elo)
    assert pair.plus_minus == pytest.approx(2 * table["ann"].plus_minus)  # two bots: d = 2a
    assert [r.places for r in ratings] == [(wins, 12 - wins), (12 - wins, wins)]
    assert rate_match(["ann", "bob"], []) == ([], None)
