"""By simulation: the bootstrap's 95% interval, ``θ ± 1.96`` bootstrap standard errors
(what ``--bootstrap N`` prints), covers the true strengths about 95% of the time; the
percentile interval it replaced does not.

The simulation is seeded, so the test is deterministic. Its tolerance comes from the
Monte-Carlo error of a coverage estimate, ``sqrt(p(1 - p) / n)`` over ``n`` intervals
(the intervals of one league are nearly independent: the spread of the per-league
coverages gives the same error). ``bench/bootstrap_coverage.py`` runs the larger
simulation of 8 bots and 200 resamples.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.ratings import ELO_PER_NAT, bootstrap_plackett_luce, fit_plackett_luce
from arena.standings import GameRecord, SeatRecord, compute_standings

from .helpers import simulate

Z95 = 1.959963984540054

# Many bots make many intervals per refit: 32 bots x 80 leagues = 2,560 intervals. Each
# bot plays about 60 four-seat games, as in the simulation that found the fault; the
# fit is the plain maximum-likelihood one (prior 0), whose target is the truth itself.
BOTS = 32
GAMES = 480
LEAGUES = 80
# 100 resamples is half the cost of 200, and harder for an interval that rests on the
# tails of the refits; the normal interval covers about the same at 100 as at 200
# (95.1% and 95.4% over 6,400 intervals).
RESAMPLES = 100


def _coverage(covered: list[np.ndarray]) -> float:
    return float(np.concatenate(covered).mean())


@pytest.mark.slow
def test_bootstrap_intervals_cover_the_truth_95_percent_of_the_time() -> None:
    truth_by_bot = np.linspace(-1.2, 1.2, BOTS)
    rng = np.random.default_rng(2024)
    normal: list[np.ndarray] = []
    percentile: list[np.ndarray] = []
    for league in range(LEAGUES):
        rankings = simulate(truth_by_bot, GAMES, 4, rng)
        fit = fit_plackett_luce(rankings, prior=0.0, intervals=False)
        truth = np.array([truth_by_bot[int(p[1:])] for p in fit.players])
        boot = bootstrap_plackett_luce(rankings, prior=0.0, resamples=RESAMPLES, seed=league)
        assert boot.skipped == 0
        half = Z95 * boot.standard_errors()
        error = np.abs(fit.log_strength - truth)
        normal.append(error <= half)
        low, high = np.percentile(boot.samples, [2.5, 97.5], axis=0)
        percentile.append((low <= truth) & (truth <= high))

    coverage = _coverage(normal)
    n = sum(len(c) for c in normal)
    # The Monte-Carlo error of a coverage of 95% over n = 2,560 intervals is 0.43
    # points; 2.33 of it (1% on either side for an interval that is right) is 1.0.
    tolerance = 2.33 * math.sqrt(0.95 * 0.05 / n)
    assert abs(coverage - 0.95) <= tolerance, (coverage, tolerance)
    # The test has the power to see the old fault: on the same resamples the
    # percentile interval falls short by more than the tolerance. (With seeds 1 to 5
    # instead of 2024 the two intervals covered 94.8-95.4% and 92.5-93.4%.)
    old = _coverage(percentile)
    assert old < 0.95 - tolerance, (old, tolerance)


def test_standings_print_the_normal_bootstrap_interval() -> None:
    """``±``, low and high of the standings are ``Elo ± 1.96`` bootstrap standard errors
    of the resamples `bootstrap_plackett_luce` draws (whole games, or whole groups)."""
    rankings = simulate(np.linspace(-1.0, 1.0, 5), 60, 3, np.random.default_rng(9))
    records = [
        GameRecord(
            f"g{g:02d}",
            f"d{g // 2}" if g < 20 else None,
            tuple(SeatRecord(group[0], place) for place, group in enumerate(ranking, 1)),
        )
        for g, ranking in enumerate(rankings)
    ]
    table = compute_standings(records, bootstrap=80, seed=4, mean=1000.0)
    labels = [f"group:d{g // 2}" if g < 20 else f"game:g{g:02d}" for g in range(len(rankings))]
    boot = bootstrap_plackett_luce(rankings, labels, resamples=80, seed=4)
    se = dict(zip(boot.players, boot.standard_errors(), strict=True))
    assert table.intervals == "bootstrap"
    assert "1.96 bootstrap standard errors" in table.describe()
    for row in table.rows:
        assert row.plus_minus is not None
        assert row.plus_minus == pytest.approx(Z95 * ELO_PER_NAT * se[row.player], rel=1e-9)
        assert row.elo_low == pytest.approx(row.elo - row.plus_minus, abs=1e-9)
        assert row.elo_high == pytest.approx(row.elo + row.plus_minus, abs=1e-9)


def test_standard_errors_need_two_resamples() -> None:
    rankings = [[["a"], ["b"]], [["b"], ["a"]]]
    one = bootstrap_plackett_luce(rankings, resamples=1)
    assert np.isnan(one.standard_errors()).all()
    many = bootstrap_plackett_luce(rankings, resamples=30)
    assert many.standard_errors() == pytest.approx(np.std(many.samples, axis=0, ddof=1))


def _two_player(games: list[tuple[str, str]]) -> list[GameRecord]:
    """Two-player games, winner first."""
    return [
        GameRecord(f"g{k}", None, (SeatRecord(won, 1), SeatRecord(lost, 2)))
        for k, (won, lost) in enumerate(games)
    ]


@pytest.mark.parametrize(
    ("records", "why"),
    [
        # a beats b 50 of 50, b beats c 50 of 50: the audit's ±11 against Fisher's ±256
        (_two_player([("a", "b")] * 50 + [("b", "c")] * 50), "a never finished below"),
        # 20 three-way ties: every resample the same, ±0
        (
            [GameRecord(f"t{k}", None, tuple(SeatRecord(p, 1) for p in "abc")) for k in range(20)],
            "every resample gave a, b, c the same rating",
        ),
    ],
)
def test_a_bootstrap_whose_spread_says_nothing_gives_the_fisher_interval(
    records: list[GameRecord], why: str
) -> None:
    """Defect 3 of the statistics audit: when a bot's results are unanimous (it always
    won, or always lost), every resample holds the same unanimous results and the refits
    vary only as the prior lets them (±11 Elo against ±256 from the Fisher information;
    coverage 1%); when every game is the same tie, they do not vary at all (±0). The
    standings then give the Fisher interval, and say why."""
    fisher = compute_standings(records)
    boot = compute_standings(records, bootstrap=50, seed=1)
    assert boot.intervals == "fisher"
    assert why in boot.bootstrap_fallback
    assert [(r.player, r.plus_minus, r.superiority) for r in boot.rows] == [
        (r.player, r.plus_minus, r.superiority) for r in fisher.rows
    ]
    assert all(r.plus_minus is not None and r.plus_minus > 50 for r in boot.rows)
    assert f"Fisher information, not the bootstrap: {boot.bootstrap_fallback}" in boot.describe()
    anchored = compute_standings(records, bootstrap=50, seed=1, anchor=("b", 0.0))
    assert [r.plus_minus for r in anchored.rows] == [
        r.plus_minus for r in compute_standings(records, anchor=("b", 0.0)).rows
    ]
    result = bootstrap_plackett_luce([g.ranking() for g in records], resamples=20, seed=2)
    assert result.degenerate is not None


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=4, max_size=30),
    st.integers(0, 4),
)
def test_an_unbeaten_bot_gets_the_fisher_interval_whatever_the_league(
    pairs: list[tuple[int, int]], seed: int
) -> None:
    """However the other bots fared, a league with a bot that won every game it played
    gets no bootstrap interval: the refits could not measure how far above the rest it
    is."""
    games = [(f"b{won}", f"b{lost}") for won, lost in pairs if won != lost]
    games += [("ace", f"b{k % 4}") for k in range(2 + seed)]
    records = _two_player(games)
    boot = compute_standings(records, bootstrap=8, seed=seed)
    assert boot.intervals == "fisher"
    assert "never finished" in boot.bootstrap_fallback  # ace's, or another's as unanimous
    assert [r.plus_minus for r in boot.rows] == [
        r.plus_minus for r in compute_standings(records).rows
    ]
