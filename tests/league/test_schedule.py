"""The league schedule: tables, balanced samples, seat rotations, duplicate deals, seeds.

None of this depends on the rules of ONO 99 beyond R2.3 (two to six players a table);
the properties are those of the schedule alone.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import ConfigError
from arena.schedule import (
    MAX_GAMES,
    Schedule,
    ScheduledGame,
    _games,
    is_schedule_of,
    make_schedule,
    meetings,
)

NAMES = [f"bot{i:02d}" for i in range(25)]


def pair_spread(bots: Sequence[str], tables: Sequence[Sequence[str]]) -> tuple[int, int]:
    """The fewest and most tables any pair of bots shares (pairs that never meet count)."""
    counts = meetings(tables)
    every = [counts.get(pair, 0) for pair in itertools.combinations(sorted(bots), 2)]
    return min(every), max(every)


def bot_spread(bots: Sequence[str], tables: Sequence[Sequence[str]]) -> tuple[int, int]:
    counts = Counter(name for table in tables for name in table)
    every = [counts[name] for name in bots]
    return min(every), max(every)


def by_table(schedule: Schedule) -> dict[int, list[ScheduledGame]]:
    tables: dict[int, list[ScheduledGame]] = defaultdict(list)
    for game in schedule.games:
        tables[game.table].append(game)
    return tables


# -- every k-subset -------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(2, 8),
    k=st.integers(2, 6),
    per_table=st.integers(1, 3),
    duplicate=st.booleans(),
    seed=st.integers(-(2**70), 2**70),
)
def test_the_full_schedule_seats_every_subset_and_every_pair_equally(
    n: int, k: int, per_table: int, duplicate: bool, seed: int
) -> None:
    if k > n:
        return
    bots = NAMES[:n]
    games_per_table = per_table * k if duplicate else per_table
    schedule = make_schedule(
        bots, table_size=k, games_per_table=games_per_table, seed=seed, duplicate=duplicate
    )
    assert schedule.full
    subsets = sorted(tuple(sorted(t)) for t in schedule.tables)
    assert subsets == list(itertools.combinations(sorted(bots), k))
    assert len(schedule.games) == math.comb(n, k) * games_per_table
    # Every pair shares comb(n - 2, k - 2) tables and every bot plays comb(n - 1, k - 1).
    assert pair_spread(bots, schedule.tables) == (math.comb(n - 2, k - 2),) * 2
    assert bot_spread(bots, schedule.tables) == (math.comb(n - 1, k - 1),) * 2
    # ... and so, over the games too.
    in_games = meetings([g.seats for g in schedule.games])
    assert set(in_games.values()) == {math.comb(n - 2, k - 2) * games_per_table}


def test_the_note_says_what_was_scheduled() -> None:
    schedule = make_schedule(
        NAMES[:5], table_size=3, games_per_table=6, seed=0, duplicate=True, max_tables=None
    )
    assert schedule.note.startswith("all 10 tables of 3 from 5 bots; 6 games per table")
    assert "2 duplicate deals" in schedule.note


# -- balanced samples ------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(4, 12),
    k=st.integers(2, 6),
    data=st.data(),
    seed=st.integers(0, 2**64 - 1),
)
def test_a_sample_balances_pairs_and_bots_within_one(
    n: int, k: int, data: st.DataObject, seed: int
) -> None:
    if k >= n:
        return
    total = math.comb(n, k)
    limit = data.draw(st.integers(1, min(total - 1, 60)), label="max_tables")
    bots = NAMES[:n]
    schedule = make_schedule(
        bots, table_size=k, games_per_table=1, seed=seed, duplicate=False, max_tables=limit
    )
    assert not schedule.full
    assert 1 <= len(schedule.tables) <= limit
    assert len({frozenset(t) for t in schedule.tables}) == len(schedule.tables)  # distinct
    low, high = pair_spread(bots, schedule.tables)
    assert high - low <= 1
    fewest, most = bot_spread(bots, schedule.tables)
    assert most - fewest <= 1
    assert f"a balanced sample of {len(schedule.tables)} of {total:,} tables" in schedule.note
    if len(schedule.tables) < limit:
        assert f"no balanced sample of {limit} was found" in schedule.note


@pytest.mark.parametrize(
    ("n", "k", "tables", "design"),
    [
        (7, 3, 7, "the Fano plane"),
        (9, 3, 12, "the affine plane of order 3"),
        (13, 4, 13, "the projective plane of order 3"),
        (15, 3, 35, "a Steiner triple system of order 15"),
        (19, 3, 57, "a Steiner triple system of order 19"),
        (16, 4, 20, "the affine plane of order 4"),
        (21, 5, 21, "the projective plane of order 4"),
        (8, 4, 14, "a 2-(8, 4, 3) design"),
        (10, 4, 15, "a 2-(10, 4, 2) design"),
        (11, 5, 11, "the biplane of order 3"),
    ],
)
def test_a_sample_is_exactly_balanced_where_a_design_exists(
    n: int, k: int, tables: int, design: str
) -> None:
    # The search aims at these; it finds them for most seeds, not for every one (the
    # affine plane of order 4 and the projective plane of order 4 each escaped it for
    # one seed in 20, which then played a balanced sample one table smaller).
    bots = NAMES[:n]
    schedule = make_schedule(
        bots, table_size=k, games_per_table=k, seed=1, duplicate=True, max_tables=tables
    )
    assert len(schedule.tables) == tables, design
    low, high = pair_spread(bots, schedule.tables)
    assert low == high, design
    assert "each pair meets" in schedule.note
    assert " or " not in schedule.note.split(";")[1]


def test_where_no_balanced_sample_of_that_size_exists_a_smaller_one_is_played() -> None:
    # Two tables of 3 from 4 bots always share two bots: that pair meets twice while
    # the other two bots never meet. One table is the largest balanced sample.
    schedule = make_schedule(
        NAMES[:4], table_size=3, games_per_table=3, seed=1, duplicate=True, max_tables=2
    )
    assert len(schedule.tables) == 1
    assert "no balanced sample of 2 was found" in schedule.note


def test_a_sample_of_most_tables_is_balanced_through_its_complement() -> None:
    bots = NAMES[:8]
    schedule = make_schedule(
        bots, table_size=4, games_per_table=1, seed=3, duplicate=False, max_tables=60
    )
    assert len(schedule.tables) == 60  # all 70 but 10
    low, high = pair_spread(bots, schedule.tables)
    assert high - low <= 1


def test_a_large_league_gets_a_small_balanced_sample() -> None:
    bots = [f"b{i:02d}" for i in range(50)]
    schedule = make_schedule(
        bots, table_size=5, games_per_table=5, seed=11, duplicate=True, max_tables=40
    )
    assert schedule.note.startswith(
        "a balanced sample of 40 of 2,118,760 tables of 5 from 50 bots; "
        "each pair meets at most once, each bot plays 4 tables"
    )
    assert len(schedule.games) == 200


# -- seats ----------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(2, 7),
    k=st.integers(2, 6),
    games_per_table=st.integers(1, 13),
    seed=st.integers(0, 1000),
)
def test_seats_rotate_so_every_bot_sits_everywhere_equally(
    n: int, k: int, games_per_table: int, seed: int
) -> None:
    if k > n:
        return
    schedule = make_schedule(
        NAMES[:n], table_size=k, games_per_table=games_per_table, seed=seed, duplicate=False
    )
    for table, games in by_table(schedule).items():
        base = schedule.tables[table]
        for game in games:
            r = game.rotation
            assert game.seats == base[r:] + base[:r]
            assert r == game.deal % k
        # Game r of a table is rotated by r: each bot's seats differ by at most one game.
        for name in base:
            seats = Counter(game.seats.index(name) for game in games)
            counts = [seats[s] for s in range(k)]
            assert max(counts) - min(counts) <= 1
            if games_per_table % k == 0:
                assert set(counts) == {games_per_table // k}


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(2, 7),
    k=st.integers(2, 6),
    deals=st.integers(1, 3),
    seed=st.integers(0, 1000),
)
def test_a_duplicate_group_replays_one_deal_in_every_rotation(
    n: int, k: int, deals: int, seed: int
) -> None:
    if k > n:
        return
    schedule = make_schedule(
        NAMES[:n], table_size=k, games_per_table=deals * k, seed=seed, duplicate=True
    )
    groups: dict[str | None, list[ScheduledGame]] = defaultdict(list)
    for game in schedule.games:
        groups[game.group].append(game)
    assert None not in groups
    assert len(groups) == len(schedule.tables) * deals
    for group, games in groups.items():
        first = games[0]
        assert group == f"t{first.table}-d{first.deal}"
        assert len({g.seed for g in games}) == 1
        assert {(g.table, g.deal) for g in games} == {(first.table, first.deal)}
        assert sorted(g.rotation for g in games) == list(range(k))
        # Within the group every bot holds every seat exactly once.
        for seat in range(k):
            assert sorted(g.seats[seat] for g in games) == sorted(first.seats)
    # Different deals are different shuffles.
    assert len({g.seed for g in schedule.games}) == len(groups)


def test_without_duplicates_every_game_is_its_own_deal_and_group() -> None:
    schedule = make_schedule(NAMES[:5], table_size=3, games_per_table=4, seed=9, duplicate=False)
    assert {g.group for g in schedule.games} == {None}
    assert len({g.seed for g in schedule.games}) == len(schedule.games)
    assert "4 games per table, each its own deal" in schedule.note


# -- order, ids, determinism -----------------------------------------------------------


def test_games_interleave_tables_so_a_partial_run_is_fair() -> None:
    schedule = make_schedule(NAMES[:6], table_size=3, games_per_table=9, seed=2, duplicate=True)
    tables = len(schedule.tables)
    deals = [g.deal for g in schedule.games]
    assert deals == sorted(deals)  # deal 0 of every table, then deal 1, ...
    per_deal = len(schedule.games) // 3
    for deal in range(3):
        block = schedule.games[deal * per_deal : (deal + 1) * per_deal]
        assert Counter(g.table for g in block) == {t: 3 for t in range(tables)}
    # Any prefix that covers whole deals gives every bot the same number of games.
    prefix = schedule.games[:per_deal]
    assert len(set(Counter(n for g in prefix for n in g.seats).values())) == 1


def test_indexes_and_ids_are_positions() -> None:
    schedule = make_schedule(NAMES[:4], table_size=2, games_per_table=2, seed=2, duplicate=True)
    assert [g.index for g in schedule.games] == list(range(len(schedule.games)))
    assert [g.game_id for g in schedule.games] == [f"g{i:06d}" for i in range(12)]


@settings(max_examples=20, deadline=None)
@given(
    n=st.integers(3, 9),
    seed=st.integers(-(2**63), 2**64),
    limit=st.none() | st.integers(3, 20),
    order=st.randoms(use_true_random=False),
)
def test_the_schedule_derives_from_the_inputs_alone(
    n: int, seed: int, limit: int | None, order: object
) -> None:
    bots = NAMES[:n]
    shuffled = list(bots)
    order.shuffle(shuffled)  # type: ignore[attr-defined]
    kwargs: dict[str, object] = dict(
        table_size=3, games_per_table=3, seed=seed, duplicate=True, max_tables=limit
    )
    first = make_schedule(bots, **kwargs)  # type: ignore[arg-type]
    assert make_schedule(bots, **kwargs) == first  # type: ignore[arg-type]
    # The order the bots are listed in (a folder listing) makes no difference.
    assert make_schedule(shuffled, **kwargs) == first  # type: ignore[arg-type]
    # A different seed gives different deals.
    kwargs["seed"] = seed + 1
    other = make_schedule(bots, **kwargs)  # type: ignore[arg-type]
    assert {g.seed for g in other.games}.isdisjoint(g.seed for g in first.games)


def test_seeds_come_from_the_table_and_deal_only() -> None:
    schedule = make_schedule(NAMES[:5], table_size=3, games_per_table=3, seed=5, duplicate=False)
    seeds = {(g.table, g.deal): g.seed for g in schedule.games}
    assert len(set(seeds.values())) == len(seeds)
    bigger = make_schedule(NAMES[:5], table_size=3, games_per_table=6, seed=5, duplicate=False)
    # More games per table add deals; the deals already scheduled keep their seeds.
    assert all(seeds[g.table, g.deal] == g.seed for g in bigger.games if g.deal < 3)


# -- refusals --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bots", "kwargs", "message"),
    [
        (NAMES[:4], dict(table_size=1), "table size must be 2 to 6"),
        (NAMES[:8], dict(table_size=7), "table size must be 2 to 6"),
        (NAMES[:3], dict(table_size=4), "a table of 4 needs at least 4 bots"),
        (NAMES[:4], dict(games_per_table=0), "games per table must be a whole number >= 1"),
        (NAMES[:4], dict(table_size=3, duplicate=True, games_per_table=4), "multiple of"),
        (NAMES[:4], dict(table_size=3, duplicate=True, games_per_table=2), "use 3"),
        (NAMES[:4], dict(max_tables=0), "max tables"),
        (["a", "b", "a"], {}, "a listed twice"),
        (["a", ""], {}, "non-empty"),
        ("abcd", {}, "not one string"),
        (NAMES[:4], dict(seed=1.5), "seed"),
        (NAMES[:20], dict(table_size=6, games_per_table=30), "more than the"),
    ],
)
def test_bad_inputs_are_refused(
    bots: Sequence[str], kwargs: dict[str, object], message: str
) -> None:
    args: dict[str, object] = dict(table_size=2, games_per_table=2, seed=1, duplicate=False)
    args.update(kwargs)
    with pytest.raises(ConfigError, match=message):
        make_schedule(bots, **args)  # type: ignore[arg-type]


def test_the_duplicate_refusal_explains_itself() -> None:
    with pytest.raises(ConfigError) as info:
        make_schedule(NAMES[:5], table_size=4, games_per_table=6, seed=1, duplicate=True)
    assert str(info.value) == (
        "with duplicate deals, games per table must be a multiple of the table size 4 "
        "(each deal is played once in each of the 4 seat rotations); 6 is not: "
        "use 4 or 8, or turn duplicate deals off"
    )


def test_max_games_bounds_the_schedule() -> None:
    assert math.comb(20, 6) * 30 > MAX_GAMES


def test_the_schedule_of_given_inputs_never_changes_between_arena_versions() -> None:
    """The schedule pinned for two inputs: a resume recomputes it (a kept schedule is
    used only if it is the one this arena makes), so a change to the tables, their
    order, the seat orders or the deal seeds would play the rest of a league stored by
    an earlier arena under other deals (a duplicate group split across the change would
    no longer share its deal) and other tables. Change this only with a new `DEALS`."""
    full = make_schedule(
        ["ann", "bob", "cat", "dan"], table_size=3, games_per_table=3, seed=7, duplicate=True
    )
    assert full.tables == (
        ("dan", "ann", "bob"),
        ("cat", "dan", "bob"),
        ("ann", "cat", "dan"),
        ("bob", "cat", "ann"),
    )
    assert [(g.seats, g.seed, g.group) for g in full.games[:4]] == [
        (("dan", "ann", "bob"), 5251184212354286916, "t0-d0"),
        (("ann", "bob", "dan"), 5251184212354286916, "t0-d0"),
        (("bob", "dan", "ann"), 5251184212354286916, "t0-d0"),
        (("cat", "dan", "bob"), 9507325111399995552, "t1-d0"),
    ]
    sample = make_schedule(
        [f"b{i}" for i in range(7)], table_size=3, games_per_table=1, seed="x",
        duplicate=False, max_tables=7,
    )  # fmt: skip
    assert sample.tables == (
        ("b1", "b0", "b3"),
        ("b2", "b5", "b1"),
        ("b1", "b6", "b4"),
        ("b6", "b3", "b2"),
        ("b4", "b2", "b0"),
        ("b0", "b6", "b5"),
        ("b3", "b4", "b5"),
    )
    assert sample.games[0].seed == 12378967878185546399


def test_a_kept_schedule_short_of_a_table_or_with_one_twice_is_not_the_leagues() -> None:
    """A store can be anyone's, and a resume uses the schedule kept there (finding a
    sample again is what keeping it saves) only if these settings can have made it. One
    marked full that lacks a table would leave that table unplayed, one that holds a
    table twice would play it twice, their games being exactly those their tables make
    (a mutation audit: with either check dropped, every test passed)."""
    bots = NAMES[:5]
    full = make_schedule(bots, table_size=3, games_per_table=2, seed=9, duplicate=False)
    assert full.full
    assert len(full.tables) == math.comb(5, 3)

    def kept(tables: Sequence[tuple[str, ...]], *, whole: bool) -> Schedule:
        games = _games(tables, "9", 2, 3, False)  # the games those tables make
        return Schedule(games=tuple(games), note=full.note, full=whole, tables=tuple(tables))

    def made_here(schedule: Schedule) -> bool:
        return is_schedule_of(
            schedule, bots, table_size=3, games_per_table=2, seed=9, duplicate=False
        )

    assert made_here(full)
    assert made_here(kept(full.tables, whole=True))
    assert not made_here(kept(full.tables[:-1], whole=True))  # short of a table
    assert made_here(kept(full.tables[:-1], whole=False))  # a sample may be
    twice = (*full.tables[:-1], full.tables[0])
    assert not made_here(kept(twice, whole=True))
    assert not made_here(kept(twice, whole=False))
    turned = (*full.tables[:-1], full.tables[0][::-1])  # the same bots, other seats
    assert not made_here(kept(turned, whole=False))
