"""Issue 45.1: `arena standings`, `arena report`, `arena export` and `arena serve` read a
ladder's store as a league's, of its active versions by default (`arena serve`: those
active at each refresh) and of every version with `--all-versions`."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio
import trio.testing
from click.testing import CliRunner

from arena.cli import main
from arena.ladder._db import mark_ladder
from arena.report._serve import FRESH_S, make_app
from arena.store import Store


def finished(game_id: str, seed: int, names: tuple[str, ...]) -> Any:
    """A whole game between in-memory bots, with its replay, under `names`."""
    import dataclasses

    import trio

    from arena.testing import play_policies

    played = trio.run(play_policies, [lambda act: 0] * len(names), None, seed)
    head = {**played.log[0], "game_id": game_id, "names": list(names)}
    return dataclasses.replace(played, game_id=game_id, names=names, log=[head, *played.log[1:]])


GAMES = {
    "g0": ("a.v1", "b.v1", "c.v1"),  # a retired version with two active ones
    "g1": ("a.v2", "b.v1", "c.v1"),  # active versions only
    "g2": ("a.v1", "z.v1"),  # retired versions only
}
ACTIVE = {"a.v2", "b.v1", "c.v1"}


def run_cli(*args: str) -> Any:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.stderr
    return result


@pytest.fixture(scope="module")
def ladder_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_ladder_store(tmp_path_factory.mktemp("versions") / "ladder.sqlite")


def make_ladder_store(path: Path) -> Path:
    """A ladder's store holding GAMES, of which a.v1 and z.v1 are retired."""
    with Store.open(path) as store:
        mark_ladder(store, 3)
        store.sync_bots([(name, "python3 bot.py", f"d-{name}") for name in sorted(
            {n for names in GAMES.values() for n in names})])  # fmt: skip
        for index, (game_id, names) in enumerate(GAMES.items()):
            store.record_game(
                finished(game_id, index + 1, names),
                index=index,
                group=None,
                started_at=1.0,
                finished_at=2.0,
            )
        for retired in ("a.v1", "z.v1"):
            store.set_bot_status(retired, "retired", "a newer version is active")
    return path


def submitted_ladder_store(path: Path) -> Path:
    """`make_ladder_store`, its submissions a.v1 (then retired), a.v2, b.v1 and c.v1, by
    alice, bob and carol."""
    from arena.ladder import LadderDB

    make_ladder_store(path)
    with LadderDB.open(path, create=True) as db:
        for author, name, versions in (("alice", "a", 2), ("bob", "b", 1), ("carol", "c", 1)):
            db.add_author(author)
            for _ in range(versions):
                db.activate(db.add_submission(author, name, "digest").id, "")
    return path


def _calls(path: Path) -> Any:
    """The payload of a report's data file (one `ARENA.receive(kind, payload);`)."""
    return _payload(path.read_text())


def _payload(text: str) -> Any:
    """The payload of a data script (`ARENA.receive(kind, payload);`)."""
    start = text.index(",") + 1
    payload, _ = json.JSONDecoder().raw_decode(text[start:].lstrip())
    return payload


def _report(store: Path, out: Path, *extra: str) -> tuple[list[str], set[str]]:
    run_cli("report", str(store), "-o", str(out), *extra)
    games = [g["id"] for g in _calls(out / "data" / "games.js")]
    rated = {row["bot"] for row in _calls(out / "data" / "league.js")["standings"]["rows"]}
    return games, rated


def test_report_shows_the_active_versions_and_their_games_unless_all_versions(
    ladder_store: Path, tmp_path: Path
) -> None:
    games, rated = _report(ladder_store, tmp_path / "active")
    assert games == ["g0", "g1"]
    assert rated == ACTIVE
    games, rated = _report(ladder_store, tmp_path / "every", "--all-versions")
    assert games == ["g0", "g1", "g2"]
    assert rated == ACTIVE | {"a.v1", "z.v1"}


def in_process(app: Any) -> httpx.AsyncClient:
    """A client of `app` served in this process (no server, no socket)."""
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://arena")


