"""Leagues: a folder of submissions, a schedule, concurrent games, a resumable store.

A league file (TOML) fixes everything; command-line options override it:

    [league]
    bots = "submissions"        # folder searched for bot folders (with bot.toml)
    store = "league.sqlite"     # the results; relative paths are relative to this file
    seed = "..."                # optional: anyone who knows the seed knows every deal;
                                # without one a 128-bit secret is drawn and stored
    table_size = 4              # seats per game, 2..6
    games_per_table = 8         # with duplicate deals, a multiple of table_size
    duplicate = false           # true: one deal replayed across the seat rotations;
                                # only between bots you trust (docs/fair-play.md)
    max_tables = 1000           # past this many k-subsets, a balanced sample
    concurrency = 2             # games at once; default: the number of cores
    max_processes = 32          # bot processes alive at once per worker (default: 8 a seat)
    pin_cpus = true             # each worker and its bots on a CPU of its own (default: no)
    fault_limit = 5             # consecutive faults before a bot is disqualified (0: never)
    cluster = "tcp://host:8786" # optional: games as tasks on a Dask cluster (arena.cluster)

    [game]                      # edition, format, tokens, target, ending, ono_on_tens, play_cap
    [clocks]                    # decision_ms, bank_ms, increment_ms, startup_ms, grace_ms, ...
    [limits]                    # memory_mb, cpu_seconds, processes, file_size_mb, open_files, ...

The package, one concept a module: `_config` (the settings and the league file),
`_prepare` (finding and building the bots), `_resume` (the league's identity in its
store: settings, schedule, seed), `_dispatch` (handing out the games), `_book` (the
games as they finish), `_report` (what a run tells and did), `_run` (`run_league`).
"""

from __future__ import annotations

from arena.league._config import (
    FAULTS,
    LEAGUE_FILE_BYTES,
    LEAGUE_KEYS,
    LeagueConfig,
    compose,
    read_league_file,
)
from arena.league._dispatch import (
    Dispatch,
)
from arena.league._prepare import (
    BUILT_DIGESTS,
    Prepared,
    build_and_check,
    check_before_store,
    discover_bots,
    prepare,
    register,
)
from arena.league._report import (
    LeagueReport,
    LeftOut,
    Progress,
    eta,
)
from arena.league._resume import (
    DEALS,
    run_settings,
    setting_changes,
    settings_in_play,
)
from arena.league._run import (
    run_league,
)

__all__ = [
    "BUILT_DIGESTS",
    "DEALS",
    "FAULTS",
    "LEAGUE_FILE_BYTES",
    "LEAGUE_KEYS",
    "Dispatch",
    "LeagueConfig",
    "LeagueReport",
    "LeftOut",
    "Prepared",
    "Progress",
    "build_and_check",
    "check_before_store",
    "compose",
    "discover_bots",
    "eta",
    "prepare",
    "read_league_file",
    "register",
    "run_league",
    "run_settings",
    "setting_changes",
    "settings_in_play",
]
