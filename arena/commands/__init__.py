"""The commands of the `arena` CLI, one module each."""

from __future__ import annotations

import click

from arena.commands.check_bot import check_bot_command
from arena.commands.league import league
from arena.commands.match import match
from arena.commands.rate import rate
from arena.commands.replay import replay
from arena.commands.standings import standings

COMMANDS: list[click.Command] = [
    match,
    league,
    standings,
    replay,
    rate,
    check_bot_command,
]
