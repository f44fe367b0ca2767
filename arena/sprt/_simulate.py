"""The SPRT on simulated games: bots of known Plackett-Luce strength, and dealt luck.

No process and no rules engine: a game is a finishing order drawn from a model, and
the test that judges it is `arena.sprt._stats`, the code `arena sprt` runs.

The model. A Plackett-Luce finishing order is the order of ``θ_s + G_s`` over the
seats, with ``G_s`` independent standard Gumbel noise (the Gumbel-max trick). The
noise is split in two independent parts, ``G = L + E``: ``L`` comes with the deal (the
seat's cards: both games of a duplicate pair share it) and ``E`` with the game (the
play). A standard Gumbel is ``-log`` of an exponential, and by the beta-gamma algebra
an exponential is ``Γ(1 + c) · B(1, c)`` with the two factors independent, so
``L = -log Γ(1 + c)`` and ``E = -log B(1, c)`` do it exactly: every single game is
still Plackett-Luce with strengths θ, so the truth is known on the scale of the
standings, and ``luck``, the share of the noise's variance that is ``L``
(``ψ'(1 + c) / ψ'(1)``, ψ' the trigamma function), says how much the deal decides.

The designs. *Paired*: each pair is one deal, played with NEW and with OLD in the
test seat (or, directly, in both seat orders), as `arena sprt` plays it. *Unpaired*:
the same test on the same number of games, each with a deal of its own.

All tests of one setting run at once, in numpy, a block of pairs at a time; each
stops at the first pair whose LLR crosses a bound, exactly as a real test would.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from arena.ratings import ELO_PER_NAT
from arena.sprt._stats import (
    GOING,
    H0,
    H1,
    FloatArray,
    Hypotheses,
    Tally,
    decide,
    log_likelihood_ratio,
    opponent_results,
    pair_difference,
    seat_scores,
)

_TRIGAMMA_ONE = math.pi**2 / 6.0


def trigamma(x: float) -> float:
    """ψ'(x) for x > 0: the recurrence up to 12, then the asymptotic series."""
    if not x > 0:
        raise ValueError("trigamma needs x > 0")
    total = 0.0
    while x < 12.0:
        total += 1.0 / (x * x)
        x += 1.0
    inv = 1.0 / x
    inv2 = inv * inv
    series = inv * (
        1.0 + inv * (0.5 + inv * (1 / 6 - inv2 * (1 / 30 - inv2 * (1 / 42 - inv2 / 30))))
    )
    return total + series


def luck_parameter(luck: float) -> float:
    """The ``c`` whose deal part ``-log Γ(1 + c)`` has `luck` of the Gumbel variance."""
    if not 0.0 < luck < 1.0:
        raise ValueError("luck is a share of the variance: above 0 and below 1")
    target = luck * _TRIGAMMA_ONE
    low, high = 1e-12, 1e6  # trigamma(1 + c) falls from π²/6 to 0 as c grows
    for _ in range(200):
        mid = math.sqrt(low * high)
        if trigamma(1.0 + mid) > target:
            low = mid
        else:
            high = mid
    return math.sqrt(low * high)


@dataclasses.dataclass(frozen=True, slots=True)
class Setting:
    """One simulated setting: the table, the truth, the luck, the design."""

    table_size: int
    truth: float
    """NEW's Elo minus OLD's."""
    direct: bool = False
    """NEW plays OLD at a table of 2 (no field)."""
    field: tuple[float, ...] | None = None
    """Each field seat's Elo minus OLD's (the seats after the test seat); None: as
    strong as OLD."""
    luck: float = 0.8
    """The share of a game's noise that comes with the deal."""
    field_luck: float | None = None
    """The same for the field seats, whose own play usually brings more of their noise
    (the field's randomness, which no pairing cancels); None: `luck`."""
    paired: bool = True
    """Duplicate pairs; False: every game its own deal."""

    def __post_init__(self) -> None:
        if self.direct and self.table_size != 2:
            raise ValueError("NEW plays OLD directly only at a table of 2")
        if self.field is not None and len(self.field) != self.table_size - 1:
            raise ValueError("give one strength per field seat")


