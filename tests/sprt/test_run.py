"""Issue 15.3-4: running a test with a scripted game runner (no bot process): the stop at
a bound, pairs counted in deal order, resuming, stores of other tests, faults."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import msgspec
import pytest
import trio

from arena.bots import BotSpec, Limits, load_manifest
from arena.errors import ArenaError, ConfigError, StoreError
from arena.messages import Play, Played, Setup
from arena.referee import RunSettings
from arena.rules import Format
from arena.runners import Player
from arena.sprt import (
    H1,
    Hypotheses,
    SprtConfig,
    SprtProgress,
    SprtResult,
    SprtStore,
    bot_names,
    check_bots,
    expected_difference,
    run_sprt,
)
from arena.store import Store

from .helpers import ScriptedRunner, bot_folder, by_strength


class Heard(SprtProgress):
    def __init__(self) -> None:
        self.counted_at: list[tuple[int, int, float]] = []  # (games stored, pairs, LLR)
        self.messages: list[str] = []

    def message(self, text: str) -> None:
        self.messages.append(text)

    def counted(self, result: SprtResult) -> None:
        self.counted_at.append((result.stored, result.tally.pairs, result.tally.llr))


def field_config(tmp_path: Path, **changes: object) -> SprtConfig:
    bots = tmp_path / "bots"
    new, old = bot_folder(bots, "new"), bot_folder(bots, "old")
    field = (bot_folder(bots, "f1"), bot_folder(bots, "f2"))
    config = SprtConfig(
        new=new, old=old, field=field, store=tmp_path / "t.sqlite", table_size=3, seed=5,
        max_games=1000,
    )  # fmt: skip
    return dataclasses.replace(config, **changes)  # type: ignore[arg-type]


async def run(
    config: SprtConfig, runner: ScriptedRunner, heard: SprtProgress | None = None
) -> SprtResult:
    with SprtStore.open(config.store) as store:
        return await run_sprt(config, store, heard or SprtProgress(), runner=runner)


async def test_a_clearly_better_bot_is_accepted_and_the_test_stops(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    config = SprtConfig(
        new=bot_folder(bots, "new"), old=bot_folder(bots, "old"), field=(),
        store=tmp_path / "t.sqlite", seed=1,
    )  # fmt: skip
    runner = ScriptedRunner(by_strength({"new": 5.0}))
    result = await run(config, runner)
    assert result.verdict == "H1"
    assert result.direct
    (setup,) = runner.setups
    assert [b.name for b in setup.bots] == ["new", "old"]
    assert setup.config.players == 2
    assert result.tally.outcomes == {1: result.tally.pairs}  # NEW won both games of each deal
    assert runner.started == runner.finished  # nothing played past the decision
    assert len(runner.started) == result.games == result.stored == 2 * result.tally.pairs
    # the fewest pairs the exact LLR allows (D = 1 every time, the pseudo-pair at ±1)
    h = config.hypotheses
    mu0, mu1 = (float(expected_difference(e, True)) for e in (h.elo0, h.elo1))
    up, down = math.log((1 + mu1) / (1 + mu0)), math.log((1 - mu1) / (1 - mu0))
    fewest = next(n for n in range(1, 1000) if (n + 0.5) * up + 0.5 * down >= h.upper)
    assert result.tally.pairs == fewest


async def test_pairs_count_in_deal_order_whichever_game_ends_first(
    tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    """Pair 0's second game takes long (its first is never played at the same time); the
    other player meanwhile plays on. No pair is counted before pair 0, and the test
    decides exactly as when the games finish in order."""
    rank = by_strength({"new": 0.3})
    in_order = await run(field_config(tmp_path / "one"), ScriptedRunner(rank))
    heard = Heard()
    slow = ScriptedRunner(rank, players=2, delay=lambda play: 100.0 * (play.game_id == "p000000b"))
    out_of_order = await run(field_config(tmp_path / "two"), slow, heard)
    assert slow.finished[-1] == "p000000b"  # the slow game ended last...
    stored, pairs, _ = heard.counted_at[0]
    assert pairs == 1
    assert stored > 2
    assert in_order.verdict == out_of_order.verdict == "H1"
    assert out_of_order.tally == in_order.tally  # the same pairs, the same LLR
    assert out_of_order.stored > out_of_order.games  # games after the decision: kept, not counted


async def test_a_stopped_test_resumes_where_it_stopped(tmp_path: Path) -> None:
    """The cap reached: inconclusive. A higher cap plays only the missing games; a run at
    the cap plays nothing; an interrupted run loses none of its stored games."""
    rank = by_strength({})
    config = field_config(tmp_path, max_games=10)
    first = ScriptedRunner(rank)
    result = await run(config, first)
    assert result.verdict == "inconclusive"
    assert (result.games, result.stored) == (10, 10)
    more = ScriptedRunner(rank)
    result = await run(dataclasses.replace(config, max_games=21), more)
    # pair by pair, each pair's two games in the order drawn for it (blind seats)
    assert [game[:-1] for game in more.started] == [f"p{i:06d}" for i in range(5, 10) for _ in "ab"]
    assert sorted(more.started) == [f"p{i:06d}{s}" for i in range(5, 10) for s in "ab"]
    assert (result.games, result.stored, result.played) == (20, 20, 10)
    again = ScriptedRunner(rank)
    result = await run(dataclasses.replace(config, max_games=20), again)
    assert again.setups == []
    assert result.played == 0
    assert result.verdict == "inconclusive"


async def test_an_interrupted_test_keeps_its_games(
    tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    rank = by_strength({})
    config = field_config(tmp_path, max_games=30)
    runner = ScriptedRunner(rank, delay=lambda play: 1.0)
    with trio.move_on_after(7.5):  # as Ctrl-C would: the game in progress is abandoned
        await run(config, runner)
    assert len(runner.finished) == 7
    assert len(runner.started) == 8
    with SprtStore.open(config.store) as store:
        assert sorted(store.games()) == sorted(runner.finished)
    rest = ScriptedRunner(rank)
    result = await run(config, rest)
    assert rest.started[0] == runner.started[-1]  # the abandoned game, played again
    assert set(rest.started).isdisjoint(runner.finished)
    assert (result.stored, result.games) == (30, 30)


async def test_a_decided_test_only_reports_again(tmp_path: Path) -> None:
    config = field_config(tmp_path)
    result = await run(config, ScriptedRunner(by_strength({"new": 0.5})))
    assert result.tally.decision == H1
    again = ScriptedRunner(by_strength({}))
    second = await run(config, again)
    assert again.setups == []
    assert second.played == 0
    assert second.tally == result.tally
    assert second.verdict == "H1"


async def test_a_store_of_another_test_is_refused(tmp_path: Path) -> None:
    config = field_config(tmp_path, max_games=6)
    await run(config, ScriptedRunner(by_strength({})))
    changes: list[tuple[dict[str, object], str]] = [
        ({"hypotheses": Hypotheses(elo1=20.0)}, "it differs in: hypotheses"),
        ({"field": config.field[:1], "table_size": 2}, "it differs in: field, game, table_size"),
        ({"seed": 6}, "it differs in: seed"),
        ({"new": config.old, "old": config.new}, "it differs in: new, old"),
    ]
    for change, message in changes:
        with pytest.raises(ConfigError, match=message):
            await run(dataclasses.replace(config, **change), ScriptedRunner(by_strength({})))  # type: ignore[arg-type]
    assert config.new.folder is not None
    (config.new.folder / "bot.py").write_text("# a new version\n")
    go_on = dataclasses.replace(config, max_games=12)  # (a finished test is shown: below)
    with pytest.raises(ConfigError, match=r"whose NEW \(new\) has changed since its games"):
        await run(go_on, ScriptedRunner(by_strength({})))
    with SprtStore.open(config.store) as store:
        assert store.count() == 6  # untouched


async def test_a_finished_test_whose_bot_changed_since_is_shown_with_a_warning(
    tmp_path: Path,
) -> None:
    """Found in an audit: a finished test whose NEW was edited afterwards could not be
    shown again: the same command was refused ("... has changed since its games were
    played ... put the old files back to finish that test") though nothing was to be
    played. It is shown, saying that its result is the earlier files'; a test with
    games to go is still refused (above), and nothing is played or stored."""
    config = field_config(tmp_path)
    first = await run(config, ScriptedRunner(by_strength({"new": 0.5})))
    assert first.tally.decision == H1
    assert config.new.folder is not None
    (config.new.folder / "bot.py").write_text("# a new version\n")
    heard = Heard()
    again = ScriptedRunner(by_strength({}))
    second = await run(config, again, heard)
    assert again.setups == []
    assert (second.played, second.tally, second.verdict) == (0, first.tally, "H1")
    assert heard.messages[-1] == (
        "warning: new changed since the test's games were played; the test is finished,"
        " and its result is that of the files it was played with"
    )
    with SprtStore.open(config.store) as store:
        assert store.count() == first.stored


async def test_a_test_whose_field_bot_changed_is_refused_saying_so(tmp_path: Path) -> None:
    """Found in an audit: a resume after a field bot's files changed was refused as
    "another test (it differs in: field); run the same command to resume that one",
    though it was the same command: the organiser was not told what to do. The refusal
    names the field bot that changed, as it names a changed NEW or OLD."""
    config = field_config(tmp_path, max_games=6)
    await run(config, ScriptedRunner(by_strength({})))
    assert config.field[1].folder is not None
    (config.field[1].folder / "bot.py").write_text("# a new version\n")
    go_on = dataclasses.replace(config, max_games=12)  # (a finished test is shown)
    with pytest.raises(ConfigError) as refused:
        await run(go_on, ScriptedRunner(by_strength({})))
    assert "holds a test whose field bot f2 changed since its games were played" in str(
        refused.value
    )
    assert "run the same command" not in str(refused.value)
    with SprtStore.open(config.store) as store:
        assert store.count() == 6  # untouched


@pytest.mark.parametrize(
    ("run_settings", "change"),
    [
        ({"limits": Limits(memory_mb=900)}, "memory_mb 4096 -> 900"),
        ({"sandbox": "bwrap"}, "sandbox 'none' -> 'bwrap'"),
        ({"max_frame": 8192}, "max_frame 4096 -> 8192"),
        ({"fresh_process": True}, "fresh_process False -> True"),
    ],
)
async def test_a_test_resumed_with_other_limits_or_sandbox_says_so(
    tmp_path: Path, run_settings: dict[str, object], change: str
) -> None:
    """Found in an audit: a test resumed with other resource limits (which decide who
    crashes: a loss), another sandbox, frame limit or --fresh-process played on without
    a word, its games of both settings counted together; a league's resume names such a
    change. So does a test's, and a decided test, which plays nothing, keeps them."""
    config = field_config(tmp_path, max_games=6, run=RunSettings(sandbox="none"))
    await run(config, ScriptedRunner(by_strength({})))
    other = dataclasses.replace(config.run, **run_settings)  # type: ignore[arg-type]
    heard = Heard()
    runner = ScriptedRunner(by_strength({}))
    await run(dataclasses.replace(config, max_games=8, run=other), runner, heard)
    warned = [m for m in heard.messages if m.startswith("warning: the test's games so far")]
    assert len(warned) == 1, heard.messages
    assert f"({change})" in warned[0]
    heard = Heard()  # said once
    await run(dataclasses.replace(config, max_games=10, run=other), runner, heard)
    assert not [m for m in heard.messages if m.startswith("warning")]
    with SprtStore.open(config.store) as store:
        kept = store.get_meta("settings")
    heard = Heard()  # ended: plays nothing, so keeps the settings its games had
    await run(dataclasses.replace(config, max_games=10), runner, heard)
    assert not [m for m in heard.messages if m.startswith("warning")]
    with SprtStore.open(config.store) as store:
        assert store.get_meta("settings") == kept
        assert store.count() == 10


async def test_a_bot_built_into_its_own_folder_resumes(tmp_path: Path) -> None:
    """Found in an audit: a test of a bot whose build writes into its folder (the C and
    Go kits' ./bot) could not be resumed: the digest stored was taken before the first
    build, without ./bot, the resume's before its own build, with it, and the resume
    was refused as if NEW had changed. A folder as the test's last build left it is the
    same submission; an edit after the build still is refused."""
    bots = tmp_path / "bots"
    specs = []
    for name in ("new", "old", "f1"):
        bot_folder(bots, name)
        manifest = bots / name / "bot.toml"
        manifest.write_text(manifest.read_text() + 'build = "cp bot.py built.py"\n')
        specs.append(load_manifest(bots / name))
    config = SprtConfig(
        new=specs[0], old=specs[1], field=(specs[2], specs[2]), store=tmp_path / "t.sqlite",
        table_size=3, seed=5, max_games=6,
    )  # fmt: skip
    await run(config, ScriptedRunner(by_strength({})))
    assert (bots / "new" / "built.py").exists()
    more = dataclasses.replace(config, max_games=10)
    result = await run(more, ScriptedRunner(by_strength({})))
    assert (result.stored, result.played) == (10, 4)
    result = await run(dataclasses.replace(config, max_games=12), ScriptedRunner(by_strength({})))
    assert (result.stored, result.played) == (12, 2)  # and again
    (bots / "old" / "bot.py").write_text("# a new version\n")
    with pytest.raises(ConfigError, match=r"whose OLD \(old\) has changed since its games"):
        await run(dataclasses.replace(config, max_games=14), ScriptedRunner(by_strength({})))


async def test_a_points_test_stored_under_the_earlier_points_rules_is_not_resumed(
    tmp_path: Path,
) -> None:
    """R4.2 [ruling]: a points test stored before busting on purpose was offered would
    count games under two sets of legal actions; it is refused, as a league is."""
    config = field_config(tmp_path, max_games=6)
    config = dataclasses.replace(
        config, game=dataclasses.replace(config.game, format=Format.POINTS)
    )
    await run(config, ScriptedRunner(by_strength({})))
    with sqlite3.connect(config.store) as db:
        (text,) = db.execute("SELECT value FROM meta WHERE key = 'test'").fetchone()
        stored = json.loads(text)
        assert stored["points_rules"] == 2
        del stored["points_rules"]
        db.execute("UPDATE meta SET value = ? WHERE key = 'test'", (json.dumps(stored),))
    with pytest.raises(ConfigError, match="earlier rules of the points format"):
        await run(dataclasses.replace(config, max_games=8), ScriptedRunner(by_strength({})))
    with SprtStore.open(config.store) as store:
        assert store.count() == 6  # untouched


async def test_a_test_stored_with_an_option_of_another_format_resumes(
    tmp_path: Path,
) -> None:
    """arena once stored `--tokens 5` with the single format, unused by its rules, and
    now refuses that option: such a store resumes, as its rules in play are the
    same (`settings_in_play`); a change of the rules in play is still refused."""
    config = field_config(tmp_path, max_games=6)
    await run(config, ScriptedRunner(by_strength({})))
    with sqlite3.connect(config.store) as db:
        (text,) = db.execute("SELECT value FROM meta WHERE key = 'test'").fetchone()
        stored = json.loads(text)
        stored["game"] |= {"tokens": 5, "target": 7, "ending": "lowest"}
        db.execute("UPDATE meta SET value = ? WHERE key = 'test'", (json.dumps(stored),))
    result = await run(dataclasses.replace(config, max_games=8), ScriptedRunner(by_strength({})))
    assert result.stored == 8
    points = dataclasses.replace(config.game, format=Format.POINTS)
    with pytest.raises(ConfigError, match="it differs in: game"):
        await run(dataclasses.replace(config, game=points), ScriptedRunner(by_strength({})))


def test_a_league_store_or_a_stray_file_is_not_an_sprt_store(tmp_path: Path) -> None:
    league = tmp_path / "league.sqlite"
    Store.open(league).close()
    with pytest.raises(StoreError, match="not an arena SPRT store"):
        SprtStore.open(league)
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    with pytest.raises(StoreError, match="is an empty file"):
        SprtStore.open(empty)
    text = tmp_path / "notes.txt"
    text.write_text("hello " * 1000)
    with pytest.raises(StoreError, match=r"not an arena SPRT store \(not an SQLite database\)"):
        SprtStore.open(text)
    assert text.read_text() == "hello " * 1000
    assert empty.read_bytes() == b""


def test_an_sprt_store_in_use_is_refused(tmp_path: Path) -> None:
    """The same test run twice at once would play the same games and the second to
    record one would stop; a store held by a writer is refused, and free once closed."""
    path = tmp_path / "t.sqlite"
    with SprtStore.open(path), pytest.raises(StoreError, match="in use by another arena"):
        SprtStore.open(path)
    SprtStore.open(path).close()


def test_a_store_in_use_names_what_holds_it(tmp_path: Path) -> None:
    """Found in an audit: an `arena sprt` on the store of a running league was refused
    as in use by "an SPRT still running on it" (who would hold it, not who does), and a
    league on a running SPRT's store as by "a league". The refusal names the holder by
    the store's format."""
    league, test = tmp_path / "league.sqlite", tmp_path / "sprt.sqlite"
    with Store.open(league), pytest.raises(StoreError) as refused:
        SprtStore.open(league)
    assert "in use by another arena process (a league still running on it)" in str(refused.value)
    with SprtStore.open(test), pytest.raises(StoreError) as refused:
        Store.open(test)
    assert "in use by another arena process (an SPRT still running on it)" in str(refused.value)


@pytest.mark.parametrize(
    "change",
    [
        'faults = \'[[7, "crash", "gone"]]\'',  # a seat the game does not have
        "places = '[1, 2, 3, 4]'",  # more places than seats
        "places = '[1]'",
        "places = '[0, 9, 1]'",  # places outside 1..seats
        "places = '[1.5, 2, 3]'",  # int() read it as [1, 2, 3]
        "side = 'z'",
        "faults = '[[0, \"crash\"]]'",
        # JSON's 1e400 is an infinite float and SQLite's 1e999 an infinite REAL: int()
        # of them raised an OverflowError, which left the resume as a traceback
        "places = '[1e400, 1, 2, 3]'",
        "pair = 1e999",
        'faults = \'[[1e400, "crash", "gone"]]\'',
        # JSON nested too deeply for the parser: a RecursionError traceback
        pytest.param("places = '" + "[" * 100_000 + "'", id="places-nested-too-deeply"),
    ],
)
async def test_values_no_game_can_hold_are_reported_as_damage(tmp_path: Path, change: str) -> None:
    """A damaged SPRT store (rows that no game can hold) is reported as damage, as the
    league's store is, not as an IndexError or a numpy ValueError from the tally."""
    config = field_config(tmp_path, max_games=6)
    await run(config, ScriptedRunner(by_strength({})))
    with sqlite3.connect(config.store) as db:
        db.execute(f"UPDATE games SET {change} WHERE rowid = 2")
    with pytest.raises(StoreError, match="the store is damaged"):
        await run(config, ScriptedRunner(by_strength({})))


async def test_a_side_of_a_pair_stored_twice_is_damage(tmp_path: Path) -> None:
    """A pair's side is played once: a second row of it (another game id) was counted
    as a second game of the pair; it is damage."""
    config = field_config(tmp_path, max_games=6)
    await run(config, ScriptedRunner(by_strength({})))
    with sqlite3.connect(config.store) as db:
        db.execute(
            "INSERT INTO games SELECT game_id || '-again', pair, side, seats, seed, places,"
            " faults, started, finished FROM games WHERE rowid = 2"
        )
    with pytest.raises(StoreError, match="stored twice"):
        await run(config, ScriptedRunner(by_strength({})))


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("[1, 2]", "the store is damaged"),
        ('"x"', "the store is damaged"),
        ('{"new": "x"}', "holds another test"),
        pytest.param("[" * 100_000, "the store is damaged", id="nested-too-deeply"),
    ],
)
async def test_test_settings_no_sprt_writes_are_refused_in_one_line(
    tmp_path: Path, value: str, message: str
) -> None:
    """An SPRT store's settings of the test stored as a list, a string, or an object
    whose NEW is a string (none an SPRT writes) made a resume die with an
    AttributeError traceback; the first two are damage, the third another test."""
    config = field_config(tmp_path, max_games=6)
    await run(config, ScriptedRunner(by_strength({})))
    with sqlite3.connect(config.store) as db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'test'", (value,))
    with pytest.raises(ArenaError, match=message):
        await run(config, ScriptedRunner(by_strength({})))


