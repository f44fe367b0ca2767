"""Scenario tests for R8 (the 1980 edition) and R9 (match formats)."""

from __future__ import annotations

import pytest

from arena.errors import ConfigError, IllegalActionError
from arena.rules import (
    Action,
    Card,
    Cause,
    Edition,
    Eliminated,
    Ending,
    EndReason,
    Format,
    Game,
    GameConfig,
    OutOfRound,
    RoundEnd,
    RoundStart,
    TokenLost,
    deck,
    rules_in_play,
)

from .helpers import arranged, cards, legal_codes, play

E80 = Edition.E1980


def test_r8_1_no_quad_in_1980_four_ono_99_is_eliminated() -> None:
    """R8.1, R5.1"""
    game = arranged(
        GameConfig(players=3, edition=E80), "99 99 99 99", "2 2 2 2", "2 2 2 2", draw="3 3"
    )
    assert game.observation(1).in_game == (False, True, True)
    assert game.to_move == 1
    assert "quad" not in legal_codes(game)


def test_r8_2_totals_may_go_negative_in_1980() -> None:
    """R8.2"""
    game = arranged(
        GameConfig(players=2, edition=E80), "-10 -10 2 2", "2 2 2 2", draw="3 3 3", total=5
    )
    play(game, "-10")
    assert game.total == -5
    play(game, "2")
    play(game, "-10")
    assert game.total == -13


def test_r8_3_r6_7_hold_adds_zero_and_exists_only_in_1980() -> None:
    """R8.3, R6.7"""
    game = arranged(
        GameConfig(players=3, edition=E80), "H 2 2 2", "2 2 2 2", "2 2 2 2", draw="3", total=40
    )
    play(game, "H")
    assert game.total == 40
    assert game.to_move == 1
    assert game.observation(1).direction == 1
    assert Card.HOLD not in deck(Edition.E2022)


def test_r7_5_double_play_answered_by_hold_or_reverse_not_double_play() -> None:
    """R7.5"""
    config = GameConfig(players=3, edition=E80)
    game = arranged(config, "DP 2 2 2", "DP H R 2", "2 2 2 2", draw="3 3 3 3", total=20)
    play(game, "DP")
    assert game.observation(1).owes == 2
    assert legal_codes(game) == ["2", "R", "H"]  # Double Play may not be the first of two
    with pytest.raises(IllegalActionError):
        play(game, "DP")
    play(game, "H")
    assert game.to_move == 2
    assert game.observation(2).owes == 2

    game = arranged(config, "DP 2 2 2", "R 2 2 2", "2 2 2 2", draw="3 3 3 3", total=20)
    play(game, "DP")
    play(game, "R")
    assert game.to_move == 0
    assert game.observation(0).owes == 2


def test_r7_5_double_play_may_be_the_second_card() -> None:
    """R7.5, R7.4 [ruling]"""
    config = GameConfig(players=3, edition=E80)
    game = arranged(config, "DP 2 2 2", "DP 3 2 2", "2 2 2 2", draw="3 3 3 3", total=20)
    play(game, "DP")
    play(game, "3")
    assert "DP" in legal_codes(game)
    play(game, "DP")
    assert game.to_move == 2
    assert game.observation(2).owes == 2


def test_r8_4_ono_on_tens_adds_zero_once_a_turn() -> None:
    """R8.4"""
    config = GameConfig(players=3, edition=E80, ono_on_tens=True)
    for total in (0, 20, -10, 90):
        game = arranged(config, "99 5 2 2", "2 2 2 2", "2 2 2 2", draw="3", total=total)
        assert "99" in legal_codes(game)
        play(game, "99")
        assert game.total == total
    game = arranged(config, "99 5 2 2", "2 2 2 2", "2 2 2 2", draw="3", total=25)
    assert "99" not in legal_codes(game)
    # Under a Double Play, only one ONO 99 may be played on a ten in the turn.
    game = arranged(config, "DP 2 2 2", "99 99 5 5", "2 2 2 2", draw="3 3 3", total=30)
    play(game, "DP")
    play(game, "99")
    assert game.total == 30
    assert game.to_move == 1
    assert "99" not in legal_codes(game)


def test_r8_4_without_the_option_ono_99_is_never_played() -> None:
    """R8.4, R6.2"""
    game = arranged(GameConfig(players=2, edition=E80), "99 5 2 2", "2 2 2 2", draw="3", total=20)
    assert "99" not in legal_codes(game)
    with pytest.raises(ConfigError, match="1980"):
        GameConfig(ono_on_tens=True)


# ---------------------------------------------------------------- R9 formats

