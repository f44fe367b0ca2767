"""The statistics of `arena sprt`: a per-game score, the paired difference, the GSPRT.

The score
---------
In one game, the tested bot (NEW or OLD, in the test seat) scores the share of its
opponents it finished above, a tie counting half: 1 for a win at a table of 2, and at
a table of K any of 0, 1/(2(K-1)), ..., 1. A bot that faults loses that game: it is
ranked below every seat that did not fault (among seats that all faulted, their
places decide).

The pair
--------
Each deal is played twice (`arena.sprt._plan`). Against a *field* (the usual case),
once with NEW in the test seat and once with OLD there, everything else the same;
the pair's difference is ``D = score(NEW) - score(OLD)``, in [-1, 1]. With NEW
playing OLD *directly* at a table of 2, the deal is played in both seat orders and
``D = score(NEW, first game) + score(NEW, second game) - 1`` (NEW's points in the
pair minus one: fastchess's pentanomial pair, on [-1, 1]).

What elo0 and elo1 mean
-----------------------
The Elo scale is that of `arena standings`: a difference of ``d`` Elo is a difference
of ``d / ELO_PER_NAT`` in Plackett-Luce log-strength. In a Plackett-Luce model a bot
finishes above a given opponent with chance ``σ(θ_bot - θ_opponent)`` (σ the logistic
function) *at every table size* (the choice axiom: the order of any two players in a
finishing order does not depend on who else sits at the table), so the expected score
is the mean of ``σ(θ_bot - θ_j)`` over its opponents. Hence the expected pair
difference for NEW stronger than OLD by ``d``:

* against a field: ``μ(d) = Σ_j w_j [σ(x_j + d) - σ(x_j)] / Σ_j w_j`` over the field
  bots j, with ``x_j`` OLD's strength minus j's and ``w_j`` how often j sat at OLD's
  table (every game, with a field of K - 1). ``σ(x_j)`` is OLD's chance to finish
  above j, and the test reads it from OLD's games so far: OLD's share of them in which
  it finished above j, with half a pseudo-game (``(wins + ½) / (games + 1)``). Against
  a field as strong as OLD, ``μ(d) = σ(d) - ½``; for small ``d`` each field bot adds
  about ``σ(x_j)(1 - σ(x_j)) · d / ELO_PER_NAT``, so a field much stronger or weaker
  than OLD shows less of a gain, and the test needs more games;
* directly: ``μ(d) = 2σ(d) - 1`` (NEW's gain is OLD's loss: twice the field's
  difference at p = ½).

The table size does not enter ``μ``; it changes the variance of ``D`` (more
opponents, a finer score), which the test measures.

The test
--------
A generalised SPRT on the mean of ``D``, as fishtest's (``LLRcalc.LLR``): after ``n``
pairs whose differences take the values ``a_i`` with counts ``c_i``,

    LLR = max L(μ1) - max L(μ0),      μk = μ(elok),

where ``max L(μ)`` is the log-likelihood of the pairs under the distribution on the
``a_i`` that fits them best among those with mean μ (the empirical distribution is
the best of all; with mean μ it is ``p_i = c_i / (n (1 + λ (a_i - μ)))``, λ found by
Newton's method on a concave function of one variable). The test stops with H1 when
``LLR >= log((1 - β)/α)`` and with H0 when ``LLR <= log(β/(1 - α))``. This is the
exact generalised likelihood ratio over the outcomes seen; the normal approximation
``n (μ1 - μ0)(2m - μ0 - μ1) / 2v`` (fishtest's ``LLR_alt2``, arena's before) agrees
with it for bounds a few Elo apart and overstates it for wide ones (β 8% at 0 and 50
Elo by simulation, where the exact ratio keeps both rates under 5%).

The counts hold one pseudo-pair, half at ``D = -1`` and half at ``D = 1`` (variance
about 1), as fishtest adds small counts to empty cells: two identical, deterministic
bots replay each deal identically (D = 0 every time), and without it no distribution
of mean μ1 could explain the pairs at all and the test would stop after one pair.
Every function here works on numpy arrays, so the simulator
(`arena.sprt._simulate`) runs this same code on thousands of tests at once.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from fractions import Fraction
from statistics import NormalDist
from typing import Any

import numpy as np
import numpy.typing as npt

from arena._declared import about
from arena.errors import ConfigError
from arena.ratings import ELO_PER_NAT

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]

CONFIDENCE = 0.95
"""The coverage of the Elo interval."""
_Z = NormalDist().inv_cdf(0.5 + CONFIDENCE / 2.0)

PSEUDO_VARIANCE = 1.0
"""The squared deviation of the one pseudo-pair mixed into the variance."""
PSEUDO_PAIRS = 0.5
"""The pseudo-pairs counted at each of D = -1 and D = 1 in the likelihood ratio."""
MAX_ELO = 1000.0
"""The largest |elo0| and |elo1| accepted."""
_FAR_ELO = 1600.0
"""The largest |Elo| an estimate reports."""

H1 = 1
"""`decide`: the LLR reached the upper bound."""
H0 = -1
"""`decide`: the LLR reached the lower bound."""
GOING = 0
"""`decide`: neither bound reached."""


@dataclasses.dataclass(frozen=True, slots=True)
class Hypotheses:
    """H0: NEW - OLD = elo0, H1: NEW - OLD = elo1, and the error rates wanted."""

    elo0: float = dataclasses.field(default=0.0, metadata=about("H0: NEW - OLD Elo."))
    elo1: float = dataclasses.field(default=10.0, metadata=about("H1: NEW - OLD Elo."))
    alpha: float = dataclasses.field(default=0.05, metadata=about("Chance of H1 when H0 holds."))
    """The largest chance of accepting H1 when H0 is true."""
    beta: float = dataclasses.field(default=0.05, metadata=about("Chance of H0 when H1 holds."))
    """The largest chance of accepting H0 when H1 is true."""

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1", "alpha", "beta"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ConfigError(f"{name} must be a number, not {value!r}")
            if not math.isfinite(value):
                raise ConfigError(f"{name} must be a finite number, not {value!r}")
        if not abs(self.elo0) <= MAX_ELO or not abs(self.elo1) <= MAX_ELO:
            raise ConfigError(f"elo0 and elo1 must be within ±{MAX_ELO:g}")
        if not self.elo0 < self.elo1:
            raise ConfigError(
                f"elo0 must be below elo1 (H0: NEW - OLD = elo0 against H1: = elo1),"
                f" not {self.elo0:g} and {self.elo1:g}"
            )
        for name in ("alpha", "beta"):
            if not 0.0 < getattr(self, name) < 0.5:
                raise ConfigError(
                    f"{name} must be above 0 and below 0.5, not {getattr(self, name)}"
                )

    @property
    def lower(self) -> float:
        """The LLR at or below which H0 is accepted: log(β / (1 - α))."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 is accepted: log((1 - β) / α)."""
        return math.log((1.0 - self.beta) / self.alpha)

    def to_dict(self) -> dict[str, float]:
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta}


