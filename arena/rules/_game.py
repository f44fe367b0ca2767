"""The state of one game of ONO 99: legal actions, apply, observations, outcome.

A `Game` knows everything (every hand, the order of the draw pile). Anything that
talks to a bot gets an `Observation` from `Game.observation(seat)`: the public state
(R10.1) plus that seat's own hand, and nothing else (R10.2).

The game moves from decision to decision. At every decision one seat, `to_move`,
chooses one of `legal_actions()`; `apply` plays it and then resolves everything that
needs no decision (draws, reshuffles, eliminations of players who cannot play, the end
of a round, new deals) until the next decision or the end of the game. A caller can
also remove a seat at any time with `eliminate(seat, cause)` (a bot's fault): the
seat leaves through the same path as a player who cannot play (R5.1, R7.4).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from arena.errors import GameOverError, IllegalActionError, RulesError
from arena.rules._cards import CODES, Card, Edition, deck
from arena.rules._config import Ending, Format, GameConfig
from arena.rules._events import (
    FAULTS,
    Bust,
    Cause,
    Draw,
    Eliminated,
    Event,
    OutOfRound,
    OwesTwo,
    Play,
    Quad,
    Reshuffle,
    RoundEnd,
    RoundStart,
    TokenLost,
)
from arena.rules._rng import Rng

MAX_TOTAL = 98
"""The highest total a play may leave (R4.2): reaching 99 is not allowed."""
HAND_SIZE = 4
"""Cards dealt to each player, and the most a hand ever holds (R3.1)."""
POINTS_RULES = 2
"""The revision of the points format's legal actions: 2 since a bust is offered next to
plays (busting on purpose, R4.2 [ruling]), 1 before. A league's store records it for a
points league, and refuses to resume one played under another revision."""
ROUND_ELIMINATED_POINTS = 25
"""Points for being out of a points round (R9.3)."""


class ActionKind(enum.Enum):
    """What an action does."""

    PLAY = "play"
    """Play one card (R4.1)."""
    QUAD = "quad"
    """Discard four ONO 99 cards (2022, R6.3)."""
    BUST = "bust"
    """The busting play of the points format (R9.3, R4.2)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Action:
    """One choice of the seat to move. Identical cards give one action."""

    kind: ActionKind
    """What the action does."""
    card: Card | None = None
    """The card played (PLAY, BUST); None for QUAD."""

    @staticmethod
    def play(card: Card) -> Action:
        """The (shared) action that plays `card`."""
        return _PLAY[card]

    @staticmethod
    def bust(card: Card) -> Action:
        """The (shared) action that busts with `card`."""
        return _BUST[card]

    @staticmethod
    def quad() -> Action:
        """The (shared) action that discards four ONO 99 cards."""
        return _QUAD

    def __str__(self) -> str:
        if self.kind is ActionKind.QUAD:
            return "quad"
        assert self.card is not None
        return f"{self.kind.value} {self.card.code}"


# Module-level aliases: attribute look-ups on enum classes are slow in the hot path.
_ONO99 = Card.ONO99
_REVERSE = Card.REVERSE
_MINUS_TEN = Card.MINUS_TEN
_PLAY_TWO = Card.PLAY_TWO
_HOLD = Card.HOLD
_DOUBLE_PLAY = Card.DOUBLE_PLAY
_KIND_PLAY = ActionKind.PLAY
_KIND_QUAD = ActionKind.QUAD

_CODE_OF = [CODES[Card(value)] for value in range(len(Card))]
"""The wire code of each card, by its value (a list is indexed faster than a dict)."""

_new = tuple.__new__
"""Builds the events of the hot path: a named tuple's own constructor is a Python
function, three times slower."""
_DRAW_ONE = [Draw(seat, 1) for seat in range(6)]
"""The event of a seat drawing one card, by seat (events are values: shared)."""

_PLAY = {card: Action(ActionKind.PLAY, card) for card in Card}
_BUST = {card: Action(ActionKind.BUST, card) for card in Card}
_QUAD = Action(ActionKind.QUAD)


class Elimination(NamedTuple):
    """A seat leaving the game: who, why, the place it finished, and when."""

    seat: int
    cause: Cause
    place: int
    round: int
    plays: int


class ExternalElimination(NamedTuple):
    """An entry of a game's history: the caller removed `seat` for `cause`."""

    seat: int
    cause: Cause


HistoryEntry = Action | ExternalElimination