async def test_a_fault_is_a_loss_and_faults_are_counted_by_side(tmp_path: Path) -> None:
    """OLD crashes in every game yet the engine ranks it first: it scores 0 all the same."""

    def rank(play: Play) -> tuple[list[int], list[int]]:
        places = list(range(1, len(play.seats) + 1))
        if "old" in play.seats:
            old = play.seats.index("old")
            places[0], places[old] = places[old], places[0]
            return places, [old]
        return places, []

    config = field_config(tmp_path, max_games=20)
    result = await run(config, ScriptedRunner(rank))
    assert sum(result.tally.old_wins) == 0.0  # OLD finished above nobody
    assert result.faults["old"] == {"crash": result.tally.pairs}
    assert not result.faults["new"]
    assert not result.faults["field"]
    assert result.tally.mean > 0.0
    assert result.to_json()["faults"] == {
        "new": {},
        "old": {"crash": result.tally.pairs},
        "field": {},
    }


def test_the_bots_of_a_test_must_make_sense(tmp_path: Path) -> None:
    new = bot_folder(tmp_path, "new")
    old = bot_folder(tmp_path, "old")
    with pytest.raises(ConfigError, match="NEW and OLD are the same bot"):
        check_bots(new, dataclasses.replace(new, name="other"), ())
    with pytest.raises(ConfigError, match="the field bot new is NEW itself"):
        check_bots(new, old, (old, new))
    check_bots(new, old, (old, old))  # copies of OLD: a self-play field
    # One name for NEW and OLD (a copied folder), a field bot given twice: told apart.
    twin = bot_folder(tmp_path / "copy", "new")
    names = [s.name for s in bot_names(new, twin, (old, old, twin))]
    assert names == ["new.new", "new.old", "old", "old-2", "new"]


