"""Framing: a 4-byte big-endian length, then one msgpack map (SPEC.md §3).

The fast path works on plain dicts: ``encode_frame`` packs a dict, ``FrameDecoder``
and ``decode_frame`` give dicts back. Checking that a dict is the message it should
be is the business of ``_messages`` and ``_schema``.
"""

from __future__ import annotations

from _thread import _local as _thread_local  # threading.local itself, without threading's import
from collections import deque
from collections.abc import Iterator, Mapping

import msgpack

from protocol._constants import DEFAULT_MAX_FRAME, HEADER_SIZE
from protocol._errors import FrameError, FrameTooLarge, ProtocolError
from protocol._typing import Any, Final

MAX_FRAME_LIMIT: Final = 0xFFFF_FFFF
"""The largest body a 4-byte length prefix can announce."""

Message = dict[str, Any]
"""A decoded message: a dict with str keys, as msgpack gave it."""

_REPR_LIMIT: Final = 40
_local = _thread_local()


def describe(value: object) -> str:
    """Return a short, bounded description of an untrusted value for error messages
    (a value nested past Python's recursion limit, as msgpack allows, is cut short)."""
    try:
        text = repr(value)
    except RecursionError:
        import reprlib  # only here: bots import this module too

        shallow = reprlib.Repr()
        shallow.maxlevel = 8
        text = shallow.repr(value)
    if len(text) > _REPR_LIMIT:
        text = text[: _REPR_LIMIT - 3] + "..."
    return f"{type(value).__name__} {text}"


def encode_frame(message: Mapping[str, object]) -> bytes:
    """Return ``message`` as one frame: length prefix plus msgpack body.

    Keys are written in the dict's insertion order, so a dict built in SPEC field
    order gives the canonical bytes of SPEC.md §3.4. Values must be None, bool, int,
    str, float, bytes, lists, tuples or dicts; anything else raises ``TypeError``,
    as does a ``message`` that is not a dict.
    """
    if not isinstance(message, dict):
        raise TypeError(f"a message must be a dict, not {type(message).__name__}")
    try:
        packer = _local.packer
    except AttributeError:
        # One Packer per thread, reused: msgpack.packb() would build one (and its
        # buffer) for every message, which costs a third of the encoding time.
        packer = _local.packer = msgpack.Packer(use_bin_type=True)
    try:
        body: bytes = packer.pack(message)
    except Exception:
        _local.packer = msgpack.Packer(use_bin_type=True)  # its buffer may be half-written
        raise
    if len(body) > MAX_FRAME_LIMIT:
        raise ValueError(f"message of {len(body)} bytes does not fit in one frame")
    return len(body).to_bytes(HEADER_SIZE, "big") + body


def _reject_ext(code: int, data: bytes) -> object:
    raise FrameError(f"msgpack ext type {code} is not allowed in a message")


