"""Standings: game records in, a ranked table of bots out.

Whoever stores results (the league store, a CSV of finishing orders) hands this
module plain `GameRecord`s; `compute_standings` fits the ratings (`arena.ratings`)
and counts games, wins, places, points and faults; `render` prints the table in any
`tabulate` format or as CSV or JSON. `head_to_head` and `render_head_to_head` give
the table of who finished above whom.

A bot's name can be anyone's (a results file given to `arena rate`, a league store
made elsewhere), and the tables and the CSV are read by people and spreadsheets: they
show a control or format character in a name as an escape (`\\x1b`, which a terminal
does not act on) and write a name that a spreadsheet would run as a formula with a
leading ``'``. JSON is the exact form: it holds every name as it is (what a terminal
would act on written with JSON's own escapes, which decode to the same name).
"""

from __future__ import annotations

import csv
import io
import json
import math
import operator
import os
import re
import stat
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import compress
from statistics import NormalDist
from typing import TYPE_CHECKING, Any, Literal, TextIO

import numpy as np
import tabulate as _tabulate

from arena._gc import paused_collector
from arena._text import printable_json, printable_name
from arena.errors import ConfigError, InputError, clipped, shown
from arena.ratings import (
    DEFAULT_K_FACTOR,
    DEFAULT_PRIOR,
    ELO_PER_NAT,
    MAX_TIE,
    FinishingOrders,
    bootstrap_plackett_luce,
    fit_plackett_luce,
    likelihood_of_superiority,
    sequential_elo,
)
from arena.records import FAULT_CAUSES as FAULT_CAUSES  # re-exported: the tables' order
from arena.records import GameRecord as GameRecord
from arena.records import ResultColumns as ResultColumns
from arena.records import SeatRecord as SeatRecord
from arena.records import misplaced

if TYPE_CHECKING:  # numpy.typing costs a tenth of numpy's import time
    import numpy.typing as npt

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
    bootstrap_none: str = ""
    """Why a requested bootstrap gave no error bars (too few games or resamples)."""
    has_points: bool = field(default=False)
    """Whether any game kept points."""
    apart: tuple[tuple[str, ...], ...] = ()
    """The groups of bots that no chain of games links, largest first, when there are
    two or more (empty when every pair of bots is linked)."""
    anchor: tuple[str, float] | None = None
    """The bot whose Elo was fixed, and at what, if the scale was anchored."""

    @property
    def no_error_bars(self) -> str | None:
        """Why a requested bootstrap gave no error bars, whatever the cause (too few
        games, groups or resamples, or too many resamples without a finite fit); None
        if it gave them, or none was requested."""
        if not self.bootstrap or self.intervals is not None:
            return None
        if self.bootstrap_none:
            return self.bootstrap_none
        return (
            f"{self.bootstrap_skipped} of {self.bootstrap} resamples had no finite fit without"
            " a prior, too many for error bars; a prior > 0 avoids this"
        )

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
            orders = (
                "the one finishing order"
                if self.games == 1
                else f"all {self.games:,} finishing orders"
            )
            scale = (
                f"anchored at {self.anchor[0]} = {self.anchor[1]:g}"
                if self.anchor is not None
                else f"the bots average {self.mean:g}"
            )
            lines.append(f"Elo: Plackett–Luce fit of {orders}, {how}; {scale}.")
            if self.intervals == "fisher":
                against = f" of the difference from {self.anchor[0]}" if self.anchor else ""
                lines.append(f"±: 95% interval{against} from the Fisher information.")
            elif self.intervals == "bootstrap":
                unit = "duplicate groups" if self.grouped else "games"
                used = self.bootstrap - self.bootstrap_skipped
                lines.append(
                    "±: 95% interval of 1.96 bootstrap standard errors "
                    f"({used} resamples of {unit})."
                )
            if self.bootstrap_none:
                lines.append(f"Bootstrap: no error bars: {self.bootstrap_none}.")
            if self.bootstrap_skipped:
                lines.append(
                    f"Bootstrap: {self.bootstrap_skipped} of {self.bootstrap} resamples had "
                    f"no finite fit without a prior and were left out"
                    + ("" if self.intervals else ", too many for error bars")
                    + "; a prior > 0 avoids this."
                )
            if self.intervals is not None:
                lines.append("LOS: likelihood that the bot is stronger than the next one down.")
        if self.apart:
            lines.append(apart_message(self.apart))
        return "\n".join(lines)


def apart_message(groups: Sequence[Sequence[str]]) -> str:
    """The note for standings whose bots fall into groups that no game links."""
    shown = [_group_names(group) for group in groups]
    listed = ", ".join(shown[:-1]) + f" and {shown[-1]}"
    return (
        f"Apart: no chain of games links the {len(groups)} groups {listed}: Elo between"
        " groups is not comparable (no game measures it); only ratings within one group"
        " compare, and no LOS is given from a bot to the next one down in another group."
    )


def _group_names(group: Sequence[str], most: int = 4) -> str:
    names = ", ".join(printable_name(name) for name in group[:most])
    more = len(group) - most
    return f"({names}, and {more} more)" if more > 0 else f"({names})"