async def test_identical_submissions_are_pointed_out(tmp_path: Path) -> None:
    """The careless case of a copy made after the change, or a change not saved."""
    new = bot_folder(tmp_path / "a", "bot")
    old = bot_folder(tmp_path / "b", "bot")
    config = SprtConfig(new=new, old=old, field=(), store=tmp_path / "t.sqlite", max_games=4)
    heard = Heard()
    result = await run(config, ScriptedRunner(by_strength({})), heard)
    assert (result.names["new"], result.names["old"]) == ("bot.new", "bot.old")
    assert any("NEW and OLD are identical submissions" in m for m in heard.messages)
    assert old.folder is not None
    (old.folder / "bot.py").write_text("# the old version\n")
    other = tmp_path / "u.sqlite"
    heard = Heard()
    await run(dataclasses.replace(config, store=other), ScriptedRunner(by_strength({})), heard)
    assert heard.messages == []


async def test_a_store_removed_while_the_test_writes_is_saved(tmp_path: Path) -> None:
    """Found in an audit of the league's store (the same holds of an SPRT's): SQLite
    writes on in the file it has open when its name is removed, so the test played
    every game into a file nobody could open again and reported as if all were well.
    Now it stops at the next game, its games saved beside the store."""
    config = field_config(tmp_path, max_games=20)
    strength = by_strength({})

    asked: list[str] = []

    def rank(play: Play) -> tuple[list[int], list[int]]:
        asked.append(play.game_id)
        if len(asked) == 4:  # the fourth game
            config.store.unlink()
        return strength(play)

    runner = ScriptedRunner(rank)
    errors: list[str] = []
    with SprtStore.open(config.store) as store:
        try:
            await run_sprt(config, store, SprtProgress(), runner=runner)
        except* StoreError as group:
            errors += [str(err) for err in group.exceptions]
    (rescued,) = [tmp_path / n for n in os.listdir(tmp_path) if n.startswith("t.sqlite.rescued-")]
    assert errors == [
        (
            f"{config.store}: the store was removed while this SPRT wrote it; its 4 games are"
            f" saved in {rescued}: move that to {config.store} to resume"
        )
    ]
    assert not (tmp_path / "t.sqlite-wal").exists()
    rescued.rename(config.store)
    with SprtStore.open(config.store) as store:
        assert sorted(store.games()) == sorted(runner.finished)
    result = await run(config, ScriptedRunner(strength))
    assert (result.stored, result.played) == (20, 16)


