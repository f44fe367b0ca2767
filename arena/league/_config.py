"""The league's settings (`LeagueConfig`) and its league file (TOML)."""

from __future__ import annotations

import codecs
import dataclasses
import os
import tomllib
from pathlib import Path
from typing import Any

import protocol
from arena.bots import (
    BUILD_DISK_MB,
    BUILD_MEMORY_MB,
    BUILD_TIMEOUT,
    Limits,
)
from arena.errors import InputError
from arena.referee import Clocks
from arena.rules import FAULT_ORDER, GameConfig

FAULTS = frozenset(cause.value for cause in FAULT_ORDER)
"""The causes of a bot's faults, by name."""


@dataclasses.dataclass(frozen=True, slots=True)
class LeagueConfig:
    """Everything that fixes a league."""

    bots: Path
    store: Path
    game: GameConfig
    clocks: Clocks = Clocks()
    limits: Limits = Limits()
    seed: int | str | None = None
    """The seed of the schedule and every deal; None: a secret drawn for a new league
    (kept in the store) or the stored one on resume (see `arena.seeds`)."""
    table_size: int = 4
    games_per_table: int = 8
    duplicate: bool = False
    """Duplicate deals: each deal replayed across a table's seat rotations. Off by
    default: a bot's processes can carry what they saw in one game of a deal into a
    later one through the kernel's page cache (docs/fair-play.md), so only between bots
    the organiser trusts."""
    max_tables: int | None = 1000
    concurrency: int = dataclasses.field(default_factory=lambda: os.cpu_count() or 1)
    fault_limit: int = 5
    strict: bool = False
    """Refuse to play (exit 1) if any submission is left out (a bot.toml that cannot be
    read, a name taken, a failed build)."""
    fresh_process: bool = False
    pin_cpus: bool = False
    """Each worker process, with every bot process it starts, runs on one CPU of its
    own (of those arena may use), in turn: a bot then wakes on the CPU whose referee
    wrote to it, which is cheaper than waking on another. Only with worker processes
    (a concurrency of 2 or more, not on a cluster)."""
    max_processes: int | None = None
    """Most bot processes alive at once per worker; None: 8 per seat of each game the
    worker plays at once (32 at tables of 4, one game per worker). Past it the least
    recently used idle process is closed (`arena.referee.RunSettings`)."""
    log_dir: Path | None = None
    max_frame: int = protocol.DEFAULT_MAX_FRAME
    sandbox: str = "none"
    """"bwrap" runs every bot and build under bubblewrap (arena.sandbox), "none" unconfined."""
    build_timeout: float = BUILD_TIMEOUT
    """Seconds a bot's build may take."""
    build_network: bool = False
    """Builds may use the network (in the sandbox they have none otherwise)."""
    build_disk_mb: int = BUILD_DISK_MB
    """MiB a bot's build may add to its folder (`arena.bots.build`)."""
    build_memory_mb: int = BUILD_MEMORY_MB
    """MiB a sandboxed bot's build may use, its processes together (`arena.bots.build`)."""
    rebuild: bool = False
    """Build every bot, also one whose folder is as its last successful build left it."""
    cluster: str | None = None
    """The address of a Dask scheduler (tcp://HOST:PORT): the games run as tasks on its
    workers (`arena.cluster`); there a `concurrency` of 0 means a game per worker thread
    and more waiting (`arena.cluster.DaskRunner.open`)."""
    source: Path | None = None
    """The league file these settings came from, if any (it may hold the seed)."""


_LEAGUE_KEYS = {f.name for f in dataclasses.fields(LeagueConfig)} - {
    "game", "clocks", "limits", "sandbox", "source",
}  # fmt: skip
"""The keys of a league file's [league] section: the settings of `LeagueConfig` that
are not a section of their own or chosen on the command line only."""


_SECTION_KEYS = {
    "game": {f.name for f in dataclasses.fields(GameConfig)},
    "clocks": {f.name for f in dataclasses.fields(Clocks)},
    "limits": {f.name for f in dataclasses.fields(Limits)},
}
"""The keys of a league file's [game], [clocks] and [limits] sections."""


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
    known = {"league": _LEAGUE_KEYS} | _SECTION_KEYS
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
