"""Bot processes on demand: start, handshake, reuse across games, replace after a fault."""

from __future__ import annotations

import contextlib
import errno
import logging
import os
from collections.abc import AsyncIterator, Sequence

import trio

from arena.bots import BotSpec, start_process
from arena.errors import BotCrashed, BotFault, MachineError, ManifestError, RefereeError
from arena.referee._clocks import Clocks
from arena.referee._connection import Connection
from arena.referee._game import GameResult, Shown, play_game
from arena.referee._ports import ClosedPort, PipePort
from arena.referee._session import BotSession
from arena.referee._settings import RunSettings
from arena.rules import GameConfig
from arena.sandbox import Wrap, wrap_for

_MACHINE_ERRNOS = frozenset(
    {errno.EAGAIN, errno.ENOMEM, errno.EMFILE, errno.ENFILE, errno.ENOSPC, errno.EDQUOT}
)
"""What a failed start of a bot's process says when the machine, not the bot, is short
of something: processes (a fork), memory, file descriptors, or disk for its private
folder. Charged to the bot as a crash, it would disqualify every bot in turn."""


REPORTED_GROUPS = 64
"""How many of an idle process's latest duplicate groups a worker reports (`warm`)."""


MAX_GROUPS = 10_000
"""The most duplicate groups a process plays: it remembers each (`BotSession.groups`), so
that it plays no other game of one, and one that played this many is replaced, as one
whose CPU time could run out is. Otherwise that memory grew with every game of a long
league of duplicate deals, for as long as the process lived (about 32 bytes a group)."""


class _Budget:
    """The bot processes alive among a set of pools, and their idle ones from least to
    most recently used: what `RunSettings.max_processes` closes first.

    A process counts from the moment its start is decided until it has exited: one
    closed to make room, after its game (`--fresh-process`, a fault) or before its CPU
    time could run out still counts while it takes its exit grace (a bot that ignores
    bye takes all of it, and then its kill grace), and a start waits for it to go."""

    def __init__(self, limit: int | None, nursery: trio.Nursery, clocks: Clocks) -> None:
        self.limit = limit
        self.alive = 0
        self.closed = 0
        """Idle processes closed to make room, so far."""
        self._idle: dict[BotSession, BotPool] = {}  # insertion order: least recent first
        self._closing = 0
        self._gone = trio.Event()  # set when a process closed to make room is gone
        self._nursery = nursery
        self._clocks = clocks

    def rested(self, session: BotSession, pool: BotPool) -> None:
        self._idle[session] = pool

    def woken(self, session: BotSession) -> None:
        self._idle.pop(session, None)

    async def make_room(self) -> None:
        """Close least recently used idle processes (in the background) and wait for them
        to go until one more may start. When every process is in a game, there is no
        room to make: the games in flight go past the limit."""
        if self.limit is None:
            return
        while self.alive >= self.limit:
            if self.alive - self._closing >= self.limit and self._idle:
                session, pool = next(iter(self._idle.items()))
                del self._idle[session]
                pool.evict(session)
                self.closed += 1
                self._closing += 1
                self._nursery.start_soon(self._close, session)
            elif self._closing:
                await self._gone.wait()
            else:
                return

    async def retire(self, session: BotSession) -> None:
        """Close a session that is not idle (a game gave it back, or it is worn out); it
        counts until it is gone."""
        self._closing += 1
        await self._close(session)

    async def _close(self, session: BotSession) -> None:
        try:
            with trio.CancelScope(shield=True):  # never left half-closed
                await session.close(self._clocks)
        finally:
            self.alive -= 1
            self._closing -= 1
            self._gone.set()
            self._gone = trio.Event()