async def test_the_result_rates_new_and_old_as_the_standings_would(tmp_path: Path) -> None:
    """Issue 41.5: next to the test's own Elo, NEW - OLD as a Plackett-Luce fit of the
    test's counted games (the standings' scale) rates them, in the report and --json."""
    from arena.ratings import ELO_PER_NAT, fit_plackett_luce
    from arena.sprt import render

    config = field_config(tmp_path, max_games=200)
    result = await run(config, ScriptedRunner(by_strength({"new": 0.4})))
    assert result.standings is not None
    with SprtStore.open(config.store) as store:
        games = sorted(store.games().values(), key=lambda g: g.game_id)
    counted = [g for g in games if g.pair < result.tally.pairs]
    rankings = [
        [
            [n for n, p in zip(g.seats, g.places, strict=True) if p == place]
            for place in sorted(set(g.places))
        ]
        for g in counted
    ]
    diff, error = fit_plackett_luce(rankings).contrast(result.names["new"], result.names["old"])
    assert result.standings.elo == pytest.approx(ELO_PER_NAT * diff)
    assert error is not None
    assert result.standings.high - result.standings.low == pytest.approx(
        2 * 1.959964 * ELO_PER_NAT * error, rel=1e-4
    )
    assert result.standings.low < result.standings.elo < result.standings.high
    data = result.to_json()
    assert data["elo_standings"] == result.standings.elo
    assert "standings" in render(result)