def unlinked_groups(columns: ResultColumns) -> tuple[tuple[str, ...], ...]:
    """The groups of players that no chain of games links (two players are linked when
    they sat at one game), largest first and each in name order; empty when all are
    linked. Vectorised over the seats: linear in the seats, then a union-find over the
    distinct pairs of neighbouring seats."""
    game = np.asarray(columns.seat_game, dtype=np.intp)
    player = np.asarray(columns.seat_player, dtype=np.intp)
    seated = np.unique(player)
    if seated.size < 2:
        return ()
    same = game[1:] == game[:-1]  # the seats of one game are consecutive
    width = int(player.max()) + 1
    codes = np.unique(player[:-1][same] * width + player[1:][same])  # one code a pair
    links = np.stack(np.divmod(codes, width), axis=1)
    parent = {int(p): int(p) for p in seated}

    def root(p: int) -> int:
        while parent[p] != p:
            parent[p] = parent[parent[p]]
            p = parent[p]
        return p

    for a, b in links.tolist():
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[int, list[str]] = {}
    for p in parent:
        groups.setdefault(root(p), []).append(columns.players[p])
    if len(groups) < 2:
        return ()
    return tuple(sorted((tuple(sorted(g)) for g in groups.values()), key=lambda g: (-len(g), g)))


@paused_collector()  # the fit of 100,000 games makes millions of objects, in no cycle
def compute_standings(
    records: Iterable[GameRecord] | ResultColumns,
    *,
    prior: float = DEFAULT_PRIOR,
    mean: float = 1500.0,
    method: Method = "mle",
    bootstrap: int = 0,
    seed: int = 0,
    k_factor: float = DEFAULT_K_FACTOR,
    intervals: bool = True,
    anchor: tuple[str, float] | None = None,
) -> Standings:
    """Rate the bots and count their results.

    ``records`` are game records or the same results in columns (`ResultColumns`, as a
    store or `read_places_columns` reads them: the fast form for large result sets).
    ``method="mle"`` fits Plackett–Luce strengths to all finishing orders at once
    (`arena.ratings.fit_plackett_luce`; ``prior`` pseudo-wins and pseudo-losses per
    bot keep the unbeaten and the winless finite; 0 gives the plain MLE) with 95%
    intervals from the Fisher information, or from ``bootstrap`` resamples of whole
    games (whole duplicate groups where records have a ``group``). The result does
    not depend on the order of ``records``. ``method="sequential"`` is classic Elo
    with ``k_factor``, updated game by game in the order given.

    With ``anchor`` (a bot's name and an Elo), the scale is shifted so that bot has that
    Elo, as Ordo and BayesElo anchor theirs: ratings from different result sets that
    share the anchor can be compared. Each ± is then the interval of the bot's
    difference from the anchor (the anchor's own is 0).

    Raises `arena.ratings.NoEstimateError` (an `InputError`) when ``prior`` is 0 and
    the plain MLE does not exist, and ``ValueError`` for invalid arguments or
    records (two records with one game id).
    """
    _check_options(prior=prior, mean=mean, method=method, bootstrap=bootstrap)
    if isinstance(records, ResultColumns):
        results = _Columns(records)
        results.check()
    else:
        games = list(records)
        _check_games(games)
        results = _Columns(ResultColumns.from_records(games))
        del games

    elo: dict[str, float]
    plus_minus: dict[str, float] = {}
    low: dict[str, float] = {}
    high: dict[str, float] = {}
    cov: Any = None
    """The covariance of the ratings in nats², a square array in the order of `where`."""
    where: dict[str, int] = {}
    kind: Literal["fisher", "bootstrap"] | None = None
    skipped = 0
    none = ""
    groups_seen = set(results.source.groups)
    grouped = bool(groups_seen - {None})
    if method == "sequential":
        if not k_factor > 0.0 or not math.isfinite(k_factor):
            raise ValueError("k_factor must be a finite number > 0")
        elo = sequential_elo(results.rankings(), k_factor=k_factor, mean=mean)
    else:
        orders = results.orders()
        fit = fit_plackett_luce(orders, prior=prior, intervals=intervals and not bootstrap)
        players = fit.players
        elo = dict(zip(players, (float(x) for x in fit.elo(mean)), strict=True))
        matrix: Any = None
        if bootstrap:
            source = results.source
            groups = [
                f"group:{group}" if group is not None else f"game:{game_id}"
                for game_id, group in zip(source.game_ids, source.groups, strict=True)
            ]
            units = len(set(groups))
            samples: Any = ()
            if units < 2:  # every resample the same: a spread of 0, which says nothing
                unit = "duplicate group" if grouped else "game"
                none = f"{units} {unit} to resample, and a bootstrap needs 2 or more"
            else:
                boot = bootstrap_plackett_luce(
                    orders, groups, prior=prior, resamples=bootstrap, seed=seed
                )
                skipped, samples = boot.skipped, boot.samples
                if len(samples) < 2 and not skipped:
                    none = f"{len(samples)} resample, and a spread needs 2 or more"
            if len(samples) >= 2:
                # A normal interval on the bootstrap standard error: percentiles of the
                # refits under-cover (see arena.ratings, bench/bootstrap_coverage.py).
                kind = "bootstrap"
                matrix = _covariance(samples)
        elif fit.covariance is not None:
            kind = "fisher"
            matrix = fit.covariance
        if matrix is not None:
            # Kept as an array: the n x n pairs as a dict took 5 s and 1 GB for 3,000 bots.
            cov = np.asarray(matrix, dtype=np.float64)
            where = {name: i for i, name in enumerate(players)}
            for i, a in enumerate(players):
                plus_minus[a] = _Z * ELO_PER_NAT * math.sqrt(max(float(cov[i, i]), 0.0))
                low[a] = elo[a] - plus_minus[a]
                high[a] = elo[a] + plus_minus[a]

    if anchor is not None:
        fixed, value = anchor
        if fixed not in elo:
            known = ", ".join(sorted(elo)[:8]) + (" ..." if len(elo) > 8 else "")
            raise ConfigError(f"the anchor {fixed!r} played no game here (the bots: {known})")
        shift = value - elo[fixed]
        elo = {p: e + shift for p, e in elo.items()}
        if cov is not None:
            k = where[fixed]
            for p in elo:
                i = where[p]
                var = float(cov[i, i] + cov[k, k] - 2.0 * cov[i, k])
                plus_minus[p] = _Z * ELO_PER_NAT * math.sqrt(max(var, 0.0))
                low[p] = elo[p] - plus_minus[p]
                high[p] = elo[p] + plus_minus[p]
    order = sorted(elo, key=lambda p: (-elo[p], p))
    counts = results.counts()
    apart = unlinked_groups(results.source)
    # No LOS between bots of groups no game links: it would weigh only the prior.
    group_of = {name: i for i, group in enumerate(apart) for name in group}
    rows: list[StandingsRow] = []
    for rank, player in enumerate(order, start=1):
        los = None
        if (
            cov is not None
            and rank < len(order)
            and group_of.get(player) == group_of.get(order[rank])
        ):
            nxt = order[rank]
            diff = (elo[player] - elo[nxt]) / ELO_PER_NAT
            i, j = where[player], where[nxt]
            var = float(cov[i, i] + cov[j, j] - 2.0 * cov[i, j])
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
                faults=c.faults,
            )
        )
    return Standings(
        rows=tuple(rows),
        games=len(results.source.game_ids),
        method=method,
        mean=mean,
        prior=prior if method == "mle" else None,
        k_factor=k_factor if method == "sequential" else None,
        intervals=kind,
        bootstrap=bootstrap if method == "mle" else 0,
        bootstrap_skipped=skipped,
        grouped=grouped,
        bootstrap_none=none,
        has_points=results.has_points,
        apart=apart,
        anchor=anchor,
    )


