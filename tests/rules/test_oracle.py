"""An independent model of the rules, checked against the engine over random games.

The model below is written from protocol/RULES.md alone and works from what a seat can
see (its observation and the public events) plus the hand of the seat to move. At every
decision it computes the legal actions (R4.2, R6, R7, R8.4, R9.3) and compares them with
the engine's, list for list; after every action it predicts the public events that
follow (the card and the new total, R4.1, R6.1-R6.7, R8.2; the draw, R4.3; who owes two,
R7; who moves next and in which direction, R4.4, R6.4, R7.2-R7.4; who leaves, R5.1, R9.2,
R9.3; the scoring of a points round, R9.3; the next deal and its starter, R9.4) and
compares them with the engine's. It also checks at every step that every card is in
exactly one place (R2, R5.1) and that a seat's observation holds its own hand only
(R10.2).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.rules import (
    Action,
    ActionKind,
    Bust,
    Card,
    Cause,
    Draw,
    Edition,
    Eliminated,
    Ending,
    Event,
    Format,
    Game,
    GameConfig,
    Observation,
    OutOfRound,
    OwesTwo,
    Play,
    Quad,
    Reshuffle,
    RoundEnd,
    RoundStart,
    TokenLost,
    deck,
)

from .test_properties import any_config

ZERO_CARDS = (Card.REVERSE, Card.PLAY_TWO, Card.HOLD, Card.DOUBLE_PLAY)


def tens_used(game: Game, seat: int) -> bool:
    """R8.4: has `seat` played an ONO 99 on a ten in this turn? Only a seat owing two
    can move again after its own play with nothing public in between."""
    for event in reversed(game.events):
        if isinstance(event, RoundStart):
            return False
        if isinstance(event, Eliminated) and event.cause.is_fault:
            continue  # another seat's fault does not end this turn
        if isinstance(event, Play | Quad | Bust | OutOfRound | Eliminated | TokenLost):
            return isinstance(event, Play) and event.seat == seat and event.card is Card.ONO99
    return False


def playable(card: Card, obs: Observation, config: GameConfig, used: bool) -> bool:
    """R4.2: may `card` be played now (the total stays at most 98)?"""
    if card.is_number:
        return obs.total + int(card) <= 98  # R4.2, R6.1
    if card is Card.ONO99:  # R6.2; R8.4
        return config.ono_on_tens and not used and obs.total % 10 == 0
    if card is Card.DOUBLE_PLAY:  # R7.5: never the first of two owed cards
        return obs.owes != 2
    return card in ZERO_CARDS or card is Card.MINUS_TEN  # R6.4-R6.7: add 0 or less


def expected_legal(game: Game) -> list[Action]:
    config = game.config
    seat = game.to_move
    assert seat is not None
    obs = game.observation(seat)
    used = tens_used(game, seat)
    kinds = sorted(set(obs.hand))
    plays = [Action.play(c) for c in kinds if playable(c, obs, config, used)]
    quad = (
        [Action.quad()]
        if config.edition is Edition.E2022 and obs.hand.count(Card.ONO99) == 4  # R6.3, R8.1
        else []
    )
    busts = []
    if config.format is Format.POINTS:  # R9.3, R4.2 [ruling]: never with an ONO 99
        busts = [
            Action.bust(c)
            for c in kinds
            if c is not Card.ONO99 and not playable(c, obs, config, used)
        ]
    return plays + quad + busts


def card_points(card: Card) -> int:
    """R9.3: a number card its face value, ONO 99 20, every other card 15."""
    if card.is_number:
        return int(card)
    return 20 if card is Card.ONO99 else 15


def ranked(seats: list[int], scores: list[int], worst: int) -> dict[int, int]:
    """R9.3.a/b: `seats` take the places down to `worst`, lowest score first, ties
    sharing the better place."""
    base = worst - len(seats) + 1
    return {s: base + sum(1 for o in seats if scores[o] < scores[s]) for s in seats}


def next_in_round(seat: int, direction: int, in_round: list[bool]) -> int:
    """R4.4: the next player still in the round, in the direction."""
    n = len(in_round)
    s = seat
    for _ in range(n):
        s = (s + direction) % n
        if in_round[s]:
            return s
    raise AssertionError("nobody left in the round")


class Checker:
    """Predicts, step by step, what the engine must do."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.config = game.config
        self.deck = Counter(deck(game.config.edition))
        self.starters = [0]
        n = game.config.players
        self.tokens = [game.config.tokens] * n
        self.in_game = [True] * n
        self.scores = [0] * n
        self.round_hands: list[list[Card]] | None = None
        original = game._end_points_round

        def spy() -> None:  # the hands as they are when the round is scored
            self.round_hands = [list(h) for h in game._hands]
            original()

        game._end_points_round = spy  # type: ignore[method-assign]

    def check_state(self) -> None:
        game = self.game
        places = [*game._draw, *game._discard, *game._out]
        places += [c for s in range(self.config.players) for c in game._hands[s]]
        assert Counter(places) == self.deck  # every card in exactly one place
        assert len(game._draw) + len(game._discard) + len(game._out) + sum(
            len(h) for h in game._hands
        ) == sum(self.deck.values())
        for seat in range(self.config.players):
            obs = game.observation(seat)
            assert obs.hand == game.hand(seat)  # R10.2: its own hand...
            assert not hasattr(obs, "hands")  # ... and no other
            assert obs.draw_size == len(game._draw)  # R10.2: the size only
        if not game.is_over:
            assert list(game.legal_actions()) == expected_legal(game)

    def step(self, action: Action) -> None:
        game = self.game
        seat = game.to_move
        assert seat is not None
        before = game.observation(seat)
        alive = sum(before.in_game)
        in_round = list(before.in_round)
        start = len(game.events)
        hand_before = Counter(before.hand)
        game.apply(action)
        events = game.events[start:]
        self.check_effects(action, seat, before, alive, in_round, hand_before, events)
        self.check_state()

    def fault(self, seat: int, cause: Cause) -> None:
        """The caller removes `seat` (protocol/RULES.md, Faults): its hand is laid face
        up, it is ranked below everyone still in the game, a Play 2 it owed ends with it
        (R7.4); in the tokens format it costs no token, in the points format the round
        ends if one player is left in it; a seat that is not to move changes nothing."""
        game = self.game
        obs = game.observation(seat)
        to_move = game.to_move
        mover = game.observation(to_move) if to_move is not None else None
        alive = sum(obs.in_game)
        in_round = list(obs.in_round)
        was_in_round = in_round[seat]
        start = len(game.events)
        game.eliminate(seat, cause)
        ev = game.events[start:]
        assert ev.pop(0) == Eliminated(seat, cause, obs.hand, alive)
        if not any(isinstance(e, RoundStart) for e in ev):  # a fresh deal clears it
            assert game.observation(0).face_up[seat] == obs.hand
        self.in_game[seat] = False
        in_round[seat] = False
        if alive == 2:
            assert game.is_over
            assert not ev
            assert game.outcome().places.count(1) == 1
        elif self.config.format is Format.POINTS and was_in_round and sum(in_round) == 1:
            self.check_round_end(ev, in_round)
        elif seat == to_move:
            nxt = next_in_round(seat, obs.direction, in_round)
            self.check_settle(ev, nxt, 1, obs.total, obs.direction, in_round)
        else:
            assert not ev
            assert game.to_move == to_move
            assert mover is not None
            assert game.observation(to_move).owes == mover.owes
        self.check_state()

    def check_effects(
        self,
        action: Action,
        seat: int,
        b: Observation,
        alive: int,
        in_round: list[bool],
        hand_before: Counter[Card],
        events: list[Event],
    ) -> None:
        config = self.config
        game = self.game
        ev = list(events)
        direction = b.direction
        total = b.total
        owes_next = 1
        stays = False  # the same seat plays its second card
        if action.kind is ActionKind.PLAY:
            card = action.card
            assert card is not None
            first_of_two = b.owes == 2
            if card.is_number:
                total += int(card)  # R6.1
            elif card is Card.MINUS_TEN:
                total -= 10  # R6.5
                if config.edition is Edition.E2022:
                    total = max(total, 0)  # R6.5; R8.2 in 1980
            answered = False
            if card is Card.REVERSE and alive > 2:  # R6.4 [ruling]: two left, no effect
                direction = -direction
                answered = first_of_two
            if card in (Card.PLAY_TWO, Card.DOUBLE_PLAY):  # R6.6; R7.2; R7.4 [ruling]
                answered = True
            if card is Card.HOLD:  # R6.7, R7.5
                answered = first_of_two
            assert ev.pop(0) == Play(seat, card, total)  # R4.1
            drawn = self.pop_draw(ev, seat)
            assert drawn == 1  # R4.3: the piles never run dry in the arena
            owes_next = 2 if answered else 1
            stays = first_of_two and not answered  # R7.1
        elif action.kind is ActionKind.QUAD:
            assert ev.pop(0) == Quad(seat)  # R6.3
            assert self.pop_draw(ev, seat) == 4
            stays = b.owes == 2  # R6.3 [ruling]: the first of the two cards
        else:
            card = action.card
            assert card is not None
            assert ev.pop(0) == Bust(seat, card)  # R9.3
            assert self.pop_draw(ev, seat) == 1  # draws back up to four
            in_round[seat] = False
        if game.plays == config.play_cap:  # R5.4: the game ends right after the play
            assert game.is_over
            assert not ev
            assert game.outcome().places == tuple(
                1 if b.in_game[s] else game.outcome().places[s] for s in range(len(b.in_game))
            )
            return
        if stays:  # R7.1: the second card; R7.4: or out if there is none
            self.check_settle(ev, seat, 1, total, direction, in_round)
            return
        if sum(in_round) == 1:  # a points round ends with one player left in it
            self.check_round_end(ev, in_round)
            return
        nxt = next_in_round(seat, direction, in_round)
        if owes_next == 2:
            assert ev.pop(0) == OwesTwo(nxt)  # R6.6, R7.2
        self.check_settle(ev, nxt, owes_next, total, direction, in_round)

    def pop_draw(self, ev: list[Event], seat: int) -> int:
        while ev and isinstance(ev[0], Reshuffle):
            ev.pop(0)
        event = ev.pop(0)
        assert isinstance(event, Draw)
        assert event.seat == seat
        return event.count

    def check_settle(
        self,
        ev: list[Event],
        nxt: int,
        owes: int,
        total: int,
        direction: int,
        in_round: list[bool],
    ) -> None:
        """`nxt` is to move; if it may not, it leaves by the rules of the format."""
        game = self.game
        config = self.config
        if not ev:
            assert game.to_move == nxt
            obs = game.observation(nxt)
            assert obs.owes == owes
            assert obs.total == total
            assert obs.direction == direction
            return
        event = ev.pop(0)
        if config.format is Format.SINGLE:  # R5.1, R7.4
            assert isinstance(event, Eliminated)
            assert event.seat == nxt
            assert event.cause is Cause.CANNOT_PLAY
            assert event.place == sum(in_round)  # R5.3: below everyone still in
            in_round[nxt] = False
            self.in_game[nxt] = False
            if sum(in_round) == 1:
                assert game.is_over
                assert not ev
                return
            after = next_in_round(nxt, direction, in_round)
            self.check_settle(ev, after, 1, total, direction, in_round)
        elif config.format is Format.TOKENS:  # R9.2
            if isinstance(event, TokenLost):
                assert event.seat == nxt
                assert self.tokens[nxt] > 0
                self.tokens[nxt] -= 1
                assert event.tokens == self.tokens[nxt]
            else:  # a token to lose and none left
                assert self.tokens[nxt] == 0
                assert isinstance(event, Eliminated)
                assert event.seat == nxt
                assert event.cause is Cause.CANNOT_PLAY
                assert event.place == sum(self.in_game)
                self.in_game[nxt] = False
                if game.is_over:
                    assert not ev
                    return
            self.check_new_round(ev)
        else:  # R9.3: out of the round without a play
            assert event == OutOfRound(nxt)
            in_round[nxt] = False
            if sum(in_round) == 1:
                self.check_round_end(ev, in_round)
                return
            after = next_in_round(nxt, direction, in_round)
            self.check_settle(ev, after, 1, total, direction, in_round)

    def check_round_end(self, ev: list[Event], in_round: list[bool]) -> None:
        game = self.game
        config = self.config
        event = ev.pop(0)
        assert isinstance(event, RoundEnd)  # R9.3
        hands = self.round_hands
        assert hands is not None
        self.round_hands = None
        in_game = [pts is not None for pts in event.hand_points]
        alive = [s for s in range(len(in_game)) if in_game[s]]
        for s in alive:
            expected = sum(card_points(c) for c in hands[s])
            expected += 0 if in_round[s] else 25  # out of the round: +25
            assert event.hand_points[s] == expected
            self.scores[s] += expected  # scores add up over rounds
            assert event.scores[s] == self.scores[s]
        reached = [s for s in alive if self.scores[s] >= config.target]
        places = game.outcome().places if game.is_over else None
        if not reached:
            assert not game.is_over
        elif config.ending is Ending.LOWEST or len(reached) == len(alive):
            assert not ev  # R9.3.b; R9.3.a everyone left at once
            assert places is not None
            assert game.outcome().reason.value == "target"
            for s, place in ranked(alive, self.scores, len(alive)).items():
                assert places[s] == place
            return
        else:  # R9.3.a: those at the target leave the game, ranked among themselves
            expected_places = ranked(reached, self.scores, len(alive))
            out = {}
            while ev and isinstance(ev[0], Eliminated):
                e = ev.pop(0)
                assert e.cause is Cause.TARGET
                assert e.cards == ()
                out[e.seat] = e.place
                self.in_game[e.seat] = False
            assert out == expected_places
            if len(alive) - len(reached) == 1:
                assert game.is_over
                assert not ev
                assert places is not None
                assert [s for s in range(len(places)) if places[s] == 1] == [
                    s for s in alive if s not in reached
                ]
                return
        self.check_new_round(ev)

    def check_new_round(self, ev: list[Event]) -> None:
        """R9.4: a fresh deal, clockwise, the starter one seat on among those in the game."""
        event = ev.pop(0)
        assert isinstance(event, RoundStart)
        in_game = self.in_game
        n = len(in_game)
        prev = self.starters[-1]
        expected = next((prev + k) % n for k in range(1, n + 1) if in_game[(prev + k) % n])
        assert event.starter == expected
        self.starters.append(event.starter)
        assert event.hand_sizes == tuple(4 if in_game[s] else 0 for s in range(n))
        assert event.draw_size == sum(self.deck.values()) - 4 * sum(in_game)
        if not ev:
            assert self.game.observation(0).discard == ()
        self.check_settle(ev, expected, 1, 0, 1, list(in_game))


