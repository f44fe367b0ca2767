"""Leagues: a folder of submissions, a schedule, concurrent games, a resumable store.

A league file (TOML) fixes everything; command-line options override it:

    [league]
    bots = "submissions"        # folder searched for bot folders (with bot.toml)
    store = "league.sqlite"     # the results; relative paths are relative to this file
    seed = "..."                # optional: anyone who knows the seed knows every deal;
                                # without one a 128-bit secret is drawn and stored
    table_size = 4              # seats per game, 2..6
    games_per_table = 8         # with duplicate deals, a multiple of table_size
    duplicate = true
    max_tables = 1000           # past this many k-subsets, a balanced sample
    concurrency = 2             # games at once; default: the number of cores
    fault_limit = 5             # consecutive faults before a bot is disqualified (0: never)

    [game]                      # edition, format, tokens, target, ending, ono_on_tens, play_cap
    [clocks]                    # decision_ms, bank_ms, increment_ms, startup_ms, grace_ms, ...
    [limits]                    # memory_mb, cpu_seconds, processes, file_size_mb, stderr_kb
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import trio

import protocol
from arena.bots import (
    BUILD_TIMEOUT,
    MANIFEST,
    BotSpec,
    Limits,
    build,
    load_manifest,
    resolve_command,
)
from arena.errors import ArenaError, BotError, ConfigError, InputError
from arena.referee import (
    Clocks,
    GameResult,
    RunSettings,
    Wrap,
    open_pools,
    play_seated,
)
from arena.rules import GameConfig
from arena.schedule import Schedule, ScheduledGame, make_schedule
from arena.seeds import new_secret, seed_key
from arena.store import Store
from arena.worker import MAX_MESSAGE, settings_to_dict, spec_to_dict

FAULTS = frozenset({"timeout", "crash", "malformed", "illegal"})


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
    duplicate: bool = True
    max_tables: int | None = 1000
    concurrency: int = dataclasses.field(default_factory=lambda: os.cpu_count() or 1)
    fault_limit: int = 5
    fresh_process: bool = False
    log_dir: Path | None = None
    max_frame: int = protocol.DEFAULT_MAX_FRAME
    sandbox: str = "none"
    """"bwrap" runs every bot and build under bubblewrap (arena.sandbox), "none" unconfined."""
    build_timeout: float = BUILD_TIMEOUT
    """Seconds a bot's build may take."""
    build_network: bool = False
    """Builds may use the network (in the sandbox they have none otherwise)."""


_LEAGUE_KEYS = {
    "bots", "store", "seed", "table_size", "games_per_table", "duplicate", "max_tables",
    "concurrency", "fault_limit", "fresh_process", "log_dir", "max_frame", "build_timeout",
    "build_network",
}  # fmt: skip


