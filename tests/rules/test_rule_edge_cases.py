"""Edge cases the rules imply, rule by rule: boundaries, the 1980 limits, Play 2 with a
quad, the play cap in the formats with rounds, the scoring of every card kind."""

from __future__ import annotations

from arena.rules import (
    Action,
    Card,
    Draw,
    Edition,
    Ending,
    EndReason,
    Format,
    GameConfig,
    OutOfRound,
    OwesTwo,
    Quad,
    Reshuffle,
    RoundEnd,
    RoundStart,
    TokenLost,
)

from .helpers import arranged, cards, legal_codes, play

E80 = Edition.E1980


def test_r4_2_a_zero_card_is_playable_at_98_a_1_is_not() -> None:
    """R4.2, R6.4, R6.5, R6.6: at exactly 98 only cards that add nothing may be played."""
    game = arranged(GameConfig(players=3), "1 R -10 P2", "2 2 2 2", "3 3 3 3", draw="4", total=98)
    assert legal_codes(game) == ["R", "-10", "P2"]
    play(game, "P2")
    assert game.total == 98


def test_r4_2_the_1980_edition_uses_the_same_limit_of_98() -> None:
    """R4.2: "the arena uses the same limit for 1980"."""
    config = GameConfig(players=3, edition=E80)
    game = arranged(config, "2 8 9 10", "2 2 2 2", "3 3 3 3", draw="4", total=90)
    assert legal_codes(game) == ["2", "8"]  # 98 is allowed, 99 and 100 are not
    play(game, "8")
    assert game.total == 98
    # Below zero (R8.2) the limit is the same: -5 + 10 = 5.
    low = arranged(config, "10 10 10 10", "2 2 2 2", "3 3 3 3", draw="4", total=-5)
    play(low, "10")
    assert low.total == 5


def test_r6_3_quad_drawn_into_after_the_first_card_is_the_second_card() -> None:
    """R6.3 [ruling], R7.1: a player owing two who draws into four ONO 99 after the first
    card discards them as the second card; the turn passes on, the next owes one."""
    game = arranged(
        GameConfig(players=3),
        "P2 1 1 1",
        "2 99 99 99",
        "3 3 3 3",
        draw="7 99 5 6 7 8 4",
        total=40,
    )
    play(game, "P2")
    play(game, "2")  # draws the fourth ONO 99
    assert game.to_move == 1
    assert legal_codes(game) == ["quad"]
    game.apply(Action.quad())
    assert game.hand(1) == tuple(cards("5 6 7 8"))
    assert game.total == 42
    assert game.to_move == 2
    assert game.observation(2).owes == 1
    assert OwesTwo(2) not in game.events


def test_r6_3_r4_3_the_refill_after_a_quad_may_reshuffle_the_four_ono_99() -> None:
    """R6.3, R4.3: four cards are drawn; when the draw pile runs out, the whole discard
    pile, the four ONO 99 just discarded included, is shuffled into a new one."""
    game = arranged(GameConfig(players=2), "99 99 99 99", "1 1 1 1", draw="5 6", discard="7")
    game.apply(Action.quad())
    assert game.events[-3:] == [Quad(0), Reshuffle(5), Draw(0, 4)]
    hand = game.hand(0)
    assert hand[:2] == tuple(cards("5 6"))
    assert len(hand) == 4
    assert set(hand[2:]) <= {Card.N7, Card.ONO99}
    assert game.observation(1).draw_size == 3
    assert game.card_count() == 4 + 4 + 3


def test_r8_1_r8_4_with_ono_on_tens_a_hand_of_four_ono_99_may_play_on_a_ten() -> None:
    """R8.1, R8.4: the hand of only ONO 99 cards that R8.1 eliminates can play when the
    option allows an ONO 99 on the total."""
    config = GameConfig(players=3, edition=E80, ono_on_tens=True)
    game = arranged(config, "99 99 99 99", "2 2 2 2", "2 2 2 2", draw="3 3", total=20)
    assert legal_codes(game) == ["99"]
    play(game, "99")
    assert game.total == 20
    assert game.observation(0).in_game == (True, True, True)
    # Not on a total that does not end in zero.
    game = arranged(config, "99 99 99 99", "2 2 2 2", "2 2 2 2", draw="3 3", total=25)
    assert game.observation(0).in_game == (False, True, True)