def run_checked(config: GameConfig, seed: int, rng: random.Random, faults: float = 0.0) -> Game:
    game = Game(config, seed)
    checker = Checker(game)
    first = game.events[0]
    assert isinstance(first, RoundStart)
    assert first.starter == 0  # R3.2 [ruling]
    checker.check_state()
    for _ in range(config.play_cap + config.players):  # faults end at the last player
        if game.is_over:
            break
        if rng.random() < faults:
            live = [s for s in range(config.players) if game.observation(s).in_game[s]]
            checker.fault(rng.choice(live), rng.choice([Cause.TIMEOUT, Cause.ILLEGAL]))
            continue
        actions = game.legal_actions()
        checker.step(actions[rng.randrange(len(actions))])
    assert game.is_over  # within the play cap (R5.4)
    return game


FORMATS: list[dict[str, Any]] = [
    {"format": Format.SINGLE},
    {"format": Format.TOKENS, "tokens": 1},
    {"format": Format.POINTS, "target": 80},
    {"format": Format.POINTS, "target": 80, "ending": Ending.LOWEST},
]


def test_the_engine_follows_the_model_in_every_edition_format_and_size() -> None:
    rng = random.Random(99)
    for edition in Edition:
        for tens in (False, True) if edition is Edition.E1980 else (False,):
            for players in range(2, 7):
                for options in FORMATS:
                    config = GameConfig(
                        players=players, edition=edition, ono_on_tens=tens, **options
                    )
                    for seed in range(12):
                        run_checked(config, seed, rng)


@settings(max_examples=150, deadline=None)
@given(config=any_config(), seed=st.integers(0, 2**64 - 1), choice_seed=st.integers(0, 2**32))
def test_the_engine_follows_the_model_in_random_configurations(
    config: GameConfig, seed: int, choice_seed: int
) -> None:
    run_checked(config, seed, random.Random(choice_seed))


@settings(max_examples=150, deadline=None)
@given(config=any_config(), seed=st.integers(0, 2**64 - 1), choice_seed=st.integers(0, 2**32))
def test_the_engine_follows_the_model_with_faults(
    config: GameConfig, seed: int, choice_seed: int
) -> None:
    """Faults (protocol/RULES.md, Faults) interleaved with plays, in every format."""
    run_checked(config, seed, random.Random(choice_seed), faults=0.02)