POINTS_DEAL = ("5 6 7 8", "9 9 9 99", "R P2 -10 3")
POINTS_DRAW = "1 2 4 4 4 4 4 4"


def points_game(**options: object) -> Game:
    config = GameConfig(players=3, format=Format.POINTS, **options)  # type: ignore[arg-type]
    return arranged(config, *POINTS_DEAL, draw=POINTS_DRAW, total=95)


def test_r8_4_r9_options_read_back_from_a_dict_refuse_values_of_the_wrong_type() -> None:
    """R8.4, R9, R2.3: the options a store or league file gives (`GameConfig.from_dict`)
    read back what `to_dict` wrote, and refuse a value that is not of its type: the
    string "false" must not switch "ONO on tens" on, nor may true count as a number."""
    config = GameConfig(
        players=3,
        edition=E80,
        format=Format.POINTS,
        target=80,
        ending=Ending.LOWEST,
        ono_on_tens=True,
        play_cap=900,
    )
    assert GameConfig.from_dict(config.to_dict()) == config
    base = {"edition": "1980"}
    wrong: list[dict[str, object]] = [
        {"ono_on_tens": "false"},
        {"ono_on_tens": 1},
        {"players": True},
        {"target": "100"},
        {"edition": "1990"},
        {"format": "cup"},
        {"colour": 1},
    ]
    for bad in wrong:
        with pytest.raises(ConfigError):
            GameConfig.from_dict(base | bad)


def test_r9_2_r9_3_the_rules_in_play_leave_out_the_options_of_other_formats() -> None:
    """R9.2, R9.3: tokens are an option of the tokens format only, target and ending of
    the points format only, so `rules_in_play` (which a league compares when it resumes)
    leaves them out of the other formats' options; the format defaults to single."""
    both = {"tokens": 5, "target": 50, "ending": "lowest", "players": 3}
    assert rules_in_play(both) == {"players": 3}
    assert rules_in_play(both | {"format": "tokens"}) == {
        "format": "tokens",
        "tokens": 5,
        "players": 3,
    }
    assert rules_in_play(both | {"format": "points"}) == {
        "format": "points",
        "target": 50,
        "ending": "lowest",
        "players": 3,
    }
    assert rules_in_play(GameConfig().to_dict()) != GameConfig().to_dict()
    assert rules_in_play(None) is None


def test_r9_1_single_is_the_default_one_hand() -> None:
    """R9.1"""
    assert GameConfig().format is Format.SINGLE
    game = arranged(GameConfig(players=2), "9 9 9 9", "1 1 1 1", total=95)
    outcome = game.outcome()
    assert outcome.places == (2, 1)
    assert outcome.points is None
    assert outcome.tokens is None
    assert outcome.rounds == 1


def test_r9_2_tokens_round_ends_at_first_player_who_cannot_play() -> None:
    """R9.2, R9.4"""
    config = GameConfig(players=3, format=Format.TOKENS, tokens=1)
    game = arranged(config, "9 9 9 9", "1 1 1 1", "1 1 1 1", total=95)
    assert TokenLost(0, 0) in game.events
    assert game.observation(0).tokens == (0, 1, 1)
    assert game.observation(0).in_game == (True, True, True)
    start = game.events[-1]
    assert isinstance(start, RoundStart)
    assert start.round == 2
    assert start.starter == 1  # R9.4: the first player moves one seat clockwise
    assert game.to_move == 1


def test_r9_2_no_token_left_means_out_of_the_game() -> None:
    """R9.2 [ruling]: finishing order follows elimination from the game."""
    config = GameConfig(players=3, format=Format.TOKENS, tokens=0)
    game = arranged(config, "9 9 9 9", "1 1 1 1", "1 1 1 1", total=95)
    assert Eliminated(0, Cause.CANNOT_PLAY, tuple(cards("9 9 9 9")), 3) in game.events
    obs = game.observation(1)
    assert obs.round == 2
    assert obs.in_game == (False, True, True)
    assert obs.hand_sizes == (0, 4, 4)
    assert game.to_move == 1


def test_r9_2_tokens_game_ends_with_one_player_left() -> None:
    """R9.2"""
    game = Game(GameConfig(players=4, format=Format.TOKENS, tokens=2), seed=3)
    while not game.is_over:
        game.apply(game.legal_actions()[0])
    outcome = game.outcome()
    assert sorted(outcome.places) == [1, 2, 3, 4]
    assert outcome.rounds >= 3 * 3  # each loser lost 3 rounds (2 tokens, then out)
    assert outcome.tokens is not None
    assert [e.place for e in outcome.eliminations] == [4, 3, 2]


