"""Issue 11.1: `pip install .` gives a working `arena` with the runtime dependencies only.

A wheel built from the repository is installed in a fresh virtual environment (its
dependencies come from the package index, as for any user); `arena --help` and a short
match between the Python example bots then run from that environment alone.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.subprocess]

ROOT = Path(__file__).resolve().parents[1]
DEV_TOOLS = {"pytest", "pytest-trio", "hypothesis", "ruff", "mypy"}


def run(*args: str | Path, cwd: Path | None = None) -> str:
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, capture_output=True, text=True, check=False, timeout=600
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done.stdout


def test_a_wheel_installs_and_runs_in_a_fresh_environment(tmp_path: Path) -> None:
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", tmp_path, ROOT)
    (wheel,) = tmp_path.glob("arena-*.whl")
    assert wheel.name.endswith("-py3-none-any.whl"), "arena is pure Python: one wheel for all"
    with zipfile.ZipFile(wheel) as packed:  # the report's pages ship inside the package
        names = set(packed.namelist())
    assert {"arena/report/static/index.html", "arena/report/static/assets/app.js"} <= names
    env = tmp_path / "venv"
    run(sys.executable, "-m", "venv", env)
    run(env / "bin" / "python", "-m", "pip", "install", "--quiet", wheel)
    installed = run(env / "bin" / "python", "-m", "pip", "list", "--format", "freeze")
    names = {line.split("==")[0].lower() for line in installed.splitlines()}
    assert {"arena", "trio", "msgpack", "click", "tabulate", "numpy"} <= names
    assert not names & DEV_TOOLS
    arena = env / "bin" / "arena"
    assert "league" in run(arena, "--help")
    bots = ROOT / "example_bots" / "python"
    # Elsewhere than the repository, so that nothing is imported from the checkout.
    out = run(
        arena, "match", bots / "random", bots / "heuristic", "-n", "2", "--sandbox", "none",
        "--json", cwd=tmp_path,
    )  # fmt: skip
    assert '"games": 2' in out
    # The wheel holds the protocol's documentation and vectors for bot authors.
    listing = (
        "import protocol, pathlib; print(sorted(pathlib.Path(protocol.__file__).parent.iterdir()))"
    )
    files = run(env / "bin" / "python", "-c", listing)
    assert "SPEC.md" in files
    assert "vectors" in files
