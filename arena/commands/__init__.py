"""The commands of the `arena` CLI, one module each."""

from __future__ import annotations

import click

COMMANDS: list[click.Command] = []
