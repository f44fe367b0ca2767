"""Standings: game records in, a ranked table of bots out.

Whoever stores results (the league store, a CSV of finishing orders) hands this
module plain `GameRecord`s; `compute_standings` fits the ratings (`arena.ratings`)
and counts games, wins, places, points and faults; `render` prints the table in any
`tabulate` format or as CSV or JSON. `head_to_head` and `render_head_to_head` give
the table of who finished above whom.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any, Literal, TextIO

import numpy as np
import tabulate as _tabulate

from arena._gc import paused_collector
from arena.errors import InputError
from arena.ratings import (
    DEFAULT_K_FACTOR,
    DEFAULT_PRIOR,
    ELO_PER_NAT,
    MAX_TIE,
    bootstrap_plackett_luce,
    fit_plackett_luce,
    likelihood_of_superiority,
    sequential_elo,
)
from arena.records import FAULT_CAUSES as FAULT_CAUSES  # re-exported: the tables' order
from arena.records import GameRecord as GameRecord
from arena.records import SeatRecord as SeatRecord

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
"""Unicode's control characters (category Cc), which no name may hold."""

MACHINE_FORMATS = ("csv", "json")
"""Output formats for scripts; every `tabulate` format name is accepted too."""

CONFIDENCE = 0.95
"""The coverage of the intervals in the tables."""

_Z = NormalDist().inv_cdf(0.5 + CONFIDENCE / 2.0)

Method = Literal["mle", "sequential"]


# -- standings -----------------------------------------------------------------------


@dataclass(frozen=True)
class StandingsRow:
    """One bot's line in the standings."""

    rank: int
    """1 for the highest Elo."""
    player: str
    """The bot's name."""
    elo: float
    """Rating on the Elo scale."""
    plus_minus: float | None
    """Half-width of the 95% interval (1.96 standard errors, Fisher or bootstrap)."""
    elo_low: float | None
    """Lower end of the 95% interval: ``elo - plus_minus``."""
    elo_high: float | None
    """Upper end of the 95% interval: ``elo + plus_minus``."""
    superiority: float | None
    """Likelihood of superiority: P(this bot is stronger than the next one down)."""
    games: int
    """Games played."""
    wins: int
    """Games finished in first place (shared first places count)."""
    average_place: float
    """Mean finishing place."""
    points: float | None
    """Mean final score over the games that kept points; None if none did."""
    faults: tuple[tuple[str, int], ...]
    """Count of fault eliminations for each cause in `FAULT_CAUSES`."""

    @property
    def win_rate(self) -> float:
        """Share of games won, between 0 and 1."""
        return self.wins / self.games if self.games else 0.0


@dataclass(frozen=True)
class Standings:
    """The standings table and how its ratings were computed."""

    rows: tuple[StandingsRow, ...]
    """Best bot first."""
    games: int
    """Games in the result set."""
    method: Method
    """"mle" (Plackett–Luce fit) or "sequential" (classic, order-dependent Elo)."""
    mean: float
    """The Elo the bots average to."""
    prior: float | None
    """Pseudo-wins and pseudo-losses per bot (mle only)."""
    k_factor: float | None
    """K-factor (sequential only)."""
    intervals: Literal["fisher", "bootstrap"] | None
    """Where the ± column comes from, if anywhere."""
    bootstrap: int = 0
    """Resamples requested."""
    bootstrap_skipped: int = 0
    """Resamples without a finite fit (prior 0 only)."""
    grouped: bool = False
    """Whether the bootstrap resampled duplicate groups rather than single games."""
    has_points: bool = field(default=False)
    """Whether any game kept points."""

    def describe(self) -> str:
        """Notes that explain the columns, one sentence a line."""
        lines: list[str] = []
        if self.method == "sequential":
            lines.append(
                f"Elo: classic sequential updates (K = {self.k_factor:g}) over the pairs "
                f"of each game, in the order the games were given; unlike the default fit "
                f"it depends on that order and has no error bars."
            )
        else:
            prior = self.prior or 0.0
            if prior:
                plural = "" if prior == 1.0 else "s"
                how = (
                    f"with a prior of {prior:g} pseudo-win{plural} and {prior:g} "
                    f"pseudo-loss{'' if prior == 1.0 else 'es'} per bot against an average bot"
                )
            else:
                how = "without a prior (plain maximum likelihood)"
            lines.append(
                f"Elo: Plackett–Luce fit of all {self.games} finishing orders, {how}; "
                f"the bots average {self.mean:g}."
            )
            if self.intervals == "fisher":
                lines.append("±: 95% interval from the Fisher information.")
            elif self.intervals == "bootstrap":
                unit = "duplicate groups" if self.grouped else "games"
                used = self.bootstrap - self.bootstrap_skipped
                lines.append(
                    "±: 95% interval of 1.96 bootstrap standard errors "
                    f"({used} resamples of {unit})."
                )
            if self.bootstrap_skipped:
                lines.append(
                    f"Bootstrap: {self.bootstrap_skipped} of {self.bootstrap} resamples had "
                    f"no finite fit without a prior and were left out"
                    + ("" if self.intervals else ", too many for error bars")
                    + "; a prior > 0 avoids this."
                )
            if self.intervals is not None:
                lines.append("LOS: likelihood that the bot is stronger than the next one down.")
        return "\n".join(lines)


