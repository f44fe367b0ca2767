"""Scenario tests for R6 and R7: the special cards and Play 2."""

from __future__ import annotations

import pytest

from arena.errors import IllegalActionError
from arena.rules import Action, Card, Cause, Eliminated, Format, GameConfig, OwesTwo, Quad

from .helpers import arranged, cards, legal_codes, play

G2 = GameConfig(players=2)
G3 = GameConfig(players=3)
G4 = GameConfig(players=4)


def test_r6_1_number_card_adds_its_value() -> None:
    """R6.1"""
    for value in range(11):
        code = str(value)
        game = arranged(G2, f"{code} 1 1 1", "1 1 1 1", draw="1", total=50)
        play(game, code)
        assert game.total == 50 + value


def test_r6_2_ono_99_can_never_be_played_in_2022() -> None:
    """R6.2"""
    for total in (0, 10, 50):
        game = arranged(G2, "99 99 5 R", "1 1 1 1", draw="1", total=total)
        assert "99" not in legal_codes(game)
        with pytest.raises(IllegalActionError):
            play(game, "99")


def test_r6_3_four_ono_99_discard_draws_four_and_passes_the_turn() -> None:
    """R6.3"""
    game = arranged(G3, "99 99 99 99", "1 1 1 1", "1 1 1 1", draw="2 3 4 5 6", total=40)
    assert legal_codes(game) == ["quad"]  # the only way to stay in
    game.apply(Action.quad())
    assert game.hand(0) == tuple(cards("2 3 4 5"))
    assert game.total == 40
    assert Quad(0) in game.events
    assert game.observation(0).discard == tuple(cards("99 99 99 99"))
    assert game.to_move == 1


def test_r6_3_ruling_declining_the_discard_is_not_offered_in_any_format() -> None:
    """R6.3 [ruling]: a player with four ONO 99 and no other playable card may decline
    the discard and be out; the arena offers only the discard, in the points format
    too (where the hand has no card to bust with: an ONO 99 never busts)."""
    for format in Format:
        config = GameConfig(players=3, format=format)
        game = arranged(config, "99 99 99 99", "1 1 1 1", "1 1 1 1", draw="2 3 4 5 6", total=95)
        assert legal_codes(game) == ["quad"], format


def test_r6_3_quad_only_with_all_four_in_hand() -> None:
    """R6.3: three ONO 99 and a playable card give no discard."""
    game = arranged(G2, "99 99 99 5", "1 1 1 1", draw="2 3 4 5", total=0)
    assert legal_codes(game) == ["5"]


def test_r6_3_ruling_under_play_2_quad_counts_as_the_first_card() -> None:
    """R6.3 [ruling]"""
    game = arranged(G3, "P2 1 1 1", "99 99 99 99", "1 1 1 1", draw="7 2 3 4 5 6", total=40)
    play(game, "P2")
    assert game.to_move == 1
    assert game.observation(1).owes == 2
    game.apply(Action.quad())
    assert game.to_move == 1  # one more card to play
    assert game.observation(1).owes == 1
    assert game.hand(1) == tuple(cards("2 3 4 5"))
    play(game, "2")
    assert game.to_move == 2
    assert game.observation(2).owes == 1


def test_r6_4_reverse_changes_direction_with_three_or_more() -> None:
    """R6.4"""
    game = arranged(G3, "R 1 1 1", "1 1 1 1", "1 1 1 1", draw="1 1 1", total=30)
    play(game, "R")
    assert game.total == 30
    assert game.observation(0).direction == -1
    assert game.to_move == 2


def test_r6_4_reverse_is_a_0_with_two_players_left() -> None:
    """R6.4 [ruling]: two players still in the game."""
    game = arranged(G2, "R 1 1 1", "1 1 1 1", draw="1 1 1", total=30)
    play(game, "R")
    assert game.observation(0).direction == 1
    assert game.to_move == 1
    # Three seats, one of them out: also two players left.
    game3 = arranged(G3, "1 R 1 1", "9 9 9 9", "1 1 1 1", draw="1 1 1 1", total=89)
    play(game3, "1")  # 90; seat 1 is out
    assert game3.to_move == 2
    play(game3, "1")
    play(game3, "R")
    assert game3.observation(0).direction == 1
    assert game3.to_move == 2


def test_r6_4_ruling_with_two_left_reverse_does_not_answer_play_2() -> None:
    """R6.4 [ruling], R7.2"""
    game = arranged(G2, "P2 1 1 1", "R 2 2 2", draw="1 1 1 1", total=30)
    play(game, "P2")
    play(game, "R")
    assert game.to_move == 1  # still owes the second card
    assert game.observation(1).owes == 1
    play(game, "2")
    assert game.to_move == 0
    assert game.observation(0).owes == 1


def test_r6_5_minus_ten_subtracts_and_floors_at_zero() -> None:
    """R6.5"""
    game = arranged(G2, "-10 -10 1 1", "1 1 1 1", draw="1 1 1", total=25)
    play(game, "-10")
    assert game.total == 15
    play(game, "1")
    play(game, "-10")
    assert game.total == 6
    floor = arranged(G2, "-10 1 1 1", "1 1 1 1", draw="1", total=4)
    play(floor, "-10")
    assert floor.total == 0


