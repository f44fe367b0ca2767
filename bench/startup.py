"""Start-up (issue 14.4) and the stored schedule (issue 14.5), each against its floor in
one run:

1. `arena --help` (a fresh process) against `python -c "import click"`: target at most 4x.
2. A one-game `arena match` of four Python bots (`run_match`, as the command plays it,
   under bubblewrap where it works): the time it spends starting and closing its bots
   (the whole match less the game itself) against a single bot's start-up alone
   (spawn to its hello answered): target less than 2x. The same for a match of two
   bots: a Python bot's start-up is mostly CPU, so on two cores four of them take
   about twice as long as two. So it also prints the floor of four start-ups and
   closes on this machine: four times the CPU time one bot's start and close costs
   the whole machine (from /proc/stat, the least of the runs), over its cores; and
   the same ratio for the bot's own command line started with no arena at all (four
   at once against one), which arena's ratio cannot beat.
3. A league's schedule of 5,000 tables of 4 among 100 bots: computing it (the first
   start) against reading it back from the store (every resume).

Usage: python bench/startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import trio

import arena.referee._pool as pool_module
from arena.bots import load_manifest, resolve_command
from arena.league import LeagueConfig
from arena.league._resume import _schedule
from arena.match import run_match
from arena.referee import RunSettings, open_pools
from arena.rules import GameConfig
from arena.sandbox import resolve_sandbox
from arena.store import Store

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "example_bots" / "python" / "random"


def wall(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def arena_command() -> list[str]:
    script = Path(sys.executable).parent / "arena"
    return [str(script)] if script.exists() else [sys.executable, "-m", "arena"]


def help_figures(runs: int) -> tuple[float, float]:
    """Best of `runs` interleaved: `arena --help`, `python -c "import click"`."""
    arena = [*arena_command(), "--help"]
    click = [sys.executable, "-c", "import click"]
    wall(arena)
    wall(click)  # warm the file cache
    helps, clicks = [], []
    for _ in range(runs):
        helps.append(wall(arena))
        clicks.append(wall(click))
    return min(helps), min(clicks)


def settings() -> RunSettings:
    mode, _ = resolve_sandbox(None)
    return RunSettings(sandbox=mode)


def busy_seconds() -> float:
    """CPU time the whole machine has spent busy since boot (every core, all processes):
    the sandboxed bot's processes are not all children that arena reaps."""
    with open("/proc/stat") as stat:
        fields = [int(f) for f in stat.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


async def single_start() -> float:
    """One bot, alone: from its spawn to its hello answered."""
    spec = load_manifest(BOT)
    async with open_pools([spec], settings()) as pools:
        start = time.perf_counter()
        session = await pools[spec.name].acquire()
        elapsed = time.perf_counter() - start
        await pools[spec.name].release(session)
    return elapsed


def bare_starts(count: int) -> float:
    """`count` processes of the bot's own command line started at once by plain
    `subprocess`, with no arena and no sandbox, each reading the end of its input at
    once and exiting: seconds until the last has gone. What starting that many at
    once costs this machine by itself: the floor of issue 14.4's ratio, measured
    rather than reckoned from CPU time (on a 2-core VM, four such starts took 2.4-2.7
    times one, not 2)."""
    spec = load_manifest(BOT)
    assert spec.folder is not None
    command = resolve_command(spec.command, spec.folder)
    start = time.perf_counter()
    processes = [
        subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            cwd=spec.folder,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        )
        for _ in range(count)
    ]
    for process in processes:
        process.wait()
    return time.perf_counter() - start


async def start_close_cpu(times: int = 10) -> float:
    """The machine's CPU time for one bot's start and close, one after another (the
    clock ticks of /proc/stat are 10 ms: `times` of them are counted together)."""
    busy = busy_seconds()
    for _ in range(times):
        await single_start()
    return (busy_seconds() - busy) / times


