"""A real Dask cluster for the tests: a `dask scheduler` and two `dask worker` processes
(one thread each, no nanny, no dashboard) on 127.0.0.1, started once for the session.

Each worker has a bundle cache of its own, as two machines would; the first worker
also has a tools folder on its PATH that the second lacks (a toolchain missing on one
worker). `Cluster.start_worker` adds a worker, for a test that kills one.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ..processes import dies_with_us

DASK = Path(sys.executable).with_name("dask")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Cluster:
    """A scheduler and its workers, each a process of its own."""

    root: Path
    address: str
    scheduler: subprocess.Popen[bytes]
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    logs: list[Path] = field(default_factory=list)

    @property
    def tools(self) -> Path:
        """A folder on the PATH of the first worker only."""
        return self.root / "tools"

    def cache(self, index: int) -> Path:
        """The bundle cache of worker `index` (its 'machine')."""
        return self.root / f"cache{index}"

    def worker_address(self, index: int) -> str:
        """The address worker `index` listens at (from its log)."""
        for line in self.logs[index].read_text(errors="replace").splitlines():
            if "Start worker at:" in line:
                return line.split("Start worker at:")[1].strip()
        raise AssertionError(f"no address in {self.logs[index]}")

    def start_worker(
        self, timeout: float = 60, *, path: Path | None = None, pythonpath: Path | None = None
    ) -> subprocess.Popen[bytes]:
        """Start one more worker and wait until the scheduler has it (and it has taken
        arena's plugin, if one is registered); `path`, `pythonpath`: a folder first on
        its PATH, on its PYTHONPATH."""
        index = len(self.workers)
        env = dict(os.environ, ARENA_CLUSTER_CACHE=str(self.cache(index)))
        env["ARENA_TEST_WORKER"] = str(index)
        if index == 0:
            env["PATH"] = f"{self.tools}{os.pathsep}{env.get('PATH', os.defpath)}"
        if path is not None:
            env["PATH"] = f"{path}{os.pathsep}{env.get('PATH', os.defpath)}"
        if pythonpath is not None:
            env["PYTHONPATH"] = f"{pythonpath}{os.pathsep}{env.get('PYTHONPATH', '')}"
        log = self.root / f"worker{index}.log"
        with open(log, "wb") as out:
            worker = subprocess.Popen(
                [
                    str(DASK), "worker", self.address, "--nthreads", "1", "--no-nanny",
                    "--no-dashboard", "--host", "127.0.0.1", "--name", f"w{index}",
                    "--local-directory", str(self.root / f"dask{index}"),
                ],
                stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True,
                preexec_fn=dies_with_us(),
            )  # fmt: skip
        self.workers.append(worker)
        self.logs.append(log)
        _wait_for(log, "Registered to", worker, timeout)
        return worker

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after a few seconds (a worker whose scheduler goes at
        the same moment can hang on its way out): the workers first, then the scheduler."""
        for group in (self.workers, [self.scheduler]):
            for process in group:
                with contextlib.suppress(ProcessLookupError):
                    process.send_signal(signal.SIGTERM)
            for process in group:
                try:
                    process.wait(5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


def _wait_for(log: Path, text: str, process: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while text not in log.read_text(errors="replace"):
        if process.poll() is not None:
            raise AssertionError(f"{log.name}: exited early:\n{log.read_text(errors='replace')}")
        if time.monotonic() > deadline:
            raise AssertionError(f"{log.name}: no {text!r} in {timeout} s")
        time.sleep(0.05)


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    with private_cluster(tmp_path_factory.mktemp("cluster"), workers=2) as found:
        yield found


@contextlib.contextmanager
def private_cluster(root: Path, workers: int = 1) -> Iterator[Cluster]:
    """A scheduler and `workers` workers of their own, for a test that stops the
    scheduler (the session's `cluster` is shared); stopped on the way out."""
    if not DASK.exists() and shutil.which("dask") is None:
        pytest.skip("dask[distributed] is not installed (pip install -e '.[dev]')")
    (root / "tools").mkdir(parents=True)
    log = root / "scheduler.log"
    # A free port can be taken by another test's process before the scheduler binds it
    # (failed once in a clean-clone run: "Address already in use"): another, then.
    for attempt in range(5):
        port = free_port()
        with open(log, "wb") as out:
            scheduler = subprocess.Popen(
                [
                    str(DASK), "scheduler", "--host", "127.0.0.1", "--port", str(port),
                    "--no-dashboard",
                ],
                stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                preexec_fn=dies_with_us(),
            )  # fmt: skip
        try:
            _wait_for(log, "Scheduler at", scheduler, 60)
            break
        except AssertionError:
            taken = "Address already in use" in log.read_text(errors="replace")
            if not taken or attempt == 4:
                raise
    found = Cluster(root, f"tcp://127.0.0.1:{port}", scheduler)
    try:
        for _ in range(workers):
            found.start_worker()
        yield found
    finally:
        found.stop()
