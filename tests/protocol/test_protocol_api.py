"""The public surface: one front door, an error tree with docstrings, consistent constants."""

from __future__ import annotations

import inspect
import subprocess
import sys

import protocol
import protocol.bot
from protocol import _errors


def test_all_names_exist_and_nothing_else_is_public() -> None:
    for name in protocol.__all__:
        assert hasattr(protocol, name), name
    public = {name for name in dir(protocol) if not name.startswith("_")}
    submodules = {"bot"}  # protocol.bot is imported on demand and may show up as an attribute
    assert public - set(protocol.__all__) - submodules <= {"annotations"}
    assert len(protocol.__all__) == len(set(protocol.__all__))


def test_public_names_live_in_private_modules() -> None:
    for name in protocol.__all__:
        module = getattr(getattr(protocol, name), "__module__", None)
        if isinstance(module, str) and module.startswith("protocol"):
            assert module.split(".")[1].startswith("_"), (name, module)


def test_bot_helper_exports() -> None:
    for name in protocol.bot.__all__:
        assert hasattr(protocol.bot, name), name


def test_error_tree() -> None:
    assert issubclass(protocol.FrameError, protocol.ProtocolError)
    assert issubclass(protocol.FrameTooLarge, protocol.FrameError)
    assert issubclass(protocol.MessageError, protocol.ProtocolError)
    assert issubclass(protocol.ProtocolMismatch, protocol.MessageError)
    assert issubclass(protocol.IllegalChoice, protocol.ProtocolError)
    assert not issubclass(protocol.IllegalChoice, protocol.MessageError)
    assert protocol.IllegalChoice.cause == "illegal"
    for cls in (protocol.FrameError, protocol.FrameTooLarge, protocol.MessageError):
        assert cls.cause == "malformed"


def test_every_error_has_a_one_line_docstring_and_is_in_the_tree_drawing() -> None:
    tree = _errors.__doc__ or ""
    for _, cls in inspect.getmembers(_errors, inspect.isclass):
        if issubclass(cls, Exception):
            doc = cls.__doc__ or ""
            assert doc, cls
            assert "\n" not in doc.strip(), cls
            assert cls.__name__ in tree, cls


def test_card_constants_are_consistent() -> None:
    assert len(protocol.CARDS) == len(set(protocol.CARDS)) == 17
    assert set(protocol.CARDS) == protocol.CARDS_2022 | protocol.CARDS_1980
    assert protocol.CARD_PLAY_TWO not in protocol.CARDS_1980
    assert protocol.CARD_HOLD not in protocol.CARDS_2022
    assert protocol.CARD_DOUBLE_PLAY not in protocol.CARDS_2022
    assert {"0", "1"}.isdisjoint(protocol.CARDS_1980)
    assert protocol.sort_cards(["R", "10", "-10", "99", "2"]) == ["2", "10", "99", "R", "-10"]
    assert [protocol.card_rank(c) for c in protocol.CARDS] == list(range(17))


def test_enumerations() -> None:
    assert set(protocol.FAULT_CAUSES) < set(protocol.CAUSES)
    assert len(protocol.EVENT_TYPES) == 11
    assert protocol.ACTION_KINDS == ("play", "quad", "bust")
    assert set(protocol.REFEREE_MESSAGE_TYPES) & set(protocol.BOT_MESSAGE_TYPES) == {"hello"}


def test_importing_protocol_pulls_in_only_msgpack() -> None:
    code = "import sys, protocol, protocol.bot; print('\\n'.join(sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    for forbidden in ("trio", "click", "arena", "tabulate", "numpy", "asyncio"):
        assert forbidden not in out, forbidden
