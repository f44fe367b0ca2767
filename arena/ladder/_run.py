"""The ladder at work: submissions taken in, built, checked and made active
(`Intake`), and the games between the active versions (`Ladder.play`).

Everything the ladder does is in its store first: an upload is written to disk and its
submission recorded before the server answers; a table is recorded before its first
game; a game is recorded as it finishes (`arena.store`). A ladder killed at any moment
(SIGKILL included) therefore starts again where it was: the submissions that were
being built or checked are built and checked again from their uploads, the tables
begun are played to their end, and nothing recorded is lost.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import random
import re
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import trio

from arena._declared import about
from arena.bots import BotSpec, BuildSettings, Limits, build, load_manifest, resolve_command
from arena.checker import check_bot, conforms, report
from arena.cluster._bundles import BundleError, UploadCaps, unpack_upload
from arena.errors import ArenaError, BotError, BuildError, InputError
from arena.ladder._cluster import ClusterLink
from arena.ladder._db import LadderDB, Submission, mark_ladder
from arena.ladder._select import Rated, choose_table, rate_active, without
from arena.messages import Play, Played, Setup
from arena.referee import Clocks, RunSettings, Settings
from arena.rules import GameConfig, keyed_seed
from arena.runners import GameRunner, Player, runner_for
from arena.sandbox import bwrap_wrap
from arena.seeds import made_up_names
from arena.store import Store

OUTPUT_KEEP = 64 * 1024
"""The most of a build's or check's output kept for its author (the end of it)."""


@dataclasses.dataclass(frozen=True)
class LadderSettings:
    """How a ladder runs."""

    store: Path
    table_size: int = 4
    concurrency: int = 1
    """Tables played at once (worker processes past 1)."""
    game: GameConfig = GameConfig()  # noqa: RUF009 (frozen)
    clocks: Clocks = Clocks()
    limits: Limits = Limits()
    build_timeout: float = 600.0
    fault_limit: int = 5
    """Faults in a row after which a version stops playing (it is marked failed)."""
    caps: UploadCaps = UploadCaps()  # noqa: RUF009 (frozen)
    max_upload_mb: float = 16.0
    submissions_per_hour: int = 6
    bots_per_author: int = dataclasses.field(
        default=1,
        metadata=about(
            "Bots (names) an author may have in play at once (0: any number). A new"
            " version of one of them replaces it; a new name past the limit is refused."
            " One bot can recognise another at its table by how it plays and throw its"
            " games to it: one bot per author leaves that to authors who collude."
        ),
    )
    top: int = 10
    """The places that matter most (the table choice weighs them up)."""
    cluster: str | None = None
    """A Dask scheduler's address: the games run there (`arena.cluster`)."""
    cluster_retry: float = 30.0
    """Seconds between tries to reach the cluster again once it failed (`serve`)."""
    duplicate: bool = dataclasses.field(
        default=False,
        metadata=about(
            "Duplicate deals: each table one deal, replayed in every seat rotation (less"
            " luck in the ratings). Off by default: a bot can carry an opponent's hand from"
            " one game of a deal into the next through the kernel's page cache, so only"
            " between bots you trust, which a ladder's authors seldom are."
        ),
    )

    @property
    def folder(self) -> Path:
        """Where the ladder keeps its files: uploads, bots, build output, logs."""
        return self.store.with_name(self.store.name + ".ladder")

    @property
    def uploads(self) -> Path:
        return self.folder / "uploads"

    @property
    def bots(self) -> Path:
        return self.folder / "bots"

    @property
    def builds(self) -> Path:
        return self.folder / "builds"

    @property
    def logs(self) -> Path:
        return self.folder / "logs"

    def make_folders(self) -> None:
        """Make the ladder's folders beside its store; InputError if one cannot be made
        (a file of the folder's name, a folder that cannot be written)."""
        try:
            for folder in (self.uploads, self.bots, self.builds, self.logs):
                folder.mkdir(parents=True, exist_ok=True)
            os.chmod(self.bots, 0o755)
        except OSError as err:
            raise InputError(
                f"{self.folder}: cannot make the ladder's folders beside its store:"
                f" {err.strerror or err}"
            ) from None