class BotPool:
    """The processes of one bot: idle sessions are reused, broken ones replaced."""

    def __init__(
        self,
        spec: BotSpec,
        settings: RunSettings,
        nursery: trio.Nursery,
        budget: _Budget | None = None,
        wrap: Wrap | None = None,
    ) -> None:
        self.spec = spec
        self.settings = settings
        self._wrap = wrap
        """The wrap of `settings.sandbox` (`open_pools` builds it once for all its pools)."""
        self._nursery = nursery
        self._budget = budget or _Budget(settings.max_processes, nursery, settings.clocks)
        self._idle: list[BotSession] = []
        self._all: list[BotSession] = []
        self.started = 0
        """Processes started so far."""

    async def acquire(self, group: str | None = None) -> BotSession:
        """A session ready for a game of duplicate `group`: an idle healthy one that has
        played no game of that group, or a new process.

        A process never plays two games of one duplicate group: they replay one deal with
        the seats rotated, and a process would remember its earlier hand as an
        opponent's. A process that fails to start or to say hello gives a broken session
        (its `fault` says why): the referee then seats it out of the game at once.
        """
        for session in reversed(list(self._idle)):  # the most recently used first
            if session not in self._idle:
                continue  # taken while this task waited
            if self._spent(session):
                self._idle.remove(session)
                self._budget.woken(session)
                await self._retire(session)
            elif group is None or group not in session.groups:
                return self._take(session, group)
        session = await self._start()
        if group is not None:
            session.groups[group] = None
        return session

    def take_idle(self, group: str | None = None) -> BotSession | None:
        """`acquire`'s answer when it needs no wait (the usual case in a long league: an
        idle process ready for `group`, none to retire before it); else None, and
        nothing changed."""
        for session in reversed(self._idle):  # the most recently used first
            if self._spent(session):
                return None  # to retire first: `acquire`'s to do
            if group is None or group not in session.groups:
                return self._take(session, group)
        return None

    def _spent(self, session: BotSession) -> bool:
        """An idle session to retire rather than reuse: broken, near its CPU limit (it
        is replaced before the limit could cut a game short), or at `MAX_GROUPS`."""
        return (
            session.broken
            or (
                session.process is not None
                and session.process.cpu_worn(self.settings.limits.cpu_seconds)
            )
            or len(session.groups) >= MAX_GROUPS
        )

    def _take(self, session: BotSession, group: str | None) -> BotSession:
        """Take idle `session` for a game of `group`, the group noted. It stays stopped
        until its game writes its game_start (SPEC §8.5): the game may first wait for
        another seat's process to start."""
        self._idle.remove(session)
        self._budget.woken(session)
        if group is not None:
            session.groups[group] = None
        return session

    def keep(self, session: BotSession) -> bool:
        """`release`'s work when it needs no wait: keep `session` for reuse if it may be
        (True), else leave it to `release` (False, nothing changed)."""
        if session.broken or self.settings.fresh_process:
            return False
        session.pause()  # an idle process gets no CPU time until its next game
        self._idle.append(session)
        self._budget.rested(session, self)
        return True

    async def release(self, session: BotSession) -> None:
        """Give a session back after a game: kept for reuse, or closed."""
        if not self.keep(session):
            await self._retire(session)

    def warm(self) -> list[tuple[str, ...]]:
        """The latest duplicate groups (`REPORTED_GROUPS` at most, sorted) each idle
        process played, least recently used process first: what a worker reports it
        holds (`arena.messages.Warm`). Only the latest: a report listing every group
        would grow with the league, on every result (a process may play thousands of
        games), and the groups a league still hands out are the recent ones. `acquire`
        itself never gives a process a game of a group it played, whatever was reported."""
        return [session.latest(REPORTED_GROUPS) for session in self._idle]

    def evict(self, session: BotSession) -> None:
        """Forget an idle session the budget closes to make room (it stays counted as
        alive until it is gone)."""
        self._idle.remove(session)
        self._all.remove(session)

    async def _retire(self, session: BotSession) -> None:
        """Close `session` for good; a process counts against the limit until it is gone."""
        if session in self._all:
            self._all.remove(session)
            await self._budget.retire(session)
        else:  # a process that never started: nothing counts it
            await session.close(self.settings.clocks)

    async def _start(self) -> BotSession:
        settings = self.settings
        log = settings.log_dir / f"{self.spec.name}.log" if settings.log_dir is not None else None
        self.check_folder()
        self.started += 1
        await self._budget.make_room()
        self._budget.alive += 1  # counted from now, so that a start at the same time sees it
        try:
            process = await start_process(
                self.spec, self._nursery, limits=settings.limits, log_path=log, wrap=self._wrap
            )
        except BaseException as err:
            self._budget.alive -= 1
            if isinstance(err, OSError) and err.errno in _MACHINE_ERRNOS:
                raise MachineError.charging_no_bot(
                    f"cannot start a process of {self.spec.name}: {err.strerror}"
                ) from None
            if not isinstance(err, (OSError, ManifestError)):
                raise
            self.check_folder()  # gone since the check above
            session = BotSession(self.spec.name, Connection(ClosedPort()))
            session.fault = BotCrashed(f"could not start {' '.join(self.spec.command)}: {err}")
            return session
        session = BotSession(
            self.spec.name,
            Connection(PipePort(process.stream), max_frame=settings.max_frame),
            process=process,
        )
        self._all.append(session)
        try:
            await session.handshake(settings.clocks, settings.max_frame)
        except BotFault as fault:
            await session.kill(fault, settings.clocks.kill_grace_ms / 1000)
            self.check_folder()  # a bot whose folder went as it started cannot answer
        return session

    def check_folder(self) -> None:
        """Raise `MachineError` if the bot's submission folder is gone (moved, renamed or
        removed by the organiser while the games run): its process could not start, or
        not read its files, and each game charged to it as a fault would disqualify it
        for what it did not do."""
        folder = self.spec.folder
        if folder is not None and not os.path.isdir(folder):
            raise MachineError(
                f"the submission folder {folder} of {self.spec.name} is gone (moved, renamed"
                " or removed while the games ran), so its processes can neither start nor"
                " read their files; nothing is charged to it: put the folder back and run"
                " the same command again (a league or an SPRT resumes where it stopped)"
            )

    async def aclose(self) -> None:
        """Close every session of this bot (bye, exit grace, kill what is left)."""
        sessions, self._all, self._idle = self._all, [], []
        for session in sessions:
            self._budget.woken(session)
        self._budget.alive -= len(sessions)
        with trio.CancelScope(shield=True):
            async with trio.open_nursery() as nursery:
                for session in sessions:
                    nursery.start_soon(session.close, self.settings.clocks)


