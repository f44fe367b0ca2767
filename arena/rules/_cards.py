"""Cards, editions and decks (R2)."""

from __future__ import annotations

import enum


class Edition(enum.Enum):
    """The edition of the game: its deck and its card rules (R2, R8)."""

    E2022 = "2022"
    """The 2022 Mattel edition (default): 112 cards, four-ONO-99 discard, total floored at 0."""
    E1980 = "1980"
    """The 1980 International Games edition: 54 cards, Hold and Double Play, negative totals."""


class Card(enum.IntEnum):
    """A card kind. Number cards have their face value as their integer value."""

    N0 = 0
    N1 = 1
    N2 = 2
    N3 = 3
    N4 = 4
    N5 = 5
    N6 = 6
    N7 = 7
    N8 = 8
    N9 = 9
    N10 = 10
    ONO99 = 11
    """ONO 99: never playable in 2022 (R6.2); in 1980 only under "ONO on tens" (R8.4)."""
    REVERSE = 12
    """Reverse: adds 0 and reverses the direction (R6.4)."""
    MINUS_TEN = 13
    """-10: subtracts 10 (R6.5)."""
    PLAY_TWO = 14
    """Play 2 (2022): the next player plays two cards (R6.6, R7)."""
    HOLD = 15
    """Hold (1980): adds 0; answers a Double Play (R6.7, R7.5)."""
    DOUBLE_PLAY = 16
    """Double Play (1980): the next player plays two cards (R7.5)."""

    @property
    def code(self) -> str:
        """The card's short, stable code on the wire and in logs ("7", "99", "R", "-10", ...)."""
        return CODES[self]

    @property
    def is_number(self) -> bool:
        """True for the number cards 0..10."""
        return self <= 10

    @property
    def score(self) -> int:
        """Points this card counts in a hand at the end of a points round (R9.3)."""
        if self <= 10:
            return int(self)
        if self is Card.ONO99:
            return 20
        return 15

    @classmethod
    def from_code(cls, code: str) -> Card:
        """The card with this wire code; raises ValueError for an unknown code."""
        try:
            return _BY_CODE[code]
        except KeyError:
            raise ValueError(f"unknown card code {code!r}") from None


CODES: dict[Card, str] = {Card(v): str(v) for v in range(11)} | {
    Card.ONO99: "99",
    Card.REVERSE: "R",
    Card.MINUS_TEN: "-10",
    Card.PLAY_TWO: "P2",
    Card.HOLD: "H",
    Card.DOUBLE_PLAY: "DP",
}
_BY_CODE: dict[str, Card] = {code: card for card, code in CODES.items()}

NAMES: dict[Card, str] = {Card(v): str(v) for v in range(11)} | {
    Card.ONO99: "ONO 99",
    Card.REVERSE: "Reverse",
    Card.MINUS_TEN: "-10",
    Card.PLAY_TWO: "Play 2",
    Card.HOLD: "Hold",
    Card.DOUBLE_PLAY: "Double Play",
}

DECK_COUNTS: dict[Edition, dict[Card, int]] = {
    # R2.1: 0 x8, 1..9 x6, 10 x10, ONO 99 x10, Reverse x10, -10 x10, Play 2 x10.
    Edition.E2022: {Card.N0: 8}
    | {Card(v): 6 for v in range(1, 10)}
    | {Card.N10: 10, Card.ONO99: 10, Card.REVERSE: 10, Card.MINUS_TEN: 10, Card.PLAY_TWO: 10},
    # R2.2: 2..9 x3, 10 x10, Hold x4, Reverse x6, -10 x4, Double Play x2, ONO 99 x4.
    Edition.E1980: {Card(v): 3 for v in range(2, 10)}
    | {
        Card.N10: 10,
        Card.HOLD: 4,
        Card.REVERSE: 6,
        Card.MINUS_TEN: 4,
        Card.DOUBLE_PLAY: 2,
        Card.ONO99: 4,
    },
}


def deck(edition: Edition) -> list[Card]:
    """A fresh, unshuffled deck of the edition, in card order (R2)."""
    cards: list[Card] = []
    for card, count in DECK_COUNTS[edition].items():
        cards.extend([card] * count)
    return cards
