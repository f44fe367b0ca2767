"""A league with a hostile bot per attack: under bubblewrap every attack fails and the
stored results are those of the same league where nobody attacks."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sqlite3
import subprocess
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import arena.league
from arena.cli import main
from arena.sandbox import TMP_MB

from .helpers import gone_sync, make_bot, needs_bwrap, reports

pytestmark = [pytest.mark.subprocess, pytest.mark.slow, needs_bwrap]

STORE = "league.sqlite"


def attacks(root: Path, token: str, port: int = 1, pid: int = 0) -> dict[str, tuple[object, ...]]:
    """Bot name -> attack and arguments (see hostile_bot.py)."""
    return {
        "h-read": ("read_other", root / "bots" / "victim-a" / "secret.txt"),
        "h-store": ("store", root / STORE),
        "h-proc": ("proc", os.getpid(), 0, 1),
        "h-net": ("network", port, token),
        "h-write": ("write_outside", root / "outside.txt"),
        "h-kill": ("kill", token, pid),
        "h-fork": ("fork_bomb", 1, 64),
        "h-disk": ("fill_disk", 200),
    }


def make_league(root: Path, *, attacking: bool, port: int, pid: int, token: str) -> Path:
    for name in ("victim-a", "victim-b"):
        make_bot(root / "bots", name, "none", token=token)
    (root / "bots" / "victim-a" / "secret.txt").write_text("victim-a's secret")
    for name, (attack, *args) in attacks(root, token, port, pid).items():
        make_bot(root / "bots", name, attack if attacking else "none", *args, token=token)
    settings = {
        "bots": "bots", "store": STORE, "seed": 5, "table_size": 2, "games_per_table": 2,
        "duplicate": True, "concurrency": 4, "fault_limit": 3, "log_dir": "logs",
    }  # fmt: skip
    lines = ["[league]"] + [f"{k} = {json.dumps(v)}" for k, v in settings.items()]
    lines += ["[clocks]", "startup_ms = 15000", "exit_grace_ms = 1000", "kill_grace_ms = 200"]
    lines += ["[limits]", "processes = 32", "file_size_mb = 4", "memory_mb = 1024"]
    (root / "league.toml").write_text("\n".join(lines) + "\n")
    return root / "league.toml"


def stored(store: Path) -> dict[str, list[tuple[str, int, str | None]]]:
    with contextlib.closing(sqlite3.connect(store)) as db:
        rows = db.execute("SELECT game_id, bot, place, cause FROM seats ORDER BY game_id, seat")
        out: dict[str, list[tuple[str, int, str | None]]] = {}
        for game_id, bot, place, cause in rows:
            out.setdefault(game_id, []).append((bot, place, cause))
        tables = {t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "pwned" not in tables
    return out


def run_league(root: Path, monkeypatch: pytest.MonkeyPatch, *, attacking: bool) -> Path:
    """Run the league; fail if any bot reached the host's loopback."""
    # Should the sandbox be off after all, what the bots write stays under tmp_path
    # (the league's worker processes inherit TMPDIR).
    (root / "work").mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(root / "work"))
    monkeypatch.setenv("TMPDIR", str(root / "work"))
    token = f"arena-league-test-{uuid.uuid4().hex}"
    with (
        socket.create_server(("127.0.0.1", 0)) as tcp,
        socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as unix,
        subprocess.Popen(["sleep", "60"]) as bystander,
    ):
        unix.bind("\0" + token)
        unix.listen()
        port = tcp.getsockname()[1]
        path = make_league(root, attacking=attacking, port=port, pid=bystander.pid, token=token)
        result = CliRunner().invoke(
            main, ["league", str(path), "--progress", "quiet", "--sandbox", "bwrap"]
        )
        assert result.exit_code == 0, result.output
        for listener in (tcp, unix):
            listener.setblocking(False)
            with pytest.raises(BlockingIOError):
                listener.accept()
        assert bystander.poll() is None
        bystander.kill()
    assert gone_sync(token), "no process is left running"
    return root


def test_every_attack_fails_and_the_league_results_are_right(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clean = stored(run_league(tmp_path / "clean", monkeypatch, attacking=False) / STORE)
    root = run_league(tmp_path / "hostile", monkeypatch, attacking=True)
    games = stored(root / STORE)
    assert len(games) == 45 * 2  # C(10, 2) tables x 2 rotations
    assert not {cause for seats in games.values() for _, _, cause in seats} & arena.league.FAULTS
    assert games == clean
    # Games run 4 at a time, so a bot may have several processes: each one attacked.
    found = {name: reports(root / "logs" / f"{name}.log") for name in attacks(root, "")}
    assert all(found.values())
    for report in (r for runs in found.values() for r in runs):
        assert FAILED[report["attack"]](report), report
    assert not (root / "outside.txt").exists()


FAILED: dict[str, Callable[[dict[str, Any]], bool]] = {
    "read_other": lambda r: r["secret_error"] == "ENOENT" and r["listing"] == ["h-read"],
    "store": lambda r: r["error"] == "unable to open database file",
    "proc": lambda r: r["environ_error"] == r["memory_error"] == "ENOENT",
    "network": lambda r: r["tcp_error"] == r["unix_error"] == "ECONNREFUSED",
    "write_outside": lambda r: r["marker"] == "EACCES" and r["own_folder"] == "EROFS",
    "kill": lambda r: r["killed"] == [] and r["pid"] == "ESRCH",
    "fork_bomb": lambda r: r["made"] < 32 and r["error"] == "EAGAIN",
    "fill_disk": lambda r: r["written_mb"] <= TMP_MB and r["error"] == "ENOSPC",
}
"""Per attack: its report shows that it failed."""
