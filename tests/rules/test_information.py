"""R10: what each seat may know; faults set from outside; replays and determinism."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import GameOverError, RulesError
from arena.referee._wire import action_to_dict
from arena.replay import DamagedReplay, rebuild, render
from arena.rules import (
    Action,
    Card,
    Cause,
    Edition,
    Eliminated,
    Elimination,
    Ending,
    ExternalElimination,
    Format,
    Game,
    GameConfig,
    event_from_dict,
    event_to_dict,
)

from .helpers import arranged, cards, play
from .test_properties import any_config


def test_r10_1_r10_2_observation_holds_public_state_and_own_hand_only() -> None:
    """R10.1, R10.2"""
    config = GameConfig(players=3)
    game = arranged(config, "P2 1 1 1", "2 3 4 5", "9 9 9 9", draw="6 7 8", total=95)
    play(game, "P2")  # seat 1 owes two
    obs = game.observation(2)
    assert obs.seat == 2
    assert obs.hand == tuple(cards("9 9 9 9"))
    assert obs.hand_sizes == (4, 4, 4)
    assert obs.total == 95
    assert obs.direction == 1
    assert obs.to_move == 1
    assert obs.owes == 2
    assert obs.discard == (Card.PLAY_TWO,)
    assert obs.draw_size == 2
    assert obs.in_game == (True, True, True)
    assert obs.scores is None
    assert obs.tokens is None
    # The observation holds no other hand and nothing of the draw pile's order.
    text = repr(obs)
    assert "N6" not in text
    assert "N7" not in text
    assert "N8" not in text
    assert game.observation(1).hand == tuple(cards("2 3 4 5"))


def _random_game(config: GameConfig, seed: int, steps: int) -> Game:
    game = Game(config, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.is_over:
            break
        actions = game.legal_actions()
        game.apply(actions[rng.randrange(len(actions))])
    return game


configs = st.builds(
    GameConfig,
    players=st.integers(2, 6),
    edition=st.sampled_from(Edition),
    format=st.sampled_from(Format),
    tokens=st.integers(0, 3),
    target=st.integers(30, 150),
    ending=st.sampled_from(Ending),
)


@settings(max_examples=300, deadline=None)
@given(config=configs, seed=st.integers(0, 2**64 - 1), steps=st.integers(0, 80), data=st.data())
def test_r10_2_hidden_cards_do_not_change_a_seats_observation(
    config: GameConfig, seed: int, steps: int, data: st.DataObject
) -> None:
    """R10.2: two states that differ only in cards hidden from a seat look the same to it."""
    game = _random_game(config, seed, steps)
    seat = data.draw(st.integers(0, config.players - 1))
    other = copy.deepcopy(game)
    # Pool every card hidden from `seat` (other hands, the draw pile), permute, redeal.
    hands = other._hands
    hidden = [c for s, h in enumerate(hands) if s != seat for c in h] + other._draw
    permuted = data.draw(st.permutations(hidden))
    pos = 0
    for s, hand in enumerate(hands):
        if s != seat:
            hands[s] = list(permuted[pos : pos + len(hand)])
            pos += len(hand)
    other._draw = list(permuted[pos:])
    assert other.observation(seat) == game.observation(seat)


def test_fault_elimination_goes_through_the_rules_path() -> None:
    """R5.1, R7.4: a faulted seat that owed a Play 2 takes the obligation with it."""
    game = arranged(GameConfig(players=3), "P2 1 1 1", "2 2 2 2", "3 3 3 3", draw="4 4 4", total=10)
    play(game, "P2")
    game.eliminate(1, Cause.TIMEOUT)
    assert Eliminated(1, Cause.TIMEOUT, tuple(cards("2 2 2 2")), 3) in game.events
    assert game.to_move == 2
    assert game.observation(2).owes == 1
    assert game.observation(2).face_up[1] == tuple(cards("2 2 2 2"))
    game.eliminate(0, Cause.CRASH)
    outcome = game.outcome()
    assert outcome.places == (2, 3, 1)
    assert [(e.seat, e.cause) for e in outcome.eliminations] == [
        (1, Cause.TIMEOUT),
        (0, Cause.CRASH),
    ]


def test_fault_elimination_of_a_seat_not_to_move() -> None:
    game = arranged(GameConfig(players=4), "1 1 1 1", "2 2 2 2", "3 3 3 3", "4 4 4 4", draw="5 5")
    game.eliminate(2, Cause.MALFORMED)
    assert game.to_move == 0
    play(game, "1")
    assert game.to_move == 1
    play(game, "2")
    assert game.to_move == 3


def test_r4_4_r6_4_a_fault_of_the_seat_to_move_passes_the_turn_in_the_direction() -> None:
    """R4.4, R6.4, Faults: when the seat to move faults, the turn passes to the next player
    still in the round in the current direction, which a Reverse may have turned."""
    game = arranged(GameConfig(players=4), "R 1 1 1", "2 2 2 2", "3 3 3 3", "4 4 4 4", draw="5")
    play(game, "R")  # counter-clockwise: seat 3 is to move
    assert game.to_move == 3
    game.eliminate(3, Cause.TIMEOUT)
    assert game.to_move == 2
    # A seat out of the round (but in the game) is skipped too.
    config = GameConfig(players=4, format=Format.POINTS, target=1000)
    game = arranged(config, "1 1 1 1", "9 9 9 9", "3 3 3 3", "4 4 4 4", draw="5 6 7 8", total=90)
    play(game, "1")  # 91
    game.apply(Action.bust(Card.N9))  # seat 1 is out of the round
    play(game, "3")  # 94
    play(game, "4")  # 98
    game.eliminate(0, Cause.CRASH)  # seat 0 is to move
    assert game.to_move == 2


def test_fault_elimination_in_points_round_ends_round() -> None:
    config = GameConfig(players=3, format=Format.POINTS, target=1000)
    game = arranged(config, "9 9 9 9", "1 1 1 1", "2 2 2 2", draw="3 3", total=95)
    game.apply(Action.bust(Card.N9))
    game.eliminate(1, Cause.ILLEGAL)  # seat 2 is the last in the round
    assert game.observation(2).round == 2
    assert game.observation(2).in_game == (True, False, True)


def test_fault_in_tokens_of_a_seat_not_to_move_keeps_the_turn_and_the_round() -> None:
    """R9.2, Faults: a seat that faults while another is to move leaves the game without
    losing a token; the player to move is unchanged and the round goes on (no new deal)."""
    config = GameConfig(players=3, format=Format.TOKENS, tokens=2)
    game = arranged(config, "1 1 1 1", "2 2 2 2", "3 3 3 3", draw="4 4 4")
    game.eliminate(1, Cause.CRASH)
    assert game.events[-1] == Eliminated(1, Cause.CRASH, tuple(cards("2 2 2 2")), 3)
    assert game.to_move == 0
    obs = game.observation(0)
    assert (obs.round, obs.tokens, obs.owes) == (1, (2, 2, 2), 1)
    play(game, "1")
    assert game.to_move == 2


def test_r5_3_an_elimination_records_its_round_and_play_count() -> None:
    """R5.3, R9.3.a, Faults: every seat that leaves the game is recorded with its cause,
    its place, the round it left in and the plays made by then."""
    game = arranged(GameConfig(players=3), "1 9 9 9", "9 9 9 9", "2 3 3 3", total=95)
    play(game, "1")  # seat 1 cannot play: out after the first play
    play(game, "2")  # seat 0 cannot play: out after the second
    assert game.outcome().eliminations == (
        Elimination(1, Cause.CANNOT_PLAY, 3, 1, 1),
        Elimination(0, Cause.CANNOT_PLAY, 2, 1, 2),
    )
    config = GameConfig(players=3, format=Format.POINTS, target=1000)
    game = arranged(config, "9 9 9 9", "1 1 1 1", "2 2 2 2", draw="3 3", total=95)
    game.apply(Action.bust(Card.N9))
    game.eliminate(1, Cause.ILLEGAL)  # ends round 1 after one play
    game.eliminate(2, Cause.TIMEOUT)  # in round 2
    assert game.outcome().eliminations == (
        Elimination(1, Cause.ILLEGAL, 3, 1, 1),
        Elimination(2, Cause.TIMEOUT, 2, 2, 1),
    )


def test_r10_the_map_sent_to_a_bot_in_a_points_round_after_a_bust_and_a_fault() -> None:
    """R10.1, R10.2: deterministic companion of the random test below. Each seat's map
    holds its own hand (not the mover's), who is still in the round (not only in the
    game), the cards laid face up and the whole discard pile, as its observation does."""
    import msgpack

    from arena.referee._wire import observation_to_dict

    config = GameConfig(players=4, format=Format.POINTS, target=1000)
    game = arranged(
        config, "9 9 9 9", "1 2 3 4", "5 5 5 5", "6 6 6 6", draw="7 7 7", discard="8 8", total=95
    )
    game.apply(Action.bust(Card.N9))  # seat 0 is out of the round
    play(game, "1")  # 96
    game.eliminate(3, Cause.CRASH)  # seat 2 is to move
    assert game.to_move == 2
    for seat in range(4):
        sent = game.observation_dict(seat)
        assert msgpack.packb(sent) == msgpack.packb(observation_to_dict(game.observation(seat)))
        assert sent["hand"] == [c.code for c in game.hand(seat)]
        assert sent["in_round"] == [False, True, True, False]
        assert sent["in_game"] == [True, True, True, False]
        assert sent["face_up"] == [[], [], [], ["6", "6", "6", "6"]]
        assert sent["discard"] == ["8", "8", "9", "1"]
    assert game.observation_dict(1)["hand"] == ["2", "3", "4", "7"]


def test_eliminate_refuses_rules_causes_and_absent_seats() -> None:
    game = Game(GameConfig(players=2), seed=1)
    with pytest.raises(RulesError, match="decided by the rules"):
        game.eliminate(0, Cause.CANNOT_PLAY)
    with pytest.raises(RulesError, match="not in the game"):
        game.eliminate(5, Cause.TIMEOUT)
    game.eliminate(0, Cause.TIMEOUT)
    assert game.is_over
    with pytest.raises(GameOverError):
        game.eliminate(1, Cause.TIMEOUT)


@settings(max_examples=200, deadline=None)
@given(config=configs, seed=st.integers(0, 2**64 - 1), data=st.data())
def test_replay_rebuilds_the_game_exactly(
    config: GameConfig, seed: int, data: st.DataObject
) -> None:
    """A game rebuilds exactly from its configuration, seed and history (faults included)."""
    game = Game(config, seed)
    while not game.is_over:
        if data.draw(st.integers(0, 30)) == 0:
            seat = data.draw(
                st.sampled_from(
                    [s for s in range(config.players) if game.observation(0).in_game[s]]
                )
            )
            game.eliminate(seat, data.draw(st.sampled_from([Cause.TIMEOUT, Cause.CRASH])))
            continue
        actions = game.legal_actions()
        game.apply(actions[data.draw(st.integers(0, len(actions) - 1))])
    again = Game.replay(config, seed, game.history)
    assert again.events == game.events
    assert again.outcome() == game.outcome()
    assert any(isinstance(h, Action) for h in game.history) or any(
        isinstance(h, ExternalElimination) for h in game.history
    )


def test_determinism_same_seed_same_deal_different_seed_different_deal() -> None:
    """The engine's own RNG: a fixed deal for a fixed seed, on every machine."""
    a = Game(GameConfig(players=4), seed=12345)
    b = Game(GameConfig(players=4), seed=12345)
    c = Game(GameConfig(players=4), seed=12346)
    assert [a.hand(s) for s in range(4)] == [b.hand(s) for s in range(4)]
    assert [a.hand(s) for s in range(4)] != [c.hand(s) for s in range(4)]
    # Pinned: this deal must never change (it would break every stored replay).
    assert [[c.code for c in a.hand(s)] for s in range(4)] == PINNED_DEAL


