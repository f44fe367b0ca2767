"""Framing: round trips, incremental decoding split anywhere, bounds, and only ProtocolError."""

from __future__ import annotations

import contextlib
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import (
    DEFAULT_MAX_FRAME,
    FrameDecoder,
    FrameError,
    FrameTooLarge,
    ProtocolError,
    decode_body,
    decode_frame,
    encode_frame,
)

ACTION = {"type": "action", "request_id": 7, "choice": 2}


def frame_of(body: bytes) -> bytes:
    return len(body).to_bytes(4, "big") + body


# Messages as the wire can carry them: str keys, nil/bool/int/str/float/bin, arrays, maps.
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.text(max_size=12)
    | st.floats(allow_nan=False)
    | st.binary(max_size=8)
)
keys = st.text(max_size=8)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=12,
)
messages = st.dictionaries(keys, values, max_size=6)


# -- encode and decode -------------------------------------------------------------


def test_encode_frame_is_a_prefix_and_a_canonical_body() -> None:
    frame = encode_frame(ACTION)
    body = msgpack.packb(ACTION, use_bin_type=True)
    assert frame == len(body).to_bytes(4, "big") + body
    assert frame[:4] == b"\x00\x00\x00\x21"


def test_encode_keeps_insertion_order() -> None:
    a = encode_frame({"type": "x", "a": 1})
    b = encode_frame({"a": 1, "type": "x"})
    assert a != b
    assert decode_frame(a) == decode_frame(b)


def test_encode_refuses_non_dicts() -> None:
    with pytest.raises(TypeError):
        encode_frame([1, 2])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        encode_frame({"x": object()})


@settings(max_examples=50)
@given(messages)
def test_round_trip(message: dict[str, Any]) -> None:
    assert decode_frame(encode_frame(message)) == message


def test_tuples_encode_as_arrays() -> None:
    assert decode_frame(encode_frame({"hand": ("1", "2")})) == {"hand": ["1", "2"]}


# -- decode_body / decode_frame errors ------------------------------------------------


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        (b"", "empty"),
        (b"\x93\x01\x02\x03", "must be a msgpack map"),
        (b"\xa3abc", "must be a msgpack map"),
        (b"\x80\xc0", "left over"),
        (b"\xc1", "not valid msgpack"),
        (b"\x82\xa1a", "not valid msgpack"),
        (b"\x81\x01\x02", "not valid msgpack"),
        (b"\x81\xc4\x01a\x02", "keys must be str"),
        (b"\x81\xa1a\xd4\x05\x00", "ext type 5"),
        (b"\x81\xa1a\xd6\xff\x00\x00\x00\x01", "timestamp"),
        (b"\x81\xa1a\x91\xd6\xff\x00\x00\x00\x01", "timestamp"),
        (b"\xd6\xff\x00\x00\x00\x01", "must be a msgpack map"),
        (b"\x81\xa1\xff\x01", "not valid msgpack"),
        (b"\x82\xa1a\x01\xa1a\x02", "same key twice"),
        (b"\x81\xa1a" + b"\x91" * 5000 + b"\x01", "nested too deeply"),
        (b"\x81\xa1a\xdd\xff\xff\xff\xff", "not valid msgpack"),
    ],
)
def test_bad_bodies(body: bytes, fragment: str) -> None:
    with pytest.raises(FrameError, match=fragment):
        decode_body(body)


@pytest.mark.parametrize("body", [b"\xc1", b"\x81\xa1a\xc1", b"\x81\xa1a\x92\x01\xc1"])
def test_the_byte_msgpack_never_uses_is_named(body: bytes) -> None:
    """SPEC §3.2. msgpack's C unpacker raises FormatError without a word for 0xc1: the
    fault read "frame body is not valid msgpack: " and stopped there."""
    with pytest.raises(FrameError) as caught:
        decode_body(body)
    assert str(caught.value) == (
        "frame body is not valid msgpack: a value begins with the byte 0xc1, which msgpack"
        " never uses"
    )


