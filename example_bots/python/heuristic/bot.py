"""heuristic: a simple, clearly-better-than-random ONO 99 bot.

The idea: the total only ever has to stay at 98 or less, so number cards are
harmless while it is low and deadly when it is high, while the escape cards (-10,
Reverse, Play 2 / Hold / Double Play, 0) keep you alive at any total. So:

1. Discard four ONO 99 when that is legal (it is then the only choice anyway).
2. Points format, every action a bust: bust the card worth most points (R9.3).
3. 1980 with "ONO on tens": play an ONO 99 whenever it is legal (a dead card otherwise).
4. Owing two cards with the total high: pass the obligation on with a Play 2 or a
   Reverse (1980: Reverse or Hold), if the rules let us (R7.2, R7.5).
5. Play the highest number card that fits, as long as what is left in hand can
   still make the second card when we owe two.
6. Only when no number card fits: spend the cheapest escape, the -10 last.

The arena runs it as `python3 bot.py` in this folder (bot.toml).
"""

from __future__ import annotations

import os
import sys

try:
    from protocol.bot import run
except ImportError:  # `protocol` is not installed: use the copy in this repository
    here = os.path.dirname(os.path.realpath(__file__))
    sys.path.insert(0, os.path.join(here, os.pardir, os.pardir, os.pardir))
    from protocol.bot import run

from protocol import ActMsg, GameStartMsg

LIMIT = 98
"""The highest total a play may leave (R4.2)."""
DANGER = 70
"""Owing two at this total or above, pass the obligation on if we can."""
SPEND_ORDER = ("0", "H", "R", "DP", "P2", "-10")
"""Escape cards, cheapest to give up first."""
POINTS = {"99": 20, "R": 15, "-10": 15, "P2": 15, "H": 15, "DP": 15}
"""What a card in hand costs at the end of a points round (R9.3); numbers: face value."""


def number(card: str) -> int | None:
    """The value of a number card, or None for the others."""
    return int(card) if card.isdigit() and card != "99" else None


def effect(card: str) -> int | None:
    """How much a card adds to the total, if it is a simple adder (numbers, -10, 0-cards)."""
    if card == "-10":
        return -10
    if card in ("R", "P2", "H", "DP"):
        return 0
    return number(card)


class Heuristic:
    """The bot's memory between messages: the edition of the current game."""

    def __init__(self) -> None:
        self.edition = "2022"

    def on_game_start(self, message: GameStartMsg) -> None:
        """Remember the edition: it decides which cards answer a Play 2."""
        self.edition = message["edition"]

    def choose(self, act: ActMsg) -> int:
        """Return the index of the chosen action in act["legal"]."""
        legal = act["legal"]
        obs = act["observation"]
        kinds = [action["kind"] for action in legal]
        if "quad" in kinds:  # rule 1
            return kinds.index("quad")
        cards = [str(action.get("card", "")) for action in legal]
        if all(kind == "bust" for kind in kinds):  # rule 2
            return max(range(len(cards)), key=lambda i: POINTS.get(cards[i], number(cards[i]) or 0))
        plays = {card: i for i, card in enumerate(cards) if kinds[i] == "play"}
        if not plays:  # an action kind from a later protocol version: any index is legal
            return 0
        if "99" in plays:  # rule 3
            return plays["99"]
        total, owes = obs["total"], obs["owes"]
        players_left = sum(obs["in_game"])
        answers = ("R", "H") if self.edition == "1980" else ("R", "P2")
        if owes == 2 and total >= DANGER and players_left > 2:  # rule 4
            for card in answers:
                if card in plays:
                    return plays[card]
        numbers = sorted(
            ((value, card) for card in plays if (value := number(card)) is not None and value > 0),
            reverse=True,
        )
        hand = list(obs["hand"])
        for value, card in numbers:  # rule 5
            if owes == 1 or self._second_card_left(hand, card, total + value):
                return plays[card]
        for card in SPEND_ORDER:  # rule 6
            if card in plays:
                return plays[card]
        return plays[numbers[-1][1]] if numbers else 0

    @staticmethod
    def _second_card_left(hand: list[str], played: str, total: int) -> bool:
        """Whether the hand, without ``played``, still holds a card playable at ``total``."""
        rest = list(hand)
        rest.remove(played)
        return any((step := effect(card)) is not None and total + step <= LIMIT for card in rest)


if __name__ == "__main__":
    bot = Heuristic()
    run(
        bot.choose,
        name="heuristic",
        version="1.0",
        on_game_start=bot.on_game_start,
        exit_at_end=True,
    )
