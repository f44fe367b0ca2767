"""Coverage of the standings' 95% intervals, by simulation (issue 15, item 8).

Leagues of bots of known Plackett–Luce strength (log-strengths evenly spread over
-1.2 … 1.2, 4-seat games at random tables) are fitted as `arena standings` fits them,
with the default prior; each bot's interval either covers its true strength or not.
Three intervals: the Fisher one (``θ ± 1.96`` standard errors from the information),
the bootstrap percentile interval that ``--bootstrap N`` gave before (2.5% and 97.5%
quantiles of the refits), and the normal bootstrap interval it gives now (``θ ± 1.96``
standard deviations of the refits). Both bootstrap intervals use the same refits;
tests/ratings/test_bootstrap_coverage.py checks that the standings print the latter.

The Monte-Carlo standard error of a coverage ``p`` over ``n`` intervals is
``sqrt(p(1 - p)/n)``; "per-league s.e." is the spread of the leagues' own coverages
over sqrt(leagues), which also allows for the intervals of one league being related.
"Out" counts misses on the side away from the average (interval too extreme), "in"
those towards it. Usage: python bench/bootstrap_coverage.py [--leagues N] [--games N]
[--bots N] [--resamples N] [--prior A] [--seed N]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import numpy.typing as npt
import tabulate

from arena.ratings import (
    DEFAULT_PRIOR,
    ELO_PER_NAT,
    NoEstimateError,
    bootstrap_plackett_luce,
    fit_plackett_luce,
)

Z95 = 1.959963984540054
Array = npt.NDArray[np.float64]


def simulate(
    strengths: Array, games: int, seats: int, rng: np.random.Generator
) -> list[list[list[str]]]:
    """Finishing orders of Plackett–Luce games among bots ``b00, b01, …`` (Gumbel trick)."""
    tables = np.argsort(rng.random((games, len(strengths))), axis=1)[:, :seats]
    noisy = strengths[tables] + rng.gumbel(size=(games, seats))
    finish = np.take_along_axis(tables, np.argsort(-noisy, axis=1), axis=1)
    return [[[f"b{bot:02d}"] for bot in row] for row in finish.tolist()]


class Tally:
    """Per-league coverage and misses of one kind of interval."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.covered: list[npt.NDArray[np.bool_]] = []
        self.out: list[npt.NDArray[np.bool_]] = []
        self.width: list[Array] = []

    def add(self, truth: Array, low: Array, high: Array) -> None:
        self.covered.append((low <= truth) & (truth <= high))
        away = np.where(truth >= 0.0, low > truth, high < truth)
        self.out.append(away)
        self.width.append(high - low)

    def row(self) -> list[str]:
        hits = np.concatenate(self.covered)
        n = hits.size
        p = float(hits.mean())
        per_league = np.array([c.mean() for c in self.covered])
        clustered = float(per_league.std(ddof=1)) / math.sqrt(len(per_league))
        out = float(np.concatenate(self.out).mean())
        width = ELO_PER_NAT * float(np.concatenate(self.width).mean())
        se = math.sqrt(p * (1 - p) / n)
        return [
            self.name,
            f"{100 * p:.2f}%",
            f"{100 * se:.2f}",
            f"{(p - 0.95) / se:+.1f}" if se else "",
            f"{100 * clustered:.2f}",
            f"{100 * out:.2f}%",
            f"{100 * (1 - p - out):.2f}%",
            f"{width:.0f}",
        ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--leagues", type=int, default=200, help="repetitions")
    parser.add_argument("--games", type=int, default=120, help="games per league")
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--resamples", type=int, default=200)
    parser.add_argument("--prior", type=float, default=DEFAULT_PRIOR)
    parser.add_argument("--seed", type=int, default=15)
    args = parser.parse_args()

    strengths = np.linspace(-1.2, 1.2, args.bots)
    rng = np.random.default_rng(args.seed)
    fisher, percentile, normal = (
        Tally("Fisher"),
        Tally("bootstrap percentile (old)"),
        Tally("bootstrap normal (now)"),
    )
    failed = skipped = 0
    start = time.perf_counter()
    for league in range(args.leagues):
        rankings = simulate(strengths, args.games, args.seats, rng)
        try:
            fit = fit_plackett_luce(rankings, prior=args.prior)
        except NoEstimateError:
            failed += 1
            continue
        truth = np.array([strengths[int(p[1:])] for p in fit.players])
        est = fit.log_strength
        se = fit.standard_errors()
        assert se is not None
        fisher.add(truth, est - Z95 * se, est + Z95 * se)
        boot = bootstrap_plackett_luce(
            rankings, prior=args.prior, resamples=args.resamples, seed=league
        )
        skipped += boot.skipped
        low, high = np.percentile(boot.samples, [2.5, 97.5], axis=0)
        percentile.add(truth, low, high)
        half = Z95 * boot.standard_errors()
        normal.add(truth, est - half, est + half)
    elapsed = time.perf_counter() - start

    used = args.leagues - failed
    print(
        f"{used} leagues of {args.games} {args.seats}-seat games among {args.bots} bots "
        f"(prior {args.prior:g}), {args.resamples} bootstrap resamples each: "
        f"{used * args.bots:,} intervals; {elapsed:.0f} s"
    )
    if failed or skipped:
        print(f"{failed} leagues without a fit, {skipped} resamples without a fit (left out)")
    header = ["95% interval", "coverage", "s.e.", "(p-95%)/s.e.", "per-league s.e."]
    header += ["missed out", "missed in", "mean width (Elo)"]
    rows = [t.row() for t in (fisher, percentile, normal)]
    align = ["left"] + ["right"] * (len(header) - 1)
    print(tabulate.tabulate(rows, headers=header, disable_numparse=True, colalign=align))
    print("s.e.: Monte-Carlo standard error of the coverage, in percentage points.")


if __name__ == "__main__":
    main()
