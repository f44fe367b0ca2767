"""The ladder's table choice against round-robin, by simulation (issue 45.3).

Bots of known strength (Elo evenly spaced, `GAP` apart) play tables of 2, 4 and 6; a
game is a Plackett–Luce draw from the true strengths (the order of θ plus Gumbel noise),
and a table is `k` games (a duplicate group: one deal in every seat rotation; in the
simulation the k games are independent draws, so the deal's luck, which duplicate
deals cancel, is not simulated for either scheme). Both schemes are rated by the same
fit (`arena.ratings`, as the ladder rates), refitted at the same checkpoints (every
`STEP` more games, the last fit warm-starting the next).

- round-robin: rounds in which every bot plays once: at tables of 2 a true round-robin
  (the circle method: every pair once in n - 1 rounds, relabelled at random for each
  cycle), at larger tables a new shuffle each round cut into tables (bots left over
  fill the last table); the schedule needs no fit, so only the checkpoints refit;
- the ladder: `arena.ladder.choose_table`, as the server calls it: rounds of tables
  that share no bot, each chosen on the last fit (placement for the first tables).

Two figures per scheme, in games (a table of k is k games):
- top 3: the games after which the true top 3 are ranked first, second and third
  (and stay so to the end of the run) in 95% of the runs;
- separated: the median over runs of the games until every pair of neighbours in the
  true order is separated at 95% LOS by the fit (its covariance).
Target (issue 45.3): the ladder needs at most half of round-robin's games, for 20 and
for 100 bots.

Runs are single-threaded in BLAS (set here, before numpy is imported): the fit's
matrices are at most 100 × 100, and a threaded solve on two busy cores took 90 times
as long. A run stops 3 checkpoints after it is separated, or at `--cap` games (round-
robin at 100 bots and tables of 2 needs some 900,000).

    python bench/ladder.py                 # 20 and 100 bots, tables of 2, 4, 6
    python bench/ladder.py --bots 20 --runs 10 --sizes 2
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import time

# One BLAS thread: the fit's matrices are 100 × 100 at most, and a threaded solve of one
# took 6 ms instead of 0.07 ms on two busy cores.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402

from arena.ladder._select import Rated, choose_table, rate, without  # noqa: E402
from arena.ratings import FinishingOrders  # noqa: E402

GAP = 50.0
"""Elo between neighbours in the true order."""
STEP = 1.05
"""Checkpoints: every 5% more games (and a round at least)."""
ELO_PER_NAT = 400.0 / math.log(10.0)


class Sim:
    """One run: the games so far in columns, the fit, the checkpoints."""

    def __init__(self, n: int, k: int, rng: np.random.Generator) -> None:
        self.n, self.k, self.rng = n, k, rng
        self.names = tuple(f"b{i:03d}" for i in range(n))  # b000 is the strongest
        self.theta = np.array([-(i * GAP) / ELO_PER_NAT for i in range(n)])
        # The games in columns, grown by doubling (a list of small arrays joined at
        # every fit cost more than the fit at 20 bots).
        self._player = np.zeros(1024, dtype=np.intp)
        self.games = 0
        self.rated: Rated | None = None

    def play(self, tables: list[tuple[str, ...]]) -> None:
        """Every table's k games (k independent Plackett–Luce draws each)."""
        if not tables:
            return
        seats = np.array([[int(name[1:]) for name in table] for table in tables])
        games = np.repeat(seats, self.k, axis=0)  # one row a game
        noise = self.rng.gumbel(size=games.shape)
        order = np.take_along_axis(games, np.argsort(-(self.theta[games] + noise), axis=1), 1)
        size = (self.games + len(order)) * self.k
        if size > len(self._player):
            grown = np.zeros(max(size, 2 * len(self._player)), dtype=np.intp)
            grown[: self.games * self.k] = self._player[: self.games * self.k]
            self._player = grown
        self._player[self.games * self.k : size] = order.ravel()
        self.games += len(order)

    def fit(self) -> Rated:
        k, games = self.k, self.games
        orders = FinishingOrders(
            players=self.names,
            game=np.repeat(np.arange(games, dtype=np.intp), k),
            player=self._player[: games * k],
            place=np.tile(np.arange(k, dtype=np.int64), games),
            games=games,
        )
        start = self.rated.theta if self.rated is not None else None
        self.rated = rate(orders, self.names, start)
        return self.rated

    def top3_right(self) -> bool:
        assert self.rated is not None
        return self.rated.ranking[:3] == self.names[:3]

    def separated(self) -> bool:
        """Every true neighbour pair separated at 95% LOS (upper over lower)."""
        assert self.rated is not None
        ranking = self.rated.ranking
        if ranking != self.names:
            return False
        return all(p >= 0.95 for p in self.rated.los)


