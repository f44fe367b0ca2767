"""Properties of counting faults in a row in the league's order (`arena.league._book`),
over random leagues: 3 to 8 bots, tables of 2 to 4, duplicate deals or not, fault
limits 1 to 5, several bots that fault in different shares of their games (some faults
put the bot out of its game, some come after it is out: a fault record whose seat is
not eliminated), 1 to 8 players whose games finish in random orders, stops at random
moments (a game's player raising, or the store raising just before or just after a
write, as a kill would leave it) and resumes at other concurrencies.

Each league must store what a model of the rules (docs/results.md, Forfeits) says:
faults in a row counted in `fault_order`, a bot disqualified at the game where its run
reaches the limit, and every later game of its tables a forfeit naming each bot
disqualified before it; the report must count what this run stored; no league hangs
(a test clock: a hang fails at once)."""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import random
import zlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from trio.testing import MockClock

from arena.league import LeagueConfig, LeagueReport, run_league
from arena.league._dispatch import fault_order
from arena.messages import Play, Played, Setup
from arena.referee import FaultRecord, GameResult
from arena.rules import Cause, EndReason, GameConfig, Outcome
from arena.rules._game import Elimination
from arena.runners import Player
from arena.schedule import ScheduledGame
from arena.store import Store

from .test_league_runner import Heard

_CAUSES = ("crash", "timeout", "malformed", "illegal")


@dataclasses.dataclass(frozen=True)
class Case:
    """A league: its bots, settings, and each faulty bot's share of games with a fault."""

    bots: int
    table_size: int
    duplicate: bool
    games_per_table: int
    max_tables: int | None
    limit: int
    rates: tuple[tuple[str, float], ...]
    seed: int

    @property
    def names(self) -> list[str]:
        return [f"b{i}" for i in range(self.bots)]

    def faults(self, name: str, game: ScheduledGame | Play) -> bool:
        """Whether `name` faults in `game` (the same whatever order games are played in)."""
        rate = dict(self.rates).get(name, 0.0)
        return _draw(name, game.seed, "fault") < rate

    def config(self, root: Path, concurrency: int) -> LeagueConfig:
        bots = root / "bots"
        for name in self.names:
            (bots / name).mkdir(parents=True, exist_ok=True)
            (bots / name / "bot.toml").write_text(f'name = "{name}"\nrun = "python3 bot.py"\n')
        return LeagueConfig(
            bots=bots, store=root / "s.sqlite", game=GameConfig(players=self.table_size),
            seed=self.seed, table_size=self.table_size, games_per_table=self.games_per_table,
            duplicate=self.duplicate, max_tables=self.max_tables, fault_limit=self.limit,
            concurrency=concurrency,
        )  # fmt: skip


def _draw(name: str, seed: int, what: str) -> float:
    return zlib.crc32(f"{what}:{name}:{seed}".encode()) / 2**32


def result_of(case: Case, game: Play) -> GameResult:
    """`game`'s result: places drawn from its seed; each faulty bot's fault, which puts
    its seat out of the game (last places, a fault's cause) or comes after it is out (the
    seat keeps its place and no cause)."""
    seats = game.seats
    faulted = [s for s, name in enumerate(seats) if case.faults(name, game)]
    out = [s for s in faulted if _draw(seats[s], game.seed, "out") < 0.5]
    luck = sorted(range(len(seats)), key=lambda s: (s in out, _draw(seats[s], game.seed, "luck")))
    places = [0] * len(seats)
    for place, seat in enumerate(luck, start=1):
        places[seat] = place
    cause = {s: _CAUSES[int(_draw(seats[s], game.seed, "cause") * 4)] for s in faulted}
    eliminations = tuple(
        Elimination(s, Cause(cause[s]), places[s], 1, 0)
        for s in sorted(out, key=lambda s: -places[s])
    )
    outcome = Outcome(
        places=tuple(places), points=None, tokens=None, eliminations=eliminations,
        reason=EndReason.LAST_PLAYER, rounds=1, plays=10,
    )  # fmt: skip
    return GameResult(
        game_id=game.game_id, seed=game.seed, config=GameConfig(players=len(seats)),
        names=seats, outcome=outcome,
        faults=tuple(FaultRecord(s, cause[s], "scripted", None, 0) for s in faulted),
        decisions=10, think_ms=(0.0,) * len(seats), log=[{"type": "game"}],
    )  # fmt: skip


class _Stopped(Exception):
    """The league stopped, as a kill would stop it."""


