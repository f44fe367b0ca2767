"""Real bots under bubblewrap: killing, starter kits in every language, the CLI."""

from __future__ import annotations

import os
import re
import shutil
import signal
import sys
import tempfile
import uuid
from pathlib import Path

import pytest
import trio
from click.testing import CliRunner

import arena.sandbox
from arena.bots import BotSpec, Limits, load_manifest, start_process
from arena.cli import main
from arena.match import run_match
from arena.referee import Clocks, RunSettings
from arena.rules import GameConfig
from arena.sandbox import bwrap_wrap

from .helpers import gone, leftovers, make_bot, needs_bwrap, reports

pytestmark = pytest.mark.subprocess

EXAMPLES = Path(__file__).resolve().parents[2] / "example_bots"

# Forks a child that tries to leave the process group (setsid: the sandbox refuses it
# with EPERM, SPEC §8.5) and a grandchild, which says "ready" once all three run; the
# bot itself ignores SIGTERM.
STUBBORN = """
import os, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
if os.fork() == 0:
    try:
        os.setsid()
    except PermissionError:
        pass
    if os.fork() == 0:
        print("ready", flush=True)
    time.sleep(120)
    os._exit(0)
time.sleep(120)
"""


@pytest.mark.parametrize("how", ["group", "bwrap-only"])
@needs_bwrap
async def test_killing_bwrap_takes_the_whole_sandbox_down(how: str) -> None:
    token = f"arena-kill-test-{uuid.uuid4().hex}"
    spec = BotSpec(name="stubborn", command=(sys.executable, "-c", STUBBORN, token), folder=None)
    async with trio.open_nursery() as nursery:
        bot = await start_process(spec, nursery, limits=Limits(), wrap=bwrap_wrap())
        try:
            assert await bot.stream.receive_some(100) == b"ready\n"
            # bwrap, its init (pid 1 inside), the bot, its child and grandchild.
            assert len(leftovers(token)) == 5
            if how == "group":
                await bot.kill(grace=0.2)  # what the referee does
            else:
                os.kill(bot.pid, signal.SIGKILL)  # bwrap alone, not its group
                await bot.process.wait()
            assert await gone(token)
        finally:
            await bot.kill(grace=0.2)
        nursery.cancel_scope.cancel()


def _example(name: str) -> BotSpec | None:
    folder = EXAMPLES / name
    spec = load_manifest(folder)
    if name == "c" and not (folder / "bot").exists():
        return None
    if name == "js" and (shutil.which("node") is None or not (folder / "node_modules").exists()):
        return None
    return spec


@needs_bwrap
async def test_the_starter_kits_play_under_the_sandbox(tmp_path: Path) -> None:
    specs = [_example(n) for n in ("python/random", "python/heuristic", "js", "c")]
    present = [s for s in specs if s is not None]
    if len(present) < 4:
        pytest.skip("the C and JS kits are not built (make bots)")
    settings = RunSettings(
        clocks=Clocks(startup_ms=15000), log_dir=tmp_path / "logs", sandbox="bwrap"
    )
    results, started = await run_match(
        present, GameConfig(players=4), games=4, seed=3, settings=settings
    )
    assert [f for r in results for f in r.faults] == []
    assert started == {s.name: 1 for s in present}


@needs_bwrap
async def test_a_private_folder_outside_tmp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = f"arena-sandbox-test-{uuid.uuid4().hex}"
    work = Path(tempfile.mkdtemp(prefix="arena-test-", dir="/var/tmp"))
    try:
        monkeypatch.setattr(tempfile, "tempdir", str(work))
        hostile = make_bot(tmp_path, "hostile", "write_outside", tmp_path / "x", token=token)
        victim = make_bot(tmp_path, "victim", "none", token=token)
        settings = RunSettings(log_dir=tmp_path / "logs", sandbox="bwrap")
        results, _ = await run_match(
            [victim, hostile], GameConfig(players=2), games=1, seed=1, settings=settings
        )
        (report,) = reports(tmp_path / "logs" / "hostile.log")
        assert report["home"] == "written"
        assert report["own_folder"] == "EROFS"
        assert [f for r in results for f in r.faults] == []
        assert _contents(work) == []  # both private folders are removed with their bots
    finally:
        shutil.rmtree(work)


def _contents(work: Path) -> list[list[Path]]:
    return [list(w.iterdir()) for w in work.iterdir()]


def _bots(root: Path) -> list[str]:
    token = f"arena-sandbox-test-{uuid.uuid4().hex}"
    return [str(make_bot(root, n, "none", token=token).folder) for n in ("alice", "bob")]


