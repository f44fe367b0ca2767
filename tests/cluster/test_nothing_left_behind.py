"""Issue 42.5: a killed test session leaves nothing running. A session SIGKILLed (a CI
timeout, Ctrl-C twice) runs none of its fixtures' clean-up; before, the Dask scheduler
and workers it had started, in sessions of their own, ran on for an hour."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import DASK

pytestmark = [pytest.mark.subprocess, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]

SESSION = """
import sys, time
from pathlib import Path
from tests.cluster.conftest import private_cluster

with private_cluster(Path(sys.argv[1]), workers=1) as cluster:
    pids = [cluster.scheduler.pid] + [w.pid for w in cluster.workers]
    print(" ".join(map(str, pids)), flush=True)
    time.sleep(600)
"""


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not DASK.exists(), reason="dask[distributed] is not installed")
def test_a_killed_session_takes_its_scheduler_and_workers_with_it(tmp_path: Path) -> None:
    with subprocess.Popen(
        [sys.executable, "-c", SESSION, str(tmp_path)],
        cwd=ROOT, stdout=subprocess.PIPE, text=True,
    ) as session:  # fmt: skip
        try:
            assert session.stdout is not None
            pids = [int(pid) for pid in session.stdout.readline().split()]
            assert len(pids) == 2
            assert all(alive(pid) for pid in pids)
        finally:
            session.send_signal(signal.SIGKILL)
    deadline = time.monotonic() + 30  # the kernel signals them at once; they may take a moment
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [pid for pid in pids if alive(pid)]
    for pid in left:  # (so that a failure leaves nothing either)
        os.kill(pid, signal.SIGKILL)
    assert left == []