class Runner:
    """`count` players whose games last a time drawn from `seed` (of the test clock, so
    they finish in a random order); `stop_after`: the player of this run's game of that
    number raises instead of playing it."""

    def __init__(self, case: Case, count: int, seed: int, stop_after: int | None = None) -> None:
        self.case, self.count, self.stop_after = case, count, stop_after
        self.random = random.Random(seed)
        self.plays: list[Play] = []

    async def build_bots(self, specs: object, settings: object) -> None:
        return None

    @contextlib.asynccontextmanager
    async def players(self, setup: Setup) -> AsyncIterator[list[Player]]:
        yield [self.player() for _ in range(self.count)]

    def player(self) -> Player:
        async def play(game: Play) -> Played:
            self.plays.append(game)
            if self.stop_after is not None and len(self.plays) > self.stop_after:
                raise _Stopped
            await trio.sleep(self.random.choice((0, 0, 1, 2, 3, 7)) * self.random.random())
            return Played(game.game_id, result_of(self.case, game), 1.0, 2.0)

        return play


def stop_store(store: Store, write: int, after: bool) -> None:
    """Make the store raise `_Stopped` at its `write`th write of a game or a bot's
    status: just before it (`after` False) or just after it (as a kill there leaves it)."""
    calls = [0]

    def wrap(method: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            calls[0] += 1
            if calls[0] == write and not after:
                raise _Stopped
            value = method(*args, **kwargs)
            if calls[0] == write:
                raise _Stopped
            return value

        return wrapped

    for name in ("record_game", "record_forfeit", "set_bot_status"):
        setattr(store, name, wrap(getattr(store, name)))


def model(case: Case, games: tuple[ScheduledGame, ...]) -> tuple[dict[str, Any], list[str]]:
    """What the rules store of each game, (status, bots: faulted or forfeiting), and the
    bots disqualified, in order."""
    streak: dict[str, int] = {}
    out: list[str] = []
    stored: dict[str, Any] = {}
    for game in fault_order(games):
        forfeiting = set(out).intersection(game.seats)
        if forfeiting:
            stored[game.game_id] = ("forfeit", frozenset(forfeiting))
            continue
        faulted = frozenset(n for n in game.seats if case.faults(n, game))
        stored[game.game_id] = ("done", faulted)
        for name in game.seats:
            streak[name] = streak.get(name, 0) + 1 if name in faulted else 0
        for name in game.seats:
            if streak[name] >= case.limit and name not in out:
                out.append(name)
    return stored, out


def stored_games(store: Store) -> dict[str, tuple[object, ...]]:
    """Each game's forfeit mark and seats (bot, place, cause)."""
    return {
        r.game_id: (r.forfeited, tuple((s.player, s.place, s.cause) for s in r.seats))
        for r in store.game_records()
    }


async def run(
    case: Case, root: Path, concurrency: int, order: int, stop: tuple[str, int, bool] | None
) -> tuple[LeagueReport | None, Runner, set[str], dict[str, str]]:
    """One run of the league in `root` (a resume if it has a store): its report (None if
    stopped), its runner, the games stored before it, and the bots' statuses after."""
    config = case.config(root, concurrency)
    runner = Runner(case, concurrency, order, stop[1] if stop and stop[0] == "play" else None)
    with Store.open(config.store) as store:
        before = store.done_game_ids()
        if stop and stop[0] == "store":
            stop_store(store, stop[1], stop[2])
        report: LeagueReport | None = None
        try:
            with trio.fail_after(10**6):  # (a test clock: a hang fails at once)
                report = await run_league(config, store, Heard(), runner=runner)
        except _Stopped:  # (before the games: counting the stored ones)
            pass
        except ExceptionGroup as group:
            others = group.subgroup(lambda e: not isinstance(e, (_Stopped, ExceptionGroup)))
            if not group.subgroup(_Stopped) or others:
                raise
        statuses = store.bot_statuses()
    return report, runner, before, statuses


cases = st.builds(
    Case,
    bots=st.integers(3, 8),
    table_size=st.integers(2, 4),
    duplicate=st.booleans(),
    games_per_table=st.integers(1, 3),
    max_tables=st.sampled_from([None, 3, 6, 10]),
    limit=st.integers(1, 5),
    rates=st.lists(
        st.tuples(
            st.sampled_from([f"b{i}" for i in range(8)]), st.sampled_from([1.0, 0.9, 0.7, 0.5])
        ),
        min_size=1,
        max_size=3,
        unique_by=lambda r: r[0],
    ).map(tuple),
    seed=st.integers(0, 1000),
).filter(lambda c: c.table_size <= c.bots)


def _fix(case: Case) -> Case:
    """Games per table a multiple of the table size with duplicate deals; at most 10
    tables (a few hundred games at most)."""
    if case.duplicate:
        case = dataclasses.replace(case, games_per_table=case.table_size)
    if case.max_tables is None and math.comb(case.bots, case.table_size) > 10:
        case = dataclasses.replace(case, max_tables=10)
    return case


def check_stored(
    case: Case, root: Path, schedule: tuple[ScheduledGame, ...]
) -> tuple[dict[str, tuple[object, ...]], dict[str, str]]:
    """The store in `root` holds what `model` says; its games and the bots' statuses."""
    expected, out = model(case, schedule)
    with Store.open(root / "s.sqlite") as store:
        record = {g: (status, bots) for g, status, bots, _, _ in store.fault_record()}
        assert record == expected
        statuses = store.bot_statuses()
        assert {n for n, s in statuses.items() if s == "disqualified"} == set(out)
        return stored_games(store), statuses


def _go(
    case: Case, root: Path, concurrency: int, order: int, stop: tuple[str, int, bool] | None = None
) -> tuple[LeagueReport | None, Runner, set[str], dict[str, str]]:
    return trio.run(
        run, case, root, concurrency, order, stop, clock=MockClock(autojump_threshold=0)
    )


_SETTINGS = settings(  # (ARENA_FAULT_EXAMPLES=1000: a longer search, by hand)
    max_examples=int(os.environ.get("ARENA_FAULT_EXAMPLES", "40")),
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much],
)


