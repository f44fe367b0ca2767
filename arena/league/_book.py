"""Bookkeeping of a league's games as they finish (`_Book`): the store, the fault
streaks, disqualifications."""

from __future__ import annotations

import bisect
import dataclasses

import trio

from arena._locks import KeyedLocks
from arena.league._config import LeagueConfig
from arena.league._dispatch import _ALONE, Dispatch, fault_order
from arena.league._report import LeagueReport, Progress
from arena.messages import Play, Played
from arena.runners import Player
from arena.schedule import ScheduledGame
from arena.store import Store


@dataclasses.dataclass(frozen=True, slots=True)
class _Ended:
    """A game stored and not yet counted (`_Book._count`)."""

    played: bool
    bots: frozenset[str]
    """Played: the bots that faulted in it; a forfeit: the bots that forfeited it."""
    now: bool = True
    """Stored by this run (in its report)."""
    older: bool = False
    """Stored by an older arena (which counted faults in a row in the order games
    finished): counted as it is stored, never replaced."""
    limit: int | None = None
    """The fault limit it was played under, where a resume changed it since (None: the
    league's): its faults in a row are counted under it."""


class _Book:
    """The league's bookkeeping: forfeits, records, fault streaks, disqualifications.

    Faults in a row are counted in one order, `fault_order`, whatever order the games
    finish in: a game is counted once it and every game before it in that order are
    stored, so a bot is disqualified after the same game at any concurrency, and
    forfeits every game after it. A game of the bot stored before that was known (under
    way at once with an earlier one) is replaced by its forfeit when it is counted; so
    is a forfeit of other bots only (its table had another bot disqualified before it
    that was not known yet). The same league and seed store the same games as played
    and as forfeited at any concurrency, and after any stop and resume."""

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
        self._canon = fault_order(report.schedule.games)
        """`fault_order`, read as far as it is needed (`_generate`)."""
        self._order: list[ScheduledGame] = []
        """`fault_order` as far as it is made."""
        self._rank: dict[str, int] = {}
        """Of each game in `_order`, its rank there."""
        self._ranks: dict[str, list[int]] = {}
        """Of each bot, its games' ranks in `_order`, in order."""
        self._next = 0
        """The rank of the first game not counted yet."""
        self._ended: dict[str, _Ended] = {}
        """The games stored and not counted yet, by id."""
        self.streak: dict[str, int] = dict.fromkeys(names, 0)
        self.disqualified: set[str] = set()
        """The bots disqualified by the games counted."""
        self.last_fault: dict[str, str] = {}
        """Each bot's latest fault in this run, as "cause: message"."""
        self._recent: dict[str, int] = {}
        """Each bot's faults in a row in the games of this run, in the order they
        finished: with any, its games wait until it cannot be disqualified before them
        (`_playable`)."""
        self._aside: dict[int, ScheduledGame] = {}
        """The games handed out and set aside, by rank (`_next_game`)."""
        self._changed = trio.Event()
        """Set (and replaced) when games are counted or a player is done."""
        # A resume counts the stored games again; a disqualification stored already is
        # not made again (one stored after a game, so a league killed between the two
        # makes it now).
        self._stored_out = {
            n for n, status in store.bot_statuses().items() if status == "disqualified"
        }
        scheduled = {game.game_id for game in report.schedule.games}
        for game_id, status, bots, older, limit in store.fault_record():
            if game_id in scheduled:
                self._ended[game_id] = _Ended(status != "forfeit", bots, False, older, limit)
        self._count()
        for name in sorted(self._stored_out - self.disqualified):
            # An older arena disqualified it in the order games finished: counted again
            # in this order it is not (yet); it plays on.
            self._stored_out.discard(name)
            store.set_bot_status(name, "ok")
            progress.message(
                f"{name} was disqualified by faults in a row counted in the order games"
                " finished (an older arena); counted in the league's order it is not, so"
                " it plays on"
            )
        self._groups = KeyedLocks()
        """Of each duplicate group with a game in play or waiting, the lock held while
        one is played (see `drive`)."""

    async def drive(self, dispatch: Dispatch, player: Player) -> None:
        """Give `player` the games `dispatch` hands it until none is left (a slow game
        holds up only its own player); a game a disqualified bot sits at is forfeited.

        A game waits while another game of its duplicate group is played: two processes
        of a bot playing one deal at once, in two seats, could tell each other their
        hands (a lock or an inotify watch on a file they both see crosses the sandbox)."""
        while (game := await self._next_game(dispatch, player)) is not None:
            async with self._groups.hold(game.group) if game.group is not None else _ALONE:
                if not self._forfeit(game):
                    play = Play(game.game_id, game.seats, game.seed, game.group)
                    played = await player(play)
                    dispatch.report(player, played.warm)
                    self._record(game, played)
        self._wake()

    async def _next_game(self, dispatch: Dispatch, player: Player) -> ScheduledGame | None:
        """The next game for `player`: the first set aside that may be played now, else
        the next `dispatch` hands it, else (every game handed out) the first set aside
        once it may be played; None when every game is handed out and none is aside.

        A game is set aside while a bot at it has faulted lately and is not yet known to
        be disqualified before it (by games not counted yet): a bot that faults in every
        game would otherwise play on at every player, its games replaced by forfeits
        when they are counted. The game the count waits for may always be played, so
        the games set aside are played in the end."""
        while True:
            for rank in sorted(self._aside):
                if self._playable(self._aside[rank]):
                    return self._aside.pop(rank)
            game = dispatch.next(player)
            if game is None:
                if not self._aside:
                    return None
                await self._changed.wait()
                continue
            if self._playable(game):
                return game
            self._aside[self._rank_of(game.game_id)] = game

    def _playable(self, game: ScheduledGame) -> bool:
        """Whether `game` may be played now: no bot at it that faulted in its latest
        game to finish may be disqualified before it, in `fault_order`, by the games not
        counted yet (each taken to be a fault unless it is stored without one), or one
        at it is disqualified already (a forfeit). A bot whose latest game had no fault
        is not held up (its games replaced by forfeits if it faults in every game from
        now on: as many as are played at once), and its game's place in `fault_order`
        is not looked for (made that far at once, the order can take seconds)."""
        limit = self.config.fault_limit
        if not limit or self.disqualified.intersection(game.seats):
            return True
        risky = [name for name in game.seats if self._recent.get(name)]
        if not risky:
            return True
        rank = self._rank_of(game.game_id)
        return rank <= self._next or all(self._run_before(n, rank) < limit for n in risky)

    def _run_before(self, name: str, rank: int) -> int:
        """The most faults in a row `name` may have before the game at `rank` (at most
        the limit: it stops counting there)."""
        limit, ranks = self.config.fault_limit, self._ranks[name]
        run, at = 0, bisect.bisect_left(ranks, rank) - 1
        while at >= 0 and ranks[at] >= self._next and run < limit:
            ended = self._ended.get(self._order[ranks[at]].game_id)
            if ended is not None and ended.played and name not in ended.bots:
                return run  # a game without a fault: the run starts after it
            if ended is None or ended.played:
                run += 1  # a fault, or not known yet
            at -= 1
        return run + self.streak.get(name, 0) if run < limit else run

    def _wake(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    def _generate(self) -> bool:
        """Make `_order` one game longer (False: it is whole)."""
        game = next(self._canon, None)
        if game is None:
            return False
        rank = len(self._order)
        self._order.append(game)
        self._rank[game.game_id] = rank
        for name in game.seats:
            self._ranks.setdefault(name, []).append(rank)
        return True

    def _rank_of(self, game_id: str) -> int:
        while game_id not in self._rank:
            if not self._generate():
                raise AssertionError(f"{game_id} is not in the league's schedule")
        return self._rank[game_id]

    def _add(self, game: ScheduledGame, ended: _Ended) -> None:
        self._ended[game.game_id] = ended
        if ended.played and ended.now:
            for name in game.seats:
                self._recent[name] = self._recent.get(name, 0) + 1 if name in ended.bots else 0

    def _forfeit(self, game: ScheduledGame) -> bool:
        """Record `game` as a forfeit if a disqualified bot sits at it."""
        out = sorted(self.disqualified.intersection(game.seats))
        if not out:
            return False
        self.store.record_forfeit(game.game_id, game.index, game.group, game.seats, out, game.seed)
        self.report.forfeits += 1
        self.count += 1
        self._add(game, _Ended(False, frozenset(out)))
        self.progress.game(None, game, self.count, self.total)
        self._count()
        return True

    def _record(self, game: ScheduledGame, played: Played) -> None:
        """Store a finished game with the bots that faulted in it, then count the games
        that are next in `fault_order`."""
        result = played.result
        faulted = frozenset(result.names[f.seat] for f in result.faults)
        for fault in result.faults:
            self.last_fault[result.names[fault.seat]] = f"{fault.cause}: {fault.message}"
        self.store.record_game(
            result, index=game.index, group=game.group, started_at=played.started,
            finished_at=played.finished, replay=played.replay, faulted=sorted(faulted),
        )  # fmt: skip
        self.report.played += 1
        self.count += 1
        self._add(game, _Ended(True, faulted))
        self.progress.game(result, game, self.count, self.total)
        self._count()

    def _count(self) -> None:
        """Count the stored games next in `fault_order`: the streaks of a played game's
        bots, and their disqualifications; a game a bot disqualified before it sits at
        is stored as that bot's forfeit."""
        while self._next < len(self._order) or self._generate():
            game = self._order[self._next]
            ended = self._ended.pop(game.game_id, None)
            if ended is None:
                break
            self._next += 1
            out = self.disqualified.intersection(game.seats)
            if ended.older:  # (its games are kept as they are: played ones count)
                out = set()
            if out:
                if ended.played or ended.bots != out:
                    self.store.record_forfeit(
                        game.game_id, game.index, game.group, game.seats, sorted(out),
                        game.seed, replace=True,
                    )  # fmt: skip
                    if ended.played and ended.now:
                        self.report.played -= 1
                        self.report.forfeits += 1
                continue
            if not ended.played:  # forfeited by an older arena
                continue
            for name in game.seats:
                self.streak[name] = self.streak.get(name, 0) + 1 if name in ended.bots else 0
            for name in game.seats:
                self._check_streak(name, ended.limit)
        self._wake()  # (games set aside may be played now)

    def _check_streak(self, name: str, limit: int | None = None) -> None:
        """Disqualify `name` if its faults in a row reached the limit (`limit`: the one
        the game was played under, if not the league's now)."""
        limit = self.config.fault_limit if limit is None else limit
        streak = self.streak[name]
        if not limit or streak < limit or name in self.disqualified:
            return
        self.disqualified.add(name)
        if name in self._stored_out:  # (a resume: disqualified before)
            return
        self.report.disqualified.append(name)
        self.store.set_bot_status(name, "disqualified", f"{streak} faults in a row")
        # Its author needs what went wrong and where the bot said why.
        last = self.last_fault.get(name)
        logs = self.config.run.log_dir
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
