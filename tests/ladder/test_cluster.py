"""Issue 45.1: `arena ladder serve --cluster` plays the ladder's games on a real Dask
cluster (a `dask scheduler` and a `dask worker`, processes of their own on 127.0.0.1,
as tests/cluster starts them): submissions are built and checked here, then built
again on the worker, and every game is a task the worker ran."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from ..cluster.conftest import private_cluster
from .helpers import Server, add_author, arena, bot_folder, wait_until

pytestmark = [
    pytest.mark.subprocess,
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("ARENA_NO_SANDBOX") == "1", reason="the ladder needs bubblewrap"
    ),
]


def _wait(check: Any, seconds: float = 240, what: str = "") -> Any:
    return wait_until(check, seconds, what)


def _games(store: Path) -> int:
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
        return int(db.execute("SELECT count(*) FROM games").fetchone()[0])


def _tasks_done(address: str) -> dict[str, int]:
    """The tasks the scheduler has seen finish, by the prefix of their keys."""
    from distributed import Client

    def count(dask_scheduler: Any) -> dict[str, int]:
        return {
            name: prefix.state_counts.get("memory", 0) + prefix.state_counts.get("forgotten", 0)
            for name, prefix in dask_scheduler.task_prefixes.items()
        }

    with Client(address, timeout=30) as client:
        done: dict[str, int] = client.run_on_scheduler(count)
    return done


def test_a_ladder_on_a_cluster_plays_its_games_there(tmp_path: Path) -> None:
    with private_cluster(tmp_path / "cluster", workers=1) as cluster:
        store = tmp_path / "ladder.sqlite"
        tokens = {name: add_author(store, name) for name in ("alice", "bob")}
        server = Server(store, "--table-size", "2", "--cluster", cluster.address)
        try:
            for name, author in (("alicebot", "alice"), ("bobbot", "bob")):
                folder = bot_folder(tmp_path, name)
                done = arena("submit", str(folder), "--to", server.url, "--token", tokens[author])
                assert done.returncode == 0, done.stderr
            _wait(lambda: _games(store) >= 4, what=f"games; the ladder said {server.logged()}")
            assert f"cluster {cluster.address}: 1 worker(s), 1 thread(s)" in server.logged()
            tasks = _tasks_done(cluster.address)
            assert tasks.get("arena-games", 0) >= 1, tasks
            assert tasks.get("arena-build", 0) >= 2, tasks  # each version, on the worker
            assert any(cluster.cache(0).iterdir())  # the bots' bundles, on the worker
        finally:
            server.stop()
        # Settled on the cluster too (it played on this machine, the option ignored).
        before = _tasks_done(cluster.address).get("arena-games", 0)
        settled = arena(
            "ladder", "settle", str(store), "--top", "2", "--budget", "4",
            "--cluster", cluster.address,
        )  # fmt: skip
        assert settled.returncode == 0, settled.stderr
        last = settled.stdout.splitlines()[-1]
        assert last.startswith(("settled: every pair", "not settled: the budget")), settled.stdout
        if "settling:" in settled.stderr:  # not separated yet: it played, there
            assert f"cluster {cluster.address}: 1 worker(s)" in settled.stderr
            assert _tasks_done(cluster.address).get("arena-games", 0) > before
    standings = arena("standings", str(store))
    assert standings.returncode == 0, standings.stderr
    assert "alicebot.v1" in standings.stdout
    assert "bobbot.v1" in standings.stdout
