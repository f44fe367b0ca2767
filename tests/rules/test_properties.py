"""Invariants over thousands of random games (R2, R4.2, R4.3, R5, R6.5, R8.2, R5.4)."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.rules import Card, Edition, Ending, Format, Game, GameConfig, deck


def check_step(game: Game) -> None:
    config = game.config
    assert game.card_count() == len(deck(config.edition))
    if config.edition is Edition.E2022:
        assert 0 <= game.total <= 98  # R4.2, R6.5
    else:
        assert game.total <= 98  # R4.2, R8.2
    obs = game.observation(0)
    assert all(size <= 4 for size in obs.hand_sizes)  # R3.1, R4.3
    if not game.is_over:
        seat = game.to_move
        assert seat is not None
        assert obs.in_game[seat]
        assert obs.in_round[seat]
        assert game.legal_actions(), "a state awaiting a decision has a legal action"


def check_end(game: Game) -> None:
    config = game.config
    pile = [c for s in range(config.players) for c in game.hand(s)]
    pile += game._draw + game._discard + game._out
    assert Counter(pile) == Counter(deck(config.edition))  # cards are conserved
    outcome = game.outcome()
    n = config.players
    assert outcome.plays <= config.play_cap  # R5.4
    assert len(outcome.places) == n
    assert min(outcome.places) == 1
    assert all(1 <= p <= n for p in outcome.places)
    # Standard competition ranking: a place p is preceded by exactly p-1 better seats.
    for place in outcome.places:
        assert sum(1 for p in outcome.places if p < place) == place - 1
    for elim in outcome.eliminations:
        assert outcome.places[elim.seat] == elim.place


def run_random_game(config: GameConfig, seed: int, rng: random.Random) -> Game:
    game = Game(config, seed)
    check_step(game)
    for _ in range(config.play_cap + 1):
        if game.is_over:
            break
        actions = game.legal_actions()
        game.apply(actions[rng.randrange(len(actions))])
        check_step(game)
    assert game.is_over, "every game ends within the play cap"
    check_end(game)
    return game


def test_thousands_of_random_games_keep_every_invariant() -> None:
    rng = random.Random(2026)
    formats = [
        dict(format=Format.SINGLE),
        dict(format=Format.TOKENS, tokens=1),
        dict(format=Format.POINTS, target=60),
        dict(format=Format.POINTS, target=60, ending=Ending.LOWEST),
    ]
    games = 0
    for edition in Edition:
        for players in range(2, 7):
            for options in formats:
                config = GameConfig(players=players, edition=edition, **options)  # type: ignore[arg-type]
                for seed in range(60):
                    run_random_game(config, seed, rng)
                    games += 1
    assert games == 2 * 5 * 4 * 60


@st.composite
def any_config(draw: st.DrawFn) -> GameConfig:
    edition = draw(st.sampled_from(Edition))
    return GameConfig(
        players=draw(st.integers(2, 6)),
        edition=edition,
        format=draw(st.sampled_from(Format)),
        tokens=draw(st.integers(0, 4)),
        target=draw(st.integers(1, 200)),
        ending=draw(st.sampled_from(Ending)),
        ono_on_tens=edition is Edition.E1980 and draw(st.booleans()),
        play_cap=draw(st.integers(1, 400)),
    )


@settings(max_examples=300, deadline=None)
@given(config=any_config(), seed=st.integers(0, 2**64 - 1), choice_seed=st.integers(0, 2**32))
def test_random_configurations_keep_every_invariant(
    config: GameConfig, seed: int, choice_seed: int
) -> None:
    run_random_game(config, seed, random.Random(choice_seed))


def test_ono_99_is_only_ever_played_on_a_ten() -> None:
    """R6.2, R8.4 over random 1980 games with the option."""
    rng = random.Random(7)
    config = GameConfig(players=4, edition=Edition.E1980, ono_on_tens=True)
    seen = 0
    from arena.rules import Play

    for seed in range(300):
        game = run_random_game(config, seed, rng)
        previous = 0
        for event in game.events:
            if isinstance(event, Play):
                if event.card is Card.ONO99:
                    assert previous % 10 == 0
                    assert event.total == previous
                    seen += 1
                previous = event.total
    assert seen > 0