@_SETTINGS
@given(case=cases.map(_fix), concurrency=st.integers(1, 8), order=st.integers(0, 10**6))
def test_a_league_at_any_concurrency_stores_what_the_rules_say(
    tmp_path_factory: pytest.TempPathFactory, case: Case, concurrency: int, order: int
) -> None:
    """Any league at any concurrency, games finishing in any order: the games the rules
    say played and forfeited, the bots they say disqualified, a report that counts
    them, and the same games, places and causes as at -j 1."""
    root = tmp_path_factory.mktemp("league")
    report, runner, before, _ = _go(case, root, concurrency, order)
    assert report is not None
    assert not before
    schedule = report.schedule.games
    games, statuses = check_stored(case, root, schedule)
    expected, out = model(case, schedule)
    assert report.disqualified == out
    assert report.played == sum(1 for s, _ in expected.values() if s == "done")
    assert report.forfeits == sum(1 for s, _ in expected.values() if s == "forfeit")
    assert report.skipped == 0
    for name, rate in case.rates:  # one that faults in every game: few games past its end
        if rate == 1.0 and name in out:
            mine = [g for g in schedule if name in g.seats and expected[g.game_id][0] == "done"]
            began = [p for p in runner.plays if name in p.seats]
            assert len(began) <= len(mine) + concurrency
    ref = tmp_path_factory.mktemp("ref")
    _go(case, ref, 1, 0)
    assert check_stored(case, ref, schedule) == (games, statuses)


stops = st.tuples(st.sampled_from(["play", "store"]), st.integers(1, 60), st.booleans())


@_SETTINGS
@given(
    case=cases.map(_fix),
    runs=st.lists(
        st.tuples(st.integers(1, 8), st.integers(0, 10**6), stops), min_size=1, max_size=3
    ),
    last=st.integers(1, 8),
)
def test_a_league_stopped_anywhere_and_resumed_stores_what_the_rules_say(
    tmp_path_factory: pytest.TempPathFactory,
    case: Case,
    runs: list[tuple[int, int, tuple[str, int, bool]]],
    last: int,
) -> None:
    """Stopped at random moments (a player raising; the store raising just before or
    just after a write of a game or a status, as a kill there leaves it) and resumed at
    other concurrencies: the store ends with what the rules say (what -j 1 stores),
    each run's report counts what that run stored, and each bot is reported
    disqualified once in all."""
    root = tmp_path_factory.mktemp("league")
    disqualified: list[str] = []
    schedule: tuple[ScheduledGame, ...] = ()
    for at, (concurrency, order, stop) in enumerate([*runs, (last, 7, None)]):
        report, runner, before, _ = _go(case, root, concurrency, order, stop)
        if report is None:
            continue
        schedule = report.schedule.games
        disqualified += report.disqualified
        with Store.open(root / "s.sqlite") as store:
            record = {g: status for g, status, _, _, _ in store.fault_record()}
        played_now = {p.game_id for p in runner.plays}
        assert report.skipped == len(before)
        assert report.played == len(
            [g for g, s in record.items() if s == "done" and g in played_now]
        )
        assert report.forfeits == len(
            [g for g, s in record.items() if s == "forfeit" and g not in before]
        )
        assert report.skipped + report.played + report.forfeits == len(schedule)
        if at == len(runs):
            break
    assert len(set(disqualified)) == len(disqualified)
    assert set(disqualified) <= set(model(case, schedule)[1])
    games, statuses = check_stored(case, root, schedule)
    ref = tmp_path_factory.mktemp("ref")
    _go(case, ref, 1, 0)
    assert check_stored(case, ref, schedule) == (games, statuses)