def test_r6_4_r7_5_with_two_left_a_hold_answers_a_double_play_a_reverse_does_not() -> None:
    """R6.4 [ruling], R7.5 (1980)"""
    config = GameConfig(players=2, edition=E80)
    game = arranged(config, "DP 2 2 2", "R H 3 3", draw="4 4 4 4", total=20)
    play(game, "DP")
    play(game, "R")  # a 0 with two players left: the second card is still owed
    assert game.to_move == 1
    assert game.observation(1).owes == 1
    assert game.observation(1).direction == 1
    game = arranged(config, "DP 2 2 2", "R H 3 3", draw="4 4 4 4", total=20)
    play(game, "DP")
    play(game, "H")  # answers: seat 0 owes two
    assert game.to_move == 0
    assert game.observation(0).owes == 2


def test_r7_4_r9_2_a_tokens_player_who_cannot_play_the_second_card_loses_a_token() -> None:
    """R7.4, R9.2: the round ends at that player, who loses a token; the next round is
    dealt with the starter one seat on (R9.4)."""
    config = GameConfig(players=3, format=Format.TOKENS, tokens=2)
    game = arranged(config, "P2 1 1 1", "5 9 9 9", "1 1 1 1", draw="1 9 1 1", total=90)
    play(game, "P2")
    play(game, "5")  # 95, and the 9 drawn: no second card
    assert TokenLost(1, 1) in game.events
    start = game.events[-1] if isinstance(game.events[-1], RoundStart) else None
    assert start is not None
    assert start.round == 2
    assert start.starter == 1
    obs = game.observation(0)
    assert obs.tokens == (2, 1, 2)
    assert obs.in_game == (True, True, True)
    assert obs.owes == 1


def test_r9_3_every_kind_of_card_scores_as_the_table_says() -> None:
    """R9.3: a number card its face value, ONO 99 20; Hold, Reverse, -10, Double Play
    and Play 2 15 each; +25 for being out of the round."""
    config = GameConfig(players=2, edition=E80, format=Format.POINTS, target=1000)
    game = arranged(config, "9 9 9 9", "H R -10 DP", draw="10", total=95)
    game.apply(Action.bust(Card.N9))
    end = next(e for e in game.events if isinstance(e, RoundEnd))
    assert end.hand_points == (9 + 9 + 9 + 10 + 25, 15 * 4)
    config = GameConfig(players=2, format=Format.POINTS, target=1000)
    game = arranged(config, "9 9 9 9", "P2 0 10 99", draw="2", total=95)
    game.apply(Action.bust(Card.N9))
    end = next(e for e in game.events if isinstance(e, RoundEnd))
    assert end.hand_points == (9 + 9 + 9 + 2 + 25, 15 + 0 + 10 + 20)


def test_r9_3_b_a_score_exactly_at_the_target_ends_the_game() -> None:
    """R9.3.b: "reaches the target" includes reaching it exactly; one point short, the
    game goes on."""
    deal = ("5 6 7 8", "9 9 9 99", "R P2 -10 3")  # scores 47, 65, 48 (see R9.3 tests)
    config = GameConfig(players=3, format=Format.POINTS, target=65, ending=Ending.LOWEST)
    game = arranged(config, *deal, draw="1 2 4 4 4 4", total=95)
    game.apply(Action.bust(Card.N5))
    game.apply(Action.bust(Card.N9))
    assert game.is_over
    assert game.outcome().places == (1, 3, 2)
    config = GameConfig(players=3, format=Format.POINTS, target=66, ending=Ending.LOWEST)
    game = arranged(config, *deal, draw="1 2 4 4 4 4", total=95)
    game.apply(Action.bust(Card.N5))
    game.apply(Action.bust(Card.N9))
    assert not game.is_over
    assert game.observation(0).round == 2


