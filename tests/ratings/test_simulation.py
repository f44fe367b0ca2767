"""By simulation: for bots of known strength the fit recovers them, and the 95%
intervals (Fisher information and bootstrap) cover the truth about 95% of the time.

Every simulation is seeded, so these tests are deterministic.
"""

from __future__ import annotations

import numpy as np
import pytest

from arena.ratings import (
    FinishingOrders,
    NoEstimateError,
    bootstrap_plackett_luce,
    fit_plackett_luce,
)

from .helpers import simulate

Z95 = 1.959963984540054
TRUTH = np.linspace(-1.2, 1.2, 8)  # log-strengths of b0..b7; they sum to zero


def _truth(players: tuple[str, ...]) -> np.ndarray:
    return np.array([TRUTH[int(p[1:])] for p in players])


def test_a_large_league_recovers_the_strengths() -> None:
    rng = np.random.default_rng(20240601)
    fit = fit_plackett_luce(simulate(TRUTH, 4000, 4, rng), prior=0.0)
    errors = fit.standard_errors()
    assert errors is not None
    assert fit.log_strength == pytest.approx(_truth(fit.players), abs=0.1)
    assert np.all(np.abs(fit.log_strength - _truth(fit.players)) < 3.5 * errors)
    assert list(fit.players[i] for i in np.argsort(fit.log_strength)) == [f"b{i}" for i in range(8)]


def test_fisher_intervals_cover_the_truth_95_percent_of_the_time() -> None:
    rng = np.random.default_rng(7)
    covered, total, failed = 0, 0, 0
    errors_sum = np.zeros(len(TRUTH))
    leagues = 250
    for _ in range(leagues):
        try:
            fit = fit_plackett_luce(simulate(TRUTH, 120, 4, rng), prior=0.0)
        except NoEstimateError:
            failed += 1
            continue
        se = fit.standard_errors()
        assert se is not None
        error = fit.log_strength - _truth(fit.players)
        covered += int(np.sum(np.abs(error) <= Z95 * se))
        total += len(error)
        errors_sum += error
    assert failed < leagues // 50
    coverage = covered / total
    assert 0.93 <= coverage <= 0.97, coverage
    # and the estimates are close to unbiased
    assert np.abs(errors_sum / (leagues - failed)).max() < 0.05


def test_two_player_intervals_cover_the_truth() -> None:
    """The Bradley–Terry special case, with a prior small enough not to matter."""
    rng = np.random.default_rng(11)
    truth = np.array([-0.5, 0.0, 0.5, 1.0]) - 0.25
    covered, total = 0, 0
    for _ in range(250):
        fit = fit_plackett_luce(simulate(truth, 150, 2, rng), prior=0.01)
        se = fit.standard_errors()
        assert se is not None
        error = fit.log_strength - np.array([truth[int(p[1:])] for p in fit.players])
        covered += int(np.sum(np.abs(error) <= Z95 * se))
        total += len(error)
    assert 0.93 <= covered / total <= 0.97, covered / total


def test_bootstrap_agrees_with_the_fisher_information() -> None:
    rng = np.random.default_rng(3)
    rankings = simulate(TRUTH[:6], 400, 3, rng)
    fit = fit_plackett_luce(rankings, prior=0.0)
    boot = bootstrap_plackett_luce(rankings, prior=0.0, resamples=300, seed=1)
    fisher = fit.standard_errors()
    assert fisher is not None
    assert boot.skipped == 0
    assert boot.samples.shape == (300, 6)
    assert boot.samples.std(axis=0, ddof=1) == pytest.approx(fisher, rel=0.2)
    assert boot.samples.mean(axis=0) == pytest.approx(fit.log_strength, abs=0.05)


def test_bootstrap_resamples_whole_groups() -> None:
    """Two groups of games: every resample holds each group 0, 1 or 2 times whole."""
    rankings = [[["x"], ["y"]]] * 5 + [[["y"], ["x"]]] * 3
    groups = ["A"] * 5 + ["B"] * 3
    boot = bootstrap_plackett_luce(rankings, groups, prior=1.0, resamples=60, seed=0)
    distinct = {round(float(s[0]), 9) for s in boot.samples}
    assert len(distinct) == 3  # A+A, A+B, B+B
    single = bootstrap_plackett_luce(rankings, prior=1.0, resamples=60, seed=0)
    assert len({round(float(s[0]), 9) for s in single.samples}) > 3


def test_bootstrap_of_one_group_has_no_spread() -> None:
    rankings = simulate(TRUTH[:4], 30, 3, np.random.default_rng(5))
    boot = bootstrap_plackett_luce(rankings, ["all"] * 30, prior=1.0, resamples=10)
    assert np.ptp(boot.samples, axis=0) == pytest.approx(np.zeros(4), abs=1e-12)


def test_bootstrap_counts_resamples_without_a_plain_fit() -> None:
    rankings = [[["a"], ["b"]], [["b"], ["a"]], [["a"], ["c"]], [["c"], ["a"]]]
    boot = bootstrap_plackett_luce(rankings, prior=0.0, resamples=40, seed=2)
    assert boot.skipped > 0
    assert len(boot.samples) + boot.skipped == 40


def test_a_small_real_spread_is_a_spread_not_a_degenerate_bootstrap() -> None:
    """A league of 100,000 games pins a rating down to a few thousandths of a nat (about
    1 Elo): the refits vary that little, and it is a real spread, not the ``±0`` of a
    sample without variation (`BootstrapResult.degenerate`), which the standings would
    replace by the Fisher interval."""
    games = 100_000
    rng = np.random.default_rng(11)
    a_won = rng.random(games) < 0.6
    orders = FinishingOrders(
        players=("a", "b"),
        game=np.repeat(np.arange(games, dtype=np.intp), 2),
        player=np.column_stack((np.zeros(games), np.ones(games))).astype(np.intp).ravel(),
        place=np.column_stack((~a_won, a_won)).astype(np.int64).ravel(),
        games=games,
    )
    boot = bootstrap_plackett_luce(orders, prior=1.0, resamples=20, seed=0)
    assert boot.degenerate is None
    fisher = fit_plackett_luce(orders, prior=1.0).standard_errors()
    assert fisher is not None
    assert float(fisher[0]) < 0.005  # tiny, and real
    assert boot.standard_errors() == pytest.approx(fisher, rel=0.5)


@pytest.mark.parametrize("prior", [0.0, 1.0])
def test_every_refit_is_centred_as_the_fit_is(prior: float) -> None:
    """`BootstrapResult.samples` are centred log-strengths, as the fit's: with a prior a
    refit is not centred of itself (its level is the prior's), and refits left so
    would add the spread of their levels to every bot's standard error."""
    rankings = simulate(TRUTH[:5], 60, 3, np.random.default_rng(8))
    boot = bootstrap_plackett_luce(rankings, prior=prior, resamples=30, seed=4)
    assert len(boot.samples) == 30
    assert boot.samples.sum(axis=1) == pytest.approx(np.zeros(30), abs=1e-9)