def test_r9_3_points_forced_bust_then_scoring() -> None:
    """R9.3"""
    game = points_game(target=1000)
    assert legal_codes(game) == ["bust 5", "bust 6", "bust 7", "bust 8"]
    game.apply(Action.bust(Card.N5))
    assert game.total == 95  # [ruling] the total stays as it was
    obs = game.observation(1)
    assert obs.discard == (Card.N5,)
    assert obs.in_round == (False, True, True)
    assert obs.in_game == (True, True, True)
    assert game.hand(0) == tuple(cards("1 6 7 8"))  # drew back up to four
    assert legal_codes(game) == ["bust 9"]  # ONO 99 cannot be the busting card
    game.apply(Action.bust(Card.N9))
    round_end = next(e for e in game.events if isinstance(e, RoundEnd))
    # 6+7+8+1 +25 | 9+9+20+2 +25 | 15+15+15+3
    assert round_end == RoundEnd(1, (47, 65, 48), (47, 65, 48))
    assert game.observation(0).scores == (47, 65, 48)
    assert game.observation(0).round == 2


def test_r4_2_ruling_a_points_player_may_bust_with_a_playable_card_in_hand() -> None:
    """R4.2 [ruling], R9.3: in the points format a player who holds a playable card may
    still bust, with a card that cannot be played (never an ONO 99)."""
    config = GameConfig(players=3, format=Format.POINTS, target=1000)
    game = arranged(config, "2 8 9 99", "1 1 1 1", "3 3 3 3", draw="4 4 4", total=90)
    assert legal_codes(game) == ["2", "8", "bust 9"]
    game.apply(Action.bust(Card.N9))
    assert game.total == 90  # the total stays as it was
    obs = game.observation(0)
    assert obs.in_round == (False, True, True)
    assert obs.discard == (Card.N9,)
    assert game.hand(0) == tuple(cards("2 4 8 99"))  # drew back up to four
    assert game.to_move == 1


def test_r4_2_ruling_no_voluntary_bust_outside_the_points_format() -> None:
    """R4.2 [ruling]"""
    for fmt in (Format.SINGLE, Format.TOKENS):
        game = arranged(GameConfig(players=2, format=fmt), "2 9 9 10", "1 1 1 1", total=90)
        assert legal_codes(game) == ["2"]
        with pytest.raises(IllegalActionError):
            game.apply(Action.bust(Card.N9))


def test_r4_2_ruling_a_points_player_with_only_playable_cards_cannot_bust() -> None:
    """R4.2 [ruling], R9.3: busting means playing a card that cannot be played."""
    config = GameConfig(players=2, format=Format.POINTS)
    game = arranged(config, "1 2 R -10", "1 1 1 1", total=90)
    assert legal_codes(game) == ["1", "2", "R", "-10"]
    quad = arranged(config, "99 99 99 99", "1 1 1 1", draw="5 5 5 5", total=90)
    assert legal_codes(quad) == ["quad"]  # 2022: ONO 99 is never a busting card


def test_r4_2_ruling_a_1980_double_play_owed_first_may_bust_beside_plays() -> None:
    """R4.2 [ruling], R7.5, R9.3: a Double Play may not be the first of two owed
    cards, so in the points format it is a card to bust with."""
    config = GameConfig(players=3, edition=E80, format=Format.POINTS, target=1000)
    game = arranged(config, "DP 1 1 1", "3 DP 5 9", "2 2 2 2", draw="6 6 6 6", total=80)
    play(game, "DP")  # seat 1 owes two
    assert game.to_move == 1
    assert legal_codes(game) == ["3", "5", "9", "bust DP"]


def test_r9_3_scoring_example_is_44_points() -> None:
    """R9.3: ONO 99 + Double Play + two number cards totalling 9 = 44 points."""
    config = GameConfig(players=2, edition=E80, format=Format.POINTS, target=1000)
    game = arranged(config, "9 9 9 9", "99 DP 4 5", draw="2", total=95)
    game.apply(Action.bust(Card.N9))
    round_end = next(e for e in game.events if isinstance(e, RoundEnd))
    assert round_end.hand_points == (9 + 9 + 9 + 2 + 25, 44)


def test_r9_3_1980_hand_of_four_ono_99_leaves_the_round_without_playing() -> None:
    """R9.3, R8.1"""
    config = GameConfig(players=3, edition=E80, format=Format.POINTS)
    game = arranged(config, "99 99 99 99", "2 2 2 2", "2 2 2 2", draw="3 3")
    assert game.events[-1] == OutOfRound(0)
    assert game.plays == 0
    assert game.observation(1).in_round == (False, True, True)
    assert game.observation(1).hand_sizes == (4, 4, 4)
    assert game.to_move == 1


