"""The league's settings (`LeagueConfig`) and its league file (TOML)."""

from __future__ import annotations

import codecs
import dataclasses
import os
import tomllib
from pathlib import Path
from typing import Any

from arena._declared import about
from arena.bots import BuildSettings, Limits
from arena.errors import InputError
from arena.referee import Clocks, RunSettings
from arena.rules import FAULT_ORDER, GameConfig

FAULTS = frozenset(cause.value for cause in FAULT_ORDER)
"""The causes of a bot's faults, by name."""


@dataclasses.dataclass(frozen=True, slots=True)
class LeagueConfig:
    """Everything that fixes a league."""

    bots: Path = dataclasses.field(
        metadata=about("Folder of bot submissions (each a folder with bot.toml).")
    )
    store: Path = dataclasses.field(
        metadata=about(
            "The league's SQLite file.",
            shown="the league file's store, else league.sqlite in the current folder",
        )
    )
    game: GameConfig
    run: RunSettings = RunSettings()
    """How the bots run: clocks, limits, sandbox, logs (the worker processes get these
    as they are); `max_processes` None: 8 per seat of each game a worker plays at once
    (32 at tables of 4, one game per worker)."""
    build: BuildSettings = BuildSettings()
    """How the bots are built."""
    seed: int | str | None = dataclasses.field(
        default=None,
        metadata=about(
            "Seed of the schedule and every deal: reproducible, and anyone who knows it"
            " knows every hand. Without it a new league draws a 128-bit secret (kept in the"
            " store) and a resumed one uses its stored seed."
        ),
    )
    """See `arena.seeds`."""
    table_size: int = dataclasses.field(default=4, metadata=about("Seats per game."))
    games_per_table: int = dataclasses.field(
        default=8,
        metadata=about("Games at each table; with duplicate deals a multiple of the table size."),
    )
    duplicate: bool = dataclasses.field(
        default=False,
        metadata=about(
            "Duplicate deals: each deal replayed across the seat rotations (less luck in"
            " the standings). Off by default: a bot can carry an opponent's hand from one game"
            " of a deal into the next through the kernel's page cache, so only between bots you"
            " trust."
        ),
    )
    """See docs/fair-play.md."""
    max_tables: int | None = dataclasses.field(
        default=1000, metadata=about("Largest number of tables before sampling (0: no limit).")
    )
    concurrency: int = dataclasses.field(
        default_factory=lambda: os.cpu_count() or 1,
        metadata=about(
            "Games at once, at most {most} (four per core), any number with --cluster.",
            shown="the number of cores; with --cluster, a game per worker thread, and more waiting",
        ),
    )
    fault_limit: int = dataclasses.field(
        default=5, metadata=about("Consecutive faults before a bot is disqualified (0: never).")
    )
    strict: bool = dataclasses.field(
        default=False,
        metadata=about(
            "Refuse to play (exit 1) if any submission is left out: a bot.toml that cannot"
            " be read, a name another submission has, a failed build."
        ),
    )
    pin_cpus: bool = dataclasses.field(
        default=False,
        metadata=about(
            "Run each worker process, with its bots, on a CPU of its own: faster where a"
            " bot waking on another CPU is slow (a busy or virtual machine). A bot may widen"
            " its own CPUs again.",
            shown="no",
        ),
    )
    """Each worker process, with every bot process it starts, runs on one CPU of its
    own (of those arena may use), in turn: a bot then wakes on the CPU whose referee
    wrote to it, which is cheaper than waking on another. Only with worker processes
    (a concurrency of 2 or more, not on a cluster)."""
    cluster: str | None = dataclasses.field(
        default=None,
        metadata=about(
            "Play the games as tasks on the workers of the Dask scheduler at this address"
            " (tcp://HOST:8786); this process keeps the schedule and the store. Needs arena and"
            " the bots' toolchains on every worker (see docs/organisers.md)."
        ),
    )
    """There a `concurrency` of 0 means a game per worker thread and more waiting
    (`arena.cluster.DaskRunner.open`)."""
    source: Path | None = None
    """The league file these settings came from, if any (it may hold the seed)."""


SECTIONS: dict[str, Any] = {"game": GameConfig, "clocks": Clocks, "limits": Limits}
"""A league file's sections other than [league], and the settings each one holds."""

COMMAND_LINE_ONLY = frozenset({"sandbox"})
"""Settings chosen on the command line only: a league file may be run on another
machine, whose sandbox is its own (`arena.sandbox.resolve_sandbox`)."""

