"""A game's replay as the store keeps it: zlib-compressed JSON lines, unpacked to a
bounded size."""

from __future__ import annotations

import functools
import json
import json.encoder
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import msgspec


def _json_line() -> Callable[[dict[str, Any]], str]:
    """`json.dumps(record, separators=(",", ":"))`, its C encoder made once: json.dumps
    makes an encoder and its C encoder again at every call. The same text; without the
    check for a circular reference, which a log of JSON-ready records never has."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # no C accelerator (another Python)
        return functools.partial(json.dumps, separators=(",", ":"))
    encode = make(
        None, json.JSONEncoder().default, json.encoder.encode_basestring_ascii, None,
        ":", ",", False, False, True,
    )  # fmt: skip
    return lambda record: "".join(encode(record, 0))


_line = _json_line()
_lines = msgspec.json.Encoder().encode_lines

CHUNK = 2048
"""Records msgspec writes in one call. A call holds the GIL throughout, and the thread
that referees a worker's other games (`arena.referee._driver`) takes the time of an
answer it finds only once it has the GIL back: the replay of a game of 28,000 plays
(89,000 records) written in one call charged decisions of a game played meanwhile in
the same worker up to 186 ms each. Between calls the GIL changes hands (every 5 ms)."""


def pack_replay(log: Sequence[dict[str, Any]]) -> bytes:
    """A replay log as the store keeps it: zlib-compressed JSON lines, ASCII only.

    msgspec writes the lines, three times as fast as json's C encoder (a 2-seat game's
    replay of about 110 records: 0.11 ms against 0.33 ms, a twentieth of the game's
    CPU in a league of instant bots). It writes text beyond ASCII as it is, and a line
    separator of Unicode (U+2028, in a fault message, say) would then split a record in
    two when read; so a log with such text is written by json, which escapes it. A
    record never holds a NaN or an infinity (msgspec would write null). A long log is
    written `CHUNK` records at a time."""
    if len(log) <= CHUNK:
        text = _lines(log)
    else:
        text = b"".join([_lines(log[at : at + CHUNK]) for at in range(0, len(log), CHUNK)])
    text = text[:-1]  # without the last line's newline, as json's lines below
    if not text.isascii():
        text = "\n".join(map(_line, log)).encode()
    return zlib.compress(text, 6)


REPLAY_LIMIT = 64 * 2**20
"""The most a replay may unpack to: the longest games' replays are a few MiB. A store
can be anyone's (a league's published results), and a zlib stream of 64 KiB can hold
a GiB of zeros."""


def inflate(blob: bytes, limit: int = REPLAY_LIMIT) -> bytes:
    """The bytes of a zlib stream that unpacks to at most `limit` bytes; zlib.error if
    it is not a whole stream, ValueError if it unpacks to more."""
    inflater = zlib.decompressobj()
    data = inflater.decompress(blob, limit)
    if inflater.unconsumed_tail or (not inflater.eof and inflater.decompress(b"", 1)):
        raise ValueError(f"a replay of more than {limit // 2**20} MiB")
    if not inflater.eof:
        raise zlib.error("incomplete or truncated stream")
    return data


def unpack_replay(blob: bytes) -> list[dict[str, Any]]:
    """Read back `pack_replay`; ValueError or zlib.error if the bytes are not one (or
    unpack to more than `REPLAY_LIMIT`, or nest deeper than the JSON parser recurses)."""
    text = inflate(blob).decode()
    # One parse for all lines (JSON escapes the newlines inside strings).
    try:
        records = json.loads("[" + ",".join(text.splitlines()) + "]")
    except RecursionError:  # "[" * 100000: a store can be anyone's
        raise ValueError("a replay whose JSON is nested too deeply") from None
    if not isinstance(records, list):
        raise ValueError("not a replay")
    return records
