"""Framed messages over a bot's port, and the one place where lower errors become faults.

Everything the referee does with a bot goes through `Connection`, as steps for a
driver (`Steps`): a port's errors, the codec's `ProtocolError`s and deadlines are
turned here, and only here, into the arena's `BotFault`s (timeout, crash, malformed,
illegal). The same steps serve bot processes under the poll driver and in-memory bots
and fake clocks under the trio driver (`arena.referee._driver`).
"""

from __future__ import annotations

import math
import select
import time
from collections.abc import Callable, Generator, Mapping
from typing import Any, TypeVar

import protocol
from arena.errors import BotCrashed, BotFault, BotIllegal, BotMalformed, BotTimeout
from arena.referee._ports import MemoryBuffer, Port

_IN = select.POLLIN | select.POLLPRI
_OUT = select.POLLOUT

T = TypeVar("T")

Wait = tuple[int | MemoryBuffer, int, float, float | None, Callable[[], None] | None]
"""What steps wait for: a port's target (a descriptor, or an in-memory bot's buffer),
the poll events (in or out), the deadline, and optionally a time and a function for
the driver to call once at that time if the wait still goes on (all times the
driver's)."""

Steps = Generator[Wait, float | None, T]
"""An exchange with bots as a generator: it yields each `Wait`, and is sent the time
the target was found ready, or None once the deadline has passed; it returns its
result. The poll driver so runs many games' steps in one thread, and the trio driver
the same steps in a trio task."""


class Stopped(Exception):
    """The trio side asked a blocking exchange to stop (the game was cancelled)."""


_TEXT = frozenset(range(0x20, 0x7F)) | {0x09, 0x0A, 0x0D}
"""The bytes of printable ASCII text, with tab and newlines."""


_WROTE_TEXT = (
    "the bot wrote text to stdout, which carries only frames; write debugging output to"
    " stderr, SPEC §3.6)"
)


def _text(data: bytes, what: str) -> str:
    """For `data`, bytes where a length prefix belongs (`what` names them), what to do
    if they are text, or begin with a line of text and then what may be the first
    bytes of a prefix (a short line printed before a frame: "3\\n" then 00 00 00 21);
    otherwise ""."""
    if data and set(data) <= _TEXT:
        return f" ({what} are the text {data.decode()!r}: {_WROTE_TEXT}"
    line = data[: data.find(b"\n") + 1]
    if line and set(line) <= _TEXT and data[len(line)] == 0:
        return f" ({what} begin with the text {line.decode()!r}: {_WROTE_TEXT}"
    return ""


def text_on_stdout(err: protocol.ProtocolError) -> str:
    """For a length prefix that is text (a bot that prints to stdout: "got " is a
    length of 1735357472), or begins with a line of text ("3\\n" and two bytes of a
    frame's prefix), what to do about it; otherwise ""."""
    if not isinstance(err, protocol.FrameTooLarge) or not 0 <= err.length < 1 << 32:
        return ""
    return _text(err.length.to_bytes(4, "big"), "those 4 length bytes")


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


Limit = tuple[int, int]
"""The ms a message or an answer was allowed and the grace margin on top, for a
timeout's message."""


def late(missing: str, limit: Limit | None, took_ms: float, *, waited: bool = True) -> str:
    """A timeout's message: what is missing ("no action"), the limit, and the time
    measured (`waited`: nothing complete had come by then; else the answer came, but
    took that long): "no action within 1,000 ms (+50 ms grace): waited 1,050.2 ms"."""
    took = f"{'waited' if waited else 'it took'} {took_ms:,.1f} ms"
    if limit is None:
        return f"{missing} in time: {took}"
    allowed, grace = limit
    if not waited and round(took_ms, 1) <= allowed + grace:  # late by less than 0.05 ms
        took = f"it took {took_ms:,.3f} ms"
    return f"{missing} within {allowed:,} ms (+{grace:,} ms grace): {took}"