async def match_overhead(seats: int) -> tuple[float, float]:
    """A one-game match of `seats` of the bot: (start and close, the game)."""
    spec = load_manifest(BOT)
    specs = [dataclasses.replace(spec, name=f"p{i}") for i in range(seats)]
    played: list[float] = []
    play_game = pool_module.play_game  # type: ignore[attr-defined]

    async def timed_game(*args: object, **kwargs: object) -> object:
        start = time.perf_counter()
        try:
            return await play_game(*args, **kwargs)  # type: ignore[arg-type]
        finally:
            played.append(time.perf_counter() - start)

    pool_module.play_game = timed_game  # type: ignore[attr-defined,assignment]
    try:
        start = time.perf_counter()
        await run_match(specs, GameConfig(players=seats), games=1, seed=1, settings=settings())
        total = time.perf_counter() - start
    finally:
        pool_module.play_game = play_game  # type: ignore[attr-defined]
    return total - played[0], played[0]


def schedule_figures() -> tuple[float, float, int]:
    """Seconds to compute and to read back the schedule of 5,000 tables of 4."""
    names = [f"bot{i:03d}" for i in range(100)]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "league.sqlite"
        config = LeagueConfig(
            bots=Path(tmp),
            store=path,
            game=GameConfig(players=4),
            seed=1,
            max_tables=5000,
            games_per_table=8,
        )

        def timed(action: Callable[[Store], object]) -> tuple[float, object]:
            with Store.open(path) as store:
                start = time.perf_counter()
                value = action(store)
                return time.perf_counter() - start, value

        compute, first = timed(lambda store: _schedule(config, names, store, print))
        read, again = timed(lambda store: _schedule(config, names, store, print))
        assert first == again
        return compute, read, len(first.games) // config.games_per_table  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs of each (best is kept)")
    runs = parser.parse_args().runs

    arena_help, click = help_figures(runs)
    print(
        f"arena --help: {arena_help * 1000:.0f} ms; python -c 'import click': {click * 1000:.0f} ms"
    )
    print(f"arena --help / import click: {arena_help / click:.1f}x  (target: at most 4x)")

    cores = len(os.sched_getaffinity(0))
    singles, cpus, overheads, games, pairs, bare1, bare4 = [], [], [], [], [], [], []
    for _ in range(runs):  # interleaved, so that a noisy neighbour hits all alike
        bare1.append(bare_starts(1))
        bare4.append(bare_starts(4))
        singles.append(trio.run(single_start))
        cpus.append(trio.run(start_close_cpu))
        overhead, game = trio.run(match_overhead, 4)
        overheads.append(overhead)
        games.append(game)
        pairs.append(trio.run(match_overhead, 2)[0])
    single, overhead, pair = min(singles), min(overheads), min(pairs)
    floor = 4 * min(cpus) / cores
    print(
        f"one bot's start-up alone: {single * 1000:.0f} ms"
        f" (median {statistics.median(singles) * 1000:.0f} ms)"
    )
    print(
        f"one-game match of four bots: {overhead * 1000:.0f} ms starting and closing bots"
        f" (median {statistics.median(overheads) * 1000:.0f} ms),"
        f" {min(games) * 1000:.0f} ms playing"
    )
    print(f"start and close / one bot's start-up: {overhead / single:.1f}x  (target: under 2x)")
    print(
        f"the same for a one-game match of two bots: {pair * 1000:.0f} ms,"
        f" {pair / single:.1f}x (a bot's start-up is mostly CPU: this machine has"
        f" {cores} cores)"
    )
    print(
        f"one bot's start and close cost the machine {min(cpus) * 1000:.0f} ms of CPU: four"
        f" on {cores} cores take at least {floor * 1000:.0f} ms,"
        f" {floor / single:.1f}x one bot's start-up"
    )
    print(f"start and close of four / that floor: {overhead / floor:.2f}x")
    bare = min(bare4) / min(bare1)
    print(
        f"the bot's own command, no arena, no sandbox: one start and exit {min(bare1) * 1000:.0f}"
        f" ms, four at once {min(bare4) * 1000:.0f} ms: {bare:.1f}x (so arena's target of"
        f" under 2x {'can' if bare < 2 else 'cannot'} be met on this machine)"
    )
    print(
        f"arena's four-bot start and close against one start, over the same ratio without"
        f" arena: {overhead / single / bare:.2f}x"
    )
    print(f"(bots: {BOT.relative_to(ROOT)}, sandbox: {resolve_sandbox(None)[0]})")

    compute, read, tables = schedule_figures()
    print(f"schedule of {tables:,} tables of 4 among 100 bots: computed in {compute:.2f} s,")
    print(f"  read back from the store in {read * 1000:.0f} ms: {compute / read:,.0f}x faster")


if __name__ == "__main__":
    main()