@paused_collector()  # the fit of 100,000 games makes millions of objects, in no cycle
def compute_standings(
    records: Iterable[GameRecord],
    *,
    prior: float = DEFAULT_PRIOR,
    mean: float = 1500.0,
    method: Method = "mle",
    bootstrap: int = 0,
    seed: int = 0,
    k_factor: float = DEFAULT_K_FACTOR,
    intervals: bool = True,
) -> Standings:
    """Rate the bots and count their results.

    ``method="mle"`` fits Plackett–Luce strengths to all finishing orders at once
    (`arena.ratings.fit_plackett_luce`; ``prior`` pseudo-wins and pseudo-losses per
    bot keep the unbeaten and the winless finite; 0 gives the plain MLE) with 95%
    intervals from the Fisher information, or from ``bootstrap`` resamples of whole
    games (whole duplicate groups where records have a ``group``). The result does
    not depend on the order of ``records``. ``method="sequential"`` is classic Elo
    with ``k_factor``, updated game by game in the order given.

    Raises `arena.ratings.NoEstimateError` (an `InputError`) when ``prior`` is 0 and
    the plain MLE does not exist, and ``ValueError`` for invalid arguments or
    records (two records with one game id).
    """
    games = list(records)
    _check_arguments(games, prior=prior, mean=mean, method=method, bootstrap=bootstrap)
    rankings = [game.ranking() for game in games]

    elo: dict[str, float]
    plus_minus: dict[str, float] = {}
    low: dict[str, float] = {}
    high: dict[str, float] = {}
    cov: dict[tuple[str, str], float] | None = None
    kind: Literal["fisher", "bootstrap"] | None = None
    skipped = 0
    grouped = any(game.group is not None for game in games)
    if method == "sequential":
        if not k_factor > 0.0 or not math.isfinite(k_factor):
            raise ValueError("k_factor must be a finite number > 0")
        elo = sequential_elo(rankings, k_factor=k_factor, mean=mean)
    else:
        fit = fit_plackett_luce(rankings, prior=prior, intervals=intervals and not bootstrap)
        players = fit.players
        elo = dict(zip(players, (float(x) for x in fit.elo(mean)), strict=True))
        matrix: list[list[float]] | None = None
        if bootstrap:
            groups = [
                f"group:{game.group}" if game.group is not None else f"game:{game.game_id}"
                for game in games
            ]
            boot = bootstrap_plackett_luce(
                rankings, groups, prior=prior, resamples=bootstrap, seed=seed
            )
            skipped = boot.skipped
            if len(boot.samples) >= 2:
                # A normal interval on the bootstrap standard error: percentiles of the
                # refits under-cover (see arena.ratings, bench/bootstrap_coverage.py).
                kind = "bootstrap"
                matrix = _covariance(boot.samples)
        elif fit.covariance is not None:
            kind = "fisher"
            matrix = [[float(x) for x in row] for row in fit.covariance]
        if matrix is not None:
            for i, a in enumerate(players):
                plus_minus[a] = _Z * ELO_PER_NAT * math.sqrt(max(matrix[i][i], 0.0))
                low[a] = elo[a] - plus_minus[a]
                high[a] = elo[a] + plus_minus[a]
            cov = {
                (a, b): matrix[i][j] for i, a in enumerate(players) for j, b in enumerate(players)
            }

    order = sorted(elo, key=lambda p: (-elo[p], p))
    counts = _count(games)
    rows: list[StandingsRow] = []
    for rank, player in enumerate(order, start=1):
        los = None
        if cov is not None and rank < len(order):
            nxt = order[rank]
            diff = (elo[player] - elo[nxt]) / ELO_PER_NAT
            var = cov[player, player] + cov[nxt, nxt] - 2.0 * cov[player, nxt]
            los = likelihood_of_superiority(diff, var)
        c = counts[player]
        rows.append(
            StandingsRow(
                rank=rank,
                player=player,
                elo=elo[player],
                plus_minus=plus_minus.get(player),
                elo_low=low.get(player),
                elo_high=high.get(player),
                superiority=los,
                games=c.games,
                wins=c.wins,
                average_place=c.place_sum / c.games if c.games else 0.0,
                points=c.points_sum / c.points_games if c.points_games else None,
                faults=tuple((cause, c.faults[cause]) for cause in FAULT_CAUSES),
            )
        )
    return Standings(
        rows=tuple(rows),
        games=len(games),
        method=method,
        mean=mean,
        prior=prior if method == "mle" else None,
        k_factor=k_factor if method == "sequential" else None,
        intervals=kind,
        bootstrap=bootstrap if method == "mle" else 0,
        bootstrap_skipped=skipped,
        grouped=grouped,
        has_points=any(seat.points is not None for game in games for seat in game.seats),
    )


