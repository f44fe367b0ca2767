"""Standings from game records: the counts, the ratings, the table in every format."""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import random
import re

import pytest
import tabulate
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.ratings import ELO_PER_NAT, fit_plackett_luce
from arena.standings import (
    FAULT_CAUSES,
    GameRecord,
    SeatRecord,
    Standings,
    compute_standings,
    head_to_head,
    output_formats,
    render,
    render_head_to_head,
)


def game(game_id: str, *seats: tuple[str, int], group: str | None = None) -> GameRecord:
    return GameRecord(game_id, group, tuple(SeatRecord(p, place) for p, place in seats))


RECORDS = [
    GameRecord(
        "g1",
        None,
        (
            SeatRecord("ann", 1, points=10, cause=None),
            SeatRecord("bob", 2, points=60, cause="bust"),
            SeatRecord("cid", 3, points=99, cause="timeout"),
        ),
    ),
    GameRecord(
        "g2",
        None,
        (
            SeatRecord("bob", 1, points=0),
            SeatRecord("ann", 2, points=40, cause="target"),
            SeatRecord("cid", 3, points=100, cause="crash"),
        ),
    ),
    GameRecord(
        "g3",
        None,
        (
            SeatRecord("ann", 1, points=5),
            SeatRecord("cid", 2, points=50, cause="cannot_play"),
            SeatRecord("bob", 2, points=50, cause="timeout"),
        ),
    ),
    GameRecord("g4", None, (SeatRecord("cid", 1), SeatRecord("ann", 2, cause="illegal"))),
    # A forfeit (ann disqualified): never played, so neither rated nor counted but as
    # ann's forfeit.
    GameRecord(
        "g5",
        None,
        (SeatRecord("bob", 1), SeatRecord("ann", 3, cause="forfeit"), SeatRecord("cid", 1)),
    ),
]
PLAYED = RECORDS[:4]


@pytest.fixture(scope="module")
def standings() -> Standings:
    return compute_standings(RECORDS)


def test_counts(standings: Standings) -> None:
    rows = {row.player: row for row in standings.rows}
    ann, bob, cid = rows["ann"], rows["bob"], rows["cid"]
    assert [(r.games, r.wins) for r in (ann, bob, cid)] == [(4, 2), (3, 1), (4, 1)]
    assert [r.average_place for r in (ann, bob, cid)] == pytest.approx([1.5, 5 / 3, 9 / 4])
    assert ann.win_rate == 0.5
    assert ann.points == pytest.approx(55 / 3)  # g4 kept no points
    assert dict(cid.faults) == {
        "timeout": 1,
        "crash": 1,
        "malformed": 0,
        "illegal": 0,
        "forfeit": 0,
    }
    assert dict(ann.faults)["forfeit"] == 1
    assert dict(ann.faults)["illegal"] == 1
    assert dict(bob.faults)["timeout"] == 1
    assert [cause for cause, _ in ann.faults] == list(FAULT_CAUSES)
    assert standings.games == 4
    assert standings.forfeits == 1
    assert "Forfeits: 1 game at which a disqualified bot sat" in standings.describe()
    assert standings.has_points


def test_rows_are_ranked_by_elo_and_match_the_fit(standings: Standings) -> None:
    fit = fit_plackett_luce([r.ranking() for r in PLAYED])
    expected = dict(zip(fit.players, fit.elo(1500.0), strict=True))
    assert [row.rank for row in standings.rows] == [1, 2, 3]
    elos = [row.elo for row in standings.rows]
    assert elos == sorted(elos, reverse=True)
    for row in standings.rows:
        assert row.elo == pytest.approx(expected[row.player], abs=1e-9)
    assert sum(elos) / 3 == pytest.approx(1500.0)