def _resumed(
    case: Case, root: Path, limit: int, concurrency: int = 1
) -> tuple[LeagueReport, Runner, list[str], dict[str, bool], dict[str, str]]:
    """`case`'s league in `root` run on with another fault limit: its report, runner and
    messages, and after it each game's forfeit mark and the bots' statuses."""
    case = dataclasses.replace(case, limit=limit)
    heard = Heard()
    runner = Runner(case, concurrency, 5)

    async def main() -> tuple[LeagueReport, dict[str, bool], dict[str, str]]:
        config = case.config(root, concurrency)
        with Store.open(config.store) as store:
            report = await run_league(config, store, heard, runner=runner)
            marks = {r.game_id: r.forfeited for r in store.game_records()}
            return report, marks, store.bot_statuses()

    report, marks, statuses = trio.run(main, clock=MockClock(autojump_threshold=0))
    said = [str(text) for kind, text in heard.events if kind == "message"]
    return report, runner, said, marks, statuses


def _marks(root: Path) -> dict[str, bool]:
    with Store.open(root / "s.sqlite") as store:
        return {r.game_id: r.forfeited for r in store.game_records()}


@pytest.mark.parametrize("finished", [False, True])
def test_a_lower_fault_limit_on_a_resume_replaces_no_game_played_before_it(
    tmp_path: Path, finished: bool
) -> None:
    """Found in an audit: a league resumed with a lower fault limit (or a finished one
    run again with it, which plays nothing) counted the games stored so far again under
    the new limit, and replaced played ones by forfeits (9 of a finished league's 24
    games, without a word): results a user has, deleted. The limit applies to faults to
    come (docs/organisers.md): every game stored before the resume stays as it was; the
    bot is disqualified by its faults to come."""
    case = Case(4, 2, False, 4, None, 5, (("b0", 0.8),), 3)
    _go(case, tmp_path, 1, 0, None if finished else ("play", 10, False))
    before = _marks(tmp_path)
    assert not any(before.values())  # nobody disqualified at a limit of 5
    report, _, _, after, statuses = _resumed(case, tmp_path, 2)
    assert {g: after[g] for g in before} == before
    if not finished:
        assert statuses["b0"] == "disqualified"
        assert report.disqualified == ["b0"]
        assert any(after[g] for g in after if g not in before)
    again = _resumed(case, tmp_path, 2)[3]  # and so it stays
    assert again == after


@pytest.mark.parametrize("limit", [5, 0])
def test_a_higher_fault_limit_on_a_resume_leaves_a_disqualified_bot_so(
    tmp_path: Path, limit: int
) -> None:
    """Found in an audit: a league resumed with a higher fault limit (or 0, never) said
    that a bot disqualified under the old one "stays disqualified", then that it "was
    disqualified by faults in a row counted in the order games finished (an older
    arena)" and plays on: it did, its forfeits stored so far left as they were. It
    stays disqualified, its games to come forfeits, at this resume and the next."""
    case = Case(4, 2, False, 4, None, 2, (("b0", 0.8),), 3)
    _go(case, tmp_path, 1, 0, ("play", 12, False))
    before = _marks(tmp_path)
    assert any(before.values())  # b0 was disqualified, and forfeited games
    for _ in range(2):
        _, runner, said, after, statuses = _resumed(case, tmp_path, limit)
        assert statuses["b0"] == "disqualified"
        assert not [p for p in runner.plays if "b0" in p.seats]
        assert not [text for text in said if "plays on" in text]
        assert {g: after[g] for g in before} == before


@_SETTINGS
@given(
    case=cases.map(_fix),
    first=st.tuples(st.integers(1, 8), st.integers(0, 10**6), stops),
    limit=st.integers(0, 5),
    last=st.integers(1, 8),
)
def test_a_resume_with_another_fault_limit_keeps_what_was_decided(
    tmp_path_factory: pytest.TempPathFactory,
    case: Case,
    first: tuple[int, int, tuple[str, int, bool]],
    limit: int,
    last: int,
) -> None:
    """A league stopped anywhere and resumed with another fault limit (0: never): each
    bot disqualified before stays so; after a stop at -j 1 (no game stored out of the
    order faults are counted in) every game stored stays as it was; and the league run
    again, finished, with either limit, changes nothing."""
    root = tmp_path_factory.mktemp("league")
    _go(case, root, first[0], first[1], first[2])
    with Store.open(root / "s.sqlite") as store:
        out = {n for n, s in store.bot_statuses().items() if s == "disqualified"}
    before = _marks(root)
    _, _, _, after, statuses = _resumed(case, root, limit, last)
    assert out <= {n for n, s in statuses.items() if s == "disqualified"}
    if first[0] == 1:
        assert {g: after[g] for g in before} == before
    for again in (limit, case.limit):
        assert _resumed(case, root, again)[3:] == (after, statuses)
