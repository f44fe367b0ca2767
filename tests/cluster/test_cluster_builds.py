"""Issue 13.2: submissions reach the workers through Dask and are built there; a build
that fails on the workers is reported with the worker's address and its output, and a
worker without a toolchain that the others have stops the league, saying so. (And a
disqualification on the cluster, as in a local league.)"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.testing import script

from .conftest import Cluster
from .helpers import league_file, stored, witness_bot

pytestmark = [pytest.mark.subprocess, pytest.mark.slow]


def test_a_bot_whose_build_fails_on_the_workers_is_left_out(
    tmp_path: Path, cluster: Cluster
) -> None:
    for name in ("ann", "bob", "cat"):
        witness_bot(tmp_path, name)
    # Only the workers have ARENA_TEST_WORKER: this build would pass on the coordinator.
    failing = "sh -c 'echo no compiler on worker $ARENA_TEST_WORKER; test -z $ARENA_TEST_WORKER'"
    witness_bot(tmp_path, "broken", build=failing)
    nowhere = witness_bot(tmp_path, "nowhere")
    (nowhere / "bot.toml").write_text('name = "nowhere"\nrun = "no-such-toolchain bot.py"\n')
    # A bot that crashes at once: disqualified after two faults, as in a local league
    # (one game at a time here, so that the count is exact).
    crasher = tmp_path / "bots" / "crasher"
    crasher.mkdir()
    (crasher / "bot.py").write_text(script("crash_at_start"))
    (crasher / "bot.toml").write_text('name = "crasher"\nrun = "python3 bot.py pids"\n')
    path = league_file(tmp_path, table_size=2, games_per_table=2, concurrency=1, fault_limit=2)
    args = ["league", str(path), "--sandbox", "none", "--cluster", cluster.address]
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 0, done.stderr
    workers = {cluster.worker_address(0): "0", cluster.worker_address(1): "1"}
    line = next(x for x in done.stderr.splitlines() if x.startswith("left out: broken"))
    at = line.split("build failed on worker ")[1].split(": ")[0]
    assert at in workers
    assert line.endswith(f"build exited with status 1: no compiler on worker {workers[at]}")
    assert (
        "left out: nowhere: command 'no-such-toolchain' not found on the PATH (on every worker)"
        in done.stderr
    )
    assert "crasher is disqualified after 2 faults in a row" in done.stderr
    games = stored(tmp_path / "league.sqlite")
    assert len(games) == 6 * 2  # ann, bob, cat, crasher in pairs
    assert {seat[1] for game in games.values() for seat in game[-1]} == {
        "ann", "bob", "cat", "crasher",
    }  # fmt: skip
    causes = [seat[-1] for game in games.values() for seat in game[-1] if seat[1] == "crasher"]
    assert sorted(causes) == ["crash", "crash", "forfeit", "forfeit", "forfeit", "forfeit"]
    with sqlite3.connect(tmp_path / "league.sqlite") as db:
        status = dict(db.execute("SELECT name, status FROM bots").fetchall())
    assert status["broken"] == status["nowhere"] == "build_failed"
    assert status["crasher"] == "disqualified"

    # A tool that the first worker has on its PATH and the second lacks: an error.
    tool = cluster.tools / "cluster-test-tool"
    tool.write_text('#!/bin/sh\nexec "$@"\n')
    tool.chmod(0o755)
    needs = witness_bot(tmp_path, "needs-tool")
    (needs / "bot.toml").write_text(
        'name = "needs-tool"\nrun = "cluster-test-tool python3 bot.py"\n'
    )
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 2
    assert "Traceback" not in done.stderr
    assert (
        f"arena: error: worker {cluster.worker_address(1)} lacks what needs-tool needs, which"
        " other workers have: command 'cluster-test-tool' not found on the PATH. Install the"
        " bots' toolchains on every worker" in done.stderr
    )
