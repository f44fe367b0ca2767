"""The ONO 99 rules engine: pure, deterministic, no I/O.

Everything here follows the project's rule book (protocol/RULES.md); comments cite the
rule ids (R4.2, R7.4, ...). Nothing in this package imports trio, msgpack or click.
"""

from __future__ import annotations

from arena.rules._cards import CODES, DECK_COUNTS, NAMES, Card, Edition, deck
from arena.rules._config import FORMAT_OPTIONS, Ending, Format, GameConfig, rules_in_play
from arena.rules._events import (
    EVENT_TYPES,
    FAULT_ORDER,
    FAULTS,
    Bust,
    Cause,
    Draw,
    Eliminated,
    Event,
    OutOfRound,
    OwesTwo,
    Play,
    Quad,
    Reshuffle,
    RoundEnd,
    RoundStart,
    TokenLost,
    event_from_dict,
    event_to_dict,
)
from arena.rules._game import (
    HAND_SIZE,
    MAX_TOTAL,
    POINTS_RULES,
    Action,
    ActionKind,
    Elimination,
    EndReason,
    ExternalElimination,
    Game,
    HistoryEntry,
    Observation,
    Outcome,
)
from arena.rules._rng import Rng, derive_seed, keyed_seed

__all__ = [
    "CODES",
    "DECK_COUNTS",
    "EVENT_TYPES",
    "FAULTS",
    "FAULT_ORDER",
    "FORMAT_OPTIONS",
    "HAND_SIZE",
    "MAX_TOTAL",
    "NAMES",
    "POINTS_RULES",
    "Action",
    "ActionKind",
    "Bust",
    "Card",
    "Cause",
    "Draw",
    "Edition",
    "Eliminated",
    "Elimination",
    "EndReason",
    "Ending",
    "Event",
    "ExternalElimination",
    "Format",
    "Game",
    "GameConfig",
    "HistoryEntry",
    "Observation",
    "OutOfRound",
    "Outcome",
    "OwesTwo",
    "Play",
    "Quad",
    "Reshuffle",
    "Rng",
    "RoundEnd",
    "RoundStart",
    "TokenLost",
    "deck",
    "derive_seed",
    "event_from_dict",
    "event_to_dict",
    "keyed_seed",
    "rules_in_play",
]
