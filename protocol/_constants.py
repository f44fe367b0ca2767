"""The fixed strings and numbers of wire protocol v1 (SPEC.md cites each group)."""

from __future__ import annotations

from collections.abc import Iterable

from protocol._typing import Final

# -- Protocol (SPEC.md §1, §10) ------------------------------------------------------

PROTOCOL_VERSION: Final = 1
"""The protocol number both hellos carry."""

GAME: Final = "ono99"
"""The game name in the referee's hello."""

HEADER_SIZE: Final = 4
"""Bytes of the big-endian length prefix in front of every frame body."""

MAX_NAME_LENGTH: Final = 64
"""The longest bot name, in characters (Unicode code points)."""

# -- Limits and their defaults (SPEC.md §8) -------------------------------------------

DEFAULT_MAX_FRAME: Final = 4_096
"""Default largest frame body the referee accepts from a bot, in bytes (4 KiB): a bot's
messages are a few dozen bytes, and a small limit bounds what decoding one can cost."""

MAX_REFEREE_FRAME: Final = 16_777_216
"""The largest frame body the referee ever sends, in bytes (16 MiB)."""

DEFAULT_STARTUP_MS: Final = 10_000
"""Default time from process start until the bot's hello has arrived."""

DEFAULT_DECISION_MS: Final = 1_000
"""Default time for one decision."""

DEFAULT_GRACE_MS: Final = 50
"""Default grace margin the referee adds to every deadline (not announced to bots)."""

DEFAULT_EXIT_GRACE_MS: Final = 2_000
"""Default time a bot has to exit after bye."""

# -- Message types (SPEC.md §5, §6) --------------------------------------------------

MSG_HELLO: Final = "hello"
MSG_GAME_START: Final = "game_start"
MSG_ACT: Final = "act"
MSG_GAME_OVER: Final = "game_over"
MSG_BYE: Final = "bye"
MSG_ACTION: Final = "action"

REFEREE_MESSAGE_TYPES: Final = (MSG_HELLO, MSG_GAME_START, MSG_ACT, MSG_GAME_OVER, MSG_BYE)
"""Types of the messages the referee sends."""

BOT_MESSAGE_TYPES: Final = (MSG_HELLO, MSG_ACTION)
"""Types of the messages a bot sends."""

# -- Editions, formats, endings (SPEC.md §5.2) ---------------------------------------

EDITION_2022: Final = "2022"
EDITION_1980: Final = "1980"
EDITIONS: Final = (EDITION_2022, EDITION_1980)

FORMAT_SINGLE: Final = "single"
FORMAT_TOKENS: Final = "tokens"
FORMAT_POINTS: Final = "points"
FORMATS: Final = (FORMAT_SINGLE, FORMAT_TOKENS, FORMAT_POINTS)

ENDING_ELIMINATION: Final = "elimination"
ENDING_LOWEST: Final = "lowest"
ENDINGS: Final = (ENDING_ELIMINATION, ENDING_LOWEST)

# -- Card codes (SPEC.md §7.1) -------------------------------------------------------

CARD_ONO_99: Final = "99"
"""ONO 99: unplayable in 2022 (four may be discarded together); see SPEC.md §7.1."""
CARD_REVERSE: Final = "R"
"""Reverse: adds 0 and reverses the direction of play."""
CARD_MINUS_TEN: Final = "-10"
"""-10: subtracts ten from the total."""
CARD_PLAY_TWO: Final = "P2"
"""Play 2 (2022): adds 0; the next player owes two cards."""
CARD_HOLD: Final = "H"
"""Hold (1980): adds 0."""
CARD_DOUBLE_PLAY: Final = "DP"
"""Double Play (1980): adds 0; the next player owes two cards."""

NUMBER_CARDS: Final = ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10")
"""Codes of the number cards, in value order; the code is the decimal value."""

CARDS: Final = (
    *NUMBER_CARDS,
    CARD_ONO_99,
    CARD_REVERSE,
    CARD_MINUS_TEN,
    CARD_PLAY_TWO,
    CARD_HOLD,
    CARD_DOUBLE_PLAY,
)
"""Every card code of v1, in card order: the order hands are sorted in."""

CARDS_2022: Final = frozenset(
    (*NUMBER_CARDS, CARD_ONO_99, CARD_REVERSE, CARD_MINUS_TEN, CARD_PLAY_TWO)
)
"""The codes that occur in the 2022 deck."""

CARDS_1980: Final = frozenset(
    (*NUMBER_CARDS[2:], CARD_HOLD, CARD_REVERSE, CARD_MINUS_TEN, CARD_DOUBLE_PLAY, CARD_ONO_99)
)
"""The codes that occur in the 1980 deck."""

_CARD_RANK: Final = {code: rank for rank, code in enumerate(CARDS)}


def card_rank(code: str) -> int:
    """Return the position of ``code`` in card order; raise KeyError for an unknown code."""
    return _CARD_RANK[code]


def sort_cards(codes: Iterable[str]) -> list[str]:
    """Return the card codes sorted in card order (the order of ``CARDS``)."""
    return sorted(codes, key=_CARD_RANK.__getitem__)


# -- Legal actions (SPEC.md §7.2) ----------------------------------------------------

KIND_PLAY: Final = "play"
"""Play the card named by ``card``."""
KIND_QUAD: Final = "quad"
"""Discard four ONO 99 at once (2022, R6.3)."""
KIND_BUST: Final = "bust"
"""The forced busting play of the points format (R9.3), with ``card``."""
ACTION_KINDS: Final = (KIND_PLAY, KIND_QUAD, KIND_BUST)

# -- Events (SPEC.md §7.4) -----------------------------------------------------------

EVENT_ROUND_START: Final = "round_start"
EVENT_PLAY: Final = "play"
EVENT_DRAW: Final = "draw"
EVENT_RESHUFFLE: Final = "reshuffle"
EVENT_QUAD: Final = "quad"
EVENT_BUST: Final = "bust"
EVENT_OWES_TWO: Final = "owes_two"
EVENT_OUT_OF_ROUND: Final = "out_of_round"
EVENT_ELIMINATED: Final = "eliminated"
EVENT_TOKEN_LOST: Final = "token_lost"
EVENT_ROUND_END: Final = "round_end"
EVENT_TYPES: Final = (
    EVENT_ROUND_START,
    EVENT_PLAY,
    EVENT_DRAW,
    EVENT_RESHUFFLE,
    EVENT_QUAD,
    EVENT_BUST,
    EVENT_OWES_TWO,
    EVENT_OUT_OF_ROUND,
    EVENT_ELIMINATED,
    EVENT_TOKEN_LOST,
    EVENT_ROUND_END,
)

# -- Causes of elimination (SPEC.md §7.5) --------------------------------------------

CAUSE_CANNOT_PLAY: Final = "cannot_play"
CAUSE_BUST: Final = "bust"
CAUSE_TARGET: Final = "target"
CAUSE_TIMEOUT: Final = "timeout"
CAUSE_CRASH: Final = "crash"
CAUSE_MALFORMED: Final = "malformed"
CAUSE_ILLEGAL: Final = "illegal"
CAUSES: Final = (
    CAUSE_CANNOT_PLAY,
    CAUSE_BUST,
    CAUSE_TARGET,
    CAUSE_TIMEOUT,
    CAUSE_CRASH,
    CAUSE_MALFORMED,
    CAUSE_ILLEGAL,
)
FAULT_CAUSES: Final = (CAUSE_TIMEOUT, CAUSE_CRASH, CAUSE_MALFORMED, CAUSE_ILLEGAL)
"""The causes that record a bot's misbehaviour (SPEC.md §9)."""