@pytest.mark.parametrize("sandbox", [pytest.param("bwrap", marks=needs_bwrap), "none"])
def test_match_runs_with_either_sandbox(tmp_path: Path, sandbox: str) -> None:
    result = CliRunner().invoke(main, ["match", *_bots(tmp_path), "-n", "2", "--sandbox", sandbox])
    assert result.exit_code == 0, result.output
    assert "WITHOUT a sandbox" not in result.stderr


def test_match_without_a_working_bwrap_warns_and_runs_unconfined(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(arena.sandbox, "bwrap_problem", lambda: "bwrap failed: test")
    result = CliRunner().invoke(main, ["match", *_bots(tmp_path), "-n", "1", "-q"])
    assert result.exit_code == 0, result.output
    assert "arena: warning: bots run WITHOUT a sandbox (bwrap failed: test)" in result.stderr
    refused = CliRunner().invoke(main, ["match", *_bots(tmp_path / "2"), "--sandbox", "bwrap"])
    assert refused.exit_code == 2
    assert "--sandbox bwrap: bwrap failed: test" in refused.stderr


@needs_bwrap
def test_match_refuses_a_program_the_sandbox_would_not_see(tmp_path: Path) -> None:
    program = tmp_path / "tools" / "bot"
    program.parent.mkdir()
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    folder = tmp_path / "bots" / "outsider"
    folder.mkdir(parents=True)
    (folder / "bot.toml").write_text(f'name = "outsider"\nrun = "{program}"\n')
    result = CliRunner().invoke(main, ["match", str(folder), *_bots(tmp_path / "bots")])
    assert result.exit_code == 2
    assert "outside the sandbox" in result.stderr


@needs_bwrap
def test_check_bot_under_the_sandbox(tmp_path: Path) -> None:
    (folder,) = _bots(tmp_path)[:1]
    result = CliRunner().invoke(main, ["check-bot", "--sandbox", "bwrap", "--", folder])
    assert result.exit_code == 0, result.output
    assert re.search(r"\nresult: all \d+ checks passed\n", result.output), result.output
    # A bot that writes into its own folder fails under the sandbox.
    writer = tmp_path / "writer"
    writer.mkdir()
    (writer / "bot.py").write_text("open('state.txt', 'w')\n")
    (writer / "bot.toml").write_text('name = "writer"\nrun = "python3 bot.py"\n')
    result = CliRunner().invoke(main, ["check-bot", "--sandbox", "bwrap", "--", str(writer)])
    assert result.exit_code == 1
    assert "Read-only file system" in result.output


NAMED_BY_ITS_PROBES = """
import ctypes, errno, fcntl, os, sys
import msgpack
libc = ctypes.CDLL(None, use_errno=True)
def code(ok):
    return "ok" if ok else errno.errorcode.get(ctypes.get_errno(), "x")
userns = code(libc.unshare(0x10000000) == 0)  # CLONE_NEWUSER
inotify = code(libc.inotify_init1(0) >= 0)
name = f"userns-{userns}.inotify-{inotify}"
r, w = sys.stdin.buffer, sys.stdout.buffer
while (h := r.read(4)) and len(h) == 4:
    m = msgpack.unpackb(r.read(int.from_bytes(h, "big")))
    if m["type"] == "hello":
        b = msgpack.packb({"type": "hello", "name": name, "version": "1", "protocol": 1})
    elif m["type"] == "act":
        b = msgpack.packb({"type": "action", "request_id": m["request_id"], "choice": 0})
    elif m["type"] == "bye":
        break
    else:
        continue
    w.write(len(b).to_bytes(4, "big") + b)
    w.flush()
"""


@needs_bwrap
def test_check_bot_runs_the_bot_in_the_sandbox_a_league_gives_it(tmp_path: Path) -> None:
    """`arena check-bot` (an organiser may vet submissions with it) starts the bot under
    the same filters as a league: no covert channel, and as root no user namespace of
    its own. The bot names itself after what its probes got."""
    folder = tmp_path / "prober"
    folder.mkdir()
    (folder / "bot.py").write_text(NAMED_BY_ITS_PROBES)
    (folder / "bot.toml").write_text('name = "prober"\nrun = "python3 bot.py"\n')
    result = CliRunner().invoke(main, ["check-bot", "--sandbox", "bwrap", "--", str(folder)])
    assert result.exit_code == 0, result.output
    found = re.search(r"name 'userns-(\w+)\.inotify-(\w+)'", result.output)
    assert found is not None, result.output
    # As root the filter says EPERM; as a user, bwrap's --disable-userns refuses it too.
    assert found.group(1) == "EPERM" if os.geteuid() == 0 else found.group(1) != "ok"
    assert found.group(2) == "ENOSYS"
