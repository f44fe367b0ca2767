"""The ladder's pages and its refits read the games in a worker thread, never on the
event loop that also plays the ladder's games and records them: on a store of 20,000
games the ladder page read every seat on the loop (0.45 s a request, and it refreshes itself every
10 s), and a bot's page fitted every game and asked for each game's seats one query
at a time (a second), so that anyone could hold the ladder up by asking for pages; and
the ladder refitted its ratings on the loop every two seconds while games came (1.5 s
a fit at 20,000 games)."""

from __future__ import annotations

import functools
import json
import threading
import types
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.ladder import LadderDB, LadderSettings, rate
from arena.ladder._web import make_ladder_app
from arena.ratings import FinishingOrders
from arena.store import Store

from .helpers import arena
from .test_versions import GAMES, in_process, submitted_ladder_store

READS = ("latest_games_of", "result_columns", "seat_rows_of")
"""The store's reads the pages make (the games beside each rating come with the fit)."""


@pytest.fixture
def spied(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[bool]]:
    """For each read of `READS`, whether each call was made on the main thread (the
    event loop's)."""
    calls: dict[str, list[bool]] = {name: [] for name in READS}
    for name in READS:
        real = getattr(Store, name)

        def spy(self: Store, *args: Any, _real: Any = real, _name: str = name) -> Any:
            calls[_name].append(threading.current_thread() is threading.main_thread())
            return _real(self, *args)

        monkeypatch.setattr(Store, name, spy)
    return calls


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A ladder's store of GAMES whose submissions are a.v1 (then retired), a.v2, b.v1
    and c.v1, by alice, bob and carol."""
    return submitted_ladder_store(tmp_path / "ladder.sqlite")


async def test_the_pages_read_the_games_off_the_event_loop(
    store: Path, spied: dict[str, list[bool]]
) -> None:
    with LadderDB.open(store) as db, Store.open(store, readonly=True) as pages:
        with Store.open(store, readonly=True) as reading:
            active = {s.bot: s for s in db.submissions("active")}
            records = reading.result_columns().only(set(active)).records()
        spied["result_columns"].clear()  # (the set-up's own read)
        orders = FinishingOrders.from_rankings([g.ranking() for g in records])
        ladder = types.SimpleNamespace(
            settings=LadderSettings(store=store), db=db, rated=rate(orders, set(active)),
            active=lambda: active, games_played=len(records),
        )  # fmt: skip
        app = make_ladder_app(ladder, lambda *_: None, pages)  # type: ignore[arg-type]
        async with in_process(app) as client:
            answers = {path: await client.get(path) for path in ("/api/ladder", "/ladder/bot/a")}
    assert {path: a.status_code for path, a in answers.items()} == dict.fromkeys(answers, 200)
    games = {row["bot"]: row["games"] for row in answers["/api/ladder"].json()["ladder"]}
    assert games == {"a.v2": 1, "b.v1": 2, "c.v1": 2}
    page = answers["/ladder/bot/a"].text
    played_by_a = [g for g, names in GAMES.items() if {"a.v1", "a.v2"} & set(names)]
    assert all(f">{game_id}</a>" in page for game_id in played_by_a)
    assert "z.v1" in page  # whole games: a retired opponent's seat too
    assert all(spied[name] for name in READS), spied  # each read was made ...
    assert not any(on_loop for calls in spied.values() for on_loop in calls), spied  # ... off it


def _ladder(store: Path, monkeypatch: pytest.MonkeyPatch, *opened: Any) -> Any:
    """The ladder of `store` (its stores and LadderDB `opened`), its versions' folders
    taken as built."""
    from arena.bots import BotSpec
    from arena.ladder import Ladder, _run

    def built(settings: LadderSettings, submission: Any) -> BotSpec:
        return BotSpec(name=submission.bot, command=("true",), folder=None)

    monkeypatch.setattr(_run, "spec_of", built)
    writing, db, reader = opened
    return Ladder(LadderSettings(store=store), writing, db, reader=reader)


async def test_the_ratings_are_refitted_off_the_event_loop_as_games_come(
    store: Path, spied: dict[str, list[bool]], monkeypatch: pytest.MonkeyPatch
) -> None:
    with (
        Store.open(store) as writing,
        LadderDB.open(store) as db,
        Store.open(store, readonly=True) as reader,
    ):
        ladder = _ladder(store, monkeypatch, writing, db, reader)
        assert ladder.rated is not None  # fitted as it opened, on the loop (rarely)
        spied["result_columns"].clear()
        ladder.rated = None
        await ladder._refit(now=True)
        assert set(ladder.rated.ranking) == {"a.v2", "b.v1", "c.v1"}
        assert spied["result_columns"] == [False]  # one read, in a worker thread


async def test_a_refit_begun_before_the_versions_changed_is_dropped(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A version activated (or retired) while a refit runs in its thread: the refit is
    of the versions before, and its ratings must not replace the new ones'."""
    with (
        Store.open(store) as writing,
        LadderDB.open(store) as db,
        Store.open(store, readonly=True) as reader,
    ):
        ladder = _ladder(store, monkeypatch, writing, db, reader)
        reading, release = threading.Event(), threading.Event()
        real = Store.result_columns

        def slow(self: Store) -> Any:
            if self is reader:
                reading.set()
                release.wait(30)
            return real(self)

        monkeypatch.setattr(Store, "result_columns", slow)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(functools.partial(ladder._refit, now=True))
            await trio.to_thread.run_sync(reading.wait, 30)
            ladder._active.pop("c.v1")  # as _load_active does, then it refits at once
            ladder._rate()
            release.set()
        assert set(ladder.rated.ranking) == {"a.v2", "b.v1"}


@pytest.fixture
def paired_with_retired(tmp_path: Path) -> Path:
    """`store`'s games and four more of b.v1 against the retired a.v1 alone."""
    from .test_versions import finished

    store = submitted_ladder_store(tmp_path / "ladder.sqlite")
    with Store.open(store) as writing:
        for index, seed in enumerate(range(5, 9), start=10):
            writing.record_game(
                finished(f"h{index}", seed, ("b.v1", "a.v1")),
                index=index, group=None, started_at=1.0, finished_at=2.0,
            )  # fmt: skip
    return store


async def test_the_ladder_counts_the_games_its_ratings_rest_on_as_arena_standings_does(
    paired_with_retired: Path,
) -> None:
    """Beside each rating, the games it rests on: those `arena standings` counts. A game
    whose only other player is a retired version rates nothing (the order of the active
    versions in it is of one bot), yet the page counted every game: on a real ladder
    at tables of 2, 1,764 games beside a ± that rested on 894, once the bot's most
    frequent opponent was replaced."""
    from arena.ladder._select import rate_active

    store = paired_with_retired
    with LadderDB.open(store) as db, Store.open(store, readonly=True) as pages:
        active = {s.bot: s for s in db.submissions("active")}
        rated, games = rate_active(pages.result_columns(), set(active))
        ladder = types.SimpleNamespace(
            settings=LadderSettings(store=store), db=db, rated=rated,
            active=lambda: active, games_played=games,
        )  # fmt: skip
        app = make_ladder_app(ladder, lambda *_: None, pages)  # type: ignore[arg-type]
        async with in_process(app) as client:
            shown = (await client.get("/api/ladder")).json()["ladder"]
    printed = arena("standings", str(store), "--format", "json", check=True)
    counted = {row["bot"]: row["games"] for row in json.loads(printed.stdout)["rows"]}
    assert counted == {"a.v2": 1, "b.v1": 2, "c.v1": 2}
    assert {row["bot"]: row["games"] for row in shown} == counted
