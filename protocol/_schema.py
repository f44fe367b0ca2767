"""Full checks of the messages the referee sends (SPEC.md §5, §7).

Two levels:

- lenient (the default): what a v1 receiver must accept. Unknown keys are ignored
  and the value sets that may grow in a compatible version (SPEC.md §10.2: card
  codes, editions, formats, endings, action kinds, event types, causes) accept any
  str; events of an unknown type need only their "type".
- strict: exactly what a v1 referee sends. Every map has exactly the SPEC fields, in
  SPEC order (so it encodes canonically), every enumerated value is a known one,
  and hands are sorted in card order. Meant for the referee's own tests.

The field tables below are the single source of the SPEC field order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from protocol._codec import describe
from protocol._constants import (
    ACTION_KINDS,
    CARDS,
    CAUSES,
    EDITIONS,
    ENDINGS,
    EVENT_TYPES,
    FORMATS,
    MSG_ACT,
    MSG_BYE,
    MSG_GAME_OVER,
    MSG_GAME_START,
    MSG_HELLO,
    card_rank,
)
from protocol._errors import MessageError
from protocol._messages import RefereeMessage
from protocol._typing import Any, Final, NoReturn, cast

Check = Callable[[object, str, bool], None]
"""A check of one value: (value, path for messages, strict) -> None or MessageError."""


def _fail(path: str, expected: str, value: object) -> NoReturn:
    raise MessageError(f"{path}: expected {expected}, got {describe(value)}")


def _int(low: int | None = None, high: int | None = None) -> Check:
    if low is None:
        expected = "int"
    elif high is None:
        expected = f"int >= {low}"
    else:
        expected = f"int in {low}..{high}"

    def check(value: object, path: str, strict: bool) -> None:
        if type(value) is not int:
            _fail(path, expected, value)
        if (low is not None and value < low) or (high is not None and value > high):
            _fail(path, expected, value)

    return check


def _choice(*values: int) -> Check:
    expected = " or ".join(str(v) for v in values)

    def check(value: object, path: str, strict: bool) -> None:
        if type(value) is not int or value not in values:
            _fail(path, expected, value)

    return check


def _str(min_len: int = 0, max_len: int | None = None) -> Check:
    expected = "str" if not min_len and max_len is None else f"str of {min_len}..{max_len} chars"

    def check(value: object, path: str, strict: bool) -> None:
        if type(value) is not str:
            _fail(path, expected, value)
        if len(value) < min_len or (max_len is not None and len(value) > max_len):
            _fail(path, expected, value)

    return check


def _bool(value: object, path: str, strict: bool) -> None:
    if type(value) is not bool:
        _fail(path, "bool", value)


def _enum(values: tuple[str, ...], what: str, *, open_: bool = True) -> Check:
    """A str from ``values``; any str in lenient mode when the set may grow (``open_``)."""
    known = frozenset(values)

    def check(value: object, path: str, strict: bool) -> None:
        if type(value) is not str:
            _fail(path, what, value)
        if (strict or not open_) and value not in known:
            _fail(path, f"{what} ({', '.join(values)})", value)

    return check


def _literal(expected: str) -> Check:
    def check(value: object, path: str, strict: bool) -> None:
        if value != expected or type(value) is not str:
            _fail(path, repr(expected), value)

    return check


def _nil_or(inner: Check) -> Check:
    def check(value: object, path: str, strict: bool) -> None:
        if value is not None:
            inner(value, path, strict)

    return check


def _list(item: Check, min_len: int = 0) -> Check:
    def check(value: object, path: str, strict: bool) -> None:
        if type(value) is not list:
            _fail(path, "array" if not min_len else f"array of at least {min_len}", value)
        if len(value) < min_len:
            _fail(path, f"array of at least {min_len}", value)
        for index, element in enumerate(value):
            item(element, f"{path}[{index}]", strict)

    return check


Fields = tuple[tuple[str, Check], ...]


def _map(fields: Fields) -> Check:
    names = tuple(name for name, _ in fields)

    def check(value: object, path: str, strict: bool) -> None:
        if type(value) is not dict:
            _fail(path, "map", value)
        mapping = cast(dict[str, Any], value)
        for name, field_check in fields:
            if name not in mapping:
                raise MessageError(f"{path}: missing field {name!r}")
            field_check(mapping[name], f"{path}.{name}", strict)
        if strict and tuple(mapping) != names:
            extra = [key for key in mapping if key not in names]
            if extra:
                raise MessageError(f"{path}: unknown field {describe(extra[0])} (strict)")
            raise MessageError(f"{path}: fields out of SPEC order {list(mapping)} (strict)")

    return check


def _tagged(tag: str, variants: Mapping[str, Fields], what: str) -> Check:
    checks = {name: _map(fields) for name, fields in variants.items()}
    tag_check = _enum(tuple(variants), what)

    def check(value: object, path: str, strict: bool) -> None:
        if type(value) is not dict:
            _fail(path, "map", value)
        mapping = cast(dict[str, Any], value)
        if tag not in mapping:
            raise MessageError(f"{path}: missing field {tag!r}")
        kind = mapping[tag]
        tag_check(kind, f"{path}.{tag}", strict)
        variant = checks.get(kind)
        if variant is not None:
            variant(value, path, strict)

    return check


_CARD: Final = _enum(CARDS, "card code")
_CARDS: Final = _list(_CARD)
_SEAT: Final = _int(0)
_COUNT: Final = _int(0)
_INTS: Final = _list(_int())
_BOOLS: Final = _list(_bool)

LIMITS_FIELDS: Final[Fields] = (
    ("max_frame", _int(1, 0xFFFF_FFFF)),
    ("startup_ms", _int(0)),
    ("decision_ms", _int(1)),
    ("exit_grace_ms", _int(0)),
)

OPTIONS_FIELDS: Final[Fields] = (
    ("tokens", _int(0)),
    ("target", _int(1)),
    ("ending", _enum(ENDINGS, "ending")),
    ("ono_on_tens", _bool),
    ("play_cap", _int(1)),
)

GAME_CLOCK_FIELDS: Final[Fields] = (
    ("decision_ms", _int(1)),
    ("bank_ms", _nil_or(_int(0))),
    ("increment_ms", _int(0)),
)

ACT_CLOCK_FIELDS: Final[Fields] = (
    ("decision_ms", _int(0)),
    ("bank_ms", _nil_or(_int(0))),
)

OBSERVATION_FIELDS: Final[Fields] = (
    ("seat", _SEAT),
    ("hand", _CARDS),
    ("total", _int()),
    ("direction", _choice(1, -1)),
    ("to_move", _SEAT),
    ("owes", _choice(1, 2)),
    ("hand_sizes", _list(_COUNT)),
    ("in_game", _BOOLS),
    ("in_round", _BOOLS),
    ("face_up", _list(_CARDS)),
    ("draw_size", _COUNT),
    ("discard", _CARDS),
    ("scores", _nil_or(_INTS)),
    ("tokens", _nil_or(_list(_COUNT))),
    ("round", _int(1)),
    ("plays", _COUNT),
)

LEGAL_ACTION_FIELDS: Final[Mapping[str, Fields]] = {
    "play": (("kind", _literal("play")), ("card", _CARD)),
    "quad": (("kind", _literal("quad")),),
    "bust": (("kind", _literal("bust")), ("card", _CARD)),
}

_CAUSE: Final = _enum(CAUSES, "cause")
_PLACE: Final = _int(1)

EVENT_FIELDS: Final[Mapping[str, Fields]] = {
    "round_start": (
        ("type", _literal("round_start")),
        ("round", _int(1)),
        ("starter", _SEAT),
        ("hand_sizes", _list(_COUNT)),
        ("draw_size", _COUNT),
    ),
    "play": (("type", _literal("play")), ("seat", _SEAT), ("card", _CARD), ("total", _int())),
    "draw": (("type", _literal("draw")), ("seat", _SEAT), ("count", _COUNT)),
    "reshuffle": (("type", _literal("reshuffle")), ("count", _COUNT)),
    "quad": (("type", _literal("quad")), ("seat", _SEAT)),
    "bust": (("type", _literal("bust")), ("seat", _SEAT), ("card", _CARD)),
    "owes_two": (("type", _literal("owes_two")), ("seat", _SEAT)),
    "out_of_round": (("type", _literal("out_of_round")), ("seat", _SEAT)),
    "eliminated": (
        ("type", _literal("eliminated")),
        ("seat", _SEAT),
        ("cause", _CAUSE),
        ("cards", _CARDS),
        ("place", _PLACE),
    ),
    "token_lost": (("type", _literal("token_lost")), ("seat", _SEAT), ("tokens", _COUNT)),
    "round_end": (
        ("type", _literal("round_end")),
        ("round", _int(1)),
        ("hand_points", _list(_nil_or(_int()))),
        ("scores", _list(_nil_or(_int()))),
    ),
}
assert tuple(EVENT_FIELDS) == EVENT_TYPES
assert tuple(LEGAL_ACTION_FIELDS) == ACTION_KINDS

_EVENTS: Final = _list(_tagged("type", EVENT_FIELDS, "event type"))

ELIMINATION_FIELDS: Final[Fields] = (("seat", _SEAT), ("cause", _CAUSE), ("place", _PLACE))

MESSAGE_FIELDS: Final[Mapping[str, Fields]] = {
    "hello": (
        ("type", _literal(MSG_HELLO)),
        ("protocol", _int(1)),
        ("game", _str()),
        ("arena", _str()),
        ("limits", _map(LIMITS_FIELDS)),
    ),
    "game_start": (
        ("type", _literal(MSG_GAME_START)),
        ("game_id", _str()),
        ("seat", _SEAT),
        ("players", _int(2, 6)),
        ("names", _list(_str())),
        ("edition", _enum(EDITIONS, "edition")),
        ("format", _enum(FORMATS, "format")),
        ("options", _map(OPTIONS_FIELDS)),
        ("hand", _CARDS),
        ("clock", _map(GAME_CLOCK_FIELDS)),
    ),
    "act": (
        ("type", _literal(MSG_ACT)),
        ("request_id", _int(1)),
        ("observation", _map(OBSERVATION_FIELDS)),
        ("events", _EVENTS),
        ("clock", _map(ACT_CLOCK_FIELDS)),
        ("legal", _list(_tagged("kind", LEGAL_ACTION_FIELDS, "action kind"), min_len=1)),
    ),
    "game_over": (
        ("type", _literal(MSG_GAME_OVER)),
        ("game_id", _str()),
        ("places", _list(_PLACE, min_len=1)),
        ("points", _nil_or(_INTS)),
        ("tokens", _nil_or(_list(_COUNT))),
        ("eliminations", _list(_map(ELIMINATION_FIELDS))),
        ("events", _EVENTS),
    ),
    "bye": (("type", _literal(MSG_BYE)),),
}

_MESSAGE_CHECKS: Final = {name: _map(fields) for name, fields in MESSAGE_FIELDS.items()}


def _same_length(path: str, seats: int, **lists: object) -> None:
    for name, value in lists.items():
        if isinstance(value, list) and len(value) != seats:
            raise MessageError(
                f"{path}.{name}: expected one entry per seat ({seats}), got {len(value)}"
            )


def _seat_in_range(path: str, seat: int, seats: int) -> None:
    if seat >= seats:
        raise MessageError(f"{path}: seat {seat} out of range for {seats} seats")


def _sorted_hand(path: str, hand: list[str]) -> None:
    ranks = [card_rank(card) for card in hand]
    if ranks != sorted(ranks):
        raise MessageError(f"{path}: hand not sorted in card order (strict): {describe(hand)}")


def _consistency(message: dict[str, Any], strict: bool) -> None:
    kind = message["type"]
    if kind == MSG_GAME_START:
        seats = message["players"]
        _same_length("game_start", seats, names=message["names"])
        _seat_in_range("game_start.seat", message["seat"], seats)
        if strict:
            _sorted_hand("game_start.hand", message["hand"])
    elif kind == MSG_ACT:
        obs = message["observation"]
        seats = len(obs["hand_sizes"])
        path = "act.observation"
        _same_length(
            path,
            seats,
            in_game=obs["in_game"],
            in_round=obs["in_round"],
            face_up=obs["face_up"],
            scores=obs["scores"],
            tokens=obs["tokens"],
        )
        _seat_in_range(f"{path}.seat", obs["seat"], seats)
        _seat_in_range(f"{path}.to_move", obs["to_move"], seats)
        if strict:
            _sorted_hand(f"{path}.hand", obs["hand"])
    elif kind == MSG_GAME_OVER:
        seats = len(message["places"])
        _same_length("game_over", seats, points=message["points"], tokens=message["tokens"])
        for index, elimination in enumerate(message["eliminations"]):
            _seat_in_range(f"game_over.eliminations[{index}].seat", elimination["seat"], seats)


def validate_referee_message(message: Mapping[str, Any], *, strict: bool = False) -> RefereeMessage:
    """Check a decoded referee message in full (SPEC.md §5, §7) and return it, typed.

    Raises ``MessageError`` naming the first offending field by its path, e.g.
    ``act.observation.hand[2]``. ``strict`` checks what a v1 referee must send
    rather than what a v1 bot must accept (see the module docstring).
    """
    if type(message) is not dict:
        _fail("message", "map", message)
    kind = message.get("type")
    if type(kind) is not str:
        if "type" not in message:
            raise MessageError("message: missing field 'type'")
        _fail("message.type", "str", kind)
    check = _MESSAGE_CHECKS.get(kind)
    if check is None:
        _fail(
            "message.type", "a referee message type (hello, game_start, act, game_over, bye)", kind
        )
    check(message, kind, strict)
    _consistency(message, strict)
    return cast(RefereeMessage, message)
