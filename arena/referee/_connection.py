"""Framed messages over a byte stream, and the one place where lower errors become faults.

Everything the referee does with a bot goes through `Connection`: trio's stream errors,
the codec's `ProtocolError`s and deadlines are turned here, and only here, into the
arena's `BotFault`s (timeout, crash, malformed, illegal).
"""

from __future__ import annotations

import contextlib
import math
import os
import select
import time
from collections.abc import Callable, Generator, Mapping
from typing import Any, TypeVar

import trio

import protocol
from arena.errors import BotCrashed, BotFault, BotIllegal, BotMalformed, BotTimeout

_READ = 65536
_IN = select.POLLIN | select.POLLPRI
_OUT = select.POLLOUT

T = TypeVar("T")

Wait = tuple[int, int, float, float | None, Callable[[], None] | None]
"""What steps wait for: a descriptor, the poll events (in or out), the deadline, and
optionally a time and a function for the driver to call once at that time if the wait
still goes on (all times `time.perf_counter()` times)."""

Steps = Generator[Wait, float | None, T]
"""A blocking exchange with bots as a generator: it yields each `Wait`, and is sent the
time the descriptor was found ready, or None once the deadline has passed; it returns
its result. A driver can so run many games' steps in one thread."""


class Stopped(Exception):
    """The trio side asked a blocking exchange to stop (the game was cancelled)."""


_TEXT = frozenset(range(0x20, 0x7F)) | {0x09, 0x0A, 0x0D}
"""The bytes of printable ASCII text, with tab and newlines."""


def text_on_stdout(err: protocol.ProtocolError) -> str:
    """For a length prefix that is text (a bot that prints to stdout: "got " is a
    length of 1735357472), what to do about it; otherwise ""."""
    if not isinstance(err, protocol.FrameTooLarge) or not 0 <= err.length < 1 << 32:
        return ""
    prefix = err.length.to_bytes(4, "big")
    if not set(prefix) <= _TEXT:
        return ""
    return (
        f" (those 4 length bytes are the text {prefix.decode()!r}: the bot wrote text to"
        " stdout, which carries only frames; write debugging output to stderr, SPEC §3.6)"
    )


def fault_from_protocol(err: protocol.ProtocolError, what: str) -> BotFault:
    """The fault for a codec error: `IllegalChoice` is illegal, the rest malformed. The
    message names `what` once: many of the codec's own already begin with it ("action:
    missing field 'choice'", "action.request_id: ...")."""
    text = str(err)
    if not text.startswith((f"{what}:", f"{what}.")):
        text = f"{what}: {text}"
    if isinstance(err, protocol.IllegalChoice):
        return BotIllegal(text)
    return BotMalformed(text)