_FLUSH = " (a bot must flush stdout after each frame: SPEC §3.6)"


def unfinished_hint(part: bytes, nothing: str = _FLUSH) -> str:
    """What a timeout's message adds of `part`, a frame the bot began and did not finish
    (`Connection.unfinished`): a frame not flushed, or a length prefix that promised more
    than the body has (little-endian, counting characters); `nothing` if none came."""
    if len(part) < 4:
        # A prefix of a frame of 16 MiB or less begins with a 0: 1 to 3 bytes of text
        # ("0\\n", a choice printed) are no frame's, flushed or not.
        if text := _text(part, f"the {len(part)} bytes that came"):
            return text
        return _FLUSH if part else nothing
    return (
        f" ({len(part) - 4:,} bytes of a frame came after a length prefix of"
        f" {int.from_bytes(part[:4], 'big'):,}, and no more: a bot must flush stdout after"
        " each frame, SPEC §3.6, and its prefix counts the bytes of the encoded body,"
        " big-endian, §3.1)"
    )


class Connection:
    """One bot's end of the wire: a message sent, a message received, by a deadline, as
    steps for a driver (see `Steps`) over the bot's `Port`.

    The steps read no clock of their own but the driver's `now` (the poll driver's
    `time.perf_counter`, trio's `current_time` under the trio driver, a test's fake
    clock too), in which deadlines are given and times are measured."""

    def __init__(self, port: Port, *, max_frame: int = protocol.DEFAULT_MAX_FRAME):
        self.port = port
        self._decoder = protocol.FrameDecoder(max_frame)
        self._eof = False
        self._closed = False
        self.sent_at = 0.0
        """When `exchange_steps` began to write its latest message."""
        self.received_at = 0.0
        """When the last bytes of the latest answer of `exchange_steps` were seen."""
        self.last_bytes = b""
        """The last bytes received (up to 64), for fault reports."""

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
            self._remember(data)
            self._decoder.feed(data)

    def _remember(self, data: bytes | bytearray) -> None:
        """Keep the first 64 bytes of `data`, just read, for fault reports; after the
        few bytes of a frame begun in an earlier read ("0\\n" printed, then a frame,
        in two writes), from the frame's start."""
        held = self._decoder.buffered
        if 0 < held < 64:
            self.last_bytes = (self._decoder.unfinished() + data[: 64 - held])[:64]
        else:
            self.last_bytes = bytes(data[:64])

    def pipe_fds(self) -> tuple[int, int] | None:
        """The (write, read) file descriptors of a bot process's pipes, while both are
        open; None for any other port (an in-memory bot)."""
        return None if self._closed else self.port.fds()

    def send_steps(
        self,
        message: dict[str, Any],
        deadline: float,
        *,
        now: Callable[[], float] = time.perf_counter,
        limit: Limit | None = None,
    ) -> Steps[None]:
        """Send one message by `deadline` (a time of `now`), or BotTimeout (worded with
        `limit`, if given); BotCrashed if the pipe is closed."""
        assert not self._closed, "a closed connection is not used"
        port = self.port
        frame = protocol.encode_frame(message)
        start = now()
        written = _write_some(port, frame, message)
        if written < len(frame):  # nearly never: a frame fits in the pipe
            yield from _write_steps(
                port, frame[written:], deadline, message,
                f"did not read its {message.get('type')} message", start,
                now, limit,
            )  # fmt: skip

    def receive_steps(
        self,
        what: str,
        deadline: float,
        since: float,
        *,
        now: Callable[[], float] = time.perf_counter,
        limit: Limit | None = None,
    ) -> Steps[dict[str, Any]]:
        """Receive one message by `deadline` (a time of `now`): BotTimeout then, worded
        with `limit` and the time since `since`; BotCrashed at the end of the output,
        BotMalformed for bad bytes. `what` names the message in fault reports."""
        assert not self._closed, "a closed connection is not used"
        port = self.port
        target = port.read_target
        read = port.read_some
        while (message := self._take(what)) is None:
            if (yield (target, _IN, deadline, None, None)) is None:
                hint = unfinished_hint(self.unfinished())
                raise BotTimeout(f"{late(f'no {what}', limit, (now() - since) * 1000)}{hint}")
            try:
                data = read()
            except BlockingIOError:
                continue
            except OSError as err:
                raise BotCrashed(f"pipe broken while waiting for {what}") from err
            self._got(data)
        return message

    def exchange_steps(
        self,
        message: dict[str, Any] | bytes,
        what: str,
        deadline: float,
        slow: tuple[float, Callable[[], None]] | None = None,
        canonical: tuple[bytes, int] | None = None,
        *,
        now: Callable[[], float] = time.perf_counter,
        limit: Limit | None = None,
    ) -> Steps[dict[str, Any]]:
        """Send `message` (or an act's frame) and receive the answer by `deadline` (a
        time of `now`): the game's one way to ask a bot.

        Raises BotTimeout at the deadline (worded with `limit`, if given: "no action
        within 1,000 ms (+50 ms grace): waited 1,050.2 ms"), BotCrashed, BotMalformed.
        With `slow` (a time, then a function), the driver calls the function once if
        no answer has come by then. The answer took `received_at - sent_at`: from the
        first write of the message to the moment its answer's last bytes were found
        waiting (SPEC §8.2).

        With `canonical` (the frame of an action answering the act, as SPEC §3.4 writes
        it, but for its last byte; then the act's request id), an answer that comes in
        one read as those bytes and a choice under 128 is taken without the decoder.
        """
        assert not self._closed, "a closed connection is not used"
        port = self.port
        read = port.read_some
        decoder = self._decoder
        frame = message if isinstance(message, bytes) else protocol.encode_frame(message)
        # Nothing may have come since the last answer (SPEC §4.1): a bot that wrote its
        # answer before it was asked (its request_id is easy to foresee) would have it
        # taken in no time at all. The frame is made first, so that no more than the
        # call to write comes between this look (one poll that finds nothing) and the act.
        if port.waiting():
            self._read_waiting(read, what)
        if decoder.pending or decoder.partial:
            self._refuse_buffered(what, canonical[1] if canonical is not None else None)
        # The time runs from the first write: a bot that leaves no room in its input
        # (it filled the pipe itself) thinks meanwhile (SPEC §8.2).
        self.sent_at = sent_at = now()
        written = _write_some(port, frame, message)
        if written < len(frame):  # nearly never: a frame fits in the pipe
            yield from _write_steps(
                port, frame[written:], deadline, message, f"no {what}", sent_at, now, limit
            )
        target = port.read_target
        wait: Wait = (target, _IN, deadline, None, None)
        if slow is not None:
            wait = (target, _IN, deadline, *slow)
        # The common case, a quick answer, costs one wait and one read.
        if self._eof:  # the look found the end of its output (the decoder is empty)
            raise BotCrashed(f"closed its output while the referee waited for {what}")
        first = canonical is not None
        while True:
            seen = yield wait
            if seen is None:
                hint = unfinished_hint(decoder.unfinished(), "")
                raise BotTimeout(f"{late(f'no {what}', limit, (now() - sent_at) * 1000)}{hint}")
            try:
                data = read()
            except BlockingIOError:
                continue
            except OSError as err:
                raise BotCrashed(f"pipe broken while waiting for {what}") from err
            self.received_at = seen
            if not data:
                self._eof = True
            else:
                self._remember(data)
                if first:  # the decoder is empty (nothing was buffered before the act)
                    first = False
                    assert canonical is not None
                    prefix, request_id = canonical
                    if len(data) == len(prefix) + 1 and data[-1] < 0x80 and data.startswith(prefix):
                        return {"type": "action", "request_id": request_id, "choice": data[-1]}
                decoder.feed(data)
            if (reply := self._take(what)) is not None:
                return reply

    def _read_waiting(self, read: Callable[[], bytes], what: str) -> None:
        """Take what the bot's output holds now, without waiting for more (EOF is only
        noted, as `_got` does)."""
        try:
            data = read()
        except BlockingIOError:
            return
        except OSError as err:
            raise BotCrashed(f"pipe broken while waiting for {what}") from err
        self._got(data)

    def _refuse_buffered(self, what: str, request_id: int | None = None) -> None:
        """Raise BotMalformed if bytes of the bot wait in the decoder (SPEC §4.1); the
        act about to be sent has `request_id`, if given."""
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
            if not decoder.pending:
                raise BotMalformed(
                    f"{what}: part of a frame ({decoder.buffered:,} bytes) came before it was"
                    " asked for (nothing may come between an answer and the next act: SPEC"
                    " §4.1)",
                    detail=self.last_bytes,
                )
            raise BotMalformed(
                f"{what}: a frame sent before it was asked for{self._early(request_id)}"
                " (nothing may come between an answer and the next act: SPEC §4.1)",
                detail=self.last_bytes,
            )

    def _early(self, request_id: int | None) -> str:
        """What the first frame waiting in the decoder is, when it is an action for the
        act about to be sent (`request_id`: written before its act) or for an act already
        answered (a second answer); otherwise ""."""
        if request_id is None or self._decoder.broken:
            return ""
        try:
            message = self._decoder.next_message()
        except protocol.ProtocolError:
            return ""
        if message is None or message.get("type") != "action":
            return ""
        got = message.get("request_id")
        if type(got) is not int or not 1 <= got <= request_id:
            return ""
        if got == request_id:
            return f": an action for request_id {got}, the act not yet sent"
        return f": an action for request_id {got}, an act already answered"

    def unfinished(self) -> bytes:
        """The bytes of a frame the bot began and did not finish, or b""
        (`protocol.FrameDecoder.unfinished`)."""
        return self._decoder.unfinished()

    def held(self) -> bytes:
        """The bytes received from the bot but not taken as a message, as far as they
        were kept (the last read's first bytes), or b"": what a bot wrote after its last
        answer, in the same write, is only found here once no act follows."""
        if self._decoder.pending or self._decoder.partial:
            return self.last_bytes
        return b""

    async def aclose(self) -> None:
        """Close the port (never raises)."""
        self._closed = True
        await self.port.aclose()


