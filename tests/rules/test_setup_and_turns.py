"""Scenario tests for R1-R5: components, set-up, a turn, elimination and winning."""

from __future__ import annotations

import pytest

from arena.errors import ConfigError, GameOverError, IllegalActionError
from arena.rules import (
    Action,
    Card,
    Cause,
    Draw,
    Edition,
    Eliminated,
    EndReason,
    Format,
    Game,
    GameConfig,
    Play,
    Reshuffle,
    deck,
)

from .helpers import arranged, cards, legal_codes, play

G2 = GameConfig(players=2)
G3 = GameConfig(players=3)
G4 = GameConfig(players=4)


def test_r2_1_deck_2022_has_112_cards() -> None:
    """R2.1"""
    d = deck(Edition.E2022)
    assert len(d) == 112
    assert d.count(Card.N0) == 8
    assert all(d.count(Card(v)) == 6 for v in range(1, 10))
    for card in (Card.N10, Card.ONO99, Card.REVERSE, Card.MINUS_TEN, Card.PLAY_TWO):
        assert d.count(card) == 10
    assert Card.HOLD not in d
    assert Card.DOUBLE_PLAY not in d


def test_r2_2_deck_1980_has_54_cards() -> None:
    """R2.2"""
    d = deck(Edition.E1980)
    assert len(d) == 54
    assert all(d.count(Card(v)) == 3 for v in range(2, 10))
    assert Card.N0 not in d
    assert Card.N1 not in d
    assert d.count(Card.N10) == 10
    assert d.count(Card.HOLD) == 4
    assert d.count(Card.REVERSE) == 6
    assert d.count(Card.MINUS_TEN) == 4
    assert d.count(Card.DOUBLE_PLAY) == 2
    assert d.count(Card.ONO99) == 4
    assert Card.PLAY_TWO not in d


@pytest.mark.parametrize("players", [0, 1, 7, 10])
def test_r2_3_refuses_fewer_than_2_or_more_than_6_players(players: int) -> None:
    """R2.3"""
    with pytest.raises(ConfigError, match="2 to 6"):
        GameConfig(players=players)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("edition", list(Edition))
def test_r3_1_deal_four_cards_each_rest_is_draw_pile(players: int, edition: Edition) -> None:
    """R2.3, R3.1"""
    game = Game(GameConfig(players=players, edition=edition), seed=7)
    obs = game.observation(0)
    assert obs.hand_sizes == (4,) * players
    assert obs.draw_size == len(deck(edition)) - 4 * players
    assert obs.discard == ()
    assert obs.total == 0
    assert game.card_count() == len(deck(edition))


def test_r3_2_seat_0_starts_and_play_goes_clockwise() -> None:
    """R3.2"""
    game = arranged(G4, "1 1 1 1", "1 1 1 1", "1 1 1 1", "1 1 1 1", draw="2 2 2 2 2 2")
    assert game.to_move == 0
    assert game.observation(0).direction == 1
    seen = []
    for _ in range(5):
        seen.append(game.to_move)
        play(game, "1")
    assert seen == [0, 1, 2, 3, 0]


def test_r4_1_play_adds_to_total_and_everyone_learns_card_and_total() -> None:
    """R4.1, R6.1"""
    game = arranged(G3, "7 1 1 1", "2 2 2 2", "3 3 3 3", draw="5 5 5", total=10)
    play(game, "7")
    assert game.total == 17
    assert Play(0, Card.N7, 17) in game.events
    for seat in range(3):
        assert game.observation(seat).discard == (Card.N7,)
        assert game.observation(seat).total == 17


def test_r4_2_a_card_that_takes_the_total_to_99_is_not_playable() -> None:
    """R4.2"""
    game = arranged(G2, "5 4 6 7", "1 1 1 1", draw="1 1 1", total=94)
    assert legal_codes(game) == ["4"]  # 94 + 4 = 98 is allowed, 99 is not
    play(game, "4")
    assert game.total == 98


def test_r4_2_ruling_no_voluntary_bust_illegal_action_leaves_state_unchanged() -> None:
    """R4.2 [ruling]: a player with a playable card must play a playable one."""
    game = arranged(G2, "5 3 6 7", "1 1 1 1", draw="1 1 1", total=94)
    before = (game.observation(0), game.observation(1), list(game.events), game.to_move)
    with pytest.raises(IllegalActionError, match="play 5 is not legal"):
        play(game, "5")
    with pytest.raises(IllegalActionError):
        game.apply(Action.bust(Card.N5))  # no busting outside the points format
    with pytest.raises(IllegalActionError):
        play(game, "10")  # not even in the hand
    assert (game.observation(0), game.observation(1), list(game.events), game.to_move) == before


def test_r4_3_draw_after_playing() -> None:
    """R4.3"""
    game = arranged(G2, "1 2 3 4", "1 2 3 4", draw="9 8")
    play(game, "1")
    assert game.hand(0) == tuple(cards("2 3 4 9"))
    assert game.events[-1] == Draw(0, 1)
    assert game.observation(1).draw_size == 1