class EndReason(enum.Enum):
    """Why the game ended."""

    LAST_PLAYER = "last_player"
    """One player is left in the game (R1.1, R9.2, R9.3.a)."""
    PLAY_CAP = "play_cap"
    """The play cap was reached; those still in share the best place (R5.4)."""
    TARGET = "target"
    """A points game ended on its target score (R9.3.a everyone at once, R9.3.b)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a finished game."""

    places: tuple[int, ...]
    """Per seat, the finishing place: 1 is the winner; tied seats share a place."""
    points: tuple[int, ...] | None
    """Per seat, the points scored (points format), else None."""
    tokens: tuple[int, ...] | None
    """Per seat, the tokens left (tokens format), else None."""
    eliminations: tuple[Elimination, ...]
    """Every seat that left the game, in order, with its cause and place."""
    reason: EndReason
    """Why the game ended."""
    rounds: int
    """Rounds dealt."""
    plays: int
    """Plays made (cards played, quad discards and busts)."""

    def order(self) -> list[list[int]]:
        """The seats grouped by place, best first: [[winner], [second], ...]."""
        groups: dict[int, list[int]] = {}
        for seat, place in enumerate(self.places):
            groups.setdefault(place, []).append(seat)
        return [groups[p] for p in sorted(groups)]


class Observation(NamedTuple):
    """What one seat may know (R10): the public state plus its own hand.

    A named tuple rather than a frozen dataclass: the referee builds one per decision.
    """

    seat: int
    """The observing seat."""
    hand: tuple[Card, ...]
    """The seat's own hand, sorted (R10.2)."""
    total: int
    """The running total."""
    direction: int
    """+1 clockwise (seat i to i+1), -1 counter-clockwise."""
    to_move: int | None
    """The seat to act, or None when the game is over."""
    owes: int
    """Cards the seat to move must still play this turn: 1, or 2 under a Play 2 (R7)."""
    hand_sizes: tuple[int, ...]
    """Cards in each seat's hand."""
    in_game: tuple[bool, ...]
    """Per seat, still in the game."""
    in_round: tuple[bool, ...]
    """Per seat, still in the current round (differs from in_game in the points format)."""
    face_up: tuple[tuple[Card, ...], ...]
    """Per seat, the cards it laid face up when eliminated (R5.1)."""
    draw_size: int
    """Cards in the draw pile (its order is secret, R10.2)."""
    discard: tuple[Card, ...]
    """The discard pile, bottom to top."""
    scores: tuple[int, ...] | None
    """Per seat, the score so far (points format), else None."""
    tokens: tuple[int, ...] | None
    """Per seat, the tokens left (tokens format), else None."""
    round: int
    """The current round, from 1."""
    plays: int
    """Plays made so far in the game."""


