"""Issue 40.4: a bot's processes share one bot's share of the CPU (a cpu cgroup of its
own), so that a bot forking spinners during its decisions cannot starve a bot of
another game, also where arena itself runs inside a cpu cgroup (a container, a
systemd slice), where the kernel's autogroup no longer separates them."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena import _memgroups

from .helpers import gone_sync, make_bot, needs_bwrap, reports

pytestmark = [pytest.mark.subprocess, pytest.mark.slow, needs_bwrap]

needs_cpu_groups = pytest.mark.skipif(
    _memgroups.cpu_groups_root() is None,
    reason="arena cannot make cpu groups here (root and a writable cgroup v1 cpu mount)",
)

SPINNERS = 150
INNOCENT_CPU_MS = 30
DECISION_MS = 1000
"""30 ms of CPU time takes about 30/1000 of a decision's time on an idle core; crowded
by 150 spinners in one scheduling group it needs about 150 times that: a timeout."""

CONTROL = """\
import arena._memgroups as groups
groups.cpu_groups_root = lambda: None
"""
"""A sitecustomize for the control run: arena without per-bot cpu groups."""


@contextlib.contextmanager
def parent_cpu_group() -> Iterator[Path]:
    """A cpu group to run arena in, as a container or a systemd slice would."""
    root = _memgroups.cpu_groups_root()
    assert root is not None
    group = root / f"arena-test-parent-{secrets.token_hex(4)}"
    group.mkdir()
    try:
        yield group
    finally:
        for _ in range(500):  # its bots' groups go as their last processes exit
            for child in group.iterdir():
                if child.is_dir():
                    with contextlib.suppress(OSError):
                        child.rmdir()
            with contextlib.suppress(OSError):
                group.rmdir()
            if not group.exists():
                break
            time.sleep(0.01)


def play_league(root: Path, *, groups: bool, token: str) -> tuple[list[str | None], float]:
    """Run, inside a parent cpu group, a `-j 2` league of a spinning bot, an innocent
    bot computing 30 ms a decision and two quiet ones; the innocent bot's causes (one
    per game) and its slowest decision in seconds."""
    bots = root / "bots"
    make_bot(bots, "spinner", "spinners", SPINNERS, DECISION_MS // 3, token=token)
    make_bot(bots, "innocent", "cpu_per_act", INNOCENT_CPU_MS, token=token)
    for name in ("quiet-a", "quiet-b"):
        make_bot(bots, name, "none", token=token)
    settings = {
        "bots": "bots", "store": "league.sqlite", "seed": 3, "table_size": 2,
        "games_per_table": 2, "concurrency": 2, "fault_limit": 0, "log_dir": "logs",
    }  # fmt: skip
    lines = ["[league]"] + [f"{k} = {json.dumps(v)}" for k, v in settings.items()]
    lines += ["[game]", "play_cap = 6"]
    lines += ["[clocks]", f"decision_ms = {DECISION_MS}", "startup_ms = 15000"]
    lines += ["[limits]", f"processes = {SPINNERS + 64}", "memory_mb = 1024"]
    (root / "league.toml").write_text("\n".join(lines) + "\n")
    env = dict(os.environ)
    if not groups:
        (root / "site").mkdir()
        (root / "site" / "sitecustomize.py").write_text(CONTROL)
        env["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(root / "site"), env.get("PYTHONPATH")])
        )
    with parent_cpu_group() as parent:
        command = [sys.executable, "-m", "arena.cli", "league", "league.toml"]
        done = subprocess.run(
            _memgroups.joined(command, parent),
            cwd=root, env=env, capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert gone_sync(token)
    with contextlib.closing(sqlite3.connect(root / "league.sqlite")) as db:
        causes = [c for (c,) in db.execute("SELECT cause FROM seats WHERE bot = 'innocent'")]
    spun = [r["spinners"] for r in reports(root / "logs" / "spinner.log") if "spinners" in r]
    assert spun
    assert min(spun) == SPINNERS  # every spinner process forked its crowd
    worst = [r["worst_s"] for r in reports(root / "logs" / "innocent.log") if "worst_s" in r]
    return causes, max(worst, default=0.0)


@needs_cpu_groups
def test_a_bot_forking_spinners_charges_no_timeout_to_a_bot_in_another_game(
    tmp_path: Path,
) -> None:
    token = uuid.uuid4().hex
    causes, worst = play_league(tmp_path / "groups", groups=True, token=token)
    assert len(causes) == 6  # 3 opponents, 2 games each
    assert causes.count("timeout") == 0, (causes, worst)
    # The control: the same league without a cpu group per bot starves the innocent bot:
    # it loses games on time, or (on a machine loaded besides, where the spinners' own
    # decisions get less of it: 0.73 s once under two hogs) its 30 ms of CPU took more
    # than ten times that.
    control, control_worst = play_league(tmp_path / "control", groups=False, token=token)
    starved = control.count("timeout") >= 1 or control_worst > 10 * INNOCENT_CPU_MS / 1000
    assert starved, (control, control_worst)
    print(
        f"innocent: {causes.count('timeout')}/6 timeouts, worst decision {worst * 1000:.0f} ms;"
        f" control: {control.count('timeout')}/6, worst answered {control_worst * 1000:.0f} ms"
    )