PINNED_DEAL = [
    ["0", "1", "5", "6"],
    ["10", "10", "99", "P2"],
    ["4", "6", "99", "P2"],
    ["4", "8", "99", "R"],
]


def test_events_round_trip_through_dicts() -> None:
    game = _random_game(GameConfig(players=3, format=Format.POINTS), seed=5, steps=500)
    for event in game.events:
        assert event_from_dict(event_to_dict(event)) == event


@settings(max_examples=120, deadline=None)
@given(config=any_config(), seed=st.integers(0, 2**64 - 1), choice_seed=st.integers(0, 2**32))
def test_r10_the_map_sent_to_a_bot_is_its_observation(
    config: GameConfig, seed: int, choice_seed: int
) -> None:
    """R10.1, R10.2: `observation_dict`, which the referee sends, encodes to the bytes of
    the observation itself (protocol SPEC §7.3), for every seat at every step of random
    games of every configuration, faults included; and it shares nothing with the
    game's state."""
    import msgpack

    from arena.referee._wire import observation_to_dict

    rng = random.Random(choice_seed)
    game = Game(config, seed)
    while True:
        for seat in range(config.players):
            sent = game.observation_dict(seat)
            wire = msgpack.packb(sent)
            assert wire == msgpack.packb(observation_to_dict(game.observation(seat)))
            for value in sent.values():
                if isinstance(value, list):
                    value.append("x")  # the caller's to change: the game must not see it
            assert msgpack.packb(game.observation_dict(seat)) == wire
        if game.is_over:
            break
        if rng.random() < 0.03:
            live = [s for s in range(config.players) if game.observation(s).in_game[s]]
            game.eliminate(rng.choice(live), rng.choice([Cause.TIMEOUT, Cause.CRASH]))
        else:
            actions = game.legal_actions()
            game.apply(actions[rng.randrange(len(actions))])
    with pytest.raises(RulesError):
        game.observation_dict(config.players)


