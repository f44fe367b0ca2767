"""Issue 11.1: `pip install .` gives a working `arena` with the runtime dependencies only.

A wheel built from the repository is installed in a fresh virtual environment (its
dependencies come from the package index, as for any user); `arena --help` and a short
match between the Python example bots then run from that environment alone.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.subprocess]

ROOT = Path(__file__).resolve().parents[1]
DEV_TOOLS = {"pytest", "pytest-trio", "hypothesis", "ruff", "mypy"}
KIT_IN_WHEEL = "arena-0.1.0.data/data/share/arena/kits/python"
"""The Python starter kit in the wheel: data, installed in the environment's share/."""


def run(*args: str | Path, cwd: Path | None = None) -> str:
    # Without PYTHONPATH: a checkout on it (PYTHONPATH=. pytest) would be imported by the
    # installed arena instead of the wheel's files.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [str(a) for a in args],
        cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done.stdout


@pytest.mark.skipif(shutil.which("git") is None, reason="git lists the repository's files")
def test_the_sdist_holds_the_repositorys_files_only_and_builds_a_wheel_alone(
    tmp_path: Path,
) -> None:
    """An sdist made in a checkout that was used (the kits built and their dependencies
    fetched, the README's tour run in its root) holds the repository's files only: not a
    league's store with its secret seed, nor 48 MB of Go, cargo and Maven caches that
    the kits' own .gitignore files list (hatchling reads the root's only). And the sdist
    alone builds a wheel."""
    tree = tmp_path / "checkout"
    listed = run("git", "ls-files", cwd=ROOT)
    files = sorted({name for name in listed.splitlines() if (ROOT / name).is_file()})
    for name in files:
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, tree / name)
    left = [
        "league.sqlite", "bots/mybot/bot.toml", "site/index.html", "example_bots/c/test_vectors",
        "example_bots/go/vendor/modules.txt", "example_bots/go/.cache/mod/x.zip",
        "example_bots/java/.m2/repository/x.jar", "example_bots/java/target/x.jar",
        "example_bots/rust/target/release/bot", "example_bots/yardstick/vendor/x/lib.rs",
    ]  # fmt: skip
    for name in left:
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text("left by a command\n")
    run(sys.executable, "-m", "hatchling", "build", "-t", "sdist", "-d", tmp_path, cwd=tree)
    (sdist,) = tmp_path.glob("arena-*.tar.gz")
    with tarfile.open(sdist) as packed:
        packed.extractall(tmp_path / "unpacked", filter="data")
        names = {m.name.split("/", 1)[1] for m in packed.getmembers() if m.isfile()}
    assert names - {"PKG-INFO"} == set(files)
    (unpacked,) = (tmp_path / "unpacked").iterdir()
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
        "-w", tmp_path / "wheel", unpacked)  # fmt: skip
    (wheel,) = (tmp_path / "wheel").glob("arena-*.whl")
    with zipfile.ZipFile(wheel) as packed:
        assert f"{KIT_IN_WHEEL}/random/bot.py" in packed.namelist()


def test_a_wheel_installs_and_runs_in_a_fresh_environment(tmp_path: Path) -> None:
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
        "-w", tmp_path, ROOT)  # fmt: skip
    (wheel,) = tmp_path.glob("arena-*.whl")
    assert wheel.name.endswith("-py3-none-any.whl"), "arena is pure Python: one wheel for all"
    with zipfile.ZipFile(wheel) as packed:  # the report's pages ship inside the package
        names = set(packed.namelist())
    assert {"arena/report/static/index.html", "arena/report/static/assets/app.js"} <= names
    # A bot author's files: the protocol's, and the Python starter kit, with no repository.
    assert {"protocol/SPEC.md", "protocol/RULES.md", f"{KIT_IN_WHEEL}/README.md"} <= names
    assert {f"{KIT_IN_WHEEL}/random/bot.py", f"{KIT_IN_WHEEL}/heuristic/bot.toml"} <= names
    assert not [n for n in names if n.startswith(("tests/", "bench/", "example_bots/"))]
    env = tmp_path / "venv"
    run(sys.executable, "-m", "venv", env)
    run(env / "bin" / "python", "-m", "pip", "install", "--quiet", wheel)
    installed = run(env / "bin" / "python", "-m", "pip", "list", "--format", "freeze")
    names = {line.split("==")[0].lower() for line in installed.splitlines()}
    assert {"arena", "trio", "msgpack", "click", "tabulate", "numpy"} <= names
    assert not names & DEV_TOOLS
    arena = env / "bin" / "arena"
    shown = run(arena, "--help")
    assert "league" in shown
    # The kit as installed, where arena --help says: a bot author copies it from there.
    bots = env / "share" / "arena" / "kits" / "python"
    assert f"APythonstarterkit:{bots}." in "".join(shown.split())  # (wrapped at a hyphen)
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
    files = run(env / "bin" / "python", "-c", listing, cwd=tmp_path)
    assert "SPEC.md" in files
    assert "vectors" in files
