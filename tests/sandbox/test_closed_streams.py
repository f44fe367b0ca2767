"""arena started with a standard stream closed, or writing to a full disk, or from a
folder that is gone: the sandbox stays on, and each ends in one line, never a
traceback (found by running arena as a careless organiser would)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import RANDOM, needs_bwrap, random_bots

pytestmark = pytest.mark.subprocess

ROOT = Path(__file__).resolve().parents[2]


def peeker(root: Path, secret: Path) -> Path:
    """A bot that says on stderr whether it sees `secret` (outside its folder), then
    plays as the random example bot does."""
    folder = root / "peeker"
    folder.mkdir(parents=True)
    shutil.copy(RANDOM / "bot.py", folder / "random_bot.py")
    (folder / "bot.py").write_text(
        f"import os, runpy, sys\nsys.stderr.write('SEES=%s\\n' % os.path.exists({str(secret)!r}))\n"
        "runpy.run_path('random_bot.py', run_name='__main__')\n"
    )
    (folder / "bot.toml").write_text('name = "peeker"\nrun = "python3 bot.py"\n')
    for path in (root, root.parent):
        os.chmod(path, 0o755)
    return folder


@needs_bwrap
def test_a_closed_stderr_leaves_the_sandbox_on(tmp_path: Path) -> None:
    """With stderr (or stdout) closed, the next descriptor arena opened took its number,
    and bwrap's seccomp descriptor was overwritten in the bot's process: "bwrap: Can't
    read seccomp data", and arena went on WITHOUT a sandbox, with its warning going
    nowhere. The bot then read files outside its folder (here: the secret)."""
    secret = tmp_path / "secret.txt"
    secret.write_text("the organiser's")
    folder = peeker(tmp_path / "bots", secret)
    logs = tmp_path / "logs"
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "match", "-n", "1", str(folder), str(RANDOM),
         "--log-dir", str(logs)],
        cwd=ROOT, stdout=subprocess.PIPE, text=True, timeout=120,
        stderr=subprocess.DEVNULL, preexec_fn=lambda: os.close(2),
    )  # fmt: skip
    assert done.returncode == 0
    assert "SEES=False" in (logs / "peeker.log").read_text()


def test_a_closed_stdout_is_refused_before_anything_runs(tmp_path: Path) -> None:
    """`arena standings STORE >&-` printed nothing and exited 0."""
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "match", "-n", "1", str(RANDOM), str(RANDOM)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        timeout=120, preexec_fn=lambda: os.close(1),
    )  # fmt: skip
    assert done.returncode == 1
    assert (
        done.stderr
        == "arena: error: standard output is closed (to throw the output away: >/dev/null)\n"
    )


def test_a_closed_stdin_is_an_empty_input(tmp_path: Path) -> None:
    """`arena rate - <&-` raised AttributeError ('NoneType' object has no attribute
    'read')."""
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "rate", "-"],
        cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120,
        preexec_fn=lambda: os.close(0),
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.startswith("arena: error: <stdin>: the file is empty")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_a_full_disk_under_stdout_is_said_in_one_line(tmp_path: Path) -> None:
    """`arena match ... >/dev/full` ended in an OSError traceback."""
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "arena.cli", "match", "-n", "1", str(RANDOM), str(RANDOM),
             "--sandbox", "none"],
            cwd=ROOT, stdout=full, stderr=subprocess.PIPE, text=True, timeout=120,
        )  # fmt: skip
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.endswith("arena: error: No space left on device\n")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
@pytest.mark.parametrize("option", ["--help", "--version"])
def test_arena_help_or_version_on_a_full_disk_is_said_in_one_line(option: str) -> None:
    """Found by a red team: the group's own options ran before the error handling of
    every command, and `arena --help >/dev/full` ended in a traceback."""
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "arena.cli", option],
            cwd=ROOT, stdout=full, stderr=subprocess.PIPE, text=True, timeout=120,
        )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr == "arena: error: No space left on device\n"


def test_a_current_folder_that_is_gone_is_said_in_one_line(tmp_path: Path) -> None:
    """A league from a folder removed under it failed in `real_path` with a
    FileNotFoundError traceback."""
    gone = tmp_path / "gone"
    gone.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", f"import os, sys; sys.path.insert(0, {str(ROOT)!r});"
         f" os.chdir({str(gone)!r}); os.rmdir({str(gone)!r}); from arena.cli import main;"
         f" sys.argv = ['arena', 'league', '--bots', {str(RANDOM.parent)!r}]; main()"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr == (
        "arena: error: the current folder no longer exists (cd to one that does)\n"
    )


def test_a_league_with_stderr_closed_plays(tmp_path: Path) -> None:
    """Descriptor 2 had /dev/null, but Python's sys.stderr stayed None, and a league's
    progress asked it isatty(): exit 1, no game, nothing said (found in review)."""
    bots = tmp_path / "bots"
    random_bots(bots, "ann", "bob")
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "league", "--bots", str(bots), "--store",
         str(tmp_path / "l.sqlite"), "--table-size", "2", "--games-per-table", "1",
         "--sandbox", "none"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        timeout=120, preexec_fn=lambda: os.close(2),
    )  # fmt: skip
    assert done.returncode == 0
    assert "ann" in done.stdout
