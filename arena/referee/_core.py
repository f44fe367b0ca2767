"""The game as the referee plays it: the rules engine and the wire forms of its state.

`PyCore` is built on the rules engine (`arena.rules.Game`) and `_wire`; the C extension
`arena.referee._fastcore` gives the same `Core` API, faster, where it is built. Both
say the same thing at every step (tests/referee/test_fastcore.py plays them side by
side over every configuration); the rules engine stays the reference.

`Core` is the C one when it can be imported and is no older than its source, and
`PyCore` otherwise, or when the environment variable ARENA_PURE_PYTHON is set.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import Any, Protocol

import protocol
from arena.errors import GameOverError
from arena.referee import _wire
from arena.rules import Action, Card, Cause, Game, GameConfig, Outcome


class CoreAPI(Protocol):
    """What the referee asks of a game."""

    def __init__(self, config: GameConfig, seed: int) -> None: ...
    @property
    def to_move(self) -> int | None: ...
    @property
    def is_over(self) -> bool: ...
    @property
    def plays(self) -> int: ...
    def legal_actions(self) -> tuple[Action, ...]: ...
    def apply(self, index: int) -> None: ...
    def eliminate(self, seat: int, cause: Cause) -> None: ...
    def in_game(self, seat: int) -> bool: ...
    def hand(self, seat: int) -> tuple[Card, ...]: ...
    def outcome(self) -> Outcome: ...
    def take_events(self) -> list[dict[str, Any]]: ...
    def news(self, seat: int) -> list[dict[str, Any]]: ...
    def act_frame(
        self, seat: int, request_id: int, decision_ms: int, bank_ms: int | None
    ) -> bytes: ...
    def log_events(self, log: list[dict[str, Any]]) -> None: ...
    def play(self, index: int, log: list[dict[str, Any]], request_id: int, ms: float) -> None: ...


class PyCore:
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


def usable(built: str, source: str) -> bool:
    """False if the C core `built` is older than its `source` (edited since the build:
    it would not play what the source says); True for an installed copy, without it."""
    try:
        return os.stat(source).st_mtime <= os.stat(built).st_mtime
    except FileNotFoundError:
        return True


def _fast() -> Any:
    """The C core's module, if it is built, usable, and not refused (ARENA_PURE_PYTHON)."""
    if os.environ.get("ARENA_PURE_PYTHON"):
        return None
    try:
        fastcore = importlib.import_module("arena.referee._fastcore")
    except ImportError:
        return None
    source = os.path.join(os.path.dirname(__file__), "_fastcore.c")
    built = fastcore.__file__
    if built is None or not usable(built, source):
        return None
    return fastcore


_FAST = _fast()

Core: type[CoreAPI] = PyCore if _FAST is None else _FAST.Core
"""The referee's game: the C core where it can be used, `PyCore` otherwise."""

canonical_action: Callable[[int], bytes] = (
    _wire.canonical_action if _FAST is None else _FAST.canonical_action
)
"""`_wire.canonical_action`, from the C core where it is used."""

CORE_NAME = "C" if Core is not PyCore else "Python"
