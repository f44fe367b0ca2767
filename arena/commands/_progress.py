"""How `arena league` reports progress: observers of the league (`arena.league.Progress`).

`Progress` itself is quiet, and `QuietProgress` says only warnings (on stderr);
`TerminalProgress` writes a progress line (and now and then the top of the standings)
to stderr; `JsonLinesProgress` writes one JSON object per event to stdout, for scripts.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from arena._text import printable
from arena.league import LeagueReport, Progress, eta

if TYPE_CHECKING:
    from arena.referee import GameResult
    from arena.schedule import ScheduledGame
    from arena.store import Store


def redrawn(line: str) -> str:
    """`line` to redraw in place of the last on a terminal (after a carriage return):
    padded over the end of a longer one before it, and cut to the terminal's width.

    A line as wide as the terminal wraps, and a carriage return goes back to the start
    of its last row only: each redraw left a new row on the screen (`arena sprt`'s
    line, some 85 characters, on a terminal of 80)."""
    return (line + "   ")[: _columns() - 1]


def _columns() -> int:
    """The width of the terminal on stderr ($COLUMNS first, as `shutil` takes it), 80
    where there is none."""
    with contextlib.suppress(ValueError):
        if (given := int(os.environ.get("COLUMNS", "0"))) > 0:
            return given
    try:
        return os.get_terminal_size(sys.stderr.fileno()).columns or 80
    except (AttributeError, OSError, ValueError):  # no stderr, or not a terminal
        return 80


class JsonLinesProgress(Progress):
    """One JSON object per line on stdout: start, every game, messages."""

    def message(self, text: str) -> None:
        click.echo(json.dumps({"event": "message", "text": text}))

    def started(self, total: int, todo: int, note: str) -> None:
        click.echo(json.dumps({"event": "start", "total": total, "todo": todo, "note": note}))

    def game(self, result: GameResult | None, game: ScheduledGame, done: int, total: int) -> None:
        record: dict[str, Any] = {
            "event": "game",
            "game_id": game.game_id,
            "done": done,
            "total": total,
            "seats": list(game.seats),
            "forfeit": result is None,
        }
        if result is not None:
            record["order"] = [[result.names[s] for s in g] for g in result.outcome.order()]
            record["faults"] = [
                {"bot": result.names[f.seat], "cause": f.cause} for f in result.faults
            ]
        click.echo(json.dumps(record))

    def finished(self, report: LeagueReport) -> None:
        click.echo(json.dumps({
            "event": "done", "played": report.played, "forfeits": report.forfeits,
            "skipped": report.skipped, "disqualified": report.disqualified,
            "excluded": report.excluded, "left_out": report.left_out, "changed": report.changed,
            "seconds": round(report.seconds, 3),
        }))  # fmt: skip


class TerminalProgress(Progress):
    """A progress line on stderr (redrawn on a terminal; otherwise a line every tenth of
    the games, and at least one a minute), and the top of the standings every `every`
    games (0: a tenth of leagues over 50 games), with the line of the bot `watch` added
    under it when it is not in the top."""

    TOP = 5
    """The bots the table of the standings shows."""

    LINE_SECONDS = 60.0
    """The longest time between two lines when stderr is no terminal (a log): a league
    of a day wrote one every 2.4 hours, and its log could not tell it from a hung one."""

    def __init__(self, every: int, store: Store, watch: str | None = None) -> None:
        self.every = every
        self.store = store
        self.watch = watch
        self.start = time.monotonic()
        self.first = 0
        self.tty = sys.stderr.isatty()
        self.line_every = 1
        self.last_line = self.start

    def message(self, text: str) -> None:
        click.echo(printable(text), err=True)

    def started(self, total: int, todo: int, note: str) -> None:
        self.first = total - todo
        self.line_every = max(1, todo // 10)  # progress lines when stderr is no terminal
        if self.every == 0 and todo > 50:  # small leagues: the final table is enough
            self.every = max(10, todo // 10)
        self.start = self.last_line = time.monotonic()
        click.echo(f"schedule: {note}", err=True)
        if self.first:
            click.echo(f"resuming: {self.first} of {total} games already played", err=True)

    def game(self, result: GameResult | None, game: ScheduledGame, done: int, total: int) -> None:
        now = time.monotonic()
        elapsed = now - self.start
        rate = (done - self.first) / elapsed if elapsed > 0 else 0.0
        line = (
            f"[{done:>{len(str(total))}}/{total}] {done / total:6.1%}  {rate:6.1f} games/s"
            f"  left {eta(done, total, rate)}"
        )
        if self.tty:
            click.echo("\r" + redrawn(line), err=True, nl=False)
        elif (
            done == total
            or (done - self.first) % self.line_every == 0
            or now - self.last_line >= self.LINE_SECONDS
        ):
            click.echo(line, err=True)
            self.last_line = now
        if self.every and (done - self.first) % self.every == 0 and done < total:
            self._top()

    def finished(self, report: LeagueReport) -> None:
        summary = (
            f"{report.played} games played, {report.forfeits} forfeits,"
            f" {report.skipped} already stored, in {report.seconds:.1f} s"
        )
        if report.disqualified:
            summary += f"; disqualified: {', '.join(report.disqualified)}"
        click.echo(("\n" if self.tty else "") + summary, err=True)
        # Where the games are, and how to look at them (docs/results.md, "Seeing the games").
        path = self.store.path
        with contextlib.suppress(ValueError):
            path = path.relative_to(Path.cwd())
        store = shlex.quote(str(path))
        click.echo(
            printable(f"stored in {store}; its web report: arena report {store} -o site/"),
            err=True,
        )
        _say_left_out(report)

    def _top(self) -> None:
        from arena.standings import compute_standings, render

        records = self.store.game_records()
        if not records:
            return
        standings = compute_standings(records, intervals=False)
        text = render(standings, "simple", notes=False).splitlines()
        shown = text[: 2 + self.TOP]  # the header, its rule and the top bots
        if self.watch is not None:
            names = [row.player for row in standings.rows]
            if self.watch not in names:
                shown.append(printable(f"({self.watch}: no game of it stored yet)"))
            elif names.index(self.watch) >= self.TOP:
                shown.append(text[2 + names.index(self.watch)])  # a line a row
        prefix = "\n" if self.tty else ""
        click.echo(prefix + "\n".join(shown), err=True)


class QuietProgress(Progress):
    """Nothing but warnings, on stderr (`--progress quiet`, `-q`); the submissions left
    out among them, at the end."""

    def warning(self, text: str) -> None:
        click.echo(printable(text), err=True)

    def finished(self, report: LeagueReport) -> None:
        _say_left_out(report)


def _say_left_out(report: LeagueReport) -> None:
    """The submissions left out, again at the end: said at the start too, where a long
    league's output hides them."""
    if report.left_out:
        click.echo(
            f"warning: {len(report.left_out)} submission(s) left out, not playing:", err=True
        )
        for why in report.left_out:
            click.echo(printable(f"  {why}"), err=True)


def make_progress(mode: str, every: int, store: Store, watch: str | None = None) -> Progress:
    """The observer for `--progress MODE` (`watch`: the bot whose line every table of
    the terminal's shows)."""
    if mode == "jsonl":
        return JsonLinesProgress()
    if mode == "terminal":
        return TerminalProgress(every, store, watch)
    return QuietProgress()