def test_intervals_and_superiority(standings: Standings) -> None:
    fit = fit_plackett_luce([r.ranking() for r in PLAYED])
    errors = fit.standard_errors()
    assert errors is not None
    se = dict(zip(fit.players, errors, strict=True))
    for row in standings.rows:
        assert row.plus_minus is not None
        assert row.plus_minus == pytest.approx(1.959964 * ELO_PER_NAT * se[row.player], rel=1e-6)
        assert row.elo_low == pytest.approx(row.elo - row.plus_minus)
        assert row.elo_high == pytest.approx(row.elo + row.plus_minus)
    first, second, last = standings.rows
    diff, diff_se = fit.contrast(first.player, second.player)
    assert diff_se is not None
    z = diff / diff_se
    assert first.superiority == pytest.approx(0.5 * (1 + math.erf(z / math.sqrt(2))))
    assert first.superiority is not None
    assert 0.5 <= first.superiority <= 1
    assert last.superiority is None
    assert standings.intervals == "fisher"


def test_mean_and_prior_are_applied() -> None:
    shifted = compute_standings(RECORDS, mean=2000.0)
    base = compute_standings(RECORDS)
    for a, b in zip(shifted.rows, base.rows, strict=True):
        assert a.player == b.player
        assert a.elo == pytest.approx(b.elo + 500.0)
        assert a.plus_minus == pytest.approx(b.plus_minus)
    weak = compute_standings(RECORDS, prior=0.1)
    strong = compute_standings(RECORDS, prior=10.0)
    spread = [s.rows[0].elo - s.rows[-1].elo for s in (weak, base, strong)]
    assert spread == sorted(spread, reverse=True)


def test_no_intervals() -> None:
    plain = compute_standings(RECORDS, intervals=False)
    assert plain.intervals is None
    assert all(row.plus_minus is None and row.superiority is None for row in plain.rows)


def test_bootstrap_intervals() -> None:
    # RECORDS ten times over: of 5 games some resamples would hold none in which cid
    # finished above another bot, and the Fisher intervals would be given instead
    records = [GameRecord(f"{k}-{g.game_id}", g.group, g.seats) for k in range(10) for g in RECORDS]
    boot = compute_standings(records, bootstrap=50, seed=3)
    assert boot.intervals == "bootstrap"
    assert boot.bootstrap == 50
    for row in boot.rows:
        assert row.plus_minus is not None
        assert row.plus_minus > 0
        assert row.elo_low is not None
        assert row.elo_high is not None
        assert row.elo_low < row.elo_high
    again = compute_standings(list(reversed(records)), bootstrap=50, seed=3)
    assert again == boot
    few = compute_standings(RECORDS, bootstrap=50, seed=3)
    assert few.intervals == "fisher"
    assert "resamples" in few.bootstrap_fallback


def test_bootstrap_uses_duplicate_groups() -> None:
    records = [game(f"g{i}", ("x", 1), ("y", 2), group="A") for i in range(5)]
    records += [game(f"h{i}", *[("y", 1 + i % 2), ("x", 2 - i % 2)]) for i in range(14)]
    grouped = compute_standings(records, bootstrap=30)
    assert grouped.grouped
    assert "duplicate groups" in grouped.describe()
    # One group is one unit to resample: every resample is the same, and a spread of 0
    # would claim certainty; there are no error bars instead.
    same = [game(f"g{i}", ("x", 1), ("y", 2), group="all") for i in range(5)]
    flat = compute_standings(same, bootstrap=30)
    assert all(row.plus_minus is None for row in flat.rows)
    assert "1 duplicate group to resample" in flat.describe()


def test_sequential_method() -> None:
    seq = compute_standings(RECORDS, method="sequential", k_factor=20)
    assert seq.method == "sequential"
    assert seq.intervals is None
    assert seq.prior is None
    assert seq.k_factor == 20
    assert "depends on that order" in seq.describe()
    assert sum(row.elo for row in seq.rows) / 3 == pytest.approx(1500.0)
    assert seq != compute_standings(list(reversed(RECORDS)), method="sequential", k_factor=20)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"method": "glicko"}, "method"),
        ({"prior": -1.0}, "prior"),
        ({"mean": float("nan")}, "mean"),
        ({"bootstrap": -1}, "bootstrap"),
        ({"bootstrap": 5, "method": "sequential"}, "bootstrap"),
        ({"method": "sequential", "k_factor": 0.0}, "k_factor"),
    ],
)
def test_bad_arguments(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        compute_standings(RECORDS, **kwargs)  # type: ignore[arg-type]


def test_a_game_id_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="appears twice"):
        compute_standings([game("g", ("a", 1), ("b", 2)), game("g", ("a", 2), ("b", 1))])


