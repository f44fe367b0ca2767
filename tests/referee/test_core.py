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

from arena.bots import BotSpec
from arena.match import run_match
from arena.referee import Clocks, GameResult, RunSettings, _core
from arena.rules import Edition, Format, GameConfig

# A bot whose choices follow from what it is sent (so that two runs are alike), which
# breaks the rules now and then in the ways a referee must contain.
_BOT = r"""
import sys, msgpack
r, w = sys.stdin.buffer, sys.stdout.buffer
kind = sys.argv[1]
acts = 0
def send(m):
    b = msgpack.packb(m)
    w.write(len(b).to_bytes(4, "big") + b)
    w.flush()
while True:
    h = r.read(4)
    if len(h) < 4:
        break
    m = msgpack.unpackb(r.read(int.from_bytes(h, "big")))
    t = m["type"]
    if t == "hello":
        send({"type": "hello", "name": kind, "version": "1", "protocol": 1})
    elif t == "act":
        acts += 1
        legal = len(m["legal"])
        rid = m["request_id"]
        if kind == "crash" and acts == 7:
            sys.exit(3)
        if kind == "illegal" and acts == 5:
            send({"type": "action", "request_id": rid, "choice": legal})
        elif kind == "reorder":  # keys in another order: read through the decoder
            send({"choice": (rid * 7 + m["observation"]["total"]) % legal,
                  "request_id": rid, "type": "action"})
        else:
            send({"type": "action", "request_id": rid,
                  "choice": (rid * 7 + m["observation"]["total"]) % legal})
    elif t == "bye":
        break
"""


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


async def play(config: GameConfig, core: type[_core.CoreAPI]) -> list[GameResult]:
    kinds = ["plain", "crash", "illegal", "reorder", "plain", "reorder"][: config.players]
    specs = [
        BotSpec(name=f"{kind}{i}", command=(sys.executable, "-c", _BOT, kind), folder=None)
        for i, kind in enumerate(kinds)
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
async def test_the_two_cores_play_the_same_games(config: GameConfig) -> None:
    if _core.Core is _core.PyCore:
        pytest.skip("the C core is not built here")
    fast = await play(config, _core.Core)
    slow = await play(config, _core.PyCore)
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
