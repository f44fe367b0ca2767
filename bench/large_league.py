"""A large league on one machine: peak memory of the process tree, and games per second
with bot processes reused against a fresh process per game (issue 14.1).

100 instant Python bots at tables of 4, concurrency 2, with and without duplicate
deals. Each league runs into a fresh store while a thread samples the memory of this
process and all its descendants (the workers and every bot process) every 50 ms: the
peak of the summed resident set sizes (RSS, which counts shared pages once per
process, so it overstates) and of the summed proportional set sizes (PSS, shared pages
split between their users: the memory the tree really holds).

Targets: peak memory under 1 GB; reused processes play at least 5 times as many games
per second as fresh ones without duplicate deals, at least 3 times with them (a bot
process never plays two games of one duplicate group).

Starting an instant Python bot (tens of milliseconds of CPU) costs more than a game
between running ones, so games per second follow the process starts per game, which
each bot's processes count here (one line per start in a file): 4 with fresh processes;
with reused ones, what the hand-out order (`arena.league.Dispatch`) and the cap of 32
processes per worker leave. Those fall as the league grows: every worker starts at
least 4 processes of each bot it meets with duplicate deals (one per rotation of a
table), however few games it plays with them. The reused runs play 400 tables, 16 per
bot, to show a league past that start (a league of 100 bots plays 1000 tables by
default, 40 per bot; 0.70 starts a game at 200 tables, 0.54 at 400, 0.38 at 1000 in a
simulation of the hand-out and the cap); the fresh runs start 4 processes a game
however long they are, so 30 tables measure them. About 4 minutes on two idle cores.

Usage: python bench/large_league.py [--bots 100] [--tables 400] [--fresh-tables 30]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import trio

from arena.league import LeagueConfig, Progress, run_league
from arena.referee import Clocks, RunSettings
from arena.rules import GameConfig
from arena.store import Store

from instant_bot import make_bots


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(b")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, ()))
    return found


def _memory(pids: list[int]) -> tuple[int, int, int]:
    """(summed RSS, summed PSS, processes) in bytes."""
    rss = pss = count = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Rss:"):
                        rss += int(line.split()[1]) * 1024
                    elif line.startswith("Pss:"):
                        pss += int(line.split()[1]) * 1024
            count += 1
        except OSError:
            continue
    return rss, pss, count


class Sampler(threading.Thread):
    """Samples the memory of this process tree until stopped; keeps the peaks."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peak_rss = self.peak_pss = self.peak_processes = 0
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.wait(0.05):
            rss, pss, count = _memory(_descendants(os.getpid()))
            self.peak_rss = max(self.peak_rss, rss)
            self.peak_pss = max(self.peak_pss, pss)
            self.peak_processes = max(self.peak_processes, count)

    def stop(self) -> None:
        self._done.set()
        self.join()


def run(
    bots: Path, store: Path, *, tables: int, duplicate: bool, fresh: bool, concurrency: int
) -> tuple[float, Sampler, int]:
    """(games per second, memory peaks, games) of one whole league run."""
    config = LeagueConfig(
        bots=bots,
        store=store,
        game=GameConfig(players=4),
        run=RunSettings(clocks=Clocks(decision_ms=5000), fresh_process=fresh),
        seed=1,
        table_size=4,
        games_per_table=8,
        duplicate=duplicate,
        max_tables=tables,
        concurrency=concurrency,
    )
    sampler = Sampler()
    with Store.open(store) as db:
        sampler.start()
        start = time.perf_counter()
        try:
            report = trio.run(run_league, config, db, Progress())
        finally:
            sampler.stop()
        elapsed = time.perf_counter() - start
    return report.played / elapsed, sampler, report.played


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=100)
    parser.add_argument("--tables", type=int, default=400, help="tables of the reused runs")
    parser.add_argument("--fresh-tables", type=int, default=30, help="tables of the fresh runs")
    parser.add_argument("--concurrency", type=int, default=2)
    args = parser.parse_args()
    mb = 1 << 20
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        starts = root / "starts"
        bots = make_bots(root, args.bots, starts)
        print(
            f"league: {args.bots} instant Python bots, tables of 4, 8 games per table,"
            f" concurrency {args.concurrency}"
        )
        print(
            f"{'deals':<10} {'processes':<9} {'games':>6} {'games/s':>8}"
            f" {'peak RSS':>9} {'peak PSS':>9} {'procs':>6} {'starts/game':>12}"
        )
        rates = {}
        for duplicate in (False, True):
            for fresh in (False, True):
                name = f"{'dup' if duplicate else 'nodup'}-{'fresh' if fresh else 'reused'}"
                starts.write_text("")
                rate, sampler, games = run(
                    bots,
                    root / f"{name}.sqlite",
                    tables=args.fresh_tables if fresh else args.tables,
                    duplicate=duplicate,
                    fresh=fresh,
                    concurrency=args.concurrency,
                )
                rates[duplicate, fresh] = rate
                print(
                    f"{'duplicate' if duplicate else 'single':<10}"
                    f" {'fresh' if fresh else 'reused':<9} {games:>6} {rate:>8.1f}"
                    f" {sampler.peak_rss / mb:>7.0f}MB {sampler.peak_pss / mb:>7.0f}MB"
                    f" {sampler.peak_processes:>6}"
                    f" {len(starts.read_text().split()) / games:>12.2f}",
                    flush=True,
                )
        single = rates[False, False] / rates[False, True]
        dup = rates[True, False] / rates[True, True]
        print(f"reused / fresh, single deals:    {single:.1f}x  (target: at least 5x)")
        print(f"reused / fresh, duplicate deals: {dup:.1f}x  (target: at least 3x)")
        print("peak memory target: under 1 GB (PSS: the memory the tree holds)")
        print(f"(python {sys.version.split()[0]})")


if __name__ == "__main__":
    main()
