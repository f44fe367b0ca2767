"""The run-time stand-ins of protocol._typing: what a bot gets from the message shapes
and the checked values without importing `typing` (tests/test_layers.py checks that
it is not imported)."""

from __future__ import annotations

import pickle

import pytest

import protocol
from protocol import _typing


def test_a_message_shape_makes_a_plain_dict() -> None:
    made = protocol.ActionMsg(type="action", request_id=3, choice=0)
    assert type(made) is dict
    assert made == {"type": "action", "request_id": 3, "choice": 0}
    assert protocol.Limits({"max_frame": 1}) == {"max_frame": 1}


def test_a_message_shape_keeps_its_fields_in_spec_order() -> None:
    assert list(protocol.ActionMsg.__annotations__) == ["type", "request_id", "choice"]
    assert protocol.ActMsg.__doc__.startswith("A request to choose")


def test_a_message_shape_refuses_isinstance_as_typing_does() -> None:
    with pytest.raises(TypeError, match="TypedDict"):
        isinstance({}, protocol.ActMsg)


def test_the_unions_of_shapes_exist_at_run_time() -> None:
    assert protocol.PlayAction in protocol.LegalAction.__args__
    assert protocol.ByeMsg in protocol.RefereeMessage.__args__


def test_a_checked_value_is_a_named_tuple() -> None:
    hello = protocol.BotHello(name="x", version="1", protocol=1)
    assert hello == ("x", "1", 1)
    assert hello.name == "x"
    assert protocol.BotHello._fields == ("name", "version", "protocol")
    assert repr(protocol.BotAction(2, 0)) == "BotAction(request_id=2, choice=0)"
    assert protocol.BotAction.__module__ == "protocol._messages"
    assert pickle.loads(pickle.dumps(hello)) == hello  # a cluster worker sends them back
    with pytest.raises(AttributeError):
        hello.name = "y"  # type: ignore[misc]


def test_the_run_time_named_tuple_refuses_what_it_cannot_hold() -> None:
    with pytest.raises(TypeError, match="fields only"):

        class WithDefault(_typing.NamedTuple):
            size: int = 3

    with pytest.raises(TypeError, match="fields only"):

        class WithMethod(_typing.NamedTuple):
            size: int

            def double(self) -> int:
                return self.size * 2


def test_cast_returns_its_value() -> None:
    value = object()
    assert _typing.cast(int, value) is value