def _check_arguments(
    games: Sequence[GameRecord], *, prior: float, mean: float, method: str, bootstrap: int
) -> None:
    if method not in ("mle", "sequential"):
        raise ValueError(f"method must be 'mle' or 'sequential', not {method!r}")
    if not math.isfinite(mean):
        raise ValueError("mean must be a finite number")
    if not prior >= 0.0 or not math.isfinite(prior):
        raise ValueError("prior must be a finite number >= 0")
    if bootstrap < 0:
        raise ValueError("bootstrap must be >= 0")
    if bootstrap and method != "mle":
        raise ValueError("the bootstrap applies to the maximum-likelihood fit only")
    seen: set[str] = set()
    for game in games:
        if game.game_id in seen:
            raise ValueError(f"game {game.game_id!r} appears twice")
        seen.add(game.game_id)
        if len(game.seats) <= MAX_TIE:
            continue
        tie = max(Counter(seat.place for seat in game.seats).values())
        if tie > MAX_TIE:
            raise InputError(
                f"game {game.game_id!r}: {tie} players share a place; "
                f"the fit supports ties among at most {MAX_TIE}"
            )


def _covariance(samples: Any) -> list[list[float]]:
    matrix = np.atleast_2d(np.cov(samples, rowvar=False))
    return [[float(x) for x in row] for row in matrix]


@dataclass
class _Counts:
    games: int = 0
    wins: int = 0
    place_sum: int = 0
    points_sum: int = 0
    points_games: int = 0
    faults: Counter[str] = field(default_factory=Counter)


def _count(games: Iterable[GameRecord]) -> dict[str, _Counts]:
    counts: dict[str, _Counts] = defaultdict(_Counts)
    for game in games:
        for seat in game.seats:
            c = counts[seat.player]
            c.games += 1
            c.wins += seat.place == 1
            c.place_sum += seat.place
            if seat.points is not None:
                c.points_sum += seat.points
                c.points_games += 1
            if seat.cause in FAULT_CAUSES:
                c.faults[seat.cause] += 1
    return counts


# -- rendering -----------------------------------------------------------------------


def output_formats() -> list[str]:
    """Every format name `render` accepts: the `tabulate` formats, csv and json."""
    return sorted(set(_tabulate.tabulate_formats) | set(MACHINE_FORMATS))


def check_format(fmt: str) -> None:
    """Raise ``ValueError`` unless ``fmt`` is a format `render` accepts."""
    if fmt not in output_formats():
        raise ValueError(f"unknown format {fmt!r}; choose one of: {', '.join(output_formats())}")


