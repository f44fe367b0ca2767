"""Message shapes (TypedDicts, in SPEC field order) and the checked path for bot messages.

The TypedDicts describe the plain dicts that go over the wire; they cost nothing at
run time. Build a message with its keys in the order given here (the SPEC order)
and ``encode_frame`` writes the canonical bytes.

The referee reads two kinds of bot message; ``parse_bot_hello`` and
``parse_bot_action`` turn a decoded dict into a frozen value or raise a
``ProtocolError`` whose class says which fault it is (SPEC.md §9.1).
"""

from __future__ import annotations

from collections.abc import Mapping

from protocol._codec import describe
from protocol._constants import MAX_NAME_LENGTH, MSG_ACTION, MSG_HELLO, PROTOCOL_VERSION
from protocol._errors import IllegalChoice, MessageError, ProtocolMismatch
from protocol._typing import Any, Literal, NamedTuple, NoReturn, TypedDict

# -- Referee -> bot (SPEC.md §5) ------------------------------------------------------


class Limits(TypedDict):
    """The session's limits, in the referee's hello (SPEC.md §5.1)."""

    max_frame: int
    startup_ms: int
    decision_ms: int
    exit_grace_ms: int


class RefereeHelloMsg(TypedDict):
    """The referee's first message (SPEC.md §5.1)."""

    type: Literal["hello"]
    protocol: int
    game: str
    arena: str
    limits: Limits


class Options(TypedDict):
    """Rule options of a game (SPEC.md §5.2)."""

    tokens: int
    target: int
    ending: str
    ono_on_tens: bool
    play_cap: int


class GameClock(TypedDict):
    """The clock of a game, in game_start (SPEC.md §5.2, §8.3)."""

    decision_ms: int
    bank_ms: int | None
    increment_ms: int


class GameStartMsg(TypedDict):
    """A game begins (SPEC.md §5.2)."""

    type: Literal["game_start"]
    game_id: str
    seat: int
    players: int
    names: list[str]
    edition: str
    format: str
    options: Options
    hand: list[str]
    clock: GameClock


class Observation(TypedDict):
    """What the seat to move may see (SPEC.md §7.3)."""

    seat: int
    hand: list[str]
    total: int
    direction: int
    to_move: int
    owes: int
    hand_sizes: list[int]
    in_game: list[bool]
    in_round: list[bool]
    face_up: list[list[str]]
    draw_size: int
    discard: list[str]
    scores: list[int] | None
    tokens: list[int] | None
    round: int
    plays: int


class PlayAction(TypedDict):
    """Play one card (SPEC.md §7.2)."""

    kind: Literal["play"]
    card: str


class QuadAction(TypedDict):
    """Discard four ONO 99 (SPEC.md §7.2)."""

    kind: Literal["quad"]


class BustAction(TypedDict):
    """The forced busting play of the points format (SPEC.md §7.2)."""

    kind: Literal["bust"]
    card: str


LegalAction = PlayAction | QuadAction | BustAction
"""One entry of act.legal (SPEC.md §7.2)."""


class RoundStartEvent(TypedDict):
    """A deal begins (SPEC.md §7.4)."""

    type: Literal["round_start"]
    round: int
    starter: int
    hand_sizes: list[int]
    draw_size: int


class PlayEvent(TypedDict):
    """A seat played a card (SPEC.md §7.4)."""

    type: Literal["play"]
    seat: int
    card: str
    total: int


class DrawEvent(TypedDict):
    """A seat drew cards (SPEC.md §7.4)."""

    type: Literal["draw"]
    seat: int
    count: int


class ReshuffleEvent(TypedDict):
    """The discard pile became the draw pile (SPEC.md §7.4)."""

    type: Literal["reshuffle"]
    count: int


class QuadEvent(TypedDict):
    """A seat discarded four ONO 99 (SPEC.md §7.4)."""

    type: Literal["quad"]
    seat: int


class BustEvent(TypedDict):
    """A seat made the busting play of the points format (SPEC.md §7.4)."""

    type: Literal["bust"]
    seat: int
    card: str


class OwesTwoEvent(TypedDict):
    """A seat now owes two cards (SPEC.md §7.4)."""

    type: Literal["owes_two"]
    seat: int


class OutOfRoundEvent(TypedDict):
    """A seat is out of the current round (SPEC.md §7.4)."""

    type: Literal["out_of_round"]
    seat: int


class EliminatedEvent(TypedDict):
    """A seat is out of the game (SPEC.md §7.4)."""

    type: Literal["eliminated"]
    seat: int
    cause: str
    cards: list[str]
    place: int


class TokenLostEvent(TypedDict):
    """A seat lost a token (SPEC.md §7.4)."""

    type: Literal["token_lost"]
    seat: int
    tokens: int


class RoundEndEvent(TypedDict):
    """A round of the points format was scored (SPEC.md §7.4)."""

    type: Literal["round_end"]
    round: int
    hand_points: list[int | None]
    scores: list[int | None]


Event = (
    RoundStartEvent
    | PlayEvent
    | DrawEvent
    | ReshuffleEvent
    | QuadEvent
    | BustEvent
    | OwesTwoEvent
    | OutOfRoundEvent
    | EliminatedEvent
    | TokenLostEvent
    | RoundEndEvent
)
"""One public event (SPEC.md §7.4). Receivers must skip event types they do not know."""


