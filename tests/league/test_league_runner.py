"""Issue 16.1: `run_league` takes a game runner; a fake one returns scripted results and
the test checks what the league records, with no bot process anywhere."""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.lowlevel

from arena.errors import StoreError
from arena.league import LeagueConfig, LeagueReport, Progress, _book, _run, run_league
from arena.messages import Play, Played, Setup
from arena.referee import Clocks, FaultRecord
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

    async def build_bots(self, specs: object, settings: object) -> None:
        """The bots are built by the caller (nothing is built for a scripted game)."""
        return None

    @contextlib.asynccontextmanager
    async def players(self, setup: Setup) -> AsyncIterator[list[Player]]:
        self.setups.append(setup)

        async def play(game: Play) -> Played:
            self.plays.append(game)
            await trio.lowlevel.checkpoint()
            result = finished(game.game_id, game.seed, game.seats)
            if self.faulty in game.seats and self.crashes_in(game):
                seat = game.seats.index(self.faulty)
                fault = FaultRecord(seat, "crash", "scripted", None, 0)
                result = dataclasses.replace(result, faults=(fault,))
            return Played(game.game_id, result, 1.0, 2.0)

        yield [play]  # one game at a time: the disqualification is exact

    def crashes_in(self, game: Play) -> bool:
        """Whether the faulty bot crashes in `game`, one of its games: in every one."""
        return True


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


def four_manifests(root: Path) -> Path:
    """A folder of bots a, b, c and d (manifests only: a scripted runner plays them)."""
    bots = root / "bots"
    for name in ("a", "b", "c", "d"):
        (bots / name).mkdir(parents=True)
        (bots / name / "bot.toml").write_text(f'name = "{name}"\nrun = "python3 bot.py"\n')
    return bots


def league_of_four(tmp_path: Path, **settings: Any) -> LeagueConfig:
    """A league of the four bots of `four_manifests` at tables of 3, three games a table,
    its store in `tmp_path`, with `settings` besides (or instead)."""
    return LeagueConfig(
        bots=four_manifests(tmp_path), store=tmp_path / "s.sqlite", game=GameConfig(players=3),
        seed=4, table_size=3, **{"games_per_table": 3, **settings},
    )  # fmt: skip


async def test_the_league_records_what_its_runner_plays(tmp_path: Path) -> None:
    config = league_of_four(tmp_path, duplicate=True, fault_limit=2, concurrency=9)
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
        (
            "message",
            "d is disqualified after 2 faults in a row (the last: crash: scripted); its"
            " remaining games are forfeits (run again without --no-logs to keep its stderr)",
        )
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

    monkeypatch.setattr(arena.league._resume, "make_schedule", refuse)
    with Store.open(config.store) as store:
        again = await run_league(config, store, Progress(), runner=ScriptedRunner(faulty="-"))
    assert again.schedule == first.schedule
    assert again.skipped == len(first.schedule.games)


class Removing(Progress):
    """Removes the store (or moves another file in its place) once `after` games are
    stored, as an organiser might while the league runs."""

    def __init__(self, store: Path, after: int, replacement: Path | None) -> None:
        self.store, self.after, self.replacement = store, after, replacement

    def game(self, result: object, game: ScheduledGame, done: int, total: int) -> None:
        if done == self.after:
            if self.replacement is None:
                self.store.unlink()
            else:
                self.replacement.rename(self.store)


@pytest.mark.parametrize("replaced", [False, True])
async def test_a_store_removed_or_replaced_while_the_league_writes_is_saved(
    tmp_path: Path, replaced: bool
) -> None:
    """SQLite writes on in the file it has open when its name is removed or given to
    another file: the league played every game into a file nobody could open again,
    and ended as if all were well, its results lost (and the store's write-ahead log,
    left under the name, damaged the next store there). The league stops at the next
    game with an error that says where its games are saved, and the log is removed."""
    config = league_of_four(tmp_path, duplicate=True, concurrency=1)
    other = tmp_path / "other.sqlite"
    Store.open(other).close()
    content = other.read_bytes()
    progress = Removing(config.store, 3, other if replaced else None)
    errors: list[str] = []
    with Store.open(config.store) as store:
        try:
            await run_league(config, store, progress, runner=ScriptedRunner(faulty="-"))
        except* StoreError as group:
            errors += [str(err) for err in group.exceptions]
    (rescued,) = [tmp_path / n for n in os.listdir(tmp_path) if n.startswith("s.sqlite.rescued-")]
    what = "replaced by another file" if replaced else "removed"
    (error,) = errors
    assert f"the store was {what}" in error
    assert f"its 4 games are saved in {rescued}" in error
    assert not (tmp_path / "s.sqlite-wal").exists()
    assert not (tmp_path / "s.sqlite-shm").exists()
    if replaced:  # the file moved there is as it was, and reads as itself
        assert config.store.read_bytes() == content
        with Store.open(config.store, readonly=True, check=True) as moved:
            assert moved.games_count() == 0
        config.store.unlink()
    with Store.open(rescued, readonly=True, check=True) as saved:
        kept = {r.game_id: r for r in saved.game_records()}
    assert len(kept) == 4
    rescued.rename(config.store)
    with Store.open(config.store) as store:
        report = await run_league(config, store, Progress(), runner=ScriptedRunner(faulty="-"))
        records = {r.game_id: r for r in store.game_records()}
    assert report.skipped == 4
    assert len(records) == 12
    assert {k: records[k] for k in kept} == kept


