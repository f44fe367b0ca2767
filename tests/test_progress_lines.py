"""The progress lines redrawn on a terminal fit in it: a line as wide as the terminal
wraps, and a carriage return goes back to the start of its last row only, so every
redraw of `arena sprt`'s line (some 85 characters) left a new row on a terminal of 80."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.commands._progress import redrawn
from arena.commands.sprt import TerminalProgress
from arena.sprt import Hypotheses, Tally
from arena.sprt._run import SprtResult


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