class ActClock(TypedDict):
    """The time for one decision (SPEC.md §5.3, §8.3)."""

    decision_ms: int
    bank_ms: int | None


class ActMsg(TypedDict):
    """A request to choose one of the legal actions (SPEC.md §5.3)."""

    type: Literal["act"]
    request_id: int
    observation: Observation
    events: list[Event]
    clock: ActClock
    legal: list[LegalAction]


class Elimination(TypedDict):
    """A seat that went out of the game, in game_over (SPEC.md §5.4)."""

    seat: int
    cause: str
    place: int


class GameOverMsg(TypedDict):
    """A game ended (SPEC.md §5.4)."""

    type: Literal["game_over"]
    game_id: str
    places: list[int]
    points: list[int] | None
    tokens: list[int] | None
    eliminations: list[Elimination]
    events: list[Event]


class ByeMsg(TypedDict):
    """The session ends; exit (SPEC.md §5.5)."""

    type: Literal["bye"]


RefereeMessage = RefereeHelloMsg | GameStartMsg | ActMsg | GameOverMsg | ByeMsg
"""Any message the referee sends."""

# -- Bot -> referee (SPEC.md §6) ------------------------------------------------------


class BotHelloMsg(TypedDict):
    """The bot's answer to the referee's hello (SPEC.md §6.1)."""

    type: Literal["hello"]
    name: str
    version: str
    protocol: int


class ActionMsg(TypedDict):
    """The bot's answer to an act (SPEC.md §6.2)."""

    type: Literal["action"]
    request_id: int
    choice: int


BotMessage = BotHelloMsg | ActionMsg
"""Any message a bot sends."""


# Named tuples rather than frozen dataclasses: `dataclasses` (with `inspect`, `ast` and
# `dis`) would be a third of the import time of every Python bot on the helper.
class BotHello(NamedTuple):
    """A checked bot hello."""

    name: str
    """The bot's name, 1 to 64 characters."""
    version: str
    """The bot's version, free text."""
    protocol: int
    """Always ``PROTOCOL_VERSION``."""


class BotAction(NamedTuple):
    """A checked action: the index of the chosen legal action."""

    request_id: int
    """Equal to the act's request_id."""
    choice: int
    """A valid 0-based index into the act's legal list."""


def _field(message: Mapping[str, Any], what: str, key: str, kind: type) -> Any:
    try:
        value = message[key]
    except KeyError:
        raise MessageError(f"{what}: missing field {key!r}") from None
    if type(value) is not kind:
        _wrong(what, key, kind.__name__, value)
    return value


def _wrong(what: str, key: str, expected: str, value: object) -> NoReturn:
    raise MessageError(f"{what}.{key}: expected {expected}, got {describe(value)}")


def _check_type(message: Mapping[str, Any], expected: str) -> None:
    kind = _field(message, "message", "type", str)
    if kind != expected:
        raise MessageError(f"expected a {expected!r} message, got type {describe(kind)}")


def parse_bot_hello(message: Mapping[str, Any]) -> BotHello:
    """Check a decoded bot hello (SPEC.md §6.1) and return it as a ``BotHello``.

    The protocol number is checked first, since another version may shape the rest
    differently: a number other than 1 raises ``ProtocolMismatch``. Anything else
    wrong raises ``MessageError``. Unknown keys are ignored.
    """
    _check_type(message, MSG_HELLO)
    protocol = _field(message, "hello", "protocol", int)
    if protocol != PROTOCOL_VERSION:
        raise ProtocolMismatch(
            f"protocol mismatch: the bot speaks protocol {describe(protocol)},"
            f" the referee speaks {PROTOCOL_VERSION}"
        )
    name = _field(message, "hello", "name", str)
    if not 1 <= len(name) <= MAX_NAME_LENGTH:
        _wrong("hello", "name", f"a str of 1 to {MAX_NAME_LENGTH} characters", name)
    version = _field(message, "hello", "version", str)
    return BotHello(name=name, version=version, protocol=protocol)


def parse_bot_action(message: Mapping[str, Any], *, request_id: int, legal_count: int) -> BotAction:
    """Check a decoded action against the act it answers and return a ``BotAction``.

    ``request_id`` and ``legal_count`` come from that act. A wrong type, a missing
    field, a request_id that is not an int or not the act's, or a missing choice
    raise ``MessageError`` (malformed); a choice that is present but not an int in
    ``0 .. legal_count - 1`` raises ``IllegalChoice`` (illegal). Unknown keys are
    ignored.
    """
    _check_type(message, MSG_ACTION)
    got = _field(message, "action", "request_id", int)
    if got != request_id:
        raise MessageError(f"action.request_id: expected {request_id}, got {describe(got)}")
    try:
        choice = message["choice"]
    except KeyError:
        raise MessageError("action: missing field 'choice'") from None
    if type(choice) is not int or not 0 <= choice < legal_count:
        raise IllegalChoice(
            f"action.choice: expected an int in 0..{legal_count - 1}, got {describe(choice)}"
        )
    return BotAction(request_id=got, choice=choice)
