"""Issue 45.3: the ladder's table choice (`arena.ladder._select`): placement first,
then the pairs of neighbours that most need games."""

from __future__ import annotations

import dataclasses
import random

import numpy as np

from arena.ladder._select import (
    PLACEMENT_TABLES,
    Rated,
    _gains,
    _pairs_table,
    _unsettled,
    choose_table,
    rate,
    rate_active,
    without,
)
from arena.ratings import FinishingOrders
from arena.records import GameRecord, ResultColumns, SeatRecord


def _rated(los: list[float]) -> Rated:
    names = tuple(f"b{i}" for i in range(len(los) + 1))
    elo = {name: 2000.0 - 50 * i for i, name in enumerate(names)}
    return Rated(names, elo, dict.fromkeys(names, 30.0), tuple(los), dict.fromkeys(names, 0.0), 99)


def test_a_table_takes_the_heaviest_pairs_while_they_fit() -> None:
    weights = [0.1, 0.9, 0.1, 0.1, 0.1, 0.8, 0.1]  # pairs (1, 2) and (5, 6) need games
    assert _pairs_table(weights, 2) == [1, 2]
    assert _pairs_table(weights, 4) == [1, 2, 5, 6]  # two stretches, not a window
    # a window when the heaviest pairs are neighbours; filled by the heavier side
    assert _pairs_table([0.1, 0.9, 0.8, 0.2, 0.1], 4) == [1, 2, 3, 4]
    assert _pairs_table([0.3, 0.9, 0.8, 0.2, 0.1], 4) == [0, 1, 2, 3]
    assert _pairs_table([0.1] * 5, 6) == list(range(6))


def test_a_new_version_is_placed_against_the_whole_range_first() -> None:
    rated = _rated([0.6] * 9)
    tables = {name: PLACEMENT_TABLES for name in rated.ranking if name != "b7"}
    seats, why = choose_table(rated, 4, tables, random.Random(1))
    assert why == "placement of b7"
    assert "b7" in seats
    ranks = sorted(rated.ranking.index(s) for s in seats if s != "b7")
    assert ranks[-1] - ranks[0] >= 4  # spread, not b7's neighbours


def test_then_the_least_separated_neighbours_play() -> None:
    los = [0.999, 0.999, 0.55, 0.999, 0.999, 0.999, 0.7, 0.999, 0.999]
    rated = _rated(los)
    done = dict.fromkeys(rated.ranking, PLACEMENT_TABLES)
    for seed in range(5):
        seats, _ = choose_table(rated, 2, done, random.Random(seed))
        assert set(seats) == {"b2", "b3"}
        seats, _ = choose_table(rated, 4, done, random.Random(seed))
        assert set(seats) == {"b2", "b3", "b6", "b7"}


def _with_covariance(theta: list[float], los: list[float], variance: float) -> Rated:
    names = tuple(f"b{i}" for i in range(len(theta)))
    return dataclasses.replace(
        _rated(los),
        theta=dict(zip(names, theta, strict=True)),
        covariance=variance * np.eye(len(names)),
        index={name: i for i, name in enumerate(names)},
    )


def test_a_window_of_close_neighbours_tells_more_than_two_stretches() -> None:
    rated = _with_covariance([-0.1 * i for i in range(8)], [0.6] * 7, 0.2)
    window, stretches = _gains(rated, [[0, 1, 2, 3], [0, 1, 6, 7]], [1.0] * 7, 4)
    assert window > stretches > 0.0


def test_a_table_of_far_apart_bots_tells_little() -> None:
    rated = _with_covariance([0.0, -0.1, -4.0, -4.1], [0.6, 0.99, 0.6], 0.2)
    close, far = _gains(rated, [[0, 1], [1, 2]], [1.0, 1.0, 1.0], 2)
    assert close > 5 * far


