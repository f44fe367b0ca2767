"""Schedules: pairs meet equally often, seats rotate evenly, everything from the seed."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import ConfigError
from arena.schedule import make_schedule

NAMES = [f"bot{i}" for i in range(12)]


def pair_counts(games: object) -> Counter[tuple[str, str]]:
    counts: Counter[tuple[str, str]] = Counter()
    for game in games:  # type: ignore[attr-defined]
        for a, b in itertools.combinations(sorted(game.seats), 2):
            counts[a, b] += 1
    return counts


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 7), k=st.integers(2, 6), rounds=st.integers(1, 2), seed=st.integers())
def test_full_round_robin_every_pair_meets_equally_often(
    n: int, k: int, rounds: int, seed: int
) -> None:
    if k > n:
        return
    bots = NAMES[:n]
    schedule = make_schedule(
        bots, table_size=k, games_per_table=k * rounds, seed=seed, duplicate=True
    )
    assert schedule.full
    assert len(schedule.games) == math.comb(n, k) * k * rounds
    counts = pair_counts(schedule.games)
    assert set(counts) == set(itertools.combinations(sorted(bots), 2))
    assert len(set(counts.values())) == 1
    # Seat balance: every bot sits in every seat equally often.
    seats = Counter((name, seat) for g in schedule.games for seat, name in enumerate(g.seats))
    per_bot = Counter(name for g in schedule.games for name in g.seats)
    for name in bots:
        assert {seats[name, s] for s in range(k)} == {per_bot[name] // k}


@settings(max_examples=10, deadline=None)
@given(n=st.integers(7, 10), k=st.integers(2, 3), tables=st.integers(10, 30), seed=st.integers())
def test_a_balanced_sample_when_there_are_too_many_tables(
    n: int, k: int, tables: int, seed: int
) -> None:
    if math.comb(n, k) <= tables:
        return
    schedule = make_schedule(
        NAMES[:n], table_size=k, games_per_table=k, seed=seed, duplicate=True, max_tables=tables
    )
    assert not schedule.full
    assert "balanced sample" in schedule.note
    assert 0 < len({g.table for g in schedule.games}) <= tables
    counts = pair_counts(g for g in schedule.games if g.rotation == 0)
    everyone = [counts.get(pair, 0) for pair in itertools.combinations(sorted(NAMES[:n]), 2)]
    assert max(everyone) - min(everyone) <= 1


def test_duplicate_deals_share_a_seed_across_the_rotations_of_a_table() -> None:
    schedule = make_schedule(NAMES[:5], table_size=3, games_per_table=6, seed=4, duplicate=True)
    groups: dict[str | None, list[object]] = {}
    for game in schedule.games:
        groups.setdefault(game.group, []).append(game)
    assert len(groups) == math.comb(5, 3) * 2
    for members in groups.values():
        assert len({g.seed for g in members}) == 1  # type: ignore[attr-defined]
        assert sorted(g.rotation for g in members) == [0, 1, 2]  # type: ignore[attr-defined]
        assert len({tuple(sorted(g.seats)) for g in members}) == 1  # type: ignore[attr-defined]
    assert len({g.seed for g in schedule.games}) == len(groups)


def test_without_duplicates_every_game_has_its_own_deal() -> None:
    schedule = make_schedule(NAMES[:4], table_size=2, games_per_table=4, seed=4, duplicate=False)
    assert len({g.seed for g in schedule.games}) == len(schedule.games)


def test_the_schedule_derives_from_the_seed_alone() -> None:
    a = make_schedule(NAMES[:6], table_size=3, games_per_table=3, seed=1, duplicate=True)
    b = make_schedule(NAMES[:6], table_size=3, games_per_table=3, seed=1, duplicate=True)
    c = make_schedule(NAMES[:6], table_size=3, games_per_table=3, seed=2, duplicate=True)
    assert a == b
    assert [g.seed for g in a.games] != [g.seed for g in c.games]
    assert [g.index for g in a.games] == list(range(len(a.games)))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(table_size=7, games_per_table=7), "table"),
        (dict(table_size=5, games_per_table=5), "table"),
        (dict(table_size=3, games_per_table=4), "multiple"),
        (dict(table_size=2, games_per_table=0), "games"),
    ],
)
def test_bad_schedules_are_refused(kwargs: dict[str, int], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        make_schedule(NAMES[:4], seed=1, duplicate=True, **kwargs)  # type: ignore[arg-type]