# -- scores ------------------------------------------------------------------------------


def opponent_results(places: Any, faulted: Any, seat: Any) -> FloatArray:
    """For every seat, whether the bot in `seat` finished above it: 1, ½ for a tie, 0
    (and 0 for `seat` itself).

    ``places[..., s]`` is seat s's finishing place (1 is best), ``faulted[..., s]``
    whether it faulted (a faulted seat ranks below every seat that did not) and
    ``seat[...]`` the seat scored; any leading shape, one game or a million.
    """
    place = np.asarray(places, dtype=np.float64)
    seats = place.shape[-1]
    if seats < 2:
        raise ValueError("a game has at least two seats")
    key = place + (seats + 1) * np.asarray(faulted, dtype=np.float64)
    index = np.asarray(seat, dtype=np.intp)[..., None]
    mine = np.take_along_axis(key, index, axis=-1)
    results = (key > mine) + 0.5 * (key == mine)
    np.put_along_axis(results, index, 0.0, axis=-1)
    return np.asarray(results, dtype=np.float64)


def seat_scores(places: Any, faulted: Any, seat: Any) -> FloatArray:
    """The share of its opponents that the bot in `seat` finished above (ties half); the
    arguments as for `opponent_results`."""
    results = opponent_results(places, faulted, seat)
    return np.asarray(results.sum(axis=-1) / (results.shape[-1] - 1), dtype=np.float64)