def test_r6_6_play_2_makes_the_next_player_owe_two() -> None:
    """R6.6"""
    game = arranged(G3, "P2 1 1 1", "1 1 1 1", "1 1 1 1", draw="1 1 1 1", total=30)
    play(game, "P2")
    assert game.total == 30
    assert game.to_move == 1
    assert game.events[-1] == OwesTwo(1)
    assert all(game.observation(s).owes == 2 for s in range(3))  # public (R10.1)


def test_r7_1_owing_two_play_draw_play_draw() -> None:
    """R7.1"""
    game = arranged(G3, "P2 1 1 1", "2 3 4 4", "1 1 1 1", draw="1 5 6 1", total=30)
    play(game, "P2")  # seat 0 draws 1
    play(game, "2")  # seat 1 draws 5
    assert game.to_move == 1
    assert game.hand(1) == tuple(cards("3 4 4 5"))
    play(game, "5")  # the card just drawn may be the second card
    assert game.hand(1) == tuple(cards("3 4 4 6"))
    assert game.total == 37
    assert game.to_move == 2
    assert game.observation(2).owes == 1


def test_r7_2_answer_with_reverse_next_in_new_direction_owes_two() -> None:
    """R7.2"""
    game = arranged(G4, "P2 1 1 1", "R 2 2 2", "1 1 1 1", "3 3 3 3", draw="1 1 1 1 1", total=30)
    play(game, "P2")
    play(game, "R")  # answered: only this one card
    assert game.to_move == 0
    assert game.observation(0).owes == 2
    play(game, "1")
    assert game.to_move == 0
    play(game, "1")
    assert game.to_move == 3  # direction is now counter-clockwise
    assert game.observation(3).owes == 1


def test_r7_2_answer_with_play_2() -> None:
    """R7.2"""
    game = arranged(G3, "P2 1 1 1", "P2 2 2 2", "1 1 1 1", draw="1 1 1 1 1", total=30)
    play(game, "P2")
    play(game, "P2")
    assert game.to_move == 2
    assert game.observation(2).owes == 2


def test_r7_3_obligations_never_add_up() -> None:
    """R7.3"""
    game = arranged(G3, "P2 1 1 1", "P2 2 2 2", "P2 3 3 3", draw="1 1 1 1 1 1 1 1 1", total=30)
    play(game, "P2")
    play(game, "P2")
    play(game, "P2")
    assert game.to_move == 0
    assert game.observation(0).owes == 2
    play(game, "1")
    play(game, "1")
    assert game.to_move == 1  # exactly two cards, not four or six
    assert game.observation(1).owes == 1


def test_r7_4_cannot_play_second_card_eliminated_and_obligation_ends() -> None:
    """R7.4"""
    game = arranged(G3, "P2 1 1 1", "5 9 9 9", "1 1 1 1", draw="1 9 1 1", total=90)
    play(game, "P2")
    play(game, "5")  # 95, draws a 9: no second card
    assert Eliminated(1, Cause.CANNOT_PLAY, tuple(cards("9 9 9 9")), 3) in game.events
    assert game.to_move == 2
    assert game.observation(2).owes == 1
    assert OwesTwo(2) not in game.events


def test_r7_4_ruling_cannot_play_even_the_first_card() -> None:
    """R7.4 [ruling]"""
    game = arranged(G3, "P2 1 1 1", "9 9 9 9", "1 1 1 1", draw="1 1 1", total=90)
    play(game, "P2")
    assert game.observation(0).in_game == (True, False, True)
    assert game.to_move == 2
    assert game.observation(2).owes == 1


def test_r7_4_ruling_second_card_play_2_and_reverse_are_ordinary_plays() -> None:
    """R7.4 [ruling]"""
    game = arranged(G3, "P2 1 1 1", "1 P2 2 2", "1 1 1 1", draw="1 1 1 1", total=30)
    play(game, "P2")
    play(game, "1")
    play(game, "P2")  # second card
    assert game.to_move == 2
    assert game.observation(2).owes == 2

    game = arranged(G3, "P2 1 1 1", "1 R 2 2", "1 1 1 1", draw="1 1 1 1", total=30)
    play(game, "P2")
    play(game, "1")
    play(game, "R")  # second card: reverses
    assert game.observation(0).direction == -1
    assert game.to_move == 0
    assert game.observation(0).owes == 1


def test_r6_4_ruling_counts_players_in_the_game_not_in_the_round() -> None:
    """R6.4 [ruling]: in a points round, busted players still count as in the game."""
    config = GameConfig(players=3, format=Format.POINTS, target=1000)
    game = arranged(config, "9 9 9 9", "P2 1 1 1", "R 2 2 2", draw="5 5 5 5", total=95)
    game.apply(Action.bust(Card.N9))  # seat 0 is out of the round, still in the game
    play(game, "P2")
    play(game, "R")  # three in the game: the Reverse answers and reverses
    assert game.observation(0).direction == -1
    assert game.to_move == 1
    assert game.observation(1).owes == 2
