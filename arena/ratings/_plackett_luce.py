"""The Plackett–Luce fit: finishing orders in, log-strengths and their covariance out.

The model
---------
Each bot ``i`` has a strength ``γ_i = exp(θ_i)``. A game's finishing order is built
from the top: the winner is drawn from all players with probability proportional to
strength, second place from the rest, and so on (Plackett–Luce). With two players
this is the Bradley–Terry model. The log-likelihood of one untied order
``σ(1), …, σ(n)`` is ``Σ_{s<n} [θ_σ(s) − log Σ_{k≥s} γ_σ(k)]``.

Each step of an order is a *choice event*: a set of alternatives, a weight, and a
chosen weight per alternative. The whole data set is a list of events, and

    ℓ(θ) = Σ_i W_i θ_i − Σ_e w_e log Σ_{k∈e} exp(θ_k)

where ``W_i`` is the total weight with which bot ``i`` was chosen. This is concave in
``θ``; it is the form the fit, the information matrix and the bootstrap all use.

Ties
----
A tie among ``m`` players counts as the average of the log-likelihoods of its ``m!``
orders (each order weighs ``1/m!``). For two players this is the chess convention: a
tie is half a win and half a loss, and two ties weigh exactly as one win plus one
loss. In event form, the tied block ``D`` above the set ``R`` of players who finished
below it gives, for every non-empty subset ``S ⊆ D``, the event ``S ∪ R`` with weight
``1/C(m, |S|)`` in which each member of ``S`` is chosen with weight ``w/|S|``. The cost
is ``2^m`` events per tie, so ties are limited to `MAX_TIE` players. The averaged
log-likelihood is a composite likelihood: the intervals treat it as an ordinary one,
which is exact without ties and close with few of them; the bootstrap does not rely
on it.

The prior
---------
``prior = a`` adds, for every bot, ``a`` pseudo-wins and ``a`` pseudo-losses against a
virtual player of strength 1 (``θ = 0``), that is ``a·[θ_i − 2 log(1 + exp θ_i)]`` to the
log-likelihood. It keeps an unbeaten or winless bot finite and pulls thinly-played
bots a little towards the average; ``prior = 0`` gives the plain maximum-likelihood
estimate, which exists only when the "finished above" graph between the bots is
strongly connected (Hunter 2004, Assumption 1). The reported log-strengths are always
centred (they sum to zero).

The algorithm
-------------
Hunter's MM algorithm ("MM algorithms for generalized Bradley–Terry models", Annals of
Statistics 32, 2004): ``γ_i ← W_i / Σ_{e∋i} w_e / Σ_{k∈e} γ_k``, with the prior adding
``a`` to the numerator and ``2a/(1 + γ_i)`` to the denominator. Every step increases the
(penalised) likelihood. MM converges linearly and slowly on sparse data, so once the
steps are small the fit finishes with a few Newton steps, each accepted only if it
does not lower the likelihood (otherwise MM simply carries on).

The covariance
--------------
The observed information is the Hessian of ``−ℓ``:
``H = Σ_e w_e (diag p_e − p_e p_eᵀ) + 2a·diag(q(1 − q))`` with ``p_e`` the choice
probabilities of event ``e`` and ``q_i = γ_i/(1 + γ_i)``. It does not depend on who was
chosen, so for Plackett–Luce it equals the expected (Fisher) information. Without a
prior ``H`` is singular along ``(1, …, 1)``; the covariance of the log-strengths under
the sum-to-zero constraint is its pseudo-inverse, ``(H + 11ᵀ/n)⁻¹ − 11ᵀ/n``. With a
prior, ``H`` is invertible and the centred log-strengths have covariance ``C H⁻¹ C``
with ``C = I − 11ᵀ/n``.

The bootstrap
-------------
`bootstrap_plackett_luce` refits on resamples of whole games, or of whole groups of
games (duplicate deals), with the same prior, warm-started at the full fit, and
centres every refit as the full fit is centred. Its intervals are normal ones:
``θ ± 1.96 s`` with ``s`` the standard deviation of the refits
(`BootstrapResult.standard_errors`). The percentile interval (the 2.5% and 97.5%
quantiles of the refits) covers the truth less often than it claims, for two
reasons. Its ends rest on a handful of refits: with 200 resamples the 2.5% quantile
is read between the 5th and 6th smallest, which lie at about the 3% quantile on
average and scatter widely; that alone costs about one point of coverage. And the
maximum-likelihood estimate is biased away from the average (strong bots look
stronger, weak ones weaker); the refits repeat the bias around the estimate, so the
percentile interval carries it twice and misses more often on the outer side. In a
simulation of 8 bots in 120 four-seat games (``bench/bootstrap_coverage.py``, 200
resamples) the percentile interval covered 93–94% of the time, the normal interval
95% within the simulation's error, as the Fisher interval does.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt

from arena.errors import InputError

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]

Ranking = Sequence[Collection[str]]
"""One game's finishing order: groups of tied players, best group first."""