def _check_options(*, prior: float, mean: float, method: str, bootstrap: int) -> None:
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


def _check_games(games: Sequence[GameRecord]) -> None:
    seen: set[str] = set()
    for game in games:
        if game.game_id in seen:
            raise ValueError(f"game {shown(game.game_id)} appears twice")
        seen.add(game.game_id)
        _check_tie(game.game_id, [seat.place for seat in game.seats])


def _check_tie(game_id: str, places: Sequence[int]) -> None:
    if len(places) <= MAX_TIE:
        return
    tie = max(Counter(places).values())
    if tie > MAX_TIE:
        raise InputError(
            f"game {shown(game_id)}: {tie} players share a place; "
            f"the fit supports ties among at most {MAX_TIE}"
        )


def _covariance(samples: Any) -> Any:
    return np.atleast_2d(np.cov(samples, rowvar=False))


@dataclass(frozen=True)
class _Counts:
    games: int
    wins: int
    place_sum: float
    points_sum: float
    points_games: int
    faults: tuple[tuple[str, int], ...]


class _Columns:
    """`ResultColumns` as numpy arrays: what the fit and the counts read."""

    def __init__(self, source: ResultColumns) -> None:
        self.source = source
        seats = len(source.seat_game)
        self.game = _array(source.seat_game, np.intp, "game index")
        self.player = _array(source.seat_player, np.intp, "player index")
        self.place = _array(source.place, np.int64, "place")
        if not len(self.player) == len(self.place) == seats == len(source.points):
            raise ValueError("the seat columns differ in length")
        kinds = set(source.points)
        self.has_points = kinds != {None} and bool(kinds)
        self.points: npt.NDArray[np.int64] | None = None
        self.kept: npt.NDArray[np.bool_] | None = None
        if self.has_points:
            if None in kinds:
                self.kept = np.fromiter((p is not None for p in source.points), bool, seats)
                values: Iterable[int] = (0 if p is None else p for p in source.points)
            else:
                values = source.points  # type: ignore[assignment]
            self.points = _array(values, np.int64, "points")
        faults = [FAULT_CAUSES.index(c) if c in FAULT_CAUSES else -1 for c in source.causes]
        self.fault = np.asarray([*faults, -1], dtype=np.intp)[
            _array(source.seat_cause, np.intp, "cause index")
        ]

    def check(self) -> None:
        """What `_check_games` checks of records: no game twice, no tie too large."""
        source = self.source
        if len(set(source.game_ids)) != len(source.game_ids):
            seen: set[str] = set()
            for game_id in source.game_ids:
                if game_id in seen:
                    raise ValueError(f"game {shown(game_id)} appears twice")
                seen.add(game_id)
        seats = np.bincount(self.game, minlength=len(source.game_ids))
        if len(seats) and seats.max() > MAX_TIE:
            places = _plain(self.place)
            first = 0
            for g, count in enumerate(seats.tolist()):
                _check_tie(source.game_ids[g], places[first : first + count])
                first += count

    def orders(self) -> FinishingOrders:
        return FinishingOrders(
            players=tuple(self.source.players),
            game=self.game,
            player=self.player,
            place=self.place,
            games=len(self.source.game_ids),
        )

    def rankings(self) -> list[list[list[str]]]:
        """Every game's finishing order, in the order of the games."""
        return [game.ranking() for game in self.source.records()]

    def counts(self) -> dict[str, _Counts]:
        """Each player's games, wins, places, points and faults."""
        n = len(self.source.players)
        player = self.player
        games = np.bincount(player, minlength=n)
        wins = np.bincount(player[self.place == 1], minlength=n)
        place_sum = np.bincount(player, weights=self.place, minlength=n)
        points_sum: Any = np.zeros(n)
        points_games: Any = np.zeros(n, dtype=np.intp)
        if self.points is not None:
            kept = self.kept
            who = player if kept is None else player[kept]
            points = self.points if kept is None else self.points[kept]
            points_sum = np.bincount(who, weights=points, minlength=n)
            points_games = np.bincount(who, minlength=n)
        faulty = self.fault >= 0
        faults = np.bincount(
            self.fault[faulty] * n + player[faulty], minlength=len(FAULT_CAUSES) * n
        ).reshape(len(FAULT_CAUSES), n)
        return {
            name: _Counts(
                games=int(games[i]),
                wins=int(wins[i]),
                place_sum=float(place_sum[i]),
                points_sum=float(points_sum[i]),
                points_games=int(points_games[i]),
                faults=tuple((cause, int(faults[k, i])) for k, cause in enumerate(FAULT_CAUSES)),
            )
            for i, name in enumerate(self.source.players)
        }


