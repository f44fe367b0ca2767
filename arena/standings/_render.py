"""The standings as text: a `tabulate` table, CSV or JSON (`render`), and the
head-to-head table. Names are shown safely: see `arena.standings`."""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import tabulate as _tabulate

from arena._text import printable_json, printable_name
from arena.records import FAULT_CAUSES as FAULT_CAUSES  # re-exported: the tables' order
from arena.records import GameRecord as GameRecord
from arena.records import ResultColumns as ResultColumns
from arena.records import SeatRecord as SeatRecord
from arena.standings._compute import CONFIDENCE, MACHINE_FORMATS, Standings, StandingsRow

if TYPE_CHECKING:  # numpy.typing costs a tenth of numpy's import time
    pass


_UNSAFE_FORMATS = frozenset({"unsafehtml", "latex_raw"})
"""`tabulate` formats that write names as they are, markup and all: a name given to
`arena rate` can be anyone's, so they are not offered (html and latex escape it)."""

_PIPE_ESCAPES = {
    "github": "\\|",
    "pipe": "\\|",
    "jira": "\\|",
    "youtrack": "\\|",
    "asciidoc": "\\|",
    "orgtbl": "\\vert{}",
    "mediawiki": "&#124;",
    "textile": "&#124;",
}
"""Markup formats whose cells `|` separates, and how each writes a `|` in a name
(`tabulate` leaves it as it is, and the name then splits its row)."""


def output_formats() -> list[str]:
    """Every format name `render` accepts: the `tabulate` formats (but the unsafe
    ones), csv and json."""
    return sorted((set(_tabulate.tabulate_formats) - _UNSAFE_FORMATS) | set(MACHINE_FORMATS))


def _cell(fmt: str) -> Callable[[str], str]:
    """How a name is written in a table of format `fmt`: its control and format
    characters as escapes (`printable_name`: the table is printed, and a newline or a
    tab would split its row), and a `|` as the markup formats need it."""
    escape = _PIPE_ESCAPES.get(fmt)
    if escape is None:
        return printable_name
    return lambda name: printable_name(name).replace("|", escape)


