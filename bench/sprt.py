"""The SPRT of `arena sprt` by simulation: error rates and games, paired against unpaired.

Bots of known Plackett-Luce strength play simulated games (`arena.sprt._simulate`:
no process, the test's own code) at tables of 2, 4 and 6, against fields of several
strengths, with a share of each game's noise dealt with the cards, which duplicate
pairs share. For each setting, --runs tests (2,000 by default) run at the truth
elo0 and at elo1, in the paired design (`arena sprt`'s) and unpaired (every game its
own deal). A rate passes if P(H1) at elo0 is at most alpha plus the tolerance and
P(H1) at elo1 at least 1 - beta minus it; the tolerance is 3 standard errors of a rate
of alpha over --runs tests. Where the deal decides most (luck >= 0.8), the paired
design should need at most half the games of the unpaired one.

Exits 1 if a check fails. Usage: python bench/sprt.py [--runs N] [--seed S]
"""

from __future__ import annotations

import argparse
import math
import sys
import time

from arena.sprt import Hypotheses, Outcome, Setting, simulate

LUCK = 0.8
"""The share of a game's noise that comes with the deal, unless a row says otherwise."""
TARGET = 0.5
"""The most games the paired design may need, as a share of the unpaired design's."""

ROWS: list[tuple[str, Setting]] = [
    ("2  NEW vs OLD directly", Setting(2, 0.0, direct=True)),
    ("2  field as strong as OLD", Setting(2, 0.0)),
    ("4  field as strong as OLD", Setting(4, 0.0)),
    ("6  field as strong as OLD", Setting(6, 0.0)),
    ("4  field 200 Elo above OLD", Setting(4, 0.0, field=(200.0,) * 3)),
    ("6  field -200..+200 of OLD", Setting(6, 0.0, field=(-200.0, -100.0, 0.0, 100.0, 200.0))),
    ("4  field = OLD, luck 0.5", Setting(4, 0.0, luck=0.5)),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000, help="simulated tests per setting")
    parser.add_argument("--seed", type=int, default=15, help="seed of the simulations")
    args = parser.parse_args()
    h = Hypotheses()
    runs = args.runs
    tolerance = 3.0 * math.sqrt(h.alpha * (1.0 - h.alpha) / runs)
    print(
        f"arena sprt by simulation: {runs:,} tests per cell; elo0 = {h.elo0:g}, elo1 ="
        f" {h.elo1:g}, alpha = {h.alpha:g}, beta = {h.beta:g} (LLR bounds {h.lower:.2f},"
        f" {h.upper:.2f})"
    )
    print(
        f"games are Plackett-Luce in the bots' strengths; the deal brings {LUCK:.0%} of each"
        " game's noise unless the row says otherwise (duplicate pairs share it)"
    )
    print(
        f"checks: P(H1) at elo0 <= {h.alpha:g} + {tolerance:.3f}, at elo1 >= {1 - h.beta:g} -"
        f" {tolerance:.3f} (3 standard errors); paired games <= {TARGET:g} x unpaired where the"
        f" deal dominates (luck >= {LUCK:g})"
    )
    print()
    header = (
        f"{'K  opponents':<28}{'truth':>6}  {'paired P(H1)':>12}{'games':>8}{'p90':>8}"
        f"  {'unpaired P(H1)':>14}{'games':>8}{'p90':>8}  {'ratio':>6}  check"
    )
    print(header)
    print("-" * len(header))
    failures = 0
    started = time.process_time()
    seed = args.seed
    for label, base in ROWS:
        for truth in (h.elo0, h.elo1):
            seed += 2
            paired = simulate(h, _with(base, truth, True), runs=runs, seed=seed)
            unpaired = simulate(h, _with(base, truth, False), runs=runs, seed=seed + 1)
            problems = [
                f"{name} P(H1) {outcome.h1_rate:.3f}"
                for name, outcome in (("paired", paired), ("unpaired", unpaired))
                if not _rate_ok(outcome, truth == h.elo1, h, tolerance)
            ]
            ratio = paired.games / unpaired.games
            if base.luck >= LUCK and ratio > TARGET:
                problems.append(f"ratio {ratio:.2f} > {TARGET:g}")
            failures += bool(problems)
            print(
                f"{label:<28}{truth:>6g}  {paired.h1_rate:>12.3f}{paired.games:>8.0f}"
                f"{paired.games_p90:>8.0f}  {unpaired.h1_rate:>14.3f}{unpaired.games:>8.0f}"
                f"{unpaired.games_p90:>8.0f}  {ratio:>6.2f}  "
                + ("ok" if not problems else "FAIL: " + "; ".join(problems)),
                flush=True,
            )
    print()
    print(
        "games: the mean number of games to a decision (p90: the 90th percentile); ratio:"
        " paired / unpaired mean games"
    )
    print(f"{time.process_time() - started:.0f} s of CPU; {failures} row(s) failed")
    sys.exit(1 if failures else 0)


def _with(base: Setting, truth: float, paired: bool) -> Setting:
    return Setting(
        base.table_size, truth, direct=base.direct, field=base.field, luck=base.luck, paired=paired
    )


def _rate_ok(outcome: Outcome, at_elo1: bool, h: Hypotheses, tolerance: float) -> bool:
    if at_elo1:
        return outcome.h1_rate >= 1.0 - h.beta - tolerance
    return outcome.h1_rate <= h.alpha + tolerance


if __name__ == "__main__":
    main()