def _array(values: Iterable[int] | Any, dtype: Any, what: str) -> Any:
    """``values`` as a numpy array of ``dtype`` (no copy if it is one already)."""
    if isinstance(values, np.ndarray) and values.dtype == dtype:
        return values
    try:
        return np.asarray(values if isinstance(values, Sequence) else list(values), dtype=dtype)
    except OverflowError:
        raise ValueError(f"a {what} does not fit in 64 bits") from None


def _plain(values: Any) -> list[int]:
    return list(values.tolist())


# -- rendering -----------------------------------------------------------------------


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
        }
        if standings.bootstrap
        else None,
        "rows": [_row_values(row) | {"faults": dict(row.faults)} for row in standings.rows],
        "apart": [list(group) for group in standings.apart] or None,
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


_REQUIRED = ("game", "player", "place")
_OPTIONAL = ("points", "cause", "group")


def load_places_csv(path: str | os.PathLike[str]) -> list[GameRecord]:
    """Read a ``game,player,place`` CSV file (see `read_places_csv`); "-" is stdin."""
    return load_places_columns(path).records()


def load_places_columns(path: str | os.PathLike[str]) -> ResultColumns:
    """`load_places_csv` in columns: the fast form for the standings of a large file."""
    name = os.fspath(path)
    try:
        if name == "-":
            return read_places_columns(sys.stdin, "<stdin>")
        with open(name, "rb") as stream:
            kind = os.fstat(stream.fileno()).st_mode
            if stat.S_ISCHR(kind) or stat.S_ISBLK(kind):  # /dev/zero would never end
                raise InputError(f"{name}: a device, not a file of results (for stdin: -)")
            data = stream.read()
        if data.startswith(b"SQLite format 3\0"):  # `arena rate league.sqlite`
            raise InputError(
                f"{name}: an SQLite file (an arena store?), not a CSV file of finishing"
                " orders; arena standings reads a store"
            )
        return _read_places_bytes(data, name)
    except UnicodeDecodeError as err:
        raise InputError(f"{name}: not UTF-8 text ({err.reason} at byte {err.start})") from err
    except OSError as err:
        raise InputError(f"{name}: cannot read: {err.strerror or err}") from err
    except MemoryError:
        raise InputError(f"{name}: too large to read into memory") from None


def read_places_csv(stream: TextIO, name: str = "<input>") -> list[GameRecord]:
    """Read finishing orders: CSV with columns game, player, place; one row per player
    per game. Optional columns: points (an integer), cause (the elimination cause) and
    group (the duplicate-deal group of the game). Column names are case-insensitive;
    other columns are ignored; blank lines are skipped. Games keep the order of their
    first row.

    A place is 1 plus the number of the game's players placed better (as arena places
    its own games): tied players share a place and the places after them are skipped
    (1, 1, 3), and no place is past the game's number of players.

    Raises `InputError` naming the line for every problem: no header or no rows, a
    missing column, a wrong number of fields, an empty game or player, a place that is
    not a whole number >= 1, points that are not a whole number, a number too large
    for 64 bits, a player twice in one game, a game given two groups, a game of one
    player, a place past the game's number of players or one its other places rule
    out (2, 2 or 1, 1, 2).
    """
    return read_places_columns(stream, name).records()


def read_places_columns(stream: TextIO, name: str = "<input>") -> ResultColumns:
    """`read_places_csv` in columns (`ResultColumns`), without an object per row.

    A well-formed file is read column by column: each distinct text of a column is
    checked and converted once, and numpy checks the games (issue 14.6). At anything
    else (a blank line, a bad value, a repeated player...) the file is read again line
    by line, which skips or reports it exactly as `read_places_csv` always has.
    """
    with paused_collector():  # a million rows make millions of objects, in no cycle
        text = stream.read()
        columns = _read_columns(text, name)
        if columns is None:
            columns = ResultColumns.from_records(_read_places_csv(io.StringIO(text), name))
        return columns


_BOM = b"\xef\xbb\xbf"
"""The UTF-8 byte order mark, which a file may begin with (it is read as utf-8-sig)."""


