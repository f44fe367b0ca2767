"""The golden vectors: byte-exact round trips, accept and reject sets, and freshness."""

from __future__ import annotations

import itertools
import json
from types import ModuleType
from typing import Any

import pytest

import protocol
from protocol import FrameDecoder, ProtocolError, decode_frame, encode_frame

from .conftest import VECTORS, load_index, vector_bytes, vector_json

INDEX = load_index()
CANONICAL = [entry["name"] for entry in INDEX["canonical"]]
ACCEPT = INDEX["accept"]
REJECT = INDEX["reject"]


def test_vectors_are_up_to_date(generator: ModuleType) -> None:
    files = generator.outputs()
    assert generator.stale_files(files) == [], "run: python protocol/vectors/generate.py"
    assert generator.orphan_files(files) == []


def test_every_file_is_indexed() -> None:
    named = {entry["name"] for entry in [*INDEX["canonical"], *ACCEPT, *REJECT]}
    on_disk = {p.stem for p in VECTORS.iterdir() if p.suffix in (".bin", ".json")} - {"index"}
    assert on_disk == named


def test_every_message_type_in_both_directions() -> None:
    seen = {(entry["from"], entry["type"]) for entry in INDEX["canonical"]}
    referee = {("referee", t) for t in protocol.REFEREE_MESSAGE_TYPES}
    bot = {("bot", t) for t in protocol.BOT_MESSAGE_TYPES}
    assert seen == referee | bot


def test_session_order_is_a_valid_session() -> None:
    order = [name for name in INDEX["session"] if name is not None]
    assert order == CANONICAL
    types = [vector_json(name)["type"] for name in order]
    assert types[:2] == ["hello", "hello"]
    assert types[-1] == "bye"
    request_ids = [vector_json(n)["request_id"] for n in order if n.startswith("act_")]
    assert request_ids == sorted(set(request_ids))
    assert request_ids[0] == 1
    for act, answer in itertools.pairwise(order):
        if act.startswith("act_"):
            assert vector_json(answer)["request_id"] == vector_json(act)["request_id"]


@pytest.mark.parametrize("name", CANONICAL)
def test_canonical_round_trip_is_byte_exact(name: str) -> None:
    frame = vector_bytes(name)
    message = vector_json(name)
    assert encode_frame(message) == frame
    assert decode_frame(frame, max_frame=protocol.MAX_REFEREE_FRAME) == message
    assert list(decode_frame(frame)) == list(message)  # key order survives


@pytest.mark.parametrize("name", CANONICAL)
def test_canonical_frames_split_at_every_byte(name: str) -> None:
    frame = vector_bytes(name)
    message = vector_json(name)
    for cut in range(1, len(frame)):
        decoder = FrameDecoder()
        decoder.feed(frame[:cut])
        assert decoder.next_message() is None
        decoder.feed(frame[cut:])
        assert decoder.next_message() == message


def test_referee_vectors_pass_strict_validation() -> None:
    for entry in INDEX["canonical"]:
        if entry["from"] == "referee":
            protocol.validate_referee_message(vector_json(entry["name"]), strict=True)


def _check(name: str, context: dict[str, Any]) -> object:
    decoder = FrameDecoder()
    decoder.feed(vector_bytes(name))
    message = decoder.next_message()
    assert message is not None
    if context["expect"] == "hello":
        return protocol.parse_bot_hello(message)
    return protocol.parse_bot_action(
        message, request_id=context["request_id"], legal_count=context["legal_count"]
    )


@pytest.mark.parametrize("entry", ACCEPT, ids=[e["name"] for e in ACCEPT])
def test_accept_vectors(entry: dict[str, Any]) -> None:
    _check(entry["name"], entry["context"])
    frame = vector_bytes(entry["name"])
    assert decode_frame(frame) == vector_json(entry["name"])


def test_noncanonical_vector_differs_from_canonical_encoding() -> None:
    name = "ok_action_noncanonical"
    assert encode_frame(vector_json(name)) != vector_bytes(name)


@pytest.mark.parametrize("entry", REJECT, ids=[e["name"] for e in REJECT])
def test_reject_vectors(entry: dict[str, Any]) -> None:
    error = getattr(protocol, entry["error"])
    with pytest.raises(ProtocolError) as info:
        _check(entry["name"], entry["context"])
    assert type(info.value) is error
    if entry["cause"] != "startup":
        assert info.value.cause == entry["cause"]
    assert (VECTORS / f"{entry['name']}.json").exists() == entry["json"]
    if entry["json"]:
        assert decode_frame(vector_bytes(entry["name"])) == vector_json(entry["name"])


def test_too_large_vector_is_refused_from_its_prefix_alone() -> None:
    data = vector_bytes("bad_frame_too_large")
    assert len(data) == 4
    decoder = FrameDecoder()
    decoder.feed(data)
    with pytest.raises(protocol.FrameTooLarge):
        decoder.next_message()


def test_index_json_is_plain_json() -> None:
    text = (VECTORS / "index.json").read_text()
    assert json.loads(text) == INDEX
    assert INDEX["protocol"] == protocol.PROTOCOL_VERSION
