"""One game between bots: the rules engine on one side, bot sessions on the other."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import trio

import protocol
from arena import __version__
from arena.errors import BotFault, BotTimeout
from arena.referee import _wire
from arena.referee._clocks import Clocks
from arena.referee._connection import fault_from_protocol
from arena.referee._session import BotSession
from arena.rules import Cause, Game, GameConfig, Outcome


@dataclasses.dataclass(frozen=True, slots=True)
class FaultRecord:
    """A bot fault during a game."""

    seat: int
    """The seat of the bot."""
    cause: str
    """timeout, crash, malformed or illegal."""
    message: str
    """What happened, for people."""
    detail: bytes | None
    """The offending bytes, where there are any."""
    plays: int
    """Plays made in the game before the fault."""


@dataclasses.dataclass(frozen=True, slots=True)
class GameResult:
    """Everything about a finished game."""

    game_id: str
    seed: int
    config: GameConfig
    names: tuple[str, ...]
    """The bot in each seat."""
    outcome: Outcome
    faults: tuple[FaultRecord, ...]
    decisions: int
    """Decisions the bots made."""
    think_ms: tuple[float, ...]
    """Per seat, the time its decisions took, in ms."""
    log: list[dict[str, Any]]
    """The replay: JSON-ready records (game, event, decision, fault, result)."""


_CAUSES = {c.value: c for c in Cause}


async def play_game(
    seats: Sequence[BotSession],
    config: GameConfig,
    seed: int,
    *,
    clocks: Clocks = Clocks(),
    game_id: str = "game",
) -> GameResult:
    """Play one game; every seat's fault is contained and recorded, never raised.

    A session that is already broken when the game starts (it failed its start-up)
    leaves the game at once with its recorded cause.
    """
    if len(seats) != config.players:
        raise ValueError(f"{len(seats)} seats for a game of {config.players}")
    runner = _Runner(seats, config, seed, clocks, game_id)
    await runner.run()
    return runner.result()


class _Runner:
    def __init__(
        self,
        seats: Sequence[BotSession],
        config: GameConfig,
        seed: int,
        clocks: Clocks,
        game_id: str,
    ) -> None:
        self.seats = list(seats)
        self.names = [s.name for s in seats]
        self.config = config
        self.seed = seed
        self.clocks = clocks
        self.game_id = game_id
        self.game = Game(config, seed)
        n = config.players
        self.heard = [0] * n
        self.bank: list[int | None] = [clocks.bank_ms] * n
        self.think = [0.0] * n
        self.faults: list[FaultRecord] = []
        self.decisions = 0
        self.waiting_for: int | None = None
        self.event_dicts: list[dict[str, Any]] = []
        self.log: list[dict[str, Any]] = [
            {
                "type": "game",
                "game_id": game_id,
                "seed": seed,
                "config": config.to_dict(),
                "names": self.names,
                "clocks": clocks.to_dict(),
                "arena": __version__,
            }
        ]

    def _sync_events(self) -> None:
        """Convert new engine events to dicts once, and log them."""
        events = self.game.events
        for event in events[len(self.event_dicts) :]:
            d = _wire.event_to_dict(event)
            self.event_dicts.append(d)
            self.log.append({"type": "event", "event": d})

    def _news(self, seat: int) -> list[dict[str, Any]]:
        """The public events `seat` has not heard yet."""
        self._sync_events()
        start = self.heard[seat]
        self.heard[seat] = len(self.event_dicts)
        return self.event_dicts[start:]

    async def _fault(self, seat: int, fault: BotFault) -> None:
        game = self.game
        self.faults.append(FaultRecord(seat, fault.cause, str(fault), fault.detail, game.plays))
        self._sync_events()
        self.log.append(
            {
                "type": "fault",
                "seat": seat,
                "cause": fault.cause,
                "message": str(fault),
                "bytes": fault.detail.hex() if fault.detail else None,
            }
        )
        if not game.is_over and game.observation(seat).in_game[seat]:
            game.eliminate(seat, _CAUSES[fault.cause])
        await self.seats[seat].kill(fault, self.clocks.kill_grace_ms / 1000)

    async def run(self) -> None:
        clocks = self.clocks
        game = self.game
        for seat, session in enumerate(self.seats):
            if session.broken:
                fault = session.fault
                assert fault is not None
                await self._fault(seat, fault)
                continue
            session.games += 1
            deadline = trio.current_time() + (clocks.decision_ms + clocks.grace_ms) / 1000
            message = _wire.game_start(
                self.game_id, seat, self.names, self.config, game.hand(seat), clocks
            )
            try:
                await session.send(message, deadline)
            except BotFault as fault:
                await self._fault(seat, fault)
        # One cancel scope serves every decision until a bot times out: its deadline is
        # moved before each request (cheaper than a new scope per decision).
        while game.to_move is not None:
            with trio.CancelScope() as scope:
                while (to_move := game.to_move) is not None:
                    await self._decide(to_move, scope)
            if scope.cancelled_caught:
                late = self.waiting_for
                assert late is not None
                self.waiting_for = None
                await self._fault(late, BotTimeout("no action in time"))
        self._sync_events()
        outcome = game.outcome()
        for seat, session in enumerate(self.seats):
            if session.broken:
                continue
            message = _wire.game_over(self.game_id, outcome, self._news(seat))
            deadline = trio.current_time() + (clocks.decision_ms + clocks.grace_ms) / 1000
            try:
                await session.send(message, deadline)
            except BotFault as fault:
                await self._fault(seat, fault)
        self.log.append(
            {
                "type": "result",
                "places": list(outcome.places),
                "points": list(outcome.points) if outcome.points is not None else None,
                "tokens": list(outcome.tokens) if outcome.tokens is not None else None,
                "eliminations": [
                    {"seat": e.seat, "cause": e.cause.value, "place": e.place}
                    for e in outcome.eliminations
                ],
                "reason": outcome.reason.value,
                "plays": outcome.plays,
                "rounds": outcome.rounds,
            }
        )

    async def _decide(self, seat: int, scope: trio.CancelScope) -> None:
        game = self.game
        clocks = self.clocks
        session = self.seats[seat]
        legal = game.legal_actions()
        bank = self.bank[seat]
        allowed = clocks.decision_ms
        if bank is not None:
            allowed = max(0, min(allowed, bank))
        request_id = session.next_request_id()
        message = _wire.act(
            request_id, game.observation(seat), self._news(seat), allowed, bank, legal
        )
        start = trio.current_time()
        scope.deadline = start + (allowed + clocks.grace_ms) / 1000
        self.waiting_for = seat
        try:
            reply = await session.connection.exchange(message, "action")
            try:
                action = protocol.parse_bot_action(
                    reply, request_id=request_id, legal_count=len(legal)
                )
            except protocol.ProtocolError as err:
                raise fault_from_protocol(err, "action") from err
            # One measurement is both judged and recorded: a reply read within the
            # deadline but measured past it (the referee was busy) is late all the same.
            used_ms = (trio.current_time() - start) * 1000
            if used_ms > allowed + clocks.grace_ms:
                raise BotTimeout(f"action after {used_ms:.1f} ms (limit {allowed} ms)")
        except BotFault as fault:
            scope.deadline = math.inf
            await self._fault(seat, fault)
            return
        scope.deadline = math.inf
        self.waiting_for = None
        self.think[seat] += used_ms
        if bank is not None:
            self.bank[seat] = max(0, bank - round(used_ms)) + clocks.increment_ms
        chosen = legal[action.choice]
        self.decisions += 1
        self.log.append(
            {
                "type": "decision",
                "seat": seat,
                "request_id": request_id,
                "choice": action.choice,
                "action": _wire.action_to_dict(chosen),
                "ms": round(used_ms, 3),
            }
        )
        game.apply_unchecked(chosen)

    def result(self) -> GameResult:
        return GameResult(
            game_id=self.game_id,
            seed=self.seed,
            config=self.config,
            names=tuple(self.names),
            outcome=self.game.outcome(),
            faults=tuple(self.faults),
            decisions=self.decisions,
            think_ms=tuple(self.think),
            log=self.log,
        )
