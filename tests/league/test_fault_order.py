"""A bot's faults in a row are counted in one order whatever order the games finish in
(`arena.league._book`, `fault_order`): the same league and seed disqualify the same bot
after the same game, and store the same games as played and as forfeited, at any
concurrency and across stops and resumes. Before, faults in a row were counted in the
order games finished: at `-j` above 1 a bot that crashed in half its games forfeited
anything from none to ten of its 24 games from one run to the next."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import random
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st
from trio.testing import MockClock

from arena.league import LeagueConfig, LeagueReport, run_league
from arena.league._dispatch import fault_order
from arena.messages import Play, Played, Setup
from arena.referee import FaultRecord, GameResult
from arena.rules import Cause, Game, GameConfig
from arena.runners import Player
from arena.store import Store

from .test_league_runner import Heard, four_manifests
from .test_store_basics import finished


class Shuffled:
    """`players` players whose games finish in an order drawn from `seed` (each waits a
    drawn number of the scheduler's turns); the bot `faulty` crashes in the games
    `crashes` picks, whatever their order. `stop_after`: the league stops (as a kill
    would) once that many games of this run began."""

    def __init__(
        self, players: int, seed: int, faulty: str = "d", stop_after: int | None = None
    ) -> None:
        self.count, self.faulty, self.stop_after = players, faulty, stop_after
        self.random = random.Random(seed)
        self.plays: list[Play] = []

    async def build_bots(self, specs: object, settings: object) -> None:
        return None

    @staticmethod
    def crashes(game: Play) -> bool:
        """Most of the faulty bot's games, not all: its streaks break now and then."""
        return game.seed % 5 != 0

    @contextlib.asynccontextmanager
    async def players(self, setup: Setup) -> AsyncIterator[list[Player]]:
        yield [self.player() for _ in range(self.count)]  # (one each: `Dispatch` tells)

    def player(self) -> Player:
        async def play(game: Play) -> Played:
            self.plays.append(game)
            if self.stop_after is not None and len(self.plays) > self.stop_after:
                raise _Stopped
            for _ in range(self.random.randrange(40)):
                await trio.lowlevel.checkpoint()
            result = _finished(game.game_id, game.seed, game.seats)
            if self.faulty in game.seats and self.crashes(game):
                fault = FaultRecord(game.seats.index(self.faulty), "crash", "scripted", None, 0)
                result = dataclasses.replace(result, faults=(fault,))
            return Played(game.game_id, result, 1.0, 2.0)

        return play


_finished = functools.lru_cache(maxsize=None)(finished)
"""(each game is the same in every run: played once)"""


class _Stopped(Exception):
    """The league stopped, as a kill would stop it."""


def config_of(tmp_path: Path, name: str, concurrency: int, **more: Any) -> LeagueConfig:
    return LeagueConfig(
        bots=four_manifests(tmp_path / name), store=tmp_path / name / "s.sqlite",
        game=GameConfig(players=2), seed=11, table_size=2,
        **{"games_per_table": 8, "fault_limit": 3, "duplicate": False, **more},
        concurrency=concurrency,
    )  # fmt: skip


def what_is_stored(store: Store) -> dict[str, tuple[object, ...]]:
    """Each game's forfeit mark and seats (bot, place, cause): what the standings read."""
    return {
        r.game_id: (r.forfeited, tuple((s.player, s.place, s.cause) for s in r.seats))
        for r in store.game_records()
    }


async def league(tmp_path: Path, name: str, runner: Shuffled, concurrency: int) -> tuple[
    dict[str, tuple[object, ...]], dict[str, str], list[str]
]:  # fmt: skip
    config = config_of(tmp_path, name, concurrency)
    with Store.open(config.store) as store:
        report = await run_league(config, store, Heard(), runner=runner)
        return what_is_stored(store), store.bot_statuses(), report.disqualified


async def test_at_any_concurrency_a_bot_is_disqualified_after_the_same_game(
    tmp_path: Path,
) -> None:
    """One league and seed at -j 1 and at -j 2, 3 and 6 with games finishing in many
    orders: every run stores the same games as played (with the same places and causes)
    and as forfeited, and disqualifies the same bot. Some of the runs played games of
    the bot after the game that disqualified it (under way at once with it): those are
    stored as its forfeits."""
    at_one = await league(tmp_path, "one", Shuffled(1, 0), 1)
    stored, statuses, out = at_one
    assert out == ["d"]
    assert statuses["d"] == "disqualified"
    forfeits = [g for g, (forfeited, _) in stored.items() if forfeited]
    assert forfeits, "the faulty bot was never disqualified"
    replaced = 0
    for run, concurrency in enumerate((2, 3, 6) * 4):
        runner = Shuffled(concurrency, seed=run)
        assert await league(tmp_path, f"run{run}", runner, concurrency) == at_one
        played_by_d = [p.game_id for p in runner.plays if "d" in p.seats]
        replaced += len([g for g in played_by_d if g in forfeits])
    assert replaced, "no run played a game the bot forfeits: the test shows nothing"


@settings(max_examples=12, deadline=None)
@given(
    order=st.integers(0, 10**6),
    stop_after=st.integers(1, 20),
    first=st.sampled_from([1, 3, 6]),
    second=st.sampled_from([1, 2, 6]),
)
def test_a_league_stopped_anywhere_and_resumed_stores_what_an_uninterrupted_one_does(
    tmp_path_factory: pytest.TempPathFactory, order: int, stop_after: int, first: int, second: int
) -> None:
    """Stopped after any number of games at one concurrency (games stored out of the
    order faults are counted in, some counted and some not) and resumed at another: the
    store holds what a league played at once, at -j 1, holds."""
    tmp_path = tmp_path_factory.mktemp("resumed")

    async def main() -> None:
        whole = await league(tmp_path, "whole", Shuffled(1, 0), 1)
        config = config_of(tmp_path, "cut", first)
        with Store.open(config.store) as store:
            runner = Shuffled(first, order, stop_after=stop_after)
            with pytest.raises(ExceptionGroup) as stopped:
                await run_league(config, store, Heard(), runner=runner)
            assert stopped.group_contains(_Stopped)
        config = dataclasses.replace(config, concurrency=second)
        with Store.open(config.store) as store:
            await run_league(config, store, Heard(), runner=Shuffled(second, order + 1))
            resumed = what_is_stored(store), store.bot_statuses()
        assert resumed == whole[:2]

    trio.run(main)


def test_the_fault_order_is_the_order_one_player_plays_the_games() -> None:
    """At -j 1 the games are played in the order faults are counted in, so no game
    played there is ever replaced by a forfeit."""
    from arena.league._dispatch import Dispatch
    from arena.schedule import make_schedule

    schedule = make_schedule(
        [f"b{i}" for i in range(5)], table_size=3, games_per_table=6, seed=3, duplicate=True
    )
    dispatch = Dispatch(schedule.games, reports=False)
    played = list(iter(lambda: dispatch.next("p"), None))
    assert list(fault_order(schedule.games)) == played
    assert sorted(g.index for g in played) == list(range(len(schedule.games)))


class Timed(Shuffled):
    """Games that last 1 to 3 s (of a test's clock, drawn from `seed`); the bot `faulty`
    faults in the share `rate` of its games."""

    def __init__(self, players: int, seed: int, rate: float) -> None:
        super().__init__(players, seed)
        self.rate = rate

    def player(self) -> Player:
        async def play(game: Play) -> Played:
            self.plays.append(game)
            await trio.sleep(self.random.uniform(1, 3))
            result = _finished(game.game_id, game.seed, game.seats)
            if self.faulty in game.seats and game.seed % 1000 < self.rate * 1000:
                fault = FaultRecord(game.seats.index(self.faulty), "crash", "scripted", None, 0)
                result = dataclasses.replace(result, faults=(fault,))
            return Played(game.game_id, result, 1.0, 2.0)

        return play


def timed_league(tmp_path: Path, name: str, runner: Timed) -> tuple[float, LeagueReport]:
    """A league of 8 bots at tables of 4 with duplicate deals, fault limit 5, played by
    `runner` under a test clock: how long it took on that clock, and its report."""

    async def main() -> tuple[float, LeagueReport]:
        bots = tmp_path / name / "bots"
        for i in range(8):
            (bots / f"b{i}").mkdir(parents=True)
            (bots / f"b{i}" / "bot.toml").write_text(f'name = "b{i}"\nrun = "python3 bot.py"\n')
        config = LeagueConfig(
            bots=bots, store=tmp_path / name / "s.sqlite", game=GameConfig(players=4), seed=3,
            table_size=4, games_per_table=4, duplicate=True, fault_limit=5,
            concurrency=runner.count,
        )  # fmt: skip
        began = trio.current_time()
        with Store.open(config.store) as store:
            report = await run_league(config, store, Heard(), runner=runner)
        return trio.current_time() - began, report

    return trio.run(main, clock=MockClock(autojump_threshold=0))


@pytest.mark.parametrize("players", [2, 4, 8])
def test_a_bot_that_faults_in_every_game_plays_few_games_at_once_with_others(
    tmp_path: Path, players: int
) -> None:
    """At -j above 1, the games of a bot that faulted in its latest game wait (others
    are played meanwhile) while it may be disqualified before them: a bot that faults
    in every game plays its first five (the limit) and few more (at most one a player,
    under way when it faulted), not the 100 or so of its 140 games that games at once
    reached before its disqualification was counted, in the order faults are counted."""
    runner = Timed(players, seed=players, rate=1.0)
    runner.faulty = "b3"
    _, report = timed_league(tmp_path, "league", runner)
    assert report.disqualified == ["b3"]
    played = [p for p in runner.plays if "b3" in p.seats]
    assert 5 <= len(played) <= 5 + players


def test_a_bot_that_faults_now_and_then_holds_up_no_game(tmp_path: Path) -> None:
    """A bot that faults in one game in five, never five in a row: its games wait only
    briefly after each fault, and the league takes (on its test clock) no longer than
    one where nobody faults, with the same games."""
    clean, _ = timed_league(tmp_path, "clean", Timed(4, seed=1, rate=0.0))
    runner = Timed(4, seed=1, rate=0.2)
    runner.faulty = "b3"
    faulty, report = timed_league(tmp_path, "faulty", runner)
    assert report.disqualified == []
    assert faulty <= 1.05 * clean


async def test_a_store_of_an_older_arena_is_counted_again_in_the_leagues_order(
    tmp_path: Path,
) -> None:
    """A store of an arena that counted faults in a row in the order games finished (no
    faults table; a bot disqualified that, counted in the league's order, is not): a
    resume makes the table, counts the faults its seats show, and lets that bot play on
    with a message that says why."""
    config = config_of(tmp_path, "old", 1)
    with Store.open(config.store) as store, pytest.raises(ExceptionGroup):
        await run_league(config, store, Heard(), runner=Shuffled(1, 0, stop_after=6))
    with contextlib.closing(sqlite3.connect(config.store)) as db, db:  # as an older arena left it
        db.execute("DROP TABLE faults")
        db.execute("UPDATE bots SET status = 'disqualified' WHERE name = 'a'")
    heard = Heard()
    with Store.open(config.store) as store:
        assert "faults" in {r[0] for r in store._conn.db.execute("SELECT name FROM sqlite_master")}
        report = await run_league(config, store, heard, runner=Shuffled(1, 0))
        statuses = store.bot_statuses()
    assert statuses["a"] == "ok"
    assert statuses["d"] == "disqualified"
    assert report.disqualified == ["d"]
    said = [text for kind, text in heard.events if kind == "message"]
    assert any(text.startswith("a was disqualified by faults in a row counted") for text in said)


class Crashing(Shuffled):
    """The bot `faulty` crashes at the start of every game it plays, put out of it (its
    seat's cause "crash", as an older arena's store shows faults)."""

    def player(self) -> Player:
        async def play(game: Play) -> Played:
            self.plays.append(game)
            if self.stop_after is not None and len(self.plays) > self.stop_after:
                raise _Stopped
            await trio.lowlevel.checkpoint()
            config = GameConfig(players=len(game.seats))
            rules = Game(config, game.seed)
            seat = game.seats.index(self.faulty) if self.faulty in game.seats else None
            if seat is not None:
                rules.eliminate(seat, Cause.CRASH)
            rng = random.Random(game.seed)
            while not rules.is_over:
                legal = rules.legal_actions()
                rules.apply(legal[rng.randrange(len(legal))])
            faults = () if seat is None else (FaultRecord(seat, "crash", "scripted", None, 0),)
            result = GameResult(
                game_id=game.game_id, seed=game.seed, config=config, names=game.seats,
                outcome=rules.outcome(), faults=faults, decisions=rules.plays,
                think_ms=(0.0,) * len(game.seats), log=[{"type": "game"}],
            )  # fmt: skip
            return Played(game.game_id, result, 1.0, 2.0)

        return play


async def test_the_played_games_of_an_older_arenas_store_are_kept_as_they_are(
    tmp_path: Path,
) -> None:
    """An older arena's store (no faults table) in which a bot that crashes in every
    game played on past the game that disqualifies it in the league's order (that
    arena counted in the order games finished; here: a limit of 0 then): a resume with a
    limit counts those games as they are stored, crashes and all, replaces none of them
    by a forfeit (they are results a user has), and forfeits the bot's games it plays
    from then on."""
    config = config_of(tmp_path, "old", 1, fault_limit=0)
    with Store.open(config.store) as store, pytest.raises(ExceptionGroup):
        await run_league(config, store, Heard(), runner=Crashing(1, 0, stop_after=20))
    with contextlib.closing(sqlite3.connect(config.store)) as db, db:
        db.execute("DROP TABLE faults")
    with Store.open(config.store) as store:
        before = {r.game_id: r for r in store.game_records()}
    played_by_d = [g for g, r in before.items() if any(s.player == "d" for s in r.seats)]
    assert len(played_by_d) > 3  # past a limit of 3
    config = dataclasses.replace(config, fault_limit=3)
    runner = Crashing(1, 0)
    with Store.open(config.store) as store:
        report = await run_league(config, store, Heard(), runner=runner)
        after = {r.game_id: r for r in store.game_records()}
    assert report.disqualified == ["d"]
    assert {g: after[g] for g in before} == before  # every stored game as it was
    assert not [p for p in runner.plays if "d" in p.seats]  # forfeits from then on
    new_with_d = [
        r for g, r in after.items() if g not in before and "d" in {s.player for s in r.seats}
    ]
    assert new_with_d
    assert all(r.forfeited for r in new_with_d)
