"""The game's own seeded random number generator.

Python's `random` module only promises `random()` to be stable across versions, not
`shuffle` or `randrange`; a game must replay identically on any machine and any Python
version, so the engine owns a generator with a fixed, standard algorithm: the SHAKE-128
extendable-output function (FIPS 202) over (seed, block counter) gives a stream of
16-bit big-endian words, and an unbiased Fisher-Yates shuffle draws its indices from
them by rejection sampling.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from typing import TypeVar

T = TypeVar("T")

_MASK64 = (1 << 64) - 1
_WORDS = 256  # 16-bit words per block
_UNPACK = struct.Struct(f">{_WORDS}H").unpack
_SPAN = 1 << 16
_LIMITS = [0] + [_SPAN - (_SPAN % n) for n in range(1, _SPAN + 1)]


class Rng:
    """A deterministic stream of random words from a 64-bit seed."""

    __slots__ = ("_counter", "_key", "_pos", "_words")

    def __init__(self, seed: int) -> None:
        self._key = (seed & _MASK64).to_bytes(8, "big")
        self._counter = 0
        self._words: tuple[int, ...] = ()
        self._pos = 0

    def _refill(self) -> None:
        block = hashlib.shake_128(self._key + self._counter.to_bytes(8, "big")).digest(2 * _WORDS)
        self._counter += 1
        self._words = _UNPACK(block)
        self._pos = 0

    def word(self) -> int:
        """The next 16-bit word of the stream."""
        if self._pos == len(self._words):
            self._refill()
        w = self._words[self._pos]
        self._pos += 1
        return w

    def below(self, n: int) -> int:
        """A uniform integer in [0, n) for 1 <= n <= 65536, unbiased (rejection sampling)."""
        if not 1 <= n <= _SPAN:
            raise ValueError(f"below() takes 1 <= n <= {_SPAN}, not {n}")
        limit = _LIMITS[n]
        while True:
            w = self.word()
            if w < limit:
                return w % n

    def shuffle(self, items: list[T]) -> None:
        """Shuffle in place: Fisher-Yates from the end, each index drawn as by `below`."""
        if len(items) > _SPAN:
            raise ValueError(f"shuffle() takes at most {_SPAN} items")
        words, pos = self._words, self._pos
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            limit = _LIMITS[n]
            while True:
                if pos == len(words):
                    self._refill()
                    words, pos = self._words, 0
                w = words[pos]
                pos += 1
                if w < limit:
                    break
            j = w % n
            items[i], items[j] = items[j], items[i]
        self._pos = pos


def keyed_seed(key: str, *parts: int | str) -> int:
    """A 64-bit seed from a secret `key` and public `parts`: HMAC-SHA256, truncated.

    Whoever does not know `key` learns nothing from the parts (a game id, a table
    number) about the seed, nor from one game's seed about another's.
    """
    message = b"".join(repr(part).encode() + b"\x00" for part in parts)
    return int.from_bytes(hmac.digest(key.encode(), message, "sha256")[:8], "big")


def derive_seed(*parts: int | str) -> int:
    """A 64-bit seed derived from a sequence of ints and strings (stable everywhere)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(repr(part).encode())
        h.update(b"\x00")
    return int.from_bytes(h.digest()[:8], "big")
