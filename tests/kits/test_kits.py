"""The starter kits: their own test suites, and games among all of them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from arena.bots import build, load_manifest
from arena.match import run_match, summarize
from arena.referee import Clocks, RunSettings
from arena.rules import Edition, Format, GameConfig

pytestmark = pytest.mark.subprocess

ROOT = Path(__file__).resolve().parents[2]
KITS = ROOT / "example_bots"
BOTS = [KITS / "python" / "random", KITS / "python" / "heuristic", KITS / "js", KITS / "c"]


def _missing() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed (make test installs it)"
    if not Path("/usr/include/msgpack.h").exists():
        return "libmsgpack-dev is not installed (make test installs it)"
    return None


needs_toolchains = pytest.mark.skipif(_missing() is not None, reason=str(_missing()))


@needs_toolchains
def test_c_kit_suite_passes() -> None:
    done = subprocess.run(
        ["make", "-s", "test"], cwd=KITS / "c", capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


@needs_toolchains
def test_js_kit_suite_passes() -> None:
    subprocess.run(["./build.sh"], cwd=KITS / "js", check=True, capture_output=True)
    done = subprocess.run(
        ["npm", "test", "--silent"], cwd=KITS / "js", capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


@needs_toolchains
@pytest.mark.parametrize(
    "config",
    [
        GameConfig(players=4),
        GameConfig(players=4, edition=Edition.E1980, ono_on_tens=True),
        GameConfig(players=4, format=Format.POINTS, target=80),
        GameConfig(players=4, edition=Edition.E1980, format=Format.TOKENS, tokens=1),
    ],
    ids=["2022-single", "1980-single-tens", "2022-points", "1980-tokens"],
)
async def test_every_kit_plays_with_every_other_without_a_fault(config: GameConfig) -> None:
    specs = [load_manifest(path) for path in BOTS]
    for spec in specs:
        build(spec)
    settings = RunSettings(clocks=Clocks(decision_ms=2000, startup_ms=20000))
    results, started = await run_match(specs, config, games=8, seed=3, settings=settings)
    assert [f for r in results for f in r.faults] == []
    assert all(count == 1 for count in started.values())  # one process each, reused
    rows = summarize([s.name for s in specs], results)
    assert all(row.games == 8 for row in rows)
    assert {r.names for r in results} >= {tuple(s.name for s in specs)}  # seats rotated


@needs_toolchains
async def test_heuristic_bots_beat_random() -> None:
    """Each kit's heuristic wins more two-player games against the random bot than it loses."""
    random_bot = load_manifest(KITS / "python" / "random")
    for path in BOTS[1:]:
        spec = load_manifest(path)
        build(spec)
        results, _ = await run_match(
            [spec, random_bot], GameConfig(players=2), games=60, seed=11,
            settings=RunSettings(),
        )  # fmt: skip
        wins = sum(r.outcome.places[r.names.index(spec.name)] == 1 for r in results)
        assert wins > 30, f"{spec.name} won only {wins} of 60 against random"