@dataclasses.dataclass(frozen=True, slots=True)
class Outcome:
    """What `runs` tests of one setting did."""

    runs: int
    h1: int
    """Tests that accepted H1."""
    h0: int
    """Tests that accepted H0."""
    games: float
    """Mean games per test (a test stopped by the cap counts its cap)."""
    games_p90: float
    """The 90th percentile of the games per test."""
    estimates: tuple[FloatArray, FloatArray] | None = None
    """With `simulate(estimates=True)`, each test's naive and median-unbiased Elo
    estimates (`Tally.estimate`, `Tally.unbiased`) where it stopped."""

    @property
    def inconclusive(self) -> int:
        return self.runs - self.h1 - self.h0

    @property
    def h1_rate(self) -> float:
        return self.h1 / self.runs


def simulate(
    hypotheses: Hypotheses,
    setting: Setting,
    *,
    runs: int,
    max_pairs: int = 100_000,
    seed: int = 0,
    block: int = 2_000_000,
    estimates: bool = False,
) -> Outcome:
    """Run `runs` tests of `setting` to a decision or `max_pairs` pairs each (with
    `estimates`, also each test's Elo estimates, one test at a time: slower)."""
    rng = np.random.default_rng(seed)
    k = setting.table_size
    if not setting.paired:
        c: float | FloatArray = 0.0
    elif setting.direct or setting.field_luck is None:
        c = luck_parameter(setting.luck)
    else:  # the test seat first, then the field's
        c = np.array(
            [luck_parameter(setting.luck)] + [luck_parameter(setting.field_luck)] * (k - 1)
        )
    field = np.zeros(k - 1) if setting.field is None else np.asarray(setting.field)
    strengths_new = np.concatenate([[setting.truth], field]) / ELO_PER_NAT
    strengths_old = np.concatenate([[0.0], field]) / ELO_PER_NAT
    if setting.direct:  # seat 0: NEW then OLD; seat 1: OLD then NEW
        strengths_new = np.array([setting.truth, 0.0]) / ELO_PER_NAT
        strengths_old = np.array([0.0, setting.truth]) / ELO_PER_NAT
    alive = np.arange(runs)
    pairs = np.zeros(runs, dtype=np.int64)
    grid = 2 * (k - 1)  # every D is a multiple of 1 / grid
    values = np.linspace(-1.0, 1.0, 2 * grid + 1)
    counts = np.zeros((runs, values.size))  # how often each D came
    wins = np.zeros((runs, max(1, k - 1)))  # OLD's results against each field seat
    verdict = np.zeros(runs, dtype=np.intp)
    step = 32  # pairs per round, doubled each round: little is drawn past a decision
    while alive.size and pairs[alive[0]] < max_pairs:
        done = int(pairs[alive[0]])
        chunk = int(min(max_pairs - done, step, max(8, block // (alive.size * k))))
        step *= 2
        shape = (alive.size, chunk, k)
        first, second = draw_pairs(rng, strengths_new, strengths_old, c, shape)
        seat = np.zeros(shape[:2], dtype=np.intp)
        score_a = seat_scores(places(first), False, seat)
        old = opponent_results(places(second), False, seat + 1 if setting.direct else seat)
        score_b = old.sum(axis=-1) / (k - 1)
        diffs = pair_difference(setting.direct, score_a, score_b)
        n = done + np.arange(1, chunk + 1)[None, :]
        seen = np.rint((diffs + 1.0) * grid).astype(np.intp)[..., None] == np.arange(values.size)
        running = counts[alive, None, :] + np.cumsum(seen, axis=1)
        old_wins = wins[alive, None, :] + np.cumsum(old[..., 1:], axis=1)  # the field seats
        old_games = np.broadcast_to(n[..., None], old_wins.shape)
        llr = log_likelihood_ratio(hypotheses, setting.direct, running, values, old_wins, old_games)
        decisions = decide(hypotheses, llr)
        stopped = decisions != GOING
        ends = np.where(stopped.any(axis=1), stopped.argmax(axis=1), chunk - 1)
        rows = np.arange(alive.size)
        pairs[alive] = done + ends + 1
        verdict[alive] = decisions[rows, ends]
        counts[alive] = running[rows, ends]
        wins[alive] = old_wins[rows, ends]
        alive = alive[verdict[alive] == GOING]
    games = 2.0 * pairs
    return Outcome(
        runs=runs,
        h1=int(np.sum(verdict == H1)),
        h0=int(np.sum(verdict == H0)),
        games=float(games.mean()),
        games_p90=float(np.percentile(games, 90)),
        estimates=_estimates(hypotheses, setting, values, counts, wins, pairs)
        if estimates
        else None,
    )


def _estimates(
    hypotheses: Hypotheses,
    setting: Setting,
    values: FloatArray,
    counts: FloatArray,
    wins: FloatArray,
    pairs: npt.NDArray[np.int64],
) -> tuple[FloatArray, FloatArray]:
    """Each test's naive and median-unbiased Elo estimates, from a `Tally` made of what
    it counted (its pairs' differences, OLD's results against the field)."""
    naive, unbiased = [], []
    k = setting.table_size
    for row in range(counts.shape[0]):
        n = int(pairs[row])
        tally = Tally(hypotheses, setting.direct, field=k - 1)
        tally.pairs = n
        tally.total = float(np.sum(values * counts[row]))
        tally.squares = float(np.sum(values**2 * counts[row]))
        tally.old_wins = [float(w) for w in wins[row]]
        tally.old_games = [n] * len(tally.old_wins)
        tally.outcomes = Counter(
            {
                Fraction(float(v)).limit_denominator(1000): int(c)
                for v, c in zip(values, counts[row], strict=True)
                if c
            }
        )
        plain, corrected = tally.estimate(), tally.unbiased()
        assert plain is not None
        assert corrected is not None
        naive.append(plain.elo)
        unbiased.append(corrected.elo)
    return np.array(naive), np.array(unbiased)


def draw_pairs(
    rng: np.random.Generator,
    first: FloatArray,
    second: FloatArray,
    c: float | FloatArray,
    shape: tuple[int, ...],
) -> tuple[FloatArray, FloatArray]:
    """Each seat's value ``θ + L + E`` in the two games of `shape[:-1]` pairs, with
    log-strengths `first` and `second` by seat: the deal part ``L`` shared (``c`` > 0,
    see `luck_parameter`), or every game its own deal (``c`` = 0: plain Gumbel noise).
    Ordered highest first, a game's values give a Plackett-Luce finishing order."""
    if np.all(np.asarray(c) > 0.0):  # (`c` may be one per seat: the last axis)
        luck = -np.log(rng.gamma(1.0 + np.asarray(c), size=shape))
        a = first + luck + _minus_log_beta(rng, c, shape)
        b = second + luck + _minus_log_beta(rng, c, shape)
    else:
        a = first + rng.gumbel(size=shape)
        b = second + rng.gumbel(size=shape)
    return np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)


def _minus_log_beta(
    rng: np.random.Generator, c: float | FloatArray, shape: tuple[int, ...]
) -> FloatArray:
    """``-log B`` for ``B ~ Beta(1, c)``, by inversion: ``B = 1 - U^(1/c)``."""
    u = rng.random(size=shape)
    with np.errstate(divide="ignore"):  # u = 0 (once in 2^53 draws): B = 1, -log B = 0
        return np.asarray(-np.log1p(-np.exp(np.log(u) / c)), dtype=np.float64)


def places(values: FloatArray) -> FloatArray:
    """Finishing places (1 is best) from each seat's value, highest first."""
    above = values[..., None, :] > values[..., :, None]
    return np.asarray(1.0 + above.sum(axis=-1), dtype=np.float64)