def _read_places_bytes(data: bytes, name: str) -> ResultColumns:
    """`read_places_columns` of a file's bytes: UTF-8 text, with or without a byte order
    mark. A plain file (no quotes, carriage returns or NULs) is read from its bytes,
    never decoded whole unless the line-by-line reader must read it; any other file
    is decoded exactly as ``open(name, encoding="utf-8-sig", newline="")`` decodes it
    (raising its `UnicodeDecodeError`) and read as text."""
    with paused_collector():
        body = data[len(_BOM) :] if data.startswith(_BOM) else data
        if b'"' not in body and b"\r" not in body and b"\0" not in body and _utf8(body):
            columns = _plain_columns(body, name)
            if columns is None:
                text = body.decode()
                columns = ResultColumns.from_records(_read_places_csv(io.StringIO(text), name))
            return columns
        stream = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", newline="")
        return read_places_columns(stream, name)


def _utf8(data: bytes) -> bool:
    """Whether ``data`` is UTF-8 text, checked a megabyte or so at a time (a newline
    never falls inside a character) so as not to hold it all decoded."""
    if data.isascii():
        return True
    view = memoryview(data)
    start = 0
    while start < len(data):
        end = data.find(b"\n", start + (1 << 20)) + 1 or len(data)
        try:
            str(view[start:end], "utf-8")
        except UnicodeDecodeError:
            return False
        start = end
    return True


_LARGEST = 2**63 - 1
"""The largest place or points (they are counted in 64-bit integers, as SQLite does)."""


def _shown_cell(cell: str) -> str:
    """A header cell as a message shows it: quoted, with any control character or
    oddity escaped ("place\\x00"), and cut short."""
    return clipped(repr(cell)[1:-1] if not cell.isprintable() else cell)


def _header(reader: Any, name: str) -> dict[str, int]:
    """Read the header (after any blank lines): the index of each known column."""
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
            f" (it names {', '.join(_shown_cell(c) for c in columns[:8])}"
            f"{', ...' if len(columns) > 8 else ''})"
        )
    twice = sorted({c for c in columns if c and columns.count(c) > 1})
    if twice:
        raise InputError(f"{where}: column {clipped(twice[0])} appears twice in the header")
    col = {c: columns.index(c) for c in _REQUIRED + _OPTIONAL if c in columns}
    col["width"] = len(columns)
    return col


def _read_columns(text: str, name: str) -> ResultColumns | None:
    """The columns of a well-formed file, or None if the line-by-line reader must
    read it (to skip blank lines, or to report a problem with its line)."""
    if '"' not in text and "\r" not in text and "\0" not in text:
        # No quoting: the fields are the bytes between commas and newlines. (A lone
        # surrogate, as from stdin read with surrogateescape, goes through as it is.)
        return _plain_columns(text.encode("utf-8", "surrogatepass"), name)
    reader = csv.reader(io.StringIO(text), strict=True)
    try:
        col = _header(reader, name)
        cells = _cells(reader, col["width"])
    except csv.Error:
        return None
    if cells is None or not cells[0]:
        return None
    return _assemble(_TextCells(cells), col)


def _plain_columns(data: bytes, name: str) -> ResultColumns | None:
    """`_read_columns` of UTF-8 text without quotes, carriage returns or NULs, from its
    bytes: numpy finds every field at once, and only the distinct texts of a column
    (and the first of each run of a game's rows) become Python strings."""
    reader = csv.reader(_lines(data), strict=True)
    try:
        col = _header(reader, name)
    except csv.Error:
        return None
    start = 0
    for _ in range(reader.line_num):  # past the header and any blank line before
        start = data.find(b"\n", start) + 1 or len(data)
    cells = _ByteCells.split(data, start, col["width"])
    return None if cells is None else _assemble(cells, col)


def _why(err: csv.Error) -> str:
    """What `csv` found wrong, in the words of this page, not of Python's."""
    text = str(err)
    if text.startswith("field larger than field limit"):
        return f"a cell longer than {csv.field_size_limit():,} characters"
    if text.startswith("new-line character seen in unquoted field"):
        return "a carriage return inside a cell that is not quoted"
    return text


