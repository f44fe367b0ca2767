"""Ctrl-C while the `arena` command loads (found by interrupting it at random moments:
111 tracebacks in 120 tries within its first 50 ms, and once a Ctrl-C "ignored" inside
the import machinery, after which the league played to its end)."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from arena.store import Store

ROOT = Path(__file__).resolve().parents[1]

INTERRUPT_DURING_IMPORT = """
import importlib.abc, os, signal, sys

class CtrlC(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "click":  # the first thing arena.cli imports of its own
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, CtrlC())
sys.argv = ["arena", "--version"]
from arena._entry import run
run()
print("ran on")
"""


def test_ctrl_c_while_the_command_loads_stops_it_without_a_traceback() -> None:
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPT_DURING_IMPORT],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 130
    assert done.stderr == "\ninterrupted\n"
    assert done.stdout == ""


INTERRUPT_IN_A_BACKGROUND_JOB = """
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)  # as a script's background job starts
import arena.store

opened = arena.store.Store.open

def interrupted_open(*args, **kwargs):  # Ctrl-C as the store opens, before any game
    os.kill(os.getpid(), signal.SIGINT)
    return opened(*args, **kwargs)

arena.store.Store.open = interrupted_open
sys.argv = ["arena", "standings", sys.argv[1]]
from arena._entry import run
run()
"""


def test_a_background_job_that_ignored_sigint_is_stopped_by_it_once_loaded(
    tmp_path: Path,
) -> None:
    """A script's `arena league ... &` starts with SIGINT ignored. The entry put that
    back after the imports, so a SIGINT in the start-up, before the league's own
    handling took it, was lost and the league played to its end (the audit's 0.05 to
    0.35 s). A SIGINT stops arena whoever started it (issue 44)."""
    store = tmp_path / "s.sqlite"
    Store.open(store).close()
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPT_IN_A_BACKGROUND_JOB, str(store)],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (130, "\ninterrupted\n")


def test_the_arena_command_and_python_m_arena_load_through_the_entry() -> None:
    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "arena"]
    assert script.value == "arena._entry:run"
    done = subprocess.run(
        [sys.executable, "-m", "arena", "--version"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0
    assert done.stdout.startswith("arena, version ")


def test_the_command_runs_numpy_on_one_thread_unless_told_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from arena._entry import BLAS_THREADS, one_blas_thread

    for variable in BLAS_THREADS:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "4")  # the user's own choice is kept
    one_blas_thread()
    assert {v: os.environ[v] for v in BLAS_THREADS} == {
        "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "4", "MKL_NUM_THREADS": "1"
    }  # fmt: skip
