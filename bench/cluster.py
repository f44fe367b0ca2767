"""Leagues on a Dask cluster: games per second against a local league, and the
coordinator's own ceiling.

1. A league of instant bots (4 bots, tables of 2, duplicate deals) run locally at
   concurrency 2, then through a local cluster (a `dask scheduler` and two
   `dask worker --nthreads 1` processes on 127.0.0.1) at its default concurrency (the
   workers' threads: 2), in this one run. Target: the cluster reaches at least 85% of
   the local rate. Each rate is the whole league run, bot start-up (and for the
   cluster connecting and shipping the bots) included.
2. The coordinator's ceiling: how many results per second it records (a store write
   and a progress line each, the standings printed every tenth of the league as
   `arena league` does) when games take no time: with players in this process (the
   store and progress alone), and with Dask workers whose tasks return at once (the
   store, progress and Dask's per-task cost). Divided by the rate of one local worker
   process, that is how many single-threaded workers one coordinator can keep busy.

It prints its figures as ratios (the rates they come from in brackets).

Usage: python bench/cluster.py [--games-per-table N] [--ceiling-games N]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import trio

from arena.cluster import DaskRunner
from arena.commands._progress import TerminalProgress
from arena.league import LeagueConfig, Progress, run_league
from arena.messages import Play, Played, Setup
from arena.referee import Clocks, RunSettings
from arena.rules import GameConfig
from arena.runners import Player
from arena.store import Store

from instant_bot import make_bots

DASK = Path(sys.executable).with_name("dask")


def config(bots: Path, store: Path, games_per_table: int, **more: Any) -> LeagueConfig:
    return LeagueConfig(
        bots=bots,
        store=store,
        game=GameConfig(players=2),
        run=RunSettings(clocks=Clocks(decision_ms=5000)),
        seed=1,
        table_size=2,
        games_per_table=games_per_table,
        duplicate=True,
        **more,
    )


def rate(league: LeagueConfig, progress: Progress | None = None, runner: Any = None) -> float:
    """Games per second of one whole league run."""
    with Store.open(league.store) as store:
        start = time.perf_counter()
        report = trio.run(run_league, league, store, progress or Progress(), runner)
        elapsed = time.perf_counter() - start
    assert report.played == len(report.schedule.games), "games were lost"
    return report.played / elapsed


# ---------------------------------------------------------------------- instant games


def instant_played(game: Play) -> Played:
    """A result for `game` made at once (the seats finish in order)."""
    from arena.referee import GameResult
    from arena.rules import EndReason, GameConfig, Outcome
    from arena.store import pack_replay

    n = len(game.seats)
    outcome = Outcome(tuple(range(1, n + 1)), None, None, (), EndReason.LAST_PLAYER, 1, 1)
    result = GameResult(
        game.game_id, game.seed, GameConfig(players=n), game.seats, outcome, (), 1,
        (0.0,) * n, [],
    )  # fmt: skip
    now = time.time()
    return Played(game.game_id, result, now, now, pack_replay([{"type": "game"}]))


def instant_task(info: object, bundles: object, plays: list[bytes]) -> list[bytes]:
    """A game task whose games take no time (run on the workers; pickled by value)."""
    from arena.messages import Reader, ToWorker, encode

    out = []
    for play in plays:
        reader = Reader(ToWorker, "bench")
        reader.feed(play)
        out.append(encode(instant_played(reader.next())))
    return out


class InstantRunner:
    """`concurrency` players in this process whose games take no time."""

    def __init__(self, concurrency: int) -> None:
        self.concurrency = concurrency

    async def build_bots(self, specs: object, settings: object) -> None:
        return None  # built by the caller

    @contextlib.asynccontextmanager
    async def players(self, setup: Setup) -> AsyncIterator[list[Player]]:
        async def play(game: Play) -> Played:
            await trio.lowlevel.checkpoint()
            return instant_played(game)

        yield [play] * self.concurrency


@contextlib.contextmanager
def quiet_stderr() -> Iterator[None]:
    with contextlib.redirect_stderr(io.StringIO()):
        yield


def ceiling(
    bots: Path, store: Path, games: int, *, runner: Any = None, cluster: str = ""
) -> tuple[float, float]:
    """(results per second, this process's CPU seconds per result) the coordinator
    records when games take no time: with `runner`, or through the Dask scheduler at
    `cluster` (64 tasks in flight, enough to hide Dask's latency per task). The CPU
    time includes Dask's client threads, not the scheduler's or workers' processes."""
    per_table = max(2, games // 190 // 2 * 2)  # 20 bots: 190 tables of 2
    league = config(bots, store, per_table, concurrency=64)
    with Store.open(store) as db, quiet_stderr():
        progress = TerminalProgress(0, db)
        cpu = time.process_time()
        start = time.perf_counter()
        if cluster:

            async def through_cluster() -> int:
                async with DaskRunner.open(cluster, concurrency=64, task=instant_task) as dask:
                    report = await run_league(league, db, progress, dask)
                return report.played

            played = trio.run(through_cluster)
        else:
            played = trio.run(run_league, league, db, progress, runner).played
        elapsed = time.perf_counter() - start
        cpu = time.process_time() - cpu
    return played / elapsed, cpu / played


# ---------------------------------------------------------------------- the cluster


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.contextmanager
def local_cluster(root: Path, workers: int) -> Iterator[str]:
    """A scheduler and `workers` single-threaded workers on 127.0.0.1."""
    dask = str(DASK) if DASK.exists() else shutil.which("dask") or "dask"
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    log = open(root / "cluster.log", "wb")  # noqa: SIM115 - closed below
    scheduler = [dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"]
    procs = [subprocess.Popen(scheduler, stdout=log, stderr=subprocess.STDOUT)]
    env = dict(os.environ, ARENA_CLUSTER_CACHE=str(root / "cache"))
    try:
        for i in range(workers):
            worker = [
                dask, "worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard",
                "--host", "127.0.0.1", "--name", f"w{i}", "--local-directory", str(root / f"d{i}"),
            ]  # fmt: skip
            procs.append(subprocess.Popen(worker, stdout=log, stderr=subprocess.STDOUT, env=env))
        deadline = time.monotonic() + 120
        while (root / "cluster.log").read_bytes().count(b"Registered to") < workers:
            if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
                raise SystemExit(f"the local cluster did not start: see {root / 'cluster.log'}")
            time.sleep(0.1)
        yield address
    finally:
        for group in (procs[1:], procs[:1]):  # the workers, then the scheduler
            for proc in group:
                proc.terminate()
            for proc in group:
                try:
                    proc.wait(5)
                except subprocess.TimeoutExpired:  # a worker can hang on its way out
                    proc.kill()
                    proc.wait()
        log.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--games-per-table", type=int, default=60,
        help="games per table of the league of instant bots (6 tables)",
    )  # fmt: skip
    parser.add_argument(
        "--ceiling-games", type=int, default=3800,
        help="games of the ceiling's leagues (20 bots, tables of 2)",
    )  # fmt: skip
    args = parser.parse_args()
    n = args.games_per_table
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        bots = make_bots(root / "four", 4)
        many = make_bots(root / "twenty", 20)
        with local_cluster(root, 2) as address:
            # A first cluster league warms the workers up (imports, caches): not timed.
            rate(config(bots, root / "warm.sqlite", 2, cluster=address, concurrency=0))
            local = remote = 0.0
            for i in range(2):  # the better of two of each, taken in turns
                local = max(local, rate(config(bots, root / f"local{i}.sqlite", n, concurrency=2)))
                league = config(
                    bots, root / f"cluster{i}.sqlite", n, cluster=address, concurrency=0
                )
                remote = max(remote, rate(league))
            games = args.ceiling_games
            alone, alone_cpu = ceiling(many, root / "alone.sqlite", games, runner=InstantRunner(64))
            dask, dask_cpu = ceiling(many, root / "dask.sqlite", games, cluster=address)
    per_worker = local / 2
    print(f"league: 4 instant bots, tables of 2, {6 * n} games per run, best of 2")
    print(
        f"cluster (2 workers x 1 thread) / local (concurrency 2): {remote / local:.2f}"
        f"  (target: at least 0.85)  [{remote:,.1f} vs {local:,.1f} games/s]"
    )
    print(
        "coordinator ceiling, store + progress / one local worker process:"
        f" {alone / per_worker:,.0f}  [{alone:,.0f} results/s, {alone_cpu * 1e3:.2f} ms CPU each]"
    )
    print(
        "coordinator ceiling through Dask, here / one local worker process:"
        f" {dask / per_worker:,.0f}  [{dask:,.0f} results/s, with the scheduler and workers"
        " on the same cores]"
    )
    per_core = 1 / dask_cpu
    print(
        "coordinator ceiling through Dask, per core of its own / one local worker process:"
        f" {per_core / per_worker:,.0f}  [{dask_cpu * 1e3:.2f} ms of its CPU per result:"
        f" {per_core:,.0f} results/s]"
    )
    print(
        f"so one coordinator keeps about {per_core / per_worker:,.0f} single-threaded workers"
        " busy with instant bots, and N times more with games N times longer"
    )
    print(f"(python {sys.version.split()[0]}, {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
