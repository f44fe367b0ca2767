"""Found in an audit: a Dask worker that cannot run the sandbox (bubblewrap installed
where it cannot make namespaces, as in a container without the privilege), or that
runs another arena, crashed every game it was given: every bot was disqualified and
the league exited 0. Such a worker is now named, with why, and given no game (Dask's
resources: `arena.cluster._tasks.gate`), whether it is there at the start or joins
mid-league; nothing is charged to the bots."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arena.records import FAULT_CAUSES

from ..processes import dies_with_us
from .conftest import Cluster, private_cluster
from .helpers import ROOT, stored

pytestmark = [
    pytest.mark.subprocess,
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("ARENA_NO_SANDBOX") == "1", reason="the sandbox needs bubblewrap"
    ),
]

BROKEN_BWRAP = """#!/bin/sh
echo "bwrap: No permissions to create a new namespace" >&2
exit 1
"""

GATED = r"""
import os, random, sys, time, msgpack
here = os.path.dirname(os.path.realpath(__file__))
while not os.path.exists(os.path.join(here, "go")):
    time.sleep(0.05)
r, w = sys.stdin.buffer, sys.stdout.buffer
rng = random.Random()
while True:
    h = r.read(4)
    if len(h) < 4:
        break
    m = msgpack.unpackb(r.read(int.from_bytes(h, "big")))
    t = m["type"]
    if t == "hello":
        b = msgpack.packb({"type": "hello", "name": "gated", "version": "1", "protocol": 1})
    elif t == "game_start":
        rng.seed(f"{m['game_id']}/{m['seat']}")
        continue
    elif t == "act":
        choice = rng.randrange(len(m["legal"]))
        b = msgpack.packb({"type": "action", "request_id": m["request_id"], "choice": choice})
    elif t == "bye":
        break
    else:
        continue
    w.write(len(b).to_bytes(4, "big") + b)
    w.flush()
"""
"""A bot that plays at random once a file `go` is in its folder (on the worker: the
test puts it there once the workers that join late are refused)."""


def gated_bot(root: Path, name: str) -> Path:
    folder = root / "bots" / name
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(GATED)
    (folder / "bot.toml").write_text(f'name = "{name}"\nrun = "python3 bot.py"\n')
    return folder


def other_arena(root: Path) -> Path:
    """A copy of arena that says it is another version, for a worker's PYTHONPATH."""
    copy = root / "other" / "arena"
    shutil.copytree(ROOT / "arena", copy, ignore=shutil.ignore_patterns("__pycache__"))
    init = copy / "__init__.py"
    init.write_text(re.sub(r'__version__ = ".*"', '__version__ = "0.0.9"', init.read_text()))
    return copy.parent


def broken_bwrap(root: Path) -> Path:
    """A folder whose `bwrap` fails as it does where namespaces cannot be made: first
    on a worker's PATH, the worker cannot run bots in the sandbox."""
    broken = root / "broken-bwrap"
    broken.mkdir()
    (broken / "bwrap").write_text(BROKEN_BWRAP)
    (broken / "bwrap").chmod(0o755)
    return broken


def start_league(args: list[str], log: Path) -> subprocess.Popen[bytes]:
    """`arena ARGS` in a process of its own, its output in `log`."""
    with open(log, "wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "arena.cli", *args], cwd=ROOT, stdout=out,
            stderr=subprocess.STDOUT, preexec_fn=dies_with_us(),
        )  # fmt: skip


def wait_for(what: str, test: object, proc: subprocess.Popen[bytes], log: Path) -> None:
    assert callable(test)
    deadline = time.monotonic() + 120
    while not test():
        if proc.poll() is not None:
            raise AssertionError(f"the league ended before {what}: {log.read_text()}")
        assert time.monotonic() < deadline, f"no {what}: {log.read_text()}"
        time.sleep(0.05)


