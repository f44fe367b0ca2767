"""Bots in memory: a policy (a Python function of the act) plays through the referee's
own steps, under any clock (a test's fake one too), with no process.

The referee's end is a `MemoryPort`, so a game with fakes is played by the referee's
own steps (the trio driver's, under any clock: a test's fake one too)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import trio

import protocol
from arena.referee import BotSession, Clocks, Connection, GameResult, memory_pair, play_game
from arena.rules import GameConfig

# What a policy returns for an act: an int choice, raw bytes to write, a dict to send
# as a frame, "close" to close the stream, or ("sleep", seconds, next) to wait first.
Reply = Any
Policy = Callable[[dict[str, Any]], Reply]


def first_legal(act: dict[str, Any]) -> Reply:
    return 0


class FakeBot:
    """Speaks the bot side of the protocol over a stream, following a policy."""

    def __init__(
        self,
        stream: trio.abc.Stream,
        policy: Policy = first_legal,
        *,
        hello: Reply | None = None,
        name: str = "fake",
    ) -> None:
        self.stream = stream
        self.policy = policy
        self.hello = hello
        self.name = name
        self.received: list[dict[str, Any]] = []

    async def _reply(self, reply: Reply, request_id: int | None) -> bool:
        """Carry out a reply; False when the bot stops."""
        while isinstance(reply, tuple) and reply[0] == "sleep":
            await trio.sleep(reply[1])
            reply = reply[2]
        if reply == "close":
            await self.stream.aclose()
            return False
        if reply == "hang":
            await trio.sleep_forever()
        if isinstance(reply, bytes):
            await self.stream.send_all(reply)
        elif isinstance(reply, dict):
            await self.stream.send_all(protocol.encode_frame(reply))
        else:
            frame = {"type": "action", "request_id": request_id, "choice": reply}
            await self.stream.send_all(protocol.encode_frame(frame))
        return True

    async def run(self) -> None:
        decoder = protocol.FrameDecoder(protocol.MAX_REFEREE_FRAME)
        try:
            while True:
                data = await self.stream.receive_some(65536)
                if not data:
                    return
                decoder.feed(data)
                for message in decoder:
                    self.received.append(message)
                    kind = message["type"]
                    if kind == "hello":
                        hello = self.hello or {
                            "type": "hello",
                            "name": self.name,
                            "version": "1",
                            "protocol": 1,
                        }
                        if not await self._reply(hello, None):
                            return
                    elif kind == "act":
                        if not await self._reply(self.policy(message), message["request_id"]):
                            return
                    elif kind == "bye":
                        await self.stream.aclose()
                        return
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return

    def acts(self) -> list[dict[str, Any]]:
        return [m for m in self.received if m["type"] == "act"]


async def connect(
    nursery: trio.Nursery, name: str, policy: Policy = first_legal, **kwargs: Any
) -> tuple[BotSession, FakeBot]:
    """A BotSession wired to a FakeBot running in `nursery` (no handshake yet)."""
    referee_end, bot_end = memory_pair()
    bot = FakeBot(bot_end, policy, name=name, **kwargs)
    nursery.start_soon(bot.run)
    return BotSession(name, Connection(referee_end)), bot


async def play_policies(
    policies: Sequence[Policy],
    config: GameConfig | None = None,
    seed: int = 0,
    clocks: Clocks | None = None,
) -> GameResult:
    """One game between in-memory bots, each answering every act by its policy (a
    function of the act message, SPEC §5.4, returning the index of a legal action):
    the referee plays it as it plays bot processes. For a bot author's unit tests of a
    Python policy, and for tests of the referee."""
    config = config or GameConfig(players=len(policies))
    clocks = clocks or Clocks()
    async with trio.open_nursery() as nursery:
        sessions = []
        for seat, policy in enumerate(policies):
            session, _ = await connect(nursery, f"bot{seat}", policy)
            await session.handshake(clocks, protocol.DEFAULT_MAX_FRAME)
            sessions.append(session)
        result = await play_game(sessions, config, seed, clocks=clocks)
        for session in sessions:
            await session.close(clocks)
        nursery.cancel_scope.cancel()
    return result
