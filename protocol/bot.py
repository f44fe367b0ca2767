"""Write a Python bot in ten lines: the session loop of SPEC.md §4, done once.

    from protocol.bot import run

    def choose(act):
        legal = act["legal"]          # the legal actions, SPEC.md §7.2
        return 0                      # the index of the one you pick

    run(choose, name="first-legal")

``run`` speaks the protocol on the process's stdin and stdout with blocking reads,
answers the referee's hello, calls ``choose`` for every act and writes the action,
calls the optional hooks for the other messages, and returns after bye or when
stdin closes (with ``exit_at_end=True``, it ends the process there instead).
While it runs, ``print`` goes to stderr (stdout carries only frames), and stderr
is the place for diagnostics: the referee keeps a bounded log of it.
"""

from __future__ import annotations

import atexit
import operator
import os
import sys
from collections.abc import Callable

from protocol._codec import Message, decode_body, encode_frame
from protocol._constants import (
    HEADER_SIZE,
    MAX_NAME_LENGTH,
    MAX_REFEREE_FRAME,
    MSG_ACT,
    MSG_BYE,
    MSG_GAME_OVER,
    MSG_GAME_START,
    MSG_HELLO,
    PROTOCOL_VERSION,
    REFEREE_MESSAGE_TYPES,
)
from protocol._errors import FrameError, FrameTooLarge, MessageError
from protocol._messages import (
    ActionMsg,
    ActMsg,
    BotHelloMsg,
    GameOverMsg,
    GameStartMsg,
    RefereeHelloMsg,
)
from protocol._schema import validate_referee_message
from protocol._typing import Any, Protocol, cast

__all__ = ["Reader", "Writer", "read_message", "run", "write_message"]


class Reader(Protocol):
    """A binary stream to read from, such as ``sys.stdin.buffer``."""

    def read(self, size: int, /) -> bytes: ...


class Writer(Protocol):
    """A binary stream to write to, such as ``sys.stdout.buffer``."""

    def write(self, data: bytes, /) -> int: ...

    def flush(self) -> None: ...


def _read_exact(stream: Reader, size: int) -> bytes:
    """Read exactly ``size`` bytes; fewer only if the stream ends first."""
    data = stream.read(size)
    if len(data) == size or not data:
        return data
    parts = [data]
    missing = size - len(data)
    while missing:
        chunk = stream.read(missing)
        if not chunk:
            break
        parts.append(chunk)
        missing -= len(chunk)
    return b"".join(parts)


def read_message(stream: Reader, *, max_frame: int = MAX_REFEREE_FRAME) -> Message | None:
    """Read one frame from a blocking stream and return its message as a dict.

    Returns None at the end of the stream (between frames). Raises ``FrameError``
    if the stream ends inside a frame or the frame is broken, ``FrameTooLarge`` for
    a length prefix above ``max_frame``.
    """
    header = _read_exact(stream, HEADER_SIZE)
    if not header:
        return None
    if len(header) < HEADER_SIZE:
        raise FrameError("the stream ended inside a length prefix")
    length = int.from_bytes(header, "big")
    if length == 0:
        raise FrameError("frame length 0 (a frame holds one non-empty msgpack map)")
    if length > max_frame:
        raise FrameTooLarge(length, max_frame)
    body = _read_exact(stream, length)
    if len(body) < length:
        raise FrameError(f"the stream ended after {len(body)} of {length} body bytes")
    return decode_body(body)


def write_message(stream: Writer, message: ActionMsg | BotHelloMsg | Message) -> None:
    """Write one message as a frame and flush the stream."""
    stream.write(encode_frame(message))
    stream.flush()


def _log(text: str) -> None:
    print(f"protocol.bot: {text}", file=sys.stderr, flush=True)


def _index(choice: object, count: int) -> int:
    """Turn what ``choose`` returned into a checked index, or explain the mistake."""
    try:
        if isinstance(choice, bool):
            raise TypeError
        index = operator.index(choice)  # type: ignore[arg-type]
    except TypeError:
        raise ValueError(
            f"choose() returned {choice!r}; it must return an int index into act['legal']"
        ) from None
    if not 0 <= index < count:
        raise ValueError(f"choose() returned {index}; act['legal'] has indexes 0..{count - 1}")
    return index