def render(standings: Standings, fmt: str = "simple", *, notes: bool = True) -> str:
    """The standings as text: any `tabulate` format, "csv" or "json".

    Table formats leave out columns that would be empty (points, faults that never
    happened) and, with ``notes``, add a few lines explaining the ratings. CSV and
    JSON always have every column, with full precision and no notes.
    """
    check_format(fmt)
    if fmt == "json":
        return json.dumps(_as_json(standings), indent=2, ensure_ascii=False) + "\n"
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
    for row in standings.rows:
        line: list[Any] = [row.rank, row.player, f"{row.elo:.0f}"]
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
        values = _row_values(row) | dict(row.faults)
        writer.writerow(["" if values[c] is None else values[c] for c in _CSV_COLUMNS])
    return out.getvalue()


def _as_json(standings: Standings) -> dict[str, Any]:
    return {
        "method": standings.method,
        "games": standings.games,
        "mean": standings.mean,
        "prior": standings.prior,
        "k_factor": standings.k_factor,
        "intervals": standings.intervals,
        "confidence": CONFIDENCE if standings.intervals else None,
        "bootstrap": {
            "resamples": standings.bootstrap,
            "skipped": standings.bootstrap_skipped,
            "unit": "group" if standings.grouped else "game",
        }
        if standings.bootstrap
        else None,
        "rows": [_row_values(row) | {"faults": dict(row.faults)} for row in standings.rows],
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
    """
    above: dict[tuple[str, str], float] = defaultdict(float)
    shared: dict[tuple[str, str], int] = defaultdict(int)
    players: set[str] = set()
    for game in records:
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
    the number of shared games.
    """
    check_format(fmt)
    n = len(h2h.players)
    if fmt == "json":
        doc = {
            "players": list(h2h.players),
            "share": [[_round(h2h.share(r, c)) for c in range(n)] for r in range(n)],
            "games": [list(row) for row in h2h.shared],
        }
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["bot", *h2h.players])
        for r, name in enumerate(h2h.players):
            shares = (h2h.share(r, c) for c in range(n))
            writer.writerow([name, *("" if s is None else _round(s) for s in shares)])
        return out.getvalue()
    table = []
    for r, name in enumerate(h2h.players):
        cells = []
        for c in range(n):
            s = h2h.share(r, c)
            cells.append("" if s is None else f"{100.0 * s:.0f}% ({h2h.shared[r][c]})")
        table.append([name, *cells])
    text = _tabulate.tabulate(
        table,
        headers=["", *h2h.players],
        tablefmt=fmt,
        disable_numparse=True,
        colalign=["left"] + ["right"] * n,
    )
    note = "Share of shared games in which the row bot finished above the column bot (games)."
    return f"{text}\n\n{note}\n"


# -- reading finishing orders ----------------------------------------------------------


_REQUIRED = ("game", "player", "place")
_OPTIONAL = ("points", "cause", "group")


def load_places_csv(path: str | os.PathLike[str]) -> list[GameRecord]:
    """Read a ``game,player,place`` CSV file (see `read_places_csv`); "-" is stdin."""
    name = os.fspath(path)
    try:
        if name == "-":
            return read_places_csv(sys.stdin, "<stdin>")
        with open(name, encoding="utf-8-sig", newline="") as stream:
            return read_places_csv(stream, name)
    except UnicodeDecodeError as err:
        raise InputError(f"{name}: not UTF-8 text ({err.reason} at byte {err.start})") from err
    except OSError as err:
        raise InputError(f"{name}: cannot read: {err.strerror or err}") from err


def read_places_csv(stream: TextIO, name: str = "<input>") -> list[GameRecord]:
    """Read finishing orders: CSV with columns game, player, place; one row per player
    per game. Optional columns: points (an integer), cause (the elimination cause) and
    group (the duplicate-deal group of the game). Column names are case-insensitive;
    other columns are ignored; blank lines are skipped. Games keep the order of their
    first row.

    Raises `InputError` naming the line for every problem: no header or no rows, a
    missing column, a wrong number of fields, an empty game or player, a place that is
    not a whole number >= 1, points that are not a whole number, a player twice in one
    game, a game given two groups.
    """
    with paused_collector():  # a million rows make millions of objects, in no cycle
        return _read_places_csv(stream, name)