STALL_TRIES = 3
"""How often a game the referee failed (`RefereeError`) is played in all before the
error stops the run (a league is then resumed as after any stop)."""

_log = logging.getLogger("arena.referee")


async def play_seated(
    pools: Sequence[BotPool],
    config: GameConfig,
    seed: int,
    *,
    clocks: Clocks,
    game_id: str,
    group: str | None = None,
    shown: Shown | None = None,
) -> GameResult:
    """Play one game with a session from each pool (seat i from pools[i]); with a
    duplicate `group`, no session that played a game of that group (see `acquire`);
    with `shown`, the game id and names the bots see (`play_game`).

    The seats' processes start (when they must) at the same time. The sessions go
    back to their pools afterwards; if the game is abandoned (cancelled), they are
    killed instead of being reused.

    A game the referee fails of its own accord (`RefereeError`: it made no progress)
    charges no bot: its processes are killed, the error is logged, and the game is
    played again from its start with new ones, `STALL_TRIES` times in all.
    """
    for attempt in range(1, STALL_TRIES + 1):
        try:
            return await _play_seated(pools, config, seed, clocks, game_id, group, shown)
        except RefereeError as err:
            if attempt == STALL_TRIES:
                raise RefereeError(
                    f"{err} (failed {STALL_TRIES} times in a row; nothing is charged to a"
                    " bot: run the same command again to resume)"
                ) from err
            _log.error(
                "arena: %s; nothing is charged to a bot, and %s is played again (try %d of %d)",
                err, game_id, attempt + 1, STALL_TRIES,
            )  # fmt: skip
    raise AssertionError("unreachable")


async def _play_seated(
    pools: Sequence[BotPool],
    config: GameConfig,
    seed: int,
    clocks: Clocks,
    game_id: str,
    group: str | None,
    shown: Shown | None,
) -> GameResult:
    """One try of `play_seated`."""
    sessions: list[BotSession | None] = [None] * len(pools)
    result: GameResult | None = None

    async def acquire(seat: int) -> None:
        session = sessions[seat] = await pools[seat].acquire(group)
        if not session.broken:
            session.pause()  # a new process waits for the others stopped, as an idle one

    async def give_back(pool: BotPool, session: BotSession) -> None:
        if result is None:
            await session.kill(BotCrashed("game abandoned"), 0.1)
        await pool.release(session)

    try:
        # Processes ready at once are taken at once; the others (to start, or after one
        # to retire) all at the same time. Each stays stopped until its game_start
        # (SPEC §8.5): a start-up may take seconds, and no bot computes meanwhile.
        for seat, pool in enumerate(pools):
            sessions[seat] = pool.take_idle(group)
        if None in sessions:
            async with trio.open_nursery() as nursery:
                for seat in range(len(pools)):
                    if sessions[seat] is None:
                        nursery.start_soon(acquire, seat)
        seated = [s for s in sessions if s is not None]
        played = await play_game(seated, config, seed, clocks=clocks, game_id=game_id, shown=shown)
        for fault in played.faults:
            # A fault of a bot whose folder went in the middle of the game (its files
            # gone under it) is not stored: the game is played again on resume.
            pools[fault.seat].check_folder()
        result = played
        return result
    finally:
        back = [
            (pool, session)
            for pool, session in zip(pools, sessions, strict=True)
            if session is not None and not (result is not None and pool.keep(session))
        ]
        if back:
            with trio.CancelScope(shield=True):
                async with trio.open_nursery() as nursery:
                    for pool, session in back:
                        nursery.start_soon(give_back, pool, session)


@contextlib.asynccontextmanager
async def open_pools(
    specs: Sequence[BotSpec], settings: RunSettings, *, wrap: Wrap | None = None
) -> AsyncIterator[dict[str, BotPool]]:
    """A BotPool per bot, by name; on the way out every one of their processes is closed
    (bye, exit grace, kill), also when the block is cancelled. The bots run in the
    sandbox `settings.sandbox` names, or under `wrap` if one is given (a sandbox with
    a smaller private /tmp, in tests)."""
    wrap = wrap or wrap_for(settings.sandbox)
    async with trio.open_nursery() as nursery:
        budget = _Budget(settings.max_processes, nursery, settings.clocks)
        pools = {spec.name: BotPool(spec, settings, nursery, budget, wrap) for spec in specs}
        try:
            yield pools
        finally:
            with trio.CancelScope(shield=True):
                async with trio.open_nursery() as nursery:
                    for pool in pools.values():
                        nursery.start_soon(pool.aclose)
        nursery.cancel_scope.cancel()  # the stderr readers of processes now gone