ELO_PER_NAT = 400.0 / math.log(10.0)
"""Elo points per unit of log-strength (400/ln 10 ≈ 173.72)."""

DEFAULT_PRIOR = 1.0
"""Pseudo-wins (and as many pseudo-losses) per bot against a virtual average player."""

MAX_TIE = 12
"""The largest tie among players of one game that the fit accepts (it costs 2^m events)."""

_TOL = 1e-10
"""The fit stops when an MM step moves no log-strength by more than this."""
_BOOTSTRAP_TOL = 1e-8
"""The same for the refits of the bootstrap (1e-8 in log-strength is 2e-6 Elo)."""
_NEWTON_FROM = 1e-4
_NEWTON_EVERY = 5
_MAX_ITER = 100_000


class NoEstimateError(InputError):
    """The plain maximum-likelihood fit (prior 0) does not exist for these results."""


@dataclass(frozen=True, eq=False)
class PlackettLuceFit:
    """The fitted log-strengths of a set of bots."""

    players: tuple[str, ...]
    """The bots, sorted by name; every array below follows this order."""
    log_strength: FloatArray
    """Centred log-strengths θ (they sum to zero)."""
    covariance: FloatArray | None
    """Covariance of the centred log-strengths (inverse information), if computed."""
    prior: float
    """The pseudo-wins and pseudo-losses per bot the fit used."""
    log_likelihood: float
    """The (penalised) log-likelihood at the fit."""
    iterations: int
    """MM iterations used."""

    def elo(self, mean: float = 1500.0) -> FloatArray:
        """The ratings on the Elo scale, centred on ``mean``."""
        return mean + ELO_PER_NAT * self.log_strength

    def standard_errors(self) -> FloatArray | None:
        """Standard errors of the centred log-strengths, if the covariance was computed."""
        if self.covariance is None:
            return None
        return np.sqrt(np.clip(np.diag(self.covariance), 0.0, None))

    def contrast(self, better: str, worse: str) -> tuple[float, float | None]:
        """The difference ``θ_better − θ_worse`` and its standard error."""
        i, j = self.players.index(better), self.players.index(worse)
        diff = float(self.log_strength[i] - self.log_strength[j])
        if self.covariance is None:
            return diff, None
        c = self.covariance
        var = c[i, i] + c[j, j] - 2.0 * c[i, j]
        return diff, math.sqrt(max(float(var), 0.0))


@dataclass(frozen=True, eq=False)
class BootstrapResult:
    """Log-strengths refitted on resampled sets of games."""

    players: tuple[str, ...]
    """The bots, in the order of the columns of ``samples``."""
    samples: FloatArray
    """One row of centred log-strengths per successful resample."""
    skipped: int
    """Resamples without a finite fit (possible only with prior 0)."""

    def standard_errors(self) -> FloatArray:
        """Standard deviations of the refitted log-strengths (NaN with fewer than 2 rows).

        The normal interval ``θ ± 1.96 s`` built on them covers the truth at about its
        nominal rate; percentiles of ``samples`` under-cover (see the module docstring).
        """
        if len(self.samples) < 2:
            return np.full(len(self.players), np.nan)
        return np.asarray(self.samples.std(axis=0, ddof=1), dtype=np.float64)


def likelihood_of_superiority(diff: float, variance: float) -> float:
    """P(the true difference is > 0) for an estimate ``diff`` with the given variance."""
    if variance <= 0.0:
        return 0.5 if diff == 0.0 else float(diff > 0.0)
    return 0.5 * (1.0 + math.erf(diff / math.sqrt(2.0 * variance)))