def test_r4_3_empty_draw_pile_reshuffles_discard_total_unchanged() -> None:
    """R4.3"""
    game = arranged(G2, "1 2 3 4", "1 2 3 4", draw="5", discard="6 7")
    play(game, "1")  # draws the last card, 5
    assert game.observation(0).draw_size == 0
    play(game, "1")  # discard 6 7 1 1 becomes the draw pile
    assert Reshuffle(4) in game.events
    assert game.total == 2
    obs = game.observation(0)
    assert obs.discard == ()
    assert obs.draw_size == 3
    assert game.card_count() == 2 * 4 + 1 + 2


def test_r4_3_the_card_just_played_is_part_of_the_reshuffled_discard_pile() -> None:
    """R4.3: the whole discard pile, the card just played included, becomes the draw pile."""
    game = arranged(G2, "1 2 3 4", "1 2 3 4")
    play(game, "1")
    assert game.events[-2:] == [Reshuffle(1), Draw(0, 1)]
    assert game.hand(0) == tuple(cards("1 2 3 4"))
    assert game.total == 1


def test_r4_3_ruling_both_piles_empty_no_card_is_drawn() -> None:
    """R4.3 [ruling]: drawing several cards (R9.3 refill) can empty both piles."""
    config = GameConfig(players=3, format=Format.POINTS)
    game = arranged(config, "9 9", "1 1 1 1", "1 1 1 1", total=95)
    game.apply(Action.bust(Card.N9))  # refill to four: only the bust card is there to draw
    assert game.events[-2:] == [Reshuffle(1), Draw(0, 1)]
    assert game.observation(1).hand_sizes == (2, 4, 4)


def test_r4_4_turn_passes_to_next_player_still_in_game() -> None:
    """R4.4, R5.1: eliminated players are skipped."""
    game = arranged(
        G4, "1 1 1 1", "9 9 9 9", "1 1 1 1", "1 1 1 1", draw="1 1 1 1 1 1 1 1", total=90
    )
    play(game, "1")  # 91; seat 1 holds only 9s: 100 is too much
    assert game.observation(0).in_game == (True, False, True, True)
    order = []
    for _ in range(4):
        order.append(game.to_move)
        play(game, "1")
    assert order == [2, 3, 0, 2]


def test_r5_1_r5_2_r5_3_elimination_winning_and_finishing_order() -> None:
    """R5.1, R5.2, R5.3, R1.1"""
    game = arranged(G3, "1 9 9 9", "9 9 9 9", "2 3 3 3", draw="9 8 8 8", total=95)
    play(game, "1")  # 96; seat 1 cannot play anything
    assert Eliminated(1, Cause.CANNOT_PLAY, tuple(cards("9 9 9 9")), 3) in game.events
    obs = game.observation(2)
    assert obs.face_up[1] == tuple(cards("9 9 9 9"))  # laid face up
    assert obs.hand_sizes[1] == 0
    assert game.to_move == 2
    play(game, "2")  # 98; seat 0 holds 9 9 9 9
    assert game.is_over
    outcome = game.outcome()
    assert outcome.places == (2, 3, 1)
    assert outcome.order() == [[2], [0], [1]]
    assert [e.seat for e in outcome.eliminations] == [1, 0]
    assert outcome.reason is EndReason.LAST_PLAYER
    with pytest.raises(GameOverError):
        play(game, "3")


def test_r5_1_hand_laid_face_up_is_never_reshuffled() -> None:
    """R5.1"""
    game = arranged(G3, "1 1 1 1", "9 9 9 9", "1 1 1 1", draw="1", discard="2 2", total=90)
    play(game, "1")  # draws the last card; seat 1 is out with four 9s laid face up
    play(game, "1")  # seat 2: reshuffles discard (2 2 1 1) and draws
    reshuffles = [e for e in game.events if isinstance(e, Reshuffle)]
    assert reshuffles == [Reshuffle(4)]
    assert game.card_count() == 3 * 4 + 1 + 2


def test_r5_2_ruling_one_player_at_a_time_in_turn_order() -> None:
    """R5.2 [ruling]: nobody can play; they go out one at a time, the last one left wins."""
    game = arranged(G3, "9 9 9 9", "9 9 9 9", "9 9 9 9", total=95)
    assert game.is_over
    assert game.outcome().places == (3, 2, 1)


def test_r5_4_play_cap_ends_the_game_as_a_draw_among_those_left() -> None:
    """R5.4"""
    config = GameConfig(players=3, play_cap=3)
    game = arranged(config, "1 1 1 1", "9 9 9 9", "1 1 1 1", draw="1 1 1 1 1 1", total=90)
    play(game, "1")  # seat 1 is out (place 3)
    play(game, "1")
    assert not game.is_over
    play(game, "1")
    assert game.is_over
    outcome = game.outcome()
    assert outcome.reason is EndReason.PLAY_CAP
    assert outcome.places == (1, 3, 1)
    assert outcome.plays == 3
    assert GameConfig().play_cap == 5000


@pytest.mark.parametrize("cap", [0, 100_001])
def test_r5_4_play_cap_is_bounded(cap: int) -> None:
    """R5.4: the cap is configurable within 1..100,000 (frames stay under 16 MiB)."""
    with pytest.raises(ConfigError, match="play_cap"):
        GameConfig(play_cap=cap)