def _kind(message: Mapping[str, Any] | bytes) -> object:
    """The type of a message, for fault reports (a frame made beforehand is an act's)."""
    return "act" if isinstance(message, bytes) else message.get("type")


def _write_steps(
    port: Port,
    frame: bytes,
    deadline: float,
    message: Mapping[str, Any] | bytes,
    missing: str,
    since: float,
    now: Callable[[], float],
    limit: Limit | None,
) -> Steps[None]:
    """Write all of `frame` (of `message`), waiting while the pipe is full; BotTimeout
    at `deadline` (`missing` and the limit, time measured since `since`), BotCrashed if
    the reader has gone."""
    view = memoryview(frame)
    target = port.write_target
    while True:
        written = _write_some(port, view, message)
        if written == len(view):
            return  # nearly always at the first write: a frame fits in the pipe
        view = view[written:]
        if (yield (target, _OUT, deadline, None, None)) is None:
            took = (now() - since) * 1000
            raise BotTimeout(
                f"{late(missing, limit, took)}, its input full"
                f" ({len(view):,} bytes of the {_kind(message)} unwritten)"
            )


def _write_some(port: Port, data: bytes | memoryview, message: Mapping[str, Any] | bytes) -> int:
    """Write what the pipe takes of `data` (of `message`) now (0 when it is full);
    BotCrashed if the reader has gone."""
    try:
        return port.write_some(data)
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
            assert isinstance(fd, int), "drive() waits on pipes only"
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
