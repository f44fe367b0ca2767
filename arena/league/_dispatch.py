"""Handing out the games so that bot processes are reused (`Dispatch`)."""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
from collections.abc import Collection, Sequence

from arena.schedule import ScheduledGame


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