def test_deep_but_legal_nesting_decodes() -> None:
    body = b"\x81\xa1a" + b"\x91" * 500 + b"\x01"
    value: Any = decode_body(body)["a"]
    for _ in range(500):
        value = value[0]
    assert value == 1


def test_decode_frame_needs_exactly_one_frame() -> None:
    frame = encode_frame(ACTION)
    with pytest.raises(FrameError, match="prefix"):
        decode_frame(frame[:3])
    with pytest.raises(FrameError, match="follow"):
        decode_frame(frame[:-1])
    with pytest.raises(FrameError, match="follow"):
        decode_frame(frame + b"\x00")
    with pytest.raises(FrameError, match="length 0"):
        decode_frame(b"\x00\x00\x00\x00")
    with pytest.raises(FrameTooLarge):
        decode_frame(frame, max_frame=10)


def test_error_messages_are_bounded() -> None:
    with pytest.raises(FrameError) as info:
        decode_body(msgpack.packb("x" * 100_000))
    assert len(str(info.value)) < 200


# -- FrameDecoder ---------------------------------------------------------------------


def test_decoder_returns_none_until_a_frame_is_complete() -> None:
    decoder = FrameDecoder()
    frame = encode_frame(ACTION)
    for byte in frame[:-1]:
        decoder.feed(bytes([byte]))
        assert decoder.next_message() is None
        assert decoder.partial
    decoder.feed(frame[-1:])
    assert decoder.next_message() == ACTION
    assert not decoder.partial
    assert decoder.buffered == 0
    assert decoder.next_message() is None


def test_decoder_yields_several_frames_from_one_chunk() -> None:
    decoder = FrameDecoder()
    messages = [{"type": "t", "n": n} for n in range(5)]
    decoder.feed(b"".join(encode_frame(m) for m in messages))
    assert decoder.pending == 5
    assert list(decoder) == messages


@settings(max_examples=50)
@given(st.lists(messages, min_size=1, max_size=4), st.data())
def test_split_anywhere(batch: list[dict[str, Any]], data: st.DataObject) -> None:
    stream = b"".join(encode_frame(m) for m in batch)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    decoder = FrameDecoder()
    got: list[dict[str, Any]] = []
    for start, stop in zip([0, *cuts], [*cuts, len(stream)], strict=True):
        decoder.feed(stream[start:stop])
        got.extend(decoder)
    assert got == batch
    assert decoder.buffered == 0


def test_every_split_point_of_a_vector_sized_frame() -> None:
    frames = encode_frame(ACTION) + encode_frame({"type": "bye"})
    for cut in range(len(frames) + 1):
        decoder = FrameDecoder()
        decoder.feed(frames[:cut])
        got = list(decoder)
        decoder.feed(frames[cut:])
        got += list(decoder)
        assert got == [ACTION, {"type": "bye"}], cut


def test_memoryview_and_bytearray_input() -> None:
    decoder = FrameDecoder()
    frame = encode_frame(ACTION)
    decoder.feed(bytearray(frame[:5]))
    decoder.feed(memoryview(frame)[5:])
    assert decoder.next_message() == ACTION


def test_oversize_prefix_is_refused_before_the_body_arrives() -> None:
    decoder = FrameDecoder(max_frame=100)
    decoder.feed(b"\x00\x00")
    assert decoder.next_message() is None
    decoder.feed(b"\x00\x65")  # 101: one byte too many; no body byte has arrived
    with pytest.raises(FrameTooLarge) as info:
        decoder.next_message()
    assert (info.value.length, info.value.limit) == (101, 100)
    assert decoder.broken
    assert decoder.buffered == 0
    decoder.feed(b"\x00" * 1000)  # the body, arriving later, is dropped, never buffered
    assert decoder.buffered == 0
    with pytest.raises(FrameTooLarge):  # and the error sticks
        decoder.next_message()