class RoundRobin:
    """Rounds in which every bot plays once. At tables of 2 (an even number of bots) a
    true round-robin, by the circle method: every pair once in n - 1 rounds, the bots
    relabelled at random for each cycle; otherwise each round a new shuffle cut into
    tables (the bots left over fill the last table with others drawn at random)."""

    def __init__(self, sim: Sim, rng: random.Random) -> None:
        self.names, self.k, self.rng = list(sim.names), sim.k, rng
        self.round = 0
        self.circle = list(self.names)

    def next_round(self) -> list[tuple[str, ...]]:
        n, k = len(self.names), self.k
        if k == 2 and n % 2 == 0:
            r = self.round % (n - 1)
            if r == 0:
                self.rng.shuffle(self.circle)
            self.round += 1
            ring = self.circle[1:]
            ring = ring[r:] + ring[:r]
            line = [self.circle[0], *ring]
            return [(line[i], line[n - 1 - i]) for i in range(n // 2)]
        names = list(self.names)
        self.rng.shuffle(names)
        tables = [tuple(names[i : i + k]) for i in range(0, n, k)]
        if len(tables[-1]) < k:
            short = tables.pop()
            others = [name for name in self.names if name not in short]
            tables.append((*short, *self.rng.sample(others, k - len(short))))
        return tables


def ladder_round(sim: Sim, rng: random.Random, tables_of: dict[str, int]) -> list[tuple[str, ...]]:
    assert sim.rated is not None
    chosen: list[tuple[str, ...]] = []
    taken: set[str] = set()
    batch = max(1, sim.n // (2 * sim.k))  # tables chosen on one fit (as if played at once)
    while len(sim.names) - len(taken) >= sim.k and len(chosen) < batch:
        rated = without(sim.rated, taken) if taken else sim.rated
        table, _ = choose_table(rated, sim.k, tables_of, rng, top=10)
        chosen.append(table)
        taken.update(table)
        for name in table:
            tables_of[name] = tables_of.get(name, 0) + 1
    return chosen


def run(
    n: int, k: int, scheme: str, seed: int, cap: int
) -> tuple[list[tuple[int, bool]], int | None]:
    """(checkpoints as (games, top 3 right), games when separated or None)."""
    sim = Sim(n, k, np.random.default_rng(seed))
    rng = random.Random(seed)
    tables_of: dict[str, int] = {}
    round_robin = RoundRobin(sim, rng)
    sim.fit()
    checkpoints: list[tuple[int, bool]] = []
    separated_at: int | None = None
    next_fit = 0
    after = 0
    while sim.games < cap:
        tables = (
            round_robin.next_round() if scheme == "round-robin"
            else ladder_round(sim, rng, tables_of)
        )  # fmt: skip
        sim.play(tables)
        if scheme == "ladder" and sim.games < next_fit:
            sim.fit()  # the ladder refits as games arrive; the figures wait for a checkpoint
        if sim.games >= next_fit:
            sim.fit()
            next_fit = int(sim.games * STEP)
            checkpoints.append((sim.games, sim.top3_right()))
            if separated_at is None and sim.separated():
                separated_at = sim.games
            if separated_at is not None:
                after += 1
                if after > 3:
                    break
    return checkpoints, separated_at


def top3_games(runs: list[list[tuple[int, bool]]]) -> int | None:
    """The games after which 95% of the runs rank the top 3 right to the end."""
    settled = []
    for checkpoints in runs:
        last_wrong = max((g for g, right in checkpoints if not right), default=0)
        later = [g for g, _ in checkpoints if g > last_wrong]
        settled.append(later[0] if later else math.inf)
    settled.sort()
    value = settled[max(0, math.ceil(0.95 * len(settled)) - 1)]
    return None if value == math.inf else int(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bots", type=int, nargs="+", default=[20, 100])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2, 4, 6])
    parser.add_argument("--runs", type=int, default=0, help="runs each (default: 20, 6 at 100)")
    parser.add_argument("--cap", type=int, default=4_000_000, help="the most games of a run")
    args = parser.parse_args()
    print(f"bots {GAP:g} Elo apart; games until: the true top 3 ranked right in 95% of runs;"
          " every neighbour pair separated at 95% LOS (median of runs)")  # fmt: skip
    print(f"{'bots':>5} {'table':>5} {'runs':>4}  {'top 3: rr':>10} {'ladder':>8} {'ratio':>6}"
          f"  {'separated: rr':>14} {'ladder':>8} {'ratio':>6}  {'s':>5}")  # fmt: skip
    for n in args.bots:
        runs = args.runs or (20 if n <= 20 else 6)
        for k in args.sizes:
            started = time.monotonic()
            figures = {}
            for scheme in ("round-robin", "ladder"):
                results = [run(n, k, scheme, seed, args.cap) for seed in range(runs)]
                top3 = top3_games([checkpoints for checkpoints, _ in results])
                seps = [s if s is not None else math.inf for _, s in results]
                figures[scheme] = (top3, statistics.median(seps))
            (rr3, rrs), (l3, ls) = figures["round-robin"], figures["ladder"]
            r3 = f"{l3 / rr3:.2f}" if l3 and rr3 else "-"
            rs = f"{ls / rrs:.2f}" if math.isfinite(ls) and math.isfinite(rrs) else "-"
            print(f"{n:>5} {k:>5} {runs:>4}  {rr3 or '-':>10} {l3 or '-':>8} {r3:>6}"
                  f"  {_g(rrs):>14} {_g(ls):>8} {rs:>6}  {time.monotonic() - started:>5.0f}",
                  flush=True)  # fmt: skip


def _g(value: float) -> str:
    return str(int(value)) if math.isfinite(value) else ">cap"


if __name__ == "__main__":
    main()
