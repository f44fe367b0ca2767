"""A perfect-information control, for tests and measurements only: one seat sees every
hand (issue 46.5: what the rules' hidden information is worth).

`SeeingPort` sits between the referee and one bot. It passes every frame on, and to
each `act` it adds the key `test_hands`: every seat's hand (card codes, in card order; empty
for a seat out of the game), read from its own copy of the game, which it replays from
the game's configuration and seed and the events the acts carry (the engine is
deterministic given those: DESIGN.md, "rules"). The referee is not changed and never
sees the key; the bot reads an extra key of its act (SPEC §3.5 lets a bot ignore it:
the yardstick reads it with `--perfect-info`).

Only code that imports `arena.testing` can build one: no command, league file or
bot.toml reaches this module (tests/test_testing.py checks that nothing in `arena`
outside `arena.testing` imports it, and that a league's acts never carry the key).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import trio

import protocol
from arena.bots import BotSpec, start_process
from arena.referee import (
    BotSession,
    Clocks,
    Connection,
    GameResult,
    MemoryBuffer,
    PipePort,
    Port,
    memory_pair,
    play_game,
)
from arena.rules import CODES, Action, Card, Cause, Game, GameConfig
from arena.testing._memory import FakeBot, Policy

KEY = "test_hands"
"""The key `SeeingPort` adds to the acts of its seat."""

_FAULTS = {Cause.TIMEOUT, Cause.CRASH, Cause.MALFORMED, Cause.ILLEGAL}
"""Eliminations that the referee orders (the engine makes the others itself)."""


class SeeingPort:
    """The referee's port to one bot, with every hand added to that bot's acts."""

    def __init__(self, inner: Port, config: GameConfig, seed: int) -> None:
        self._inner = inner
        self._game = Game(config, seed)
        self._players = config.players
        self._decoder = protocol.FrameDecoder(protocol.MAX_REFEREE_FRAME)
        self._pending = bytearray()
        self.read_target: int | MemoryBuffer = inner.read_target
        self.write_target: int | MemoryBuffer = inner.write_target
        self.read_some: Callable[[], bytes] = self._read
        self.write_some: Callable[[bytes | memoryview], int] = self._write
        self.waiting: Callable[[], object] = self._waiting
        self.shown = 0
        """Acts sent with every hand."""
        self.mismatches = 0
        """Acts whose replayed game did not match (sent without the key)."""

    def fds(self) -> None:
        """None: the trio driver plays the game (the poll driver writes to the pipes itself)."""
        return None

    async def aclose(self) -> None:
        await self._inner.aclose()

    def _flush(self) -> None:
        while self._pending:
            try:
                taken = self._inner.write_some(bytes(self._pending))
            except BlockingIOError:
                return
            del self._pending[:taken]

    def _read(self) -> bytes:
        self._flush()
        return self._inner.read_some()

    def _waiting(self) -> object:
        self._flush()
        return self._inner.waiting()

    def _write(self, data: bytes | memoryview) -> int:
        """Take all of `data`; complete frames go on (acts with the hands added)."""
        self._decoder.feed(data)
        for message in self._decoder:
            if message.get("type") == "act":
                message = self._with_hands(message)
            self._pending += protocol.encode_frame(message)
        self._flush()
        return len(data)

    def _with_hands(self, act: dict[str, Any]) -> dict[str, Any]:
        game = self._game
        try:
            for event in act.get("events", ()):
                kind = event["type"]
                if kind == "play":
                    game.apply(Action.play(Card.from_code(event["card"])))
                elif kind == "bust":
                    game.apply(Action.bust(Card.from_code(event["card"])))
                elif kind == "quad":
                    game.apply(Action.quad())
                elif kind == "eliminated" and Cause(event["cause"]) in _FAULTS:
                    game.eliminate(event["seat"], Cause(event["cause"]))
            observation = act["observation"]
            seat = observation["seat"]
            hands = [[CODES[c] for c in game.hand(s)] for s in range(self._players)]
            if game.to_move != seat or sorted(hands[seat]) != sorted(observation["hand"]):
                raise ValueError("the replayed game went another way")
        except (KeyError, ValueError, TypeError):
            self.mismatches += 1
            return act
        self.shown += 1
        return act | {KEY: hands}


Player = BotSpec | Policy
"""A bot process (its spec) or an in-memory policy (a function of the act)."""


async def play_seeing(
    players: Sequence[Player],
    config: GameConfig,
    seed: int,
    seeing: int,
    *,
    clocks: Clocks | None = None,
) -> tuple[GameResult, SeeingPort]:
    """One game in which seat `seeing` is shown every hand in its acts (`KEY`): bot
    processes (`BotSpec`) or in-memory policies, played by the referee as any game.
    Returns the result and the seeing seat's port (its `shown` and `mismatches`)."""
    if not 0 <= seeing < config.players:
        raise ValueError(f"seat {seeing} in a game of {config.players}")
    clocks = clocks or Clocks()
    seeing_port: SeeingPort | None = None
    async with trio.open_nursery() as nursery:
        sessions = []
        for seat, player in enumerate(players):
            name = f"seat{seat}"
            process = None
            port: Port
            if isinstance(player, BotSpec):
                process = await start_process(player, nursery)
                port = PipePort(process.stream)
            else:
                port, bot_end = memory_pair()
                nursery.start_soon(FakeBot(bot_end, player, name=name).run)
            if seat == seeing:
                port = seeing_port = SeeingPort(port, config, seed)
            session = BotSession(name, Connection(port), process=process)
            await session.handshake(clocks, protocol.DEFAULT_MAX_FRAME)
            sessions.append(session)
        result = await play_game(sessions, config, seed, clocks=clocks)
        for session in sessions:
            await session.close(clocks)
        nursery.cancel_scope.cancel()
    assert seeing_port is not None
    return result, seeing_port