def test_with_a_fit_the_table_is_one_that_adds_the_most() -> None:
    orders = FinishingOrders.from_rankings(
        [[[f"b{i}"], [f"b{j}"]] for i in range(8) for j in range(i + 1, 8)] * 3
    )
    rated = rate(orders, orders.players)
    done = dict.fromkeys(rated.ranking, PLACEMENT_TABLES)
    for k in (2, 4, 6):
        seats, why = choose_table(rated, k, done, random.Random(k))
        assert len(set(seats)) == k
        assert why.startswith("the least separated neighbours")
    # a bot without a game: no covariance for it, the heaviest pairs are played
    unrated = rate(orders, (*orders.players, "b9"))
    assert len(choose_table(unrated, 4, {**done, "b9": 9}, random.Random(0))[0]) == 4
    # Of two close pairs far apart, a table of one of them, never of the two far-apart
    # bots between them (a mutation audit: the table that adds the least passed).
    far = _with_covariance([0.0, -0.1, -4.0, -4.1], [0.6, 0.99, 0.6], 0.2)
    for seed in range(10):
        seats, _ = choose_table(far, 2, dict.fromkeys(far.ranking, 9), random.Random(seed))
        assert set(seats) in ({"b0", "b1"}, {"b2", "b3"}), seed


def test_the_ladder_rates_no_forfeit_as_a_game() -> None:
    """Defect 1 of the statistics audit, in a ladder's ratings (`rate_active`, which
    rates the active versions' seats of every game): a forfeit, in which every seat but
    the forfeiting one shared first place, is no finishing order, whether the forfeiting
    version is one of those rated or not (without its seat the others would read as a
    played game in which they all tied)."""
    rng = random.Random(4)
    names = ["a", "b", "c", "d"]
    played = []
    for k in range(30):
        table = rng.sample(names, 3)
        played.append(
            GameRecord(f"g{k}", None, tuple(SeatRecord(n, i + 1) for i, n in enumerate(table)))
        )
    lost = [
        GameRecord(
            f"f{k}",
            None,
            (SeatRecord("a", 1), SeatRecord("b", 1), SeatRecord("d", 3, cause="forfeit")),
        )
        for k in range(20)
    ]
    for active in (names, ["a", "b", "c"]):
        alone, count = rate_active(ResultColumns.from_records(played), active)
        mixed = ResultColumns.from_records(played[:15] + lost + played[15:])
        with_forfeits, mixed_count = rate_active(mixed, active)
        assert mixed_count == count
        assert with_forfeits.ranking == alone.ranking
        for name in active:
            assert abs(with_forfeits.elo[name] - alone.elo[name]) < 1e-6
            assert abs(with_forfeits.se[name] - alone.se[name]) < 1e-6


def test_the_ranking_is_best_first_and_its_pairs_separate_downwards() -> None:
    """`rate`: the ranking runs from the strongest, and each LOS is the upper bot's
    over the lower, so that the pairs separate as games come (a mutation audit: a
    ranking worst first, whose LOS never reached 95%, passed every test)."""
    wins = [("a", "b")] * 30 + [("b", "a")] * 10 + [("b", "c")] * 30 + [("c", "b")] * 10
    players = ("a", "b", "c")
    orders = FinishingOrders(
        players=players,
        game=np.repeat(np.arange(len(wins)), 2),
        player=np.array([players.index(n) for pair in wins for n in pair]),
        place=np.tile([1, 2], len(wins)),
        games=len(wins),
    )
    rated = rate(orders, players)
    assert rated.ranking == ("a", "b", "c")
    assert rated.elo["a"] > rated.elo["b"] > rated.elo["c"]
    assert all(p > 0.95 for p in rated.los)
    assert rated.separated()


def test_a_pair_that_skips_a_bot_at_a_table_in_play_counts_as_the_surer() -> None:
    """`without` (tables at once share no bot): the neighbours either side of a bot
    left out are as separated as the surer of the two pairs between them."""
    rated = without(_rated([0.6, 0.99, 0.7, 0.8]), {"b2"})
    assert rated.ranking == ("b0", "b1", "b3", "b4")
    assert rated.los == (0.6, 0.99, 0.8)


def test_a_separated_pair_keeps_a_little_weight_and_the_top_counts_more() -> None:
    """`_unsettled`: a separated pair still weighs a tenth of how far it is from sure
    (its order must stay right), nothing once sure; and among pairs alike, those in the
    top `top` places are chosen (a mutation audit: neither the floor nor the top's
    weight was seen by any test)."""
    assert _unsettled(0.5) == (1.0, 0.1)
    need, floor = _unsettled(0.99)
    assert need == 0.0
    assert floor > 0.0
    assert _unsettled(1.0) == (0.0, 0.0)
    rated = _rated([0.6] * 9)
    done = dict.fromkeys(rated.ranking, PLACEMENT_TABLES)
    for seed in range(20):
        seats, _ = choose_table(rated, 2, done, random.Random(seed), top=3)
        assert set(seats) <= {"b0", "b1", "b2"}, seed
