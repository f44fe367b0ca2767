"""Found in an audit: Ctrl-C during the cluster's builds left them running on the
workers (up to --build-timeout, 10 minutes), and the next run then failed after a
minute saying that arena was not installed. A stopped run now stops its builds there
too, and a first task that waits for busy workers says so."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.cluster import _runner
from arena.testing import alive

from .conftest import Cluster, private_cluster
from .helpers import league_file, start_arena, wait_until, witness_bot

pytestmark = [pytest.mark.subprocess, pytest.mark.slow]

SLOW_BUILD = (
    "import os, sys, time\nopen(sys.argv[1], 'a').write(f'{os.getpid()}\\n')\ntime.sleep(600)\n"
)


def test_ctrl_c_during_the_builds_stops_them_on_the_workers(
    tmp_path: Path, cluster: Cluster
) -> None:
    witness_bot(tmp_path, "ann")
    pids = tmp_path / "build-pids"
    slow = witness_bot(tmp_path, "slow", build=f"python3 build.py {pids}")
    (slow / "build.py").write_text(SLOW_BUILD)
    path = league_file(tmp_path, table_size=2, games_per_table=2)
    proc = start_arena("league", str(path), "-q", "--sandbox", "none", "--cluster", cluster.address)

    def building() -> list[int]:
        return [int(x) for x in pids.read_text().split()] if pids.exists() else []

    try:
        wait_until("the builds on both workers", lambda: len(building()) == 2, proc)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, err
        assert "Traceback" not in err
        deadline = time.monotonic() + 30  # (the build would run on for 600 s)
        while [pid for pid in building() if alive(pid)]:
            assert time.monotonic() < deadline, "the builds still run on the workers"
            time.sleep(0.1)
    finally:  # (whatever the outcome, no build of this test is left running)
        for pid in building():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def test_a_first_task_that_waits_for_busy_workers_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from distributed import Client, Event

    witness_bot(tmp_path, "ann")
    witness_bot(tmp_path, "bob")
    path = league_file(tmp_path, table_size=2, games_per_table=2)
    monkeypatch.setattr(_runner, "PROBE_SECONDS", 1.0)
    with private_cluster(tmp_path / "cluster") as own, Client(own.address) as client:
        release = Event("release", client=client)

        def hold() -> None:
            Event("release").wait(300)

        held = client.submit(hold, pure=False)
        wait = time.monotonic() + 60
        while not client.processing().get(next(iter(client.nthreads())), ()):
            assert time.monotonic() < wait
            time.sleep(0.05)
        try:
            done = CliRunner().invoke(
                main, ["league", str(path), "--sandbox", "none", "--cluster", own.address]
            )
        finally:
            release.set()
            held.result(60)
    assert done.exit_code == 2, done.stderr
    assert "every worker thread is busy (1 of 1 running tasks" in done.stderr
    assert "install arena" not in done.stderr