def fit_plackett_luce(
    rankings: Sequence[Ranking],
    *,
    prior: float = DEFAULT_PRIOR,
    intervals: bool = True,
) -> PlackettLuceFit:
    """Fit Plackett–Luce log-strengths to finishing orders (see the module docstring).

    The result does not depend on the order of ``rankings``. Raises `NoEstimateError`
    when ``prior`` is 0 and the plain maximum-likelihood estimate does not exist.
    """
    design = _Design.build(rankings)
    return design.fit(prior=prior, intervals=intervals)


def bootstrap_plackett_luce(
    rankings: Sequence[Ranking],
    groups: Sequence[str] | None = None,
    *,
    prior: float = DEFAULT_PRIOR,
    resamples: int = 200,
    seed: int = 0,
) -> BootstrapResult:
    """Refit on ``resamples`` resamples of whole games (or whole groups of games).

    ``groups[g]`` names the group of ``rankings[g]`` (for example the duplicate deals
    played from one shuffle); whole groups are drawn with replacement, since the
    games of a group, like the pairs inside one game, are not independent. Without
    ``groups`` every game is its own group. Resamples whose plain maximum-likelihood
    fit does not exist (prior 0 only) are skipped and counted. For intervals use
    ``θ ± 1.96 ×`` `BootstrapResult.standard_errors`, not percentiles of the samples
    (see the module docstring).
    """
    design = _Design.build(rankings, groups)
    return design.bootstrap(prior=prior, resamples=resamples, seed=seed)


def _groups(ranking: Ranking) -> Ranking:
    if isinstance(ranking, str) or any(isinstance(group, str) for group in ranking):
        raise TypeError("a ranking is a sequence of groups of player names, not strings")
    return ranking


def _encode(
    ranking: Ranking, index: dict[str, int]
) -> tuple[tuple[int, ...], list[list[int]] | None]:
    """A sort key for the game, and its groups of player indices if it has ties.

    Without ties the key is the finishing order; with ties each group is sorted and
    followed by -1.
    """
    if all(len(group) == 1 for group in ranking):
        return tuple(index[p] for group in ranking for p in group), None
    groups = [sorted(index[p] for p in group) for group in ranking if group]
    key = tuple(x for group in groups for x in (*group, -1))
    return (-2, *key), groups


@dataclass(frozen=True, eq=False)
class _Weights:
    event: FloatArray
    chosen: FloatArray


class _Parts:
    """The choice events of a data set under construction, in numpy pieces."""

    def __init__(self) -> None:
        self.members: list[npt.NDArray[Any]] = []
        self.sizes: list[npt.NDArray[Any]] = []
        self.chosen_count: list[npt.NDArray[Any]] = []
        self.event_weight: list[npt.NDArray[Any]] = []
        self.event_game: list[npt.NDArray[Any]] = []
        self.chosen_player: list[npt.NDArray[Any]] = []
        self.chosen_weight: list[npt.NDArray[Any]] = []
        self.chosen_game: list[npt.NDArray[Any]] = []

    @staticmethod
    def join(pieces: list[npt.NDArray[Any]], dtype: type[Any]) -> Any:
        if not pieces:
            return np.zeros(0, dtype=dtype)
        return np.concatenate(pieces).astype(dtype, copy=False)

    def add_untied_games(self, seats: int, games: list[int], orders: list[list[int]]) -> None:
        """Games of ``seats`` players without ties: step ``s`` of game ``g`` chooses
        ``order[s]`` from ``order[s:]``. Vectorised over the games."""
        table = np.asarray(orders, dtype=np.intp)
        game = np.asarray(games, dtype=np.intp)
        count = len(games)
        for step in range(seats - 1):
            self.members.append(table[:, step:].ravel())
            self.sizes.append(np.full(count, seats - step, dtype=np.intp))
            self.chosen_count.append(np.ones(count, dtype=np.intp))
            self.event_weight.append(np.ones(count))
            self.event_game.append(game)
            self.chosen_player.append(table[:, step])
            self.chosen_weight.append(np.ones(count))
            self.chosen_game.append(game)

    def add_tied_game(self, game: int, ranking: list[list[int]]) -> None:
        """A game with ties: every order of the tied players weighs the same (see the
        module docstring)."""
        members: list[int] = []
        sizes: list[int] = []
        chosen_count: list[int] = []
        event_weight: list[float] = []
        chosen_player: list[int] = []
        chosen_weight: list[float] = []
        below = [p for group in ranking for p in group]
        for tied in ranking:
            below = below[len(tied) :]
            m = len(tied)
            if m > MAX_TIE:
                raise InputError(
                    f"a tie among {m} players in one game; "
                    f"at most {MAX_TIE} tied players are supported"
                )
            for k in range(m, 0, -1):
                if k + len(below) < 2:
                    continue
                weight = 1.0 / math.comb(m, k)
                for subset in combinations(tied, k):
                    members.extend(subset)
                    members.extend(below)
                    sizes.append(k + len(below))
                    chosen_count.append(k)
                    event_weight.append(weight)
                    chosen_player.extend(subset)
                    chosen_weight.extend([weight / k] * k)
        self.members.append(np.asarray(members, dtype=np.intp))
        self.sizes.append(np.asarray(sizes, dtype=np.intp))
        self.chosen_count.append(np.asarray(chosen_count, dtype=np.intp))
        self.event_weight.append(np.asarray(event_weight))
        self.event_game.append(np.full(len(sizes), game, dtype=np.intp))
        self.chosen_player.append(np.asarray(chosen_player, dtype=np.intp))
        self.chosen_weight.append(np.asarray(chosen_weight))
        self.chosen_game.append(np.full(len(chosen_player), game, dtype=np.intp))