def test_records_validate_themselves() -> None:
    with pytest.raises(ValueError, match="seated twice"):
        game("g", ("a", 1), ("a", 2))
    with pytest.raises(ValueError, match="place"):
        SeatRecord("a", 0)
    assert game("g", ("a", 2), ("b", 1), ("c", 2)).ranking() == [["b"], ["a", "c"]]


def test_empty_standings_render() -> None:
    empty = compute_standings([])
    assert empty.rows == ()
    assert "rank" in render(empty, "simple")
    assert json.loads(render(empty, "json"))["rows"] == []


# -- order independence ------------------------------------------------------------------


@st.composite
def records_strategy(draw: st.DrawFn) -> list[GameRecord]:
    names = ["ann", "bob", "cid", "dee"]
    count = draw(st.integers(min_value=1, max_value=15))
    out = []
    for g in range(count):
        seated = draw(st.lists(st.sampled_from(names), min_size=2, max_size=4, unique=True))
        places = draw(st.lists(st.integers(1, 4), min_size=len(seated), max_size=len(seated)))
        out.append(game(f"g{g}", *zip(seated, places, strict=True)))
    return out


@settings(max_examples=30, deadline=None)
@given(records_strategy(), st.randoms(use_true_random=False), st.integers(0, 5))
def test_standings_do_not_depend_on_record_order_or_place_numbering(
    records: list[GameRecord], rnd: random.Random, shift: int
) -> None:
    shuffled = list(records)
    rnd.shuffle(shuffled)
    # only the relative order of places matters to the ratings: shift them all
    moved = [
        GameRecord(
            r.game_id, r.group, tuple(SeatRecord(s.player, s.place + shift) for s in r.seats)
        )
        for r in shuffled
    ]
    first = compute_standings(records, prior=0.5)
    second = compute_standings(shuffled, prior=0.5)
    assert first == second
    third = compute_standings(moved, prior=0.5)
    assert [(r.player, r.elo, r.plus_minus) for r in third.rows] == [
        (r.player, r.elo, r.plus_minus) for r in first.rows
    ]


# -- rendering -----------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", sorted(set(output_formats()) - {"csv", "json"}))
def test_every_tabulate_format_renders(standings: Standings, fmt: str) -> None:
    text = render(standings, fmt)
    for name in ("ann", "bob", "cid"):
        assert name in text
    assert text.endswith("\n")


def test_output_formats_are_tabulate_plus_machine_formats() -> None:
    unsafe = {"unsafehtml", "latex_raw"}  # they would write a name's markup as it is
    assert set(output_formats()) == (set(tabulate.tabulate_formats) - unsafe) | {"csv", "json"}
    for fmt in ["docx", *unsafe]:
        with pytest.raises(ValueError, match="unknown format"):
            render(compute_standings(RECORDS), fmt)


@pytest.mark.parametrize("fmt", ["github", "pipe", "jira", "orgtbl", "asciidoc"])
def test_a_pipe_in_a_name_does_not_split_a_markup_row(fmt: str) -> None:
    """A name given to `arena rate` may hold `|`: in a markup table whose cells `|`
    separates, every row keeps the header's cells (tabulate writes it as it is)."""
    records = [game("g1", ("a|b", 1), ("cid", 2)), game("g2", ("cid", 1), ("a|b", 2))]
    standings = compute_standings(records)
    for text in (render(standings, fmt), render_head_to_head(head_to_head(records), fmt)):
        rules = set("|-+:=")  # a row of dashes, not of cells
        lines = [x for x in text.splitlines() if x.startswith("|") and not set(x) <= rules]
        assert len(lines) >= 3
        bars = {len(re.findall(r"(?<!\\)\|", line.replace("||", "|"))) for line in lines}
        assert len(bars) == 1, text
        assert "a" in text


