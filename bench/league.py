"""League throughput: games per second at concurrency 1 and 2, and process reuse.

A league of instant Python bots (4 bots, tables of 2, duplicate deals) is run into a
fresh store at concurrency 1, 2 and 4 (target: at least 1.7 times faster at 2 than at 1
on two cores; at 4 each worker process plays two games at once), at 2 with the workers
pinned to a CPU each (--pin-cpus), and with a fresh process per game against reused
processes.

With --only c1,c2 it runs those alone and prints their games/s (c1, c2, pinned, c4,
fresh): to compare two trees, running this script with each tree's Python in turn.

Usage: python bench/league.py [--games-per-table N] [--only RUN,...]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import trio

from arena.league import LeagueConfig, Progress, run_league
from arena.referee import Clocks, RunSettings
from arena.rules import GameConfig
from arena.store import Store

from instant_bot import make_bots


def run(
    bots: Path,
    store: Path,
    *,
    concurrency: int,
    fresh: bool,
    games_per_table: int,
    pin: bool = False,
) -> float:
    """Games per second of one whole league run (bot start-up included)."""
    config = LeagueConfig(
        bots=bots,
        store=store,
        game=GameConfig(players=2),
        run=RunSettings(clocks=Clocks(decision_ms=5000), fresh_process=fresh),
        seed=1,
        table_size=2,
        games_per_table=games_per_table,
        duplicate=True,
        concurrency=concurrency,
        pin_cpus=pin,
    )
    with Store.open(store) as db:
        start = time.perf_counter()
        report = trio.run(run_league, config, db, Progress())
        elapsed = time.perf_counter() - start
    return report.played / elapsed


RUNS = {
    "c1": (1, False, False),
    "c2": (2, False, False),
    "pinned": (2, False, True),
    "c4": (4, False, False),
    "fresh": (2, True, False),
}
"""Each run's concurrency, fresh processes, pinned workers."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games-per-table",
        type=int,
        default=150,
        help="games per table (6 tables); large enough that start-up does not dominate",
    )
    parser.add_argument(
        "--only",
        type=lambda text: text.split(","),
        default=None,
        help=f"run only these, comma-separated ({','.join(RUNS)}), and print their games/s",
    )
    args = parser.parse_args()
    if args.only is not None:
        if unknown := [name for name in args.only if name not in RUNS]:
            parser.error(f"no run {', '.join(unknown)}: the runs are {', '.join(RUNS)}")
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            bots = make_bots(root, 4)
            for name in args.only:
                concurrency, new_processes, pin = RUNS[name]
                n = 4 if new_processes else args.games_per_table
                games_per_s = run(
                    bots, root / f"{name}.sqlite", concurrency=concurrency, fresh=new_processes,
                    games_per_table=n, pin=pin,
                )  # fmt: skip
                print(f"{name}: {games_per_s:,.2f} games/s ({6 * n} games)")
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        bots = make_bots(root, 4)
        n = args.games_per_table
        c1 = run(bots, root / "c1.sqlite", concurrency=1, fresh=False, games_per_table=n)
        c2 = run(bots, root / "c2.sqlite", concurrency=2, fresh=False, games_per_table=n)
        pinned = run(
            bots, root / "pinned.sqlite", concurrency=2, fresh=False, games_per_table=n, pin=True
        )
        c4 = run(bots, root / "c4.sqlite", concurrency=4, fresh=False, games_per_table=n)
        fresh = run(bots, root / "fresh.sqlite", concurrency=2, fresh=True, games_per_table=4)
    games = 6 * n
    print(f"league: 4 instant bots, tables of 2, {games} games per run")
    print(f"concurrency 1: {c1:,.1f} games/s")
    print(f"concurrency 2: {c2:,.1f} games/s")
    print(f"speed-up at 2: {c2 / c1:.2f}x  (target: at least 1.7x on two cores)")
    print(
        f"concurrency 2, workers pinned (--pin-cpus): {pinned:,.1f} games/s,"
        f" {pinned / c1:.2f}x concurrency 1, {pinned / c2:.2f}x unpinned"
    )
    workers = min(4, os.cpu_count() or 1)
    print(
        f"concurrency 4 ({workers} worker processes, {-(-4 // workers)} games at once each):"
        f" {c4:,.1f} games/s, {c4 / c2:.2f}x concurrency 2"
    )
    print(f"fresh process per game (concurrency 2): {fresh:,.1f} games/s")
    print(f"reuse / fresh: {c2 / fresh:.1f}x")
    print(f"(python {sys.version.split()[0]})")


if __name__ == "__main__":
    main()