def test_a_field_bot_given_three_times_and_one_command_for_new_and_old(tmp_path: Path) -> None:
    """Copies of a field bot are named NAME, NAME-2, NAME-3 (with two copies only, a
    renaming that stopped after one try passed: the third was NAME-2 again, and the test
    refused its own names); NEW and OLD given as one bare command line are the same bot.
    (A mutation audit: neither failed a test.)"""
    new = bot_folder(tmp_path, "new")
    old = bot_folder(tmp_path, "old")
    names = [s.name for s in bot_names(new, old, (old, old, old))]
    assert names == ["new", "old", "old-2", "old-3", "old-4"]
    SprtConfig(new=new, old=old, field=(old, old, old), store=tmp_path / "t.sqlite", table_size=4)
    bare = BotSpec(name="bot", command=("python3", "bot.py"), folder=None)
    with pytest.raises(ConfigError, match="NEW and OLD are the same bot"):
        check_bots(bare, dataclasses.replace(bare, name="other"), ())


async def test_the_two_games_of_a_pair_are_never_played_at_once(
    tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    """`_Book.drive`: with two players, a pair's second game waits for its first (both
    are one deal: played at once, a channel between their processes would tell a bot the
    other game's hands as they are played). Holding a lock per game, not per pair,
    passed every test (a mutation audit)."""
    overlaps: list[str] = []

    def delay(play: Play) -> float:
        pair = play.game_id[:-1]
        if any(g[:-1] == pair and g not in slow.finished for g in slow.started[:-1]):
            overlaps.append(play.game_id)
        return 10.0 if play.game_id.endswith("a") else 1.0

    slow = ScriptedRunner(by_strength({}), players=2, delay=delay)
    result = await run(field_config(tmp_path, max_games=16), slow)
    assert len(slow.started) == result.stored == 16
    assert overlaps == []


async def test_directly_the_paired_scores_are_new_and_olds_in_one_seat(tmp_path: Path) -> None:
    """NEW against OLD: the pairing (issue 41.3) is measured from NEW's first score and
    OLD's in that seat, 1 - NEW's second, so that D = s - t (with NEW's second score
    taken for OLD's, no test failed: a mutation audit)."""
    bots = tmp_path / "bots"
    config = SprtConfig(
        new=bot_folder(bots, "new"), old=bot_folder(bots, "old"), field=(),
        store=tmp_path / "t.sqlite", seed=3, max_games=40,
    )  # fmt: skip
    result = await run(config, ScriptedRunner(by_strength({"new": 0.2})))
    tally = result.tally
    assert tally.pairs == 20
    assert tally.sides[0] - tally.sides[1] == pytest.approx(tally.total)


async def test_a_stored_game_that_is_not_the_plans_is_refused(tmp_path: Path) -> None:
    """A store whose game holds another deal than the plan's (damaged, or edited) is
    refused, not counted (without the check no test failed: a mutation audit)."""
    config = field_config(tmp_path, max_games=6)
    await run(config, ScriptedRunner(by_strength({})))
    with sqlite3.connect(config.store) as db:
        db.execute("UPDATE games SET seed = '12345' WHERE game_id = 'p000001b'")
    with pytest.raises(StoreError, match="p000001b does not match this test's plan"):
        await run(config, ScriptedRunner(by_strength({})))


class _Confused(ScriptedRunner):
    """A runner that answers a game with another's result (its game id, or its seats)."""

    def __init__(self, change: dict[str, object]) -> None:
        super().__init__(by_strength({}))
        self.change = change

    @contextlib.asynccontextmanager
    async def players(self, setup: Setup) -> AsyncIterator[list[Player]]:
        async with super().players(setup) as players:

            async def play(game: Play) -> Played:
                played = await players[0](game)
                wrong = dataclasses.replace(played.result, **self.change)  # type: ignore[arg-type]
                return msgspec.structs.replace(played, result=wrong)

            yield [play]


@pytest.mark.parametrize("change", [{"game_id": "p000000x"}, {"names": ("f1", "f2", "new")}])
async def test_a_runner_that_answers_with_another_game_is_not_believed(
    tmp_path: Path, change: dict[str, object]
) -> None:
    """`_Book._record`: a result for another game than the one asked for stops the
    test, nothing stored of it (without the check, no test failed: a mutation audit)."""
    config = field_config(tmp_path, max_games=6)
    caught: list[str] = []
    try:
        await run(config, _Confused(change))
    except* ArenaError as group:
        caught = [str(err) for err in group.exceptions]
    assert caught == ["the runner answered p000000a with another game"]
    with SprtStore.open(config.store) as store:
        assert store.count() == 0
