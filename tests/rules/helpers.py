"""Small helpers for rules tests: cards from codes, arranged games, playing by code."""

from __future__ import annotations

from arena.rules import Action, Card, Game, GameConfig


def cards(codes: str) -> list[Card]:
    """Cards from space-separated codes: cards("7 99 R -10 P2")."""
    return [Card.from_code(c) for c in codes.split()]


def arranged(
    config: GameConfig, *hands: str, draw: str = "", discard: str = "", total: int = 0
) -> Game:
    """A game dealt as given: one code string per seat, the draw pile top first."""
    return Game.arranged(
        config,
        [cards(h) for h in hands],
        cards(draw),
        discard=cards(discard),
        total=total,
    )


def play(game: Game, code: str) -> None:
    """Play the card with this code for the seat to move (checked)."""
    game.apply(Action.play(Card.from_code(code)))


def legal_codes(game: Game) -> list[str]:
    """The legal actions as short strings: "7", "quad", "bust 9"."""
    out = []
    for action in game.legal_actions():
        if action.card is None:
            out.append(action.kind.value)
        elif action.kind.value == "bust":
            out.append(f"bust {action.card.code}")
        else:
            out.append(action.card.code)
    return out
