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
2. Otherwise, the table that adds the most information about the pairs of neighbours
   in the current ranking that need games. Each pair counts 1 to 0.5 while it is not
   separated (LOS 50% to 95%), 0 once it is, plus a floor of a tenth of how far it
   is from sure, so that a separated pair still gets some games and its order stays
   right; it is weighted up in the top `top` places (an author waiting on a new
   version is served by its placement, above), with a little random jitter so that
   near-ties do not replay one table. The candidates are every window of k neighbours and the table
   that takes the heaviest pairs while they fit (`_pairs_table`: two stretches of
   the ranking, when its pairs need games more than a window's ends would); each is
   scored by how much its k games are expected to shrink the variance of each pair's
   difference, on a log scale, times the pair's weight (`_gains`: the fit's
   covariance, updated by the Plackett–Luce information of the table's games). A
   table between far-apart bots tells little (its order is known before it is
   played); a window of close neighbours at a table of 6 narrows five pairs at once.
   Without a covariance (a bot of no game) the heaviest-pairs table is played.

Round-robin plays every pair alike, most of them between bots whose order is plain;
`bench/ladder.py` measures what this saves.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
from collections.abc import Collection, Mapping, Sequence

import numpy as np

from arena.ratings import ELO_PER_NAT, FinishingOrders, fit_plackett_luce
from arena.records import ResultColumns

PLACEMENT_TABLES = 3
"""Tables a new version plays against the whole range before it joins the windows."""

TOP_WEIGHT = 3.0
"""How much more a pair of neighbours in the top places counts."""

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
    covariance: np.ndarray | None = dataclasses.field(default=None, compare=False, repr=False)
    """The fit's covariance of the log-strengths, rows as `index` says (None: unknown)."""
    index: Mapping[str, int] = dataclasses.field(default_factory=dict, compare=False, repr=False)
    """Each fitted bot's row of `covariance`."""
    played: Mapping[str, int] = dataclasses.field(default_factory=dict)
    """Each bot's games among those fitted (a bot of none: absent), as `arena
    standings` counts them: the games its rating rests on."""

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
    played: dict[str, int] = {}
    if orders.games:
        counts = np.bincount(np.asarray(orders.player), minlength=len(orders.players))
        played = {name: int(n) for name, n in zip(orders.players, counts, strict=True) if n}
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
    return Rated(ranking, elo, se, tuple(los), theta, orders.games, cov, index, played)


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
    weights = []
    for i in range(n - 1):
        need, floor = _unsettled(rated.los[i])
        weight = 1.0 + (TOP_WEIGHT if i < top - 1 else 0.0)
        weights.append(weight * (need + floor))
    jittered = [w * (1.0 + 0.2 * rng.random()) for w in weights]
    chosen = _pairs_table(jittered, k)
    candidates = [chosen, *(list(range(s, s + k)) for s in range(n - k + 1))]
    gains = _gains(rated, candidates, jittered, k)
    if gains is not None:
        chosen = candidates[int(np.argmax(gains))]
    places = ", ".join(str(i + 1) for i in chosen)
    return tuple(ranking[i] for i in chosen), f"the least separated neighbours: places {places}"


def _pairs_table(weights: Sequence[float], k: int) -> list[int]:
    """The places (0 = first) of a table of `k` that holds the pairs of neighbours of
    the most weight (`weights[i]`: the pair of places i and i + 1): the pairs taken
    heaviest first while they fit, then the table filled with the places next to it
    whose pair weighs most. A table may so join two stretches of the ranking (a game
    between them still orders each stretch) instead of one window of neighbours, whose
    ends would hold settled pairs."""
    n = len(weights) + 1
    chosen: set[int] = set()
    for i in sorted(range(n - 1), key=lambda i: -weights[i]):
        new = {i, i + 1} - chosen
        if len(chosen) + len(new) <= k:
            chosen |= new
        if len(chosen) == k:
            break
    while len(chosen) < k:
        edges = [
            (weights[min(i, j)], j)
            for i in chosen
            for j in (i - 1, i + 1)
            if 0 <= j < n and j not in chosen
        ]
        chosen.add(max(edges)[1] if edges else min(set(range(n)) - chosen))
    return sorted(chosen)


def _gains(
    rated: Rated, candidates: Sequence[Sequence[int]], weights: Sequence[float], k: int
) -> np.ndarray | None:
    """For each candidate table (places, best first), the information it is expected to
    add about the pairs of neighbours: the sum over pairs of their weight times the log
    of how much the k games of the table shrink the variance of their difference
    (None without a covariance). A game's information is Plackett–Luce's at the fit's
    strengths, for the order of the ranking (for neighbours close to its expectation);
    the variances after it come from the covariance by a rank-k update,
    ``Σ' = Σ − Σ_{·T} (I + J Σ_TT)⁻¹ J Σ_{T·}``. A table of far-apart bots adds little
    (its order is all but known); a window of close neighbours shrinks all its pairs."""
    cov, index, ranking = rated.covariance, rated.index, rated.ranking
    if cov is None or any(name not in index for name in ranking):
        return None
    rows = np.array([index[name] for name in ranking])
    theta = np.array([rated.theta[name] for name in ranking])
    places = np.array(candidates)  # m × k
    seats = rows[places]
    diff = cov[:, rows[:-1]] - cov[:, rows[1:]]  # Σ c_p for each pair p: N × (n - 1)
    pair = np.arange(len(rows) - 1)
    var = np.maximum(diff[rows[:-1], pair] - diff[rows[1:], pair], 1e-12)
    # J: the information of one game in the ranking's order, summed over its steps.
    info = np.zeros((len(places), k, k))
    strength = np.exp(theta[places] - theta[places].max(axis=1, keepdims=True))
    for step in range(k - 1):
        p = strength[:, step:] / strength[:, step:].sum(axis=1, keepdims=True)
        info[:, step:, step:] += p[:, :, None] * (np.eye(k - step) - p[:, None, :])
    info *= k  # a table: k games, one in each seat rotation
    block = cov[seats[:, :, None], seats[:, None, :]]
    eye = np.eye(k)
    m = np.linalg.solve(eye + info @ block, info)
    a = diff[seats]  # m × k × (n - 1)
    shrink = np.einsum("mkp,mkl,mlp->mp", a, m, a)
    after = np.maximum(var - shrink, 1e-12 * var)
    gains: np.ndarray = np.log(var / after) @ np.asarray(weights)
    return gains


def _unsettled(los: float) -> tuple[float, float]:
    """How much a pair of neighbours still needs games: (its need: 1 at a LOS of 50%,
    falling to a half just short of `SEPARATED`, 0 from it; a floor: a tenth of how far
    it is from sure, 0.01 at 95%, 0 at 100%), both weighted alike (the top places): a
    pair not separated counts more than a separated one of the same weight, and the top
    keeps some games once separated (its order must stay right; weighting the need alone
    let the top 3 drift: 1.0 to 3.9 times round-robin's games in bench/ladder.py at 20
    bots, against 0.45 to 0.77). The need steps down at `SEPARATED` rather than falling
    to 0 there: the pairs just short of separated, the last to settle, would count for
    almost nothing (with the scoring of `_gains`, at 20 bots and tables of 6, a need
    falling to 0 took 0.55 of round-robin's games to separate every pair in 20 runs,
    this one 0.40 in 60)."""
    sure = max(los, 1.0 - los)
    slope = max(0.0, (SEPARATED - sure) / (SEPARATED - 0.5))
    return (0.5 + 0.5 * slope if sure < SEPARATED else 0.0), 0.1 * 2.0 * (1.0 - sure)


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


def rate_active(
    columns: ResultColumns, names: Collection[str], start: Mapping[str, float] | None = None
) -> tuple[Rated, int]:
    """`rate` the versions `names` on their seats of every game of `columns` (games of
    two of them at least, places closed up: `ResultColumns.only`; forfeits left out, as
    in the standings: `ResultColumns.played`); and how many games that is. Column by
    column: no object per game."""
    kept = columns.only(names).played()
    orders = FinishingOrders(
        players=tuple(kept.players),
        game=np.asarray(kept.seat_game, dtype=np.intp),
        player=np.asarray(kept.seat_player, dtype=np.intp),
        place=np.asarray(kept.place, dtype=np.int64),
        games=len(kept.game_ids),
    )
    return rate(orders, names, start), len(kept.game_ids)


def without(rated: Rated, out: Collection[str]) -> Rated:
    """`rated` without the bots of `out` (those at tables in play: tables played at once
    share no bot). A pair of neighbours that skips a bot left out counts as the
    surer of the pairs between them."""
    taken = set(out)
    kept = [i for i, name in enumerate(rated.ranking) if name not in taken]
    los = tuple(max(rated.los[a:b]) for a, b in itertools.pairwise(kept))
    return dataclasses.replace(rated, ranking=tuple(rated.ranking[i] for i in kept), los=los)