def test_table_columns(standings: Standings) -> None:
    text = render(standings, "github")
    header = text.splitlines()[0]
    for column in ("rank", "bot", "Elo", "±", "LOS", "games", "wins", "win %", "avg place"):
        assert column in header
    assert "avg points" in header
    assert "timeout" in header
    assert "crash" in header
    assert "forfeit" in header
    assert "malformed" not in header  # no such fault happened
    assert "Plackett–Luce" in text


def test_table_leaves_out_empty_columns() -> None:
    plain = compute_standings([game("g1", ("a", 1), ("b", 2)), game("g2", ("b", 1), ("a", 2))])
    header = render(plain, "plain", notes=False).splitlines()[0]
    assert "points" not in header
    assert not any(cause in header for cause in FAULT_CAUSES)
    seq = compute_standings([game("g1", ("a", 1), ("b", 2))], method="sequential")
    assert "±" not in render(seq, "simple")


def test_csv_has_every_column(standings: Standings) -> None:
    rows = list(csv.DictReader(io.StringIO(render(standings, "csv"))))
    assert [r["bot"] for r in rows] == [row.player for row in standings.rows]
    assert list(rows[0]) == [
        "rank",
        "bot",
        "elo",
        "plus_minus",
        "elo_low",
        "elo_high",
        "los",
        "games",
        "wins",
        "win_rate",
        "average_place",
        "points",
        *FAULT_CAUSES,
    ]
    first = standings.rows[0]
    assert float(rows[0]["elo"]) == pytest.approx(first.elo, abs=1e-6)
    assert rows[-1]["los"] == ""
    assert int(rows[0]["games"]) == first.games


def test_json_round_trips(standings: Standings) -> None:
    doc = json.loads(render(standings, "json"))
    assert doc["method"] == "mle"
    assert doc["prior"] == 1.0
    assert doc["intervals"] == "fisher"
    assert doc["games"] == 4
    assert [r["bot"] for r in doc["rows"]] == [row.player for row in standings.rows]
    cid = next(r for r in doc["rows"] if r["bot"] == "cid")
    assert cid["faults"]["timeout"] == 1
    assert cid["faults"]["crash"] == 1


def test_superiority_never_prints_as_certain() -> None:
    records = [game(f"g{i}", ("a", 1), ("b", 2)) for i in range(60)]
    records += [game(f"h{i}", ("b", 1), ("a", 2)) for i in range(2)]
    text = render(compute_standings(records), "plain")
    assert ">99%" in text
    assert "100%" not in text


# -- head to head --------------------------------------------------------------------------


def test_head_to_head_counts_and_ties() -> None:
    h2h = head_to_head(RECORDS, order=["cid", "ann"])
    assert h2h.players == ("cid", "ann", "bob")
    i = {p: k for k, p in enumerate(h2h.players)}
    assert h2h.shared[i["ann"]][i["cid"]] == 4
    assert h2h.shared[i["ann"]][i["bob"]] == 3
    assert h2h.above[i["ann"]][i["cid"]] == 3  # g1, g2, g3; not g4
    assert h2h.above[i["bob"]][i["cid"]] == 2.5  # above in g1 and g2, tied in g3
    assert h2h.above[i["cid"]][i["bob"]] == 0.5
    for r in range(3):
        assert h2h.share(r, r) is None
        for c in range(3):
            if r != c:
                assert h2h.above[r][c] + h2h.above[c][r] == h2h.shared[r][c]


def test_head_to_head_renders_in_every_format() -> None:
    h2h = head_to_head(RECORDS)
    table = render_head_to_head(h2h, "simple")
    assert "75% (4)" in table  # ann above cid in 3 of 4
    doc = json.loads(render_head_to_head(h2h, "json"))
    assert doc["players"] == ["ann", "bob", "cid"]
    assert doc["share"][0][2] == 0.75
    assert doc["share"][0][0] is None
    assert doc["games"][0][2] == 4
    rows = list(csv.reader(io.StringIO(render_head_to_head(h2h, "csv"))))
    assert rows[0] == ["bot", "ann", "bob", "cid"]
    assert rows[1][3] == "0.75"
    for fmt in set(output_formats()) - {"csv", "json"}:
        assert "ann" in render_head_to_head(h2h, fmt)