_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""How a cell that a spreadsheet runs as a formula begins (OWASP, "CSV Injection"; a
name's tab or carriage return is an escape before this is looked at, but the list is
OWASP's whole)."""


def csv_name(name: str) -> str:
    """How a name is written in a CSV cell: its control and format characters as
    escapes, as in the tables (a CSV is printed and viewed too; no name a league
    accepts holds one, and `arena rate` reads no control character), and with a
    leading ``'`` if it begins like a formula, which a spreadsheet would run:
    ``=HYPERLINK(...)``, or a league's ``+cmd`` or ``-2+3`` (bot names may begin with
    ``+`` or ``-``). Only names get the quote: numbers such as an Elo of -35 are
    written by the csv module from floats and ints, and stay numbers."""
    text = printable_name(name)
    return "'" + text if text.startswith(_FORMULA_STARTS) else text


def _json_text(doc: Any) -> str:
    """``doc`` as JSON text that keeps every name exactly and is safe to print."""
    return printable_json(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n"


def check_format(fmt: str) -> None:
    """Raise ``ValueError`` unless ``fmt`` is a format `render` accepts."""
    if fmt not in output_formats():
        raise ValueError(f"unknown format {fmt!r}; choose one of: {', '.join(output_formats())}")


def render(standings: Standings, fmt: str = "simple", *, notes: bool = True) -> str:
    """The standings as text: any `tabulate` format, "csv" or "json".

    Table formats leave out columns that would be empty (points, faults that never
    happened) and, with ``notes``, add a few lines explaining the ratings. CSV and
    JSON always have every column, with full precision and no notes; JSON says how
    the ratings were computed, and why a requested bootstrap gave no error bars
    (``bootstrap.no_error_bars``), where CSV, one row a bot, leaves their cells empty.
    Tables and CSV show names as `_cell` and `csv_name` say; JSON gives them as they
    are.
    """
    check_format(fmt)
    if fmt == "json":
        return _json_text(_as_json(standings))
    if fmt == "csv":
        return _as_csv(standings)
    has_intervals = standings.intervals is not None
    faults_seen = [
        cause for cause in FAULT_CAUSES if any(dict(row.faults)[cause] for row in standings.rows)
    ]
    headers = ["rank", "bot", "Elo"]
    if has_intervals:
        headers += ["±", "LOS"]
    headers += ["games", "wins", "win %", "avg place"]
    if standings.has_points:
        headers.append("avg points")
    headers += faults_seen
    table: list[list[Any]] = []
    cell = _cell(fmt)
    for row in standings.rows:
        line: list[Any] = [row.rank, cell(row.player), f"{row.elo:.0f}"]
        if has_intervals:
            line.append("" if row.plus_minus is None else f"{row.plus_minus:.0f}")
            line.append(_percent(row.superiority))
        line += [row.games, row.wins, f"{100.0 * row.win_rate:.1f}", f"{row.average_place:.2f}"]
        if standings.has_points:
            line.append("" if row.points is None else f"{row.points:.1f}")
        faults = dict(row.faults)
        line += [faults[cause] for cause in faults_seen]
        table.append(line)
    align = ["left" if header == "bot" else "right" for header in headers]
    text = _tabulate.tabulate(
        table, headers=headers, tablefmt=fmt, disable_numparse=True, colalign=align
    )
    if notes and standings.rows:
        text += "\n\n" + standings.describe()
    return text + "\n"


def _percent(share: float | None) -> str:
    """A probability as a whole percentage that never rounds to a false certainty."""
    if share is None:
        return ""
    if share > 0.995:
        return ">99%"
    if share < 0.005:
        return "<1%"
    return f"{100.0 * share:.0f}%"


_CSV_COLUMNS = (
    "rank",
    "bot",
    "elo",
    "plus_minus",
    "elo_low",
    "elo_high",
    "los",
    "games",
    "wins",
    "win_rate",
    "average_place",
    "points",
    *FAULT_CAUSES,
)


def _row_values(row: StandingsRow) -> dict[str, Any]:
    return {
        "rank": row.rank,
        "bot": row.player,
        "elo": _round(row.elo),
        "plus_minus": _round(row.plus_minus),
        "elo_low": _round(row.elo_low),
        "elo_high": _round(row.elo_high),
        "los": _round(row.superiority),
        "games": row.games,
        "wins": row.wins,
        "win_rate": _round(row.win_rate),
        "average_place": _round(row.average_place),
        "points": _round(row.points),
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _as_csv(standings: Standings) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(_CSV_COLUMNS)
    for row in standings.rows:
        values = _row_values(row) | dict(row.faults) | {"bot": csv_name(row.player)}
        writer.writerow(["" if values[c] is None else values[c] for c in _CSV_COLUMNS])
    return out.getvalue()


def _as_json(standings: Standings) -> dict[str, Any]:
    return {
        "method": standings.method,
        "games": standings.games,
        "mean": standings.mean,
        "anchor": (
            {"bot": standings.anchor[0], "elo": standings.anchor[1]} if standings.anchor else None
        ),
        "prior": standings.prior,
        "k_factor": standings.k_factor,
        "intervals": standings.intervals,
        "confidence": CONFIDENCE if standings.intervals else None,
        "bootstrap": {
            "resamples": standings.bootstrap,
            "skipped": standings.bootstrap_skipped,
            "unit": "group" if standings.grouped else "game",
            "no_error_bars": standings.no_error_bars,
            "fisher_instead": standings.bootstrap_fallback or None,
        }
        if standings.bootstrap
        else None,
        "rows": [_row_values(row) | {"faults": dict(row.faults)} for row in standings.rows],
        "apart": [list(group) for group in standings.apart] or None,
        "forfeits": standings.forfeits,
        "unplayed": list(standings.unplayed) or None,
        "versions": dict(standings.versions) or None,
    }


# -- head to head --------------------------------------------------------------------


@dataclass(frozen=True)
class HeadToHead:
    """Who finished above whom, over the games two bots played together."""

    players: tuple[str, ...]
    """Row and column order."""
    above: tuple[tuple[float, ...], ...]
    """``above[r][c]``: games in which bot r finished above bot c; a tie counts ½."""
    shared: tuple[tuple[int, ...], ...]
    """``shared[r][c]``: games bots r and c played together."""

    def share(self, row: int, column: int) -> float | None:
        """Share of their shared games in which ``row`` finished above ``column``."""
        n = self.shared[row][column]
        return self.above[row][column] / n if n and row != column else None


def head_to_head(records: Iterable[GameRecord], order: Sequence[str] | None = None) -> HeadToHead:
    """Count, for every pair of bots, their shared games and who finished above.

    Rows follow ``order`` (for example the standings), then any other bot by name.
    Forfeits are not counted: nobody played them (`arena.records.forfeited`).
    """
    above: dict[tuple[str, str], float] = defaultdict(float)
    shared: dict[tuple[str, str], int] = defaultdict(int)
    players: set[str] = set()
    for game in records:
        if game.forfeited:
            continue
        for a in game.seats:
            players.add(a.player)
            for b in game.seats:
                if a.player == b.player:
                    continue
                shared[a.player, b.player] += 1
                if a.place < b.place:
                    above[a.player, b.player] += 1.0
                elif a.place == b.place:
                    above[a.player, b.player] += 0.5
    first = [p for p in (order or ()) if p in players]
    names = tuple(first + sorted(players - set(first)))
    return HeadToHead(
        players=names,
        above=tuple(tuple(above[a, b] for b in names) for a in names),
        shared=tuple(tuple(shared[a, b] for b in names) for a in names),
    )


def render_head_to_head(h2h: HeadToHead, fmt: str = "simple") -> str:
    """The head-to-head table: each cell is the share of shared games in which the
    row bot finished above the column bot (ties count half), and in table formats
    the number of shared games. Names are shown as in `render`.
    """
    check_format(fmt)
    n = len(h2h.players)
    if fmt == "json":
        doc = {
            "players": list(h2h.players),
            "share": [[_round(h2h.share(r, c)) for c in range(n)] for r in range(n)],
            "games": [list(row) for row in h2h.shared],
        }
        return _json_text(doc)
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        names = [csv_name(name) for name in h2h.players]
        writer.writerow(["bot", *names])
        for r, name in enumerate(names):
            shares = (h2h.share(r, c) for c in range(n))
            writer.writerow([name, *("" if s is None else _round(s) for s in shares)])
        return out.getvalue()
    table = []
    cell = _cell(fmt)
    for r, name in enumerate(h2h.players):
        cells = []
        for c in range(n):
            s = h2h.share(r, c)
            cells.append("" if s is None else f"{100.0 * s:.0f}% ({h2h.shared[r][c]})")
        table.append([cell(name), *cells])
    text = _tabulate.tabulate(
        table,
        headers=["", *map(cell, h2h.players)],
        tablefmt=fmt,
        disable_numparse=True,
        colalign=["left"] + ["right"] * n,
    )
    note = "Share of shared games in which the row bot finished above the column bot (games)."
    return f"{text}\n\n{note}\n"


# -- reading finishing orders ----------------------------------------------------------
