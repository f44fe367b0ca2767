"""`arena standings STORE`: the standings of a league store, in any format."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from arena.commands._versions import all_versions_option, versions_read
from arena.commands.rate import print_standings, rating_options
from arena.errors import InputError


@click.command()
@click.argument("db", metavar="STORE", type=click.Path(dir_okay=False, path_type=Path))
@rating_options
@all_versions_option
@click.pass_context
def standings(ctx: click.Context, /, db: Path, all_versions: bool, **options: Any) -> None:
    """Print the standings of the league stored in STORE (a league's SQLite file).

    Columns: rank, bot, Elo with its 95% interval, games, wins (first places), win %,
    average place, points (points format) and faults by cause. --matrix prints the
    head-to-head table instead. Bots that no chain of games links are named in the
    notes' Apart line and JSON's apart: Elo compares only within a group.
    """
    from arena.store import Store

    if not db.exists():
        raise InputError(f"{db}: no such league store")
    with Store.open(db, readonly=True) as store:
        store.verify_rows()  # rows edited by hand are refused, naming the game
        results = versions_read(store, store.result_columns(), all_versions)
        versions = store.changed_versions()
    if not results.game_ids:
        raise InputError(f"{db}: no game has finished yet")
    print_standings(ctx, results, versions, **options)
