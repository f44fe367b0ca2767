"""Issue 45.3: the ladder's table choice (`arena.ladder._select`): placement first,
then the pairs of neighbours that most need games."""

from __future__ import annotations

import random

from arena.ladder._select import PLACEMENT_TABLES, Rated, _pairs_table, choose_table


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
