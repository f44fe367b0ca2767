"""`arena standings` at scale (issue 14.6): a store of 100,000 4-seat games among 100
bots, read and rated by the command, against a bare SQL read of its seat rows.

The store is filled directly (the rows a league writes, without replays: standings
never read them). Both sides run as fresh processes, side by side, best of 3:

- floor: `python -c` opening the file with sqlite3 and fetching every seat row
  (game, bot, place, points, cause);
- `arena standings STORE` (the whole command: imports, reading, the Plackett-Luce fit
  with its Fisher intervals, the table).

Prints both times, their ratio (target: at most 4x) and the command's peak resident
memory, also per million games.

Usage: python bench/standings.py [--games N] [--bots N]
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

from arena.store import Store

FLOOR = """
import sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
rows = db.execute("SELECT game_id, bot, place, points, cause FROM seats").fetchall()
print(len(rows))
"""


def fill(path: Path, games: int, bots: int) -> None:
    """`games` 4-seat games among `bots` bots, the stronger bots placing better."""
    rng = random.Random(1)
    names = [f"bot{i:03d}" for i in range(bots)]
    with Store.open(path) as store:
        store.sync_bots([(n, "python3 bot.py", "0") for n in names])
    db = sqlite3.connect(path)
    game_rows, seat_rows = [], []
    for index in range(games):
        game_id = f"g{index:06d}"
        seats = rng.sample(range(bots), 4)
        order = sorted(seats, key=lambda b: -(b + rng.gauss(0, 30)))
        places = {b: order.index(b) + 1 for b in seats}
        game_rows.append((game_id, index, str(index), None, "done", 0.0, 1.0, 1.0, 100, 90, 1))
        for seat, bot in enumerate(seats):
            cause = None if places[bot] == 1 else "bust"
            seat_rows.append((game_id, seat, names[bot], places[bot], None, None, cause))
    with db:
        db.executemany(
            "INSERT INTO games (game_id, idx, seed, grp, status, started_at, finished_at,"
            " seconds, decisions, plays, rounds) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            game_rows,
        )
        db.executemany("INSERT INTO seats VALUES (?,?,?,?,?,?,?)", seat_rows)
    db.close()


_TIMER = """
import os, subprocess, sys, time
start = time.perf_counter()
process = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(process.pid, 0)
print(time.perf_counter() - start, status, usage.ru_maxrss)
"""
"""Runs a command and prints its wall time, exit status and peak resident memory. A
child's ru_maxrss starts from the high-water mark of the process it was forked from
(Linux keeps it across exec), so a command started straight from this benchmark, which
holds a whole league in memory, would be charged this benchmark's size: the timer is a
small process of its own."""


def timed(command: list[str]) -> tuple[float, int]:
    """Wall seconds and peak resident memory (bytes) of one run of `command`."""
    out = subprocess.run(
        [sys.executable, "-c", _TIMER, *command], stdout=subprocess.PIPE, check=True, text=True
    ).stdout.split()
    elapsed, status, peak = float(out[0]), int(out[1]), int(out[2])
    if status != 0:
        raise SystemExit(f"{' '.join(command)} failed")
    return elapsed, peak * 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--bots", type=int, default=100)
    args = parser.parse_args()
    arena = [sys.executable, "-m", "arena.cli"]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "league.sqlite"
        fill(path, args.games, args.bots)
        floors, commands = [], []
        for _ in range(3):
            floors.append(timed([sys.executable, "-c", FLOOR, str(path)]))
            commands.append(timed([*arena, "standings", str(path)]))
    floor, _ = min(floors)
    command, _ = min(commands)
    peak = max(memory for _, memory in commands)
    mb = 1 << 20
    print(f"store: {args.games:,} games of 4 seats among {args.bots} bots")
    print(f"floor: bare SQL read of the seat rows (fresh process): {floor:.2f} s")
    print(f"arena standings (fresh process, whole command): {command:.2f} s")
    print(f"standings / floor: {command / floor:.1f}x  (target: at most 4x)")
    print(
        f"peak memory of arena standings: {peak / mb:.0f} MiB"
        f" ({peak / mb / args.games * 1e6:.0f} MiB per million games)"
    )
    print("(best of 3, alternated)")


if __name__ == "__main__":
    main()