async def _served(app: Any) -> tuple[list[str], set[str]]:
    """What `arena serve`'s app answers: the games listed, the bots rated."""
    async with in_process(app) as viewer:
        games = [g["id"] for g in _payload((await viewer.get("/data/games.js")).text)]
        league = _payload((await viewer.get("/data/league.js")).text)
    return games, {row["bot"] for row in league["standings"]["rows"]}


@pytest.mark.parametrize("all_versions", [False, True])
async def test_serve_shows_the_active_versions_unless_all_versions(
    ladder_store: Path, all_versions: bool
) -> None:
    with Store.open(ladder_store, readonly=True) as db:
        games, rated = await _served(make_app(db, all_versions=all_versions))
    if all_versions:
        assert (games, rated) == (["g0", "g1", "g2"], ACTIVE | {"a.v1", "z.v1"})
    else:
        assert (games, rated) == (["g0", "g1"], ACTIVE)


async def test_serve_replays_a_retired_versions_games_though_it_lists_them_not(
    ladder_store: Path,
) -> None:
    # (the ladder's page of a bot links every game of each of its versions)
    with Store.open(ladder_store, readonly=True) as db:
        async with in_process(make_app(db)) as viewer:
            retired = await viewer.get("/data/games/g2.js")
            unknown = await viewer.get("/data/games/g9.js")
    assert retired.status_code == 200
    assert _payload(retired.text)["names"] == ["a.v1", "z.v1"]
    assert unknown.status_code == 404


@pytest.fixture
def own_ladder_store(tmp_path: Path) -> Path:
    """A ladder's store for one test to change."""
    return make_ladder_store(tmp_path / "ladder.sqlite")


async def test_serve_follows_the_versions_a_running_ladder_activates_and_retires(
    own_ladder_store: Path, mock_clock: trio.testing.MockClock
) -> None:
    path = own_ladder_store
    with Store.open(path, readonly=True) as db:
        app = make_app(db)
        assert await _served(app) == (["g0", "g1"], ACTIVE)
        with Store.open(path) as ladder:  # the ladder, writing as it runs
            ladder.set_bot_status("a.v2", "retired", "a newer version is active")
            ladder.set_bot_status("a.v1", "ok", "")  # (an organiser's choice, say)
        mock_clock.jump(FRESH_S + 0.01)  # past what the server keeps made
        assert await _served(app) == (["g0", "g1", "g2"], {"a.v1", "b.v1", "c.v1"})


def test_the_reports_standings_are_those_of_arena_standings(
    ladder_store: Path, tmp_path: Path
) -> None:
    run_cli("report", str(ladder_store), "-o", str(tmp_path / "site"))
    shown = _calls(tmp_path / "site" / "data" / "league.js")["standings"]["rows"]
    printed = json.loads(run_cli("standings", str(ladder_store), "--format", "json").stdout)
    assert [(r["bot"], r["elo"], r["games"]) for r in shown] == [
        (r["bot"], r["elo"], r["games"]) for r in printed["rows"]
    ]


def test_export_writes_the_games_of_the_active_versions_unless_all_versions(
    ladder_store: Path,
) -> None:
    lines = run_cli("export", str(ladder_store)).stdout.splitlines()
    assert [json.loads(line)["game_id"] for line in lines] == ["g0", "g1"]
    # whole games, every seat (the retired version's too)
    assert [s["bot"] for s in json.loads(lines[0])["seats"]] == list(GAMES["g0"])
    every = run_cli("export", str(ladder_store), "--all-versions", "--format", "csv").stdout
    rows = list(csv.DictReader(io.StringIO(every)))
    assert sorted({r["game"] for r in rows}) == ["g0", "g1", "g2"]


def test_a_league_store_is_read_whole_either_way(tmp_path: Path) -> None:
    path = tmp_path / "league.sqlite"
    with Store.open(path) as store:
        store.sync_bots([("a", "x", "d1"), ("b", "x", "d2")])
        store.record_game(
            finished("g0", 1, ("a", "b")), index=0, group=None, started_at=1.0, finished_at=2.0
        )
        store.set_bot_status("b", "disqualified", "faults")
    lines = run_cli("export", str(path)).stdout.splitlines()
    assert len(lines) == 1
    games, rated = _report(path, tmp_path / "site")
    assert games == ["g0"]
    assert rated == {"a", "b"}
