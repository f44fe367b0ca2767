"""Issue 15.2: the per-game score, the paired difference, the Elo mapping, the GSPRT."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

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
from arena.sprt._stats import field_levels


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


def test_the_bounds_take_alpha_and_beta_each_in_its_place() -> None:
    """Wald's bounds with α ≠ β (`--alpha 0.01 --beta 0.2`): H1 at log((1 - β)/α),
    H0 at log(β/(1 - α)). With α = β a swap of the two goes unseen."""
    h = Hypotheses(alpha=0.01, beta=0.2)
    assert h.upper == pytest.approx(math.log(0.8 / 0.01))  # 4.382
    assert h.lower == pytest.approx(math.log(0.2 / 0.99))  # -1.599
    assert decide(h, [4.3, 4.4, -1.55, -1.65]).tolist() == [GOING, H1, GOING, H0]


PENTANOMIAL = [0.0, 0.25, 0.5, 0.75, 1.0]
"""A direct pair's score (NEW's points in the pair / 2); our D is twice it less 1."""


def fishtest_llr(counts: list[float], s0: float, s1: float) -> float:
    """An independent GLR on pentanomial counts, as fishtest's LLRcalc.LLR (N times the
    mean log-ratio of the two constrained MLEs), each MLE by plain bisection on the
    Lagrange multiplier of ``p_i = p̂_i / (1 + λ (a_i - s))``."""
    n = sum(counts)
    phat = [c / n for c in counts]

    def mle(s: float) -> list[float]:
        x = [a - s for a in PENTANOMIAL]
        low, high = -1.0 / max(x) * (1 - 1e-15), -1.0 / min(x) * (1 - 1e-15)
        for _ in range(200):
            lam = (low + high) / 2
            if sum(p * xi / (1 + lam * xi) for p, xi in zip(phat, x, strict=True)) > 0:
                low = lam
            else:
                high = lam
        return [p / (1 + lam * xi) for p, xi in zip(phat, x, strict=True)]

    p0, p1 = mle(s0), mle(s1)
    terms = zip(counts, p0, p1, strict=True)
    return sum(c * (math.log(b) - math.log(a)) for c, a, b in terms if c > 0)


def ours_on_pentanomial(counts: list[float], elo0: float, elo1: float) -> float:
    """Our LLR on the same pairs, less the pseudo-pair (which fishtest_llr is given)."""
    plain = [counts[0] - 0.5, *counts[1:4], counts[4] - 0.5]
    values = [2 * s - 1 for s in PENTANOMIAL]
    return float(log_likelihood_ratio(Hypotheses(elo0, elo1), True, plain, values))


@pytest.mark.parametrize(("elo0", "elo1"), [(0.0, 10.0), (-5.0, 5.0), (0.0, 2.0), (0.0, 100.0)])
def test_the_llr_is_fishtests_generalised_likelihood_ratio(elo0: float, elo1: float) -> None:
    """Directly, a pair is fastchess's pentanomial pair: our LLR is fishtest's exact GLR
    on its scores 0, ¼, ½, ¾, 1 (s = L(elo)), the pseudo-pair counted as pairs."""
    counts = [40.5, 210.0, 420.0, 230.0, 100.5]
    s0, s1 = logistic_score(elo0), logistic_score(elo1)
    reference = fishtest_llr(counts, s0, s1)
    assert ours_on_pentanomial(counts, elo0, elo1) == pytest.approx(reference, rel=1e-9)
    assert abs(reference) > 1.0  # a real comparison, not of two zeros


def test_the_normal_approximation_agrees_for_narrow_bounds_and_overstates_wide_ones() -> None:
    """Why the exact ratio: fishtest's LLR_alt2 (N (s1 - s0)(2s - s0 - s1) / 2var) is
    within 1% of it for bounds a few Elo apart, but at 0 and 50 Elo it triples it on
    pairs that are nearly all even: it keeps their small variance under H1 too, where a
    mean of s1 needs more spread, and so accepted H0 too soon (β 8% by simulation)."""
    counts = [40.5, 210.0, 420.0, 230.0, 100.5]
    even = [1.5, 0.0, 100.0, 0.0, 1.5]
    for pairs, elo0, elo1, close in ((counts, 0.0, 10.0, True), (even, 0.0, 50.0, False)):
        n = sum(pairs)
        mean = sum(c * s for c, s in zip(pairs, PENTANOMIAL, strict=True)) / n
        var = sum(c * (s - mean) ** 2 for c, s in zip(pairs, PENTANOMIAL, strict=True)) / n
        s0, s1 = logistic_score(elo0), logistic_score(elo1)
        normal = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)
        exact = ours_on_pentanomial(pairs, elo0, elo1)
        assert exact == pytest.approx(fishtest_llr(pairs, s0, s1), rel=1e-9)
        if close:
            assert exact == pytest.approx(normal, rel=0.01)
        else:
            assert normal < 3 * exact < 0


def test_the_llr_of_pairs_at_the_ends_has_a_closed_form() -> None:
    """With every D at -1 or 1 a distribution of mean μ is fixed: p(1) = (1 + μ) / 2, so
    LLR = c₊ log((1 + μ1)/(1 + μ0)) + c₋ log((1 - μ1)/(1 - μ0)), pseudo-pair included;
    at any leading shape (the simulator's)."""
    h = Hypotheses(-20.0, 30.0)
    mu0, mu1 = (float(expected_difference(e, True)) for e in (h.elo0, h.elo1))
    wins = np.array([[7.0, 0.0], [30.0, 3.0]])
    losses = np.array([[2.0, 9.0], [0.0, 25.0]])
    counts = np.stack([losses, np.zeros_like(wins), wins], axis=-1)
    ours = log_likelihood_ratio(h, True, counts, [-1.0, 0.0, 1.0])
    up, down = wins + 0.5, losses + 0.5
    closed = up * math.log((1 + mu1) / (1 + mu0)) + down * math.log((1 - mu1) / (1 - mu0))
    np.testing.assert_allclose(ours, closed, rtol=1e-9)


def independent_llr(counts: list[float], values: list[float], mu0: float, mu1: float) -> float:
    """The same GLR on any values, independently: ``Σ c_i log(p1_i / p0_i)`` with each
    constrained MLE ``p_i ∝ c_i / (1 + λ (a_i - μ))`` found by plain bisection on λ (the
    pseudo-pair is in `counts`)."""

    def fitted(mu: float) -> list[float]:
        x = [a - mu for a in values]
        low, high = -1.0 / max(x), -1.0 / min(x)
        for _ in range(400):
            lam = (low + high) / 2
            if sum(c * xi / (1 + lam * xi) for c, xi in zip(counts, x, strict=True)) > 0:
                low = lam
            else:
                high = lam
        return [1 / (1 + lam * xi) for xi in x]  # p_i / p̂_i

    p0, p1 = fitted(mu0), fitted(mu1)
    terms = zip(counts, p0, p1, strict=True)
    return sum(c * (math.log(b) - math.log(a)) for c, a, b in terms if c > 0)


TABLE_OF_3 = [-1.0, -0.5, 0.0, 0.5, 1.0]
"""D at a table of 3 (without ties): two opponents, so halves."""


@pytest.mark.parametrize(
    "pairs",
    [
        [0, 0, 50, 4, 0],  # Σ c D = Σ c D² (pseudo-pair in), so the first Newton step
        [0, 1, 50, 7, 0],  # from λ = 0 lands on the edge 1/(1 + μ0) in exact arithmetic
        [1, 0, 50, 12, 0],
        [0, 2, 34, 10, 0],
        [0, 0, 50, 5, 0],  # a control off that lattice
    ],
)
def test_the_llr_at_a_table_of_3_is_the_exact_glr_when_mu0_is_a_rounding_error_from_0(
    pairs: list[int],
) -> None:
    """Against a field, μ0 of elo0 = 0 is σ(logit p) - p averaged over the field, a
    rounding error from 0 (here +1.4e-17). The Newton search for H0's best distribution
    used to stop one unit in the last place short of the edge of λ's interval for these
    pairs, where D = -1 has weight 1e-16, and report a log-likelihood of +15 above the
    maximum: the LLR fell by 16 and the test accepted H0 on the spot (β 0.14 instead of
    0.05 at 3 seats, 0 and 50 Elo, when the deal decides 95% of a game)."""
    h = Hypotheses(0.0, 50.0)
    old_wins, old_games = np.array([7.0, 2.0]), np.array([10.0, 10.0])
    levels = field_levels(old_wins, old_games)
    mu0, mu1 = (float(expected_difference(e, False, levels, old_games)) for e in (0, 50))
    assert 0.0 < mu0 < 1e-15  # the case: a rounding error above 0
    ours = float(log_likelihood_ratio(h, False, pairs, TABLE_OF_3, old_wins, old_games))
    with_pseudo = [pairs[0] + 0.5, *pairs[1:4], pairs[4] + 0.5]
    reference = independent_llr(with_pseudo, TABLE_OF_3, mu0, mu1)
    assert ours == pytest.approx(reference, rel=1e-9, abs=1e-9)
    assert reference > 0.0  # NEW ahead in these pairs: the LLR leans to H1


def test_a_tally_at_a_table_of_3_does_not_accept_h0_on_a_rounding_error() -> None:
    """The same through a running test: 49 even deals and four in which NEW gained half
    a point, never one it lost; the old search took the LLR to -15.8 there, and the test
    accepted H0 (NEW not 50 Elo better) on such pairs."""
    tally = Tally(Hypotheses(0.0, 50.0), direct=False, field=2)
    for pair in range(53):
        tally.add(0.5 if pair % 13 == 12 else 0.0, {0: float(pair % 7 == 0), 1: float(pair % 2)})
    assert tally.outcomes == {0: 49, Fraction(1, 2): 4}
    mu0, mu1 = tally.bounds_in_score()
    assert 0.0 < mu0 < 1e-15
    reference = independent_llr([0.5, 0, 49, 4, 0.5], TABLE_OF_3, mu0, mu1)
    assert tally.llr == pytest.approx(reference, rel=1e-9)
    assert tally.llr > 0.0
    assert tally.decision == GOING


def test_the_values_must_span_minus_one_to_one() -> None:
    for values in ([0.0, 1.0], [-1.0, 0.5], [-1.0, 1.0, 0.0], [1.0]):
        with pytest.raises(ValueError, match="rise from -1 to 1"):
            log_likelihood_ratio(Hypotheses(), True, [1.0] * len(values), values)


def test_identical_pairs_do_not_end_the_test_at_once() -> None:
    """Two deterministic copies of one bot replay every deal identically (D = 0): the
    pseudo-pair lets the test accept H0 after 143 pairs, not after one."""
    tally = Tally(Hypotheses(), direct=True)
    decided_at = None
    for pair in range(1, 200):
        tally.add(0.0)
        if tally.decision != GOING:
            decided_at = pair
            break
    assert decided_at == 143
    assert tally.decision == H0
    estimate = tally.estimate()
    assert estimate is not None
    assert estimate.elo == pytest.approx(0.0, abs=1e-9)
    assert estimate.low < 0.0 < estimate.high


def test_the_naive_interval_is_1_96_standard_errors_of_the_mean_with_the_pseudo_pair() -> None:
    """`Tally.estimate`: the mean of D ± 1.96 standard errors, the variance with the
    pseudo-pair, (Σ(D - m)² + 1) / (n + 1), over n pairs: here 143 even pairs, so
    ±1.96 √(1 / (144 · 143)) in D, mapped to Elo."""
    tally = Tally(Hypotheses(), direct=True)
    for _ in range(143):
        tally.add(0.0)
    estimate = tally.estimate()
    assert estimate is not None
    half = 1.959963984540054 * math.sqrt(1.0 / (144 * 143))
    low, high = elo_of_difference(np.array([-half, half]), True)
    assert (estimate.low, estimate.high) == pytest.approx((low, high), rel=1e-9)


def test_the_median_unbiased_interval_is_in_order_around_its_estimate() -> None:
    """`Tally.unbiased` (the interval the report prints first): its low end below the
    estimate, its high end above, for a test stopped at either bound."""
    for first, then, decision in ((1.0, 0.0, H1), (0.0, 0.0, H0)):
        tally = Tally(Hypotheses(), direct=True)
        while tally.decision == GOING:
            tally.add(then if tally.pairs % 4 == 0 else first)
        assert tally.decision == decision
        unbiased = tally.unbiased()
        assert unbiased is not None
        assert unbiased.low < unbiased.elo < unbiased.high


def test_against_a_field_the_bounds_weigh_each_bot_by_its_games_with_old() -> None:
    """The module docstring: μ against a field weighs each field
    bot by how often it sat at OLD's table, read from the pairs counted so far."""
    tally = Tally(Hypotheses(0.0, 50.0), direct=False, field=2)
    for pair in range(10):
        tally.add(0.0, {0: 1.0} if pair else {0: 1.0, 1: 0.0})  # bot 1 met OLD once
    old_wins, old_games = np.array(tally.old_wins), np.array(tally.old_games)
    assert old_games.tolist() == [10, 1]
    levels = field_levels(old_wins, old_games)
    expected = [float(expected_difference(e, False, levels, old_games)) for e in (0.0, 50.0)]
    assert tally.bounds_in_score() == pytest.approx(expected, rel=1e-6)
    even = [float(expected_difference(e, False, levels, 1.0)) for e in (0.0, 50.0)]
    assert expected[1] != pytest.approx(even[1], rel=1e-3)  # the weights matter here


@pytest.mark.parametrize("pairs", [1, 7, 30])
def test_no_pairs_give_a_higher_llr_than_as_many_won_outright(pairs: int) -> None:
    """Every way `pairs` direct pairs can fall over the five values of D: none gives a
    higher LLR than all of them at D = 1 (which is why no test at 0 and 10 Elo accepts
    H1 in fewer than 104 pairs). A single pair may move the LLR by more than one won
    outright does, after pairs that went the other way: the bound is on the total."""
    values = np.linspace(-1.0, 1.0, 5)
    splits = np.array([s for s in itertools.product(range(pairs + 1), repeat=4) if sum(s) <= pairs])
    counts = np.concatenate([splits, pairs - splits.sum(axis=1, keepdims=True)], axis=1)
    llr = log_likelihood_ratio(Hypotheses(), True, counts, values)
    won = log_likelihood_ratio(Hypotheses(), True, [0, 0, 0, 0, pairs], values)
    assert llr.max() == pytest.approx(float(won), abs=1e-9)
    assert list(counts[np.argmax(llr)]) == [0, 0, 0, 0, pairs]


def test_a_clearly_better_bot_reaches_h1_and_its_elo_is_estimated() -> None:
    """NEW wins 3 pairs of 4 outright (D = 1) and splits the rest: about +190 Elo. No n
    pairs give a higher exact LLR than n won outright (the test above), about n times
    log((1 + μ1)/(1 + μ0)), 0.0284 at 0 and 10 Elo: no test of these bounds accepts H1
    in fewer than 104 pairs however strong NEW is, and this one needs few more."""
    tally = Tally(Hypotheses(), direct=True)
    while tally.decision == GOING:
        tally.add(1.0 if tally.pairs % 4 else 0.0)
    assert tally.decision == H1
    mu1 = float(expected_difference(10.0, True))
    assert Hypotheses().upper / math.log(1 + mu1) == pytest.approx(103.8, abs=0.1)
    assert 104 <= tally.pairs <= 110
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


@pytest.mark.parametrize(("direct", "fewest"), [(True, 104), (False, 207)])
def test_the_fewest_pairs_that_accept_h1_at_0_and_10_elo(direct: bool, fewest: int) -> None:
    """The figures of docs/sprt.md: NEW winning every pair outright accepts H1 at pair 104
    directly and 207 against an even field (the most any pairs can raise the LLR)."""
    tally = Tally(Hypotheses(), direct=direct)
    while tally.decision == GOING:
        tally.add(1.0)
    assert tally.decision == H1
    assert tally.pairs == fewest


# -- what the pairing bought (issue 41.3) ------------------------------------------------


@pytest.mark.parametrize("rho", [0.0, 0.3, 0.75])
def test_the_pairing_is_measured_from_the_pairs_own_scores(rho: float) -> None:
    """A fixed-seed simulation of paired scores with a deal share of `rho`: the tally's
    correlation and variance ratio are those of the scores it was given (numpy's), and
    an unpaired test needs 1/ratio the games."""
    rng = np.random.default_rng(41)
    deal = rng.normal(size=4000)
    s = np.sqrt(rho) * deal + np.sqrt(1 - rho) * rng.normal(size=4000)
    t = np.sqrt(rho) * deal + np.sqrt(1 - rho) * rng.normal(size=4000)
    tally = Tally(Hypotheses(), direct=False)
    for a, b in zip(s, t, strict=True):
        tally.add(float(a - b), None, (float(a), float(b)))
    pairing = tally.pairing()
    assert pairing is not None
    assert pairing.correlation == pytest.approx(np.corrcoef(s, t)[0, 1], abs=1e-9)
    assert pairing.correlation == pytest.approx(rho, abs=0.05)
    ratio = np.var(s - t) / (np.var(s) + np.var(t))
    assert pairing.variance_ratio == pytest.approx(ratio, abs=1e-9)
    assert pairing.unpaired_factor == pytest.approx(1 / ratio)


def test_no_pairing_is_claimed_before_two_pairs_or_without_a_spread() -> None:
    tally = Tally(Hypotheses(), direct=True)
    tally.add(0.0, None, (1.0, 1.0))
    assert tally.pairing() is None
    tally.add(0.0, None, (1.0, 1.0))
    assert tally.pairing() is None  # a score that never varied: nothing to correlate
    tally.add(0.0, None, (0.0, 0.0))
    pairing = tally.pairing()
    assert pairing is not None
    assert pairing.correlation == pytest.approx(1.0)
    assert pairing.variance_ratio == 0.0
    assert pairing.unpaired_factor is None  # D always 0: the pairs cancel everything


@pytest.mark.parametrize(
    ("drift", "var", "time", "y"), [(0.01, 0.05, 100, 1.0), (-0.03, 0.1, 50, -0.5)]
)
def test_far_bounds_leave_the_outcome_of_a_plain_brownian_motion(
    drift: float, var: float, time: float, y: float
) -> None:
    """Issue 41.4: bounds the motion cannot reach: the chance of an outcome below y is
    that of a normal law, by the series and by the images alike."""
    from statistics import NormalDist

    from arena.sprt._stats import outcome_below

    plain = NormalDist(drift * time, math.sqrt(var * time)).cdf(y)
    assert outcome_below(-60.0, 60.0, drift, var, time, y) == pytest.approx(plain, abs=1e-6)
    assert outcome_below(-600.0, 600.0, drift, var, time, y) == pytest.approx(plain, abs=1e-6)
