"""The Plackett–Luce fit: the likelihood it maximises, its derivatives, ties, the prior."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from itertools import permutations, product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import arena.ratings
from arena.errors import InputError
from arena.ratings import (
    MAX_TIE,
    NoEstimateError,
    bootstrap_plackett_luce,
    fit_plackett_luce,
    likelihood_of_superiority,
)
from arena.ratings._plackett_luce import _Design

Rankings = list[list[list[str]]]


def brute_log_likelihood(
    rankings: Sequence[Sequence[Sequence[str]]], theta: dict[str, float], prior: float
) -> float:
    """The documented objective, written out the slow way.

    Each game's log-likelihood is the Plackett–Luce log-probability of its order,
    averaged over every order of its tied players; the prior adds, per bot, ``prior``
    times the log-probability of a win and of a loss against a bot with θ = 0.
    """
    total = 0.0
    for ranking in rankings:
        orders = [
            [p for block in blocks for p in block]
            for blocks in product(*(list(permutations(group)) for group in ranking))
        ]
        game = 0.0
        for order in orders:
            for s in range(len(order) - 1):
                rest = [math.exp(theta[p]) for p in order[s:]]
                game += theta[order[s]] - math.log(sum(rest))
        total += game / len(orders)
    for t in theta.values():
        total += prior * (t - 2.0 * math.log1p(math.exp(t)))
    return total


def numeric_gradient(f: object, x: np.ndarray, h: float = 1e-5) -> np.ndarray:
    assert callable(f)
    grad = np.zeros_like(x)
    for i in range(len(x)):
        e = np.zeros_like(x)
        e[i] = h
        grad[i] = (f(x + e) - f(x - e)) / (2 * h)
    return grad


MIXED: Rankings = [
    [["a"], ["b", "c"], ["d"]],
    [["b"], ["a"], ["d"], ["c"]],
    [["c", "d"], ["a"]],
    [["d"], ["c"], ["b"]],
    [["a", "b", "c"], ["d"]],
    [["b"], ["c", "d", "a"]],
    [["a"], ["b"]],
    [["c"], ["a"]],
]


@pytest.mark.parametrize("prior", [0.0, 0.7])
def test_design_log_likelihood_is_the_documented_objective(prior: float) -> None:
    design = _Design.build(MIXED)
    weights = design.weights()
    rng = np.random.default_rng(1)
    for _ in range(5):
        theta = rng.normal(size=design.n)
        named = dict(zip(design.players, theta, strict=True))
        expected = brute_log_likelihood(MIXED, named, prior)
        assert design.log_likelihood(theta, weights, prior) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("prior", [0.0, 0.7])
def test_gradient_and_information_are_the_derivatives(prior: float) -> None:
    design = _Design.build(MIXED)
    weights = design.weights()
    theta = np.random.default_rng(2).normal(size=design.n)

    def loglik(x: np.ndarray) -> float:
        return design.log_likelihood(x, weights, prior)

    assert design.gradient(theta, weights, prior) == pytest.approx(
        numeric_gradient(loglik, theta), abs=1e-7
    )
    hessian = np.array(
        [
            numeric_gradient(lambda x, i=i: design.gradient(x, weights, prior)[i], theta)
            for i in range(design.n)
        ]
    )
    info = design.information(theta, weights, prior)
    assert info == pytest.approx(-hessian, abs=1e-7)
    assert np.allclose(info, info.T)


def _shift_to_optimum(theta: np.ndarray, prior: float) -> np.ndarray:
    """The common shift the prior prefers: solve Σ σ(θ + c) = n/2 by bisection."""
    lo, hi = -50.0, 50.0
    for _ in range(200):
        c = (lo + hi) / 2
        if np.sum(1 / (1 + np.exp(-(theta + c)))) < len(theta) / 2:
            lo = c
        else:
            hi = c
    return theta + (lo + hi) / 2


@pytest.mark.parametrize("prior", [0.0, 0.25, 2.0])
def test_fit_maximises_the_documented_objective(prior: float) -> None:
    fit = fit_plackett_luce(MIXED, prior=prior)
    theta = fit.log_strength
    assert math.fsum(theta) == pytest.approx(0.0, abs=1e-12)
    optimum = theta if prior == 0.0 else _shift_to_optimum(theta, prior)

    def objective(x: np.ndarray) -> float:
        return brute_log_likelihood(MIXED, dict(zip(fit.players, x, strict=True)), prior)

    assert numeric_gradient(objective, optimum) == pytest.approx(np.zeros(len(theta)), abs=1e-6)
    # and it is a maximum: every nearby point is worse
    rng = np.random.default_rng(3)
    best = objective(optimum)
    for _ in range(20):
        assert objective(optimum + 1e-3 * rng.normal(size=len(theta))) < best


def test_two_players_reduce_to_bradley_terry_closed_form() -> None:
    rankings: Rankings = [[["a"], ["b"]]] * 7 + [[["b"], ["a"]]] * 3
    fit = fit_plackett_luce(rankings, prior=0.0)
    diff, se = fit.contrast("a", "b")
    assert diff == pytest.approx(math.log(7 / 3), abs=1e-9)
    assert se is not None
    assert se == pytest.approx(math.sqrt(1 / 7 + 1 / 3), abs=1e-9)
    errors = fit.standard_errors()
    assert errors is not None
    assert errors == pytest.approx([se / 2, se / 2], abs=1e-9)


def test_a_tie_between_two_is_half_a_win_and_half_a_loss() -> None:
    base: Rankings = [[["a"], ["c"]], [["c"], ["b"]], [["b"], ["c"], ["a"]]]
    with_ties = fit_plackett_luce([*base, [["a", "b"]], [["b", "a"]]], prior=0.0)
    decided = fit_plackett_luce([*base, [["a"], ["b"]], [["b"], ["a"]]], prior=0.0)
    assert with_ties.log_strength == pytest.approx(decided.log_strength, abs=1e-9)


def test_a_tie_pulls_two_players_together() -> None:
    rankings: Rankings = [[["a"], ["b"]], [["b"], ["a"]], [["a"], ["b"]]]
    apart, _ = fit_plackett_luce(rankings, prior=0.0).contrast("a", "b")
    closer, _ = fit_plackett_luce([*rankings, [["a", "b"]]], prior=0.0).contrast("a", "b")
    assert 0 < closer < apart


def test_a_tie_larger_than_supported_is_refused() -> None:
    big = [f"p{i}" for i in range(MAX_TIE + 1)]
    with pytest.raises(InputError, match="tie among 13 players"):
        fit_plackett_luce([[big]])
    fit_plackett_luce([[big[:MAX_TIE]]])


def test_prior_keeps_an_unbeaten_bot_finite_and_zero_prior_refuses() -> None:
    rankings: Rankings = [[["a"], ["b"]], [["a"], ["b"]], [["b"], ["c"]], [["c"], ["b"]]]
    fit = fit_plackett_luce(rankings, prior=1.0)
    assert np.all(np.isfinite(fit.log_strength))
    assert fit.players[int(np.argmax(fit.log_strength))] == "a"
    with pytest.raises(NoEstimateError, match="a never finished below another bot"):
        fit_plackett_luce(rankings, prior=0.0)


def test_stronger_prior_pulls_harder_towards_the_average() -> None:
    rankings: Rankings = [[["a"], ["b"]]] * 4 + [[["b"], ["a"]]]
    gaps = [fit_plackett_luce(rankings, prior=p).contrast("a", "b")[0] for p in (0, 0.5, 2, 10)]
    assert gaps[0] == pytest.approx(math.log(4))
    assert gaps == sorted(gaps, reverse=True)
    assert gaps[-1] > 0


@pytest.mark.parametrize(
    ("rankings", "message"),
    [
        (
            [[["a"], ["b"]], [["b"], ["a"]], [["a"], ["c"]], [["b"], ["c"]]],
            "c never finished above another bot",
        ),
        ([[["a"], ["b"]], [["b"], ["c"]], [["a"], ["c"]]], "a never finished below another bot"),
        (
            [[["a"], ["b"]], [["b"], ["a"]], [["c"], ["d"]], [["d"], ["c"]]],
            "a, b never finished below a bot outside that group",
        ),
        ([[["a"], ["b"]], [["b"], ["a"]], [["z"]]], "z never played a game against another bot"),
        (
            [
                [["a"], ["e"]],
                [["e"], ["b"]],
                [["b"], ["a"]],
                [["a", "b"], ["c"]],
                [["c"], ["d"]],
                [["d"], ["c"]],
            ],
            "c, d never finished above a bot outside that group",
        ),
    ],
)
def test_no_plain_mle_is_explained(rankings: Rankings, message: str) -> None:
    with pytest.raises(NoEstimateError, match=message):
        fit_plackett_luce(rankings, prior=0.0)
    fit_plackett_luce(rankings, prior=0.5)


def test_single_bot_and_no_games() -> None:
    alone = fit_plackett_luce([[["a"]], [["a"]]], prior=0.0)
    assert alone.players == ("a",)
    assert alone.log_strength.tolist() == [0.0]
    empty = fit_plackett_luce([])
    assert empty.players == ()
    assert empty.covariance is not None
    assert empty.covariance.shape == (0, 0)


def test_rankings_must_be_groups_not_strings() -> None:
    with pytest.raises(TypeError):
        fit_plackett_luce([["a", "b"]])


def test_a_player_twice_in_a_ranking_is_refused() -> None:
    with pytest.raises(ValueError, match="appears twice"):
        fit_plackett_luce([[["a"], ["b", "a"]]])


def test_intervals_can_be_skipped() -> None:
    fit = fit_plackett_luce(MIXED, intervals=False)
    assert fit.covariance is None
    assert fit.standard_errors() is None
    assert fit.contrast("a", "b")[1] is None


def test_likelihood_of_superiority() -> None:
    assert likelihood_of_superiority(0.0, 1.0) == 0.5
    assert likelihood_of_superiority(1.959963984540054, 1.0) == pytest.approx(0.975)
    assert likelihood_of_superiority(-1.0, 0.25) == pytest.approx(1 - 0.9772498680518208)
    assert likelihood_of_superiority(1.0, 0.0) == 1.0


def test_public_names_are_exported() -> None:
    for name in arena.ratings.__all__:
        assert hasattr(arena.ratings, name), name
    public = {n for n in dir(arena.ratings) if not n.startswith("_")}
    assert public - set(arena.ratings.__all__) <= {"annotations"}


# -- properties ------------------------------------------------------------------------


@st.composite
def rankings_strategy(draw: st.DrawFn, players: int = 5, max_games: int = 25) -> Rankings:
    names = [f"p{i}" for i in range(players)]
    games = draw(st.integers(min_value=1, max_value=max_games))
    result: Rankings = []
    for _ in range(games):
        order = draw(st.permutations(names))
        seats = draw(st.integers(min_value=2, max_value=min(4, players)))
        table = list(order[:seats])
        cuts = draw(st.lists(st.booleans(), min_size=seats - 1, max_size=seats - 1))
        ranking = [[table[0]]]
        for player, cut in zip(table[1:], cuts, strict=True):
            if cut:
                ranking[-1].append(player)  # tied with the previous player
            else:
                ranking.append([player])
        result.append(ranking)
    return result


def _fit_or_none(rankings: Rankings, prior: float) -> arena.ratings.PlackettLuceFit | None:
    try:
        return fit_plackett_luce(rankings, prior=prior)
    except NoEstimateError:
        return None


@settings(max_examples=40, deadline=None)
@given(rankings_strategy(), st.sampled_from([0.0, 0.3, 1.0]), st.randoms(use_true_random=False))
def test_result_does_not_depend_on_game_order(
    rankings: Rankings, prior: float, rnd: random.Random
) -> None:
    # other game order, and other order of the tied players inside a game
    shuffled = [[list(reversed(group)) for group in r] for r in rankings]
    rnd.shuffle(shuffled)
    first, second = _fit_or_none(rankings, prior), _fit_or_none(shuffled, prior)
    if first is None or second is None:
        assert first is None
        assert second is None
        return
    assert first.players == second.players
    assert np.array_equal(first.log_strength, second.log_strength)
    assert first.covariance is not None
    assert second.covariance is not None
    assert np.array_equal(first.covariance, second.covariance)


@settings(max_examples=20, deadline=None)
@given(rankings_strategy(max_games=12), st.randoms(use_true_random=False))
def test_bootstrap_does_not_depend_on_game_order(rankings: Rankings, rnd: random.Random) -> None:
    labels = [f"g{i}" for i in range(len(rankings))]
    order = list(range(len(rankings)))
    rnd.shuffle(order)
    a = bootstrap_plackett_luce(rankings, labels, resamples=5, seed=7)
    b = bootstrap_plackett_luce(
        [rankings[i] for i in order], [labels[i] for i in order], resamples=5, seed=7
    )
    assert np.array_equal(a.samples, b.samples)


@settings(max_examples=40, deadline=None)
@given(rankings_strategy(), st.sampled_from([0.3, 1.0]))
def test_renaming_the_bots_renames_the_result(rankings: Rankings, prior: float) -> None:
    rename = {f"p{i}": f"bot-{9 - i}" for i in range(5)}
    renamed = [[[rename[p] for p in group] for group in r] for r in rankings]
    first, second = (
        fit_plackett_luce(rankings, prior=prior),
        fit_plackett_luce(renamed, prior=prior),
    )
    theta = dict(zip(first.players, first.log_strength, strict=True))
    theta2 = dict(zip(second.players, second.log_strength, strict=True))
    for p, value in theta.items():
        assert theta2[rename[p]] == pytest.approx(value, abs=1e-8)


@settings(max_examples=40, deadline=None)
@given(rankings_strategy())
def test_doubling_the_data_keeps_the_fit_and_halves_the_variance(rankings: Rankings) -> None:
    once, twice = _fit_or_none(rankings, 0.0), _fit_or_none(rankings * 2, 0.0)
    if once is None or twice is None:
        assert once is None
        assert twice is None
        return
    assert twice.log_strength == pytest.approx(once.log_strength, abs=1e-7)
    assert once.covariance is not None
    assert twice.covariance is not None
    assert twice.covariance == pytest.approx(once.covariance / 2, rel=1e-5, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(rankings_strategy(), st.sampled_from([0.0, 0.5]))
def test_fit_is_a_stationary_point_with_sensible_covariance(
    rankings: Rankings, prior: float
) -> None:
    fit = _fit_or_none(rankings, prior)
    if fit is None:
        return
    design = _Design.build(rankings)
    weights = design.weights()
    theta = fit.log_strength if prior == 0.0 else _shift_to_optimum(fit.log_strength, prior)
    scale = 1.0 + float(np.abs(weights.chosen).max())
    assert np.abs(design.gradient(theta, weights, prior)).max() < 1e-6 * scale
    cov = fit.covariance
    assert cov is not None
    assert np.allclose(cov.sum(axis=1), 0.0, atol=1e-8)  # centred: rows sum to zero
    assert np.all(np.linalg.eigvalsh(cov) > -1e-10)  # positive semi-definite


def test_a_negative_prior_is_refused_and_a_start_that_is_not_finite_is_ignored() -> None:
    """The fit's own checks, as a caller of the library meets them (the standings check
    the prior before): a prior below 0 is no prior; a warm start holding NaN or an
    infinity (an earlier fit gone wrong) starts cold, with the same result."""
    rankings = [[["a"], ["b"], ["c"]], [["b"], ["a"], ["c"]], [["c"], ["a"], ["b"]]]
    with pytest.raises(ValueError, match="prior must be a finite number >= 0"):
        fit_plackett_luce(rankings, prior=-0.5)
    cold = fit_plackett_luce(rankings)
    for bad in (math.nan, math.inf):
        warm = fit_plackett_luce(rankings, start={"a": bad, "b": 0.3})
        assert np.all(np.isfinite(warm.log_strength))
        assert warm.log_strength == pytest.approx(cold.log_strength, abs=1e-8)
