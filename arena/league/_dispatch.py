"""Handing out the games so that bot processes are reused (`Dispatch`)."""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
from collections.abc import Collection, Iterator, Sequence

from arena.messages import Warm
from arena.schedule import ScheduledGame


class Dispatch:
    """Hands out the games to play so that bot processes are reused as much as the
    schedule allows.

    The games go in *units*: without duplicate deals a table's games, with them one
    rotation of a table (its game in each of the table's deals). A player gets a unit's
    games back to back. It then gets, of the units that share a bot with that one, the
    unit with the most bots that have a process able to play it among those its worker
    holds warm, as the worker said with its last result (`report`, from
    `arena.messages.Played.warm`); with none, the first unit left in the schedule's
    order, rotation 0 of every table before rotation 1 of any. When every unit is
    handed out, a player with nothing left takes over the last half of the longest
    queue, so that no slot idles while another has games waiting.

    With duplicate deals a process never plays two games of one duplicate group
    (`arena.referee.BotPool.acquire`), so it plays one rotation of a table at most;
    the units are rotations so that one process of a bot can play one rotation of
    each of many tables, as with single deals. (A table's rotations back to back need
    a table's size of processes of each of its bots at once, each playing one game
    per deal: far fewer bots fit under the cap, and far fewer processes are reused.)

    The order decides which processes play a game, never its seats or its deal. Nor
    which games a bot forfeits once disqualified: faults in a row are counted in one
    order, `fault_order`, the order one player of a `Dispatch` made without `reports`
    is handed the games. That order must not change with the games played already
    (`done`: a resumed league at a concurrency of 1 plays on in the order it would have
    without the interruption, and so replaces no game it played by a forfeit), nor
    with what a worker holds (a resumed one starts with nothing warm, a crashed process
    is gone). So a `Dispatch` made without `reports` takes each player's worker to hold
    the processes of the unit it played last, as they were then (the processes the
    worker would report had it closed none and lost none), and ignores what workers
    report.
    """

    def __init__(
        self, games: Sequence[ScheduledGame], done: Collection[str] = (), *, reports: bool = True
    ) -> None:
        """`games`: the whole schedule; `done`: the ids of the games played already (a
        resume), never handed out: the first player goes on from where one player
        handing out every game in turn would be once past them; `reports`: follow what
        the workers report (see the class docstring)."""
        self._reports = reports
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
        self._slots: dict[object, _Slot] = {}
        self._resumed = self._skip({g.game_id for g in games}.intersection(done))

    def next(self, player: object) -> ScheduledGame | None:
        """The next game for `player`, or None when every game is handed out."""
        slot = self._slots.get(player)
        if slot is None:
            slot, self._resumed = self._resumed or _Slot(), None
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

    def report(self, player: object, warm: Sequence[Warm]) -> None:
        """What `player`'s worker holds warm now (with the result of its last game):
        its next unit is chosen to reuse those processes."""
        slot = self._slots.get(player)
        if slot is None or not self._reports:
            return
        slot.warm = {}
        for process in warm:
            bot = self._names.get(process.bot)
            if bot is not None:
                slot.warm.setdefault(bot, []).append(frozenset(process.groups))

    def _give(self, slot: _Slot, unit: tuple[int, int]) -> None:
        slot.queue.extend(reversed(self._units[unit]))
        slot.last = self._bots[unit[1]]
        if not self._reports:
            slot.warm = {bot: [self._groups[unit]] for bot in slot.last}

    def _skip(self, done: set[str]) -> _Slot | None:
        """Hand out every game to one player until the `done` ones are past, and leave
        them out; that player, with the other games it got, for the first to ask."""
        if not done:
            return None
        slot = _Slot()
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
        warm = slot.warm
        near = set().union(*(self._at[bot] for bot in slot.last))
        for unit in itertools.islice(near, _LOOK):
            bots, groups = self._bots[unit[1]], self._groups[unit]
            ready = 0
            for bot in bots:
                for played in warm.get(bot, ()):
                    if groups.isdisjoint(played):
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


def fault_order(games: Sequence[ScheduledGame]) -> Iterator[ScheduledGame]:
    """The order in which a league counts faults in a row, whatever order its games
    finish in: the order one player following no report is handed them (so at a
    concurrency of 1 the order they are played in). Made as it is read: made whole at
    once, it takes minutes for 100,000 games (as long as a `Dispatch` takes over a
    league)."""
    dispatch, one = Dispatch(games, reports=False), object()
    return iter(lambda: dispatch.next(one), None)


_LOOK = 300
"""The most units `Dispatch` weighs for a choice (of a bot's dozens of tables at most
in a sampled schedule, but thousands in a full one of few bots)."""


@dataclasses.dataclass(eq=False)
class _Slot:
    """What `Dispatch` knows of one player."""

    warm: dict[int, list[frozenset[str]]] = dataclasses.field(default_factory=dict)
    """The idle processes of its worker by bot, each as the duplicate groups it played
    (`Dispatch.report`)."""
    queue: list[ScheduledGame] = dataclasses.field(default_factory=list)
    """Its games still to hand out, the next last."""
    last: tuple[int, ...] = ()
    """The bots of the unit it got last."""


_ALONE = contextlib.nullcontext()
"""What a game of no duplicate group waits for: nothing."""
