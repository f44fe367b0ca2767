"""Classic sequential Elo: the textbook updates, and its dependence on game order."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.ratings import expected_score, sequential_elo

from .test_plackett_luce import Rankings, rankings_strategy


def test_expected_score() -> None:
    assert expected_score(1500, 1500) == 0.5
    assert expected_score(1900, 1500) == pytest.approx(10 / 11)
    assert expected_score(1500, 1900) == pytest.approx(1 / 11)


def test_one_two_player_game() -> None:
    ratings = sequential_elo([[["a"], ["b"]]], k_factor=32, mean=1500)
    assert ratings == {"a": 1516.0, "b": 1484.0}


def test_a_multi_player_game_splits_k_over_the_opponents() -> None:
    ratings = sequential_elo([[["a"], ["b"], ["c"]]], k_factor=32, mean=1500)
    assert ratings == pytest.approx({"a": 1516.0, "b": 1500.0, "c": 1484.0})


def test_a_tie_between_equals_changes_nothing() -> None:
    assert sequential_elo([[["a", "b"]]]) == {"a": 1500.0, "b": 1500.0}


def test_updates_use_the_ratings_from_before_the_game() -> None:
    ratings = sequential_elo([[["a"], ["b"]], [["a"], ["b"]]], k_factor=32)
    second = 32 * (1 - expected_score(1516, 1484))
    assert ratings["a"] == pytest.approx(1516 + second)
    assert ratings["b"] == pytest.approx(1484 - second)


def test_the_result_depends_on_the_order_of_the_games() -> None:
    games: Rankings = [[["a"], ["b"]], [["b"], ["c"]], [["c"], ["a"]], [["a"], ["c"]]]
    forward = sequential_elo(games)
    backward = sequential_elo(games[::-1])
    assert forward != pytest.approx(backward)


@settings(max_examples=40, deadline=None)
@given(rankings_strategy(), st.floats(min_value=1, max_value=64), st.floats(-3000, 3000))
def test_the_average_stays_at_the_mean(rankings: Rankings, k: float, mean: float) -> None:
    ratings = sequential_elo(rankings, k_factor=k, mean=mean)
    assert math.fsum(ratings.values()) / len(ratings) == pytest.approx(mean, abs=1e-6)


@pytest.mark.parametrize("k", [0.0, -1.0, math.inf, math.nan])
def test_k_factor_must_be_positive_and_finite(k: float) -> None:
    with pytest.raises(ValueError, match="k_factor"):
        sequential_elo([[["a"], ["b"]]], k_factor=k)


def test_a_game_of_one_player_rates_it_and_moves_nothing() -> None:
    """A ranking of one player (the fit accepts it too) is no pair: it puts the player at
    the mean and changes no rating, where dividing K by its 0 opponents raised."""
    assert sequential_elo([[["a"]]]) == {"a": 1500.0}
    ratings = sequential_elo([[["a"], ["b"]], [["b"]], [["c"]]], k_factor=32)
    assert ratings == {"a": 1516.0, "b": 1484.0, "c": 1500.0}