class Game:
    """One game of ONO 99, from the deal to the outcome. Deterministic given (config, seed)."""

    def __init__(self, config: GameConfig | None = None, seed: int = 0) -> None:
        config = config if config is not None else GameConfig()
        self.config = config
        """The rules this game is played by."""
        self.seed = seed
        """The seed of the game's own random number generator."""
        self.events: list[Event] = []
        """Every public event so far, in order."""
        self.history: list[HistoryEntry] = []
        """Every action applied and every external elimination, in order."""
        n = config.players
        self._n = n
        self._rng = Rng(seed)
        self._e1980 = config.edition is Edition.E1980
        self._tens = config.ono_on_tens
        self._format = config.format
        self._hands: list[list[Card]] = [[] for _ in range(n)]
        self._draw: list[Card] = []
        self._discard: list[Card] = []
        self._out: list[Card] = []
        self._face_up: list[tuple[Card, ...]] = [() for _ in range(n)]
        self._total = 0
        self._direction = 1
        self._in_game = [True] * n
        self._in_round = [True] * n
        self._alive = n
        self._round_alive = n
        self._places = [0] * n
        self._tokens = [config.tokens] * n if config.format is Format.TOKENS else None
        self._scores = [0] * n if config.format is Format.POINTS else None
        self._eliminations: list[Elimination] = []
        self._round = 0
        self._starter = 0
        self._plays = 0
        self._current = 0
        self._owes = 1
        self._tens_used = False
        self._legal: tuple[Action, ...] = ()
        self._reason: EndReason | None = None
        self._cap = config.play_cap
        self._start_round()
        self._settle()

    # ------------------------------------------------------------------ queries

    @property
    def is_over(self) -> bool:
        """True once the game has ended."""
        return self._reason is not None

    @property
    def to_move(self) -> int | None:
        """The seat that must act, or None when the game is over."""
        return None if self._reason is not None else self._current

    @property
    def total(self) -> int:
        """The running total."""
        return self._total

    @property
    def plays(self) -> int:
        """Plays made so far."""
        return self._plays

    def legal_actions(self) -> tuple[Action, ...]:
        """The legal actions of the seat to move, in a fixed order; empty when the game is over."""
        return self._legal

    def observation(self, seat: int) -> Observation:
        """What `seat` may know now: the public state and its own hand (R10)."""
        if not 0 <= seat < self._n:
            raise RulesError(f"no seat {seat} in a game of {self._n}")
        return Observation(
            seat=seat,
            hand=tuple(sorted(self._hands[seat])),
            total=self._total,
            direction=self._direction,
            to_move=self.to_move,
            owes=self._owes,
            hand_sizes=tuple([len(h) for h in self._hands]),
            in_game=tuple(self._in_game),
            in_round=tuple(self._in_round),
            face_up=tuple(self._face_up),
            draw_size=len(self._draw),
            discard=tuple(self._discard),
            scores=tuple(self._scores) if self._scores is not None else None,
            tokens=tuple(self._tokens) if self._tokens is not None else None,
            round=self._round,
            plays=self._plays,
        )

    def observation_dict(self, seat: int) -> dict[str, Any]:
        """`observation(seat)` as the plain map a bot is sent (protocol SPEC §7.3): the
        same fields in the same order, lists for tuples and card codes for cards. Built
        straight from the state, as the referee needs one per decision."""
        if not 0 <= seat < self._n:
            raise RulesError(f"no seat {seat} in a game of {self._n}")
        code = _CODE_OF.__getitem__
        scores = self._scores
        tokens = self._tokens
        return {
            "seat": seat,
            "hand": list(map(code, sorted(self._hands[seat]))),
            "total": self._total,
            "direction": self._direction,
            "to_move": None if self._reason is not None else self._current,
            "owes": self._owes,
            "hand_sizes": list(map(len, self._hands)),
            "in_game": self._in_game.copy(),
            "in_round": self._in_round.copy(),
            "face_up": [list(map(code, cards)) for cards in self._face_up],
            "draw_size": len(self._draw),
            "discard": list(map(code, self._discard)),
            "scores": None if scores is None else scores.copy(),
            "tokens": None if tokens is None else tokens.copy(),
            "round": self._round,
            "plays": self._plays,
        }

    def hand(self, seat: int) -> tuple[Card, ...]:
        """The hand of `seat`, sorted. Omniscient: never hand this to another seat."""
        return tuple(sorted(self._hands[seat]))

    def outcome(self) -> Outcome:
        """The result; raises RulesError while the game is still going."""
        if self._reason is None:
            raise RulesError("the game is not over")
        return Outcome(
            places=tuple(self._places),
            points=tuple(self._scores) if self._scores is not None else None,
            tokens=tuple(self._tokens) if self._tokens is not None else None,
            eliminations=tuple(self._eliminations),
            reason=self._reason,
            rounds=self._round,
            plays=self._plays,
        )

    def card_count(self) -> int:
        """Cards in hands, piles and out of play: always the deck size (for invariant checks)."""
        return (
            sum(len(h) for h in self._hands) + len(self._draw) + len(self._discard) + len(self._out)
        )

    # ------------------------------------------------------------------ changes

    def apply(self, action: Action) -> None:
        """Play `action` for the seat to move; raises IllegalActionError (state unchanged)."""
        if self._reason is not None:
            raise GameOverError("the game is over")
        if action not in self._legal:
            legal = ", ".join(str(a) for a in self._legal)
            raise IllegalActionError(
                f"{action} is not legal for seat {self._current} (legal: {legal})"
            )
        self.apply_unchecked(action)

    def apply_unchecked(self, action: Action) -> None:
        """Play `action`, which the caller guarantees is in `legal_actions()` (fast path)."""
        self.history.append(action)
        kind = action.kind
        if kind is _KIND_PLAY:
            self._play(action.card)  # type: ignore[arg-type]
        elif kind is _KIND_QUAD:
            self._quad()
        else:
            self._bust(action.card)  # type: ignore[arg-type]
        self._settle()

    def eliminate(self, seat: int, cause: Cause) -> None:
        """Remove `seat` from the game now for a fault `cause` (timeout, crash, ...).

        The seat's hand is laid face up; if it was the seat to move, any Play 2 it owed
        ends with it (R7.4) and the next player takes their turn (R5.1).
        """
        if self._reason is not None:
            raise GameOverError("the game is over")
        if cause not in FAULTS:
            raise RulesError(f"{cause.value} is decided by the rules, not by the caller")
        if not 0 <= seat < self._n or not self._in_game[seat]:
            raise RulesError(f"seat {seat} is not in the game")
        self.history.append(ExternalElimination(seat, cause))
        was_current = seat == self._current
        was_in_round = self._in_round[seat]
        self._eliminate(seat, cause)
        if self._reason is None:
            if self._format is Format.POINTS and was_in_round and self._round_alive == 1:
                self._end_points_round()
            elif was_current:
                self._pass_turn(seat, 1)
        self._settle()

    @classmethod
    def arranged(
        cls,
        config: GameConfig,
        hands: Sequence[Sequence[Card]],
        draw: Sequence[Card] = (),
        *,
        discard: Sequence[Card] = (),
        total: int = 0,
        seed: int = 0,
    ) -> Game:
        """A game whose first round starts from the given deal (for tests and puzzles).

        `hands[i]` is seat i's hand, `draw` the draw pile with its top card first,
        `discard` the discard pile bottom first. Later rounds are dealt from the seed as
        usual. Such a game is not replayable from (config, seed, history).
        """
        if len(hands) != config.players:
            raise RulesError(f"{len(hands)} hands for {config.players} players")
        game = cls(config, seed)
        game.events.clear()
        game._hands = [list(h) for h in hands]
        game._draw = list(reversed(draw))
        game._discard = list(discard)
        game._total = total
        game.events.append(RoundStart(1, 0, tuple(len(h) for h in game._hands), len(game._draw)))
        game._begin_turn(0, 1)
        game._settle()
        return game

    @classmethod
    def replay(cls, config: GameConfig, seed: int, history: Iterable[HistoryEntry]) -> Game:
        """Rebuild a game from its configuration, seed and history (checked)."""
        game = cls(config, seed)
        for entry in history:
            if isinstance(entry, ExternalElimination):
                game.eliminate(entry.seat, entry.cause)
            else:
                game.apply(entry)
        return game

    # ------------------------------------------------------------------ internals

    def _start_round(self) -> None:
        """Deal a fresh round among the players still in the game (R3.1, R9.4)."""
        self._round += 1
        if self._round > 1:
            self._starter = self._next_in_game(self._starter)
        cards = deck(self.config.edition)
        self._rng.shuffle(cards)
        self._draw = cards
        self._discard = []
        self._out = []
        self._face_up = [() for _ in range(self._n)]
        self._hands = [[] for _ in range(self._n)]
        self._total = 0
        self._direction = 1
        self._in_round = list(self._in_game)
        self._round_alive = self._alive
        order = [(self._starter + i) % self._n for i in range(self._n)]
        order = [s for s in order if self._in_game[s]]
        for _ in range(HAND_SIZE):
            for seat in order:
                self._hands[seat].append(cards.pop())
        self.events.append(
            RoundStart(
                self._round, self._starter, tuple(len(h) for h in self._hands), len(self._draw)
            )
        )
        self._begin_turn(self._starter, 1)

    def _next_in_game(self, seat: int) -> int:
        n = self._n
        for step in range(1, n + 1):
            s = (seat + step) % n
            if self._in_game[s]:
                return s
        raise AssertionError("no player left in the game")

    def _begin_turn(self, seat: int, owes: int) -> None:
        self._current = seat
        self._owes = owes
        self._tens_used = False
        if owes == 2:
            self.events.append(OwesTwo(seat))

    def _pass_turn(self, seat: int, owes: int) -> None:
        """End `seat`'s turn: the next player in the round, in the direction, moves (R4.4)."""
        n = self._n
        d = self._direction
        in_round = self._in_round
        s = seat
        for _ in range(n):
            s = (s + d) % n
            if in_round[s]:
                self._begin_turn(s, owes)
                return
        raise AssertionError("no player left in the round")

    def _settle(self) -> None:
        """Resolve every step that needs no decision, up to the next decision or the end."""
        while self._reason is None:
            legal = self._compute_legal()
            if legal:
                self._legal = legal
                return
            self._cannot_play(self._current)
        self._legal = ()

    def _compute_legal(self) -> tuple[Action, ...]:
        hand = self._hands[self._current]
        total = self._total
        acts: list[Action] = []
        unplayable: list[Card] = []  # the cards a points player may bust with (R9.3)
        for card in sorted(set(hand)):
            if card <= 10:
                if total + card <= MAX_TOTAL:  # R4.2, R6.1
                    acts.append(_PLAY[card])
                else:
                    unplayable.append(card)
            elif card is _ONO99:
                # R6.2: never in 2022; R8.4: on a total ending in zero, once a turn.
                # Never a busting card either: it can never be played.
                if self._tens and not self._tens_used and total % 10 == 0:
                    acts.append(_PLAY[card])
            elif card is _DOUBLE_PLAY:
                if self._owes != 2:  # R7.5: not the first of two owed cards
                    acts.append(_PLAY[card])
                else:
                    unplayable.append(card)
            else:  # Reverse, -10, Play 2, Hold add 0 or less (R6.4-R6.7)
                acts.append(_PLAY[card])
        if not self._e1980 and hand.count(_ONO99) == 4:  # R6.3: four in a hand of four
            acts.append(_QUAD)
        if self._format is Format.POINTS:
            # R9.3: a player with no playable card must bust with a card of their choice;
            # R4.2 [ruling]: in this format alone a player may bust with a playable card
            # in hand too. Either way the busting card is one that cannot be played.
            acts.extend(_BUST[c] for c in unplayable)
        return tuple(acts)

    def _draw_cards(self, seat: int, count: int) -> None:
        """Draw `count` cards for `seat`, reshuffling the discard pile when needed (R4.3)."""
        hand = self._hands[seat]
        drawn = 0
        for _ in range(count):
            if not self._draw:
                if not self._discard:
                    break  # R4.3 [ruling]: both piles empty, no card is drawn
                self._draw = self._discard
                self._discard = []
                self._rng.shuffle(self._draw)
                self.events.append(Reshuffle(len(self._draw)))
            hand.append(self._draw.pop())
            drawn += 1
        self.events.append(Draw(seat, drawn))

    def _count_play(self) -> bool:
        """Count a play; end the game if that reaches the play cap (R5.4). True if it ended."""
        self._plays += 1
        if self._plays >= self._cap:
            self._finish(EndReason.PLAY_CAP)
            return True
        return False

    def _play(self, card: Card) -> None:
        # The hot path of every game: kept flat on purpose.
        seat = self._current
        hand = self._hands[seat]
        hand.remove(card)
        self._discard.append(card)
        first_of_two = self._owes == 2
        answered = False  # R7.2: the obligation passes on to the next player
        if card <= 10:
            self._total += card  # R6.1
        elif card is _MINUS_TEN:
            self._total -= 10  # R6.5
            if self._total < 0 and not self._e1980:  # R8.2: 1980 totals may go negative
                self._total = 0
        elif card is _REVERSE:
            if self._alive > 2:  # R6.4 [ruling]: two left in the game, a Reverse does nothing
                self._direction = -self._direction
                answered = first_of_two
        elif card is _PLAY_TWO or card is _DOUBLE_PLAY:
            answered = True  # R6.6; R7.2 as an answer; R7.4 as a second card
        elif card is _HOLD:
            answered = first_of_two  # R7.5
        else:  # ONO 99 on a ten (R8.4)
            self._tens_used = True
        events = self.events
        events.append(_new(Play, (seat, card, self._total)))
        if self._draw:  # R4.3, the common case of `_draw_cards(seat, 1)`
            hand.append(self._draw.pop())
            events.append(_DRAW_ONE[seat])
        else:
            self._draw_cards(seat, 1)
        if self._count_play():
            return
        if first_of_two and not answered:
            self._owes = 1  # R7.1: now the second card
            return
        self._pass_turn(seat, 2 if answered else 1)

    def _quad(self) -> None:
        seat = self._current
        hand = self._hands[seat]
        for _ in range(HAND_SIZE):
            hand.remove(_ONO99)
            self._discard.append(_ONO99)
        self.events.append(Quad(seat))
        self._draw_cards(seat, HAND_SIZE)  # R6.3: the four new cards are the refill
        if self._count_play():
            return
        if self._owes == 2:  # R6.3 [ruling]: counts as one of the two cards
            self._owes = 1
            return
        self._pass_turn(seat, 1)

    def _bust(self, card: Card) -> None:
        seat = self._current
        hand = self._hands[seat]
        hand.remove(card)
        self._discard.append(card)  # R9.3 [ruling]: the total stays as it was
        self.events.append(Bust(seat, card))
        self._leave_round(seat)
        self._draw_cards(seat, HAND_SIZE - len(hand))  # R9.3: draw back up to four
        if self._count_play():
            return
        if self._round_alive == 1:
            self._end_points_round()
        else:
            self._pass_turn(seat, 1)  # R7.4: an obligation ends with the busted player

    def _leave_round(self, seat: int) -> None:
        self._in_round[seat] = False
        self._round_alive -= 1

    def _cannot_play(self, seat: int) -> None:
        """`seat` has no legal action at all (R5.1)."""
        fmt = self._format
        if fmt is Format.SINGLE:
            self._eliminate(seat, Cause.CANNOT_PLAY)
            if self._reason is None:
                self._pass_turn(seat, 1)  # R7.4: the obligation ends with them
        elif fmt is Format.TOKENS:
            assert self._tokens is not None
            # R9.2: the round ends at the first player who cannot play.
            if self._tokens[seat] == 0:
                self._eliminate(seat, Cause.CANNOT_PLAY)
            else:
                self._tokens[seat] -= 1
                self.events.append(TokenLost(seat, self._tokens[seat]))
            if self._reason is None:
                self._start_round()
        else:
            # R9.3 (1980): a hand of only ONO 99 cards ends the turn without a play and is
            # out of the round; [ruling] so is a hand with no card at all.
            self.events.append(OutOfRound(seat))
            self._leave_round(seat)
            if self._round_alive == 1:
                self._end_points_round()
            else:
                self._pass_turn(seat, 1)

    def _eliminate(self, seat: int, cause: Cause) -> None:
        """Take `seat` out of the game, ranked below everyone still in it (R5.3)."""
        place = self._alive
        self._out_of_game(seat)
        hand = self._hands[seat]
        cards = tuple(sorted(hand))
        self._face_up[seat] = cards
        self._out.extend(hand)  # R5.1: laid face up, out of play, never reshuffled
        hand.clear()
        self._places[seat] = place
        self._eliminations.append(Elimination(seat, cause, place, self._round, self._plays))
        self.events.append(Eliminated(seat, cause, cards, place))
        if self._alive == 1:
            self._finish(EndReason.LAST_PLAYER)

    def _out_of_game(self, seat: int) -> None:
        self._in_game[seat] = False
        self._alive -= 1
        if self._in_round[seat]:
            self._leave_round(seat)

    def _end_points_round(self) -> None:
        """Score a points round (R9.3) and apply the ending (R9.3.a, R9.3.b)."""
        scores = self._scores
        assert scores is not None
        hand_points: list[int | None] = [None] * self._n
        for seat in range(self._n):
            if self._in_game[seat]:
                # R8.5 [ruling]: the arena draws for the bot, so no card is ever "short".
                pts = sum(c.score for c in self._hands[seat])
                if not self._in_round[seat]:
                    pts += ROUND_ELIMINATED_POINTS
                hand_points[seat] = pts
                scores[seat] += pts
        self.events.append(
            RoundEnd(
                self._round,
                tuple(hand_points),
                tuple(s if self._in_game[i] else None for i, s in enumerate(scores)),
            )
        )
        alive = [s for s in range(self._n) if self._in_game[s]]
        reached = [s for s in alive if scores[s] >= self.config.target]
        if not reached:
            self._start_round()
        elif self.config.ending is Ending.LOWEST or len(reached) == len(alive):
            self._rank_by_score(alive)  # R9.3.b; R9.3.a everyone at once
            self._finish(EndReason.TARGET)
        else:
            self._rank_by_score(reached, cause=Cause.TARGET)  # R9.3.a
            if self._alive == 1:
                self._finish(EndReason.LAST_PLAYER)
            else:
                self._start_round()

    def _rank_by_score(self, seats: Sequence[int], cause: Cause | None = None) -> None:
        """Give `seats` the worst places still free, ranked by score, lowest first."""
        scores = self._scores
        assert scores is not None
        base = self._alive - len(seats) + 1
        for seat in seats:
            better = sum(1 for other in seats if scores[other] < scores[seat])
            self._places[seat] = base + better
        if cause is None:
            return
        for seat in sorted(seats, key=lambda s: (self._places[s], s), reverse=True):
            self._out_of_game(seat)
            place = self._places[seat]
            self._eliminations.append(Elimination(seat, cause, place, self._round, self._plays))
            self.events.append(Eliminated(seat, cause, (), place))

    def _finish(self, reason: EndReason) -> None:
        """End the game: those still in share the best remaining place (R5.2, R5.4)."""
        for seat in range(self._n):
            if self._in_game[seat] and self._places[seat] == 0:
                self._places[seat] = 1
        self._reason = reason
        self._legal = ()
