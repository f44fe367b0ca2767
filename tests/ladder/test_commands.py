"""`arena ladder serve` and `arena ladder settle` offer the options they use: a settling
ladder takes no submission (docs/ladder.md), so the caps of uploads and submissions are
serve's alone (settle accepted them and did nothing with them)."""

from __future__ import annotations

import os
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.commands.ladder import serve, settle


def names(command: click.Command) -> set[str]:
    return {opt for p in command.params if isinstance(p, click.Option) for opt in p.opts}


def test_settle_offers_no_option_of_the_submissions_it_does_not_take() -> None:
    taken = {"--max-upload-mb", "--submissions-per-hour"}
    assert taken <= names(serve)
    assert taken & names(settle) == set()


def test_settle_and_serve_share_the_options_of_the_games() -> None:
    games = {"--table-size", "--concurrency", "--cluster", "--duplicate", "--fault-limit"}
    assert games | {"--build-timeout", "--max-unpacked-mb"} <= names(serve) & names(settle)


@pytest.mark.skipif(os.environ.get("ARENA_NO_SANDBOX") == "1", reason="needs bubblewrap")
def test_a_store_whose_ladder_folders_cannot_be_made_is_refused_clearly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`arena ladder serve ''` (the folder .) and a store whose STORE.ladder is a file
    once ended in a traceback (ValueError, NotADirectoryError) from making the
    ladder's folders: now one line, naming what is wrong."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.sqlite.ladder").write_text("not a folder")
    for store, said in [("", ". is a folder"), ("x.sqlite", "x.sqlite.ladder: cannot make")]:
        result = CliRunner().invoke(main, ["ladder", "serve", store, "--port", "0"])
        assert result.exit_code == 2, (store, result.output)
        assert f"arena: error: {said}" in result.stderr
        assert "Traceback" not in result.output
