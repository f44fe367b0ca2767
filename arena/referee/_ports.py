"""A bot's two byte streams as the referee's steps use them: non-blocking reads and
writes, and something for a driver to wait on.

The steps of a game (`arena.referee._connection`) never block and never read a clock
of their own: they read and write a `Port` at once, and yield what they wait for (its
`read_target` or `write_target`) to a driver, which tells them when it was ready.
A bot process's port is its pipes (`PipePort`): the targets are descriptors, which
the poll driver (`arena.referee._driver`) and trio both wait on. An in-memory bot's
port (`memory_pair`, arena.testing's in-memory bots and check-bot's built-in opponents) is a pair of
byte buffers, which only the trio driver waits on, under any clock, a test's fake one
too. Both behave as pipes do: `read_some` and `write_some` are `os.read` and
`os.write` on non-blocking descriptors (BlockingIOError when there is nothing to
read, or no room; b"" at the end; OSError once the other end has gone).
"""

from __future__ import annotations

import contextlib
import functools
import os
import select
from collections.abc import Callable
from typing import Protocol

import trio

_READ = 65536
"""The most a read takes."""

_ROOM = 65536
"""What a memory buffer holds before a writer waits, as a Linux pipe."""

_IN = select.POLLIN | select.POLLPRI


class Port(Protocol):
    """A bot's input and output, for the steps (see the module's docstring)."""

    read_target: int | MemoryBuffer
    """What a wait for the bot's output is on (a descriptor or a memory buffer)."""
    write_target: int | MemoryBuffer
    """What a wait for room in the bot's input is on."""
    read_some: Callable[[], bytes]
    """What the bot's output holds now (at most 64 KiB), as `os.read` does."""
    write_some: Callable[[bytes | memoryview], int]
    """Write what the bot's input takes of the bytes now, as `os.write` does."""

    waiting: Callable[[], object]
    """Truthy if a read would not block (bytes, or the end of the output, wait)."""

    def fds(self) -> tuple[int, int] | None:
        """The (write, read) descriptors of a bot process's pipes while both are open;
        None for any other port."""
        ...

    async def aclose(self) -> None:
        """Close the referee's end (never raises)."""
        ...


class PipePort:
    """A bot process's pipes: its stdin's write end and its stdout's read end, as trio
    opened them (non-blocking)."""

    def __init__(self, stream: trio.StapledStream[trio.lowlevel.FdStream, trio.lowlevel.FdStream]):
        send, receive = stream.send_stream, stream.receive_stream
        self._stream = stream
        self._send, self._receive = send, receive
        write_fd, read_fd = send.fileno(), receive.fileno()
        self.read_target: int | MemoryBuffer = read_fd
        self.write_target: int | MemoryBuffer = write_fd
        # The calls themselves, for the steps' fast path: no frame of Python between.
        self.read_some: Callable[[], bytes] = functools.partial(os.read, read_fd, _READ)
        self.write_some: Callable[[bytes | memoryview], int] = functools.partial(os.write, write_fd)
        look = select.poll()
        look.register(read_fd, _IN)
        self.waiting: Callable[[], object] = functools.partial(look.poll, 0)

    def fds(self) -> tuple[int, int] | None:
        # Asked each time: a closed stream's number is -1 (trio's), and is not used.
        fds = self._send.fileno(), self._receive.fileno()
        return None if -1 in fds else fds

    async def aclose(self) -> None:
        with (
            trio.CancelScope(shield=True),
            contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError),
        ):
            await self._stream.aclose()


class ClosedPort:
    """The port of a bot that never started: any read or write finds the pipe closed."""

    read_target: int | MemoryBuffer = -1
    write_target: int | MemoryBuffer = -1

    def __init__(self) -> None:
        self.read_some: Callable[[], bytes] = self._read
        self.write_some: Callable[[bytes | memoryview], int] = self._write
        self.waiting: Callable[[], object] = lambda: True

    @staticmethod
    def _read() -> bytes:
        raise BrokenPipeError("the bot never started")

    @staticmethod
    def _write(_: bytes | memoryview) -> int:
        raise BrokenPipeError("the bot never started")

    def fds(self) -> None:
        return None

    async def aclose(self) -> None:
        pass


