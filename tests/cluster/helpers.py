"""Bots, league files and readers for the cluster tests."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from ..processes import dies_with_us

ROOT = Path(__file__).resolve().parents[2]

WITNESS = r"""
import os, random, sys, time, msgpack
log, delay = sys.argv[1], float(sys.argv[2])
parent = os.getppid()
try:
    grand = open(f"/proc/{parent}/stat").read().rsplit(")", 1)[1].split()[1]
    parent_cmd = open(f"/proc/{parent}/cmdline", "rb").read().split(b"\0")
    referee = "arena.worker" if b"arena.worker" in parent_cmd else "other"
except OSError:
    grand, referee = "?", "?"
def note(event, game_id):
    with open(log, "a") as f:
        f.write(f"{os.getpid()} {parent} {grand} {referee} {event} {game_id}\n")
r, w = sys.stdin.buffer, sys.stdout.buffer
rng = random.Random()
while True:
    h = r.read(4)
    if len(h) < 4:
        break
    m = msgpack.unpackb(r.read(int.from_bytes(h, "big")))
    t = m["type"]
    if t == "hello":
        b = msgpack.packb({"type": "hello", "name": "witness", "version": "1", "protocol": 1})
    elif t == "game_start":
        rng.seed(f"{m['game_id']}/{m['seat']}")
        note("start", m["game_id"])
        continue
    elif t == "game_over":
        note("over", m["game_id"])
        continue
    elif t == "act":
        time.sleep(delay)
        choice = rng.randrange(len(m["legal"]))
        b = msgpack.packb({"type": "action", "request_id": m["request_id"], "choice": choice})
    elif t == "bye":
        break
    else:
        continue
    w.write(len(b).to_bytes(4, "big") + b)
    w.flush()
"""
"""A bot that plays a random legal action seeded by the game and its seat (so its
results do not depend on where or in which process a game runs), optionally slowly,
and notes each game it starts and ends with its parent (the referee's process), that
process's parent, and whether the parent is an arena worker process."""


def witness_bot(root: Path, name: str, delay: float = 0.0, build: str | None = None) -> Path:
    folder = root / "bots" / name
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(WITNESS)
    manifest = f'name = "{name}"\nrun = "python3 bot.py {root / "witness.log"} {delay}"\n'
    if build is not None:
        manifest += f"build = {json.dumps(build)}\n"
    (folder / "bot.toml").write_text(manifest)
    return folder


def witness_lines(root: Path) -> list[tuple[int, int, int, str, str, str]]:
    """(pid, parent, grandparent, "arena.worker" or not, event, game id) per note."""
    path = root / "witness.log"
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        pid, parent, grand, referee, event, game_id = line.split()
        out.append((int(pid), int(parent), int(grand), referee, event, game_id))
    return out


def league_file(root: Path, **league: object) -> Path:
    settings = {
        "bots": "bots", "store": "league.sqlite", "seed": 7, "table_size": 3,
        "games_per_table": 3, "duplicate": True, "fault_limit": 3,
    } | league  # fmt: skip
    lines = ["[league]"] + [f"{k} = {json.dumps(v)}" for k, v in settings.items()]
    lines += ["[clocks]", "decision_ms = 3000", "exit_grace_ms = 500", "kill_grace_ms = 200"]
    path = root / "league.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def stored(store: Path) -> dict[str, tuple[object, ...]]:
    """Every stored game, by id: its status, outcome and every seat (no timings)."""
    with sqlite3.connect(store) as db:
        games = {
            row[0]: row[1:]
            for row in db.execute(
                "SELECT game_id, idx, seed, grp, status, decisions, plays, rounds, reason"
                " FROM games"
            )
        }
        seats: dict[str, list[tuple[object, ...]]] = {}
        for row in db.execute(
            "SELECT game_id, seat, bot, place, points, tokens, cause FROM seats"
            " ORDER BY game_id, seat"
        ):
            seats.setdefault(row[0], []).append(row[1:])
    return {g: (*games[g], tuple(seats.get(g, []))) for g in games}


def count_games(store: Path) -> int:
    if not store.exists():
        return 0
    try:
        with sqlite3.connect(store) as db:
            (count,) = db.execute("SELECT count(*) FROM games").fetchone()
            return int(count)
    except sqlite3.OperationalError:
        return 0


def arena(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`arena ARGS` in a process of its own (the coordinator of a cluster league)."""
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


def start_arena(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """`arena ARGS` in the background; `env`: more environment variables."""
    return subprocess.Popen(
        [sys.executable, "-m", "arena.cli", *args],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=dies_with_us(), env=dict(os.environ, **(env or {})),
    )  # fmt: skip


QUICK_ANSWER = {"DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "5s"}
"""Dask's connection timeout for a coordinator that must notice a frozen scheduler or
worker: it waits twice that for an answer (60 s by default)."""


def wait_until(what: str, test: object, proc: subprocess.Popen[str], timeout: float = 60) -> None:
    """Poll `test()` until it is true; fail if `proc` ends first or time runs out."""
    assert callable(test)
    deadline = time.monotonic() + timeout
    while not test():
        if proc.poll() is not None:
            _, err = proc.communicate()
            raise AssertionError(f"the league ended before {what}: {err}")
        if time.monotonic() > deadline:
            proc.send_signal(signal.SIGKILL)
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)