def test_default_limit_for_bot_frames_is_4_kib() -> None:
    decoder = FrameDecoder()
    assert decoder.max_frame == DEFAULT_MAX_FRAME == 4096
    decoder.feed((4096).to_bytes(4, "big"))
    assert decoder.next_message() is None
    decoder = FrameDecoder()
    decoder.feed((4097).to_bytes(4, "big"))
    with pytest.raises(FrameTooLarge):
        decoder.next_message()


def test_frame_of_exactly_max_frame_is_accepted() -> None:
    body = msgpack.packb({"pad": "x" * 90})
    decoder = FrameDecoder(max_frame=len(body))
    decoder.feed(frame_of(body))
    assert decoder.next_message() == {"pad": "x" * 90}


def test_zero_length_breaks_the_stream() -> None:
    decoder = FrameDecoder()
    decoder.feed(b"\x00\x00\x00\x00" + encode_frame(ACTION))
    with pytest.raises(FrameError, match="length 0"):
        decoder.next_message()
    assert decoder.broken


def test_errors_come_in_stream_order() -> None:
    decoder = FrameDecoder(max_frame=64)
    decoder.feed(encode_frame(ACTION) + b"\xff\xff\xff\xff")
    assert decoder.next_message() == ACTION
    with pytest.raises(FrameTooLarge):
        decoder.next_message()


def test_a_broken_body_spoils_only_its_own_frame() -> None:
    decoder = FrameDecoder()
    decoder.feed(frame_of(b"\xc1") + encode_frame(ACTION))
    with pytest.raises(FrameError):
        decoder.next_message()
    assert not decoder.broken
    assert decoder.next_message() == ACTION


def test_buffer_never_exceeds_one_incomplete_frame() -> None:
    limit = 1000
    decoder = FrameDecoder(max_frame=limit)
    body = msgpack.packb({"pad": "y" * (limit - 10)})
    assert len(body) <= limit
    stream = frame_of(body) * 3
    for start in range(0, len(stream), 7):
        decoder.feed(stream[start : start + 7])
        assert decoder.buffered <= limit + 4
        list(decoder)


@pytest.mark.parametrize("limit", [0, -1, 2**32, 1.5, "10"])
def test_bad_limits(limit: Any) -> None:
    with pytest.raises(ValueError, match="max_frame"):
        FrameDecoder(max_frame=limit)


# -- fuzz: random bytes raise nothing but ProtocolError --------------------------------


@settings(max_examples=500)
@given(st.binary(max_size=200))
def test_fuzz_decode_body(data: bytes) -> None:
    try:
        message = decode_body(data)
    except ProtocolError:
        return
    assert type(message) is dict
    assert all(type(key) is str for key in message)


@settings(max_examples=300)
@given(st.lists(st.binary(max_size=40), max_size=8))
def test_fuzz_decoder(chunks: list[bytes]) -> None:
    decoder = FrameDecoder(max_frame=256)
    for chunk in chunks:
        decoder.feed(chunk)
        assert decoder.buffered <= 256 + 4 + len(chunk)
        while True:
            try:
                if decoder.next_message() is None:
                    break
            except ProtocolError:
                if decoder.broken:
                    break


@given(messages, st.integers(0, 40), st.binary(min_size=1, max_size=3))
def test_fuzz_corrupted_frames(message: dict[str, Any], position: int, noise: bytes) -> None:
    frame = bytearray(encode_frame(message))
    position = 4 + position % max(1, len(frame) - 4)
    frame[position : position + len(noise)] = noise
    with contextlib.suppress(ProtocolError):
        decode_frame(bytes(frame), max_frame=1 << 20)


def test_a_decoder_gives_the_bytes_of_a_frame_begun_and_not_finished() -> None:
    """What a sender left mid-frame (or whose prefix promised more than it sent) is
    there to show, prefix and all; nothing once the frame is whole."""
    decoder = FrameDecoder()
    frame = encode_frame({"type": "bye"})
    decoder.feed(frame[:6])
    assert decoder.unfinished() == frame[:6]
    decoder.feed(frame[6:])
    assert decoder.unfinished() == b""