def pair_difference(direct: bool, first: Any, second: Any) -> FloatArray:
    """The pair's D from the tested bot's score in each of its two games (see the
    module docstring): NEW's and OLD's against a field, NEW's twice when direct."""
    a = np.asarray(first, dtype=np.float64)
    b = np.asarray(second, dtype=np.float64)
    return np.asarray(a + b - 1.0 if direct else a - b, dtype=np.float64)


# -- the model -----------------------------------------------------------------------------


def _sigmoid(x: Any) -> FloatArray:
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * np.asarray(x, dtype=np.float64))))


def _logit(p: Any) -> FloatArray:
    q = np.asarray(p, dtype=np.float64)
    return np.asarray(np.log(q) - np.log1p(-q))


def field_levels(old_wins: Any, old_games: Any) -> FloatArray:
    """OLD's chance to finish above each field bot, read from its games: its wins over
    the bot (ties half) and the games they shared, with half a pseudo-game."""
    wins = np.asarray(old_wins, dtype=np.float64)
    return np.asarray((wins + 0.5) / (np.asarray(old_games, dtype=np.float64) + 1.0))


def expected_difference(
    elo: Any, direct: bool, levels: Any = 0.5, weights: Any = 1.0
) -> FloatArray:
    """The expected pair difference μ when NEW is `elo` stronger than OLD (module
    docstring): ``2σ(d) - 1`` directly; against a field, the `weights`-weighted mean
    over the field bots (the last axis) of ``σ(x_j + d) - σ(x_j)``, with ``σ(x_j)`` OLD's
    chance to finish above bot j, ``levels[..., j]``."""
    d = np.asarray(elo, dtype=np.float64) / ELO_PER_NAT
    if direct:
        return np.asarray(2.0 * _sigmoid(d) - 1.0)
    p = np.atleast_1d(np.asarray(levels, dtype=np.float64))
    w = np.broadcast_to(np.asarray(weights, dtype=np.float64), p.shape)
    return _field_gain(d, _logit(p), p, w)


def _field_gain(d: FloatArray, x: FloatArray, p: FloatArray, w: Any) -> FloatArray:
    """``Σ_j w_j [σ(x_j + d) - p_j] / Σ_j w_j`` over the last axis, ``p = σ(x)``."""
    gain = _sigmoid(x + d[..., None]) - p
    return np.asarray(np.sum(w * gain, axis=-1) / np.sum(w, axis=-1))


def elo_of_difference(
    difference: Any, direct: bool, levels: Any = 0.5, weights: Any = 1.0
) -> FloatArray:
    """The Elo difference whose expected pair difference is `difference` (the inverse of
    `expected_difference`, by bisection), within ±1600 Elo."""
    m = np.asarray(difference, dtype=np.float64)
    low = np.full_like(m, -_FAR_ELO)
    high = np.full_like(m, _FAR_ELO)
    for _ in range(60):
        middle = 0.5 * (low + high)
        above = expected_difference(middle, direct, levels, weights) > m
        high = np.where(above, middle, high)
        low = np.where(above, low, middle)
    return np.asarray(0.5 * (low + high))


def variance(pairs: Any, total: Any, squares: Any) -> FloatArray:
    """The pairs' variance with the pseudo-pair: ``(Σ(D - m)² + 1) / (n + 1)``."""
    n = np.asarray(pairs, dtype=np.float64)
    t = np.asarray(total, dtype=np.float64)
    mean = t / np.maximum(n, 1.0)
    spread = np.maximum(np.asarray(squares, dtype=np.float64) - mean * t, 0.0)
    return np.asarray((spread + PSEUDO_VARIANCE) / (n + 1.0))