def test_r5_1_a_replay_rebuilds_with_faults_of_seats_already_out() -> None:
    """R5.1, R5.3: a fault of a seat already out of the game (its process ended after it
    was eliminated) or after the end (at the game_over) changes nothing, in the game as
    in its replay (the referee records every fault, but takes out of the game only a
    seat still in a game still going): the file rebuilds to the same game, and shows as
    a seat saw it."""
    game = Game(GameConfig(players=3), seed=7)
    head = {"type": "game", "seed": 7, "config": game.config.to_dict(), "names": ["a", "b", "c"]}
    log: list[dict[str, Any]] = [head]
    late = 0
    while not game.is_over:
        seat = game.to_move
        action = game.legal_actions()[0]
        game.apply(action)
        log.append({"type": "decision", "seat": seat, "action": action_to_dict(action), "ms": 1.0})
        gone = [s for s in range(3) if not game.observation(s).in_game[s]]
        if gone and not late and not game.is_over:
            log.append({"type": "fault", "seat": gone[0], "cause": "crash", "message": "exited"})
            late += 1
    log.append({"type": "fault", "seat": 0, "cause": "crash", "message": "at game_over"})
    assert late == 1
    log += [{"type": "event", "event": event_to_dict(e)} for e in game.events]
    rebuilt = rebuild(log)
    assert rebuilt.events == game.events
    assert rebuilt.outcome() == game.outcome()
    assert any(line.startswith(">> your turn") for line in render(log, seat=0))