class _Design:
    """The choice events of a data set, in flat arrays (CSR layout)."""

    def __init__(self, players: tuple[str, ...], parts: _Parts, game_group: list[int]) -> None:
        self.players = players
        self.n = len(players)
        self.members = parts.join(parts.members, np.intp)
        self.sizes = parts.join(parts.sizes, np.intp)
        self.starts: IntArray = np.concatenate(([0], np.cumsum(self.sizes)[:-1])).astype(np.intp)
        self.chosen_count = parts.join(parts.chosen_count, np.intp)
        self.event_of_entry: IntArray = np.repeat(np.arange(len(self.sizes)), self.sizes)
        self.event_weight = parts.join(parts.event_weight, np.float64)
        self.event_game = parts.join(parts.event_game, np.intp)
        self.chosen_player = parts.join(parts.chosen_player, np.intp)
        self.chosen_weight = parts.join(parts.chosen_weight, np.float64)
        self.chosen_game = parts.join(parts.chosen_game, np.intp)
        self.game_group: IntArray = np.asarray(game_group, dtype=np.intp)
        self.n_groups = int(self.game_group.max()) + 1 if len(game_group) else 0
        self._pairs: tuple[IntArray, IntArray, IntArray] | None = None

    @classmethod
    def build(cls, rankings: Sequence[Ranking], groups: Sequence[str] | None = None) -> _Design:
        if groups is not None and len(groups) != len(rankings):
            raise ValueError("groups must name the group of every ranking")
        names = sorted({p for ranking in rankings for group in _groups(ranking) for p in group})
        index = {name: i for i, name in enumerate(names)}
        games = [_encode(ranking, index) for ranking in rankings]
        # Canonical order: sorting the games by content (and by group) makes the fit and
        # the bootstrap bit-for-bit independent of the order of the input.
        if groups is None:
            order = sorted(range(len(games)), key=lambda g: games[g][0])
            labels = [f"{k:012d}" for k in range(len(games))]
        else:
            order = sorted(range(len(games)), key=lambda g: (games[g][0], groups[g]))
            labels = [groups[g] for g in order]
        group_index = {label: k for k, label in enumerate(sorted(set(labels)))}

        parts = _Parts()
        untied: dict[int, tuple[list[int], list[list[int]]]] = {}
        game_group = [group_index[label] for label in labels]
        for g, original in enumerate(order):
            key, ranking = games[original]
            if ranking is None:  # no ties: the key is the order itself
                seats = len(key)
                if len(set(key)) != seats:
                    raise ValueError(
                        f"a player appears twice in the ranking {rankings[original]!r}"
                    )
                batch, tables = untied.setdefault(seats, ([], []))
                batch.append(g)
                tables.append(list(key))
            else:
                flat = [p for group in ranking for p in group]
                if len(set(flat)) != len(flat):
                    raise ValueError(
                        f"a player appears twice in the ranking {rankings[original]!r}"
                    )
                parts.add_tied_game(g, ranking)
        for seats, (batch, tables) in sorted(untied.items()):
            parts.add_untied_games(seats, batch, tables)
        return cls(tuple(names), parts, game_group)

    # -- weights ---------------------------------------------------------------------

    def weights(self, game_counts: FloatArray | None = None) -> _Weights:
        """Event and chosen weights, each game counted ``game_counts[g]`` times."""
        if game_counts is None:
            event = self.event_weight
            chosen = self.chosen_weight
        else:
            event = self.event_weight * game_counts[self.event_game]
            chosen = self.chosen_weight * game_counts[self.chosen_game]
        wins = _weighted_count(self.chosen_player, chosen, self.n)
        return _Weights(event=event, chosen=wins)

    # -- likelihood and its derivatives ------------------------------------------------

    def _event_totals(self, gamma: FloatArray) -> FloatArray:
        return _weighted_count(self.event_of_entry, gamma[self.members], len(self.sizes))

    def log_likelihood(self, theta: FloatArray, w: _Weights, prior: float) -> float:
        """The penalised log-likelihood ℓ(θ) (see the module docstring)."""
        shift = float(theta.max()) if self.n else 0.0
        totals = self._event_totals(np.exp(theta - shift))
        value = float(w.chosen @ theta) - float(w.event @ (np.log(totals) + shift))
        if prior > 0.0:
            value += prior * float(np.sum(theta - 2.0 * np.logaddexp(0.0, theta)))
        return value

    def gradient(self, theta: FloatArray, w: _Weights, prior: float) -> FloatArray:
        """The gradient of ℓ."""
        gamma = np.exp(theta)
        totals = self._event_totals(gamma)
        p = gamma[self.members] / totals[self.event_of_entry]
        expected = _weighted_count(self.members, w.event[self.event_of_entry] * p, self.n)
        grad: FloatArray = w.chosen - expected
        if prior > 0.0:
            grad = grad + prior * (1.0 - 2.0 / (1.0 + np.exp(-theta)))
        return grad

    def information(self, theta: FloatArray, w: _Weights, prior: float) -> FloatArray:
        """The Hessian of −ℓ, which for Plackett–Luce is the Fisher information."""
        n = self.n
        gamma = np.exp(theta)
        totals = self._event_totals(gamma)
        p = gamma[self.members] / totals[self.event_of_entry]
        wp = w.event[self.event_of_entry] * p
        diagonal = _weighted_count(self.members, wp, n)
        if prior > 0.0:
            q = 1.0 / (1.0 + np.exp(-theta))
            diagonal = diagonal + 2.0 * prior * q * (1.0 - q)
        a, b, flat = self._pair_index()
        outer = _weighted_count(flat, wp[a] * p[b], n * n).reshape(n, n)
        info = np.diag(diagonal) - outer
        return np.asarray(0.5 * (info + info.T), dtype=np.float64)

    def _pair_index(self) -> tuple[IntArray, IntArray, IntArray]:
        """For every event, all ordered pairs of its entries (indices into ``members``)."""
        if self._pairs is None:
            a_parts: list[IntArray] = [np.zeros(0, dtype=np.intp)]
            b_parts: list[IntArray] = [np.zeros(0, dtype=np.intp)]
            for size in np.unique(self.sizes):
                s = int(size)
                base = self.starts[self.sizes == s]
                ii, jj = np.meshgrid(np.arange(s), np.arange(s), indexing="ij")
                a_parts.append((base[:, None] + ii.ravel()[None, :]).ravel())
                b_parts.append((base[:, None] + jj.ravel()[None, :]).ravel())
            a = np.concatenate(a_parts).astype(np.intp)
            b = np.concatenate(b_parts).astype(np.intp)
            flat = (self.members[a] * self.n + self.members[b]).astype(np.intp)
            self._pairs = (a, b, flat)
        return self._pairs

    # -- fitting -----------------------------------------------------------------------

    def _mm_step(self, theta: FloatArray, w: _Weights, prior: float) -> FloatArray:
        gamma = np.exp(theta)
        totals = self._event_totals(gamma)
        denom = _weighted_count(self.members, (w.event / totals)[self.event_of_entry], self.n)
        numer: FloatArray = w.chosen
        if prior > 0.0:
            numer = numer + prior
            denom = denom + 2.0 * prior / (1.0 + gamma)
        new: FloatArray = np.log(numer) - np.log(denom)
        return self._best_shift(new, prior)

    @staticmethod
    def _best_shift(theta: FloatArray, prior: float) -> FloatArray:
        """Move all log-strengths by the constant that maximises ℓ.

        The data term does not change under a common shift; without a prior the fit is
        centred, with one the shift solves ``Σ_i q(θ_i + c) = n/2`` (the prior's
        stationarity condition). MM alone finds this direction very slowly.
        """
        if prior == 0.0:
            return np.asarray(theta - theta.mean(), dtype=np.float64)
        c = 0.0
        half = 0.5 * len(theta)
        for _ in range(200):
            q = 1.0 / (1.0 + np.exp(-(theta + c)))
            step = float((half - q.sum()) / max(float(np.sum(q * (1.0 - q))), 1e-300))
            step = max(-2.0, min(2.0, step))
            c += step
            if abs(step) < 1e-15:
                break
        shifted: FloatArray = theta + c
        return shifted

    def _newton_step(self, theta: FloatArray, w: _Weights, prior: float) -> FloatArray:
        info = self.information(theta, w, prior)
        if prior == 0.0:
            info = np.asarray(info + 1.0 / self.n, dtype=np.float64)
        step = np.asarray(np.linalg.solve(info, self.gradient(theta, w, prior)), dtype=np.float64)
        return self._best_shift(theta + step, prior)

    def _solve(
        self, w: _Weights, prior: float, start: FloatArray | None = None, tol: float = _TOL
    ) -> tuple[FloatArray, int]:
        """Maximise ℓ by MM; near the optimum, try a Newton step now and then.

        A Newton step is kept only if it does not lower ℓ, so the iteration stays an
        ascent method; convergence is always judged on an MM step.
        """
        theta = np.zeros(self.n) if start is None else start.copy()
        if self.n <= 1:
            return theta, 0
        last_newton = -_NEWTON_EVERY
        for iteration in range(1, _MAX_ITER + 1):
            new = self._mm_step(theta, w, prior)
            delta = float(np.max(np.abs(new - theta)))
            theta = new
            if delta < tol:
                return theta, iteration
            if delta < _NEWTON_FROM and iteration - last_newton >= _NEWTON_EVERY:
                last_newton = iteration
                try:
                    trial = self._newton_step(theta, w, prior)
                except np.linalg.LinAlgError:  # pragma: no cover - H is positive definite
                    continue
                if np.all(np.isfinite(trial)) and self.log_likelihood(
                    trial, w, prior
                ) >= self.log_likelihood(theta, w, prior):
                    theta = trial
        raise ArithmeticError("the Plackett–Luce fit did not converge")  # pragma: no cover

    def obstacle(self, w: _Weights) -> str | None:
        """Why the plain MLE (prior 0) does not exist, or None if it does.

        The MLE exists iff the graph "i finished above j" between the bots is strongly
        connected (Hunter 2004). If it is not, some group of bots never finished below
        (or never above) a bot outside the group: its strength relative to the rest
        goes to infinity. The message names the smallest such group.
        """
        n = self.n
        if n <= 1:
            return None
        played = np.bincount(self.members[w.event[self.event_of_entry] > 0.0], minlength=n)
        if not played.all():
            lonely = [self.players[i] for i in np.flatnonzero(played == 0)]
            return f"{_names(lonely)} never played a game against another bot"
        a, b, _ = self._pair_index()
        event_of_entry = self.event_of_entry
        position = np.arange(len(self.members)) - self.starts[event_of_entry]
        chosen = (position < self.chosen_count[event_of_entry]) & (w.event[event_of_entry] > 0.0)
        keep = chosen[a]
        above = np.zeros((n, n), dtype=bool)
        above[self.members[a[keep]], self.members[b[keep]]] = True
        np.fill_diagonal(above, True)
        if _reachable(above, 0).all() and _reachable(above.T, 0).all():
            return None
        closure = above
        for k in range(n):
            closure = closure | (closure[:, k : k + 1] & closure[k : k + 1, :])
        same = closure & closure.T
        # A source component: nobody outside ever finished above it; a sink: it never
        # finished above anybody outside.
        source = [i for i in range(n) if not np.any(closure[:, i] & ~closure[i, :])]
        sink = [i for i in range(n) if not np.any(closure[i, :] & ~closure[:, i])]
        best_source = min((np.flatnonzero(same[i]) for i in source), key=len)
        best_sink = min((np.flatnonzero(same[i]) for i in sink), key=len)
        if len(best_sink) < len(best_source):
            group, relation = best_sink, "above"
        else:
            group, relation = best_source, "below"
        names = [self.players[i] for i in group]
        if len(names) == 1:
            return f"{names[0]} never finished {relation} another bot"
        return f"{_names(names)} never finished {relation} a bot outside that group"

    def fit(self, *, prior: float, intervals: bool) -> PlackettLuceFit:
        if prior < 0.0 or not math.isfinite(prior):
            raise ValueError("prior must be a finite number >= 0")
        w = self.weights()
        if prior == 0.0:
            problem = self.obstacle(w)
            if problem is not None:
                raise NoEstimateError(
                    f"the plain maximum-likelihood fit (prior 0) does not exist: {problem}; "
                    "use a prior > 0"
                )
        theta, iterations = self._solve(w, prior)
        theta = theta - theta.mean() if self.n else theta
        covariance = self.covariance(theta, w, prior) if intervals else None
        return PlackettLuceFit(
            players=self.players,
            log_strength=theta,
            covariance=covariance,
            prior=prior,
            log_likelihood=self.log_likelihood(theta, w, prior) if self.n else 0.0,
            iterations=iterations,
        )

    def covariance(self, theta: FloatArray, w: _Weights, prior: float) -> FloatArray:
        """Covariance of the centred log-strengths (see the module docstring)."""
        n = self.n
        if n == 0:
            return np.zeros((0, 0))
        info = self.information(theta, w, prior)
        ones = np.full((n, n), 1.0 / n)
        if prior == 0.0:
            cov: FloatArray = np.linalg.inv(info + ones) - ones
        else:
            centre = np.eye(n) - ones
            cov = centre @ np.linalg.inv(info) @ centre
        result: FloatArray = 0.5 * (cov + cov.T)
        return result

    def bootstrap(self, *, prior: float, resamples: int, seed: int) -> BootstrapResult:
        """Refit on resamples of whole groups of games, warm-started at the full fit."""
        if resamples < 0:
            raise ValueError("resamples must be >= 0")
        rng = np.random.default_rng(seed)
        full = self.weights()
        start = None
        if prior > 0.0 or self.obstacle(full) is None:
            start, _ = self._solve(full, prior)
        rows: list[FloatArray] = []
        skipped = 0
        for _ in range(resamples):
            drawn = rng.integers(0, self.n_groups, size=self.n_groups)
            group_counts = np.bincount(drawn, minlength=self.n_groups).astype(np.float64)
            w = self.weights(group_counts[self.game_group])
            if prior == 0.0 and self.obstacle(w) is not None:
                skipped += 1
                continue
            theta, _ = self._solve(w, prior, start, _BOOTSTRAP_TOL)
            rows.append(theta - theta.mean())
        samples = np.array(rows) if rows else np.zeros((0, self.n))
        return BootstrapResult(players=self.players, samples=samples, skipped=skipped)


def _weighted_count(index: IntArray, weights: FloatArray, length: int) -> FloatArray:
    """``out[k] = Σ weights[index == k]`` for ``k < length``."""
    return np.asarray(np.bincount(index, weights=weights, minlength=length), dtype=np.float64)


def _reachable(adjacency: npt.NDArray[np.bool_], source: int) -> npt.NDArray[np.bool_]:
    """The nodes reachable from ``source`` along the edges of a boolean adjacency matrix."""
    seen = np.zeros(len(adjacency), dtype=bool)
    seen[source] = True
    frontier = seen.copy()
    while frontier.any():
        nxt = adjacency[frontier].any(axis=0) & ~seen
        seen |= nxt
        frontier = nxt
    return seen


def _names(names: Sequence[str], limit: int = 5) -> str:
    if len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[:limit]) + f" and {len(names) - limit} more"