def test_json_says_why_a_bootstrap_gave_no_error_bars() -> None:
    """The table's note on a bootstrap without error bars reaches JSON too, whatever
    the cause: too few games or resamples (`bootstrap_none`), or resamples without a
    finite fit (prior 0). With error bars, or without a bootstrap, there is no reason."""
    base = {"rows": (), "games": 3, "method": "mle", "mean": 1500.0, "k_factor": None}
    unfit = Standings(**base, prior=0.0, intervals=None, bootstrap=5, bootstrap_skipped=4)
    why = "4 of 5 resamples had no finite fit without a prior, too many for error bars"
    assert unfit.no_error_bars == why + "; a prior > 0 avoids this"
    assert json.loads(render(unfit, "json"))["bootstrap"]["no_error_bars"] == unfit.no_error_bars
    few = Standings(**base, prior=1.0, intervals=None, bootstrap=5, bootstrap_none="1 game ...")
    assert json.loads(render(few, "json"))["bootstrap"]["no_error_bars"] == "1 game ..."
    fine = Standings(**base, prior=1.0, intervals="bootstrap", bootstrap=5, bootstrap_skipped=1)
    assert fine.no_error_bars is None
    assert json.loads(render(fine, "json"))["bootstrap"]["no_error_bars"] is None
    fisher = Standings(**base, prior=1.0, intervals="fisher")
    assert json.loads(render(fisher, "json"))["bootstrap"] is None


def test_groups_no_game_links_are_named_apart() -> None:
    """Two leagues in one store (a and b never met c or d): the fit puts both groups
    around the mean, so Elo across them would read as a comparison no game made. The
    standings say so in the notes and in JSON; a linked league says nothing."""
    records = [
        game("g1", ("a", 1), ("b", 2)),
        game("g2", ("b", 1), ("a", 2)),
        game("g3", ("a", 1), ("b", 2)),
        game("g4", ("c", 1), ("d", 2)),
        game("g5", ("d", 1), ("e", 2), ("c", 3)),
    ]
    result = compute_standings(records)
    assert result.apart == (("c", "d", "e"), ("a", "b"))
    text = render(result)
    assert "Apart: no chain of games links the 2 groups (c, d, e) and (a, b)" in text
    assert "Elo between groups is not comparable" in text
    assert json.loads(render(result, "json"))["apart"] == [["c", "d", "e"], ["a", "b"]]
    # A likelihood of superiority only between neighbours that games link.
    group = {p: g for g, names in enumerate(result.apart) for p in names}
    rows = result.rows
    for row, below in itertools.pairwise(rows):
        linked = group[row.player] == group[below.player]
        assert (row.superiority is not None) == linked, (row.player, below.player)
    assert rows[-1].superiority is None
    assert any(row.superiority is None for row in rows[:-1])  # a neighbour across groups
    sequential = compute_standings(records, method="sequential")
    assert sequential.apart == result.apart
    linked = compute_standings([*records, game("g6", ("b", 1), ("e", 2))])
    assert linked.apart == ()
    assert "Apart" not in render(linked)
    assert json.loads(render(linked, "json"))["apart"] is None


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from("abcdefg"), min_size=2, max_size=4, unique=True),
        min_size=1,
        max_size=12,
    )
)
def test_groups_apart_are_the_components_of_who_met_whom(tables: list[list[str]]) -> None:
    """Against a plain graph search over who shared a game."""
    records = [
        game(f"g{i}", *((p, place) for place, p in enumerate(table, start=1)))
        for i, table in enumerate(tables)
    ]
    met: dict[str, set[str]] = {}
    for table in tables:
        for p in table:
            met.setdefault(p, set()).update(table)
    components: list[tuple[str, ...]] = []
    unseen = set(met)
    while unseen:
        stack, seen = [min(unseen)], set()
        while stack:
            p = stack.pop()
            if p not in seen:
                seen.add(p)
                stack.extend(met[p] - seen)
        unseen -= seen
        components.append(tuple(sorted(seen)))
    expected = tuple(sorted(components, key=lambda g: (-len(g), g))) if len(components) > 1 else ()
    assert compute_standings(records).apart == expected