def _tail(text: str, limit: int = OUTPUT_KEEP) -> str:
    return text if len(text) <= limit else "[...]\n" + text[-limit:]


def spec_of(settings: LadderSettings, submission: Submission) -> BotSpec:
    """The bot of an unpacked submission, under its version's name."""
    spec = load_manifest(settings.bots / submission.id)
    return dataclasses.replace(spec, name=submission.bot)


class Ladder:
    """A running ladder: its store (open to write), its tables, its ratings."""

    def __init__(
        self,
        settings: LadderSettings,
        store: Store,
        db: LadderDB,
        say: Callable[[str], None] = lambda text: None,
        runner: Callable[[], GameRunner] | None = None,
        reader: Store | None = None,
    ) -> None:
        """`reader`: the store opened read-only again, for the fits made in a worker
        thread (`_refit`); without it they are made on the event loop."""
        self.settings = settings
        self.store = store
        self.db = db
        self.say = say
        self._runner = runner
        ladder = mark_ladder(store, settings.table_size)
        self.seed = str(ladder["seed"])
        self.changed = trio.Event()
        """Set when the active versions change: the games' runner is opened again."""
        self.queue_send, self.queue_receive = trio.open_memory_channel[str](math.inf)
        self.rated: Rated | None = None
        self.games_played = 0
        self.idle = trio.Event()
        """Set whenever no table is in play and none can be (for tests and settle)."""
        self._specs: dict[str, BotSpec] = {}
        self._active: dict[str, Submission] = {}
        self._tables: dict[str, int] = {}
        self._claimed: dict[int, tuple[str, ...]] = {}
        """The tables in play, by number."""
        self._table_ended = trio.Event()
        """Set (and made anew) whenever a table in play ends."""
        self._ended: list[frozenset[str]] = []
        """The bots of each table that ended since a table was last chosen."""
        self._streaks: dict[str, int] = dict(store.fault_streaks())
        self._rng = random.Random()
        self._done: set[str] = store.done_game_ids()
        self._pending = [
            table
            for table in db.tables_since(0)
            if any(_game_id(table[0], r) not in self._done for r in range(len(table[1])))
        ]
        """Tables begun and not finished (by a ladder killed meanwhile), played first."""
        self._last_fit = (-1.0, -1)
        self._reader = reader
        self._fitting = trio.Lock()
        self._fits = 0
        """Counts the fits `_rate` made: a refit in a thread begun before one is stale."""
        self.settling: int | None = None
        """With `settle`, the top places that must be separated; None: play on."""
        self.budget: int | None = None
        """With `settle`, the most games still to play."""
        self.settled = trio.Event()
        self.cluster: ClusterLink | None = None
        """With `serve --cluster`, the link to the cluster the games run on."""
        self.serving = False
        """In `serve`: no error of a game or a version ends `play` (it says why, waits
        `cluster_retry` seconds and plays on); elsewhere (settle, tests) it raises."""
        self._load_active()

    # ------------------------------------------------------------------ intake

    def waiting(self) -> list[str]:
        """Submissions still to build or check, oldest first (those a killed ladder left
        half done among them)."""
        return [
            s.id for s in self.db.submissions() if s.state in ("received", "building", "checking")
        ]

    async def intake(self) -> None:
        """Build and check the submissions one at a time, as they come, forever."""
        for sid in self.waiting():
            self.queue_send.send_nowait(sid)
        async for sid in self.queue_receive:
            await self.process(sid)

    async def process(self, sid: str) -> None:
        """Build `sid` in the sandbox, run check-bot on it (in the sandbox), and make it
        active if it passes, failed otherwise."""
        submission = self.db.submission(sid)
        if submission is None or submission.state not in ("received", "building", "checking"):
            return
        settings = self.settings
        folder = settings.bots / sid
        self.db.set_state(sid, "building")
        self.say(f"{sid}: building {submission.bot} (author {submission.author})")
        log = settings.builds / f"{sid}.log"
        with contextlib.suppress(FileNotFoundError):
            log.unlink()
        try:
            shutil.rmtree(folder, ignore_errors=True)  # a killed build starts afresh
            upload = (settings.uploads / f"{sid}.tar.gz").read_bytes()
            unpack_upload(upload, folder, settings.caps)
            spec = spec_of(settings, submission)
            await trio.to_thread.run_sync(self._build, spec, log)
        except (BotError, BundleError, OSError) as err:
            output = _read(log)
            reason = str(err)
            if isinstance(err, BuildError):  # its output (and why) for its author only
                reason = f"build failed: {_public(reason)}"
                output = f"{output}\nbuild failed: {err}"
            self.db.set_state(sid, "failed", reason, _tail(output))
            self.say(f"{sid}: failed: {reason}")
            return
        output = _read(log)
        self.db.set_state(sid, "checking", output=_tail(output))
        self.say(f"{sid}: checking {submission.bot}")
        try:
            wrap = bwrap_wrap()  # (a ladder runs every bot in the sandbox)
            wrap(resolve_command(spec.command, spec.folder), Path("/tmp/arena-check"), spec.folder)
            checks = await check_bot(
                spec, clocks=settings.clocks, limits=settings.limits, wrap=wrap
            )
        except ArenaError as err:
            self.db.set_state(sid, "failed", f"cannot run: {err}", _tail(output))
            self.say(f"{sid}: failed: {err}")
            return
        lines = "\n".join(report(spec.command, checks))
        output = _tail(f"{output}\n{lines}" if output else lines)
        if not conforms(checks):
            failed = sum(1 for c in checks if not c.ok)
            reason = f"check-bot: {failed} of {len(checks)} checks failed"
            self.db.set_state(sid, "failed", reason, output)
            self.say(f"{sid}: failed: {reason}")
            return
        try:
            digest = spec.digest()
        except BotError as err:
            self.db.set_state(sid, "failed", str(err), output)
            return
        if not await self._built_where_played(sid, spec, output):
            return
        self.store.sync_bots([(spec.name, " ".join(spec.command), digest)])
        self.store.set_bot_status(spec.name, "ok", "")
        retired = self.db.activate(sid, output)
        for old in retired:
            self.store.set_bot_status(old.bot, "retired", f"{submission.bot} replaced it")
        self.say(
            f"{sid}: {submission.bot} is active"
            + (f" ({', '.join(r.bot for r in retired)} retired)" if retired else "")
        )
        self._load_active()

    async def _built_where_played(self, sid: str, spec: BotSpec, output: str) -> bool:
        """Build `spec` where the games run, when that is elsewhere (a cluster): a build
        that passed here can fail on a worker (its folder is named by a digest there, a
        toolchain is missing), and the version is then failed, with why, before it is
        ever active. A cluster that fails (its scheduler lost) is waited for."""
        while True:
            runner = await self._game_runner()
            try:
                check = await runner.build_bots([spec], self._cluster_config())
                if check is not None:
                    check(spec)
                return True
            except BotError as err:
                reason = f"build failed on the cluster: {_without_name(spec.name, err)}"
            except ArenaError as err:
                link = self.cluster
                if link is None:
                    raise
                if link.healthy(runner):  # the cluster works: this version cannot run there
                    reason = f"cannot be built on the cluster: {err}"
                else:
                    self.say(f"{sid}: waiting for the cluster ({err})")
                    link.lost(runner)
                    continue
            self.db.set_state(sid, "failed", _public(reason), _tail(f"{output}\n{reason}"))
            self.say(f"{sid}: failed: {reason}")
            return False

    def _build(self, spec: BotSpec, log: Path) -> None:
        settings = self.settings
        build(
            spec,
            sandbox="bwrap",
            timeout=settings.build_timeout,
            log_path=log,
            log_kb=settings.limits.stderr_kb,
            rebuild=True,
        )

    # ------------------------------------------------------------------ the games

    def _load_active(self) -> None:
        active = {s.bot: s for s in self.db.submissions("active")}
        for bot, submission in active.items():
            if bot not in self._specs:
                try:
                    self._specs[bot] = spec_of(self.settings, submission)
                except BotError as err:  # its folder gone: built again from its upload
                    self.say(f"{submission.id}: {err}; built again")
                    self.db.set_state(submission.id, "received")
                    self.queue_send.send_nowait(submission.id)
        active = {b: s for b, s in active.items() if b in self._specs}
        if set(active) != set(self._active):
            self._active = active
            self.changed.set()
        self._rate()

    def active(self) -> dict[str, Submission]:
        return dict(self._active)

    def _rate(self) -> None:
        """Refit the ratings of the active versions on every game they played (warm
        started at the last fit), now, on the event loop: when the active versions
        change (rarely). As the games come, `_refit` does it in a worker thread."""
        self._fits += 1  # a refit under way is of other versions: its result is dropped
        self._last_fit = (time.monotonic(), len(self._done))
        start = self.rated.theta if self.rated is not None else None
        self.rated, self.games_played = rate_active(
            self.store.result_columns(), set(self._active), start
        )
        if not self._tables:
            for _, seats, _ in self.db.tables_since(0):
                for name in seats:
                    self._tables[name] = self._tables.get(name, 0) + 1

    async def _refit(self, *, now: bool = False) -> None:
        """`_rate`, as the games come, in a worker thread on a connection of its own (a
        fit reads every game: 0.3 s for 20,000, which on the event loop held up the
        games' results and every page). Unless `now`, only once 2% more games are
        played or two seconds have passed since the last fit, and not while another
        runs; with `now` (settling: after every table) it waits for the one under way,
        then fits."""
        at, count = self._last_fit
        due = len(self._done) - count >= max(1, count // 50) or time.monotonic() - at >= 2.0
        if not now and (not due or self._fitting.locked()):
            return
        async with self._fitting:
            self._last_fit = (time.monotonic(), len(self._done))
            fits, names = self._fits, set(self._active)
            start = self.rated.theta if self.rated is not None else None
            reader = self._reader
            if reader is None:  # (a ladder made without one: tests)
                self._rate()
                return

            def fit() -> tuple[Rated, int]:
                return rate_active(reader.result_columns(), names, start)

            rated, games = await trio.to_thread.run_sync(fit)
            if fits == self._fits:  # the active versions are those it fitted
                self.rated, self.games_played = rated, games

    async def play(self) -> None:
        """Play tables between the active versions, forever (or, settling, until the top
        is separated or the budget spent); the runner is opened again whenever the
        active versions change."""
        while not self.settled.is_set():
            names = sorted(self._active)
            if len(names) < 2:
                self.idle.set()
                await self.changed.wait()
                continue
            self.changed = trio.Event()
            k = min(self.settings.table_size, len(names))
            specs = tuple(self._specs[n] for n in names)
            run = RunSettings(
                clocks=self.settings.clocks,
                limits=self.settings.limits,
                log_dir=self.settings.logs,
                max_processes=8 * k * max(1, self.settings.concurrency),
                sandbox="bwrap",
            )
            setup = Setup(
                bots=specs,
                settings=run,
                config=dataclasses.replace(self.settings.game, players=k),
            )
            runner = await self._game_runner()
            if not self.serving:
                await self._round(runner, specs, setup, k, set(names))
                continue
            failure: BaseException | None = None
            try:
                await self._round(runner, specs, setup, k, set(names))
            except* ArenaError as group:
                failure = _first(group)
            if failure is not None:  # (no error of a game or a version ends the server)
                self.say(
                    f"games stopped: {failure}; playing again in {self.settings.cluster_retry:g} s"
                )
                if self.cluster is not None:
                    self.cluster.lost(runner)
                await trio.sleep(self.settings.cluster_retry)

    async def _round(
        self, runner: GameRunner, specs: tuple[BotSpec, ...], setup: Setup, k: int,
        names: set[str],
    ) -> None:  # fmt: skip
        """The tables of one set of active versions, until it changes: built where the
        games run first (a cluster's: a version whose build fails there is failed, with
        why, and the active versions change)."""
        check = await runner.build_bots(list(specs), self._cluster_config())
        if check is not None and self._failed_there(specs, check):
            return
        async with runner.players(setup) as players, trio.open_nursery() as nursery:
            for player in players[: max(1, self.settings.concurrency)]:
                nursery.start_soon(self._drive, player, k, names)

    def _failed_there(self, specs: tuple[BotSpec, ...], check: Callable[[BotSpec], None]) -> bool:
        """Fail the active versions whose build failed where the games run; whether any."""
        failed = False
        for spec in specs:
            try:
                check(spec)
            except BotError as err:
                submission = self._active.get(spec.name)
                if submission is None:
                    continue
                reason = f"build failed on the cluster: {_without_name(spec.name, err)}"
                self.db.set_state(submission.id, "failed", _public(reason), _tail(reason))
                self.store.set_bot_status(spec.name, "build_failed", reason)
                self.say(f"{submission.id}: {spec.name} stops playing: {reason}")
                failed = True
        if failed:
            self._load_active()
        return failed

    async def _game_runner(self) -> GameRunner:
        if self.cluster is not None:
            return await self.cluster.get()
        return self._make_runner()

    def _make_runner(self) -> GameRunner:
        if self._runner is not None:
            return self._runner()
        concurrency = self.settings.concurrency
        return runner_for(concurrency, max(1, concurrency))

    def _cluster_config(self) -> Settings:
        from arena.league import LeagueConfig

        return LeagueConfig(
            bots=self.settings.bots,
            store=self.settings.store,
            game=self.settings.game,
            run=RunSettings(sandbox="bwrap"),
            build=BuildSettings(build_timeout=self.settings.build_timeout),
        )

    async def _drive(self, player: Player, k: int, names: set[str]) -> None:
        while not self.changed.is_set() and not self.settled.is_set():
            if self._waits(k, names):
                await self._table_ended.wait()
                continue
            table = self._next_table(k, names)
            if table is None:
                self.idle.set()
                await self.changed.wait()
                return
            self.idle = trio.Event()
            number, seats, seed = table
            try:
                await self._play_table(player, number, seats, seed)
            finally:
                self._claimed.pop(number, None)
                self._ended.append(frozenset(seats))
                self._table_ended.set()
                self._table_ended = trio.Event()
                if any(_game_id(number, r) not in self._done for r in range(len(seats))):
                    self._pending.append(table)  # stopped midway: finished when play goes on
            self._follow()
            await self._refit(now=self.settling is not None)
            self._check_settled()

    def _follow(self) -> None:
        """Follow a version retired from outside (`arena ladder withdraw`, in another
        process): it stops playing after the table in play, its games kept."""
        gone = set(self._active) - self.db.active_bots()
        if gone:
            for name in sorted(gone):
                self.say(f"{self._active[name].id}: {name} withdrawn")
            self._load_active()

    def _waits(self, k: int, names: set[str]) -> bool:
        """Whether a table driver waits for a table in play to end before it takes one.
        Tables at once share no bot: with fewer than k bots free there is no table to
        take (choosing among all bots sat one at two tables at once). With exactly the k
        bots of a table that has just ended, that table would be played again, forced,
        and again each time it ended first: at 4 bots, tables of 2 and `-j 2` the first
        two tables were played over and over, their bots never meeting the others'.
        Once another table ends, there is a choice."""
        if not self._claimed:
            return False
        free = names - self._in_play()
        return len(free) < k or (len(free) == k and free in self._ended)

    def _in_play(self) -> set[str]:
        """The bots at the tables in play."""
        return {name for seats in self._claimed.values() for name in seats}

    def _next_table(self, k: int, names: set[str]) -> tuple[int, tuple[str, ...], int] | None:
        """A table begun and not finished (a killed ladder's), else a new one, of bots
        at no table in play (the caller sees that k of `names` are free)."""
        if self.budget is not None and self.games_played >= self.budget:
            self._settle()
            return None
        claimed = self._in_play()
        for table in self._pending:
            number, seats, seed = table
            if number in self._claimed or not set(seats) <= names - claimed or len(seats) != k:
                continue
            self._pending.remove(table)
            self._claimed[number] = seats
            return table
        if self.rated is None:
            return None
        rated = self.rated
        if claimed:  # tables at once share no bot
            rated = without(rated, claimed)
        seats, why = choose_table(rated, k, self._tables, self._rng, top=self._top())
        seats = tuple(self._rng.sample(seats, len(seats)))
        count = self.db.table_count()
        seed = keyed_seed(self.seed, "ladder-deal", count + 1)
        number = self.db.add_table(seats, seed, why)
        self._ended.clear()
        for name in seats:
            self._tables[name] = self._tables.get(name, 0) + 1
        self._claimed[number] = seats
        return number, seats, seed

    def _top(self) -> int:
        return self.settling if self.settling is not None else self.settings.top

    async def _play_table(
        self, player: Player, number: int, seats: tuple[str, ...], seed: int
    ) -> None:
        """A game in every seat rotation, one after another: each of a deal of its own
        (`deal_of`), or with `duplicate` all of the table's deal (one duplicate group).
        A table begun before a restart is finished as it was begun, whatever the
        setting now (a duplicate group left short would keep its replays withheld)."""
        k = len(seats)
        duplicate = self.settings.duplicate
        begun = [_game_id(number, r) for r in range(k) if _game_id(number, r) in self._done]
        if begun:
            duplicate = self.store.group_of(begun[0]) is not None
        group = f"t{number:06d}" if duplicate else None
        for r in range(k):
            game_id = _game_id(number, r)
            if game_id in self._done:
                continue
            rotated = seats[r:] + seats[:r]
            deal = seed if duplicate else deal_of(self.seed, number, r)
            shown = blind(self.seed, number, r, k)
            played = await player(Play(game_id, rotated, deal, group, shown))
            self._record(number * 6 + r, group, played)

    def _record(self, index: int, group: str | None, played: Played) -> None:
        result = played.result
        faulted = {result.names[f.seat] for f in result.faults}
        for name in result.names:
            self._streaks[name] = self._streaks.get(name, 0) + 1 if name in faulted else 0
        self.store.record_game(
            result, index=index, group=group, started_at=played.started,
            finished_at=played.finished, replay=played.replay, streaks=self._streaks,
        )  # fmt: skip
        self._done.add(result.game_id)
        self.games_played += 1
        limit = self.settings.fault_limit
        for name in result.names:
            if limit and self._streaks.get(name, 0) >= limit and name in self._active:
                submission = self._active[name]
                reason = f"{self._streaks[name]} faults in a row in its games"
                self.db.set_state(submission.id, "failed", reason)
                self.store.set_bot_status(name, "disqualified", reason)
                self.say(f"{submission.id}: {name} stops playing: {reason}")
                self._load_active()

    def _check_settled(self) -> None:
        if self.settling is None or self.rated is None:
            return
        if self.rated.separated(self.settling) and self.games_played > 0:
            self._settle()

    def _settle(self) -> None:
        """Settled (the top separated, or the budget spent): `changed` is set with
        `settled`, so that every table's driver and `play`, whichever waits for a change
        now, wakes and ends (waiting for `changed` alone, settle never ended once its
        budget was spent with the top unseparated)."""
        self.settled.set()
        self.changed.set()


def _first(group: BaseException) -> BaseException:
    """The first error of a (nested) exception group, or the error itself."""
    while isinstance(group, BaseExceptionGroup) and group.exceptions:
        group = group.exceptions[0]
    return group


_QUOTED_OUTPUT = re.compile(
    r"(build exited with status -?\d+)(?: \(the whole output: .*?\))?: .*", re.S
)


def _public(reason: str) -> str:
    """A failed build's `reason` as everyone sees it (a submission's page and state are
    public): without the end of the build's output that a BuildError quotes, which can
    quote its author's source (a compiler's error shows the line), nor the path of its
    log on the server. Its author sees both, in the submission's output."""
    return _QUOTED_OUTPUT.sub(r"\1 (its output: for its author)", reason)


def _without_name(name: str, err: Exception) -> str:
    text = str(err)
    return text[len(name) + 2 :] if text.startswith(f"{name}: ") else text


def _game_id(table: int, rotation: int) -> str:
    return f"t{table:06d}-r{rotation}"


def deal_of(secret: str, table: int, rotation: int) -> int:
    """The seed of the game of `table` in seat `rotation`, without duplicate deals: one
    of its own, from the ladder's secret seed (a table begun before a kill is finished
    with the same deals)."""
    return keyed_seed(secret, "ladder-game", table, rotation)


def blind(secret: str, table: int, rotation: int, k: int) -> tuple[str, tuple[str, ...]]:
    """The game id and the seats' names the bots of a game see (SPEC §5.2), as in an
    SPRT: made up afresh for every game from the ladder's secret seed, so that a bot
    cannot tell who sits at its table (a sibling to throw its games to, a strong bot to
    crash against) nor follow a bot from game to game; results and replays keep the real
    ones. A table begun before a kill is finished under the same made-up names."""
    game = f"g{keyed_seed(secret, 'ladder-game-id', table, rotation):016x}"[:13]
    return game, made_up_names(secret, "ladder-names", k, table, rotation)


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


@dataclasses.dataclass(frozen=True)
class Judged:
    """An upload that passed: its bot's name, its digest, and the upload kept on disk."""

    name: str
    digest: str
    kept: Path


def judge_upload(settings: LadderSettings, body: bytes) -> Judged:
    """Judge an upload (already within the size cap), in any thread: unpack it into a
    fresh folder with the caps, read its bot.toml, digest it, then keep the upload
    (written and synced) for `admit`. Raises BundleError or BotError (ManifestError);
    nothing is kept then."""
    incoming = settings.folder / "incoming"
    incoming.mkdir(parents=True, exist_ok=True)
    stem = f"{os.getpid()}-{time.monotonic_ns()}-{random.getrandbits(32):08x}"
    folder = incoming / stem
    try:
        unpack_upload(body, folder, settings.caps)
        spec = load_manifest(folder)
        digest = spec.digest()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    kept = incoming / f"{stem}.tar.gz"
    with open(kept, "wb") as file:
        file.write(body)
        file.flush()
        os.fsync(file.fileno())
    return Judged(spec.name, digest, kept)


def admit(settings: LadderSettings, db: LadderDB, author: str, judged: Judged) -> Submission:
    """Record a judged upload as `author`'s submission ("received") and move its upload
    into place. InputError for a name of another author (the upload is dropped)."""
    try:
        submission = db.add_submission(author, judged.name, judged.digest, settings.bots_per_author)
    except BaseException:
        judged.kept.unlink(missing_ok=True)
        raise
    os.replace(judged.kept, settings.uploads / f"{submission.id}.tar.gz")
    return submission
