"""`arena replay`: a game play by play, as a spectator or as one seat saw it."""

from __future__ import annotations

from pathlib import Path

import click

from arena.replay import read_replay, render


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--seat", type=int, default=None, help="Show the game as this seat saw it.")
def replay(file: Path, seat: int | None) -> None:
    """Print the game in replay FILE play by play."""
    for line in render(read_replay(file), seat):
        click.echo(line)
