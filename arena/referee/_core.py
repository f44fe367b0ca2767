"""The game as the referee plays it: the rules engine (`arena.rules.Game`, the only
implementation of the rules) and the wire forms of its state (`_wire`)."""

from __future__ import annotations

from typing import Any

import protocol
from arena.errors import GameOverError
from arena.referee import _wire
from arena.rules import Action, Card, Cause, Game, GameConfig, Outcome


class Core:
    """The referee's game on the rules engine: `Game` with the wire forms of its events
    (each converted once) and of its acts."""

    __slots__ = ("_events", "_game", "_heard", "_taken")

    def __init__(self, config: GameConfig, seed: int) -> None:
        self._game = Game(config, seed)
        self._events: list[dict[str, Any]] = []
        """The wire forms of the engine's events so far (converted when first needed)."""
        self._taken = 0
        """Events handed out by `take_events`."""
        self._heard = [0] * config.players
        """Per seat, the events sent to it."""

    @property
    def to_move(self) -> int | None:
        return self._game.to_move

    @property
    def is_over(self) -> bool:
        return self._game.is_over

    @property
    def plays(self) -> int:
        return self._game.plays

    def legal_actions(self) -> tuple[Action, ...]:
        return self._game.legal_actions()

    def _legal(self, index: int) -> Action:
        """The legal action number `index`; GameOverError or IndexError if none."""
        game = self._game
        if game.is_over:
            raise GameOverError("the game is over")
        legal = game.legal_actions()
        if not 0 <= index < len(legal):
            raise IndexError(f"no legal action {index} of {len(legal)}")
        return legal[index]

    def apply(self, index: int) -> None:
        """Play the legal action number `index`."""
        self._game.apply_unchecked(self._legal(index))

    def eliminate(self, seat: int, cause: Cause) -> None:
        self._game.eliminate(seat, cause)

    def in_game(self, seat: int) -> bool:
        return self._game.observation(seat).in_game[seat]

    def hand(self, seat: int) -> tuple[Card, ...]:
        return self._game.hand(seat)

    def outcome(self) -> Outcome:
        return self._game.outcome()

    def _sync(self) -> list[dict[str, Any]]:
        events = self._events
        engine = self._game.events
        if len(events) < len(engine):
            events.extend(map(_wire.event_to_dict, engine[len(events) :]))
        return events

    def take_events(self) -> list[dict[str, Any]]:
        """The wire forms of the events since the last call."""
        events = self._sync()
        start, self._taken = self._taken, len(events)
        return events[start:]

    def news(self, seat: int) -> list[dict[str, Any]]:
        """The wire forms of the events not sent to `seat` yet; they count as sent."""
        events = self._sync()
        start, self._heard[seat] = self._heard[seat], len(events)
        return events[start:]

    def log_events(self, log: list[dict[str, Any]]) -> None:
        """Append the records of the events since the last `take_events` (or call)."""
        log.extend([{"type": "event", "event": e} for e in self.take_events()])

    def play(self, index: int, log: list[dict[str, Any]], request_id: int, ms: float) -> None:
        """The referee's decision: append its record to `log`, play the legal action
        number `index` (as `apply`), then append the records of its events."""
        action = self._legal(index)
        game = self._game
        log.append(
            {
                "type": "decision",
                "seat": game.to_move,
                "request_id": request_id,
                "choice": index,
                "action": _wire.action_to_dict(action),
                "ms": ms,
            }
        )
        game.apply_unchecked(action)
        self.log_events(log)

    def act_frame(self, seat: int, request_id: int, decision_ms: int, bank_ms: int | None) -> bytes:
        """The act frame for `seat` (SPEC §5.3), with its news (which count as sent)."""
        game = self._game
        act = _wire.act(
            request_id,
            game.observation_dict(seat),
            self.news(seat),
            decision_ms,
            bank_ms,
            game.legal_actions(),
        )
        return protocol.encode_frame(act)