class MemoryBuffer:
    """One direction of an in-memory bot's wire: bytes a writer put and a reader has
    not taken yet, and the ends that have closed."""

    __slots__ = ("_data", "_lot", "read_closed", "write_closed")

    def __init__(self) -> None:
        self._data = bytearray()
        self._lot = trio.lowlevel.ParkingLot()
        self.read_closed = False
        self.write_closed = False

    def _changed(self) -> None:
        self._lot.unpark_all()

    def readable(self) -> bool:
        return bool(self._data) or self.write_closed or self.read_closed

    def writable(self) -> bool:
        return len(self._data) < _ROOM or self.read_closed

    def read_some(self, limit: int = _READ) -> bytes:
        """As `os.read` on a non-blocking pipe."""
        if self.read_closed:
            raise OSError("read from a closed end")
        if not self._data:
            if self.write_closed:
                return b""
            raise BlockingIOError
        data = bytes(self._data[:limit])
        del self._data[:limit]
        self._changed()
        return data

    def write_some(self, data: bytes | bytearray | memoryview) -> int:
        """As `os.write` on a non-blocking pipe."""
        if self.write_closed:
            raise OSError("write to a closed end")
        if self.read_closed:
            raise BrokenPipeError
        room = _ROOM - len(self._data)
        if room <= 0 and len(data):
            raise BlockingIOError
        taken = min(room, len(data))
        self._data += data[:taken]
        self._changed()
        return taken

    async def wait(self, events: int) -> None:
        """Until a read (`events` has POLLIN) or a write would not block."""
        ready = self.readable if events & _IN else self.writable
        while not ready():
            await self._lot.park()

    def close_read(self) -> None:
        self.read_closed = True
        self._data.clear()
        self._changed()

    def close_write(self) -> None:
        self.write_closed = True
        self._changed()


class MemoryPort:
    """The referee's end of an in-memory bot (see `memory_pair`)."""

    def __init__(self, to_bot: MemoryBuffer, from_bot: MemoryBuffer) -> None:
        self._to_bot, self._from_bot = to_bot, from_bot
        self.read_target: int | MemoryBuffer = from_bot
        self.write_target: int | MemoryBuffer = to_bot
        self.read_some: Callable[[], bytes] = from_bot.read_some
        self.write_some: Callable[[bytes | memoryview], int] = to_bot.write_some
        self.waiting: Callable[[], object] = from_bot.readable

    def fds(self) -> None:
        return None

    async def aclose(self) -> None:
        self._to_bot.close_write()
        self._from_bot.close_read()


class MemoryBotStream(trio.abc.Stream):
    """The bot's end of an in-memory bot: a trio stream (see `memory_pair`)."""

    def __init__(self, to_bot: MemoryBuffer, from_bot: MemoryBuffer) -> None:
        self._to_bot, self._from_bot = to_bot, from_bot

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        view = memoryview(data)
        await trio.lowlevel.checkpoint()
        while view:
            try:
                taken = self._from_bot.write_some(view)
            except BlockingIOError:
                await self._from_bot.wait(select.POLLOUT)
                continue
            except OSError as err:
                raise trio.BrokenResourceError("the referee closed its end") from err
            view = view[taken:]

    async def wait_send_all_might_not_block(self) -> None:
        await self._from_bot.wait(select.POLLOUT)

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        await self._to_bot.wait(_IN)
        try:
            return self._to_bot.read_some(max_bytes or _READ)
        except OSError as err:
            raise trio.ClosedResourceError from err

    async def aclose(self) -> None:
        self._from_bot.close_write()
        self._to_bot.close_read()
        await trio.lowlevel.checkpoint()


def memory_pair() -> tuple[MemoryPort, MemoryBotStream]:
    """An in-memory bot's wire: the referee's port and the bot's trio stream."""
    to_bot, from_bot = MemoryBuffer(), MemoryBuffer()
    return MemoryPort(to_bot, from_bot), MemoryBotStream(to_bot, from_bot)
