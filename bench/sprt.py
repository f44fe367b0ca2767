"""The SPRT of `arena sprt` by simulation: error rates and games, paired against unpaired.

Bots of known Plackett-Luce strength play simulated games (`arena.sprt._simulate`:
no process, the test's own code) at tables of 2, 4 and 6, against fields of several
strengths, with a share of each game's noise dealt with the cards, which duplicate
pairs share. For each setting, --runs tests (2,000 by default) run at the truth
elo0 and at elo1, in the paired design (`arena sprt`'s) and unpaired (every game its
own deal). A rate passes if P(H1) at elo0 is at most alpha plus the tolerance and
P(H1) at elo1 at least 1 - beta minus it; the tolerance is 3 standard errors of a rate
of alpha over --runs tests. The deal brings 10%, 30% or 75% of the tested seat's
noise, and against a field the field seats have their own share (10%: their own play
brings most of their noise, which no pairing cancels); the ratio of paired to
unpaired games is printed, as what pairing buys in such a setting, not checked.

A second table, paired only, covers what the first misses: tables of 3 and 5 (where D
takes halves and quarters), wide bounds (0 and 50 Elo), a non-regression test (-50
and 0) and the deal deciding 90% or 95% of every seat's game (deterministic bots
against a consistent field: most pairs end even). It prints α̂, P(H1) at elo0, and β̂,
P(H0) at elo1, with their standard errors, and checks them as above. (At 3 seats the
LLR's search once stalled at the edge of its interval there, and β̂ was 0.12-0.14.)

Exits 1 if a check fails. Usage: python bench/sprt.py [--runs N] [--seed S]
[--only {pairing,odd}]
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import time

from arena.sprt import Hypotheses, Outcome, Setting, simulate

FIELD_LUCK = 0.1
"""The share of a field seat's noise that comes with the deal."""

ROWS: list[tuple[str, Setting]] = [
    (f"{label}, deal {luck:.0%}", dataclasses.replace(setting, luck=luck))
    for luck in (0.1, 0.3, 0.75)
    for label, setting in [
        ("2  NEW vs OLD directly", Setting(2, 0.0, direct=True)),
        ("2  field = OLD", Setting(2, 0.0, field_luck=FIELD_LUCK)),
        ("4  field = OLD", Setting(4, 0.0, field_luck=FIELD_LUCK)),
        ("6  field = OLD", Setting(6, 0.0, field_luck=FIELD_LUCK)),
        ("4  field 200 Elo above", Setting(4, 0.0, field=(200.0,) * 3, field_luck=FIELD_LUCK)),
    ]
]