def read_league_file(path: Path) -> dict[str, Any]:
    """Read a league file; raises InputError with the reason."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"{path}: cannot read: {err}") from None
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"{path}: not valid TOML: {err}") from None
    unknown = set(data) - {"league", "game", "clocks", "limits"}
    if unknown:
        raise InputError(f"{path}: unknown section(s): {', '.join(sorted(unknown))}")
    for section in data.values():
        if not isinstance(section, dict):
            raise InputError(f"{path}: settings must be in [league], [game], [clocks], [limits]")
    league = data.get("league", {})
    unknown = set(league) - _LEAGUE_KEYS
    if unknown:
        raise InputError(f"{path}: unknown [league] key(s): {', '.join(sorted(unknown))}")
    base = path.parent
    for key in ("bots", "store", "log_dir"):
        if key in league:
            if not isinstance(league[key], str):
                raise InputError(f"{path}: [league] {key} must be a string")
            league[key] = base / league[key]
    return data


def discover_bots(folder: Path) -> tuple[list[BotSpec], list[str]]:
    """Every bot folder (with bot.toml) under `folder`, and the problems found.

    A folder with a manifest is a submission; the search does not descend into it.
    A manifest that cannot be read is reported and its bot left out.
    """
    if not folder.is_dir():
        raise ConfigError(f"bots folder {folder} does not exist")
    specs: list[BotSpec] = []
    problems: list[str] = []

    def walk(path: Path) -> None:
        if (path / MANIFEST).is_file():
            try:
                specs.append(load_manifest(path))
            except BotError as err:
                problems.append(str(err))
            return
        for child in sorted(path.iterdir()):
            if child.is_dir() and not child.name.startswith(".") and child.name not in {
                "node_modules", "__pycache__",
            }:  # fmt: skip
                walk(child)

    walk(folder)
    names: dict[str, Path | None] = {}
    unique = []
    for spec in specs:
        if spec.name in names:
            problems.append(f"{spec.folder}: the name {spec.name!r} is taken by {names[spec.name]}")
            continue
        names[spec.name] = spec.folder
        unique.append(spec)
    return unique, problems


@dataclasses.dataclass
class Progress:
    """What the league reports while it runs (called from the trio thread)."""

    on_start: Callable[[int, int, str], None] = lambda total, todo, note: None
    on_game: Callable[[GameResult | None, ScheduledGame, int, int], None] = (
        lambda result, game, done, total: None
    )
    on_message: Callable[[str], None] = lambda text: None


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


def prepare(
    config: LeagueConfig, store: Store, say: Callable[[str], None]
) -> tuple[list[BotSpec], list[str], list[str]]:
    """Find, build and register the bots. Returns (bots to play, excluded, changed)."""
    specs, problems = discover_bots(config.bots)
    for problem in problems:
        say(f"left out: {problem}")
    excluded = [p.split(":")[0] for p in problems]
    ready = []
    digests = {}
    for spec in specs:
        try:
            digests[spec.name] = spec.digest()  # the submission as given, before its build
            if spec.build is not None:
                say(f"building {spec.name}: {' '.join(spec.build)}")
            build(
                spec,
                sandbox=config.sandbox,
                network=config.build_network,
                timeout=config.build_timeout,
                log_path=config.log_dir / f"{spec.name}.log" if config.log_dir else None,
                log_kb=config.limits.stderr_kb,
            )
            command = resolve_command(spec.command, spec.folder)
            wrap = _wrap(config.sandbox)
            if wrap is not None:  # fails if the sandbox would hide the program
                wrap(command, Path(tempfile.gettempdir()) / "arena-check", spec.folder)
        except BotError as err:
            say(f"left out: {err}")
            store.set_bot_status(spec.name, "build_failed", str(err))
            excluded.append(spec.name)
            continue
        ready.append(spec)
    changed = store.sync_bots([(s.name, " ".join(s.command), digests[s.name]) for s in ready])
    for name in changed:
        say(f"warning: the submission of {name} changed since its stored games were played")
    for spec in ready:
        if store.bot_statuses().get(spec.name) == "build_failed":
            store.set_bot_status(spec.name, "ok", "")
    return ready, excluded, changed


async def run_league(config: LeagueConfig, store: Store, progress: Progress) -> LeagueReport:
    """Play every game of the league not yet in the store; record each as it finishes."""
    started = time.monotonic()
    if store.games_count():  # a resume: refuse a damaged store before playing on
        store.verify()
    specs, excluded, changed = prepare(config, store, progress.on_message)
    names = [s.name for s in specs]
    if len(names) < config.table_size:
        raise ConfigError(
            f"{len(names)} playable bot(s) for tables of {config.table_size}: not enough"
        )
    stored = store.get_meta("league")
    seed = _league_seed(config, stored, store.path)
    schedule = make_schedule(
        names,
        table_size=config.table_size,
        games_per_table=config.games_per_table,
        seed=seed,
        duplicate=config.duplicate,
        max_tables=config.max_tables,
    )
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
    if stored is not None and stored != identity:
        differ = sorted(k for k in identity if stored.get(k) != identity[k])
        raise ConfigError(
            f"{store.path} holds a league with other settings ({', '.join(differ)});"
            " resume it with the same settings, or give another --store"
        )
    store.set_meta("league", identity)
    store.set_meta("schedule_note", schedule.note)
    report = LeagueReport(schedule, excluded=excluded, changed=changed)
    done = store.done_game_ids()
    todo = [g for g in schedule.games if g.game_id not in done]
    report.skipped = len(schedule.games) - len(todo)
    total = len(schedule.games)
    progress.on_start(total, len(todo), schedule.note)
    game_config = dataclasses.replace(config.game, players=config.table_size)
    settings = RunSettings(
        clocks=config.clocks,
        limits=config.limits,
        max_frame=config.max_frame,
        fresh_process=config.fresh_process,
        log_dir=config.log_dir.resolve() if config.log_dir is not None else None,
        wrap=_wrap(config.sandbox),
    )
    statuses = store.bot_statuses()
    disqualified = {n for n in names if statuses.get(n) == "disqualified"}
    streak = {n: 0 for n in names} | store.fault_streaks()
    count = report.skipped

    def forfeit(game: ScheduledGame) -> bool:
        """Record `game` as a forfeit if a disqualified bot sits at it."""
        nonlocal count
        out = sorted(disqualified.intersection(game.seats))
        if not out:
            return False
        store.record_forfeit(game.game_id, game.index, game.group, game.seats, out, game.seed)
        report.forfeits += 1
        count += 1
        progress.on_game(None, game, count, total)
        return True

    def record(game: ScheduledGame, played: Played) -> None:
        """Store a finished game and disqualify bots with too many faults in a row."""
        nonlocal count
        result = played.result
        faulted = {result.names[f.seat] for f in result.faults}
        for name in game.seats:
            streak[name] = streak[name] + 1 if name in faulted else 0
        store.record_game(
            result, index=game.index, group=game.group, started_at=played.started,
            finished_at=played.finished, replay=played.replay, streaks=streak,
        )  # fmt: skip
        report.played += 1
        count += 1
        for name in game.seats:
            check_streak(name)
        progress.on_game(result, game, count, total)

    def check_streak(name: str) -> None:
        """Disqualify `name` if its faults in a row reached the limit."""
        limit = config.fault_limit
        if limit and streak[name] >= limit and name not in disqualified:
            disqualified.add(name)
            report.disqualified.append(name)
            store.set_bot_status(name, "disqualified", f"{streak[name]} faults in a row")
            progress.on_message(
                f"{name} is disqualified after {streak[name]} faults in a row;"
                " its remaining games are forfeits"
            )

    for name in names:  # a league killed between a game and the disqualification
        check_streak(name)

    queue = iter(todo)

    async def drive(player: Player) -> None:
        # Each player takes the next game in schedule order; a slow game holds up only
        # its own player.
        for game in queue:
            if not forfeit(game):
                record(game, await player(game))

    if config.concurrency <= 1:
        await _run_here(specs, settings, game_config, drive)
    else:
        setup = {
            "type": "setup",
            "bots": [spec_to_dict(spec) for spec in specs],
            "settings": settings_to_dict(settings, config.sandbox),
            "config": game_config.to_dict(),
        }
        # No more workers than games to play.
        await _run_in_workers(min(config.concurrency, max(1, len(todo))), setup, drive)
    report.seconds = time.monotonic() - started
    return report


@dataclasses.dataclass(frozen=True, slots=True)
class Played:
    """A game as a player hands it back: its result, when it ran, its packed replay."""

    result: GameResult
    started: float
    finished: float
    replay: bytes | None = None


Player = Callable[[ScheduledGame], Awaitable[Played]]


DEALS = "hmac-sha256"
"""How deal seeds derive from the league seed (`arena.rules.keyed_seed`); stores made
before it (with predictable deals) are refused for resuming."""


def _league_seed(config: LeagueConfig, stored: dict[str, Any] | None, path: Path) -> str:
    """The seed to play with: the one given, else the stored one, else a new secret."""
    if stored is not None and stored.get("deals") != DEALS:
        raise ConfigError(
            f"{path} was made by an older arena whose deals a bot could predict; its"
            " results can still be read (arena standings), but start a new store to play on"
        )
    if config.seed is not None:
        return seed_key(config.seed)
    if stored is not None:
        return str(stored["seed"])
    return new_secret()


def _wrap(sandbox: str) -> Wrap | None:
    if sandbox == "bwrap":
        from arena.sandbox import bwrap_wrap

        return bwrap_wrap()
    return None


async def _run_here(
    specs: list[BotSpec],
    settings: RunSettings,
    config: GameConfig,
    drive: Callable[[Player], Awaitable[None]],
) -> None:
    """Concurrency 1: the games run in this process."""
    async with open_pools(specs, settings) as pools:

        async def play(game: ScheduledGame) -> Played:
            started = time.time()
            result = await play_seated(
                [pools[name] for name in game.seats],
                config,
                game.seed,
                clocks=settings.clocks,
                game_id=game.game_id,
                group=game.group,
            )
            return Played(result, started, time.time())

        await drive(play)


async def _run_in_workers(
    count: int, setup: dict[str, Any], drive: Callable[[Player], Awaitable[None]]
) -> None:
    """Concurrency N: N worker processes (arena.worker), one game at a time each."""
    workers: list[_Worker] = []
    finished = False
    try:
        for _ in range(count):
            workers.append(await _Worker.start(setup))
        async with trio.open_nursery() as nursery:
            for worker in workers:
                nursery.start_soon(drive, worker.play)
        finished = True
    finally:
        with trio.CancelScope(shield=True):
            if not finished:  # all told at once, so that they stop together
                for worker in workers:
                    worker.terminate()
            async with trio.open_nursery() as nursery:
                for worker in workers:
                    nursery.start_soon(worker.aclose)


_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class _Worker:
    """The coordinator's end of one worker process."""

    def __init__(self, process: trio.Process) -> None:
        self._process = process
        assert process.stdin is not None
        assert process.stdout is not None
        self._stdin = process.stdin
        self._stdout = process.stdout
        self._decoder = protocol.FrameDecoder(MAX_MESSAGE)

    @classmethod
    async def start(cls, setup: dict[str, Any]) -> _Worker:
        env = dict(os.environ)
        root = _PACKAGE_ROOT
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
        process = await trio.lowlevel.open_process(
            [sys.executable, "-m", "arena.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        worker = cls(process)
        await worker._stdin.send_all(protocol.encode_frame(setup))
        return worker

    async def play(self, game: ScheduledGame) -> Played:
        message = {"type": "game", "game_id": game.game_id, "seats": list(game.seats),
                   "seed": game.seed, "group": game.group}  # fmt: skip
        try:
            await self._stdin.send_all(protocol.encode_frame(message))
            while (reply := self._decoder.next_message()) is None:
                data = await self._stdout.receive_some(1 << 16)
                if not data:
                    raise ArenaError(f"a worker process died while playing {game.game_id}")
                self._decoder.feed(data)
        except (trio.BrokenResourceError, protocol.ProtocolError) as err:
            raise ArenaError(f"lost a worker process during {game.game_id}: {err}") from err
        result = GameResult.from_dict(reply["result"])
        return Played(result, reply["started_at"], reply["finished_at"], reply["replay"])

    def terminate(self) -> None:
        """Tell the worker to stop now (it abandons its game and kills its bots)."""
        with contextlib.suppress(ProcessLookupError):
            self._process.send_signal(signal.SIGTERM)

    async def aclose(self) -> None:
        """Close the worker's input (it ends after its game) and wait for it to exit."""
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            await self._stdin.aclose()
        with trio.move_on_after(30):
            await self._process.wait()
            return
        self._process.kill()
        await self._process.wait()


def eta(done: int, total: int, rate: float) -> str:
    """Time left, as 1h02m, 3m05s or 12s."""
    if rate <= 0 or done >= total:
        return "-"
    seconds = math.ceil((total - done) / rate)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}h{m:02d}m" if h else f"{m}m{s:02d}s" if m else f"{s}s"