def test_r9_3_a_elimination_players_at_target_leave_the_game() -> None:
    """R9.3.a, R9.4 (the next starter skips a player out of the game)"""
    game = points_game(target=60)
    game.apply(Action.bust(Card.N5))
    game.apply(Action.bust(Card.N9))
    assert Eliminated(1, Cause.TARGET, (), 3) in game.events
    start = game.events[-1]
    assert isinstance(start, RoundStart)
    assert start.starter == 2
    assert game.observation(0).in_game == (True, False, True)


def test_r9_3_a_several_at_once_are_ranked_by_score_and_last_left_wins() -> None:
    """R9.3.a"""
    game = points_game(target=48)
    game.apply(Action.bust(Card.N5))
    game.apply(Action.bust(Card.N9))
    outcome = game.outcome()
    assert outcome.places == (1, 3, 2)
    assert outcome.reason is EndReason.LAST_PLAYER
    assert outcome.points == (47, 65, 48)


def test_r9_3_a_players_leaving_together_are_announced_worst_place_first() -> None:
    """R9.3.a: the players who reach the target in the same round leave the game after
    the `round_end`, one `eliminated` (cause target, no cards) each, worst place first
    (protocol/SPEC.md), and the outcome's eliminations list them in that order too."""
    game = points_game(target=48)  # scores 47, 65, 48: seats 1 and 2 leave, seat 0 wins
    game.apply(Action.bust(Card.N5))
    game.apply(Action.bust(Card.N9))
    end = next(i for i, e in enumerate(game.events) if isinstance(e, RoundEnd))
    assert game.events[end + 1 :] == [
        Eliminated(1, Cause.TARGET, (), 3),
        Eliminated(2, Cause.TARGET, (), 2),
    ]
    assert [(e.seat, e.place) for e in game.outcome().eliminations] == [(1, 3), (2, 2)]


def test_r9_3_a_everyone_left_at_target_ranked_by_score() -> None:
    """R9.3.a"""
    game = points_game(target=40)
    game.apply(Action.bust(Card.N5))
    game.apply(Action.bust(Card.N9))
    outcome = game.outcome()
    assert outcome.places == (1, 3, 2)
    assert outcome.reason is EndReason.TARGET


@pytest.mark.parametrize("ending", list(Ending))
def test_r9_3_ties_share_a_place(ending: Ending) -> None:
    """R9.3.a, R9.3.b: ties share a place."""
    config = GameConfig(players=3, format=Format.POINTS, target=50, ending=ending)
    game = arranged(config, "9 9 9 9", "9 9 9 9", "1 1 1 1", draw="9 9", total=95)
    game.apply(Action.bust(Card.N9))
    game.apply(Action.bust(Card.N9))
    assert game.outcome().places == (2, 2, 1)


def test_r9_3_b_lowest_ends_after_first_round_reaching_target() -> None:
    """R9.3.b"""
    game = points_game(target=60, ending=Ending.LOWEST)
    game.apply(Action.bust(Card.N5))
    game.apply(Action.bust(Card.N9))
    outcome = game.outcome()
    assert outcome.places == (1, 3, 2)
    assert outcome.reason is EndReason.TARGET
    assert outcome.rounds == 1


def test_r8_5_ruling_no_points_for_missing_cards() -> None:
    """R8.5 [ruling]: a hand short of four scores only its cards."""
    config = GameConfig(players=3, format=Format.POINTS, target=1000)
    game = arranged(config, "9 9 9 9", "9 9 9 9", "2 2", draw="9", total=95)
    game.apply(Action.bust(Card.N9))
    game.apply(Action.bust(Card.N9))
    round_end = next(e for e in game.events if isinstance(e, RoundEnd))
    assert round_end.hand_points[2] == 4  # two 2s; nothing for the two missing cards


def test_r9_4_each_round_is_a_fresh_deal_clockwise() -> None:
    """R9.4"""
    config = GameConfig(players=3, format=Format.TOKENS)
    game = arranged(config, "R 1 1 1", "1 1 1 1", "9 9 9 9", draw="1 1", total=90)
    play(game, "R")  # counter-clockwise: seat 2 cannot play, the round ends
    assert TokenLost(2, 2) in game.events
    obs = game.observation(0)
    assert obs.round == 2
    assert obs.direction == 1
    assert obs.total == 0
    assert obs.hand_sizes == (4, 4, 4)
    assert obs.discard == ()
    assert obs.draw_size == 112 - 12
    assert game.card_count() == 112
    assert game.to_move == 1
