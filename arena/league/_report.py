"""What a league tells its watcher (`Progress`) and what one run did (`LeagueReport`)."""

from __future__ import annotations

import dataclasses
import math

from arena.errors import ConfigError
from arena.referee import GameResult
from arena.schedule import Schedule, ScheduledGame


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


def eta(done: int, total: int, rate: float) -> str:
    """Time left, as 1h02m, 3m05s or 12s."""
    if rate <= 0 or done >= total:
        return "-"
    seconds = math.ceil((total - done) / rate)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}h{m:02d}m" if h else f"{m}m{s:02d}s" if m else f"{s}s"