def run(
    choose: Callable[[ActMsg], int],
    *,
    name: str,
    version: str = "1.0",
    on_hello: Callable[[RefereeHelloMsg], Any] | None = None,
    on_game_start: Callable[[GameStartMsg], Any] | None = None,
    on_game_over: Callable[[GameOverMsg], Any] | None = None,
    check: bool = True,
    stdin: Reader | None = None,
    stdout: Writer | None = None,
    exit_at_end: bool = False,
) -> None:
    """Play a whole session on stdin/stdout: hello, games, bye (SPEC.md §4).

    ``choose(act)`` gets each act message (SPEC.md §5.3) and returns the index of
    its choice in ``act["legal"]``. The hooks get the message of the same name.
    ``check`` validates every referee message in full first (about 0.1 ms per
    act); messages of an unknown type are skipped (SPEC.md §10). Returns after
    bye or at the end of stdin; raises ``ProtocolError`` for a broken stream and
    ``ValueError`` if ``choose`` returns something that is not a legal index.
    ``stdin`` and ``stdout`` replace the process's streams (for tests); when
    stdout is the real one, ``sys.stdout`` points to stderr while ``run`` runs, so
    a stray ``print`` cannot corrupt the stream.

    With ``exit_at_end``, the session's normal end (bye, or the end of stdin) ends
    the process at once with status 0: the ``atexit`` functions run and stdout and
    stderr are flushed, but the interpreter's teardown, several milliseconds of CPU
    time, is skipped (``os._exit``), and nothing after ``run(...)`` runs. A league
    that starts a process per game saves that for every process, and the end of a
    match waits less. An error still raises as without it.
    """
    if not 1 <= len(name) <= MAX_NAME_LENGTH:
        raise ValueError(f"a bot name has 1 to {MAX_NAME_LENGTH} characters, got {name!r}")
    reader: Reader = sys.stdin.buffer if stdin is None else stdin
    writer: Writer = sys.stdout.buffer if stdout is None else stdout
    saved_stdout = sys.stdout
    if stdout is None:
        sys.stdout = sys.stderr
    try:
        _session(
            choose, name, version, on_hello, on_game_start, on_game_over, check, reader, writer
        )
    except BrokenPipeError:
        _log("stdout closed by the referee; stopping")
    finally:
        sys.stdout = saved_stdout
    if exit_at_end:
        _exit_now()


def _exit_now() -> None:
    """End the process with status 0 the quick way: what `atexit` holds (logging's
    shutdown, say) and flushing the standard streams, but no interpreter teardown."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:  # noqa: SIM105 (contextlib costs a Python bot's start 1.5 ms)
            stream.flush()
        except (OSError, ValueError):  # closed by the referee or the bot
            pass
    os._exit(0)


def _session(
    choose: Callable[[ActMsg], int],
    name: str,
    version: str,
    on_hello: Callable[[RefereeHelloMsg], Any] | None,
    on_game_start: Callable[[GameStartMsg], Any] | None,
    on_game_over: Callable[[GameOverMsg], Any] | None,
    check: bool,
    reader: Reader,
    writer: Writer,
) -> None:
    first = read_message(reader)
    if first is None:
        return
    if first.get("type") != MSG_HELLO:
        raise MessageError(f"the referee's first message must be hello, got {first.get('type')!r}")
    if check:
        validate_referee_message(first)
    hello = cast(RefereeHelloMsg, first)
    if hello.get("protocol") != PROTOCOL_VERSION:
        _log(f"the referee speaks protocol {hello.get('protocol')!r}, this helper speaks 1")
    if on_hello is not None:
        on_hello(hello)
    answer: BotHelloMsg = {
        "type": "hello",
        "name": name,
        "version": version,
        "protocol": PROTOCOL_VERSION,
    }
    write_message(writer, answer)
    while (message := read_message(reader)) is not None:
        kind = message.get("type")
        if kind not in REFEREE_MESSAGE_TYPES:
            _log(f"skipping a message of unknown type {kind!r}")
            continue
        if check:
            validate_referee_message(message)
        if kind == MSG_ACT:
            act = cast(ActMsg, message)
            index = _index(choose(act), len(act["legal"]))
            action: ActionMsg = {"type": "action", "request_id": act["request_id"], "choice": index}
            write_message(writer, action)
        elif kind == MSG_GAME_START:
            if on_game_start is not None:
                on_game_start(cast(GameStartMsg, message))
        elif kind == MSG_GAME_OVER:
            if on_game_over is not None:
                on_game_over(cast(GameOverMsg, message))
        elif kind == MSG_BYE:
            return
        else:
            raise MessageError("the referee sent a second hello")
