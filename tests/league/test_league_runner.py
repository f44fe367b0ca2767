"""Issue 16.1: `run_league` takes a game runner; a fake one returns scripted results and
the test checks what the league records, with no bot process anywhere."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trio
import trio.lowlevel

from arena.league import LeagueConfig, LeagueReport, Progress, run_league
from arena.messages import Play, Played, Setup
from arena.referee import FaultRecord
from arena.rules import GameConfig
from arena.runners import Player
from arena.schedule import ScheduledGame
from arena.store import Store

from .test_store_basics import finished


class ScriptedRunner:
    """One player that answers every game at once (random play decides places); the bot named
    `faulty` crashes in every game it plays."""

    def __init__(self, faulty: str) -> None:
        self.faulty = faulty
        self.setups: list[Setup] = []
        self.plays: list[Play] = []

    @contextlib.asynccontextmanager
    async def players(self, setup: Setup) -> AsyncIterator[list[Player]]:
        self.setups.append(setup)

        async def play(game: Play) -> Played:
            self.plays.append(game)
            await trio.lowlevel.checkpoint()
            result = finished(game.game_id, game.seed, game.seats)
            if self.faulty in game.seats:
                seat = game.seats.index(self.faulty)
                fault = FaultRecord(seat, "crash", "scripted", None, 0)
                result = dataclasses.replace(result, faults=(fault,))
            return Played(game.game_id, result, 1.0, 2.0)

        yield [play]  # one game at a time: the disqualification is exact


class Heard(Progress):
    def __init__(self) -> None:
        self.events: list[tuple[str, object]] = []

    def started(self, total: int, todo: int, note: str) -> None:
        self.events.append(("started", (total, todo)))

    def game(self, result: object, game: ScheduledGame, done: int, total: int) -> None:
        self.events.append(("game", (game.game_id, result is None, done)))

    def message(self, text: str) -> None:
        self.events.append(("message", text))

    def finished(self, report: LeagueReport) -> None:
        self.events.append(("finished", report.played))


async def test_the_league_records_what_its_runner_plays(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    for name in ("a", "b", "c", "d"):
        (bots / name).mkdir(parents=True)
        (bots / name / "bot.toml").write_text(f'name = "{name}"\nrun = "python3 bot.py"\n')
    config = LeagueConfig(
        bots=bots, store=tmp_path / "s.sqlite", game=GameConfig(players=3), seed=4,
        table_size=3, games_per_table=3, duplicate=True, fault_limit=2, concurrency=9,
    )  # fmt: skip
    runner = ScriptedRunner(faulty="d")
    heard = Heard()
    with Store.open(config.store) as store:
        report = await run_league(config, store, heard, runner=runner)
        records = {r.game_id: r for r in store.game_records()}
        statuses = store.bot_statuses()
    (setup,) = runner.setups
    assert [b.name for b in setup.bots] == ["a", "b", "c", "d"]
    assert setup.settings.sandbox == "none"
    assert setup.config.players == 3
    schedule = {g.game_id: g for g in report.schedule.games}
    assert len(schedule) == 4 * 3  # C(4, 3) tables x 3 rotations
    for play in runner.plays:  # each game as the schedule has it
        game = schedule[play.game_id]
        assert (play.seats, play.seed, play.group) == (game.seats, game.seed, game.group)
    assert set(records) == set(schedule)  # every game stored once
    # d crashed twice in a row, was disqualified, and forfeited the rest of its games.
    assert statuses["d"] == "disqualified"
    assert report.disqualified == ["d"]
    with_d = [g for g in report.schedule.games if "d" in g.seats]
    played_d = [p for p in runner.plays if "d" in p.seats]
    assert len(played_d) == 2
    assert report.forfeits == len(with_d) - 2
    assert report.played == len(runner.plays) == len(schedule) - report.forfeits
    causes = [s.cause for r in records.values() for s in r.seats if s.player == "d"]
    assert causes.count("forfeit") == report.forfeits
    assert heard.events[0] == ("started", (12, 12))
    assert heard.events[-1] == ("finished", report.played)
    assert [e for e in heard.events if e[0] == "message"] == [
        ("message", "d is disqualified after 2 faults in a row; its remaining games are forfeits")
    ]
    done = [e[1][2] for e in heard.events if e[0] == "game"]  # type: ignore[index]
    assert done == list(range(1, 13))


async def test_a_resume_reads_the_schedule_from_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 14.5: the schedule is kept in the store and read back on resume, not
    computed again; other settings compute (and keep) their own."""
    import arena.league

    bots = tmp_path / "bots"
    for name in ("a", "b", "c", "d", "e"):
        (bots / name).mkdir(parents=True)
        (bots / name / "bot.toml").write_text(f'name = "{name}"\nrun = "python3 bot.py"\n')
    config = LeagueConfig(
        bots=bots, store=tmp_path / "s.sqlite", game=GameConfig(players=3), seed=4,
        table_size=3, games_per_table=3, duplicate=True, max_tables=6,
    )  # fmt: skip
    with Store.open(config.store) as store:
        first = await run_league(config, store, Progress(), runner=ScriptedRunner(faulty="-"))

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the schedule was computed again")

    monkeypatch.setattr(arena.league, "make_schedule", refuse)
    with Store.open(config.store) as store:
        again = await run_league(config, store, Progress(), runner=ScriptedRunner(faulty="-"))
    assert again.schedule == first.schedule
    assert again.skipped == len(first.schedule.games)