_PARTS: dict[str, Any] = {"run": RunSettings, "build": BuildSettings}
"""The settings composed into `LeagueConfig` whose own settings are [league] keys."""


def _names(kind: Any) -> list[str]:
    return [f.name for f in dataclasses.fields(kind)]


LEAGUE_KEYS: dict[str, str] = {
    name: part
    for part, kind in [("league", LeagueConfig), *_PARTS.items()]
    for name in _names(kind)
    if name not in {*SECTIONS, *_PARTS, *COMMAND_LINE_ONLY, "source"}
}
"""The keys of a league file's [league] section, each with the part of `LeagueConfig`
that declares it ("league" itself, "run" or "build"): every setting of those that is
not a section of its own or chosen on the command line only. The command-line options
of `arena league` are checked against them (tests/league/test_settings_declared.py)."""


def compose(
    league: dict[str, Any],
    *,
    game: GameConfig,
    clocks: Clocks,
    limits: Limits,
    sandbox: str,
    source: Path | None,
) -> LeagueConfig:
    """A LeagueConfig of [league] keys (`LEAGUE_KEYS`: each goes to the part that
    declares it; bots and store are needed) and the rest, given whole."""
    parts: dict[str, dict[str, Any]] = {"league": {}, "run": {}, "build": {}}
    for key, value in league.items():
        parts[LEAGUE_KEYS[key]][key] = value
    run = RunSettings(clocks=clocks, limits=limits, sandbox=sandbox, **parts["run"])
    return LeagueConfig(
        game=game,
        run=run,
        build=BuildSettings(**parts["build"]),
        source=source,
        **parts["league"],
    )


LEAGUE_FILE_BYTES = 2**20
"""The largest league file read (one is a few hundred bytes): /dev/zero never ends."""


def read_league_file(path: Path) -> dict[str, Any]:
    """Read a league file; raises InputError with the reason."""
    try:
        with path.open("rb") as file:
            raw = file.read(LEAGUE_FILE_BYTES + 1)
        if len(raw) > LEAGUE_FILE_BYTES:
            raise InputError(f"{path}: larger than 1 MiB, not a league file")
        if raw.startswith(b"SQLite format 3\0"):
            raise InputError(
                f"{path}: an SQLite file, not a league file (TOML); a store is given as --store"
            )
        raw = raw.removeprefix(codecs.BOM_UTF8)  # as some editors save UTF-8: no TOML of its own
        data = tomllib.loads(raw.decode("utf-8"))
    except FileNotFoundError:
        raise InputError(f"{path}: no such league file") from None
    except OSError as err:
        raise InputError(f"{path}: cannot read: {err.strerror or err}") from None
    except UnicodeDecodeError as err:
        byte = f"byte {err.start + 1} is {raw[err.start]:#04x}"
        raise InputError(f"{path}: not a league file (not UTF-8 text: {byte})") from None
    except ValueError as err:  # TOMLDecodeError, or an int of over 4,300 digits
        raise InputError(f"{path}: not valid TOML: {err}") from None
    unknown = set(data) - {"league", "game", "clocks", "limits"}
    if unknown:
        raise InputError(f"{path}: unknown section(s): {', '.join(sorted(unknown))}")
    for section in data.values():
        if not isinstance(section, dict):
            raise InputError(f"{path}: settings must be in [league], [game], [clocks], [limits]")
    if "players" in data.get("game", {}):
        # A league seats table_size players at every table; [game] players would be
        # ignored, and a league of 4-seat games played where 3 were meant.
        raise InputError(
            f"{path}: [game] players: a league's tables seat [league] table_size players;"
            " set that instead"
        )
    known = {"league": set(LEAGUE_KEYS)} | {k: set(_names(v)) for k, v in SECTIONS.items()}
    for name, section in data.items():
        unknown = set(section) - known[name]
        if unknown:
            raise InputError(f"{path}: unknown [{name}] key(s): {', '.join(sorted(unknown))}")
    league = data.get("league", {})
    base = path.parent
    for key in ("bots", "store", "log_dir"):
        if key in league:
            if not isinstance(league[key], str):
                raise InputError(f"{path}: [league] {key} must be a string")
            if "\0" in league[key]:  # TOML's \u0000: no path holds one
                raise InputError(f"{path}: [league] {key}: a path cannot hold a NUL character")
            league[key] = base / league[key]
    return data