async def test_a_long_league_of_duplicate_deals_keeps_no_lock_per_deal_played(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game of a duplicate deal waits for the others of its deal (`_Book.drive`); what
    it waits on goes once no game of the deal is in play or waiting, so that a league
    running for days keeps a lock a deal in play, not one for every deal it played.
    (The book's own locks are counted: the process's, other tests' among them, are
    not its.)"""
    books: list[_book._Book] = []

    class Book(_book._Book):
        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            books.append(self)

    monkeypatch.setattr(_run, "_Book", Book)
    config = league_of_four(
        tmp_path, games_per_table=30, duplicate=True, fault_limit=0, concurrency=2
    )
    runner = ScriptedRunner(faulty="none")
    locks: list[int] = []
    scripted = runner.players

    @contextlib.asynccontextmanager
    async def counting(setup: Setup) -> AsyncIterator[list[Player]]:
        async with scripted(setup) as (play,):

            async def counted(game: Play) -> Played:
                locks.append(len(books[0]._groups))
                return await play(game)

            yield [counted, counted]

    runner.players = counting  # type: ignore[method-assign]
    with Store.open(config.store) as store:
        report = await run_league(config, store, Heard(), runner=runner)
    assert report.played == 4 * 30  # 40 deals of 3 games
    assert 1 <= max(locks) <= 2  # the deals in play at once, not the 40 played


async def test_the_league_plays_on_as_many_players_as_its_concurrency(tmp_path: Path) -> None:
    """A runner's players beyond the concurrency stay idle, and each one up to it plays."""
    config = league_of_four(tmp_path, duplicate=False, fault_limit=0, concurrency=2)
    runner = ScriptedRunner(faulty="none")
    scripted = runner.players
    played: list[int] = []

    @contextlib.asynccontextmanager
    async def three(setup: Setup) -> AsyncIterator[list[Player]]:
        async with scripted(setup) as (play,):

            def numbered(k: int) -> Player:
                async def player(game: Play) -> Played:
                    played.append(k)
                    await trio.lowlevel.checkpoint()  # the others ask meanwhile
                    return await play(game)

                return player

            yield [numbered(k) for k in range(3)]

    runner.players = three  # type: ignore[method-assign]
    with Store.open(config.store) as store:
        report = await run_league(config, store, Heard(), runner=runner)
    assert report.played == 12
    assert sorted(set(played)) == [0, 1]


class _Killed(Exception):
    """The league stopped, as a kill would stop it."""


class KilledAtDisqualification(Heard):
    """Stops the league at the first disqualification it is told of."""

    def message(self, text: str) -> None:
        super().message(text)
        if "is disqualified" in text:
            raise _Killed


async def test_a_league_killed_before_a_disqualification_was_stored_makes_it_on_resume(
    tmp_path: Path,
) -> None:
    """A league killed between the game that completed a bot's faults in a row (the
    bots that faulted stored with it) and the bot's disqualification: the resumed league
    disqualifies it before any game, and it plays no more (without that it played on,
    and a clean game reset its streak: never disqualified)."""
    config = league_of_four(tmp_path, duplicate=True, fault_limit=2, concurrency=1)
    with Store.open(config.store) as store:
        with pytest.raises(ExceptionGroup) as stopped:  # from the league's nursery
            await run_league(config, store, KilledAtDisqualification(), runner=ScriptedRunner("d"))
        assert stopped.group_contains(_Killed)
        faulted = [game for game, _, bots, _, _ in store.fault_record() if "d" in bots]
        assert len(faulted) == 2  # the faults stored with their games
        store.set_bot_status("d", "ok")  # as if killed before this was written
    runner = ScriptedRunner(faulty="d")
    with Store.open(config.store) as store:
        report = await run_league(config, store, Heard(), runner=runner)
        assert store.bot_statuses()["d"] == "disqualified"
    assert report.disqualified == ["d"]
    assert [p.game_id for p in runner.plays if "d" in p.seats] == []
    assert report.forfeits > 0


async def test_a_bot_disqualified_before_a_resume_is_not_disqualified_again(
    tmp_path: Path,
) -> None:
    """A league stopped after a bot's disqualification was stored: the resumed league
    forfeits the bot's games without disqualifying it again (no second message, not
    in the resumed run's report, its note as it was)."""
    config = league_of_four(tmp_path, duplicate=True, fault_limit=2, concurrency=1)
    with Store.open(config.store) as store:
        with pytest.raises(ExceptionGroup):  # stopped once "d" is disqualified
            await run_league(config, store, KilledAtDisqualification(), runner=ScriptedRunner("d"))
        assert store.bot_statuses()["d"] == "disqualified"
        store.set_bot_status("d", "disqualified", "as stored")
    heard = Heard()
    runner = ScriptedRunner(faulty="d")
    with Store.open(config.store) as store:
        report = await run_league(config, store, heard, runner=runner)
        assert store.bot_notes()["d"] == "as stored"
    assert report.disqualified == []
    assert not [text for kind, text in heard.events if kind == "message"]
    assert [p.game_id for p in runner.plays if "d" in p.seats] == []
    assert report.forfeits > 0


class StoppedAtFirstGame(ScriptedRunner):
    """Stops the league as its first game begins: nothing is stored but its settings."""

    def crashes_in(self, game: Play) -> bool:
        raise _Killed


async def stopped_then_resumed(
    tmp_path: Path,
    stopper: ScriptedRunner,
    stored: int,
    change: Callable[[LeagueConfig], LeagueConfig],
) -> tuple[LeagueReport, list[str]]:
    """A league of four bots at tables of 3, stopped by `stopper` with `stored` games
    stored, then resumed with the settings `change` makes of its own: the resume's
    report and the messages it said."""
    config = league_of_four(tmp_path, duplicate=False, concurrency=1)
    with Store.open(config.store) as store:
        with pytest.raises(ExceptionGroup):
            await run_league(config, store, Heard(), runner=stopper)
        assert store.games_count() == stored
    heard = Heard()
    with Store.open(config.store) as store:
        report = await run_league(change(config), store, heard, runner=ScriptedRunner("-"))
    return report, [text for kind, text in heard.events if kind == "message"]


async def test_a_resume_of_a_league_stopped_before_any_game_warns_of_no_settings_change(
    tmp_path: Path,
) -> None:
    """Other clocks for a league that stored no game yet: no game was played with the
    earlier ones, so the resume says nothing of "the games stored so far"."""

    def slower(config: LeagueConfig) -> LeagueConfig:
        run = dataclasses.replace(config.run, clocks=Clocks(decision_ms=9000))
        return dataclasses.replace(config, run=run)

    report, said = await stopped_then_resumed(tmp_path, StoppedAtFirstGame("a"), 0, slower)
    assert report.played == 12
    assert said == []


class StoppedAtSecondGame(ScriptedRunner):
    """Stops the league as its second game begins: one game is stored."""

    def crashes_in(self, game: Play) -> bool:
        if len(self.plays) > 1:
            raise _Killed
        return False


async def test_a_resume_with_another_stderr_cap_warns_of_no_settings_change(
    tmp_path: Path,
) -> None:
    """The cap on a bot's stderr shapes its log, not its games: a resume with another
    one says nothing of games played with other settings."""

    def other_cap(config: LeagueConfig) -> LeagueConfig:
        limits = config.run.limits
        limits = dataclasses.replace(limits, stderr_kb=limits.stderr_kb + 1)
        return dataclasses.replace(config, run=dataclasses.replace(config.run, limits=limits))

    report, said = await stopped_then_resumed(tmp_path, StoppedAtSecondGame("a"), 1, other_cap)
    assert report.played == 11
    assert said == []


class EveryOtherGame(ScriptedRunner):
    """The bot named `faulty` crashes in its 1st, 3rd, 5th ... game, and plays its
    others cleanly."""

    def __init__(self, faulty: str) -> None:
        super().__init__(faulty)
        self.games = 0
        self.crashes = 0

    def crashes_in(self, game: Play) -> bool:
        self.games += 1
        crashes = self.games % 2 == 1
        self.crashes += crashes
        return crashes


async def test_faults_not_in_a_row_never_disqualify(tmp_path: Path) -> None:
    """The limit counts faults in a row (`fault_limit`): a clean game resets the streak.
    A bot that crashes in every other game, 5 of its 9, is never disqualified at a
    limit of 2."""
    config = league_of_four(tmp_path, duplicate=True, fault_limit=2, concurrency=1)
    runner = EveryOtherGame(faulty="d")
    with Store.open(config.store) as store:
        report = await run_league(config, store, Heard(), runner=runner)
        statuses = store.bot_statuses()
    assert (runner.games, runner.crashes) == (9, 5)
    assert report.disqualified == []
    assert statuses["d"] != "disqualified"
    assert report.forfeits == 0
