"""Classic sequential Elo over the pairwise decomposition of each game.

Unlike the Plackett–Luce fit, the result depends on the order in which the games are
given: the same games in another order give other ratings. It is here for comparison
with other tools and for people who expect it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from arena.ratings._plackett_luce import Ranking

DEFAULT_K_FACTOR = 32.0
"""Elo points at stake per game (split over the pairs of a multi-player game)."""


def expected_score(rating: float, opponent: float) -> float:
    """The Elo expected score of ``rating`` against ``opponent`` (1/(1 + 10^(Δ/400)))."""
    return 1.0 / (1.0 + math.pow(10.0, (opponent - rating) / 400.0))


def sequential_elo(
    rankings: Sequence[Ranking],
    *,
    k_factor: float = DEFAULT_K_FACTOR,
    mean: float = 1500.0,
) -> dict[str, float]:
    """Update Elo ratings game by game, in the order given (order-dependent).

    Every bot starts at ``mean``. A game of ``n`` players is split into its pairs,
    each scored 1 for the better place, 0 for the worse and ½ each for a tie. A
    player's rating moves by ``k_factor/(n − 1)`` times the sum over its opponents of
    (score − expected score), all expected scores taken from the ratings before the
    game, so a game moves a player at most ``k_factor`` points, as in a two-player
    game. Each update is zero-sum, so the average rating stays ``mean``.
    """
    if not k_factor > 0.0 or not math.isfinite(k_factor):
        raise ValueError("k_factor must be a finite number > 0")
    ratings: dict[str, float] = {}
    for ranking in rankings:
        places = [(player, place) for place, group in enumerate(ranking) for player in group]
        for player, _ in places:
            ratings.setdefault(player, mean)
        if len(places) < 2:
            continue
        before = {player: ratings[player] for player, _ in places}
        scale = k_factor / (len(places) - 1)
        for player, place in places:
            change = 0.0
            for other, other_place in places:
                if other == player:
                    continue
                score = 1.0 if place < other_place else 0.5 if place == other_place else 0.0
                change += score - expected_score(before[player], before[other])
            ratings[player] = before[player] + scale * change
    return ratings