def log_likelihood_ratio(
    hypotheses: Hypotheses,
    direct: bool,
    counts: Any,
    values: Any,
    old_wins: Any = 0.0,
    old_games: Any = 0.0,
) -> FloatArray:
    """The GSPRT's LLR of H1 against H0 (module docstring) after pairs whose differences
    took the `values` (the last axis, in [-1, 1], including -1 and 1) ``counts[..., i]``
    times each; the pseudo-pair is added here. Against a field, ``old_wins[..., j]`` and
    ``old_games[..., j]`` are OLD's results against field bot j (`field_levels`), which
    place the field; unused when direct."""
    a = np.asarray(values, dtype=np.float64)
    c = np.array(counts, dtype=np.float64)
    if a.ndim != 1 or a.size < 2 or a[0] != -1.0 or a[-1] != 1.0 or np.any(np.diff(a) <= 0):
        raise ValueError("values must rise from -1 to 1")
    c[..., 0] += PSEUDO_PAIRS
    c[..., -1] += PSEUDO_PAIRS
    mu0, mu1 = _bounds(hypotheses, direct, old_wins, old_games)
    return np.asarray(_profile(c, a, mu1) - _profile(c, a, mu0))


def _profile(counts: FloatArray, values: FloatArray, mu: Any) -> FloatArray:
    """``max L(μ) - max L``: the log-likelihood of the counts under the best distribution
    on `values` with mean μ (within (-1, 1)), less that of the empirical one.

    It is ``-max_λ Σ c_i log(1 + λ x_i)`` with ``x_i = a_i - μ`` (Owen's empirical
    likelihood), the maximum over the λ that keep every ``1 + λ x_i`` positive: the
    function is concave, so Newton's method from λ = 0 converges (quadratically near
    the end); it stops when no step moves any λ, or after `_NEWTON_STEPS`.

    No step goes more than halfway from λ to an edge of that interval, so the weight
    ``1 + λ x_i`` of an end value at most halves in a step and never reaches 0 by
    rounding. (A step was once only kept inside the interval: when the Newton step from
    λ = 0, ``Σ c_i x_i / Σ c_i x_i²``, is the edge ``1 / (1 + μ)`` in exact arithmetic,
    as it is for μ = 0 and counts of quarters and halves (tables of 3 and 5, the
    pseudo-pair's halves), a μ a rounding error from 0 (μ0 = 0 against a field is
    ±3e-17) put it one unit in the last place inside; there the weight of D = -1 was
    1e-16, Newton could no longer move λ, and the "maximum" came out at +15 instead of
    -0.9: the LLR fell by as much, and such a test accepted H0 at once.)"""
    m = np.asarray(mu, dtype=np.float64)[..., None]
    x = values - m  # x[..., 0] < 0 < x[..., -1]: the pseudo-pair is at both ends
    low = -1.0 / x[..., -1:]
    high = -1.0 / x[..., :1]
    lam = np.zeros_like(low)
    for _ in range(_NEWTON_STEPS):
        q = 1.0 + lam * x
        g = np.sum(counts * x / q, axis=-1, keepdims=True)
        h = np.sum(counts * (x / q) ** 2, axis=-1, keepdims=True)
        step = np.clip(lam + g / h, 0.5 * (lam + low), 0.5 * (lam + high))
        done = bool(np.all(np.abs(step - lam) <= 1e-12 * (high - low)))  # no step moves λ
        lam = step
        if done:
            break
    return np.asarray(-np.sum(counts * np.log1p(lam * x), axis=-1))


_NEWTON_STEPS = 60


def _bounds(
    hypotheses: Hypotheses, direct: bool, old_wins: Any, old_games: Any
) -> tuple[FloatArray, FloatArray]:
    """μ0 and μ1, the expected pair differences of elo0 and elo1."""
    if direct:
        return (
            expected_difference(hypotheses.elo0, True),
            expected_difference(hypotheses.elo1, True),
        )
    levels = field_levels(old_wins, old_games)
    weights = np.asarray(old_games, dtype=np.float64) + _TINY  # all alike before any game
    x = _logit(levels)  # once for both
    d0 = np.asarray(hypotheses.elo0 / ELO_PER_NAT)
    d1 = np.asarray(hypotheses.elo1 / ELO_PER_NAT)
    return _field_gain(d0, x, levels, weights), _field_gain(d1, x, levels, weights)


