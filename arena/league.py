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
    [limits]                    # memory_mb, cpu_seconds, processes, file_size_mb, stderr_kb
"""

from __future__ import annotations

import codecs
import contextlib
import dataclasses
import itertools
import json
import math
import os
import stat
import tempfile
import time
import tomllib
import zlib
from collections import defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import msgspec
import trio

import protocol
from arena.bots import (
    BUILD_DISK_MB,
    BUILD_MEMORY_MB,
    BUILD_TIMEOUT,
    MANIFEST,
    MAX_DEPTH,
    BotSpec,
    BuildSettings,
    Limits,
    build,
    build_is_cached,
    check_out_of_reach,
    load_manifest,
    real_path,
    resolve_command,
    run_builds,
    walk_tree,
)
from arena.errors import BotError, ConfigError, InputError, StoreError, shown
from arena.messages import Play, Played, Setup, WorkerSettings
from arena.referee import Clocks, GameResult, RunSettings, Wrap
from arena.rules import FAULT_ORDER, POINTS_RULES, Format, GameConfig, rules_in_play
from arena.runners import GameRunner, LocalRunner, Player, WorkerPool
from arena.schedule import MAX_GAMES, Schedule, ScheduledGame, is_schedule_of, make_schedule
from arena.seeds import new_secret, seed_key
from arena.store import Store, inflate

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


def discover_bots(
    folder: Path, known: Mapping[str, str] | None = None
) -> tuple[list[BotSpec], list[str]]:
    """Every bot folder (with bot.toml) under `folder`, and the problems found.

    A folder with a manifest is a submission; the search does not descend into it.
    A manifest that cannot be read is reported and its bot left out. Links to folders
    are followed, but each folder is searched once (a link back up the tree is not
    followed again).

    Of submissions that claim one name, one keeps it and the others are left out, each
    named with the folder that keeps it: the one whose submission is the stored bot of
    that name (`known`: name -> digest, on a resume), else the one whose bot.toml came
    first (its inode's change time, which unpacking or copying sets and no submitter
    chooses; then the folder's path). Never whose folder sorts first: a stranger's
    "aaa-" folder would take a rival's place, and its games the rival's record.
    """
    if not folder.is_dir():
        raise ConfigError(f"bots folder {folder} does not exist")
    specs: list[BotSpec] = []
    problems: list[str] = []
    seen: set[Path] = set()  # every folder is searched once, links to it or not

    # Depth first in name order, with a stack of its own: a recursion of Python's would
    # end in a RecursionError on a folder nested a thousand deep.
    stack = [(folder, 0)]
    while stack:
        path, depth = stack.pop()
        real = real_path(path)
        if real in seen:  # a link back up the tree would be followed forever
            continue
        seen.add(real)
        try:
            if os.path.lexists(path / MANIFEST):
                try:  # not a file (a FIFO, a folder): load_manifest says so
                    specs.append(load_manifest(path))
                except BotError as err:
                    problems.append(str(err))
                continue
            children = sorted(path.iterdir())
            folders = [
                child for child in children
                if not child.name.startswith(".")
                and child.name not in {"node_modules", "__pycache__"}
                and child.is_dir()
            ]  # fmt: skip
        except OSError as err:  # an unreadable folder (its owner's, /proc's): left out
            problems.append(f"{path}: cannot read the folder: {err.strerror}")
            continue
        if folders and depth >= MAX_DEPTH:
            problems.append(
                f"{path}: not searched further, {MAX_DEPTH} folders deep without a {MANIFEST}"
            )
            continue
        stack.extend((child, depth + 1) for child in reversed(folders))
    return _one_per_name(specs, problems, known or {})


def _one_per_name(
    specs: list[BotSpec], problems: list[str], known: Mapping[str, str]
) -> tuple[list[BotSpec], list[str]]:
    """`discover_bots`'s rule for a name that several submissions claim."""
    claims: defaultdict[str, list[BotSpec]] = defaultdict(list)
    for spec in specs:
        claims[spec.name].append(spec)
    left_out: set[int] = set()
    for name, rivals in claims.items():
        if len(rivals) < 2:
            continue

        def stored(spec: BotSpec, digest: str | None = known.get(name)) -> bool:
            if digest is None:
                return False
            try:
                return spec.digest() == digest
            except BotError:
                return False

        def arrived(spec: BotSpec) -> tuple[int, str]:
            try:
                changed = os.stat(Path(spec.folder or ".") / MANIFEST).st_ctime_ns
            except OSError:
                changed = 2**63
            return changed, str(spec.folder)

        keeper = next((s for s in rivals if stored(s)), None) or min(rivals, key=arrived)
        why = "the stored bot of that name" if stored(keeper) else "its bot.toml came first"
        for spec in rivals:
            if spec is not keeper:
                left_out.add(id(spec))
                problems.append(
                    f"{spec.folder}: its bot.toml claims the name {name!r}, which"
                    f" {keeper.folder} has ({why}); rename one of them"
                )
    return [s for s in specs if id(s) not in left_out], problems


class Progress:
    """Hears what a league does while it runs (called from the trio thread). This base
    class says nothing (quiet); the command line's terminal and JSON-lines reporters
    override what they show."""

    def started(self, total: int, todo: int, note: str) -> None:
        """The schedule holds `total` games, `todo` of them still to play."""

    def game(self, result: GameResult | None, game: ScheduledGame, done: int, total: int) -> None:
        """`game` is stored: played (`result`) or forfeited (None); `done` of `total`."""

    def message(self, text: str) -> None:
        """Something for people: a bot left out, a build, a disqualification."""

    def warning(self, text: str) -> None:
        """Something the organiser must hear even when progress is quiet (a submission
        that changed, whose games then count with its earlier ones'): a message here."""
        self.message(text)

    def finished(self, report: LeagueReport) -> None:
        """The league has played every game it had to."""


@dataclasses.dataclass
class LeagueReport:
    """What happened in one run of a league."""

    schedule: Schedule
    played: int = 0
    forfeits: int = 0
    skipped: int = 0
    excluded: list[str] = dataclasses.field(default_factory=list)
    changed: list[str] = dataclasses.field(default_factory=list)
    disqualified: list[str] = dataclasses.field(default_factory=list)
    seconds: float = 0.0
    left_out: list[str] = dataclasses.field(default_factory=list)
    """Why each submission left out was, one line each (`excluded` names them)."""


class LeftOut(ConfigError):
    """`--strict`: a submission was left out, and no game is played."""

    exit_status = 1


@runtime_checkable
class BuildsBots(GameRunner, Protocol):
    """A game runner that builds the bots where it plays them (`arena.cluster`)."""

    async def build_bots(
        self, specs: list[BotSpec], config: BuildSettings
    ) -> Callable[[BotSpec], None]:
        """Build `specs` there; returns a check that raises BotError for a bot whose
        build failed."""
        ...


def build_and_check(spec: BotSpec, settings: BuildSettings, say: Callable[[str], None]) -> None:
    """Build `spec` as `settings` say (in the sandbox, with its own log) and check that
    the sandbox shows its program; raises BotError with the reason."""
    cached = not settings.rebuild and build_is_cached(
        spec, sandbox=settings.sandbox, network=settings.build_network
    )
    if spec.build is not None:
        if cached:
            say(f"{spec.name}: built already, its folder as that build left it (--rebuild)")
        else:
            say(f"building {spec.name}: {' '.join(spec.build)}")
    build(
        spec,
        sandbox=settings.sandbox,
        network=settings.build_network,
        disk_mb=settings.build_disk_mb,
        memory_mb=settings.build_memory_mb,
        rebuild=settings.rebuild,
        timeout=settings.build_timeout,
        log_path=settings.log_dir / f"{spec.name}.log" if settings.log_dir else None,
        log_kb=settings.limits.stderr_kb,
    )
    command = resolve_command(spec.command, spec.folder)
    wrap = _wrap(settings.sandbox)
    if wrap is not None:  # fails if the sandbox would hide the program
        wrap(command, Path(tempfile.gettempdir()) / "arena-check", spec.folder)
        if os.geteuid() == 0 and spec.folder is not None:
            _warn_unreadable(spec.name, spec.folder, command, say)


def _warn_unreadable(
    name: str, folder: Path, command: Sequence[str], say: Callable[[str], None]
) -> None:
    """Warn of files and folders of the submission that the sandbox's anonymous user,
    which runs the bot when arena is root, cannot read: a bot.py of mode 600 was charged
    a crash in every game (the folder itself is refused, by the sandbox's wrap). Build
    outputs are looked at where the command names them (target/release/bot)."""
    named = {os.path.realpath(folder / word) for word in command}
    hidden = []
    for rel, path, entry, ignored in walk_tree(name, folder):
        if ignored and os.path.realpath(path) not in named:
            continue
        mode = entry.stat(follow_symlinks=False).st_mode
        if (stat.S_ISREG(mode) and not mode & stat.S_IROTH) or (
            stat.S_ISDIR(mode) and mode & 0o005 != 0o005 and not ignored
        ):
            hidden.append(rel)
    if hidden:
        more = f" and {len(hidden) - 3} more" if len(hidden) > 3 else ""
        say(
            f"warning: {name}: {', '.join(hidden[:3])}{more} cannot be read by the sandbox's"
            f" anonymous user, which runs the bot (chmod -R a+rX {folder})"
        )


@dataclasses.dataclass
class Prepared:
    """The bots found and built for a league, before anything of them is stored."""

    ready: list[BotSpec]
    """The bots to play."""
    excluded: list[str]
    """The submissions left out (a name, or a folder whose manifest failed)."""
    failed: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    """(name, why) of each bot whose build failed."""
    reasons: list[str] = dataclasses.field(default_factory=list)
    """Why each submission was left out, one line each, as said."""
    digests: dict[str, str] = dataclasses.field(default_factory=dict)
    """Each ready bot's submission digest, taken before its build."""
    built: dict[str, str] = dataclasses.field(default_factory=dict)
    """Each ready bot's digest after its build, as the league leaves its folder: a
    build that writes into its folder (a C bot's ./bot) changes the digest, and the
    next run finds its folder so (`register`). A bot whose folder cannot be read
    again after its build is not in it."""


def prepare(
    config: LeagueConfig,
    say: Callable[[str], None],
    built: Callable[[BotSpec], None] | None = None,
    found: tuple[list[BotSpec], list[str]] | None = None,
) -> Prepared:
    """Find and build the bots; nothing is stored (`register` does that, once the
    store's league is known to be this one).

    `built`, if given, replaces the build here: the bots were built elsewhere, and it
    raises BotError for a bot whose build failed there. `found`: what
    `discover_bots(config.bots)` found, if the caller has it already."""
    specs, problems = found if found is not None else discover_bots(config.bots)
    for problem in problems:
        say(f"left out: {problem}")
    out = Prepared([], [p.split(":")[0] for p in problems], reasons=list(problems))
    for spec in specs:
        try:
            out.digests[spec.name] = spec.digest()  # the submission as given, before its build
            if built is not None:
                built(spec)
            else:
                build_and_check(spec, config, say)
        except BotError as err:
            # Named: "command 'pyhton3' not found on the PATH" does not say whose.
            why = str(err) if str(err).startswith(f"{spec.name}: ") else f"{spec.name}: {err}"
            say(f"left out: {why}")
            out.reasons.append(why)
            out.failed.append((spec.name, str(err)))
            out.excluded.append(spec.name)
            continue
        with contextlib.suppress(BotError):
            out.built[spec.name] = spec.digest()
        out.ready.append(spec)
    return out


BUILT_DIGESTS = "built_digests"
"""The meta key of each bot's digest after its last build in this store's league
(`Prepared.built`) or SPRT, by name."""


def register(store: Store, bots: Prepared, warn: Callable[[str], None]) -> list[str]:
    """Store the bots' commands, digests and build failures; return the names whose
    submission changed since their stored games, each with a warning (said once: the
    new digest is stored).

    A submission is unchanged if its folder is as the last run's build left it: the
    files of a build that writes into its folder (a C bot's ./bot) are not there
    before the first build, and are there before the next."""
    for name, why in bots.failed:
        store.set_bot_status(name, "build_failed", why)
    ready = bots.ready
    built = store.get_setting(BUILT_DIGESTS) or {}
    changed = [
        name
        for name in store.sync_bots(
            [(s.name, " ".join(s.command), bots.digests[s.name]) for s in ready]
        )
        if built.get(name) != bots.digests[name]
    ]
    store.set_meta(BUILT_DIGESTS, built | bots.built)
    for name in changed:
        warn(
            f"warning: the submission of {name} changed since its stored games were played;"
            " those games count in its standings with the new version's (give another"
            " --store to rate the new version on its own)"
        )
    for spec in ready:
        if store.bot_statuses().get(spec.name) == "build_failed":
            store.set_bot_status(spec.name, "ok", "")
    return changed


async def run_league(
    config: LeagueConfig,
    store: Store,
    progress: Progress,
    runner: GameRunner | None = None,
) -> LeagueReport:
    """Play every game of the league not yet in the store; record each as it finishes.

    `runner` plays the games (`arena.runners`); by default the games run here at a
    concurrency of 1 and in that many worker processes above it. A league on a Dask
    cluster is given its `arena.cluster.DaskRunner` by the command that opens it.
    """
    if config.pin_cpus and (config.cluster or config.concurrency <= 1):
        where = "on a cluster" if config.cluster else "at a concurrency of 1"
        progress.message(f"--pin-cpus pins nothing {where} (it pins local worker processes)")
    started = time.monotonic()
    if store.games_count():  # a resume: refuse a damaged store before playing on
        store.verify()
    found = discover_bots(config.bots, store.bot_digests())
    if isinstance(runner, BuildsBots):  # the bots are built where the games run
        built = await runner.build_bots(found[0], config)
        bots = prepare(config, progress.message, built, found)
    else:
        bots = await run_builds(found[0], prepare, config, progress.message, None, found)
    if config.strict and bots.reasons:
        raise LeftOut(
            f"--strict: {len(bots.reasons)} submission(s) left out, so no game is played:"
            f" {'; '.join(bots.reasons)}"
        )
    specs = bots.ready
    _out_of_reach(config, store.path, specs)
    # The settings are checked before anything is stored: a refused resume changes
    # nothing (a digest stored then would hide a changed submission from the next one).
    schedule = _schedule(config, [s.name for s in specs], store, progress.warning, bots.reasons)
    changed = register(store, bots, progress.warning)
    report = LeagueReport(schedule, excluded=bots.excluded, changed=changed, left_out=bots.reasons)
    done = store.done_game_ids()
    todo = [g for g in schedule.games if g.game_id not in done]
    report.skipped = len(schedule.games) - len(todo)
    progress.started(len(schedule.games), len(todo), schedule.note)
    book = _Book(config, store, progress, report, [s.name for s in specs])
    # The games run in up to a worker per core, each playing its share of the games in
    # flight at once (a worker waiting on one game's bot referees another meanwhile).
    workers = max(1, min(config.concurrency, os.cpu_count() or 1, len(todo)))
    per_worker = -(-min(config.concurrency, max(1, len(todo))) // workers)
    max_processes = config.max_processes or 8 * config.table_size * per_worker
    settings = RunSettings(
        clocks=config.clocks,
        limits=config.limits,
        max_frame=config.max_frame,
        fresh_process=config.fresh_process,
        log_dir=real_path(config.log_dir) if config.log_dir is not None else None,
        max_processes=max_processes,
    )
    setup = Setup(
        bots=tuple(specs),
        settings=WorkerSettings.of(settings, config.sandbox),
        config=dataclasses.replace(config.game, players=config.table_size),
    )
    room = max_processes  # the bot processes a game slot's worker keeps for it
    if runner is None:
        runner = (
            LocalRunner()
            if config.concurrency <= 1
            else WorkerPool(workers, per_worker, pin=config.pin_cpus)
        )
        room = max(1, max_processes // per_worker)  # the slot's share of its worker's
    dispatch = Dispatch(schedule.games, room, done)
    async with runner.players(setup) as players, trio.open_nursery() as nursery:
        for player in players[: config.concurrency]:
            nursery.start_soon(book.drive, dispatch, player)
    if report.played:
        _changed_while_played(store, bots, progress.warning)
    report.seconds = time.monotonic() - started
    progress.finished(report)
    return report


def _changed_while_played(store: Store, bots: Prepared, warn: Callable[[str], None]) -> None:
    """Warn of each submission whose folder is not as its build left it once the games
    are played: edited while the league ran, its games of both versions count together.
    Said once: its new digest is stored, and a resume does not say it again. (A league
    stopped before this is told by its resume, `register`.)"""
    edited: dict[str, str] = {}
    for spec in bots.ready:
        if spec.name not in bots.built:
            continue
        try:
            now = spec.digest()
        except BotError as err:
            warn(
                f"warning: the submission of {spec.name} cannot be read again after its games"
                f" ({err}); its games so far count in its standings"
            )
            continue
        if now == bots.built[spec.name]:
            continue
        warn(
            f"warning: the submission of {spec.name} changed while the league played it; its"
            " games before and after the change count together in its standings (give"
            " another --store to rate the new version on its own)"
        )
        store.sync_bots([(spec.name, " ".join(spec.command), now)])
        edited[spec.name] = now
    if edited:
        store.set_meta(BUILT_DIGESTS, (store.get_setting(BUILT_DIGESTS) or {}) | edited)


def check_before_store(config: LeagueConfig) -> None:
    """What is refused before the store or the log folder is made: a store, log folder
    or league file in a bot's folder (`_out_of_reach`: even an empty store would be
    left there), a seed that is none, and a folder of fewer submissions than a table
    has seats (a mistyped or empty folder would leave an empty store behind)."""
    if config.seed is not None:
        seed_key(config.seed)  # raises for a seed that is no seed
    specs, problems = discover_bots(config.bots)
    _out_of_reach(config, config.store, specs)
    if len(specs) < config.table_size:
        found = f"{len(specs)} bot submission(s) (folders with {MANIFEST})"
        left = f"; left out: {'; '.join(problems)}" if problems else ""
        raise ConfigError(
            f"{config.bots}: {found}, and tables of {config.table_size} need"
            f" {config.table_size}{_smaller_tables(len(specs))}{left}"
        )


def _smaller_tables(bots: int) -> str:
    """What to do about too few bots for the tables asked for."""
    if bots >= 2:
        return f" (--table-size {bots} makes tables they fill)"
    return " (a league needs 2 bots at least)"


def _out_of_reach(config: LeagueConfig, store: Path, specs: Sequence[BotSpec]) -> None:
    """Refuse a league whose store, logs or league file lie in a bot's folder
    (`arena.bots.check_out_of_reach`)."""
    check_out_of_reach(
        specs,
        [
            ("the store", store),
            ("the league file", config.source),
            ("the log folder", config.log_dir),
        ],
    )


def _schedule(
    config: LeagueConfig,
    names: list[str],
    store: Store,
    warn: Callable[[str], None],
    left_out: Sequence[str] = (),
) -> Schedule:
    """The league's schedule; its settings are stored, and a resume must match them (but
    the clocks and the sandbox, which it may change with a warning). `left_out`: why
    each submission left out was, for the refusal of too few bots (said even with -q)."""
    if len(names) < config.table_size:
        left = f"; left out: {'; '.join(left_out)}" if left_out else ""
        raise ConfigError(
            f"{len(names)} playable bot(s) for tables of {config.table_size}: not enough"
            f"{_smaller_tables(len(names))}{left}"
        )
    stored = store.get_setting("league")
    seed = _league_seed(config, stored, store.path)
    identity = {
        "bots": sorted(names),
        "seed": seed,
        "deals": DEALS,
        "table_size": config.table_size,
        "games_per_table": config.games_per_table,
        "duplicate": config.duplicate,
        "max_tables": config.max_tables,
        "game": dataclasses.replace(config.game, players=config.table_size).to_dict(),
    }
    if config.game.format is Format.POINTS:  # the only format whose legal actions changed
        identity["points_rules"] = POINTS_RULES
    if stored is not None:
        was, now = settings_in_play(stored), settings_in_play(identity)
        if was != now:
            raise _other_settings(store.path, was, now, names)
        identity = stored  # the same rules (an option its format ignores kept as stored)
    # After the checks above, which name the damage they find, and before the settings
    # are written again: settings edited by hand (the secret, whose deals every game of
    # the league was dealt from) are refused; a store made before proofs gets them now.
    store.verify_rows(settings=True)
    store.adopt_proofs()
    # The schedule is kept in the store: a resume reads it instead of computing it again
    # (a balanced sample of thousands of tables takes seconds to find).
    key = json.dumps(identity, sort_keys=True)
    schedule = _stored_schedule(store.load_schedule(key), config, names, seed)
    if schedule is None:
        schedule = make_schedule(
            names,
            table_size=config.table_size,
            games_per_table=config.games_per_table,
            seed=seed,
            duplicate=config.duplicate,
            max_tables=config.max_tables,
        )
        store.save_schedule(key, zlib.compress(msgspec.msgpack.encode(schedule), 6))
    store.set_meta("league", identity)
    store.set_meta("schedule_note", schedule.note)
    store.set_meta("total_games", len(schedule.games))
    settings = _resumable_settings(config)
    before = store.get_setting("settings") or {}
    # A store of an older arena kept fewer of them: only those it kept are compared.
    changed = any(before[key] != settings[key] for key in before.keys() & settings.keys())
    if changed and 0 < store.games_count() < len(schedule.games):
        warn(_settings_changed(before, settings))
    store.set_meta("settings", settings)
    return schedule


def _resumable_settings(config: LeagueConfig) -> dict[str, Any]:
    """The settings that shape a league's games but not its schedule: a resume may
    change them (a slower machine needs longer clocks), with a warning that names each
    change (`_settings_changed`), as the games stored so far were played under the old.
    The stderr cap (`Limits.stderr_kb`) shapes only the logs, and is not among them."""
    limits = dataclasses.asdict(config.limits)
    del limits["stderr_kb"]
    return {
        "clocks": config.clocks.to_dict(),
        "sandbox": config.sandbox,
        "limits": limits,
        "max_frame": config.max_frame,
        "fresh_process": config.fresh_process,
        "fault_limit": config.fault_limit,
    }


def _settings_changed(before: dict[str, Any], now: dict[str, Any]) -> str:
    """The warning for a resume whose settings (`_resumable_settings`) are not those of the
    last run: each change, as `key old -> new`, of the settings `before` holds."""
    changes = []
    for section in ("clocks", "limits"):
        if section not in before:
            continue
        values = before[section]
        was: dict[str, Any] = values if isinstance(values, dict) else {}
        changes += [
            f"{key} {shown(was.get(key))} -> {shown(value)}"
            for key, value in now[section].items()
            if was.get(key) != value
        ]
    for key in ("sandbox", "max_frame", "fresh_process", "fault_limit"):
        if key in before and before[key] != now[key]:
            changes.append(f"{key} {shown(before[key])} -> {shown(now[key])}")
    return (
        f"warning: the games stored so far were played with other settings than these"
        f" ({', '.join(changes) or 'settings'}); they count with the games played now, and"
        " the report shows the new settings"
    )


def _other_settings(
    path: Path, stored: dict[str, Any], identity: dict[str, Any], names: list[str]
) -> ConfigError:
    """The refusal of a resume whose settings, as played (`settings_in_play`), are not
    the stored league's: what differs, in words."""
    differ = sorted(k for k in identity if stored.get(k) != identity[k])
    if "bots" in differ:  # name them: a bot left out now is no setting changed
        differ[differ.index("bots")] = _bots_differ(stored.get("bots"), names)
    stored_game = stored.get("game")
    if "points_rules" in differ and not (
        isinstance(stored_game, dict) and stored_game.get("format") == Format.POINTS.value
    ):  # not a points league before: "game" says what changed
        differ.remove("points_rules")
    if "points_rules" in differ:
        differ[differ.index("points_rules")] = (
            "points_rules: the store's league was played under earlier rules of the"
            " points format, without busting on purpose (R4.2)"
        )
    if "game" in differ:  # name the rules that differ, as stored and as given now
        was = stored_game if isinstance(stored_game, dict) else {}
        now = identity["game"]
        assert isinstance(now, dict)
        rules = [
            f"{k} {was.get(k)!r} in the store, {now.get(k)!r} now"
            for k in sorted(set(was) & set(now))  # (one format's own: its format says)
            if was.get(k) != now.get(k)
        ]
        differ[differ.index("game")] = f"game: {'; '.join(rules)}"
    if "duplicate" in differ:  # its default changed (a store made before has them)
        flag = "--duplicate" if stored.get("duplicate") else "--no-duplicate"
        had = "has duplicate deals" if stored.get("duplicate") else "has none"
        differ[differ.index("duplicate")] = f"duplicate: the store's league {had}, {flag}"
    return ConfigError(
        f"{path} holds a league with other settings ({', '.join(differ)});"
        " resume it with the same settings, or give another --store"
    )


def settings_in_play(identity: dict[str, Any]) -> dict[str, Any]:
    """A stored league's (or SPRT's) settings with only the rules its format plays by
    (`arena.rules.rules_in_play`)."""
    return identity | {"game": rules_in_play(identity.get("game"))}


def _bots_differ(stored: Any, names: list[str]) -> str:
    """What differs between the stored league's bots and the playable ones now."""
    before = {str(name) for name in stored} if isinstance(stored, list) else set()
    parts = []
    gone = sorted(before - set(names))
    if gone:
        parts.append(
            f"{', '.join(gone)} {'is' if len(gone) == 1 else 'are'} not playable now (no"
            " longer in the bots folder, or left out: a bot.toml that cannot be read, a"
            " failed build; without -q arena says why)"
        )
    new = sorted(set(names) - before)
    if new:
        parts.append(f"{', '.join(new)} {'is' if len(new) == 1 else 'are'} new")
    return "bots: " + "; ".join(parts) if parts else "bots"


def _stored_schedule(
    blob: bytes | None, config: LeagueConfig, names: list[str], seed: str
) -> Schedule | None:
    """A schedule as `_schedule` keeps it, or None (none kept, or not readable, or not
    one these settings can make: it is computed again, as it is the same for the same
    settings). A store can be anyone's: its schedule is unpacked to no more than the
    largest schedule of these settings takes, and used only if its games are those
    its tables make, each table seating `table_size` of the bots once."""
    if blob is None:
        return None
    k = config.table_size
    tables = math.comb(len(names), k)
    if config.max_tables is not None:
        tables = min(tables, config.max_tables)
    games = min(tables * config.games_per_table, MAX_GAMES)
    limit = (games + tables) * (128 + 72 * k) + 2**16  # a game packs to ~100 + 15k bytes
    try:
        schedule = msgspec.msgpack.decode(inflate(blob, limit), type=Schedule)
    except (zlib.error, ValueError, msgspec.DecodeError, msgspec.ValidationError):
        return None
    made = is_schedule_of(
        schedule,
        names,
        table_size=k,
        games_per_table=config.games_per_table,
        seed=seed,
        duplicate=config.duplicate,
        max_tables=config.max_tables,
    )
    return schedule if made else None


class Dispatch:
    """Hands out the games to play so that bot processes are reused as much as the
    schedule allows.

    The games go in *units*: without duplicate deals a table's games, with them one
    rotation of a table (its game in each of the table's deals). A player gets a unit's
    games back to back. It then gets, of the units that share a bot with that one, the
    unit with the most bots that have a process able to play it in a model of its
    worker's processes (`_PoolModel`: the same reuse, the same cap, the least recently
    used closed first); with none, the first unit left in the schedule's order,
    rotation 0 of every table before rotation 1 of any. When every unit is handed
    out, a player with nothing left takes over the last half of the longest queue, so
    that no slot idles while another has games waiting.

    With duplicate deals a process never plays two games of one duplicate group
    (`arena.referee.BotPool.acquire`), so it plays one rotation of a table at most;
    the units are rotations so that one process of a bot can play one rotation of
    each of many tables, as with single deals. (A table's rotations back to back need
    a table's size of processes of each of its bots at once, each playing one game
    per deal: far fewer bots fit under the cap, and far fewer processes are reused.)

    The order decides which processes play a game, never its seats or its deal. It
    decides which games a bot forfeits once disqualified, though (those after its
    faults in a row): so that a league resumed at a concurrency of 1 plays on in the
    order it would have without the interruption, the order does not change with the
    games played already (`done`).
    """

    def __init__(
        self, games: Sequence[ScheduledGame], room: int | None, done: Collection[str] = ()
    ) -> None:
        """`games`: the whole schedule; `room`: how many bot processes a player's worker
        keeps for it (its share of the worker's `max_processes`), None for no limit;
        `done`: the ids of the games played already (a resume), never handed out: the
        first player goes on from where one player handing out every game in turn would
        be once past them."""
        units: dict[tuple[int, int], list[ScheduledGame]] = {}
        for game in games:
            layer = game.rotation if game.group is not None else 0
            units.setdefault((layer, game.table), []).append(game)
        self._units = {
            unit: sorted(unit_games, key=lambda game: (game.deal, game.index))
            for unit, unit_games in units.items()
        }
        rank = {table: i for i, table in enumerate(dict.fromkeys(g.table for g in games))}
        self._order = sorted(self._units, key=lambda unit: (unit[0], rank[unit[1]]))
        self._first = 0  # before it, every unit is handed out
        self._handed: set[tuple[int, int]] = set()
        self._names: dict[str, int] = {}
        self._bots: dict[int, tuple[int, ...]] = {}  # table -> its bots
        self._groups: dict[tuple[int, int], frozenset[str]] = {}
        self._at: dict[int, set[tuple[int, int]]] = {}  # bot -> its units not handed out
        for unit, unit_games in self._units.items():
            bots = tuple(self._names.setdefault(n, len(self._names)) for n in unit_games[0].seats)
            self._bots[unit[1]] = bots
            self._groups[unit] = frozenset(g.group for g in unit_games if g.group is not None)
            for bot in bots:
                self._at.setdefault(bot, set()).add(unit)
        self._room = room
        self._slots: dict[object, _Slot] = {}
        self._resumed = self._skip({g.game_id for g in games}.intersection(done))

    def next(self, player: object) -> ScheduledGame | None:
        """The next game for `player`, or None when every game is handed out."""
        slot = self._slots.get(player)
        if slot is None:
            slot, self._resumed = self._resumed or _Slot(_PoolModel(self._room)), None
            self._slots[player] = slot
        if not slot.queue:
            unit = self._choose(slot)
            if unit is None:  # none left: take over half of the longest queue
                longest = max((s.queue for s in self._slots.values()), key=len)
                slot.queue.extend(longest[: len(longest) // 2])
                del longest[: len(longest) // 2]
                return slot.queue.pop() if slot.queue else None
            self._give(slot, unit)
        return slot.queue.pop()

    def _give(self, slot: _Slot, unit: tuple[int, int]) -> None:
        slot.queue.extend(reversed(self._units[unit]))
        slot.last = self._bots[unit[1]]
        for game in self._units[unit]:
            slot.model.play(slot.last, game.group)

    def _skip(self, done: set[str]) -> _Slot | None:
        """Hand out every game to one player until the `done` ones are past, and leave
        them out; that player, with the other games it got, for the first to ask."""
        if not done:
            return None
        slot = _Slot(_PoolModel(self._room))
        missed: list[ScheduledGame] = []  # games not done, handed out among done ones
        while done:
            if not slot.queue:
                unit = self._choose(slot)
                assert unit is not None  # the done games are among those left
                self._give(slot, unit)
            game = slot.queue.pop()
            if game.game_id in done:
                done.discard(game.game_id)
            else:
                missed.append(game)
        slot.queue.extend(reversed(missed))
        return slot

    def _choose(self, slot: _Slot) -> tuple[int, int] | None:
        while self._first < len(self._order) and self._order[self._first] in self._handed:
            self._first += 1
        if self._first == len(self._order):
            return None
        best, most = self._order[self._first], 0
        processes = slot.model.processes
        near = set().union(*(self._at[bot] for bot in slot.last))
        for unit in itertools.islice(near, _LOOK):
            bots, groups = self._bots[unit[1]], self._groups[unit]
            ready = 0
            for bot in bots:
                for process in processes.get(bot, ()):
                    if groups.isdisjoint(process.groups):
                        ready += 1
                        break
            if ready > most:
                best, most = unit, ready
                if ready == len(bots):
                    break
        self._handed.add(best)
        for bot in self._bots[best[1]]:
            self._at[bot].discard(best)
        return best


_LOOK = 300
"""The most units `Dispatch` weighs for a choice (of a bot's dozens of tables at most
in a sampled schedule, but thousands in a full one of few bots)."""


class _Process:
    """A bot process of `_PoolModel`: its bot and the duplicate groups it played."""

    __slots__ = ("bot", "groups")

    def __init__(self, bot: int) -> None:
        self.bot = bot
        self.groups: set[str] = set()


class _PoolModel:
    """The bot processes a worker likely keeps for one game slot, as its pool does
    (`arena.referee.BotPool`): a game takes the most recently used process of each
    bot that played no game of its duplicate group, else starts one; past `room`
    processes, the least recently used is closed first. A guess (faults replace
    processes, other slots share the worker), used only to choose the next games."""

    def __init__(self, room: int | None) -> None:
        self.room = room
        self._recency: dict[_Process, None] = {}  # least recently used first
        self.processes: dict[int, list[_Process]] = {}
        """Each bot's processes, least recently used first."""
        self.started = 0
        """Processes started so far."""

    def play(self, bots: tuple[int, ...], group: str | None) -> None:
        """A game between `bots` (one of duplicate `group`) is played."""
        taken: list[_Process] = []
        for bot in bots:
            processes = self.processes.setdefault(bot, [])
            for process in reversed(processes):
                if group not in process.groups:
                    processes.remove(process)
                    del self._recency[process]
                    break
            else:
                while (
                    self.room is not None
                    and self._recency
                    and (len(self._recency) + len(taken) >= self.room)
                ):
                    closed = next(iter(self._recency))
                    del self._recency[closed]
                    self.processes[closed.bot].remove(closed)
                process = _Process(bot)
                self.started += 1
            if group is not None:
                process.groups.add(group)
            taken.append(process)
        for process in taken:
            self.processes[process.bot].append(process)
            self._recency[process] = None


@dataclasses.dataclass(eq=False)
class _Slot:
    """What `Dispatch` knows of one player."""

    model: _PoolModel
    """Its worker's processes, as far as they serve it."""
    queue: list[ScheduledGame] = dataclasses.field(default_factory=list)
    """Its games still to hand out, the next last."""
    last: tuple[int, ...] = ()
    """The bots of the unit it got last."""


_ALONE = contextlib.nullcontext()
"""What a game of no duplicate group waits for: nothing."""


class _Book:
    """The league's bookkeeping: forfeits, records, fault streaks, disqualifications."""

    def __init__(
        self,
        config: LeagueConfig,
        store: Store,
        progress: Progress,
        report: LeagueReport,
        names: list[str],
    ) -> None:
        self.config, self.store, self.progress, self.report = config, store, progress, report
        self.total = len(report.schedule.games)
        self.count = report.skipped
        statuses = store.bot_statuses()
        self.disqualified = {n for n in names if statuses.get(n) == "disqualified"}
        self.streak = {n: 0 for n in names} | store.fault_streaks()
        self.last_fault: dict[str, str] = {}
        """Each bot's latest fault in this run, as "cause: message"."""
        for name in names:  # a league killed between a game and the disqualification
            self._check_streak(name)
        self._groups: defaultdict[str, trio.Lock] = defaultdict(trio.Lock)
        """Held while a game of the duplicate group is played (see `drive`)."""

    async def drive(self, dispatch: Dispatch, player: Player) -> None:
        """Give `player` the games `dispatch` hands it until none is left (a slow game
        holds up only its own player); a game a disqualified bot sits at is forfeited.

        A game waits while another game of its duplicate group is played: two processes
        of a bot playing one deal at once, in two seats, could tell each other their
        hands (a lock or an inotify watch on a file they both see crosses the sandbox)."""
        while (game := dispatch.next(player)) is not None:
            async with self._groups[game.group] if game.group is not None else _ALONE:
                if not self._forfeit(game):
                    play = Play(game.game_id, game.seats, game.seed, game.group)
                    self._record(game, await player(play))

    def _forfeit(self, game: ScheduledGame) -> bool:
        """Record `game` as a forfeit if a disqualified bot sits at it."""
        out = sorted(self.disqualified.intersection(game.seats))
        if not out:
            return False
        self.store.record_forfeit(game.game_id, game.index, game.group, game.seats, out, game.seed)
        self.report.forfeits += 1
        self.count += 1
        self.progress.game(None, game, self.count, self.total)
        return True

    def _record(self, game: ScheduledGame, played: Played) -> None:
        """Store a finished game with the bots' fault streaks after it, then disqualify
        bots with too many faults in a row."""
        result = played.result
        faulted = {result.names[f.seat] for f in result.faults}
        for fault in result.faults:
            self.last_fault[result.names[fault.seat]] = f"{fault.cause}: {fault.message}"
        for name in game.seats:
            self.streak[name] = self.streak[name] + 1 if name in faulted else 0
        self.store.record_game(
            result, index=game.index, group=game.group, started_at=played.started,
            finished_at=played.finished, replay=played.replay, streaks=self.streak,
        )  # fmt: skip
        self.report.played += 1
        self.count += 1
        for name in game.seats:
            self._check_streak(name)
        self.progress.game(result, game, self.count, self.total)

    def _check_streak(self, name: str) -> None:
        """Disqualify `name` if its faults in a row reached the limit."""
        limit, streak = self.config.fault_limit, self.streak[name]
        if limit and streak >= limit and name not in self.disqualified:
            self.disqualified.add(name)
            self.report.disqualified.append(name)
            self.store.set_bot_status(name, "disqualified", f"{streak} faults in a row")
            # Its author needs what went wrong and where the bot said why.
            last = self.last_fault.get(name)
            logs = self.config.log_dir
            where = (
                f"its stderr is in {logs / (name + '.log')}"
                if logs is not None
                else "run again without --no-logs to keep its stderr"
            )
            self.progress.message(
                f"{name} is disqualified after {streak} faults in a row"
                f"{f' (the last: {last})' if last else ''}; its remaining games are"
                f" forfeits ({where})"
            )


DEALS = "hmac-sha256"
"""How deal seeds derive from the league seed (`arena.rules.keyed_seed`); stores made
before it (with predictable deals) are refused for resuming."""


def _league_seed(config: LeagueConfig, stored: dict[str, Any] | None, path: Path) -> str:
    """The seed to play with: the one given, else the stored one, else a new secret."""
    if stored is not None and not {"deals", "seed"} & set(stored):  # no store ever made
        raise StoreError(f"{path}: the store is damaged (setting 'league' holds no seed)")
    if stored is not None and stored.get("deals") != DEALS:
        raise ConfigError(
            f"{path} was made by an older arena whose deals a bot could predict; its"
            " results can still be read (arena standings), but start a new store to play on"
        )
    if config.seed is not None:
        return seed_key(config.seed)
    if stored is not None:
        if not isinstance(stored.get("seed"), str) or not stored["seed"]:
            raise StoreError(f"{path}: the store is damaged (setting 'league' holds no seed)")
        return str(stored["seed"])
    return new_secret()


def _wrap(sandbox: str) -> Wrap | None:
    if sandbox == "bwrap":
        from arena.sandbox import bwrap_wrap

        return bwrap_wrap()
    return None


def eta(done: int, total: int, rate: float) -> str:
    """Time left, as 1h02m, 3m05s or 12s."""
    if rate <= 0 or done >= total:
        return "-"
    seconds = math.ceil((total - done) / rate)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}h{m:02d}m" if h else f"{m}m{s:02d}s" if m else f"{s}s"