def _check_map(pairs: list[tuple[Any, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise FrameError("a map has the same key twice")
    for key, value in pairs:
        if type(key) is not str:
            raise FrameError(f"map keys must be str, got {describe(key)}")
        if type(value) is msgpack.Timestamp:
            raise FrameError("msgpack ext type -1 (timestamp) is not allowed in a message")
    return result


def _check_list(items: list[Any]) -> list[Any]:
    for value in items:
        if type(value) is msgpack.Timestamp:
            raise FrameError("msgpack ext type -1 (timestamp) is not allowed in a message")
    return items


def decode_body(body: bytes | bytearray | memoryview) -> Message:
    """Decode one frame body (without its length prefix) into a dict.

    Raises ``FrameError`` unless the body is exactly one msgpack map with str keys,
    no duplicate keys and no ext types (SPEC.md §3.2).
    """
    if not body:
        raise FrameError("empty frame body")
    try:
        value = msgpack.unpackb(
            body,
            raw=False,
            strict_map_key=True,
            use_list=True,
            object_pairs_hook=_check_map,
            list_hook=_check_list,
            ext_hook=_reject_ext,
        )
    except msgpack.ExtraData:
        raise FrameError("bytes left over after the msgpack map inside the frame") from None
    except msgpack.StackError:
        raise FrameError("msgpack data nested too deeply") from None
    except ProtocolError:
        raise
    except msgpack.FormatError as err:  # msgpack's C unpacker gives it no words
        why = str(err) or "a value begins with the byte 0xc1, which msgpack never uses"
        raise FrameError(f"frame body is not valid msgpack: {why}") from None
    except (ValueError, TypeError, OverflowError, RecursionError, msgpack.UnpackException) as err:
        raise FrameError(f"frame body is not valid msgpack: {err}") from None
    if type(value) is not dict:
        raise FrameError(f"frame body must be a msgpack map, got {describe(value)}")
    return value


def _check_limit(max_frame: int) -> int:
    if type(max_frame) is not int or not 1 <= max_frame <= MAX_FRAME_LIMIT:
        raise ValueError(f"max_frame must be an int in 1..{MAX_FRAME_LIMIT}, got {max_frame!r}")
    return max_frame


def _check_length(length: int, max_frame: int) -> None:
    if length == 0:
        raise FrameError("frame length 0 (a frame holds one non-empty msgpack map)")
    if length > max_frame:
        raise FrameTooLarge(length, max_frame)


def decode_frame(
    frame: bytes | bytearray | memoryview, *, max_frame: int = DEFAULT_MAX_FRAME
) -> Message:
    """Decode exactly one complete frame (length prefix and body) into a dict.

    Raises ``FrameTooLarge`` if the prefix exceeds ``max_frame``, and ``FrameError`` if
    the bytes are not exactly one frame holding one msgpack map.
    """
    _check_limit(max_frame)
    view = memoryview(frame)
    if len(view) < HEADER_SIZE:
        raise FrameError(f"a frame needs a {HEADER_SIZE}-byte length prefix, got {len(view)} bytes")
    length = int.from_bytes(view[:HEADER_SIZE], "big")
    _check_length(length, max_frame)
    if len(view) != HEADER_SIZE + length:
        raise FrameError(
            f"length prefix says {length} bytes, but {len(view) - HEADER_SIZE} bytes follow it"
        )
    return decode_body(view[HEADER_SIZE:])


class FrameDecoder:
    """Split a byte stream into messages, however the bytes arrive.

    ``feed`` the bytes as they come, then call ``next_message`` until it returns None.
    Errors come out of ``next_message`` in stream order: the messages of the frames
    before a bad one first, then the error. A broken body (``FrameError`` from the
    msgpack inside a well-delimited frame) spoils only its own frame. A bad length
    prefix (0, or above ``max_frame``: ``FrameTooLarge``) breaks the stream: it is
    detected as soon as its four bytes are in, the body is never buffered, everything
    fed afterwards is dropped, and ``next_message`` raises the error again on every
    call. The decoder keeps at most ``max_frame + 4`` bytes of an incomplete frame,
    plus the complete frames not yet taken out.

    Decoding costs time linear in the frame's size, but a frame of ``max_frame``
    bytes packed with tiny containers (valid msgpack, e.g. under an unknown key) can
    take the better part of a second per MiB: size ``max_frame`` for what a sender
    legitimately needs.
    """

    __slots__ = ("_buffer", "_error", "_frames", "_max_frame")

    def __init__(self, max_frame: int = DEFAULT_MAX_FRAME) -> None:
        self._max_frame = _check_limit(max_frame)
        self._buffer = bytearray()
        self._frames: deque[bytes | ProtocolError] = deque()
        self._error: ProtocolError | None = None

    @property
    def max_frame(self) -> int:
        """The largest frame body accepted, in bytes."""
        return self._max_frame

    @property
    def buffered(self) -> int:
        """How many bytes of an incomplete frame are held."""
        return len(self._buffer)

    @property
    def pending(self) -> int:
        """How many complete frames (or a stream error) wait for ``next_message``."""
        return len(self._frames)

    @property
    def partial(self) -> bool:
        """Whether part of a frame has arrived but not all of it (useful at EOF)."""
        return bool(self._buffer)

    def unfinished(self) -> bytes:
        """The bytes of a frame begun and not finished (its length prefix, or part of
        it, and as much of its body as came), or b"": what a sender that stopped
        mid-frame, or whose prefix promised more than it sent, left."""
        return bytes(self._buffer)

    @property
    def broken(self) -> bool:
        """Whether a bad length prefix has ended the stream."""
        return self._error is not None

    def feed(self, data: bytes | bytearray | memoryview) -> None:
        """Add bytes from the stream; never raises for any content of ``data``."""
        if self._error is not None:
            return
        buffer = self._buffer
        buffer += data
        start = 0
        end = len(buffer)
        while end - start >= HEADER_SIZE:
            length = int.from_bytes(buffer[start : start + HEADER_SIZE], "big")
            try:
                _check_length(length, self._max_frame)
            except FrameError as err:
                self._error = err
                self._frames.append(err)
                buffer.clear()
                return
            stop = start + HEADER_SIZE + length
            if stop > end:
                break
            self._frames.append(bytes(buffer[start + HEADER_SIZE : stop]))
            start = stop
        if start:
            del buffer[:start]

    def next_message(self) -> Message | None:
        """Return the next complete message, or None if none is complete yet.

        Raises ``FrameError`` (or ``FrameTooLarge``) for the next frame in the
        stream that is broken (see the class docstring).
        """
        frames = self._frames
        if not frames:
            return None
        item = frames[0]
        if isinstance(item, ProtocolError):
            raise item.with_traceback(None)
        frames.popleft()
        return decode_body(item)

    def __iter__(self) -> Iterator[Message]:
        """Yield the complete messages available now."""
        while (message := self.next_message()) is not None:
            yield message