def test_an_anchor_fixes_the_scale_at_a_bot() -> None:
    """Issue 46.4: `--anchor NAME=ELO`, as Ordo and BayesElo: the anchor gets its Elo,
    every difference stays the fit's, and each ± is that of the difference from the
    anchor (the anchor's own is 0), from the fit's covariance."""
    plain = compute_standings(RECORDS)
    anchored = compute_standings(RECORDS, anchor=("bob", 2000.0))
    elo = {row.player: row.elo for row in plain.rows}
    fixed = {row.player: row for row in anchored.rows}
    assert fixed["bob"].elo == pytest.approx(2000.0)
    for player in elo:
        assert fixed[player].elo - 2000.0 == pytest.approx(elo[player] - elo["bob"])
    assert fixed["bob"].plus_minus == pytest.approx(0.0, abs=1e-9)
    players = ["ann", "bob", "cid"]
    orders = [[["ann"], ["bob"], ["cid"]], [["bob"], ["ann"], ["cid"]],
              [["ann"], ["bob", "cid"]], [["cid"], ["ann"]]]  # fmt: skip
    fit = fit_plackett_luce(orders, prior=1.0)
    cov = fit.covariance
    assert cov is not None
    i, b = fit.players.index("ann"), fit.players.index("bob")
    spread = math.sqrt(cov[i][i] + cov[b][b] - 2 * cov[i][b])
    assert fixed["ann"].plus_minus == pytest.approx(1.959964 * ELO_PER_NAT * spread, rel=1e-3)
    assert sorted(players) == sorted(fit.players)
    assert "anchored at bob = 2000" in anchored.describe()
    assert json.loads(render(anchored, "json"))["anchor"] == {"bot": "bob", "elo": 2000.0}
    with pytest.raises(ValueError, match="the anchor 'zed' played no game here"):
        compute_standings(RECORDS, anchor=("zed", 0.0))


def test_csv_and_json_give_every_value_of_every_row_under_its_own_name() -> None:
    """What scripts read is what the table shows: each CSV cell and JSON value of a
    row is that row's own value of its column (an interval's low end is not its high
    end, a win rate is not the wins), and the notes' facts are in the JSON."""
    records = [GameRecord(f"{k}-{g.game_id}", g.group, g.seats) for k in range(3) for g in RECORDS]
    for table in (
        compute_standings(records, anchor=("bob", 1800.0)),
        compute_standings(records, bootstrap=40, seed=2),
    ):
        doc = json.loads(render(table, "json"))
        cells = list(csv.DictReader(io.StringIO(render(table, "csv"))))
        assert len(doc["rows"]) == len(cells) == len(table.rows) == 3
        for row, js, cs in zip(table.rows, doc["rows"], cells, strict=True):
            values = {
                "rank": row.rank, "bot": row.player, "elo": row.elo,
                "plus_minus": row.plus_minus, "elo_low": row.elo_low,
                "elo_high": row.elo_high, "los": row.superiority, "games": row.games,
                "wins": row.wins, "win_rate": row.win_rate,
                "average_place": row.average_place, "points": row.points,
            }  # fmt: skip
            for key, value in values.items():
                if value is None:
                    assert js[key] is None, key
                    assert cs[key] == "", key
                elif isinstance(value, str):
                    assert js[key] == cs[key] == value, key
                else:
                    assert js[key] == pytest.approx(value, abs=1e-6), key
                    assert float(cs[key]) == pytest.approx(value, abs=1e-6), key
            assert js["faults"] == dict(row.faults)
            assert {cause: int(cs[cause]) for cause in FAULT_CAUSES} == dict(row.faults)
            assert row.elo_low is not None
            assert row.elo_high is not None
            assert row.elo_low <= row.elo <= row.elo_high
        assert doc["forfeits"] == table.forfeits == 3
        assert doc["confidence"] == 0.95
    grouped = [
        game(f"g{i}", ("x", 1 + (i % 3 == 0)), ("y", 2 - (i % 3 == 0)), group=f"d{i // 4}")
        for i in range(40)
    ]
    doc = json.loads(render(compute_standings(grouped, bootstrap=20), "json"))
    assert doc["bootstrap"]["unit"] == "group"
    assert doc["intervals"] == "bootstrap"
    plain = json.loads(render(compute_standings(records, intervals=False), "json"))
    assert plain["intervals"] is None
    assert plain["confidence"] is None
    pooled = compute_standings(records, versions={"ann": 2, "zed": 3})
    assert json.loads(render(pooled, "json"))["versions"] == {"ann": 2}


