"""Rules objects <-> wire messages (protocol/SPEC.md). Plain dicts, built in SPEC order."""

from __future__ import annotations

from typing import Any

import protocol
from arena import __version__
from arena.referee._clocks import Clocks
from arena.rules import (
    CODES,
    Action,
    ActionKind,
    Card,
    Draw,
    Event,
    GameConfig,
    Observation,
    Outcome,
    Play,
)
from arena.rules import event_to_dict as _event_to_dict

_CODE = {card: CODES[card] for card in Card}
_ACTION_DICTS: dict[Action, dict[str, str]] = {}
for _card in Card:
    _ACTION_DICTS[Action.play(_card)] = {"kind": "play", "card": _CODE[_card]}
    _ACTION_DICTS[Action.bust(_card)] = {"kind": "bust", "card": _CODE[_card]}
_ACTION_DICTS[Action.quad()] = {"kind": "quad"}
# The rules engine hands out shared Action objects (Action.play, .bust, .quad), which
# live as long as the program: looking them up by identity skips the dataclass hash.
_BY_ID = {id(action): d for action, d in _ACTION_DICTS.items()}


def action_to_dict(action: Action) -> dict[str, str]:
    """The wire form of a legal action: {"kind": "play", "card": "7"} ... (looked up by
    identity where it is one of the engine's shared actions, by value otherwise)."""
    return _BY_ID.get(id(action)) or _ACTION_DICTS[action]


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


def _play(e: Any) -> dict[str, Any]:
    return {"type": "play", "seat": e.seat, "card": _CODE[e.card], "total": e.total}


def _draw(e: Any) -> dict[str, Any]:
    return {"type": "draw", "seat": e.seat, "count": e.count}


# The events of nearly every decision, converted without the generic field walk.
_FAST: dict[type, Any] = {Play: _play, Draw: _draw}


def event_to_dict(event: Event) -> dict[str, Any]:
    """The wire form of a public event."""
    fast = _FAST.get(type(event))
    return fast(event) if fast is not None else _event_to_dict(event)


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
    # Tuples go out as msgpack arrays as they are; only cards need their codes.
    code = _CODE.__getitem__
    return {
        "seat": obs.seat,
        "hand": list(map(code, obs.hand)),
        "total": obs.total,
        "direction": obs.direction,
        "to_move": obs.to_move,
        "owes": obs.owes,
        "hand_sizes": obs.hand_sizes,
        "in_game": obs.in_game,
        "in_round": obs.in_round,
        "face_up": [list(map(code, cards)) if cards else [] for cards in obs.face_up],
        "draw_size": obs.draw_size,
        "discard": list(map(code, obs.discard)),
        "scores": obs.scores,
        "tokens": obs.tokens,
        "round": obs.round,
        "plays": obs.plays,
    }


def act(
    request_id: int,
    observation: dict[str, Any],
    events: list[dict[str, Any]],
    decision_ms: int,
    bank_ms: int | None,
    legal: tuple[Action, ...],
) -> dict[str, Any]:
    """A request for a decision (SPEC §5.3), with the observation map of
    `Game.observation_dict` (or `observation_to_dict`)."""
    return {
        "type": protocol.MSG_ACT,
        "request_id": request_id,
        "observation": observation,
        "events": events,
        "clock": {"decision_ms": decision_ms, "bank_ms": bank_ms},
        "legal": legal_dicts(legal),
    }


_ACTION_HEAD = b"\x83\xa4type\xa6action\xaarequest_id"
_CHOICE = b"\xa6choice"


def canonical_action(request_id: int) -> bytes:
    """The frame of an action answering `request_id` as SPEC §3.4 writes it (keys in
    SPEC order, each value in its shortest form), but for its last byte: the choice,
    when it is under 128 (a positive fixint)."""
    if request_id < 0x80:
        rid = request_id.to_bytes(1, "big")
    elif request_id < 0x100:
        rid = b"\xcc" + request_id.to_bytes(1, "big")
    elif request_id < 0x10000:
        rid = b"\xcd" + request_id.to_bytes(2, "big")
    elif request_id < 0x100000000:
        rid = b"\xce" + request_id.to_bytes(4, "big")
    else:
        rid = b"\xcf" + request_id.to_bytes(8, "big")
    body = _ACTION_HEAD + rid + _CHOICE
    return (len(body) + 1).to_bytes(4, "big") + body


def legal_dicts(legal: tuple[Action, ...]) -> list[dict[str, str]]:
    """The wire forms of the legal actions."""
    return list(map(action_to_dict, legal))


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
