"""JSON nested deeper than Python's parser recurses (the text "[" * 100000), in a replay
file, in a replay or a setting of a league store, made arena replay, report, league
(resuming) and serve fail with a RecursionError traceback (serve: a bare 500). A file
or a store can be anyone's: each is now refused as damaged, in one line, exit code 2,
as every other damage is."""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.replay import write_replay
from arena.store import Store

from ..store_edits import without_proofs
from .sites import league

pytestmark = pytest.mark.subprocess

DEEP = "[" * 100_000
"""JSON too deep for any recursive parser (and not even whole)."""


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with a finished league: its bots, league.toml and league.sqlite."""
    folder = tmp_path_factory.mktemp("league")
    league(folder)
    return folder


def refused(args: list[str | Path], message: str) -> str:
    """Run arena with `args`; check that it refuses in one line saying `message`."""
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 2, (result.output, result.exception)
    assert isinstance(result.exception, SystemExit), result.exception  # no traceback
    assert result.stderr.startswith("arena: error: "), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert message in result.stderr, result.stderr
    return result.stderr


def first_game(store: Path) -> str:
    with Store.open(store, readonly=True) as db:
        return sorted(db.done_game_ids())[0]


@pytest.mark.parametrize("line", [1, 2])
def test_a_replay_file_nested_too_deeply_is_refused(root: Path, tmp_path: Path, line: int) -> None:
    store = root / "league.sqlite"
    with Store.open(store, readonly=True) as db:
        log = db.replay(first_game(store))
    path = tmp_path / "deep.jsonl"
    write_replay(path, log)
    lines = path.read_text().splitlines()
    lines[line - 1] = DEEP
    path.write_text("\n".join(lines) + "\n")
    message = "line 1 is JSON nested too deeply" if line == 1 else f"{path}:2: not a replay record"
    refused(["replay", path], message)
    refused(["replay", path, "--seat", "0"], message)
    refused(["report", "--replay", path, "-o", tmp_path / "site"], message)
    assert not (tmp_path / "site").exists()  # refused before anything is written


def damaged_copy(root: Path, folder: Path, change: str, *values: object) -> Path:
    """A copy of the league in `root` in `folder`, its store changed by the SQL
    statement `change` with `values` as its parameters; returns the store."""
    shutil.copytree(root, folder)
    store = folder / "league.sqlite"
    with contextlib.closing(sqlite3.connect(store)) as db, db:
        db.execute(change, values)
        without_proofs(db)  # a stranger's store: what is read is tested
    return store


DEEP_REPLAY = "UPDATE replays SET log = ? WHERE game_id = (SELECT min(game_id) FROM replays)"
"""A replay is stored as zlib-compressed JSON lines: this stores the deep text so."""

DEEP_SETTING = "UPDATE meta SET value = ? WHERE key = ?"


def test_a_stored_replay_nested_too_deeply_is_damage(root: Path, tmp_path: Path) -> None:
    store = damaged_copy(root, tmp_path / "copy", DEEP_REPLAY, zlib.compress(DEEP.encode()))
    game_id = first_game(store)
    message = "the store is damaged (a replay whose JSON is nested too deeply)"
    refused(["replay", store, game_id], message)
    refused(["report", store, "-o", tmp_path / "site"], message)


@pytest.mark.parametrize("key", ["league", "settings", "schedule_note", "format"])
def test_a_setting_nested_too_deeply_is_damage(root: Path, tmp_path: Path, key: str) -> None:
    """Every setting the report reads; "format" is read to open the store at all."""
    store = damaged_copy(root, tmp_path / "copy", DEEP_SETTING, DEEP, key)
    message = f"the store is damaged (setting {key!r}: JSON nested too deeply)"
    refused(["report", store, "-o", tmp_path / "site"], message)
    if key == "format":
        refused(["standings", store], message)


def test_a_league_resumed_on_a_store_whose_settings_nest_too_deeply_stops(
    root: Path, tmp_path: Path
) -> None:
    """A resume reads the league's settings back, to check they are the same."""
    store = damaged_copy(root, tmp_path / "copy", DEEP_SETTING, DEEP, "league")
    before = store.read_bytes()
    refused(
        ["league", store.with_name("league.toml"), "--progress", "quiet", "--sandbox", "none"],
        "the store is damaged (setting 'league': JSON nested too deeply)",
    )
    assert store.read_bytes() == before


@pytest.mark.parametrize(
    ("path", "change", "values"),
    [
        ("/data/games.js", DEEP_REPLAY, (zlib.compress(DEEP.encode()),)),
        ("/data/league.js", DEEP_SETTING, (DEEP, "league")),
    ],
)
async def test_arena_serve_says_the_store_is_damaged(
    root: Path, tmp_path: Path, path: str, change: str, values: tuple[object, ...]
) -> None:
    """arena serve answered a bare 500 (the RecursionError); now it says why."""
    import httpx

    from arena.report._serve import make_app

    store = damaged_copy(root, tmp_path / "copy", change, *values)
    with Store.open(store, readonly=True) as db:
        transport = httpx.ASGITransport(app=make_app(db))
        async with httpx.AsyncClient(transport=transport, base_url="http://arena") as client:
            page = await client.get("/index.html")
            answer = await client.get(path)
    assert page.status_code == 200
    assert answer.status_code == 500
    assert "the store is damaged" in answer.text
    assert "nested too deeply" in answer.text
    assert answer.headers["content-type"].startswith("text/plain")