def _lines(data: bytes) -> Iterable[str]:
    """The lines of ``data`` (UTF-8) as `io.StringIO` gives them, one at a time."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start) + 1 or len(data)
        yield data[start:end].decode("utf-8", "surrogatepass")
        start = end


def _assemble(cells: _TextCells | _ByteCells, col: dict[str, int]) -> ResultColumns | None:
    """The columns of the rows of ``cells`` (with the header's ``col``), checked as the
    line-by-line reader checks them; None at anything it would skip or report."""
    count = cells.count
    # Games, numbered in the order of their first row; players, in the order of names.
    # Most files give each game's rows together: then a game starts wherever the cell
    # changes, and only the first cell of each run is read.
    texts, changes = cells.runs(col["game"])
    game_ids = list(map(str.strip, texts))
    if len(set(game_ids)) == len(game_ids):  # no game in two runs of rows
        game = np.zeros(count, dtype=np.intp)
        np.cumsum(changes, out=game[1:])
    else:
        texts, codes = cells.distinct(col["game"], ordered=True)
        names = list(map(str.strip, texts))
        game_ids = list(dict.fromkeys(names))
        game = _renumber(names, game_ids)[codes]
    del texts, changes
    player_texts, player_codes = cells.distinct(col["player"])
    player_names = list(map(str.strip, player_texts))
    if "" in game_ids or "" in player_names:
        return None
    if _CONTROL.search("".join(game_ids)) or _CONTROL.search("".join(player_names)):
        return None
    players = sorted(set(player_names))
    player = _renumber(player_names, players)[player_codes]
    del player_texts, player_codes, player_names

    place = cells.digits(col["place"])
    if place is None:
        texts, codes = cells.distinct(col["place"])
        values = list(map(_number, texts))
        if not all(value is not None and 1 <= value <= _LARGEST for value in values):
            return None
        place = np.array(values, dtype=np.int64)[codes]
    elif place.min() < 1:
        return None
    points: npt.NDArray[np.object_] | None = None
    if "points" in col:
        texts, codes = cells.distinct(col["points"])
        numbers = list(map(_number, texts))
        if any(n is None and t.strip() for t, n in zip(texts, numbers, strict=True)):
            return None
        points = np.array(numbers, dtype=object)[codes]
    causes: list[str] = []
    cause = np.full(count, -1, dtype=np.intp)
    if "cause" in col:
        texts, codes = cells.distinct(col["cause"])
        cause_names = [text.strip() or None for text in texts]
        causes = sorted({c for c in cause_names if c is not None})
        cause_index = {c: k for k, c in enumerate(causes)}
        cause_of = [-1 if c is None else cause_index[c] for c in cause_names]
        cause = np.array(cause_of, dtype=np.intp)[codes]
    group_names: list[str | None] = [None]
    group = np.zeros(count, dtype=np.intp)
    if "group" in col:
        texts, codes = cells.distinct(col["group"])
        group_of = [text.strip() or None for text in texts]
        group_names = [None, *sorted({g for g in group_of if g is not None})]
        group_index = {g: k for k, g in enumerate(group_names)}
        group = np.array([group_index[g] for g in group_of], dtype=np.intp)[codes]
    del cells

    # The seats of each game together, in the order of their rows.
    if np.any(game[1:] < game[:-1]):
        order = np.argsort(game, kind="stable")
        game, player, place, cause, group = (a[order] for a in (game, player, place, cause, group))
        if points is not None:
            points = points[order]
    seats = np.bincount(game, minlength=len(game_ids))
    if seats.min() < 2:
        return None  # a game of one player
    first = np.cumsum(seats) - seats
    if np.any(group != np.repeat(group[first], seats)):
        return None  # a game in two groups
    if _repeats(game * len(players) + player):
        return None  # a player twice in one game
    if misplaced(place, game, seats, first).any():
        return None  # a place past the game's seats, or one its other places rule out
    return ResultColumns(
        game_ids=game_ids,
        groups=[group_names[k] for k in group[first].tolist()],
        players=tuple(players),
        causes=tuple(causes),
        seat_game=game,
        seat_player=player,
        place=place,
        points=[None] * count if points is None else points.tolist(),
        seat_cause=cause,
    )


def _check_places(name: str, game: str, seats: Sequence[SeatRecord], lines: Sequence[int]) -> None:
    """Raise `InputError`, naming the line, unless every place of ``game`` is 1 plus
    the number of its players placed better (places 1 to the number of players; tied
    players share the best of the places they take and the others are skipped:
    1, 1, 3), as arena's own games are placed."""
    count = len(seats)
    over = [
        (line, seat.place) for seat, line in zip(seats, lines, strict=True) if seat.place > count
    ]
    if over:
        line, place = min(over)
        raise InputError(
            f"{name}, line {line}: place {place} in game {clipped(game)}, which has "
            f"{count} players (places 1 to {count})"
        )
    ranked = sorted(zip((seat.place for seat in seats), lines, strict=True))
    better = 0
    for k, (place, line) in enumerate(ranked):
        if k and place != ranked[k - 1][0]:
            better = k
        if place != better + 1:
            who = {0: "no player", 1: "1 player"}.get(better, f"{better} players")
            raise InputError(
                f"{name}, line {line}: place {place} in game {clipped(game)}, but {who} of "
                f"the game placed better, so it is place {better + 1} (a place is 1 plus the "
                "number placed better; tied players share it, as in 1, 1, 3)"
            )


def _renumber(names: Sequence[str], order: Sequence[str]) -> npt.NDArray[np.intp]:
    """The index in ``order`` of each of ``names``."""
    index = {name: k for k, name in enumerate(order)}
    return np.fromiter(map(index.__getitem__, names), dtype=np.intp, count=len(names))


def _cells(reader: Any, width: int) -> list[Sequence[str]] | None:
    """The columns of the rows left in ``reader``; None unless each has ``width`` fields."""
    rows = list(reader)
    if set(map(len, rows)) != {width}:
        return None
    return list(zip(*rows, strict=True))


class _TextCells:
    """The cells of the rows of CSV text, as the csv module reads them: a tuple of
    strings a column. (`_ByteCells` answers the same questions from bytes.)"""

    def __init__(self, columns: list[Sequence[str]]) -> None:
        self.columns = columns
        self.count = len(columns[0])

    def runs(self, k: int) -> tuple[list[str], npt.NDArray[np.bool_]]:
        """The cell of each run of equal cells of column ``k``, and whether each row
        after the first starts a run."""
        cells = self.columns[k]
        changes = np.fromiter(map(operator.ne, cells[1:], cells[:-1]), bool, self.count - 1)
        return [cells[0], *compress(cells[1:], changes)], changes

    def distinct(self, k: int, *, ordered: bool = False) -> tuple[list[str], npt.NDArray[np.intp]]:
        """Each distinct cell of column ``k`` once (in the order of its first row if
        ``ordered``), and the index of each row's cell among them."""
        cells = self.columns[k]
        texts = list(dict.fromkeys(cells))
        return texts, _renumber(cells, texts)

    def digits(self, k: int) -> npt.NDArray[np.int64] | None:
        """The numbers in column ``k`` if numpy can read them all; here, never."""
        return None


_LOW_BYTES = np.array([(1 << 8 * n) - 1 for n in range(9)], dtype="<u8")
"""The mask of the first n bytes of a little-endian word, for n from 0 to 8."""

_MULTIPLIERS = (0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB, 0xD6E8FEB86659FD93)
"""Odd 64-bit constants, for multiplicative hashing."""


# Fields longer than this (in bytes) send a file to the line-by-line reader: the fast
# one reads every row's field to the length of the longest, so one long cell among a
# million rows would cost a million times its length.
_LONGEST_FIELD = 256


class _ByteCells:
    """The cells of the rows of plain CSV bytes (no quotes, carriage returns or NULs):
    where each field starts and ends, found by numpy. A column's cells are compared as
    their bytes padded with zeros to whole 64-bit words (no field holds a zero byte,
    so different texts have different words); only the distinct ones are decoded."""

    def __init__(self, buffer: npt.NDArray[np.uint8], separators: Any, width: int) -> None:
        self.size = len(buffer) - 8
        self.buffer = buffer
        self.separators = separators
        self.width = width
        self.count = len(separators) // width + 1

    @classmethod
    def split(cls, data: bytes, start: int, width: int) -> _ByteCells | None:
        """The fields of the lines of ``data`` from ``start`` on (what `csv.reader`
        reads from them); None unless every line has ``width`` fields."""
        size = len(data) - start
        if size and data.endswith(b"\n"):
            size -= 1
        if not size:
            return None
        buffer = np.zeros(size + 8, dtype=np.uint8)  # a word can be read at every byte
        buffer[:size] = np.frombuffer(data, dtype=np.uint8, count=size, offset=start)
        body = buffer[:size]
        newline = body == ord("\n")
        lines = int(np.count_nonzero(newline)) + 1
        separators = np.flatnonzero(newline | (body == ord(",")))
        del newline
        if len(separators) != lines * width - 1 or np.any(
            body[separators[width - 1 :: width]] != ord("\n")
        ):
            return None  # a blank line, or one with another number of fields
        bounds = np.concatenate(([-1], separators, [size]))
        if int(np.diff(bounds).max()) > _LONGEST_FIELD + 1:
            return None  # each row's words would span the longest: the line reader
        return cls(buffer, separators, width)

    def _field(self, k: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
        """Where each row's field of column ``k`` starts, and its length in bytes."""
        separators, width = self.separators, self.width
        line_ends = separators[width - 1 :: width]
        starts = separators[k - 1 :: width] + 1 if k else np.concatenate(([0], line_ends + 1))
        last = k == width - 1
        ends = np.concatenate((line_ends, [self.size])) if last else separators[k::width]
        return starts, ends - starts

    def _words(self, starts: npt.NDArray[np.intp], lengths: npt.NDArray[np.intp]) -> Any:
        """Each row's field as little-endian 64-bit words (one row each), zero-padded."""
        count = max(1, -(-int(lengths.max()) // 8))
        # A word at every byte of the buffer, read unaligned.
        loads = np.ndarray((self.size + 1,), dtype="<u8", buffer=self.buffer, strides=(1,))
        words = np.empty((self.count, count), dtype="<u8")
        for i in range(count):
            at = np.minimum(starts + 8 * i, self.size) if i else starts
            words[:, i] = loads[at] & _LOW_BYTES[np.clip(lengths - 8 * i, 0, 8)]
        return words

    @staticmethod
    def _texts(words: Any) -> list[str]:
        """The text of each row of ``words``."""
        rows, count = words.shape
        padded = np.zeros((rows, 8 * count + 1), dtype=np.uint8)
        padded[:, :-1] = np.ascontiguousarray(words).view(np.uint8)
        padded[:, -1] = ord("\n")
        flat = padded.ravel()
        text: str = flat[flat != 0].tobytes().decode("utf-8", "surrogatepass")
        return text.split("\n")[:-1]

    def runs(self, k: int) -> tuple[list[str], npt.NDArray[np.bool_]]:
        """As `_TextCells.runs`."""
        words = self._words(*self._field(k))
        if words.shape[1] == 1:
            changes = words[1:, 0] != words[:-1, 0]
        else:
            changes = np.any(words[1:] != words[:-1], axis=1)
        firsts = np.concatenate(([0], np.flatnonzero(changes) + 1))
        return self._texts(words[firsts]), changes

    def distinct(self, k: int, *, ordered: bool = False) -> tuple[list[str], npt.NDArray[np.intp]]:
        """As `_TextCells.distinct`."""
        words = self._words(*self._field(k))
        key = words[:, 0] if words.shape[1] == 1 else _mix(words)
        if ordered:
            _, rows, codes = np.unique(key, return_index=True, return_inverse=True)
        else:
            unique = np.unique(key)
            codes = _lookup(unique, key)
            rows = np.empty(len(unique), dtype=np.intp)
            rows[codes] = np.arange(self.count)  # a row of each
        if words.shape[1] > 1 and not np.array_equal(words[rows][codes], words):
            # Two texts with one key: number them by their words themselves.
            _, rows, codes = np.unique(words, axis=0, return_index=True, return_inverse=True)
        codes = codes.reshape(-1)
        if ordered:
            by_row = np.argsort(rows)
            rank = np.empty_like(by_row)
            rank[by_row] = np.arange(len(rows))
            rows, codes = rows[by_row], rank[codes]
        return self._texts(words[rows]), codes

    def digits(self, k: int) -> npt.NDArray[np.int64] | None:
        """The numbers in column ``k`` if each of its cells is 1 to 18 ASCII digits
        (all that `int` reads alike and 64 bits hold); None otherwise."""
        starts, lengths = self._field(k)
        shortest, longest = int(lengths.min()), int(lengths.max())
        if shortest < 1 or longest > 18:
            return None
        digits = self._words(starts, lengths).view(np.uint8)
        value = np.zeros(self.count, dtype=np.int64)
        for j in range(longest):
            digit = digits[:, j] - np.uint8(ord("0"))
            if j < shortest:
                if digit.max() > 9:
                    return None
                value = value * 10 + digit
            else:
                inside = lengths > j
                if np.any(digit[inside] > 9):
                    return None
                value = np.where(inside, value * 10 + digit, value)
        return value


def _mix(words: Any) -> Any:
    """One 64-bit key for each row of ``words`` (rows of two words or more)."""
    key = words[:, 0].copy()
    for i in range(1, words.shape[1]):
        key *= np.uint64(_MULTIPLIERS[0])
        key ^= key >> np.uint64(29)
        key ^= words[:, i]
    return key


def _lookup(unique: Any, keys: Any) -> npt.NDArray[np.intp]:
    """The index of each of ``keys`` in ``unique`` (sorted, holding every key): by a
    table of a multiplicative hash that gives each of a few hundred keys its own slot,
    a few times faster than a binary search."""
    bits = (2 * len(unique) ** 2).bit_length()
    if bits <= 20:
        shift = np.uint64(64 - bits)
        for multiplier in map(np.uint64, _MULTIPLIERS):
            slots = (unique * multiplier) >> shift
            if len(np.unique(slots)) == len(unique):
                table = np.zeros(1 << bits, dtype=np.intp)
                table[slots] = np.arange(len(unique))
                codes: npt.NDArray[np.intp] = table[(keys * multiplier) >> shift]
                return codes
    found: npt.NDArray[np.intp] = np.searchsorted(unique, keys)
    return found


def _number(text: str) -> int | None:
    """The whole number in ``text`` as `_whole` reads it; None if blank, not one or
    too large for 64 bits."""
    if text.isdecimal() and len(text) <= 18:
        return int(text)
    try:
        return _whole(text, "", "")
    except InputError:
        return None


def _repeats(keys: npt.NDArray[np.intp]) -> bool:
    """Whether a value occurs twice."""
    ordered = np.sort(keys)
    return bool(np.any(ordered[1:] == ordered[:-1]))


def _read_places_csv(stream: TextIO, name: str) -> list[GameRecord]:
    reader = csv.reader(stream, strict=True)
    seat = SeatRecord.checked  # every value is checked below, once
    try:
        col = _header(reader, name)
        width = col["width"]
        seats: dict[str, list[SeatRecord]] = {}
        groups: dict[str, str | None] = {}
        first_line: dict[tuple[str, str], int] = {}
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
            place = (
                int(text)
                if text.isdecimal() and len(text) <= 18
                else _whole(text, "place", f"{name}, line {line}")
            )
            if place is None or place < 1:
                raise InputError(
                    f"{name}, line {line}: place {shown(text.strip())} is not a whole number >= 1"
                )
            if place > _LARGEST:
                raise InputError(f"{name}, line {line}: place {shown(text.strip())} is too large")
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
                    f"{where}: {clipped(player)} appears twice in game {clipped(game)} "
                    f"(first on line {first_line[game, player]})"
                )
            first_line[game, player] = line
            if game in groups and groups[game] != group:
                where = f"{name}, line {line}"
                raise InputError(
                    f"{where}: game {clipped(game)} is in group {clipped(group or '(none)')} here"
                    f" but in group {clipped(groups[game] or '(none)')} on an earlier line"
                )
            groups[game] = group
            seats.setdefault(game, []).append(seat(player, place, points, cause))
    except csv.Error as err:
        raise InputError(f"{name}, line {reader.line_num}: not valid CSV ({_why(err)})") from err
    if not seats:
        raise InputError(f"{name}: no results, only a header")
    for game, players in seats.items():
        if len(players) < 2:
            raise InputError(
                f"{name}: game {clipped(game)} has one player ({clipped(players[0].player)});"
                " a game needs at least 2"
            )
    for game, players in seats.items():
        _check_places(name, game, players, [first_line[game, s.player] for s in players])
    return [GameRecord.checked(game, groups[game], tuple(s)) for game, s in seats.items()]


def _bad_name(game: str, player: str, where: str) -> None:
    """Raise the InputError for an empty game or player, or one with a control character."""
    if not game:
        raise InputError(f"{where}: the game is empty")
    if not player:
        raise InputError(f"{where}: the player is empty")
    for what, text in (("game", game), ("player", player)):
        if _CONTROL.search(text):
            raise InputError(f"{where}: the {what} {shown(text)} holds a control character")


def _whole(text: str, what: str, where: str) -> int | None:
    """The whole number in ``text``, None if it is blank; `InputError` if it is not one
    or does not fit in 64 bits."""
    text = text.strip()
    if not text:
        return None
    digits = text.lstrip("+-")
    if digits.isdecimal() and len(digits.lstrip("0")) > 19:  # int() refuses 4,300 digits
        raise InputError(f"{where}: {what} {shown(text)} is too large")
    try:
        value = int(text)
    except ValueError:
        raise InputError(f"{where}: {what} {shown(text)} is not a whole number") from None
    if abs(value) > _LARGEST:
        raise InputError(f"{where}: {what} {shown(text)} is too large")
    return value