def test_r5_4_play_cap_in_a_points_game_leaves_the_round_unscored() -> None:
    """R5.4: those still in the game share the best place, a player out of the current
    round included; the unfinished round is not scored."""
    config = GameConfig(players=3, format=Format.POINTS, target=1000, play_cap=2)
    game = arranged(config, "9 9 9 9", "1 1 1 1", "2 2 2 2", draw="3 3 3", total=95)
    game.apply(Action.bust(Card.N9))
    play(game, "1")
    assert game.is_over
    outcome = game.outcome()
    assert outcome.reason is EndReason.PLAY_CAP
    assert outcome.places == (1, 1, 1)
    assert outcome.points == (0, 0, 0)
    assert not any(isinstance(e, RoundEnd) for e in game.events)


def test_r5_4_play_cap_in_a_tokens_game_is_a_draw_among_those_in_it() -> None:
    """R5.4, R9.2: a seat out of the game keeps its place; the others share 1st."""
    config = GameConfig(players=3, format=Format.TOKENS, tokens=0, play_cap=3)
    game = arranged(config, "9 9 9 9", "1 1 1 1", "1 1 1 1", total=95)
    assert game.observation(1).in_game == (False, True, True)
    for _ in range(3):
        game.apply(game.legal_actions()[0])
    outcome = game.outcome()
    assert outcome.reason is EndReason.PLAY_CAP
    assert outcome.places == (3, 1, 1)
    assert outcome.tokens == (0, 0, 0)


def test_r9_3_r8_4_a_1980_points_hand_of_four_ono_99_plays_on_a_ten_with_the_option() -> None:
    """R9.3, R8.4: the exception of R9.3 (out of the round without playing) is for a hand
    with no legal action; on a ten, "ONO on tens" gives one."""
    config = GameConfig(players=3, edition=E80, format=Format.POINTS, ono_on_tens=True)
    game = arranged(config, "99 99 99 99", "2 2 2 2", "2 2 2 2", draw="3 3", total=30)
    assert legal_codes(game) == ["99"]
    play(game, "99")
    assert game.observation(0).in_round == (True, True, True)
    game = arranged(config, "99 99 99 99", "2 2 2 2", "2 2 2 2", draw="3 3", total=31)
    assert game.events[-1] == OutOfRound(0)
    assert game.observation(0).in_round == (False, True, True)


def test_r9_3_r4_3_a_bust_draws_back_up_to_four_not_just_one_card() -> None:
    """R9.3: a player who busts "draws back up to four cards". In the arena that is one
    card, but a hand left short by R4.3 [ruling] (both piles empty) is filled up to four."""
    config = GameConfig(players=3, format=Format.POINTS, target=1000)
    game = arranged(config, "9 9", "1 1 1 1", "1 1 1 1", draw="2 3 4", total=95)
    game.apply(Action.bust(Card.N9))
    assert game.events[-1] == Draw(0, 3)
    assert game.hand(0) == tuple(cards("2 3 4 9"))


def test_r5_4_play_cap_in_a_later_points_round_ignores_the_scores_so_far() -> None:
    """R5.4, R9.3: at the play cap the players still in the game share the best place,
    whatever their scores from the rounds already played; the scores stay as they were."""
    deal = ("5 6 7 8", "9 9 9 99", "R P2 -10 3")  # round 1 scores 47, 65, 48
    config = GameConfig(players=3, format=Format.POINTS, target=1000, play_cap=3)
    game = arranged(config, *deal, draw="1 2 4 4 4 4", total=95)
    game.apply(Action.bust(Card.N5))
    game.apply(Action.bust(Card.N9))
    assert game.observation(0).round == 2
    game.apply(game.legal_actions()[0])  # the third play, in round 2
    outcome = game.outcome()
    assert outcome.reason is EndReason.PLAY_CAP
    assert outcome.places == (1, 1, 1)
    assert outcome.points == (47, 65, 48)
