"""The progress lines redrawn on a terminal fit in it: a line as wide as the terminal
wraps, and a carriage return goes back to the start of its last row only, so every
redraw of `arena sprt`'s line (some 85 characters) left a new row on a terminal of 80."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from arena.commands import _progress as progress_module
from arena.commands._progress import TerminalProgress as LeagueProgress
from arena.commands._progress import redrawn
from arena.commands.sprt import TerminalProgress
from arena.schedule import ScheduledGame
from arena.sprt import Hypotheses, Tally
from arena.sprt._run import SprtResult
from arena.store import Store


def test_a_redrawn_line_is_cut_to_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "40")
    assert redrawn("x" * 100) == "x" * 39
    assert redrawn("short") == "short   "  # over the end of a longer line before it


def test_the_sprt_line_fits_an_80_column_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    h = Hypotheses(0.0, 10.0)
    tally = Tally(h, direct=True)
    for d in (1.0, -1.0, 0.5, 1.0):
        tally.add(d)
    faults: dict[str, Counter[str]] = {r: Counter() for r in ("new", "old", "field")}
    result = SprtResult({"new": "a", "old": "b"}, (), 2, h, 20_000, tally, faults, stored=8)
    progress = TerminalProgress(quiet=False)
    progress.tty = True
    progress.counted(result)
    progress.close()
    shown = capsys.readouterr().err
    assert shown.startswith("\rgames")
    assert "LLR" in shown
    assert all(len(row) < 80 for row in shown.replace("\r", "\n").splitlines())


def test_a_league_logged_to_a_file_writes_a_line_at_least_every_minute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Piped to a log, a league wrote a progress line every tenth of its games only: one
    every 2.4 hours in a league of a day, a log that could not tell it from a hung one.
    (A fake clock: 30 s a game, 1,000 games, stderr no terminal.)"""
    clock = [0.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: clock[0])
    with Store.open(tmp_path / "league.sqlite") as store:
        progress = LeagueProgress(0, store)
        progress.tty = False
        progress.started(1000, 1000, "a note")
        capsys.readouterr()
        for done in range(1, 11):
            clock[0] += 30.0
            game = ScheduledGame(done - 1, f"g{done - 1:06d}", ("a", "b"), 0, None, 0, 0, 0)
            progress.game(None, game, done, 1000)
    lines = capsys.readouterr().err.splitlines()
    assert [line.split("]")[0] for line in lines] == [
        "[   2/1000",
        "[   4/1000",
        "[   6/1000",
        "[   8/1000",
        "[  10/1000",
    ]
