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


MOLE_BUILD = (
    "import os, re, sys\n"
    "sys.exit(1 if re.fullmatch(r'[0-9a-f]{16}', os.path.basename(os.getcwd())) else 0)\n"
)
"""Builds where the ladder checks a submission, fails on a Dask worker (whose cache
folders are named by digests)."""


def _submission(store: Path, bot: str) -> tuple[str, str]:
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
        row = db.execute(
            "SELECT state, coalesce(reason, '') FROM ladder_submissions WHERE name = ?", (bot,)
        ).fetchone()
    return (str(row[0]), str(row[1])) if row else ("", "")


def _page(server: Server) -> int:
    import urllib.request

    with urllib.request.urlopen(f"{server.url}/ladder", timeout=30) as answer:
        return int(answer.status)


def test_a_version_that_fails_to_build_on_the_cluster_is_failed_and_the_ladder_plays_on(
    tmp_path: Path,
) -> None:
    """Found in an audit: such a version was made active, then the whole server exited,
    and again at every restart."""
    with private_cluster(tmp_path / "cluster", workers=1) as cluster:
        store = tmp_path / "ladder.sqlite"
        tokens = {name: add_author(store, name) for name in ("alice", "bob", "mallory")}
        server = Server(store, "--table-size", "2", "--cluster", cluster.address)
        try:
            _two_bots_playing(tmp_path, server, store, tokens)
            mole = bot_folder(tmp_path, "mole", build="python3 build.py")
            (mole / "build.py").write_text(MOLE_BUILD)
            done = arena("submit", str(mole), "--to", server.url, "--token", tokens["mallory"])
            assert done.returncode == 0, done.stderr
            _, reason = _wait(
                lambda: (s := _submission(store, "mole"))[0] == "failed" and s,
                what=f"mole failed; the ladder said {server.logged()}",
            )
            assert reason.startswith("build failed on the cluster: build failed on worker")
            assert "build exited with status 1" in reason
            assert server.process.poll() is None, server.logged()
            assert _page(server) == 200
            before = _games(store)
            _wait(lambda: _games(store) > before, what=f"more games; {server.logged()}")
            assert "Traceback" not in server.logged()
        finally:
            server.stop()


def _two_bots_playing(tmp_path: Path, server: Server, store: Path, tokens: dict[str, str]) -> None:
    """alice and bob submit a bot each; wait until the ladder has played two games."""
    for name, author in (("alicebot", "alice"), ("bobbot", "bob")):
        done = arena(
            "submit", str(bot_folder(tmp_path, name)), "--to", server.url,
            "--token", tokens[author],
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    _wait(lambda: _games(store) >= 2, what=f"games; the ladder said {server.logged()}")


def test_a_lost_scheduler_stops_the_games_not_the_server_and_they_go_on(tmp_path: Path) -> None:
    """Found in an audit: a restarted scheduler ended `arena ladder serve`, its web
    pages and its submission API with it."""
    import signal
    import subprocess

    from ..cluster.conftest import DASK, _wait_for
    from ..processes import dies_with_us

    with private_cluster(tmp_path / "cluster", workers=1) as cluster:
        store = tmp_path / "ladder.sqlite"
        tokens = {name: add_author(store, name) for name in ("alice", "bob")}
        server = Server(
            store, "--table-size", "2", "--cluster", cluster.address, "--cluster-retry", "0.2"
        )
        try:
            _two_bots_playing(tmp_path, server, store, tokens)
            cluster.scheduler.send_signal(signal.SIGKILL)
            cluster.scheduler.wait()
            for worker in cluster.workers:
                worker.send_signal(signal.SIGKILL)
                worker.wait()
            _wait(
                lambda: "the games stop; connecting again" in server.logged(),
                what=f"word of the lost cluster; {server.logged()}",
            )
            assert server.process.poll() is None, server.logged()
            assert _page(server) == 200
            # The scheduler back at the same address, with a worker: the games go on.
            port = cluster.address.rsplit(":", 1)[1]
            log = cluster.root / "scheduler2.log"
            with open(log, "wb") as out:
                cluster.scheduler = subprocess.Popen(
                    [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", port,
                     "--no-dashboard"],
                    stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                    preexec_fn=dies_with_us(),
                )  # fmt: skip
            _wait_for(log, "Scheduler at", cluster.scheduler, 60)
            cluster.start_worker()
            _wait(
                lambda: "connected again; the games go on" in server.logged(),
                what=f"a new connection; {server.logged()}",
            )
            before = _games(store)
            _wait(lambda: _games(store) > before, what=f"more games; {server.logged()}")
            assert "Traceback" not in server.logged()
        finally:
            server.stop()