class Connection:
    """One bot's end of the wire: send a message, receive a message, with deadlines."""

    def __init__(self, stream: trio.abc.Stream, *, max_frame: int = protocol.DEFAULT_MAX_FRAME):
        self._stream = stream
        self._decoder = protocol.FrameDecoder(max_frame)
        self._eof = False
        self._look: select.poll | None = None
        self._look_fd = -1
        """A poll of the bot's output alone, for the look before each act."""
        self._pipes: tuple[trio.lowlevel.FdStream, trio.lowlevel.FdStream] | None = None
        """The streams of a bot process's pipes, once `pipe_fds` has found them."""
        self.sent_at = 0.0
        """When `exchange_steps` began to write its latest message."""
        self.received_at = 0.0
        """When the last bytes of the latest answer of `exchange_steps` were seen."""
        self.last_bytes = b""
        """The last bytes received (up to 64), for fault reports."""

    async def _send(self, message: Mapping[str, Any] | bytes) -> None:
        try:
            if isinstance(message, bytes):
                frame = message
            else:
                frame = protocol.encode_frame(
                    message if isinstance(message, dict) else dict(message)
                )
            await self._stream.send_all(frame)
        except (trio.BrokenResourceError, trio.ClosedResourceError) as err:
            raise BotCrashed(f"pipe closed while sending {_kind(message)}") from err

    async def send(self, message: Mapping[str, Any], deadline: float) -> None:
        """Send one message by the trio time `deadline`; raises BotTimeout or BotCrashed."""
        with trio.move_on_at(deadline) as scope:
            await self._send(message)
        if scope.cancelled_caught:
            raise BotTimeout(f"did not read its {message.get('type')} message in time")

    async def receive(self, deadline: float, what: str) -> dict[str, Any]:
        """Receive one message by the trio time `deadline`.

        Raises BotTimeout, BotCrashed (end of stream) or BotMalformed (bad bytes).
        `what` names the expected message in fault reports.
        """
        with trio.move_on_at(deadline):
            return await self._receive(what)
        raise BotTimeout(f"no {what} in time")

    async def exchange(self, message: dict[str, Any] | bytes, what: str) -> dict[str, Any]:
        """Send `message` (or an act's frame) and receive the answer, under the caller's
        cancel scope.

        Raises BotMalformed, before sending, if the bot has sent anything since its
        last answer (SPEC §4.1), as `exchange_steps` does."""
        fds = self.pipe_fds()
        if fds is not None:
            self._read_waiting(fds[1], what)  # no trio task reads it now: it is ours
        self._refuse_buffered(what)
        await self._send(message)
        return await self._receive(what)

    def _take(self, what: str) -> dict[str, Any] | None:
        """The next message already received, or None; raises at the end of the stream."""
        decoder = self._decoder
        try:
            message = decoder.next_message()
        except protocol.ProtocolError as err:
            raise BotMalformed(
                f"{what}: {err}{text_on_stdout(err)}", detail=self.last_bytes
            ) from err
        if message is None and self._eof:
            partial = " (in the middle of a frame)" if decoder.partial else ""
            raise BotCrashed(f"closed its output while the referee waited for {what}{partial}")
        return message

    def _got(self, data: bytes | bytearray) -> None:
        if not data:
            self._eof = True
        else:
            self.last_bytes = bytes(data[:64])
            self._decoder.feed(data)

    async def _receive(self, what: str) -> dict[str, Any]:
        while (message := self._take(what)) is None:
            try:
                data = await self._stream.receive_some(_READ)
            except (trio.BrokenResourceError, trio.ClosedResourceError) as err:
                raise BotCrashed(f"pipe broken while waiting for {what}") from err
            self._got(data)
        return message

    def pipe_fds(self) -> tuple[int, int] | None:
        """The (write, read) file descriptors of a bot process's pipes, while both are
        open; None for any other stream (an in-memory bot, a test's wrapper)."""
        pipes = self._pipes
        if pipes is None:
            stream = self._stream
            if not isinstance(stream, trio.StapledStream):
                return None
            send, receive = stream.send_stream, stream.receive_stream
            if not (
                isinstance(send, trio.lowlevel.FdStream)
                and isinstance(receive, trio.lowlevel.FdStream)
            ):
                return None
            pipes = self._pipes = (send, receive)
        try:  # asked each time: a closed stream says so here, and its number is not used
            return pipes[0].fileno(), pipes[1].fileno()
        except trio.ClosedResourceError:
            return None

    def send_steps(self, message: dict[str, Any], deadline: float) -> Steps[None]:
        """`send` as steps for a driver (see `Steps`): by `deadline`, a
        `time.perf_counter()` time, or BotTimeout; BotCrashed if the pipe is closed."""
        fds = self.pipe_fds()
        assert fds is not None
        late = f"did not read its {message.get('type')} message in time"
        frame = protocol.encode_frame(message)
        yield from _write_steps(frame, fds[0], deadline, late, message)

    def exchange_steps(
        self,
        message: dict[str, Any] | bytes,
        what: str,
        deadline: float,
        slow: tuple[float, Callable[[], None]] | None = None,
        canonical: tuple[bytes, int] | None = None,
    ) -> Steps[dict[str, Any]]:
        """`exchange` as steps for a driver (see `Steps`): send `message` (or an act's
        frame) and receive the answer by `deadline` (a `time.perf_counter()` time). Only
        for a connection with `pipe_fds()`, while no trio task uses it.

        Raises the same faults, with the same messages, as `exchange` under a cancel
        scope with that deadline (BotTimeout "no {what} in time"). With `slow` (a
        `perf_counter` time, then a function), the driver calls the function once if
        no answer has come by then. The answer took `received_at - sent_at`: from the
        first write of the message to its answer's last bytes found waiting.

        With `canonical` (the frame of an action answering the act, as SPEC §3.4 writes
        it, but for its last byte; then the act's request id), an answer that comes in
        one read as those bytes and a choice under 128 is taken without the decoder.
        """
        fds = self.pipe_fds()
        assert fds is not None
        write_fd, read_fd = fds
        decoder = self._decoder
        frame = message if isinstance(message, bytes) else protocol.encode_frame(message)
        # Nothing may have come since the last answer (SPEC §4.1): a bot that wrote its
        # answer before it was asked (its request_id is easy to foresee) would have it
        # taken in no time at all. The frame is made first, so that no more than the
        # call to write comes between this look (one poll that finds nothing) and the act.
        look = self._look
        if look is None or self._look_fd != read_fd:
            look = self._look = select.poll()
            look.register(read_fd, _IN)
            self._look_fd = read_fd
        if look.poll(0):
            self._read_waiting(read_fd, what)
        if decoder.pending or decoder.partial:
            self._refuse_buffered(what)
        # The time runs from the first write: a bot that leaves no room in its input
        # (it filled the pipe itself) thinks meanwhile (SPEC §8.2).
        self.sent_at = time.perf_counter()
        written = _write_some(write_fd, frame, message)
        if written < len(frame):  # nearly never: a frame fits in the pipe
            late = f"no {what} in time"
            yield from _write_steps(frame[written:], write_fd, deadline, late, message)
        wait: Wait = (read_fd, _IN, deadline, None, None)
        if slow is not None:
            wait = (read_fd, _IN, deadline, *slow)
        # The common case, a quick answer, costs one wait and one read.
        if self._eof:  # the look found the end of its output (the decoder is empty)
            raise BotCrashed(f"closed its output while the referee waited for {what}")
        first = canonical is not None
        while True:
            seen = yield wait
            if seen is None:
                raise BotTimeout(f"no {what} in time")
            try:
                data = os.read(read_fd, _READ)
            except BlockingIOError:
                continue
            except OSError as err:
                raise BotCrashed(f"pipe broken while waiting for {what}") from err
            self.received_at = seen
            if not data:
                self._eof = True
            else:
                self.last_bytes = data[:64]
                if first:  # the decoder is empty (nothing was buffered before the act)
                    first = False
                    assert canonical is not None
                    prefix, request_id = canonical
                    if len(data) == len(prefix) + 1 and data[-1] < 0x80 and data.startswith(prefix):
                        return {"type": "action", "request_id": request_id, "choice": data[-1]}
                decoder.feed(data)
            if (reply := self._take(what)) is not None:
                return reply

    def _read_waiting(self, read_fd: int, what: str) -> None:
        """Take what the bot's output holds now, without waiting for more (EOF is only
        noted, as `_got` does)."""
        try:
            data = os.read(read_fd, _READ)
        except BlockingIOError:
            return
        except OSError as err:
            raise BotCrashed(f"pipe broken while waiting for {what}") from err
        self._got(data)

    def _refuse_buffered(self, what: str) -> None:
        """Raise BotMalformed if bytes of the bot wait in the decoder (SPEC §4.1)."""
        decoder = self._decoder
        if decoder.pending or decoder.partial:
            hint = ""
            if decoder.broken:  # a bad length prefix: text printed to stdout, say
                try:
                    while decoder.next_message() is not None:
                        pass
                except protocol.ProtocolError as err:
                    hint = text_on_stdout(err)
            if hint:
                raise BotMalformed(
                    f"{what}: bytes that are no frame came before it was asked for{hint}",
                    detail=self.last_bytes,
                )
            raise BotMalformed(
                f"{what}: a frame sent before it was asked for (nothing may come between"
                " an answer and the next act: SPEC §4.1)",
                detail=self.last_bytes,
            )

    def held(self) -> bytes:
        """The bytes received from the bot but not taken as a message, as far as they
        were kept (the last read's first bytes), or b"": what a bot wrote after its last
        answer, in the same write, is only found here once no act follows."""
        if self._decoder.pending or self._decoder.partial:
            return self.last_bytes
        return b""

    async def aclose(self) -> None:
        """Close the stream (never raises)."""
        with (
            trio.CancelScope(shield=True),
            contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError),
        ):
            await self._stream.aclose()


