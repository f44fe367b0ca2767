"""Issue 43.3: every setting is declared once (the fields of `LeagueConfig` and the
settings composed into it, with their help); the league file's keys are derived from
that declaration, and `arena league`'s options are checked against it here, both ways,
and show the help it declares."""

from __future__ import annotations

import dataclasses
from typing import Any

import click
import pytest

from arena._declared import about, help_of
from arena.bots import BuildSettings, Limits
from arena.commands._options import _FILE_NAMES, _FILE_ONLY, SettingOption
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


def declared_settings(*kinds: Any) -> set[str]:
    """The settings of `kinds` declared with their help (`arena._declared.about`)."""
    return {f.name for kind in kinds for f in dataclasses.fields(kind) if "help" in f.metadata}


def test_every_option_of_a_declared_setting_shows_the_declarations_help() -> None:
    """Issue 43.3: a setting's help (and the default it shows) is declared once, with
    its field; its option shows that, so the two cannot say different things."""
    from arena.commands.check_bot import check_bot_command
    from arena.commands.match import match
    from arena.sprt import Hypotheses, SprtConfig

    run = (RunSettings, BuildSettings, Clocks, Limits, GameConfig)
    commands = [
        (league, (LeagueConfig, *run)),
        (sprt, (SprtConfig, Hypotheses, *run)),
        (match, run),
        (check_bot_command, run),
    ]
    own = {"check-bot": {"log_dir"}}  # one bot's log, its build's output: a help of its own
    for command, kinds in commands:
        context = click.Context(command)
        settings = declared_settings(*kinds) | {"pin_cpus"}  # (LeagueConfig's, for both)
        settings -= own.get(command.name or "", set())
        for param in command.params:
            name = {"fmt": "format"}.get(param.name or "", param.name)  # (--format)
            if name not in settings or not isinstance(param, click.Option):
                continue
            assert isinstance(param, SettingOption), f"{command.name} --{param.name}"
            record = param.get_help_record(context)
            assert record is not None
            assert param.declared_help() in record[1]


def test_every_league_option_of_a_setting_is_declared_with_its_help() -> None:
    have = options(league)
    kinds = (LeagueConfig, RunSettings, BuildSettings, Clocks, Limits)
    composed = {"game", "run", "build", "clocks", "limits", "source"}
    undeclared = fields(*kinds) - declared_settings(*kinds) - composed
    assert undeclared & have == set()


def test_a_settings_help_ends_with_the_default_people_get() -> None:
    @dataclasses.dataclass(frozen=True)
    class Kind:
        seconds: float = dataclasses.field(default=600.0, metadata=about("Seconds."))
        count: int = dataclasses.field(default=4, metadata=about("Seats, at most {most}."))
        flag: bool = dataclasses.field(default=False, metadata=about("A switch."))
        nothing: int | None = dataclasses.field(default=None, metadata=about("A limit."))
        cores: int = dataclasses.field(default=1, metadata=about("Games.", shown="the cores"))
        bare: int = 3

    assert help_of(Kind, "seconds") == "Seconds. [default: 600]"
    assert help_of(Kind, "count", {"most": 6}) == "Seats, at most 6. [default: 4]"
    assert help_of(Kind, "flag") == "A switch."
    assert help_of(Kind, "nothing") == "A limit."
    assert help_of(Kind, "cores") == "Games. [default: the cores]"
    with pytest.raises(KeyError):
        help_of(Kind, "bare")