def test_bots_of_equal_elo_are_ranked_by_name() -> None:
    """Equal ratings are ranked by name, whatever order the games named the bots in:
    sequential Elo gives bots that only tied the same rating exactly."""
    records = [game("g1", ("zed", 1), ("amy", 1)), game("g2", ("kim", 1), ("bea", 1))]
    table = compute_standings(records, method="sequential")
    assert [row.player for row in table.rows] == ["amy", "bea", "kim", "zed"]
    assert {row.elo for row in table.rows} == {1500.0}


def test_a_bootstrap_whose_resamples_had_no_plain_fit_says_so() -> None:
    """Five bots in a cycle of wins, rated without a prior: a resample has a plain
    fit only if it holds all five games, and 9 of 10 do not. The one refit left is no
    spread, and the reason given is the resamples without a fit, the cause, not the
    count of refits left, a consequence."""
    names = "abcde"
    records = [game(f"g{i}", (names[i], 1), (names[(i + 1) % 5], 2)) for i in range(5)]
    table = compute_standings(records, prior=0.0, bootstrap=10, seed=2)
    assert table.intervals is None
    assert table.bootstrap_skipped == 9
    assert table.bootstrap_none == ""
    why = "9 of 10 resamples had no finite fit without a prior, too many for error bars"
    assert table.no_error_bars == why + "; a prior > 0 avoids this"
    assert json.loads(render(table, "json"))["bootstrap"]["no_error_bars"] == table.no_error_bars


def test_the_notes_say_an_anchored_interval_is_that_of_the_difference() -> None:
    """Issue 46.4: anchored, each ± is the interval of the bot's difference from the
    anchor (the anchor's own is 0), and the notes say so."""
    text = compute_standings(RECORDS, anchor=("bob", 2000.0)).describe()
    assert "±: 95% interval of the difference from bob from the Fisher information." in text
    assert "of the difference" not in compute_standings(RECORDS).describe()


def test_no_reason_for_missing_error_bars_when_no_bootstrap_was_asked_for() -> None:
    """`Standings.no_error_bars` is None when no bootstrap was requested, whether the
    table has error bars or not (no intervals, or sequential Elo)."""
    assert compute_standings(RECORDS, intervals=False).no_error_bars is None
    assert compute_standings(RECORDS, method="sequential").no_error_bars is None


def test_the_table_shows_each_rows_numbers_in_its_columns(standings: Standings) -> None:
    """The printed table: Elo and ± to the point, LOS and win % as percentages, the
    average place and points to their decimals, each fault under its cause."""
    lines = render(standings, "plain", notes=False).splitlines()
    header = lines[0].split()
    assert header == [
        "rank", "bot", "Elo", "±", "LOS", "games", "wins", "win", "%", "avg", "place",
        "avg", "points", "timeout", "crash", "illegal", "forfeit",
    ]  # fmt: skip
    cells = {line.split()[1]: line.split() for line in lines[1:]}
    assert cells["ann"] == ["1", "ann", "1568", "187", "60%", "4", "2", "50.0", "1.50", "18.3",
                            "0", "0", "1", "1"]  # fmt: skip
    assert cells["bob"][2:8] == ["1527", "188", "78%", "3", "1", "33.3"]
    assert cells["cid"][2:] == ["1405", "179", "4", "1", "25.0", "2.25", "83.0", "1", "1", "0", "0"]
