"""Issue 15.2: the per-game score, the paired difference, the Elo mapping, the GSPRT."""

from __future__ import annotations

import math

import numpy as np
import pytest

from arena.errors import ConfigError
from arena.ratings import ELO_PER_NAT
from arena.sprt import (
    GOING,
    H0,
    H1,
    Hypotheses,
    Tally,
    decide,
    elo_of_difference,
    expected_difference,
    log_likelihood_ratio,
    pair_difference,
    seat_scores,
)


def logistic_score(elo: float) -> float:
    """Fishtest's L_: the expected score of a player `elo` stronger."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


# -- the score -----------------------------------------------------------------------------


def test_the_score_is_the_share_of_opponents_finished_above() -> None:
    places = [2, 1, 4, 3]
    none = [False] * 4
    assert [float(seat_scores(places, none, s)) for s in range(4)] == [2 / 3, 1.0, 0.0, 1 / 3]
    # a tie counts half, at any table
    assert float(seat_scores([1, 1, 3], [False] * 3, 0)) == 0.75
    assert float(seat_scores([1, 1], [False, False], 1)) == 0.5
    # a win at a table of 2 is 1
    assert float(seat_scores([1, 2], [False, False], 0)) == 1.0


def test_a_fault_is_a_loss_for_the_faulting_bot() -> None:
    """Whatever place the engine gave it, a faulted seat ranks below every seat that did
    not fault; two faulted seats keep their order."""
    places = [1, 2, 3, 4]
    faulted = [True, False, False, True]
    assert float(seat_scores(places, faulted, 0)) == 1 / 3  # above seat 3 only
    assert float(seat_scores(places, faulted, 3)) == 0.0
    assert float(seat_scores(places, faulted, 1)) == 1.0
    assert float(seat_scores([1, 2], [True, False], 0)) == 0.0
    assert float(seat_scores([2, 1], [False, True], 0)) == 1.0


def test_scores_work_on_any_number_of_games_at_once() -> None:
    rng = np.random.default_rng(1)
    places = np.argsort(rng.random((50, 20, 5)), axis=-1) + 1
    faulted = rng.random((50, 20, 5)) < 0.1
    seat = rng.integers(0, 5, size=(50, 20))
    together = seat_scores(places, faulted, seat)
    one_by_one = [
        [float(seat_scores(places[i, j], faulted[i, j], seat[i, j])) for j in range(20)]
        for i in range(50)
    ]
    assert together.shape == (50, 20)
    assert together.tolist() == one_by_one


def test_the_pair_difference() -> None:
    assert float(pair_difference(False, 2 / 3, 1 / 3)) == pytest.approx(1 / 3)
    # directly: NEW's points in the pair minus one
    assert float(pair_difference(True, 1.0, 1.0)) == 1.0
    assert float(pair_difference(True, 1.0, 0.0)) == 0.0
    assert float(pair_difference(True, 0.5, 0.0)) == -0.5


# -- what elo0 and elo1 mean ----------------------------------------------------------------


def test_elo_maps_to_the_expected_difference_on_the_scale_of_the_standings() -> None:
    """Against a field as strong as OLD: σ(d) - ½; directly: 2σ(d) - 1; σ on the Elo scale
    of the Plackett-Luce fit (400/ln 10 Elo per unit of log-strength)."""
    for elo in (-50.0, 0.0, 10.0, 200.0):
        assert float(expected_difference(elo, False)) == pytest.approx(logistic_score(elo) - 0.5)
        assert float(expected_difference(elo, True)) == pytest.approx(2 * logistic_score(elo) - 1)
    # against a field 200 Elo stronger than OLD (OLD scores L(-200)), 10 Elo show less
    level = logistic_score(-200.0)
    shifted = float(expected_difference(10.0, False, level))
    assert shifted == pytest.approx(logistic_score(-190.0) - level)
    assert shifted < float(expected_difference(10.0, False))
    # for small d, about p(1 - p) d / ELO_PER_NAT
    assert shifted == pytest.approx(level * (1 - level) * 10.0 / ELO_PER_NAT, rel=0.05)


def test_a_mixed_field_counts_each_bot_by_how_often_it_sat_at_the_table() -> None:
    """OLD beats one field bot 3 times in 4 and another 1 in 4, and met the first twice
    as often: μ weighs each bot's σ(x_j + d) - σ(x_j) accordingly."""
    levels, weights = np.array([0.75, 0.25]), np.array([2.0, 1.0])
    gains = [
        logistic_score(x + 10.0) - logistic_score(x)
        for x in (190.84850188786497, -190.84850188786497)
    ]
    assert logistic_score(190.84850188786497) == pytest.approx(0.75)
    mixed = float(expected_difference(10.0, False, levels, weights))
    assert mixed == pytest.approx((2 * gains[0] + gains[1]) / 3)
    assert mixed < float(expected_difference(10.0, False))  # less than against equals


