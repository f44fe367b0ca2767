"""Ratings from finishing orders: the Plackett–Luce fit, its intervals, sequential Elo.

This package knows nothing of bots, games or stores: it takes finishing orders
(groups of tied player names, best first) and returns numbers. `arena.standings`
turns game records into these orders and the numbers into tables.
"""

from __future__ import annotations

from arena.ratings._plackett_luce import (
    DEFAULT_PRIOR,
    ELO_PER_NAT,
    MAX_TIE,
    BootstrapResult,
    FinishingOrders,
    NoEstimateError,
    PlackettLuceFit,
    Ranking,
    bootstrap_plackett_luce,
    fit_plackett_luce,
    likelihood_of_superiority,
)
from arena.ratings._sequential import DEFAULT_K_FACTOR, expected_score, sequential_elo

__all__ = [
    "DEFAULT_K_FACTOR",
    "DEFAULT_PRIOR",
    "ELO_PER_NAT",
    "MAX_TIE",
    "BootstrapResult",
    "FinishingOrders",
    "NoEstimateError",
    "PlackettLuceFit",
    "Ranking",
    "bootstrap_plackett_luce",
    "expected_score",
    "fit_plackett_luce",
    "likelihood_of_superiority",
    "sequential_elo",
]