def test_r5_3_r9_3_a_replay_whose_result_is_not_the_games_does_not_rebuild() -> None:
    """R5.3, R9.3: the places, points and tokens a replay file states are those of the
    game its decisions rebuild; a file that states others is damaged."""
    config = GameConfig(players=3, format=Format.POINTS, target=50)
    game = Game(config, seed=3)
    log: list[dict[str, Any]] = [
        {"type": "game", "seed": 3, "config": config.to_dict(), "names": ["a", "b", "c"]}
    ]
    while not game.is_over:
        seat, action = game.to_move, game.legal_actions()[-1]
        game.apply(action)
        log.append({"type": "decision", "seat": seat, "action": action_to_dict(action), "ms": 1.0})
    log += [{"type": "event", "event": event_to_dict(e)} for e in game.events]
    outcome = game.outcome()
    result = {"type": "result", "places": list(outcome.places), "tokens": None}
    log.append(result | {"points": list(outcome.points or ())})
    assert rebuild(log).outcome() == outcome
    for edited in (
        {"places": [outcome.places[1], outcome.places[0], outcome.places[2]]},
        {"points": [p + 1 for p in outcome.points or ()]},
        {"tokens": [3, 3, 3]},
    ):
        assert edited != {k: log[-1][k] for k in edited}
        with pytest.raises(DamagedReplay, match="its result does not match"):
            rebuild([*log[:-1], log[-1] | edited])
