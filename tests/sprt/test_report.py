"""The verdict in words says what the bounds tested (a non-regression test's H1 is not
"NEW is better")."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.sprt import Hypotheses, Tally
from arena.sprt._report import verdict_line
from arena.sprt._run import SprtResult
from arena.sprt._stats import GOING


def decided(elo0: float, elo1: float, d: float) -> SprtResult:
    """A direct test whose every pair ends at `d`, run to its decision."""
    h = Hypotheses(elo0, elo1)
    tally = Tally(h, direct=True)
    while tally.decision == GOING and tally.pairs < 10_000:
        tally.add(d)
    faults: dict[str, Counter[str]] = {r: Counter() for r in ("new", "old", "field")}
    return SprtResult({"new": "a", "old": "b"}, (), 2, h, 20_000, tally, faults)


@pytest.mark.parametrize(
    ("elo0", "elo1", "d", "verdict"),
    [
        (0.0, 10.0, 0.5, "H1 accepted: NEW is better (the games favour NEW - OLD = +10 Elo"),
        (0.0, 10.0, -0.5, "H0 accepted: NEW is not +10 Elo better (the games favour"),
        (-5.0, 0.0, 0.5, "H1 accepted: NEW is not 5 Elo worse (the games favour NEW - OLD = +0"),
        (-5.0, 5.0, 0.5, "H1 accepted: NEW is not 5 Elo worse"),
        (-5.0, 0.0, -0.5, "H0 accepted: NEW is worse (the games favour NEW - OLD = -5 Elo"),
        (-20.0, -10.0, -0.5, "H0 accepted: NEW is more than 10 Elo worse"),
        (5.0, 15.0, 0.5, "H1 accepted: NEW is better"),
    ],
)
def test_the_verdict_says_what_the_bounds_test(
    elo0: float, elo1: float, d: float, verdict: str
) -> None:
    result = decided(elo0, elo1, d)
    assert result.verdict == verdict.split()[0]
    assert verdict_line(result).startswith(verdict)
