"""Public events: everything a spectator sees happen, in order (R10.1)."""

from __future__ import annotations

import enum
from typing import Any, NamedTuple

from arena.rules._cards import Card


class Cause(enum.Enum):
    """Why a seat left a round or the game."""

    CANNOT_PLAY = "cannot_play"
    """No legal play when one was due (R5.1, R7.4); in tokens, the last token was lost (R9.2)."""
    BUST = "bust"
    """Reserved: the engine never sets it. A bust (the `Bust` event, R9.3) puts a seat
    out of the round, never out of the game (SPEC §7: the cause the referee never
    sends)."""
    TARGET = "target"
    """Reached the target score of the points format (R9.3.a)."""
    TIMEOUT = "timeout"
    """Set by the caller: the bot did not answer in time."""
    CRASH = "crash"
    """Set by the caller: the bot process died or closed its pipe."""
    MALFORMED = "malformed"
    """Set by the caller: the bot sent bytes that are not a valid message."""
    ILLEGAL = "illegal"
    """Set by the caller: the bot chose no legal action."""

    @property
    def is_fault(self) -> bool:
        """True for the causes set from outside the rules (a bot's fault)."""
        return self in FAULTS


FAULT_ORDER = (Cause.TIMEOUT, Cause.CRASH, Cause.MALFORMED, Cause.ILLEGAL)
"""The causes that are a bot's fault, in the order tables show them: the one place
they are defined (the referee, the league, the store and the tables use these)."""

FAULTS = frozenset(FAULT_ORDER)


class RoundStart(NamedTuple):
    """A round was dealt (R3.1, R9.4)."""

    round: int
    starter: int
    hand_sizes: tuple[int, ...]
    draw_size: int


class Play(NamedTuple):
    """`seat` played `card`; the running total is now `total` (R4.1)."""

    seat: int
    card: Card
    total: int


class Draw(NamedTuple):
    """`seat` drew `count` cards (R4.3); fewer than asked when both piles were empty."""

    seat: int
    count: int  # type: ignore[assignment]  # shadows tuple.count; the wire name is "count"


class Reshuffle(NamedTuple):
    """The discard pile was shuffled into a new draw pile of `count` cards (R4.3)."""

    count: int  # type: ignore[assignment]  # shadows tuple.count; the wire name is "count"


class Quad(NamedTuple):
    """`seat` discarded four ONO 99 cards (R6.3)."""

    seat: int


class Bust(NamedTuple):
    """`seat` made a forced busting play with `card` and is out of the round (R9.3)."""

    seat: int
    card: Card


class OwesTwo(NamedTuple):
    """`seat` must play two cards this turn (R6.6, R7)."""

    seat: int


class OutOfRound(NamedTuple):
    """`seat` could not play, not even a bust, and is out of the points round (R9.3)."""

    seat: int


class Eliminated(NamedTuple):
    """`seat` left the game for `cause`, laying `cards` face up, finishing at `place`."""

    seat: int
    cause: Cause
    cards: tuple[Card, ...]
    place: int


class TokenLost(NamedTuple):
    """`seat` could not play and lost a token; `tokens` are left (R9.2)."""

    seat: int
    tokens: int


class RoundEnd(NamedTuple):
    """A points round ended: each seat's `hand_points` and running `scores` (R9.3)."""

    round: int
    hand_points: tuple[int | None, ...]
    scores: tuple[int | None, ...]


Event = (
    RoundStart
    | Play
    | Draw
    | Reshuffle
    | Quad
    | Bust
    | OwesTwo
    | OutOfRound
    | Eliminated
    | TokenLost
    | RoundEnd
)

EVENT_TYPES: dict[type, str] = {
    RoundStart: "round_start",
    Play: "play",
    Draw: "draw",
    Reshuffle: "reshuffle",
    Quad: "quad",
    Bust: "bust",
    OwesTwo: "owes_two",
    OutOfRound: "out_of_round",
    Eliminated: "eliminated",
    TokenLost: "token_lost",
    RoundEnd: "round_end",
}
_BY_TYPE = {name: cls for cls, name in EVENT_TYPES.items()}


def _plain(value: Any) -> Any:
    if isinstance(value, Card):
        return value.code
    if isinstance(value, Cause):
        return value.value
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def event_to_dict(event: Event) -> dict[str, Any]:
    """The event as a JSON- and msgpack-ready dict: {"type": ..., fields...}, cards as codes."""
    out: dict[str, Any] = {"type": EVENT_TYPES[type(event)]}
    for name, value in zip(event._fields, event, strict=True):
        out[name] = _plain(value)
    return out


def event_from_dict(data: dict[str, Any]) -> Event:
    """Read back a dict written by `event_to_dict`."""
    cls: Any = _BY_TYPE[data["type"]]
    values: list[Any] = []
    for name in cls._fields:
        value = data[name]
        if name == "card":
            value = Card.from_code(value)
        elif name == "cards":
            value = tuple(Card.from_code(c) for c in value)
        elif name == "cause":
            value = Cause(value)
        elif isinstance(value, list):
            value = tuple(value)
        values.append(value)
    event: Event = cls(*values)
    return event
