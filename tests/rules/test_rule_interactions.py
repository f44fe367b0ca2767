"""Rules meeting each other: a reshuffle between the two owed cards, the play cap on the
first of them, a fault that leaves two players while a Play 2 is owed, the 1980 -10
and ONO on tens below zero, the starter of a round after the previous starter is out,
a 1980 points hand of four ONO 99 reached on the second owed card or held when two are
owed."""

from __future__ import annotations

from arena.rules import (
    Cause,
    Edition,
    Eliminated,
    EndReason,
    Format,
    GameConfig,
    OutOfRound,
    OwesTwo,
    Reshuffle,
    RoundStart,
)

from .helpers import arranged, legal_codes, play

E80 = Edition.E1980


def test_r4_3_r7_1_a_reshuffle_between_the_two_owed_cards_keeps_the_obligation() -> None:
    """R4.3, R7.1: the draw after the first owed card may reshuffle the discard pile (the
    Play 2 and the first card included); the total is unchanged and the second card is
    still owed."""
    game = arranged(GameConfig(players=2), "P2 1 1 1", "5 6 7 8", draw="2", discard="9 9")
    play(game, "P2")  # seat 0 draws the last card of the draw pile
    assert game.observation(1).owes == 2
    play(game, "5")  # the draw pile is empty: 9 9 P2 5 are reshuffled
    assert game.events[-2] == Reshuffle(4)
    assert game.total == 5
    assert game.to_move == 1
    assert game.observation(1).owes == 1
    assert game.card_count() == 11


def test_r5_4_r7_1_the_play_cap_on_the_first_owed_card_ends_the_game() -> None:
    """R5.4, R7.1: the cap counts every card; reached on the first of two owed cards, the
    game ends there and the players still in it share 1st place."""
    game = arranged(GameConfig(players=2, play_cap=2), "P2 1 1 1", "5 6 7 8", draw="2 3 4")
    play(game, "P2")
    play(game, "5")
    assert game.is_over
    outcome = game.outcome()
    assert outcome.reason is EndReason.PLAY_CAP
    assert outcome.places == (1, 1)


def test_r6_4_r7_2_a_fault_that_leaves_two_players_turns_the_owed_reverse_into_a_0() -> None:
    """R6.4 [ruling], R7.2: "two players" are counted when the Reverse is played. A seat
    owing two after a Play 2 whose table drops to two (another seat faults) may no longer
    answer with a Reverse: it is a 0 and the second card is still owed."""
    game = arranged(GameConfig(players=3), "P2 1 1 1", "R 6 7 8", "2 2 2 2", draw="2 3 4 5 6")
    play(game, "P2")
    game.eliminate(2, Cause.CRASH)
    assert game.to_move == 1
    assert game.observation(1).owes == 2  # another seat's fault leaves the obligation
    play(game, "R")
    obs = game.observation(1)
    assert (game.to_move, obs.owes, obs.direction) == (1, 1, 1)


def test_r8_2_r8_4_r6_5_below_zero_a_ten_is_still_a_ten() -> None:
    """R8.2, R8.4, R6.5: in 1980 a -10 from 5 leaves -5 (no ONO 99 there) and from 0
    leaves -10 (an ONO 99 may be played); in 2022 the same -10 from 5 leaves 0."""
    config = GameConfig(players=2, edition=E80, ono_on_tens=True)
    game = arranged(config, "-10 2 2 2", "99 99 3 3", draw="2 3", total=0)
    play(game, "-10")
    assert game.total == -10
    assert "99" in legal_codes(game)
    game = arranged(config, "-10 2 2 2", "99 99 3 3", draw="2 3", total=5)
    play(game, "-10")
    assert game.total == -5
    assert "99" not in legal_codes(game)
    game = arranged(GameConfig(players=2), "-10 2 2 2", "3 3 3 3", draw="2 3", total=5)
    play(game, "-10")
    assert game.total == 0


def test_r9_4_the_next_starter_is_one_seat_on_from_a_starter_who_is_out() -> None:
    """R9.4, R9.2: the starter moves one seat clockwise each round, skipping players out
    of the game, also when the previous starter is the one who went out."""
    config = GameConfig(players=3, format=Format.TOKENS, tokens=0)
    game = arranged(config, "99 99 99 10", "9 9 9 9", "2 2 2 2", draw="1 1 1", total=90)
    assert [e.seat for e in game.events if isinstance(e, Eliminated)] == [0]
    start = [e for e in game.events if isinstance(e, RoundStart)][-1]
    assert (start.round, start.starter, start.hand_sizes) == (2, 1, (0, 4, 4))


def test_r9_3_r7_4_a_1980_hand_of_four_ono_99_drawn_before_the_second_card() -> None:
    """R9.3 (1980 exception), R7.4: a points player owing two who draws the fourth ONO 99
    after the first card has no card to play or bust with: out of the round without
    playing, and the obligation ends with it."""
    config = GameConfig(players=3, edition=E80, format=Format.POINTS)
    game = arranged(config, "DP 2 2 2", "5 99 99 99", "3 3 3 3", draw="4 99 6 7 8", total=10)
    play(game, "DP")
    play(game, "5")  # seat 1 draws the fourth ONO 99
    assert game.events[-1] == OutOfRound(1)
    assert game.to_move == 2
    assert game.observation(2).owes == 1


def test_r9_3_r7_4_a_1980_points_hand_of_four_ono_99_owing_two_ends_the_obligation() -> None:
    """R9.3 (1980 exception), R7.4, R7.5: a points player who owes two after a Double Play
    and holds four ONO 99 leaves the round without playing, and the obligation ends with
    it: the next player owes one card."""
    config = GameConfig(players=3, edition=E80, format=Format.POINTS)
    game = arranged(config, "DP 2 2 2", "99 99 99 99", "3 3 3 3", draw="4 5 6", total=10)
    play(game, "DP")
    assert game.events[-1] == OutOfRound(1)
    assert game.to_move == 2
    assert game.observation(2).owes == 1
    assert not any(isinstance(e, OwesTwo) and e.seat == 2 for e in game.events)
