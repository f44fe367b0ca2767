"""Rules objects <-> wire messages (protocol/SPEC.md). Plain dicts, built in SPEC order."""

from __future__ import annotations

from typing import Any

import protocol
from arena import __version__
from arena.referee._clocks import Clocks
from arena.rules import CODES, Action, ActionKind, Card, Event, GameConfig, Observation, Outcome
from arena.rules import event_to_dict as _event_to_dict

_CODE = {card: CODES[card] for card in Card}
_ACTION_DICTS: dict[Action, dict[str, str]] = {}
for _card in Card:
    _ACTION_DICTS[Action.play(_card)] = {"kind": "play", "card": _CODE[_card]}
    _ACTION_DICTS[Action.bust(_card)] = {"kind": "bust", "card": _CODE[_card]}
_ACTION_DICTS[Action.quad()] = {"kind": "quad"}


def action_to_dict(action: Action) -> dict[str, str]:
    """The wire form of a legal action: {"kind": "play", "card": "7"} ..."""
    return _ACTION_DICTS[action]


def action_from_dict(data: dict[str, Any]) -> Action:
    """Read back `action_to_dict` (for replays); raises KeyError/ValueError when invalid."""
    kind = ActionKind(data["kind"])
    if kind is ActionKind.QUAD:
        return Action.quad()
    card = Card.from_code(data["card"])
    return Action.play(card) if kind is ActionKind.PLAY else Action.bust(card)


def codes(cards: tuple[Card, ...]) -> list[str]:
    """Card codes of a tuple of cards."""
    return [_CODE[c] for c in cards]


def event_to_dict(event: Event) -> dict[str, Any]:
    """The wire form of a public event."""
    return _event_to_dict(event)


def referee_hello(clocks: Clocks, max_frame: int) -> dict[str, Any]:
    """The referee's hello (SPEC §5.1)."""
    return {
        "type": protocol.MSG_HELLO,
        "protocol": protocol.PROTOCOL_VERSION,
        "game": protocol.GAME,
        "arena": __version__,
        "limits": {
            "max_frame": max_frame,
            "startup_ms": clocks.startup_ms,
            "decision_ms": clocks.decision_ms,
            "exit_grace_ms": clocks.exit_grace_ms,
        },
    }


def game_start(
    game_id: str,
    seat: int,
    names: list[str],
    config: GameConfig,
    hand: tuple[Card, ...],
    clocks: Clocks,
) -> dict[str, Any]:
    """A game begins (SPEC §5.2)."""
    return {
        "type": protocol.MSG_GAME_START,
        "game_id": game_id,
        "seat": seat,
        "players": config.players,
        "names": names,
        "edition": config.edition.value,
        "format": config.format.value,
        "options": {
            "tokens": config.tokens,
            "target": config.target,
            "ending": config.ending.value,
            "ono_on_tens": config.ono_on_tens,
            "play_cap": config.play_cap,
        },
        "hand": codes(hand),
        "clock": {
            "decision_ms": clocks.decision_ms,
            "bank_ms": clocks.bank_ms,
            "increment_ms": clocks.increment_ms,
        },
    }


def observation_to_dict(obs: Observation) -> dict[str, Any]:
    """The observation map of an act (SPEC §7.3)."""
    return {
        "seat": obs.seat,
        "hand": [_CODE[c] for c in obs.hand],
        "total": obs.total,
        "direction": obs.direction,
        "to_move": obs.to_move,
        "owes": obs.owes,
        "hand_sizes": list(obs.hand_sizes),
        "in_game": list(obs.in_game),
        "in_round": list(obs.in_round),
        "face_up": [[_CODE[c] for c in cards] for cards in obs.face_up],
        "draw_size": obs.draw_size,
        "discard": [_CODE[c] for c in obs.discard],
        "scores": list(obs.scores) if obs.scores is not None else None,
        "tokens": list(obs.tokens) if obs.tokens is not None else None,
        "round": obs.round,
        "plays": obs.plays,
    }


def act(
    request_id: int,
    obs: Observation,
    events: list[dict[str, Any]],
    decision_ms: int,
    bank_ms: int | None,
    legal: tuple[Action, ...],
) -> dict[str, Any]:
    """A request for a decision (SPEC §5.3)."""
    return {
        "type": protocol.MSG_ACT,
        "request_id": request_id,
        "observation": observation_to_dict(obs),
        "events": events,
        "clock": {"decision_ms": decision_ms, "bank_ms": bank_ms},
        "legal": [_ACTION_DICTS[a] for a in legal],
    }


def game_over(game_id: str, outcome: Outcome, events: list[dict[str, Any]]) -> dict[str, Any]:
    """The end of a game (SPEC §5.4)."""
    return {
        "type": protocol.MSG_GAME_OVER,
        "game_id": game_id,
        "places": list(outcome.places),
        "points": list(outcome.points) if outcome.points is not None else None,
        "tokens": list(outcome.tokens) if outcome.tokens is not None else None,
        "eliminations": [
            {"seat": e.seat, "cause": e.cause.value, "place": e.place} for e in outcome.eliminations
        ],
        "events": events,
    }


BYE: dict[str, Any] = {"type": protocol.MSG_BYE}
