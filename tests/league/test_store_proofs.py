"""Issue 40.6: the store proves its rows. Each game's rows (places, bots, causes,
seed), its replay, the league's settings (its secret) and the schedule are bound by
an HMAC under a secret of the store's own; a hand edit with sqlite3 of any of them is
refused by a resume, `arena standings` and `arena report`, naming what."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from .test_league_run import four_bots, league_file, results, run_cli

pytestmark = pytest.mark.subprocess

EDITS = {
    "places": "UPDATE seats SET place = 5 - place WHERE game_id = 'g000003'",
    "bot names": "UPDATE seats SET bot = 'ann' WHERE game_id = 'g000003' AND seat = 1",
    "causes": "UPDATE seats SET cause = 'timeout' WHERE game_id = 'g000003' AND seat = 0",
    "seed": "UPDATE games SET seed = '1' WHERE game_id = 'g000003'",
    "a game added": "INSERT INTO games(game_id, idx, seed, status)"
    " VALUES ('g999', 99, '1', 'forfeit')",
    "duplicate group": "UPDATE games SET grp = 't9-d9' WHERE game_id = 'g000003'",
    "game settings": "UPDATE games SET config = json_set(config, '$.target', 1)"
    " WHERE game_id = 'g000003'",
}


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished league of 12 games, made once."""
    root = tmp_path_factory.mktemp("league")
    four_bots(root)
    code, _, err = run_cli("league", str(league_file(root, concurrency=1)), "--progress", "quiet")
    assert code == 0, err
    return root


def edited(league: Path, tmp_path: Path, statement: str) -> Path:
    """A copy of the league's folder with `statement` run on its store by hand."""
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(league, copy, symlinks=True)
    with sqlite3.connect(copy / "league.sqlite") as db:
        db.execute("PRAGMA foreign_keys=OFF")
        db.execute(statement)
    return copy


def test_an_untouched_store_reads_and_resumes(league: Path) -> None:
    assert run_cli("standings", str(league / "league.sqlite"))[0] == 0
    code, _, err = run_cli("league", str(league / "league.toml"), "--progress", "quiet")
    assert code == 0, err


@pytest.mark.parametrize("what", sorted(EDITS))
def test_rows_edited_by_hand_are_refused(league: Path, tmp_path: Path, what: str) -> None:
    copy = edited(league, tmp_path, EDITS[what])
    store = str(copy / "league.sqlite")
    for command in (["standings", store], ["report", store, "-o", str(tmp_path / "site")]):
        code, _, err = run_cli(*command)
        assert code != 0, (command, what)
        game = "g999" if what == "a game added" else "g000003"
        assert f"the rows of game '{game}' do not match their proof" in err, err
        assert "Traceback" not in err
    code, _, err = run_cli("league", str(copy / "league.toml"), "--progress", "quiet")
    assert code != 0
    assert "do not match their proof" in err


def test_a_replay_edited_by_hand_is_refused(league: Path, tmp_path: Path) -> None:
    copy = edited(
        league, tmp_path,
        "UPDATE replays SET log = (SELECT log FROM replays WHERE game_id = 'g000001')"
        " WHERE game_id = 'g000003'",
    )  # fmt: skip
    code, _, err = run_cli("report", str(copy / "league.sqlite"), "-o", str(tmp_path / "site"))
    assert code != 0
    assert "the replay of game 'g000003' does not match its proof" in err


def test_a_replay_edited_with_its_digest_is_refused(league: Path, tmp_path: Path) -> None:
    """A replay replaced by another game's, and the digest its proof row keeps of it
    too: the game's proof covers the digest, so the edit is still found."""
    copy = edited(
        league, tmp_path,
        "UPDATE replays SET log = (SELECT log FROM replays WHERE game_id = 'g000001')"
        " WHERE game_id = 'g000003'",
    )  # fmt: skip
    with sqlite3.connect(copy / "league.sqlite") as db:
        db.execute(
            "UPDATE proofs SET replay = (SELECT replay FROM proofs WHERE id = 'g000001')"
            " WHERE id = 'g000003'"
        )
    code, _, err = run_cli("report", str(copy / "league.sqlite"), "-o", str(tmp_path / "site"))
    assert code != 0
    assert "the rows of game 'g000003' do not match their proof" in err, err


def test_a_secret_edited_by_hand_stops_a_resume(league: Path, tmp_path: Path) -> None:
    """The league's secret (its deals) changed in the store: refused, whether or not
    the league file gives a seed to compare it with."""
    change = "UPDATE meta SET value = json_set(value, '$.seed', 'abc') WHERE key = 'league'"
    copy = edited(league, tmp_path, change)
    toml = copy / "league.toml"
    toml.write_text("\n".join(line for line in toml.read_text().splitlines() if "seed" not in line))
    code, _, err = run_cli("league", str(toml), "--progress", "quiet")
    assert code != 0
    assert "setting 'league' does not match its proof" in err, err
    assert "Traceback" not in err


def test_a_schedule_edited_by_hand_is_not_used(league: Path, tmp_path: Path) -> None:
    """A kept schedule is used only if it is the league's (it is computed again
    otherwise), and its proof is written anew: the resume plays nothing new."""
    copy = edited(league, tmp_path, "UPDATE schedule SET blob = zeroblob(16)")
    code, _, err = run_cli("league", str(copy / "league.toml"), "--progress", "quiet")
    assert code == 0, err
    assert len(results(copy / "league.sqlite")) == 12


def _schema(store: Path) -> object:
    with sqlite3.connect(store) as db:
        return db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0]


def test_a_store_with_proofs_is_one_an_arena_made_before_proofs_refuses(league: Path) -> None:
    """An arena made before proofs (c476f1e and older) wrote into any store whose meta
    schema is 1, and wrote its games without proofs: this arena then refused the whole
    store, every game of it, as edited by hand (a store made now, resumed by that
    arena). A store with proofs says schema 2, which that arena refuses in one line
    ('store schema 2, this arena reads 1') and writes nothing."""
    assert _schema(league / "league.sqlite") == "2"


def test_a_store_made_before_proofs_is_read_as_it_is_and_marked_when_resumed(
    league: Path, tmp_path: Path
) -> None:
    """A store of schema 1 without proofs, as an arena made before them left it: read
    by standings without a write, then resumed, which gives it its proofs and schema 2
    (so that the older arena no longer writes into it), every game as it was."""
    from ..store_edits import without_proofs

    copy = edited(league, tmp_path, "UPDATE meta SET value = '1' WHERE key = 'schema'")
    store = copy / "league.sqlite"
    with sqlite3.connect(store) as db:
        without_proofs(db)
    before = results(store)
    assert run_cli("standings", str(store))[0] == 0
    assert _schema(store) == "1"
    code, _, err = run_cli("league", str(copy / "league.toml"), "--progress", "quiet")
    assert code == 0, err
    assert _schema(store) == "2"
    assert results(store) == before
    assert run_cli("standings", str(store))[0] == 0


def test_a_store_of_a_newer_arena_is_refused_saying_what_to_do(
    league: Path, tmp_path: Path
) -> None:
    copy = edited(league, tmp_path, "UPDATE meta SET value = '3' WHERE key = 'schema'")
    for command in ("standings", "export"):
        code, _, err = run_cli(command, str(copy / "league.sqlite"))
        assert code != 0
        assert "store schema 3, this arena reads 2 and older" in err
        assert "newer arena" in err
        assert "Traceback" not in err
