"""`arena ladder serve` and `arena ladder settle` offer the options they use: a settling
ladder takes no submission (docs/ladder.md), so the caps of uploads and submissions are
serve's alone (settle accepted them and did nothing with them)."""

from __future__ import annotations

import click

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
