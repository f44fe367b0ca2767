"""The checked path: bot hellos and actions, and full checks of referee messages."""

from __future__ import annotations

import contextlib
import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol import (
    BotAction,
    BotHello,
    IllegalChoice,
    MessageError,
    ProtocolError,
    ProtocolMismatch,
    parse_bot_action,
    parse_bot_hello,
    validate_referee_message,
)

from .conftest import vector_json

HELLO = {"type": "hello", "name": "random", "version": "1.0", "protocol": 1}


def action(**fields: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"type": "action", "request_id": 5, "choice": 1}
    message.update(fields)
    return {k: v for k, v in message.items() if v is not ...}


# -- bot hello --------------------------------------------------------------------------


def test_hello() -> None:
    assert parse_bot_hello(HELLO) == BotHello(name="random", version="1.0", protocol=1)


def test_hello_ignores_unknown_keys() -> None:
    assert parse_bot_hello({**HELLO, "author": "me"}).name == "random"


@pytest.mark.parametrize(
    ("change", "error", "fragment"),
    [
        ({"protocol": 2}, ProtocolMismatch, "protocol mismatch"),
        ({"protocol": 0, "name": ""}, ProtocolMismatch, "protocol mismatch"),
        ({"protocol": "1"}, MessageError, "hello.protocol: expected int"),
        ({"protocol": True}, MessageError, "hello.protocol: expected int"),
        ({"protocol": ...}, MessageError, "missing field 'protocol'"),
        ({"name": ""}, MessageError, "1 to 64 characters"),
        ({"name": "x" * 65}, MessageError, "1 to 64 characters"),
        ({"name": b"bytes"}, MessageError, "hello.name"),
        ({"name": ...}, MessageError, "missing field 'name'"),
        ({"version": 1}, MessageError, "hello.version: expected str"),
        ({"version": ...}, MessageError, "missing field 'version'"),
        ({"type": "action"}, MessageError, "expected a 'hello' message"),
        ({"type": ...}, MessageError, "missing field 'type'"),
        ({"type": 1}, MessageError, "message.type: expected str"),
    ],
)
def test_bad_hellos(change: dict[str, Any], error: type[Exception], fragment: str) -> None:
    message = {k: v for k, v in {**HELLO, **change}.items() if v is not ...}
    with pytest.raises(error, match=fragment) as info:
        parse_bot_hello(message)
    assert type(info.value) is error


def test_name_length_counts_characters_not_bytes() -> None:
    assert parse_bot_hello({**HELLO, "name": "é" * 64}).name == "é" * 64


# -- bot action -------------------------------------------------------------------------


def test_action() -> None:
    assert parse_bot_action(action(), request_id=5, legal_count=2) == BotAction(5, 1)
    assert parse_bot_action(action(extra=[1]), request_id=5, legal_count=2).choice == 1


@pytest.mark.parametrize(
    ("message", "fragment"),
    [
        (action(type="hello"), "expected a 'action' message"),
        (action(type=...), "missing field 'type'"),
        (action(request_id=4), "action.request_id: expected 5, got int 4"),
        (action(request_id="5"), "action.request_id: expected int"),
        (action(request_id=5.0), "action.request_id: expected int"),
        (action(request_id=True), "action.request_id: expected int"),
        (action(request_id=...), "missing field 'request_id'"),
        (action(choice=...), "missing field 'choice'"),
    ],
)
def test_malformed_actions(message: dict[str, Any], fragment: str) -> None:
    with pytest.raises(MessageError, match=fragment) as info:
        parse_bot_action(message, request_id=5, legal_count=2)
    assert info.value.cause == "malformed"


@pytest.mark.parametrize("choice", [2, -1, 1.0, True, False, "1", None, [0], 2**64])
def test_illegal_choices(choice: Any) -> None:
    with pytest.raises(IllegalChoice, match=r"action\.choice: expected an int in 0\.\.1") as info:
        parse_bot_action(action(choice=choice), request_id=5, legal_count=2)
    assert info.value.cause == "illegal"


def test_request_id_is_checked_before_choice() -> None:
    with pytest.raises(MessageError):
        parse_bot_action(action(request_id=9, choice=99), request_id=5, legal_count=2)


# -- referee messages -------------------------------------------------------------------

CANONICAL = [
    "referee_hello",
    "game_start_2022_single",
    "act_2022_single",
    "act_1980_points_bust",
    "act_2022_tokens_quad",
    "game_over_1980_points_ties",
    "bye",
]


@pytest.mark.parametrize("name", CANONICAL)
def test_vectors_are_valid_in_both_modes(name: str) -> None:
    message = vector_json(name)
    assert validate_referee_message(message) is message
    validate_referee_message(message, strict=True)


