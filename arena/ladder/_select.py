"""Which table the ladder plays next: the one that teaches the most about the standings.

The ratings are the Plackett–Luce maximum-likelihood fit (`arena.ratings`) over every
game of the active versions, refitted as games arrive from where the last fit ended
(a warm start), never updated game by game. From the fit come each bot's rating, its
standard error, and for each pair of neighbours in the ranking the likelihood of
superiority (LOS) of the upper over the lower.

A table is chosen so:

1. Placement. A version with fewer than `PLACEMENT_TABLES` tables behind it plays
   first, against bots spread over the whole rating range (a different spread each
   time): it finds its place in a few tables, whatever its strength.
2. Otherwise, a window of `k` neighbours in the current ranking: bots whose intervals
   overlap, whose order the games at one table settle best (a table between far-apart
   bots tells little: its order is known before it is played). Each pair of
   neighbours counts by how unsettled it is (1 at a LOS of 50%, 0.1 at 95%, 0 at
   100%), weighted up in the top `top` places and for bots whose authors are waiting
   (a version in placement); the window is drawn among the best ones, in proportion to
   the square of its weight, so that ties and near-ties do not replay one table.

Round-robin plays every pair alike, most of them between bots whose order is plain;
`bench/ladder.py` measures what this saves.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np

from arena.ratings import ELO_PER_NAT, FinishingOrders, fit_plackett_luce

PLACEMENT_TABLES = 3
"""Tables a new version plays against the whole range before it joins the windows."""

TOP_WEIGHT = 3.0
"""How much more a pair of neighbours in the top places counts."""

WAITING_WEIGHT = 2.0
"""How much more a pair counts when an author waits on one of its bots."""

SEPARATED = 0.95
"""The LOS at which two neighbours count as separated."""


@dataclasses.dataclass(frozen=True)
class Rated:
    """The ladder's ratings at one moment."""

    ranking: tuple[str, ...]
    """Every rated bot, best first."""
    elo: Mapping[str, float]
    se: Mapping[str, float]
    """Standard errors, in Elo (inf for a bot of no game)."""
    los: tuple[float, ...]
    """LOS of ranking[i] over ranking[i + 1]."""
    theta: Mapping[str, float]
    """The fit's log-strengths (the next fit's start)."""
    games: int

    def separated(self, top: int | None = None) -> bool:
        """Whether every pair of neighbours (in the top `top` places) is separated at
        `SEPARATED` LOS."""
        pairs = self.los if top is None else self.los[: max(0, min(top, len(self.ranking)) - 1)]
        return all(p >= SEPARATED for p in pairs)


def rate(
    orders: FinishingOrders,
    players: Collection[str],
    start: Mapping[str, float] | None = None,
    *,
    mean: float = 1500.0,
) -> Rated:
    """Fit `orders` (games between `players` only) warm-started at `start`; bots of
    `players` without a game are rated `mean`, with an infinite error, last."""
    elo: dict[str, float] = {}
    se: dict[str, float] = {}
    theta: dict[str, float] = {}
    cov = None
    index: dict[str, int] = {}
    if orders.games:
        fit = fit_plackett_luce(orders, start=start)
        errors = fit.standard_errors()
        cov = fit.covariance
        for i, name in enumerate(fit.players):
            index[name] = i
            theta[name] = float(fit.log_strength[i])
            elo[name] = mean + ELO_PER_NAT * theta[name]
            se[name] = ELO_PER_NAT * float(errors[i]) if errors is not None else math.inf
    rated = sorted(elo, key=lambda n: (-elo[n], n))
    unrated = sorted(set(players) - set(elo))
    for name in unrated:
        elo[name], se[name] = mean, math.inf
    ranking = (*rated, *unrated)
    los = []
    for upper, lower in itertools.pairwise(ranking):
        if upper in index and lower in index and cov is not None:
            i, j = index[upper], index[lower]
            var = float(cov[i, i] + cov[j, j] - 2 * cov[i, j])
            diff = theta[upper] - theta[lower]
            los.append(_los(diff, var))
        else:
            los.append(0.5)
    return Rated(ranking, elo, se, tuple(los), theta, orders.games)


def _los(diff: float, variance: float) -> float:
    if variance <= 0.0:
        return 0.5 if diff == 0.0 else float(diff > 0.0)
    return 0.5 * (1.0 + math.erf(diff / math.sqrt(2.0 * variance)))


def choose_table(
    rated: Rated,
    k: int,
    tables: Mapping[str, int],
    rng: random.Random,
    *,
    top: int = 10,
    waiting: Collection[str] = (),
) -> tuple[tuple[str, ...], str]:
    """The next table of `k` bots among `rated.ranking` and why (see the module
    docstring). `tables`: how many tables each bot has played (or has chosen)."""
    ranking = list(rated.ranking)
    n = len(ranking)
    if n < k:
        raise ValueError(f"{n} bots for a table of {k}")
    new = [name for name in ranking if tables.get(name, 0) < PLACEMENT_TABLES]
    if new:
        newcomer = min(new, key=lambda name: (tables.get(name, 0), ranking.index(name)))
        others = [name for name in ranking if name != newcomer]
        return (newcomer, *_spread(others, k - 1, tables.get(newcomer, 0), rng)), (
            f"placement of {newcomer}"
        )
    if n == k:
        return tuple(ranking), "the only table"
    waits = set(waiting)
    weights = []
    for i in range(n - 1):
        unsettled = 2.0 * min(rated.los[i], 1.0 - rated.los[i])
        weight = 1.0 + (TOP_WEIGHT if i < top - 1 else 0.0)
        if ranking[i] in waits or ranking[i + 1] in waits:
            weight *= WAITING_WEIGHT
        weights.append(weight * unsettled)
    scores = np.convolve(np.asarray(weights), np.ones(k - 1), mode="valid")
    # the best windows, drawn in proportion to their score squared
    order = np.argsort(-scores, kind="stable")[: max(3, len(scores) // 4)]
    chances = np.asarray([scores[i] ** 2 for i in order]) + 1e-12
    start = int(order[_draw(rng, chances / chances.sum())])
    window = tuple(ranking[start : start + k])
    return window, f"neighbours {start + 1} to {start + k}"


def _spread(others: Sequence[str], count: int, round_: int, rng: random.Random) -> list[str]:
    """`count` of `others` (best first) spread evenly over the range, shifted by the
    round so that successive placements meet different bots."""
    n = len(others)
    if count >= n:
        return list(others)
    step = n / count
    offset = ((round_ * 0.618) % 1.0) * step
    picks: list[str] = []
    taken: set[int] = set()
    for j in range(count):
        i = min(n - 1, int(offset + j * step))
        while i in taken:
            i = (i + 1) % n
        taken.add(i)
        picks.append(others[i])
    rng.shuffle(picks)
    return picks


def _draw(rng: random.Random, weights: Any) -> int:
    x = rng.random()
    total = 0.0
    for i, w in enumerate(weights):
        total += float(w)
        if x < total:
            return i
    return len(weights) - 1


def without(rated: Rated, out: Collection[str]) -> Rated:
    """`rated` without the bots of `out` (those at tables in play: tables played at once
    share no bot). A pair of neighbours that skips a bot left out counts as the
    surer of the pairs between them."""
    taken = set(out)
    kept = [i for i, name in enumerate(rated.ranking) if name not in taken]
    los = tuple(max(rated.los[a:b]) for a, b in itertools.pairwise(kept))
    return dataclasses.replace(rated, ranking=tuple(rated.ranking[i] for i in kept), los=los)
