"""`arena sprt` on the command line: careless and hostile input gives one clear line and
exit status 2, never a traceback, and creates no store."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.commands.sprt import expand_field
from arena.store import Store

from .helpers import bot_folder


def run_cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_field_takes_every_bot_up_to_the_next_option() -> None:
    assert expand_field(["n", "o", "--field", "a", "b c", "--table-size", "3", "-q"]) == [
        "n", "o", "--field", "a", "--field", "b c", "--table-size", "3", "-q",
    ]  # fmt: skip
    assert expand_field(["--field", "a", "--field", "b", "n"]) == [
        "--field", "a", "--field", "b", "--field", "n",
    ]  # fmt: skip
    assert expand_field(["n", "--", "--field", "x"]) == ["n", "--", "--field", "x"]


@pytest.fixture
def bots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # the default store would be made here
    for name in ("new", "old", "f1", "f2"):
        bot_folder(tmp_path, name)
    return tmp_path


CASES = [
    (["new", "new"], "NEW and OLD are the same bot"),
    (["new", "./new/"], "NEW and OLD are the same bot"),
    (["new", "old", "--field", "f1", "new"], "the field bot new is NEW itself"),
    (["new", "old", "--table-size", "3"], "tables of 3 need 2 field bots"),
    (["new", "old", "--field", "f1", "--table-size", "4"], "the field has 1: give more"),
    (["new", "old", "--field", *["f1"] * 6], "a field of 6 bots needs --table-size"),
    (["new", "old", "--elo0", "5", "--elo1", "5"], "elo0 must be below elo1"),
    (["new", "old", "--alpha", "0"], "alpha must be above 0"),
    (["new", "old", "--beta", "nan"], "beta must be a finite number"),
    (["new", "old", "--field"], "--field needs at least one BOT"),
    (["new", "old", "--field", "--table-size", "2"], "--field needs at least one BOT"),
    (["new", "old", "--max-games", "1"], "1 is not in the range x>=2"),
    (["--field", "f1", "new", "old"], "give NEW and OLD before --field, or end the field"),
    (["new", "--field", "f1", "old"], "Missing argument 'OLD'. --field takes every word"),
    (["new", "nothing/here"], "no such bot folder"),
]


@pytest.mark.parametrize(("args", "message"), CASES)
def test_bad_input_is_one_clear_line(bots: Path, args: list[str], message: str) -> None:
    code, out, err = run_cli("sprt", *args, "--sandbox", "none")
    assert code == 2, (out, err)
    assert message in err
    assert "Traceback" not in err
    assert not (bots / "sprt.sqlite").exists()


def test_a_league_store_is_not_taken_for_a_test(bots: Path) -> None:
    Store.open(bots / "league.sqlite").close()
    before = (bots / "league.sqlite").read_bytes()
    code, _, err = run_cli("sprt", "new", "old", "--store", "league.sqlite", "--sandbox", "none")
    assert code == 2
    assert "not an arena SPRT store" in err
    assert (bots / "league.sqlite").read_bytes() == before


def test_the_help_says_how_to_use_it() -> None:
    code, out, _ = run_cli("sprt", "--help")
    assert code == 0
    assert "sprt [OPTIONS] NEW OLD" in out.splitlines()[0]
    assert "Test whether bot NEW is stronger than bot OLD." in out
    for option in ("--field BOT [BOT ...]", "--elo0", "--elo1", "--max-games", "--json", "-j"):
        assert option in out
    # 0 whatever the verdict: a script that takes 0 for H1 must be told otherwise.
    assert "exit status is 0 whatever the verdict" in " ".join(out.split())


@pytest.mark.parametrize("command", ["standings", "report"])
def test_a_tests_store_given_to_standings_says_what_it_is(
    bots: Path, command: str, tmp_path: Path
) -> None:
    """Issue 44.5: `arena standings sprt.sqlite` said "not an arena league store"."""
    from arena.sprt._store import SprtStore

    SprtStore.open(bots / "sprt.sqlite").close()
    args = [
        command,
        "sprt.sqlite",
        *(["-o", str(tmp_path / "site")] if command == "report" else []),
    ]
    code, _, err = run_cli(*args)
    assert code == 2
    assert "sprt.sqlite is the store of an SPRT test (arena sprt), not of a league" in err
    assert "run again with --store pointing at it prints its result" in err
