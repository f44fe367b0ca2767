"""`arena match` and `arena check-bot` stopped (SIGTERM, a hang-up, Ctrl-C) while a
bot is built: the build is killed, a sandboxed build's folder goes back to its owner,
and arena stops as it stops during the games.

They built their bots before their stoppable run, where a league and an SPRT build
theirs inside it: SIGTERM or a hang-up during a build killed arena outright (no clean
exit 143 or 129, nothing said), which left an unsandboxed build running and a sandboxed
build's folder owned by the sandbox's uid (the build gives it back on its way out,
which a death by a signal skips).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from arena.testing import script

from .helpers import gone_sync, leftovers, needs_bwrap

pytestmark = pytest.mark.subprocess

ROOT = Path(__file__).resolve().parents[2]

STOPS = [
    pytest.param(signal.SIGTERM, 143, "terminated", id="SIGTERM"),
    pytest.param(signal.SIGHUP, 129, "hung up", id="SIGHUP"),
    pytest.param(signal.SIGINT, 130, "interrupted", id="SIGINT"),
]
SANDBOXES = [pytest.param("bwrap", marks=needs_bwrap), "none"]


def bot_folder(root: Path, name: str, build: str | None = None) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(script("good"))
    manifest = f'name = "{name}"\nrun = "python3 bot.py pids.txt"\n'
    if build is not None:
        manifest += f'build = "{build}"\n'
    (folder / "bot.toml").write_text(manifest)
    return folder


def stop_during_the_build(
    args: list[str], slow: Path, stop: signal.Signals
) -> tuple[int, str, float]:
    """Run `arena ARGS` in a session of its own (a terminal's job), wait for the build
    in `slow` to start, send `stop` as it comes (SIGTERM to arena, Ctrl-C and a hang-up
    to the whole job); (exit status, stderr, seconds from the stop to the exit)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", *args],
        cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60  # a loaded machine starts bwrap slowly
        while not (slow / "started").exists():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the build did not start within 60 s"
            time.sleep(0.05)
        time.sleep(0.2)  # arena is in its wait for the build, the build in its sleep
        started = time.monotonic()
        if stop == signal.SIGTERM:
            proc.send_signal(stop)
        else:
            os.killpg(proc.pid, stop)
        try:
            _, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail(f"arena did not stop within 60 s of {stop.name}")
        return proc.returncode, err.decode(errors="replace"), time.monotonic() - started
    finally:
        if proc.poll() is None:  # fail, leaving no process to a later test
            proc.kill()
            proc.communicate()


def slow_bot(tmp_path: Path) -> tuple[Path, int, str]:
    """A bot folder whose build takes two minutes, the folder's owner, and a token on
    the command line of every process of the build: its sleep's duration."""
    token = f"120.{uuid.uuid4().int % 10**15:015d}"
    os.chmod(tmp_path, 0o755)  # the sandbox's uid reaches the folder (as root)
    slow = bot_folder(tmp_path, "slow", f"sh -c 'touch started; sleep {token}; true'")
    return slow, slow.stat().st_uid, token


def owners(folder: Path) -> set[int]:
    return {p.lstat().st_uid for p in [folder, *folder.rglob("*")]}


def forget(token: str) -> None:
    """Kill what a failed test left of the build (the old code left it running)."""
    for pid in leftovers(token):
        with contextlib.suppress(OSError):
            group = os.getpgid(pid)
            os.kill(pid, signal.SIGKILL)
            if group != os.getpgrp():
                os.killpg(group, signal.SIGKILL)


@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize(("stop", "code", "word"), STOPS)
def test_a_match_stopped_during_a_build_kills_it_and_stops_at_once(
    tmp_path: Path, sandbox: str, stop: signal.Signals, code: int, word: str
) -> None:
    ann = bot_folder(tmp_path, "ann")
    slow, owner, token = slow_bot(tmp_path)
    try:
        status, err, seconds = stop_during_the_build(
            ["match", str(ann), str(slow), "-n", "3", "--sandbox", sandbox], slow, stop
        )
        assert gone_sync(token, 10), "the build outlived arena"
        assert owners(slow) == {owner}
        assert status == code, err
        assert seconds < 30, err  # not the build's two minutes
        assert "Traceback" not in err
        assert err.endswith(f"\n{word} after 0 of 3 games\n"), err
        assert not (ann / "pids.txt").exists()  # no game started
    finally:
        forget(token)


@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize(("stop", "code", "word"), STOPS)
def test_a_check_stopped_during_the_build_kills_it_and_stops_at_once(
    tmp_path: Path, sandbox: str, stop: signal.Signals, code: int, word: str
) -> None:
    slow, owner, token = slow_bot(tmp_path)
    try:
        status, err, seconds = stop_during_the_build(
            ["check-bot", "--sandbox", sandbox, str(slow)], slow, stop
        )
        assert gone_sync(token, 10), "the build outlived arena"
        assert owners(slow) == {owner}
        assert status == code, err
        assert seconds < 30, err
        assert "Traceback" not in err
        assert err.endswith(f"\n{word} before the checks were done\n"), err
        assert not (slow / "pids.txt").exists()  # no check started
    finally:
        forget(token)