def test_a_worker_that_cannot_sandbox_or_runs_another_arena_gets_no_game(
    tmp_path: Path,
) -> None:
    broken = broken_bwrap(tmp_path)
    for name in ("ann", "bob", "cat"):
        gated_bot(tmp_path, name)
    with private_cluster(tmp_path / "cluster", workers=1) as cluster:
        cluster.start_worker(path=broken)  # there from the start
        log = tmp_path / "league.log"
        args = [
            "league", "--bots", str(tmp_path / "bots"), "--store", str(tmp_path / "l.sqlite"),
            "--table-size", "2", "--games-per-table", "2", "--sandbox", "bwrap",
            "--decision-ms", "60000", "--fault-limit", "2", "--cluster", cluster.address,
        ]  # fmt: skip
        proc = start_league(args, log)
        try:
            first = cluster.worker_address(1)
            said = f"cluster: worker {first} is given no game: it cannot run bots in the sandbox"
            wait_for("word of the broken worker", lambda: said in log.read_text(), proc, log)
            # Games wait for `go` on the good worker; two more join meanwhile.
            cluster.start_worker(path=broken)
            cluster.start_worker(pythonpath=other_arena(tmp_path))
            late, other = cluster.worker_address(2), cluster.worker_address(3)
            for address in (late, other):
                said = f"cluster: worker {address} joined and is given no game"
                wait_for(f"word of {address}", lambda s=said: s in log.read_text(), proc, log)
            for folder in cluster.cache(0).iterdir():
                if folder.is_dir():
                    (folder / "go").write_text("")
            assert proc.wait(180) == 0, log.read_text()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    text = log.read_text()
    assert "Traceback" not in text
    assert f"worker {late} joined and is given no game: it cannot run bots in the sandbox" \
        " bwrap: bwrap failed: bwrap: No permissions to create a new namespace" in text  # fmt: skip
    assert f"worker {other} joined and is given no game: it runs arena 0.0.9, this" in text
    games = stored(tmp_path / "l.sqlite")
    assert len(games) == 3 * 2
    assert all(status == "done" for _, _, _, status, *_ in games.values()), games
    causes = {seat[-1] for game in games.values() for seat in game[-1]}
    assert not causes & set(FAULT_CAUSES), causes  # no fault charged to any bot
    with sqlite3.connect(tmp_path / "l.sqlite") as db:
        assert {s for (s,) in db.execute("SELECT status FROM bots")} == {"ok"}
    for index in (1, 2, 3):  # the refused workers built nothing, played nothing
        assert not cluster.cache(index).exists() or not any(cluster.cache(index).iterdir())


def test_a_late_worker_without_a_toolchain_names_the_bot(tmp_path: Path) -> None:
    """Found in an audit: the error named the worker only, and talked of shell syntax
    (the build's command line holds a `>`) where the program was simply not there."""
    from .helpers import count_games, league_file, start_arena, wait_until, witness_bot

    with private_cluster(tmp_path / "cluster", workers=1) as cluster:
        tool = cluster.tools / "cluster-test-tool"  # on the first worker's PATH only
        tool.write_text('#!/bin/sh\nexec "$@"\n')
        tool.chmod(0o755)
        for name in ("ann", "bob"):
            witness_bot(tmp_path, name, delay=0.01)
        witness_bot(tmp_path, "tooled", delay=0.01, build="cluster-test-tool true > built")
        path = league_file(tmp_path, table_size=2, games_per_table=40, duplicate=False)
        proc = start_arena("league", str(path), "-q", "--sandbox", "none", "--cluster",
                           cluster.address)  # fmt: skip
        store = tmp_path / "league.sqlite"
        wait_until("a game stored", lambda: count_games(store) >= 1, proc)
        cluster.start_worker()  # without the tool
        cluster.workers[0].kill()
        cluster.workers[0].wait()
        _, err = proc.communicate(timeout=180)
        late = cluster.worker_address(1)
    assert proc.returncode == 2, err
    assert "Traceback" not in err
    assert (
        f"arena: error: worker {late} lacks what tooled needs, which other workers have:"
        " command 'cluster-test-tool' not found on the PATH. Install the bots' toolchains"
        " on every worker (or stop that worker)" in err
    )
    assert "shell" not in err