_TINY = 1e-9


def decide(hypotheses: Hypotheses, llr: Any) -> IntArray:
    """`H1`, `H0` or `GOING` for each LLR."""
    value = np.asarray(llr, dtype=np.float64)
    return np.asarray(
        np.where(value >= hypotheses.upper, H1, np.where(value <= hypotheses.lower, H0, GOING)),
        dtype=np.intp,
    )


# -- a running test --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class Estimate:
    """The Elo difference NEW - OLD that the pairs so far point to."""

    elo: float
    low: float
    """The lower end of the 95% interval."""
    high: float
    """The upper end."""


@dataclasses.dataclass(frozen=True, slots=True)
class Pairing:
    """What the pairs bought, measured from their own scores: NEW's and OLD's scores on
    one deal are correlated (the deal's luck, shared), so their difference varies less
    than that of two games on deals of their own."""

    correlation: float
    """Of NEW's and OLD's scores on the same deal."""
    variance_ratio: float
    """``Var(s - t) / (Var(s) + Var(t))``: the variance of D against that of the same
    difference on two separate deals. An unpaired test needs ``1 / variance_ratio``
    times the games for the same information."""

    @property
    def unpaired_factor(self) -> float | None:
        """The games an unpaired test would need, as a multiple of these (None when the
        pairs cancel every difference, D always 0)."""
        return 1.0 / self.variance_ratio if self.variance_ratio > 0 else None


