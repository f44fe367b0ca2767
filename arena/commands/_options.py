"""Options shared by the commands that run games (match, league, check-bot)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from arena.bots import Limits
from arena.errors import ConfigError
from arena.referee import Clocks
from arena.rules import Edition, Ending, Format, GameConfig

F = TypeVar("F", bound=Callable[..., Any])

_GAME_OPTIONS = [
    click.option(
        "--edition",
        type=click.Choice([e.value for e in Edition]),
        default=None,
        help="Rules edition. [default: 2022]",
    ),
    click.option(
        "--format",
        "fmt",
        type=click.Choice([f.value for f in Format]),
        default=None,
        help="Match format. [default: single]",
    ),
    click.option("--tokens", type=click.IntRange(0), default=None, help="Tokens (tokens format)."),
    click.option("--target", type=click.IntRange(1), default=None, help="Target (points format)."),
    click.option(
        "--ending",
        type=click.Choice([e.value for e in Ending]),
        default=None,
        help="Points format ending.",
    ),
    click.option(
        "--ono-on-tens/--no-ono-on-tens", default=None, help="1980 option: ONO 99 on tens."
    ),
    click.option("--play-cap", type=click.IntRange(1), default=None, help="Plays before a draw."),
]

_RUN_OPTIONS = [
    click.option("--decision-ms", type=click.IntRange(1), default=None, help="Time per decision."),
    click.option("--bank-ms", type=click.IntRange(0), default=None, help="Time bank per game."),
    click.option("--increment-ms", type=click.IntRange(0), default=None, help="Bank increment."),
    click.option("--startup-ms", type=click.IntRange(1), default=None, help="Start-up time."),
    click.option("--grace-ms", type=click.IntRange(0), default=None, help="Deadline margin."),
    click.option("--exit-grace-ms", type=click.IntRange(0), default=None, help="Exit time."),
    click.option(
        "--fresh-process/--reuse-process",
        default=None,
        help="New bot processes for every game. [default: reuse]",
    ),
    click.option("--memory-mb", type=click.IntRange(16), default=None, help="Address space."),
    click.option("--cpu-seconds", type=click.IntRange(1), default=None, help="CPU time/process."),
    click.option("--processes", type=click.IntRange(1), default=None, help="Process limit."),
    click.option("--file-size-mb", type=click.IntRange(0), default=None, help="File size limit."),
    click.option(
        "--max-frame", type=click.IntRange(16), default=None, help="Largest frame from a bot."
    ),
    click.option(
        "--log-dir",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Folder for the bots' stderr logs.",
    ),
]


def _apply(options: list[Any], func: F) -> F:
    for option in reversed(options):
        func = option(func)
    return func


def game_options(func: F) -> F:
    """Add the game rule options (edition, format, ...)."""
    return _apply(_GAME_OPTIONS, func)


def run_options(func: F) -> F:
    """Add the clock, process and limit options."""
    return _apply(_RUN_OPTIONS, func)


def build_config(players: int, base: dict[str, Any], opts: dict[str, Any]) -> GameConfig:
    """A GameConfig from a base dict (a league file) overridden by command-line options."""
    data = dict(base)
    for key, name in [
        ("edition", "edition"),
        ("fmt", "format"),
        ("tokens", "tokens"),
        ("target", "target"),
        ("ending", "ending"),
        ("ono_on_tens", "ono_on_tens"),
        ("play_cap", "play_cap"),
    ]:
        if opts.get(key) is not None:
            data[name] = opts[key]
    data["players"] = players
    return GameConfig.from_dict(data)


def build_clocks(base: dict[str, Any], opts: dict[str, Any]) -> Clocks:
    """Clocks from a base dict overridden by command-line options."""
    data = dict(base)
    for key in ("decision_ms", "bank_ms", "increment_ms", "startup_ms", "grace_ms"):
        if opts.get(key) is not None:
            data[key] = opts[key]
    if opts.get("exit_grace_ms") is not None:
        data["exit_grace_ms"] = opts["exit_grace_ms"]
    try:
        return Clocks(**data)
    except TypeError as err:
        raise ConfigError(f"clocks: {err}") from None


def build_limits(base: dict[str, Any], opts: dict[str, Any]) -> Limits:
    """Resource limits from a base dict overridden by command-line options."""
    data = dict(base)
    for key in ("memory_mb", "cpu_seconds", "processes", "file_size_mb"):
        if opts.get(key) is not None:
            data[key] = opts[key]
    try:
        return Limits(**data)
    except TypeError as err:
        raise ConfigError(f"limits: {err}") from None
