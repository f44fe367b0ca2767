"""What crosses between processes: typed, data-only messages and their one codec.

A league hands games to worker processes (and, later, to cluster machines); they talk
in frames (a 4-byte big-endian length, then the body) whose bodies are msgpack
written and read by msgspec from the definitions below, so no encoding is kept by
hand. Every message names its type (a `type` tag); a body that is not exactly one of
the messages expected in that direction, or holds a value of the wrong type, raises
`MessageError`, which says what was wrong and where.

    coordinator -> worker   Setup (once), then Play (several games may be in flight)
    worker -> coordinator   Played (the game id of the Play it answers, in the order
                            the games finish, with the bot processes the worker holds
                            warm then), or Failed

Settings that cross hold data only: `RunSettings` travels as it is, its sandbox as a
name from which each process builds its own wrap (`arena.referee.open_pools`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from arena.bots import BotSpec
from arena.errors import ArenaError
from arena.referee import GameResult, RunSettings
from arena.rules import GameConfig

HEADER = 4
"""Bytes of the length in front of every body."""

MAX_MESSAGE = 1 << 30
"""The largest body either side accepts."""


class MessageError(ArenaError):
    """A message that is not one of those expected, or does not fit its definition."""


class Setup(msgspec.Struct, frozen=True, tag="setup"):
    """The bots, how to run them and the rules, once per worker."""

    bots: tuple[BotSpec, ...]
    settings: RunSettings
    """How the bots run: data only (the sandbox by name; each worker builds its wrap)."""
    config: GameConfig


class Play(msgspec.Struct, frozen=True, tag="play"):
    """Play one game of the schedule."""

    game_id: str
    seats: tuple[str, ...]
    """The bot in each seat, by name."""
    seed: int
    group: str | None
    """The duplicate group (no process plays two games of one)."""
    shown: tuple[str, tuple[str, ...]] | None = None
    """The game id and the name of each seat that the bots see instead of the real
    ones (an SPRT's blind seats), or None."""


class Warm(msgspec.Struct, frozen=True, array_like=True):
    """An idle bot process a worker holds, ready for its next game."""

    bot: str
    groups: tuple[str, ...] = ()
    """The duplicate groups it played a game of (it plays no other game of them)."""


class Played(msgspec.Struct, frozen=True, tag="played"):
    """A finished game: its result (the log left out), its packed replay, when it ran,
    and what the worker holds after it."""

    game_id: str
    result: GameResult
    started: float
    """Unix time."""
    finished: float
    replay: bytes | None = None
    """The replay, packed for the store (`arena.store.pack_replay`)."""
    warm: tuple[Warm, ...] = ()
    """The idle bot processes the worker holds as this game ends (bot by bot, each
    bot's least recently used first): the league's `Dispatch` sends the next games of
    their bots to this worker."""
    launched: dict[str, int] = msgspec.field(default_factory=dict)
    """Bot processes the worker started since its previous answer, by bot."""


class Failed(msgspec.Struct, frozen=True, tag="failed"):
    """The worker could not go on (its set-up failed, say); it exits after this."""

    message: str
    game_id: str | None = None


ToWorker = Setup | Play
FromWorker = Played | Failed


def _enc_hook(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    raise NotImplementedError(f"no message encoding for {type(value).__name__}")


def _dec_hook(kind: type, value: Any) -> Any:
    if kind is Path and isinstance(value, str):
        return Path(value)
    raise NotImplementedError(f"no message decoding for {kind}")


_ENCODER = msgspec.msgpack.Encoder(enc_hook=_enc_hook)


def encode(message: msgspec.Struct) -> bytes:
    """One message as a frame."""
    body = _ENCODER.encode(message)
    return len(body).to_bytes(HEADER, "big") + body


class Reader:
    """Frames in, messages of `kind` (one of the unions above) out, however the bytes
    are split."""

    def __init__(self, kind: Any, what: str) -> None:
        self._decoder = msgspec.msgpack.Decoder(kind, dec_hook=_dec_hook)
        self._what = what
        self._buffer = bytearray()

    def feed(self, data: bytes | bytearray) -> None:
        self._buffer += data

    def next(self) -> Any:
        """The next whole message, or None until one has arrived; raises MessageError."""
        if len(self._buffer) < HEADER:
            return None
        size = int.from_bytes(self._buffer[:HEADER], "big")
        if size > MAX_MESSAGE:
            raise MessageError(f"{self._what}: a frame of {size} bytes, over {MAX_MESSAGE}")
        if len(self._buffer) < HEADER + size:
            return None
        body = bytes(self._buffer[HEADER : HEADER + size])
        del self._buffer[: HEADER + size]
        try:
            return self._decoder.decode(body)
        except (msgspec.ValidationError, msgspec.DecodeError) as err:
            raise MessageError(f"{self._what}: not a message it understands ({err})") from None
