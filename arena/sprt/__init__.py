"""A/B tests of a bot: `arena sprt`, a sequential test on duplicate-paired deals.

NEW and OLD each play every deal in the same seat against the same field (or each
other, both ways round, at a table of 2); the paired difference of their scores
feeds a generalised SPRT (`_stats`) whose bounds are stated in the Elo of the
standings. `_plan` says which games are played, `_run` plays them and keeps the test
in its own store (`_store`), and `_simulate` runs the same test on simulated games.
"""

from __future__ import annotations

from arena.sprt._plan import SIDES, Pair, PairGame, Plan
from arena.sprt._report import render
from arena.sprt._run import (
    DEFAULT_MAX_GAMES,
    SprtConfig,
    SprtProgress,
    SprtResult,
    bot_names,
    check_bots,
    run_sprt,
)
from arena.sprt._simulate import (
    Outcome,
    Setting,
    draw_pairs,
    luck_parameter,
    places,
    simulate,
    trigamma,
)
from arena.sprt._stats import (
    GOING,
    H0,
    H1,
    Estimate,
    Hypotheses,
    Tally,
    decide,
    elo_of_difference,
    expected_difference,
    log_likelihood_ratio,
    pair_difference,
    seat_scores,
)
from arena.sprt._store import SprtStore, StoredGame

__all__ = [
    "DEFAULT_MAX_GAMES",
    "GOING",
    "H0",
    "H1",
    "SIDES",
    "Estimate",
    "Hypotheses",
    "Outcome",
    "Pair",
    "PairGame",
    "Plan",
    "Setting",
    "SprtConfig",
    "SprtProgress",
    "SprtResult",
    "SprtStore",
    "StoredGame",
    "Tally",
    "bot_names",
    "check_bots",
    "decide",
    "draw_pairs",
    "elo_of_difference",
    "expected_difference",
    "log_likelihood_ratio",
    "luck_parameter",
    "pair_difference",
    "places",
    "render",
    "run_sprt",
    "seat_scores",
    "simulate",
    "trigamma",
]
