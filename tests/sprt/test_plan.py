"""Issue 15.1: each deal is played twice at the same table, NEW and OLD in the test seat,
the same field bots in the same other seats; the test seat goes round every seat."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.errors import ConfigError
from arena.sprt import Plan


def test_against_a_field_the_two_games_differ_only_in_the_test_seat() -> None:
    plan = Plan("new", "old", ("f1", "f2", "f3"), 4, "key")
    for index in range(40):
        pair = plan.pair(index)
        a, b = pair.games
        assert a.seed == b.seed
        assert a.group == b.group == f"p{index:06d}"
        assert (a.game_id, b.game_id) == (f"p{index:06d}a", f"p{index:06d}b")
        assert a.test_seat == b.test_seat
        assert a.seats[a.test_seat] == "new"
        assert b.seats[b.test_seat] == "old"
        others = [s for s in range(4) if s != a.test_seat]
        assert [a.seats[s] for s in others] == [b.seats[s] for s in others]
        assert sorted(a.seats[s] for s in others) == ["f1", "f2", "f3"]


def test_the_test_seat_goes_round_every_seat() -> None:
    for size in range(2, 7):
        plan = Plan("new", "old", tuple(f"f{i}" for i in range(size - 1)), size, "k")
        for block in range(3):
            seats = [plan.pair(block * size + r).games[0].test_seat for r in range(size)]
            assert sorted(seats) == list(range(size))


def test_deals_are_keyed_and_the_plan_is_the_same_every_time() -> None:
    plan = Plan("new", "old", ("f1", "f2"), 3, "secret")
    again = Plan("new", "old", ("f1", "f2"), 3, "secret")
    other = Plan("new", "old", ("f1", "f2"), 3, "another")
    assert [plan.pair(i) for i in range(12)] == [again.pair(i) for i in range(12)]
    seeds = [plan.pair(i).games[0].seed for i in range(12)]
    assert len(set(seeds)) == 12
    assert seeds != [other.pair(i).games[0].seed for i in range(12)]


def test_a_field_larger_than_the_table_is_drawn_evenly() -> None:
    field = tuple(f"f{i}" for i in range(7))
    plan = Plan("new", "old", field, 3, "k")
    seen: Counter[str] = Counter()
    for index in range(3 * 700):
        a = plan.pair(index).games[0]
        seen.update(name for name in a.seats if name != "new")
    assert set(seen) == set(field)
    assert max(seen.values()) / min(seen.values()) < 1.25  # 600 each, give or take


def test_directly_new_plays_old_in_both_seat_orders() -> None:
    plan = Plan("new", "old", (), 2, "k")
    assert plan.direct
    firsts = []
    for index in range(6):
        a, b = plan.pair(index).games
        assert a.seed == b.seed
        assert a.group == b.group
        assert b.seats == a.seats[::-1]
        assert a.seats[a.test_seat] == b.seats[b.test_seat] == "new"
        firsts.append(a.seats[0])
    assert firsts == ["new", "old"] * 3


@pytest.mark.parametrize(
    ("field", "size", "problem"),
    [
        ((), 4, "tables of 4 need 3 field bots"),
        (("f1",), 4, "the field has 1: give more field bots"),
        (("f1", "new"), 3, "distinct names"),
        (("f1",), 7, "table size must be 2 to 6"),
    ],
)
def test_a_table_that_the_field_cannot_fill_is_refused(
    field: tuple[str, ...], size: int, problem: str
) -> None:
    with pytest.raises(ConfigError, match=problem):
        Plan("new", "old", field, size, "k")


@pytest.mark.parametrize("field", [(), ("f1", "f2", "f3")])
def test_the_bots_see_made_up_names_and_ids_that_tell_neither_side_nor_order(
    field: tuple[str, ...],
) -> None:
    """Blind seats (docs of `arena.sprt._plan`): both games of a pair show the same
    made-up name per seat, drawn afresh for each pair, and a game id of their own; which
    game of a pair is played first is drawn. With one id for both games, or "a" always
    first, a bot learnt which game of a deal it played (a mutation audit: no test
    failed); with the same names in every pair it could follow a seat from deal to deal."""
    plan = Plan("new", "old", field, len(field) + 1 if field else 2, "key")
    ids, names, orders = set(), set(), set()
    for index in range(40):
        pair = plan.pair(index)
        a, b = pair.games
        assert a.shown[1] == b.shown[1]  # the same names in both games of the deal
        assert len(set(a.shown[1])) == len(a.seats)
        assert all(n.startswith("bot-") and n not in ("new", "old", *field) for n in a.shown[1])
        assert a.shown[0] != b.shown[0]
        assert not {a.shown[0], b.shown[0]} & {a.game_id, b.game_id}
        ids |= {a.shown[0], b.shown[0]}
        names.add(a.shown[1])
        orders.add(pair.order)
    assert len(ids) == 80
    assert len(names) == 40
    assert orders == {(0, 1), (1, 0)}


def test_a_field_one_short_of_the_table_is_refused() -> None:
    """A field of k - 2 for a table of k is refused, not a plan of tables one seat short."""
    with pytest.raises(ConfigError, match="the field has 1: give more field bots"):
        Plan("new", "old", ("f1",), 3, "k")