@pytest.mark.parametrize("direct", [False, True])
@pytest.mark.parametrize("levels", [0.2, 0.5, 0.7, (0.1, 0.5, 0.8)])
def test_elo_of_difference_inverts_expected_difference(
    direct: bool, levels: float | tuple[float, ...]
) -> None:
    elos = np.array([-300.0, -10.0, 0.0, 5.0, 120.0])
    back = elo_of_difference(expected_difference(elos, direct, levels), direct, levels)
    assert back == pytest.approx(elos, abs=1e-6)


# -- the test --------------------------------------------------------------------------------


def test_the_bounds_are_walds() -> None:
    h = Hypotheses()
    assert h.lower == pytest.approx(math.log(0.05 / 0.95))
    assert h.upper == pytest.approx(math.log(0.95 / 0.05))
    assert decide(h, [3.0, 2.0, -3.0]).tolist() == [H1, GOING, H0]


def test_the_llr_is_fishtests_normal_approximation_for_pentanomial_pairs() -> None:
    """Directly, a pair is fastchess's pentanomial pair: fishtest's LLR_alt2 on pair scores
    0, ¼, ½, ¾, 1 (N (s1 - s0)(2s - s0 - s1) / 2var, s = L(elo)) is our LLR, up to the
    one pseudo-pair in the variance."""
    counts = [40, 210, 420, 230, 100]
    scores = [0.0, 0.25, 0.5, 0.75, 1.0]
    n = sum(counts)
    mean = sum(c * s for c, s in zip(counts, scores, strict=True)) / n
    var = sum(c * (s - mean) ** 2 for c, s in zip(counts, scores, strict=True)) / n
    for elo0, elo1 in ((0.0, 10.0), (-5.0, 5.0), (0.0, 2.0)):
        s0, s1 = logistic_score(elo0), logistic_score(elo1)
        fishtest = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)
        d = [2 * s - 1 for s in scores]  # our D of each pentanomial outcome
        total = sum(c * x for c, x in zip(counts, d, strict=True))
        squares = sum(c * x * x for c, x in zip(counts, d, strict=True))
        ours = float(log_likelihood_ratio(Hypotheses(elo0, elo1), True, n, total, squares, 0.0))
        assert ours == pytest.approx(fishtest, rel=0.01)
        assert abs(ours) > 1.0  # a real comparison, not of two zeros


def test_identical_pairs_do_not_end_the_test_at_once() -> None:
    """Two deterministic copies of one bot replay every deal identically (D = 0): the
    pseudo-pair in the variance lets the test accept H0 after 84 pairs, not after one."""
    tally = Tally(Hypotheses(), direct=True)
    decided_at = None
    for pair in range(1, 200):
        tally.add(0.0)
        if tally.decision != GOING:
            decided_at = pair
            break
    assert decided_at == 84
    assert tally.decision == H0
    estimate = tally.estimate()
    assert estimate is not None
    assert estimate.elo == pytest.approx(0.0, abs=1e-9)
    assert estimate.low < 0.0 < estimate.high


def test_a_clearly_better_bot_reaches_h1_and_its_elo_is_estimated() -> None:
    """NEW wins 3 pairs of 4 outright (D = 1) and splits the rest: about +190 Elo."""
    tally = Tally(Hypotheses(), direct=True)
    while tally.decision == GOING:
        tally.add(1.0 if tally.pairs % 4 else 0.0)
    assert tally.decision == H1
    assert tally.pairs < 60
    estimate = tally.estimate()
    assert estimate is not None
    expected = 400 * math.log10((1 + 0.75) / (1 - 0.75))  # 2σ(d) - 1 = 3/4
    assert estimate.elo == pytest.approx(expected, rel=0.05)
    assert estimate.low < estimate.elo < estimate.high


@pytest.mark.parametrize(
    ("values", "problem"),
    [
        ({"elo0": 10.0, "elo1": 10.0}, "elo0 must be below elo1"),
        ({"elo0": 5.0, "elo1": 0.0}, "elo0 must be below elo1"),
        ({"alpha": 0.0}, "alpha must be above 0"),
        ({"beta": 0.7}, "beta must be above 0 and below 0.5"),
        ({"alpha": float("nan")}, "alpha must be a finite number"),
        ({"elo1": 5000.0}, "within ±1000"),
    ],
)
def test_bad_hypotheses_are_refused(values: dict[str, float], problem: str) -> None:
    with pytest.raises(ConfigError, match=problem):
        Hypotheses(**values)