def _kind(message: Mapping[str, Any] | bytes) -> object:
    """The type of a message, for fault reports (a frame made beforehand is an act's)."""
    return "act" if isinstance(message, bytes) else message.get("type")


def _write_steps(
    frame: bytes, write_fd: int, deadline: float, late: str, message: Mapping[str, Any] | bytes
) -> Steps[None]:
    """Write all of `frame` (of `message`), waiting while the pipe is full;
    BotTimeout(late) at `deadline`, BotCrashed if the reader has gone."""
    view = memoryview(frame)
    while True:
        written = _write_some(write_fd, view, message)
        if written == len(view):
            return  # nearly always at the first write: a frame fits in the pipe
        view = view[written:]
        if (yield (write_fd, _OUT, deadline, None, None)) is None:
            raise BotTimeout(late)


def _write_some(write_fd: int, data: bytes | memoryview, message: Mapping[str, Any] | bytes) -> int:
    """Write what the pipe takes of `data` (of `message`) now (0 when it is full);
    BotCrashed if the reader has gone."""
    try:
        return os.write(write_fd, data)
    except BlockingIOError:
        return 0
    except OSError as err:
        raise BotCrashed(f"pipe closed while sending {_kind(message)}") from err


def drive(steps: Steps[T], stop_fd: int) -> T:
    """Run `steps` alone in this thread, with blocking waits; raise `Stopped` as soon as
    `stop_fd` becomes readable. (The referee drives many games' steps at once in one
    thread, `arena.referee._driver`; this is the same for one, as tests use it.)"""
    try:
        wait = next(steps)
        while True:
            fd, events, deadline, slow_at, slow = wait
            poller = select.poll()
            poller.register(fd, events)
            poller.register(stop_fd, _IN)
            while True:
                now = time.perf_counter()
                if now >= deadline:
                    seen = None
                    break
                if slow_at is not None and now >= slow_at:
                    assert slow is not None
                    slow()
                    slow_at = None
                wake = deadline if slow_at is None else min(slow_at, deadline)
                ready = poller.poll(math.ceil((wake - now) * 1000))
                if any(fd == stop_fd for fd, _ in ready):
                    raise Stopped
                if ready:
                    seen = time.perf_counter()
                    break
            wait = steps.send(seen)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    finally:
        steps.close()