ODD_ROWS: list[tuple[str, Hypotheses, Setting]] = [
    (f"{label}, {h.elo0:g}/{h.elo1:g}, deal {luck:.0%}", h, dataclasses.replace(setting, luck=luck))
    for h, lucks in (
        (Hypotheses(), (0.9,)),
        (Hypotheses(0.0, 50.0), (0.9, 0.95)),
        (Hypotheses(-50.0, 0.0), (0.95,)),
    )
    for luck in lucks
    for label, setting in [
        ("2  NEW vs OLD directly", Setting(2, 0.0, direct=True)),
        ("3  field = OLD", Setting(3, 0.0)),
        ("4  field = OLD", Setting(4, 0.0)),
        ("5  field = OLD", Setting(5, 0.0)),
        ("6  field = OLD", Setting(6, 0.0)),
    ]
]
"""Every seat's noise as much the deal's as the tested seat's (a consistent field)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000, help="simulated tests per setting")
    parser.add_argument("--seed", type=int, default=15, help="seed of the simulations")
    parser.add_argument("--only", choices=("pairing", "odd"), help="run one of the two tables")
    args = parser.parse_args()
    started = time.process_time()
    failures = 0
    if args.only != "odd":
        failures += pairing_table(args.runs, args.seed)
    if args.only != "pairing":
        failures += odd_table(args.runs, args.seed + 1000)
    print(f"{time.process_time() - started:.0f} s of CPU; {failures} row(s) failed")
    sys.exit(1 if failures else 0)


def pairing_table(runs: int, seed: int) -> int:
    """The first table: the default bounds, paired against unpaired; the failed rows."""
    h = Hypotheses()
    tolerance = 3.0 * math.sqrt(h.alpha * (1.0 - h.alpha) / runs)
    print(
        f"arena sprt by simulation: {runs:,} tests per cell; elo0 = {h.elo0:g}, elo1 ="
        f" {h.elo1:g}, alpha = {h.alpha:g}, beta = {h.beta:g} (LLR bounds {h.lower:.2f},"
        f" {h.upper:.2f})"
    )
    print(
        "games are Plackett-Luce in the bots' strengths; the deal brings the row's share of"
        f" the tested seat's noise and {FIELD_LUCK:.0%} of a field seat's (duplicate pairs"
        " share it)"
    )
    print(
        f"checks: P(H1) at elo0 <= {h.alpha:g} + {tolerance:.3f}, at elo1 >= {1 - h.beta:g} -"
        f" {tolerance:.3f} (3 standard errors)"
    )
    print()
    header = (
        f"{'K  opponents':<36}{'truth':>6}  {'paired P(H1)':>12}{'games':>8}{'p90':>8}"
        f"  {'unpaired P(H1)':>14}{'games':>8}{'p90':>8}  {'ratio':>6}  check"
    )
    print(header)
    print("-" * len(header))
    failures = 0
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
            failures += bool(problems)
            print(
                f"{label:<36}{truth:>6g}  {paired.h1_rate:>12.3f}{paired.games:>8.0f}"
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
    print()
    return failures


def odd_table(runs: int, seed: int) -> int:
    """The second table: odd tables, wide bounds, high deal shares; the failed rows."""
    print(
        f"odd tables, wide bounds, high deal shares: {runs:,} paired tests per cell, every"
        " seat's noise the row's share the deal's (a consistent field); alpha = beta = 0.05"
    )
    header = (
        f"{'K  opponents, bounds, deal':<42}{'alpha-hat':>16}{'games':>8}"
        f"{'beta-hat':>16}{'games':>8}  check"
    )
    print(header)
    print("-" * len(header))
    failures = 0
    for label, h, base in ODD_ROWS:
        tolerance = 3.0 * math.sqrt(h.alpha * (1.0 - h.alpha) / runs)
        seed += 2
        at_elo0 = simulate(h, _with(base, h.elo0, True), runs=runs, seed=seed)
        at_elo1 = simulate(h, _with(base, h.elo1, True), runs=runs, seed=seed + 1)
        alpha_hat, beta_hat = at_elo0.h1 / runs, at_elo1.h0 / runs
        problems = [
            f"{name} {value:.3f} > {bound:g} + {tolerance:.3f}"
            for name, value, bound in (("alpha", alpha_hat, h.alpha), ("beta", beta_hat, h.beta))
            if value > bound + tolerance
        ]
        failures += bool(problems)
        print(
            f"{label:<42}{_rate(alpha_hat, runs):>16}{at_elo0.games:>8.0f}"
            f"{_rate(beta_hat, runs):>16}{at_elo1.games:>8.0f}  "
            + ("ok" if not problems else "FAIL: " + "; ".join(problems)),
            flush=True,
        )
    print()
    print(
        "alpha-hat: P(H1) with NEW elo0 better; beta-hat: P(H0) with NEW elo1 better (± one"
        " standard error); games: the mean to a decision. The check: each at most its rate"
        " plus 3 standard errors of that rate."
    )
    print()
    return failures


def _rate(rate: float, runs: int) -> str:
    return f"{rate:.3f} ± {math.sqrt(max(rate * (1 - rate), 1.0 / runs) / runs):.3f}"


def _with(base: Setting, truth: float, paired: bool) -> Setting:
    return dataclasses.replace(base, truth=truth, paired=paired)


def _rate_ok(outcome: Outcome, at_elo1: bool, h: Hypotheses, tolerance: float) -> bool:
    if at_elo1:
        return outcome.h1_rate >= 1.0 - h.beta - tolerance
    return outcome.h1_rate <= h.alpha + tolerance


if __name__ == "__main__":
    main()
