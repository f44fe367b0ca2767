"""One game between bots: the rules engine on one side, bot sessions on the other."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from typing import Any

import trio

import protocol
from arena import REPLAY_FORMAT, __version__
from arena.errors import BotCrashed, BotFault, BotTimeout
from arena.referee import _core, _driver, _wire
from arena.referee._clocks import BANK_CAP_MS, Clocks
from arena.referee._connection import Steps, fault_from_protocol, late
from arena.referee._session import BotSession
from arena.rules import Cause, GameConfig, Outcome


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

Shown = tuple[str, tuple[str, ...]]
"""A game id and a name per seat for the bots to see in place of the real ones."""


SLOW_S = 0.005
"""How long a decision runs before the other seats' processes are stopped (SPEC §8.5):
a quick answer costs no signals (a stop and a go cost the referee some 11 us, a fifth
of a decision), and no bot computes more than this on another's time. Not less: a
wait shorter than the kernel's tick costs the referee more (measured with
bench/referee.py: 1 ms added 13 us a decision, 3 ms 3 us, 5 ms nothing)."""


def _system_clock() -> bool:
    """True under trio's own clock (False under a test's virtual clock)."""
    clock = trio.lowlevel.current_clock()
    return type(clock).__name__ == "SystemClock" and type(clock).__module__.startswith("trio.")


async def play_game(
    seats: Sequence[BotSession],
    config: GameConfig,
    seed: int,
    *,
    clocks: Clocks = Clocks(),
    game_id: str = "game",
    shown: Shown | None = None,
) -> GameResult:
    """Play one game; every seat's fault is contained and recorded, never raised.

    A session that is already broken when the game starts (it failed its start-up)
    leaves the game at once with its recorded cause. With `shown`, the bots see that
    game id and those names in their messages instead of the real ones (an SPRT's
    blind seats); the result and the replay keep the real ones.
    """
    if len(seats) != config.players:
        raise ValueError(f"{len(seats)} seats for a game of {config.players}")
    if shown is not None and len(shown[1]) != config.players:
        raise ValueError(f"{len(shown[1])} names shown for a game of {config.players}")
    runner = _Runner(seats, config, seed, clocks, game_id, shown)
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
        shown: Shown | None = None,
    ) -> None:
        self.seats = list(seats)
        self.names = [s.name for s in seats]
        self.shown_id, shown_names = shown if shown is not None else (game_id, self.names)
        self.shown_names = list(shown_names)
        """The game id and the names the bots see in their messages."""
        self.config = config
        self.seed = seed
        self.clocks = clocks
        self.game_id = game_id
        self.core = _core.Core(config, seed)
        """The game, and the wire forms of its events and acts."""
        n = config.players
        self.bank: list[float | None] = [clocks.bank_ms] * n
        """Per seat, the bank left in ms, to the fraction of a ms it was measured in
        (an act shows it rounded down)."""
        self.think = [0.0] * n
        self.faults: list[FaultRecord] = []
        self.decisions = 0
        self._now: Callable[[], float] = time.perf_counter
        """The driver's clock (`run` sets it)."""
        self._started = 0
        """Seats sent their game_start (or left at once), in the driver's steps."""
        self._ended = 0
        """Seats sent their game_over (or skipped), in the driver's steps."""
        self._at: tuple[str, int] | None = None
        """What the driver's steps do (a message and a seat), for the watchdog."""
        self.log: list[_core.Record] = [
            {
                "type": "game",
                "game_id": game_id,
                "seed": seed,
                "config": config.to_dict(),
                "names": self.names,
                "clocks": clocks.to_dict(),
                "arena": __version__,
                "replay_format": REPLAY_FORMAT,
            }
        ]
        self._log_events()

    def _log_events(self) -> None:
        """Log the game's events since the last call (after each change of the game)."""
        self.core.log_events(self.log)

    async def _fault(self, seat: int, fault: BotFault) -> None:
        # The others are stopped while the bot is killed (a grace) and its stderr read: a
        # fault within the 5 ms before they are stopped left them running meanwhile, on
        # no one's clock (SPEC §8.5). The next to be asked is resumed as ever.
        for other, session in enumerate(self.seats):
            if other != seat and not session.broken:
                session.pause()
        core = self.core
        process = self.seats[seat].process
        if fault.cause == "crash" and process is not None and process.memory_exhausted():
            fault = BotCrashed(
                f"{fault}: the kernel killed a process of it for passing its memory limit"
                " (--memory-mb, for the bot's processes together)"
            )
        elif fault.cause == "crash" and process is not None:
            # "pipe closed while sending act" does not say that the bot itself ended
            # (at a game_over, say): its exit status does, if it has one by now.
            await process.wait_exit(0.05)
            if (status := process.exit_status()) is not None:
                if process.process.returncode == 0:
                    status += (
                        ", before bye (a bot exits only after bye or at the end of its stdin:"
                        " SPEC §4.4)"
                    )
                fault = BotCrashed(f"{fault}: the process {status}", detail=fault.detail)
        plays = core.plays
        if not core.is_over and core.in_game(seat):
            core.eliminate(seat, _CAUSES[fault.cause])
        await self.seats[seat].kill(fault, self.clocks.kill_grace_ms / 1000)
        # A fault ends with what the bot last said on its stderr (its log keeps it all):
        # read once the process is gone, so that its last words are in.
        message = str(fault)
        tail = process.stderr if process is not None else None
        if tail is not None:
            with trio.move_on_after(0.2):
                await tail.ended.wait()
            if said := tail.last_lines():
                message += f" (its stderr ended: {' | '.join(said)})"
        self.faults.append(FaultRecord(seat, fault.cause, message, fault.detail, plays))
        self.log.append(
            {
                "type": "fault",
                "seat": seat,
                "cause": fault.cause,
                "message": message,
                "bytes": fault.detail.hex() if fault.detail else None,
            }
        )
        self._log_events()

    async def run(self) -> None:
        """Play the game from its start: its steps (`_steps`), driven by the poll driver
        when every seat is a bot process under the real clock, else by the trio driver
        (in-memory bots, a test's fake clock). Every fault comes back here, between
        steps: the bot is killed from trio, and the steps go on where they stopped."""
        if self._poll_ok():
            self._now = time.perf_counter
            clocks = self.clocks
            # Every wait of the steps lasts a decision and its grace at most (a bank
            # only shortens it); start-ups and kills are trio's, with deadlines of their own.
            stall_s = (clocks.decision_ms + clocks.grace_ms) / 1000 + _driver.STALL_MARGIN_S
            while (
                fault := await _driver.run(self._steps(), stall_s=stall_s, state=self._state)
            ) is not None:
                await self._fault(*fault)
        else:
            self._now = trio.current_time
            while (fault := await _driver.run_trio(self._steps())) is not None:
                await self._fault(*fault)
        outcome = self.core.outcome()
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

    def _pause_others(self) -> None:
        """Stop the processes of every seat but the one to move (SPEC §8.5)."""
        mover = self.core.to_move
        for seat, session in enumerate(self.seats):
            if seat != mover and not session.broken:
                session.pause()

    def _game_start(self, seat: int) -> dict[str, Any]:
        return _wire.game_start(
            self.shown_id, seat, self.shown_names, self.config, self.core.hand(seat), self.clocks
        )

    def _game_over(self, seat: int) -> dict[str, Any]:
        core = self.core
        return _wire.game_over(self.shown_id, core.outcome(), core.news(seat))

    def _request(self, seat: int) -> tuple[bytes, int, int]:
        """The act for `seat`, the seat to move, as a frame, with its request id and the
        ms it allows; the answer is judged against these (and against the legal
        actions, which stay as they are until it is played)."""
        left = self.bank[seat]
        bank = None if left is None else int(left)  # never more than is left
        allowed = self.clocks.decision_ms
        if bank is not None:
            allowed = max(0, min(allowed, bank))
        request_id = self.seats[seat].next_request_id()
        return self.core.act_frame(seat, request_id, allowed, bank), request_id, allowed

    def _accept(
        self, seat: int, request_id: int, allowed: int, reply: dict[str, Any], used_ms: float
    ) -> None:
        """Judge `seat`'s answer to the act `request_id`, which allowed `allowed` ms,
        given `used_ms` after the act was sent, and play it; raises BotFault (the game
        is unchanged then)."""
        core = self.core
        legal = core.legal_actions()
        choice = reply.get("choice")
        # The answer of a conforming bot is checked here, in line; anything else goes
        # to the protocol's parser, which words the fault (or accepts what it accepts).
        if not (
            reply.get("type") == "action"
            and type(got := reply.get("request_id")) is int
            and got == request_id
            and type(choice) is int
            and 0 <= choice < len(legal)
        ):
            try:
                action = protocol.parse_bot_action(
                    reply, request_id=request_id, legal_count=len(legal)
                )
            except protocol.ProtocolError as err:
                raise fault_from_protocol(err, "action") from err
            choice = action.choice
        # One measurement is both judged and recorded: a reply read within the deadline
        # but measured past it (the referee was busy) is late all the same.
        clocks = self.clocks
        if used_ms > allowed + clocks.grace_ms:
            raise BotTimeout(late("no action", (allowed, clocks.grace_ms), used_ms, waited=False))
        self.think[seat] += used_ms
        bank = self.bank[seat]
        if bank is not None:  # the time taken to the fraction: 0.4 ms a decision adds up
            self.bank[seat] = min(BANK_CAP_MS, max(0.0, bank - used_ms) + clocks.increment_ms)
        self.decisions += 1
        core.play(choice, self.log, request_id, round(used_ms, 3))  # and its records

    def _poll_ok(self) -> bool:
        """True if every seat still in play is a bot process and time is real: the
        poll driver's games."""
        if not _system_clock():
            return False
        return all(
            session.broken or session.connection.pipe_fds() is not None for session in self.seats
        )

    def _steps(self) -> Steps[tuple[int, BotFault] | None]:
        """The game from where it stands, as steps for the driver: returns None when it
        is over, or the first fault for the trio side to handle.

        Time is the driver's (`self._now`): deadlines are set in it and answers are
        measured in it (SPEC §8.2), under the poll driver and the trio driver alike."""
        clocks = self.clocks
        core = self.core
        seats = self.seats
        now = self._now
        grace = clocks.grace_ms
        message_limit = (clocks.decision_ms, grace)
        """What a game_start or a game_over may take to be written."""
        limit = (clocks.decision_ms + grace) / 1000
        while self._started < len(seats):
            seat = self._started
            self._started += 1
            session = seats[seat]
            if session.broken:
                assert session.fault is not None
                return seat, session.fault
            session.games += 1
            session.resume()  # stopped in its pool, or while the other seats started
            deadline = now() + limit
            self._at = ("the game_start", seat)
            try:
                yield from session.connection.send_steps(
                    self._game_start(seat), deadline, now=now, limit=message_limit
                )
            except BotFault as fault:
                return seat, fault
        pause_others = self._pause_others
        canonical = _wire.canonical_action
        while (mover := core.to_move) is not None:
            frame, request_id, allowed = self._request(mover)
            session = seats[mover]
            session.resume()
            connection = session.connection
            start = now()
            deadline = start + (allowed + grace) / 1000
            self._at = ("the act", mover)
            try:
                reply = yield from connection.exchange_steps(
                    frame,
                    "action",
                    deadline,
                    (start + SLOW_S, pause_others),
                    (canonical(request_id), request_id),
                    now=now,
                    limit=(allowed, grace),
                )
                used = connection.received_at - connection.sent_at
                self._accept(mover, request_id, allowed, reply, used * 1000)
            except BotFault as fault:
                return mover, fault
        while self._ended < len(seats):
            seat = self._ended
            self._ended += 1
            session = seats[seat]
            if session.broken:
                continue
            session.resume()  # stopped since another seat's decision: it must read this
            deadline = now() + limit
            self._at = ("the game_over", seat)
            try:
                yield from session.connection.send_steps(
                    self._game_over(seat), deadline, now=now, limit=message_limit
                )
            except BotFault as fault:
                return seat, fault
        return None

    def _state(self) -> str:
        """Where the game stands, for the watchdog's error."""
        if self._at is None:
            return f"{self.game_id} had not sent its first game_start"
        what, seat = self._at
        return (
            f"{self.game_id} was at {what} of seat {seat} ({self.names[seat]}), after"
            f" {self.core.plays} plays"
        )

    def result(self) -> GameResult:
        return GameResult(
            game_id=self.game_id,
            seed=self.seed,
            config=self.config,
            names=tuple(self.names),
            outcome=self.core.outcome(),
            faults=tuple(self.faults),
            decisions=self.decisions,
            think_ms=tuple(self.think),
            log=self.core.records(self.log),
        )
