"""`arena replay`: a game play by play, as a spectator or as one seat saw it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from arena._text import printable
from arena.errors import InputError
from arena.replay import read_replay, readable, render

SQLITE_MAGIC = b"SQLite format 3\x00"


def load_game(file: Path, game_id: str | None) -> list[dict[str, Any]]:
    """A replay log: from a replay file, or game `game_id` of a league store."""
    try:
        with open(file, "rb") as f:
            is_store = f.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except FileNotFoundError:
        raise InputError(f"{file}: no such file") from None
    except OSError as err:
        raise InputError(f"{file}: cannot read: {err.strerror or err}") from None
    if not is_store:
        if game_id is not None:  # (a replay file of one game is read without one)
            raise InputError(f"{file} is not a league store: GAME_ID names a game of one")
        return read_replay(file)
    if game_id is None:
        raise InputError(f"{file} is a league store: name the game (arena replay STORE GAME_ID)")
    from arena.store import Store

    with Store.open(file, readonly=True) as store:
        if game_id not in store.done_game_ids():
            raise InputError(f"{file}: no played game {game_id!r} (forfeits have no replay)")
        return store.replay(game_id)


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("game_id", required=False)
@click.option("--seat", type=int, default=None, help="Show the game as this seat saw it.")
def replay(file: Path, game_id: str | None, seat: int | None) -> None:
    """Print a game play by play: a replay FILE (arena match --replays), or GAME_ID of a
    league store FILE (a league keeps every game's replay in its store)."""
    log = load_game(file, game_id)
    with readable(file if game_id is None else f"{file}, game {game_id}"):
        lines = list(render(log, seat))  # all of it read before a line is printed
    for line in lines:
        click.echo(printable(line))