@dataclasses.dataclass
class Tally:
    """The pairs counted so far, in order, and what the test makes of them."""

    hypotheses: Hypotheses
    direct: bool
    field: int = 1
    """Field bots (against a field): OLD's results against each are kept apart."""
    pairs: int = 0
    total: float = 0.0
    squares: float = 0.0
    old_wins: list[float] = dataclasses.field(default_factory=list)
    """Per field bot, OLD's finishes above it (ties half)."""
    old_games: list[int] = dataclasses.field(default_factory=list)
    """Per field bot, OLD's games with it."""
    outcomes: Counter[Fraction] = dataclasses.field(default_factory=Counter)
    """How many pairs had each difference D."""
    sides: list[float] = dataclasses.field(default_factory=lambda: [0.0] * 5)
    """Sums over the pairs of the two paired scores, NEW's ``s`` and OLD's ``t`` on the
    same deal in the same seat (directly: NEW's first score and 1 - its second, OLD's
    score in that seat), so that ``D = s - t``: Σs, Σt, Σs², Σt², Σst."""

    def __post_init__(self) -> None:
        if not self.old_wins:
            self.old_wins = [0.0] * max(1, self.field)
            self.old_games = [0] * max(1, self.field)

    def add(
        self,
        difference: float,
        against: dict[int, float] | None = None,
        scores: tuple[float, float] | None = None,
    ) -> None:
        """Count one more pair: its difference, OLD's result against each field bot (by
        index) at its table, and NEW's and OLD's paired scores (``D = s - t``; by
        default ``(D, 0)``, which pairs nothing)."""
        s, t = scores if scores is not None else (difference, 0.0)
        for i, value in enumerate((s, t, s * s, t * t, s * t)):
            self.sides[i] += value
        self.pairs += 1
        self.total += difference
        self.squares += difference * difference
        for bot, result in (against or {}).items():
            self.old_wins[bot] += result
            self.old_games[bot] += 1
        self.outcomes[Fraction(difference).limit_denominator(1000)] += 1

    @property
    def llr(self) -> float:
        outcomes = {float(v): n for v, n in self.outcomes.items()}
        values = sorted({-1.0, 1.0, *outcomes})
        counts = np.array([outcomes.get(v, 0) for v in values], dtype=np.float64)
        return float(
            log_likelihood_ratio(
                self.hypotheses, self.direct, counts, values,
                np.array(self.old_wins), np.array(self.old_games),
            )
        )  # fmt: skip

    @property
    def decision(self) -> int:
        """`H1`, `H0` or `GOING`."""
        return int(decide(self.hypotheses, self.llr))

    @property
    def level(self) -> float:
        """OLD's share of finishes above field bots (½ when NEW plays OLD directly)."""
        games = sum(self.old_games)
        return 0.5 if self.direct or not games else sum(self.old_wins) / games

    @property
    def mean(self) -> float:
        return self.total / self.pairs if self.pairs else 0.0

    def bounds_in_score(self) -> tuple[float, float]:
        """μ0 and μ1: the expected pair differences of elo0 and elo1, now."""
        mu0, mu1 = _bounds(
            self.hypotheses, self.direct, np.array(self.old_wins), np.array(self.old_games)
        )
        return float(mu0), float(mu1)

    def pairing(self) -> Pairing | None:
        """What playing each deal twice bought, from the pairs' own scores (None before
        two pairs, or when a side's score never varied)."""
        n = self.pairs
        if n < 2:
            return None
        s, t, ss, tt, st = self.sides
        var_s = ss / n - (s / n) ** 2
        var_t = tt / n - (t / n) ** 2
        cov = st / n - (s / n) * (t / n)
        if var_s <= 1e-12 or var_t <= 1e-12:
            return None
        ratio = max(0.0, var_s + var_t - 2.0 * cov) / (var_s + var_t)
        return Pairing(cov / math.sqrt(var_s * var_t), ratio)

    def unbiased(self) -> Estimate | None:
        """The median-unbiased Elo difference and its 95% interval: corrected for the
        test's stopping rule (`unbiased_means`), or None before any pair."""
        if not self.pairs:
            return None
        mu0, mu1 = self.bounds_in_score()
        spread = float(variance(self.pairs, self.total, self.squares))
        means = unbiased_means(
            self.hypotheses, mu0, mu1, self.pairs, self.mean, spread, self.decision
        )
        levels = field_levels(np.array(self.old_wins), np.array(self.old_games))
        weights = np.array(self.old_games, dtype=np.float64) + _TINY
        elo, low, high = (
            float(x) for x in elo_of_difference(np.array(means), self.direct, levels, weights)
        )
        return Estimate(elo, low, high)

    def estimate(self) -> Estimate | None:
        """The naive Elo difference and its 95% interval (normal, from the pairs'
        variance; not corrected for the test having stopped early: `unbiased` is), or
        None before any pair."""
        if not self.pairs:
            return None
        spread = _Z * math.sqrt(float(variance(self.pairs, self.total, self.squares)) / self.pairs)
        points = np.array([self.mean, self.mean - spread, self.mean + spread])
        levels = field_levels(np.array(self.old_wins), np.array(self.old_games))
        weights = np.array(self.old_games, dtype=np.float64) + _TINY
        elo, low, high = (float(x) for x in elo_of_difference(points, self.direct, levels, weights))
        return Estimate(elo, low, high)


# -- the estimate of a stopped test --------------------------------------------------------
#
# A test that stops when its LLR first crosses a bound stops more often on a lucky run:
# the mean of D when it stops overstates |NEW - OLD| (two false H1 between identical bots
# reported +68 and +92 Elo). As fishtest does, the LLR is taken for a Brownian motion
# whose drift and variance a pair adds depend on the true mean m of D (the normal
# approximation of the GSPRT: drift (m - (μ0 + μ1)/2)(μ1 - μ0)/v(m), variance
# (μ1 - μ0)²/v(m), v(m) the variance of D were its mean m), absorbed at the bounds; the
# test's outcome is ordered (a fail sooner < a fail later < running at a lower LLR <
# a pass later < a pass sooner), and the median-unbiased estimate is the m under which
# an outcome below the observed one has chance ½ (the interval's ends: 1 - α/2 and
# α/2 of the confidence). It is mapped to Elo as the naive estimate is.


