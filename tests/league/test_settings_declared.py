"""Issue 43.3: every setting is declared once (the fields of `LeagueConfig` and the
settings composed into it); the league file's keys are derived from that declaration,
and `arena league`'s options are checked against it here, both ways."""

from __future__ import annotations

import dataclasses
from typing import Any

import click

from arena.bots import BuildSettings, Limits
from arena.commands._options import _FILE_NAMES, _FILE_ONLY
from arena.commands.league import league
from arena.commands.sprt import sprt
from arena.league import LEAGUE_KEYS, LeagueConfig
from arena.league._config import COMMAND_LINE_ONLY, SECTIONS
from arena.referee import Clocks, RunSettings
from arena.rules import GameConfig

PRESENTATION = {"mode", "quiet", "every", "watch"}
"""Options of `arena league` that say how to show the league, not what it is."""
SHORTHANDS = {"tc", "no_logs"}
"""Options that set other settings: --tc the clocks, --no-logs the log folder."""
REFUSED = {"players"}
"""[game] players: a league's tables seat [league] table_size players."""


def options(command: click.Command) -> set[str]:
    return {p.name for p in command.params if isinstance(p, click.Option) and p.name}


def file_keys() -> set[str]:
    """Every key a league file may hold, in any section."""
    sections = {f.name for kind in SECTIONS.values() for f in dataclasses.fields(kind)}
    return set(LEAGUE_KEYS) | sections


def fields(*kinds: Any) -> set[str]:
    return {f.name for kind in kinds for f in dataclasses.fields(kind)}


def test_the_league_file_keys_are_the_declared_settings() -> None:
    composed = {"game", "run", "build", "clocks", "limits", "source"}
    declared = fields(LeagueConfig, RunSettings, BuildSettings) - composed - COMMAND_LINE_ONLY
    assert set(LEAGUE_KEYS) == declared
    assert {"game": GameConfig, "clocks": Clocks, "limits": Limits} == SECTIONS


def test_every_league_file_key_has_its_option_and_every_option_its_setting() -> None:
    named = {_FILE_NAMES.get(key, key) for key in file_keys() - set(_FILE_ONLY) - REFUSED}
    have = options(league)
    assert named - have == set(), "settings of a league file without an option"
    settings = named | {_FILE_NAMES.get(key, key) for key in COMMAND_LINE_ONLY}
    assert have - settings - PRESENTATION - SHORTHANDS == set(), "options of no setting"
    assert set(_FILE_ONLY) <= file_keys()  # a file-only setting is a setting


def test_the_sprt_has_every_build_option_and_its_run_options() -> None:
    have = options(sprt)
    assert fields(BuildSettings) <= have
    run = fields(RunSettings, Clocks, Limits) - set(_FILE_ONLY) - {"clocks", "limits"}
    assert run - {"max_processes"} <= have  # (each SPRT worker plays one game at once)