def _build_restrictions(dask_scheduler: Any) -> dict[str, dict[str, object]]:
    """The resources each of arena's build tasks on the scheduler requires, and whether
    its restrictions are loose (other workers allowed: Dask's stealing then ignores
    them all, resources too)."""
    return {
        str(key): {
            "resources": dict(task.resource_restrictions or {}),
            "loose": task.loose_restrictions,
        }
        for key, task in dask_scheduler.tasks.items()
        if str(key).startswith("arena-build-")
    }


def test_a_build_is_never_run_on_a_worker_that_cannot_run_bots(tmp_path: Path) -> None:
    """A build is addressed to a fit worker, with other workers allowed (a worker that
    leaves must not hold it for ever); Dask then let a busy worker's build be stolen by
    an idle one, also by a worker that cannot run bots, whose report stopped the league
    ("worker ... cannot run bots", once with two CPU hogs). A build then required the gate
    that only fit workers declare, as a game does, but stealing ignores every
    restriction of a task that allows other workers: the unfit worker, given a build
    that needs a resource it lacks, crashed, with the bundle scattered to it, and the
    league stopped (once more with two CPU hogs). A build is now on its worker alone,
    with the gate: seen on the scheduler while the builds run."""
    from arena.cluster._tasks import gate

    broken = broken_bwrap(tmp_path)
    for name in ("ann", "bob"):
        folder = gated_bot(tmp_path, name)
        with (folder / "bot.toml").open("a") as manifest:
            manifest.write('build = "sleep 60"\n')
    with private_cluster(tmp_path / "cluster", workers=1) as cluster:
        cluster.start_worker(path=broken)
        proc, _, found = league_until_its_builds(tmp_path, cluster, 2)
        proc.kill()
        proc.wait()
    assert all(
        needs == {"resources": {gate("bwrap"): 1}, "loose": False} for needs in found.values()
    ), found


def test_a_worker_that_leaves_during_the_builds_does_not_hold_the_league(tmp_path: Path) -> None:
    """A build is on its worker alone (above): one whose worker leaves before it is done
    would wait for that worker for ever. The builds' wait drops it, and the league plays
    its games on the workers left."""
    for name in ("ann", "bob"):
        folder = gated_bot(tmp_path, name)
        (folder / "go").touch()
        with (folder / "bot.toml").open("a") as manifest:
            manifest.write('build = "sleep 3"\n')
    with private_cluster(tmp_path / "cluster", workers=2) as cluster:
        proc, log, _ = league_until_its_builds(tmp_path, cluster, 4)
        try:
            cluster.workers[1].kill()
            cluster.workers[1].wait()
            assert proc.wait(timeout=300) == 0, log.read_text()
        finally:
            proc.kill()
            proc.wait()
    with sqlite3.connect(tmp_path / "l.sqlite") as db:
        (done,) = db.execute("SELECT count(*) FROM games WHERE status = 'done'").fetchone()
    assert done == 2, log.read_text()


def league_until_its_builds(
    root: Path, cluster: Cluster, count: int
) -> tuple[subprocess.Popen[bytes], Path, dict[str, dict[str, object]]]:
    """A league of the bots in root/bots on `cluster` (its store root/l.sqlite, its
    output in root/league.log), started, once `count` builds are on the scheduler: its
    process, its output, and the builds' restrictions (`_build_restrictions`)."""
    from distributed import Client

    log = root / "league.log"
    args = [
        "league", "--bots", str(root / "bots"), "--store", str(root / "l.sqlite"),
        "--table-size", "2", "--games-per-table", "2", "--sandbox", "bwrap",
        "--cluster", cluster.address,
    ]  # fmt: skip
    proc = start_league(args, log)
    found: dict[str, dict[str, object]] = {}
    try:
        with Client(cluster.address, timeout=30) as client:

            def builds_submitted() -> bool:
                found.update(client.run_on_scheduler(_build_restrictions))
                return len(found) >= count

            wait_for("the builds on the scheduler", builds_submitted, proc, log)
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    return proc, log, found