def _read_places_csv(stream: TextIO, name: str) -> list[GameRecord]:
    reader = csv.reader(stream, strict=True)
    seat = SeatRecord.checked  # every value is checked below, once
    try:
        header = next(reader, None)
        while header is not None and not any(cell.strip() for cell in header):
            header = next(reader, None)
        if header is None:
            raise InputError(f"{name}: the file is empty; expected a header game,player,place")
        columns = [cell.strip().lower() for cell in header]
        where = f"{name}, line {reader.line_num}"
        missing = [c for c in _REQUIRED if c not in columns]
        if missing:
            raise InputError(
                f"{where}: missing column{'s' if len(missing) > 1 else ''} "
                f"{', '.join(missing)}; the header must name game, player and place"
            )
        twice = sorted({c for c in columns if c and columns.count(c) > 1})
        if twice:
            raise InputError(f"{where}: column {twice[0]} appears twice in the header")
        col = {c: columns.index(c) for c in _REQUIRED + _OPTIONAL if c in columns}

        seats: dict[str, list[SeatRecord]] = {}
        groups: dict[str, str | None] = {}
        first_line: dict[tuple[str, str], int] = {}
        width = len(columns)
        game_at, player_at, place_at = col["game"], col["player"], col["place"]
        points_at, cause_at, group_at = col.get("points"), col.get("cause"), col.get("group")
        for fields in reader:
            # The hot path of a million rows: the line's name is made only for a message.
            if len(fields) != width:
                if not "".join(fields).strip():
                    continue
                where = f"{name}, line {reader.line_num}"
                raise InputError(
                    f"{where}: expected {width} fields like the header, found {len(fields)}"
                )
            line = reader.line_num
            game = fields[game_at].strip()
            player = fields[player_at].strip()
            if not game or not player or _CONTROL.search(game + player):
                if not "".join(fields).strip():
                    continue
                _bad_name(game, player, f"{name}, line {line}")
            text = fields[place_at]
            place = int(text) if text.isdecimal() else _whole(text, "place", f"{name}, line {line}")
            if place is None or place < 1:
                raise InputError(
                    f"{name}, line {line}: place {text.strip()!r} is not a whole number >= 1"
                )
            points = (
                _whole(fields[points_at], "points", f"{name}, line {line}")
                if points_at is not None
                else None
            )
            cause = (fields[cause_at].strip() or None) if cause_at is not None else None
            group = (fields[group_at].strip() or None) if group_at is not None else None
            if (game, player) in first_line:
                where = f"{name}, line {line}"
                raise InputError(
                    f"{where}: {player} appears twice in game {game} "
                    f"(first on line {first_line[game, player]})"
                )
            first_line[game, player] = line
            if game in groups and groups[game] != group:
                where = f"{name}, line {line}"
                raise InputError(
                    f"{where}: game {game} is in group {group or '(none)'} here but in "
                    f"group {groups[game] or '(none)'} on an earlier line"
                )
            groups[game] = group
            seats.setdefault(game, []).append(seat(player, place, points, cause))
    except csv.Error as err:
        raise InputError(f"{name}, line {reader.line_num}: not valid CSV ({err})") from err
    if not seats:
        raise InputError(f"{name}: no results, only a header")
    for game, players in seats.items():
        if len(players) < 2:
            raise InputError(
                f"{name}: game {game} has one player ({players[0].player}); a game has 2 to 6"
            )
    return [GameRecord.checked(game, groups[game], tuple(s)) for game, s in seats.items()]


def _bad_name(game: str, player: str, where: str) -> None:
    """Raise the InputError for an empty game or player, or one with a control character."""
    if not game:
        raise InputError(f"{where}: the game is empty")
    if not player:
        raise InputError(f"{where}: the player is empty")
    for what, text in (("game", game), ("player", player)):
        if _CONTROL.search(text):
            raise InputError(f"{where}: the {what} {text!r} holds a control character")


def _whole(text: str, what: str, where: str) -> int | None:
    """The whole number in ``text``, None if it is blank; `InputError` if it is not one."""
    text = text.strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise InputError(f"{where}: {what} {text!r} is not a whole number") from None
