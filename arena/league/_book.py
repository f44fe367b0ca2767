"""Bookkeeping of a league's games as they finish (`_Book`): the store, the fault
streaks, disqualifications."""

from __future__ import annotations

from arena._locks import KeyedLocks
from arena.league._config import LeagueConfig
from arena.league._dispatch import _ALONE, Dispatch
from arena.league._report import LeagueReport, Progress
from arena.messages import Play, Played
from arena.runners import Player
from arena.schedule import ScheduledGame
from arena.store import Store


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
        self._stored_streak = store.fault_streaks()
        """The fault streaks as stored: a game whose streaks are the same stores none."""
        self.streak = {n: 0 for n in names} | self._stored_streak
        self.last_fault: dict[str, str] = {}
        """Each bot's latest fault in this run, as "cause: message"."""
        for name in names:  # a league killed between a game and the disqualification
            self._check_streak(name)
        self._groups = KeyedLocks()
        """Of each duplicate group with a game in play or waiting, the lock held while
        one is played (see `drive`)."""

    async def drive(self, dispatch: Dispatch, player: Player) -> None:
        """Give `player` the games `dispatch` hands it until none is left (a slow game
        holds up only its own player); a game a disqualified bot sits at is forfeited.

        A game waits while another game of its duplicate group is played: two processes
        of a bot playing one deal at once, in two seats, could tell each other their
        hands (a lock or an inotify watch on a file they both see crosses the sandbox)."""
        while (game := dispatch.next(player)) is not None:
            async with self._groups.hold(game.group) if game.group is not None else _ALONE:
                if not self._forfeit(game):
                    play = Play(game.game_id, game.seats, game.seed, game.group)
                    played = await player(play)
                    dispatch.report(player, played.warm)
                    self._record(game, played)

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
        changed = self.streak != self._stored_streak  # (nearly always: all 0, as before)
        self.store.record_game(
            result, index=game.index, group=game.group, started_at=played.started,
            finished_at=played.finished, replay=played.replay,
            streaks=self.streak if changed else None,
        )  # fmt: skip
        if changed:
            self._stored_streak = dict(self.streak)
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
