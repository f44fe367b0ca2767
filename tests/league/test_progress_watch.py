"""Issue 44.6: `arena league --watch BOT` shows the bot's line in every table of the
standings the progress prints, under the top 5 when it is not among them."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.commands._progress import TerminalProgress
from arena.store import Store

from .test_store_basics import finished

BOTS = [f"bot{k}" for k in range(8)]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """8 bots, bot0 strongest and bot7 weakest: in each game of four the bots at the
    table finish in the order of their numbers (a played game's places given to them
    so; a forfeit would not be rated)."""
    db = Store.open(tmp_path / "league.sqlite")
    for k in range(40):
        table = sorted(BOTS[(k + j * 3) % 8] for j in range(4))
        result = finished(f"g{k:03d}", k, ("s0", "s1", "s2", "s3"))
        by_place = sorted(range(4), key=lambda seat: result.outcome.places[seat])
        names = [""] * 4
        for bot, seat in zip(table, by_place, strict=True):
            names[seat] = bot
        result = dataclasses.replace(result, names=tuple(names))
        db.record_game(result, index=k, group=None, started_at=0.0, finished_at=1.0)
    with db:
        yield db


def top(store: Store, capsys: pytest.CaptureFixture[str], watch: str | None) -> list[str]:
    progress = TerminalProgress(1, store, watch)
    progress.tty = False
    progress._top()
    return capsys.readouterr().err.splitlines()


def test_a_watched_bot_outside_the_top_gets_its_line_under_the_table(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = top(store, capsys, None)
    assert len(plain) == 2 + 5
    assert "bot7" not in "\n".join(plain)
    watched = top(store, capsys, "bot7")
    assert watched[:7] == plain
    assert len(watched) == 8
    assert watched[7].split()[1] == "bot7"
    assert watched[7].split()[0] == "8"  # its rank, as in the full standings


def test_a_watched_bot_in_the_top_is_not_repeated(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    assert top(store, capsys, "bot0") == top(store, capsys, None)


def test_a_watched_bot_with_no_game_says_so(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = top(store, capsys, "nobody")
    assert lines[-1] == "(nobody: no game of it stored yet)"


def test_league_takes_watch(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from arena.cli import main

    help_text = CliRunner().invoke(main, ["league", "--help"]).stdout
    assert "--watch BOT" in help_text
