"""A bot the referee can play with: a connection after a successful handshake."""

from __future__ import annotations

import contextlib
import itertools
from typing import Any

import trio

import protocol
from arena.bots import BotProcess
from arena.errors import BotFault
from arena.referee import _driver, _wire
from arena.referee._clocks import Clocks
from arena.referee._connection import Connection, Steps, fault_from_protocol


class BotSession:
    """One bot process (or in-memory fake) that has said hello, ready for games."""

    def __init__(
        self,
        name: str,
        connection: Connection,
        *,
        process: BotProcess | None = None,
    ) -> None:
        self.name = name
        """The bot's name in results (not the name it gives in its hello)."""
        self.connection = connection
        self.process = process
        """The OS process behind the connection, or None for an in-memory bot."""
        self.hello: protocol.BotHello | None = None
        """The bot's checked hello, once the handshake is done."""
        self.fault: BotFault | None = None
        """The fault that broke this session, if one did."""
        self.games = 0
        """Games started with this session."""
        self.groups: dict[str, None] = {}
        """The duplicate groups it has played a game of (it plays no other game of them),
        in the order it played them (a set that keeps its order: a worker reports the
        latest, `BotPool.warm`)."""
        self._latest: tuple[int, int, tuple[str, ...]] = (0, 0, ())
        """`latest`'s answer, with how many groups it was made of and its `most`."""
        self._request_id = 0
        self._closed = False

    def latest(self, most: int) -> tuple[str, ...]:
        """The latest `most` groups it played a game of, sorted: made again only after it
        played another (a worker reports them with every result, `BotPool.warm`)."""
        made, of, latest = self._latest
        if (made, of) != (len(self.groups), most):
            latest = tuple(sorted(itertools.islice(reversed(self.groups), most)))
            self._latest = (len(self.groups), most, latest)
        return latest

    @property
    def broken(self) -> bool:
        """True once the session has faulted or been closed: it plays no more."""
        return self.fault is not None or self._closed

    @property
    def request_id(self) -> int:
        """The latest request id given (0 before the first)."""
        return self._request_id

    def next_request_id(self) -> int:
        """A fresh request id: 1, 2, 3 ... over the whole session."""
        self._request_id += 1
        return self._request_id

    async def handshake(
        self, clocks: Clocks, max_frame: int, *, started: float | None = None
    ) -> protocol.BotHello:
        """Send hello and check the bot's hello within the start-up time, counted from
        `started` (a trio time: the process's start; by default now); raises BotFault.
        Played as steps by the trio driver, as a game's messages are."""
        if started is None:
            started = trio.current_time()
        limit = (clocks.startup_ms, clocks.grace_ms)
        deadline = started + (clocks.startup_ms + clocks.grace_ms) / 1000
        connection = self.connection
        now = trio.current_time

        def steps() -> Steps[dict[str, Any]]:
            hello = _wire.referee_hello(clocks, max_frame)
            yield from connection.send_steps(hello, deadline, now=now, limit=limit)
            return (
                yield from connection.receive_steps(
                    "hello", deadline, started, now=now, limit=limit
                )
            )

        message = await _driver.run_trio(steps())
        try:
            self.hello = protocol.parse_bot_hello(message)
        except protocol.ProtocolError as err:
            raise fault_from_protocol(err, "start-up") from err
        return self.hello

    async def send(self, message: dict[str, Any], deadline: float) -> None:
        """Send one message by the trio time `deadline` (raises BotFault)."""
        await _driver.run_trio(self.connection.send_steps(message, deadline, now=trio.current_time))

    def pause(self) -> None:
        """Stop the bot's processes while arena waits for another bot (or for its next
        game): it may compute only when it is asked to (SPEC §8.5)."""
        if self.process is not None:
            self.process.pause()

    def resume(self) -> None:
        """Let the bot's processes run (before it is asked for something: an act, bye)."""
        if self.process is not None:
            self.process.resume()

    async def kill(self, fault: BotFault, kill_grace: float) -> None:
        """Mark the session broken by `fault` and kill its process group."""
        if self.fault is None:
            self.fault = fault
        if self.process is not None:
            await self.process.kill(kill_grace)
        await self.connection.aclose()

    async def close(self, clocks: Clocks) -> None:
        """End the session: bye, wait for the exit, then make sure nothing is left."""
        self.resume()  # to read its bye and exit
        if not self.broken:
            deadline = trio.current_time() + clocks.exit_grace_ms / 1000
            with contextlib.suppress(BotFault):
                await self.send(_wire.BYE, deadline)
            if self.process is not None:
                await self.process.wait_exit(clocks.exit_grace_ms / 1000)
        self._closed = True
        if self.process is not None:
            await self.process.kill(clocks.kill_grace_ms / 1000)
        await self.connection.aclose()
