"""Issue 13.4, 13.5 and Ctrl-C: a Dask worker killed mid-game, a coordinator killed and
restarted, a coordinator stopped with Ctrl-C: no game lost, none counted twice, no bot
left running."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.testing import alive

from .conftest import Cluster, private_cluster
from .helpers import (
    QUICK_ANSWER,
    count_games,
    league_file,
    start_arena,
    stored,
    wait_until,
    witness_bot,
    witness_lines,
)

pytestmark = [pytest.mark.subprocess, pytest.mark.slow]

NAMES = ("ann", "bob", "cat", "dan")


GAMES = 4 * 3  # C(4, 3) tables x 3 rotations


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[object, ...]]:
    """What the league of `slow_bots` stores when run locally, without interruption
    (with quick bots: a witness bot's results do not depend on its delay)."""
    root = tmp_path_factory.mktemp("uninterrupted")
    for name in NAMES:
        witness_bot(root, name)
    path = league_file(root)
    result = CliRunner().invoke(main, ["league", str(path), "-q", "--sandbox", "none", "-j", "2"])
    assert result.exit_code == 0, result.stderr
    return stored(root / "league.sqlite")


def slow_bots(root: Path) -> Path:
    """The league's bots, slow enough that there is time to kill something mid-game."""
    for name in NAMES:
        witness_bot(root, name, delay=0.01)
    return league_file(root)


def test_a_worker_killed_mid_game_costs_nothing(
    tmp_path: Path, cluster: Cluster, uninterrupted: dict[str, tuple[object, ...]]
) -> None:
    slow = tmp_path
    path = slow_bots(slow)
    doomed = cluster.start_worker()  # a third worker, for this test to kill
    args = ["league", str(path), "-q", "--sandbox", "none"]
    proc = start_arena(*args, "--cluster", cluster.address)

    def started_on_doomed() -> list[str]:
        return [g for _, _, grand, _, e, g in witness_lines(slow) if grand == doomed.pid]

    wait_until("a game on the third worker", started_on_doomed, proc)
    doomed.send_signal(signal.SIGKILL)
    doomed.wait()
    cut = started_on_doomed()
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err

    # The game cut short on the dead worker was played again elsewhere, in full.
    notes = witness_lines(slow)
    over_there = {
        g for _, _, grand, _, event, g in notes if grand == doomed.pid and event == "over"
    }
    lost = [g for g in cut if g not in over_there]
    assert lost, "the worker was killed between two games"
    for game_id in lost:
        elsewhere = {(e, grand) for _, _, grand, _, e, g in notes if g == game_id}
        assert {e for e, grand in elsewhere if grand != doomed.pid} == {"start", "over"}
    # Every game is stored once, with the results of an uninterrupted local league.
    results = stored(slow / "league.sqlite")
    assert len(results) == GAMES
    assert results == uninterrupted


def test_an_arena_worker_process_killed_mid_game_costs_nothing(
    tmp_path: Path, cluster: Cluster, uninterrupted: dict[str, tuple[object, ...]]
) -> None:
    """Found in an audit: the arena worker process of a game task killed while the Dask
    worker lived on (the machine's OOM killer, an operator) stopped the whole league
    with 'its arena worker process ended during g000001 (exit status -9)', where a
    dead Dask worker costs only its games in flight. Its games are now played again."""

    slow = tmp_path
    path = slow_bots(slow)
    proc = start_arena("league", str(path), "-q", "--sandbox", "none", "--cluster", cluster.address)

    def started() -> list[tuple[int, str]]:
        return [(parent, g) for _, parent, _, ref, e, g in witness_lines(slow) if e == "start"]

    wait_until("a game started", started, proc)
    parent, game_id = started()[0]
    assert witness_lines(slow)[0][3] == "arena.worker"
    os.kill(parent, signal.SIGKILL)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    notes = witness_lines(slow)
    assert (parent, "over", game_id) not in {(p, e, g) for _, p, _, _, e, g in notes}, (
        "the process was killed between two games"
    )
    over = {g for _, p, _, _, e, g in notes if e == "over" and p != parent}
    assert game_id in over  # played again, in full, by another worker process
    results = stored(slow / "league.sqlite")
    assert len(results) == GAMES
    assert results == uninterrupted  # no fault charged, nothing counted twice


def test_a_game_task_stopped_on_its_worker_while_still_wanted_is_played_again(
    tmp_path: Path, uninterrupted: dict[str, tuple[object, ...]]
) -> None:
    """Found in a clean-clone run: a worker that stopped a game task Dask still wanted
    (taken away to be stolen, then given back when the thief died) sent the task's
    "abandoned" error, and the league stopped with "game g000010 abandoned: its task was
    cancelled" (exit 2). Here a plugin stops the first game task on its worker as it
    starts: the coordinator plays its games again, and the league ends as one that was
    never stopped."""
    from distributed import Client, WorkerPlugin

    class StopTheFirstGame(WorkerPlugin):  # (local: Dask ships it by value)
        name = "test-stop-the-first-game"

        def setup(self, worker: Any) -> None:
            self.worker, self.stopped = worker, False

        def transition(self, key: Any, start: str, finish: str, **kwargs: Any) -> None:
            if (
                not self.stopped
                and finish == "executing"
                and isinstance(key, str)
                and key.startswith("arena-games-")
            ):
                self.stopped = True
                self.worker.plugins["arena"].here.stop(key)

    for name in NAMES:
        witness_bot(tmp_path, name)
    path = league_file(tmp_path)
    with private_cluster(tmp_path / "cluster") as own:
        with Client(own.address, timeout=30) as client:
            client.register_plugin(StopTheFirstGame())
        args = ["league", str(path), "--sandbox", "none", "--cluster", own.address]
        proc = start_arena(*args)
        _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert "abandoned: its task was cancelled; its game(s) are played again" in err
    results = stored(tmp_path / "league.sqlite")
    assert results == uninterrupted


def test_a_scheduler_that_dies_mid_league_is_one_line_and_loses_nothing(tmp_path: Path) -> None:
    """Found in an audit: with the scheduler gone, Dask's client logged the traceback of
    each reconnection refused on the coordinator's terminal before arena's own line."""
    with private_cluster(tmp_path / "cluster") as own:
        path = slow_bots(tmp_path)
        proc = start_arena("league", str(path), "-q", "--sandbox", "none", "--cluster", own.address)
        store = tmp_path / "league.sqlite"
        wait_until("a game stored", lambda: count_games(store) >= 1, proc)
        own.scheduler.send_signal(signal.SIGKILL)
        own.scheduler.wait()
        _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2, err
    assert f"lost the connection to the Dask scheduler at {own.address}" in err
    assert "run the same command to resume" in err
    assert "Traceback" not in err
    assert 1 <= count_games(store) < GAMES


def test_a_killed_coordinator_resumes_and_records_nothing_twice(
    tmp_path: Path, cluster: Cluster, uninterrupted: dict[str, tuple[object, ...]]
) -> None:
    slow = tmp_path
    path = slow_bots(slow)
    args = ["league", str(path), "-q", "--sandbox", "none", "--cluster", cluster.address]
    proc = start_arena(*args)
    store = slow / "league.sqlite"
    wait_until("three games stored", lambda: count_games(store) >= 3, proc)
    proc.send_signal(signal.SIGKILL)  # with games in flight on both workers
    proc.communicate()
    partial = stored(store)
    assert 3 <= len(partial) < GAMES
    # The games of the killed run stop on the workers, and their bots with them.
    deadline = time.monotonic() + 15
    while [pid for pid, *_ in witness_lines(slow) if alive(pid)]:
        assert time.monotonic() < deadline, "bots of the killed coordinator still run"
        time.sleep(0.1)
    again = start_arena(*args)
    _, err = again.communicate(timeout=120)
    assert again.returncode == 0, err
    resumed = stored(store)
    assert {k: resumed[k] for k in partial} == partial  # nothing re-counted
    assert resumed == uninterrupted


def test_ctrl_c_stops_the_cluster_league_and_its_bots(tmp_path: Path, cluster: Cluster) -> None:
    path = slow_bots(tmp_path)
    path.write_text(
        path.read_text().replace("[league]\n", f'[league]\ncluster = "{cluster.address}"\n')
    )
    proc = start_arena("league", str(path), "-q", "--sandbox", "none")  # the cluster from the file
    store = tmp_path / "league.sqlite"
    wait_until("a game stored", lambda: count_games(store) >= 1, proc)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "run the same command to resume" in err
    assert "Traceback" not in err
    notes = witness_lines(tmp_path)
    referees = {parent for _, parent, *_ in notes}
    deadline = time.monotonic() + 10
    while [p for p in {pid for pid, *_ in notes} | referees if alive(p)]:
        assert time.monotonic() < deadline, "bots or worker processes still run"
        time.sleep(0.1)
    results = stored(store)
    assert all(len(game[-1]) == 3 for game in results.values())
    assert 1 <= len(results) < GAMES


def test_a_frozen_worker_is_taken_out_and_its_games_played_elsewhere(
    tmp_path: Path, uninterrupted: dict[str, tuple[object, ...]]
) -> None:
    """Found in an audit: a worker frozen (SIGSTOP: a hung machine, its connections
    open) held the league for ever, with no word, while another worker sat idle."""
    path = slow_bots(tmp_path)
    with private_cluster(tmp_path / "cluster", workers=2) as own:
        frozen = own.workers[1]
        args = ["league", str(path), "--progress", "jsonl", "--sandbox", "none"]
        proc = start_arena(*args, "--cluster", own.address, env=QUICK_ANSWER)

        def started_on_frozen() -> bool:
            return any(grand == frozen.pid for _, _, grand, *_ in witness_lines(tmp_path))

        wait_until("a game on the second worker", started_on_frozen, proc)
        frozen.send_signal(signal.SIGSTOP)
        try:
            out, err = proc.communicate(timeout=300)
        finally:
            frozen.send_signal(signal.SIGCONT)
    assert proc.returncode == 0, err
    assert f"worker {own.worker_address(1)} has not answered for 10 s: taken out" in out
    assert "Traceback" not in err
    assert stored(tmp_path / "league.sqlite") == uninterrupted  # each game once


def _under_way(root: Path, cluster: Cluster) -> tuple[list[str], subprocess.Popen[str]]:
    """The league of `slow_bots` in `root`, on `cluster`, with a game stored: its
    arguments and its process (which notices a silent scheduler or worker quickly)."""
    path = slow_bots(root)
    args = ["league", str(path), "-q", "--sandbox", "none", "--cluster", cluster.address]
    proc = start_arena(*args, env=QUICK_ANSWER)
    wait_until("a game stored", lambda: count_games(root / "league.sqlite") >= 1, proc)
    return args, proc


def test_a_frozen_scheduler_is_one_line_and_the_league_resumes(
    tmp_path: Path, uninterrupted: dict[str, tuple[object, ...]]
) -> None:
    """Found in an audit: a scheduler frozen (SIGSTOP) held the league for ever, with no
    word."""
    store = tmp_path / "league.sqlite"
    with private_cluster(tmp_path / "cluster") as own:
        args, proc = _under_way(tmp_path, own)
        own.scheduler.send_signal(signal.SIGSTOP)
        try:
            _, err = proc.communicate(timeout=300)
        finally:
            own.scheduler.send_signal(signal.SIGCONT)
        assert proc.returncode == 2, err
        assert err == (
            f"arena: error: the Dask scheduler at {own.address} does not answer (no answer"
            " in 10 s); run the same command to resume\n"
        )
        partial = stored(store)
        assert 1 <= len(partial) < GAMES
        again = start_arena(*args)
        _, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    resumed = stored(store)
    assert {k: resumed[k] for k in partial} == partial
    assert resumed == uninterrupted


def test_every_worker_gone_is_one_line_and_loses_nothing(tmp_path: Path) -> None:
    """Found in an audit: every worker killed mid-league gave a 428-line ExceptionGroup
    traceback (shipping the lost data again found no worker) and exit status 1."""
    store = tmp_path / "league.sqlite"
    with private_cluster(tmp_path / "cluster") as own:
        _, proc = _under_way(tmp_path, own)
        own.workers[0].send_signal(signal.SIGKILL)
        own.workers[0].wait()
        _, err = proc.communicate(timeout=300)
    assert proc.returncode == 2, err
    assert err.startswith(f"arena: error: no Dask worker left at {own.address}")
    assert err.endswith(
        f": start `dask worker {own.address}` on each machine, then run the same command to"
        " resume\n"
    )
    assert len(err.splitlines()) == 1, err
    assert 1 <= count_games(store) < GAMES


def test_a_game_stuck_on_a_worker_that_answers_is_given_up_and_played_again(
    tmp_path: Path,
) -> None:
    """A task far past what its games' clocks allow, on a worker that still answers
    (here its arena worker process is frozen), is given up and sent again, not waited
    for for ever."""
    for name in NAMES:
        witness_bot(tmp_path, name, delay=0.01)
    path = league_file(tmp_path, concurrency=2)
    # Clocks that make a game short, and so the time past which a task is given up.
    text = path.read_text().replace("decision_ms = 3000", "decision_ms = 100")
    text = text.replace("exit_grace_ms = 500", "exit_grace_ms = 100")
    text = text.replace("kill_grace_ms = 200", "kill_grace_ms = 50")
    path.write_text(text + "startup_ms = 1000\n[game]\nplay_cap = 10\n")
    with private_cluster(tmp_path / "cluster") as own:
        args = ["league", str(path), "--progress", "jsonl", "--sandbox", "none"]
        proc = start_arena(*args, "--cluster", own.address, env=QUICK_ANSWER)

        def started() -> list[int]:
            return [parent for _, parent, _, _, e, _ in witness_lines(tmp_path) if e == "start"]

        wait_until("a game started", started, proc)
        frozen = started()[0]
        os.kill(frozen, signal.SIGSTOP)
        try:
            out, err = proc.communicate(timeout=300)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(frozen, signal.SIGCONT)
    assert proc.returncode == 0, err
    assert "far past what the clocks allow: given up, played again" in out
    assert len(stored(tmp_path / "league.sqlite")) == GAMES