def _log_phi(z: float) -> float:
    """log Φ(z), the standard normal's log cdf, without underflow."""
    if z > -30.0:
        return math.log(max(0.5 * math.erfc(-z / math.sqrt(2.0)), 1e-300))
    z2 = z * z
    return -0.5 * z2 - math.log(-z) - 0.5 * math.log(2 * math.pi) + math.log1p(-1 / z2 + 3 / z2**2)


def outcome_below(a: float, b: float, drift: float, var: float, time: float, y: float) -> float:
    """The chance that a Brownian motion from 0 (`drift` and `var` a unit of time),
    absorbed at ``a < 0 < b``, ends below the outcome "at `y` after `time`" (``y = b``:
    absorbed at b then; ``y = a``: absorbed at a then): absorbed at a before `time`, or
    not absorbed by then and below `y`.

    By the eigenfunctions of the absorbed motion on (a, b) where they converge quickly,
    by the method of images (one image a boundary: Siegmund's approximation) where the
    time is short against the width or the drift strong."""
    width = b - a
    gamma = drift / var
    if var * time / width**2 < 1e-2 or abs(gamma * width) > 15.0:
        sd = math.sqrt(var * time)
        z = (y - drift * time) / sd
        za = (-y + drift * time + 2 * a) / sd
        zb = (y - drift * time - 2 * b) / sd
        total = math.exp(_log_phi(z))
        total += math.exp(min(700.0, 2 * gamma * a + _log_phi(za)))
        total -= math.exp(min(700.0, 2 * gamma * b + _log_phi(zb)))
        return min(1.0, max(0.0, total))
    start, end = -a, y - a  # from the lower bound
    if abs(gamma * width) < 1e-9:
        first = (width - start) / width
    elif gamma > 0:
        first = (math.exp(-2 * gamma * start) - math.exp(-2 * gamma * width)) / (
            1 - math.exp(-2 * gamma * width)
        )
    else:
        first = (math.exp(2 * gamma * (width - start)) - 1) / (math.exp(2 * gamma * width) - 1)
    # P(absorbed at a first) less those absorbed there after `time`, plus those alive
    # below y then: one series, each term's integral in closed form.
    total, n = 0.0, 1
    base = drift * drift / (2 * var)
    while True:
        k = n * math.pi / width
        decay = -(var * k * k / 2 + base) * time + gamma * (end - start)
        term = (
            (2 / width)
            * math.exp(decay)
            * math.sin(k * start)
            * (gamma * math.sin(k * end) - k * math.cos(k * end))
            / (gamma * gamma + k * k)
        )
        total += term
        if n > 3 and abs(math.exp(decay)) * (2 / width) / k < 1e-12:
            break
        n += 1
    return min(1.0, max(0.0, first + total))


def unbiased_means(
    hypotheses: Hypotheses,
    mu0: float,
    mu1: float,
    pairs: int,
    mean: float,
    var: float,
    decision: int,
    confidence: float = CONFIDENCE,
) -> tuple[float, float, float]:
    """The median-unbiased mean of D, and its interval, for a test that counted `pairs`
    with mean `mean` and variance `var` (with the pseudo-pair) and stands at `decision`
    (see the comment above)."""
    a, b = hypotheses.lower, hypotheses.upper
    gap = mu1 - mu0
    llr = pairs * (mean - (mu0 + mu1) / 2) * gap / var  # the normal approximation's
    time = float(pairs)
    if decision == H1 or llr > b:
        time, llr = time * b / llr if llr > b else time, b
    elif decision == H0 or llr < a:
        time, llr = time * a / llr if llr < a else time, a

    def below(m: float) -> float:
        v = var + (m - mean) ** 2
        return outcome_below(a, b, (m - (mu0 + mu1) / 2) * gap / v, gap * gap / v, time, llr)

    def solve(chance: float) -> float:
        low, high = -0.999999, 0.999999  # below() falls from about 1 to about 0 in m
        for _ in range(60):
            middle = 0.5 * (low + high)
            if below(middle) > chance:
                low = middle
            else:
                high = middle
        return 0.5 * (low + high)

    tail = (1 - confidence) / 2
    return solve(0.5), solve(1 - tail), solve(tail)