def _edit(message: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    edited = copy.deepcopy(message)
    target: Any = edited
    *parents, last = path.split(".")
    for part in parents:
        target = target[int(part)] if part.isdigit() else target[part]
    if value is ...:
        del target[int(last) if last.isdigit() else last]
    elif last.isdigit():
        target[int(last)] = value
    else:
        target[last] = value
    return edited


@pytest.mark.parametrize(
    ("name", "path", "value", "fragment"),
    [
        ("act_2022_single", "observation.hand.1", 7, r"act\.observation\.hand\[1\]: expected card"),
        ("act_2022_single", "observation.total", "8", r"act\.observation\.total: expected int"),
        ("act_2022_single", "observation.direction", 0, "expected 1 or -1"),
        ("act_2022_single", "observation.owes", 3, "expected 1 or 2"),
        ("act_2022_single", "observation.scores", [1], "one entry per seat"),
        ("act_2022_single", "observation.to_move", 3, "out of range"),
        ("act_2022_single", "observation.plays", ..., "missing field 'plays'"),
        ("act_2022_single", "legal", [], "array of at least 1"),
        ("act_2022_single", "legal.0.kind", 1, "action kind"),
        ("act_2022_single", "legal.0.card", ..., "missing field 'card'"),
        ("act_2022_single", "events.1.type", None, "event type"),
        ("act_2022_single", "events.1.total", None, r"act\.events\[1\]\.total: expected int"),
        ("act_2022_single", "request_id", 0, "int >= 1"),
        ("act_2022_single", "clock.bank_ms", -1, "int >= 0"),
        ("game_start_2022_single", "names", ["a"], "one entry per seat"),
        ("game_start_2022_single", "seat", 3, "out of range"),
        ("game_start_2022_single", "players", 7, "int in 2..6"),
        ("game_start_2022_single", "edition", 2022, "expected edition"),
        ("game_start_2022_single", "options.ono_on_tens", 0, "expected bool"),
        ("game_over_1980_points_ties", "places", [], "array of at least 1"),
        ("game_over_1980_points_ties", "points", [1, 2], "one entry per seat"),
        ("game_over_1980_points_ties", "events.6.scores.0", "x", "expected int"),
        ("referee_hello", "limits.max_frame", 0, "int in 1..4294967295"),
        ("referee_hello", "type", "hi", "a referee message type"),
        ("referee_hello", "type", ..., "missing field 'type'"),
    ],
)
def test_invalid_referee_messages(name: str, path: str, value: Any, fragment: str) -> None:
    message = _edit(vector_json(name), path, value)
    with pytest.raises(MessageError, match=fragment):
        validate_referee_message(message)


def test_not_a_map() -> None:
    with pytest.raises(MessageError, match="expected map"):
        validate_referee_message([])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("observation.hand.0", "J"),  # a card code from a later edition
        ("legal.0.kind", "pass"),  # an action kind from a later version
        ("events.1.type", "sneeze"),  # an event type from a later version
        ("observation.extra", {"new": 1}),  # a key from a later version
    ],
)
def test_lenient_mode_accepts_what_may_grow_strict_mode_does_not(path: str, value: Any) -> None:
    message = _edit(vector_json("act_2022_single"), path, value)
    validate_referee_message(message)
    with pytest.raises(MessageError, match=r"strict|expected"):
        validate_referee_message(message, strict=True)


def test_strict_mode_wants_spec_key_order_and_sorted_hands() -> None:
    message = vector_json("act_2022_single")
    message["clock"] = {"bank_ms": None, "decision_ms": 1000}
    validate_referee_message(message)
    with pytest.raises(MessageError, match="out of SPEC order"):
        validate_referee_message(message, strict=True)
    message = vector_json("game_start_2022_single")
    message["hand"] = ["R", "3", "7", "99"]
    validate_referee_message(message)
    with pytest.raises(MessageError, match="not sorted"):
        validate_referee_message(message, strict=True)


def test_an_exhausted_bank_gives_zero_time_and_is_still_valid() -> None:
    message = vector_json("act_2022_tokens_quad")
    message["clock"] = {"decision_ms": 0, "bank_ms": 0}
    validate_referee_message(message, strict=True)


# -- fuzz: any decoded data gives a value or a ProtocolError, nothing else -----------------

anything = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=5)
    | st.binary(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
FIELDS = ["type", "name", "version", "protocol", "request_id", "choice"]


@given(st.dictionaries(st.sampled_from(FIELDS), anything, max_size=6))
def test_fuzz_bot_message_checks(message: dict[str, Any]) -> None:
    for check in (
        lambda: parse_bot_hello(message),
        lambda: parse_bot_action(message, request_id=1, legal_count=3),
    ):
        with contextlib.suppress(ProtocolError):
            check()


REFEREE_VECTORS = [vector_json(name) for name in CANONICAL]


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


@given(st.sampled_from(REFEREE_VECTORS), st.data(), anything, st.booleans())
def test_fuzz_referee_message_checks(
    vector: dict[str, Any], data: st.DataObject, value: Any, strict: bool
) -> None:
    message = copy.deepcopy(vector)
    path = data.draw(st.sampled_from(_paths(message)[1:]))
    target: Any = message
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    with contextlib.suppress(MessageError):
        validate_referee_message(message, strict=strict)
