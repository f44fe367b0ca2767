"""Standings from finishing orders: the ratings (`arena.ratings`) and the counts
(`compute_standings`), and the groups of bots no game links."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from arena._gc import paused_collector
from arena._text import printable_name
from arena.errors import ConfigError, InputError, shown
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
from arena.records import FORFEIT
from arena.records import GameRecord as GameRecord
from arena.records import ResultColumns as ResultColumns
from arena.records import SeatRecord as SeatRecord

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
    """Games played (forfeits are not, which the "forfeit" fault counts)."""
    wins: int
    """Games played and finished in first place (shared first places count)."""
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
    """Games in the result set that were played (forfeits are not: `forfeits`)."""
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
    bootstrap_fallback: str = ""
    """Why the ± are the Fisher intervals although a bootstrap was requested: its
    spread said nothing of the uncertainty (`BootstrapResult.degenerate`)."""
    has_points: bool = field(default=False)
    """Whether any game kept points."""
    apart: tuple[tuple[str, ...], ...] = ()
    """The groups of bots that no chain of games links, largest first, when there are
    two or more (empty when every pair of bots is linked)."""
    anchor: tuple[str, float] | None = None
    """The bot whose Elo was fixed, and at what, if the scale was anchored."""
    forfeits: int = 0
    """Forfeits (games a disqualified bot sat at, never played) left out of the ratings
    and of every count but the "forfeit" column (`arena.records.forfeited`); `games`
    does not count them."""
    unplayed: tuple[str, ...] = ()
    """Bots with forfeits and no game played: not rated, so not in `rows`."""
    versions: tuple[tuple[str, int], ...] = ()
    """The bots whose games were played by more than one version of their submission
    (a league's store: `arena.store.Store.changed_versions`), with the number of
    versions, by name: their rows pool them."""

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
                instead = (
                    f", not the bootstrap: {self.bootstrap_fallback}"
                    if self.bootstrap_fallback
                    else ""
                )
                lines.append(f"±: 95% interval{against} from the Fisher information{instead}.")
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
        if self.forfeits:
            lines.append(forfeits_message(self.forfeits, self.unplayed))
        if self.apart:
            lines.append(apart_message(self.apart))
        if self.versions:
            lines.append(versions_message(self.versions))
        return "\n".join(lines)


def forfeits_message(forfeits: int, unplayed: Sequence[str] = ()) -> str:
    """The note for standings whose results hold forfeits."""
    games = "game" if forfeits == 1 else "games"
    text = (
        f"Forfeits: {forfeits:,} {games} at which a disqualified bot sat, never played, are"
        " left out of Elo, games, wins and places (of every bot at the table, the"
        " disqualified one's too); the forfeit column counts each bot's."
    )
    if unplayed:
        text += f" Not rated, with no game played: {_group_names(unplayed)[1:-1]}."
    return text


def versions_message(versions: Sequence[tuple[str, int]]) -> str:
    """The note for standings whose rows pool versions of a submission."""
    each = ", ".join(f"{printable_name(name)} ({n})" for name, n in versions)
    return (
        f"Versions: the games of {each} were played by that many versions of its"
        " submission (it changed between runs, or while they played); each row counts"
        " them together. Rate a new version on its own in a store of its own."
    )


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
    versions: Mapping[str, int] | None = None,
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

    ``versions`` (a league store's `changed_versions`) names the bots whose rows pool
    more than one version of their submission: the notes and the JSON say so.

    Raises `arena.ratings.NoEstimateError` (an `InputError`) when ``prior`` is 0 and
    the plain MLE does not exist, and ``ValueError`` for invalid arguments or
    records (two records with one game id).
    """
    _check_options(prior=prior, mean=mean, method=method, bootstrap=bootstrap)
    if isinstance(records, ResultColumns):
        every = records
    else:
        games = list(records)
        _check_games(games)
        every = ResultColumns.from_records(games)
        del games
    # Forfeits are no finishing orders: left out of the fit and the counts, counted
    # apart (`arena.records.forfeited`).
    forfeits = every.forfeits()
    results = _Columns(every.played())
    if isinstance(records, ResultColumns):
        results.check()
    forfeit_games = len(every.game_ids) - len(results.source.game_ids)
    unplayed = tuple(sorted(set(forfeits) - set(results.source.players)))
    del every

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
    fallback = ""
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
                elif boot.degenerate is not None:
                    # The refits' spread is the prior's or none: the Fisher interval
                    # measures what such results say (`BootstrapResult.degenerate`).
                    fallback = boot.degenerate
                    samples = ()
                    fit = fit_plackett_luce(orders, prior=prior, intervals=True)
            if len(samples) >= 2:
                # A normal interval on the bootstrap standard error: percentiles of the
                # refits under-cover (see arena.ratings, bench/bootstrap_coverage.py).
                kind = "bootstrap"
                matrix = _covariance(samples)
        if matrix is None and fit.covariance is not None:
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
    counts = results.counts(forfeits)
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
        bootstrap_fallback=fallback,
        has_points=results.has_points,
        apart=apart,
        anchor=anchor,
        forfeits=forfeit_games,
        unplayed=unplayed,
        versions=tuple(sorted((n, v) for n, v in (versions or {}).items() if n in elo)),
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

    def counts(self, forfeits: dict[str, int]) -> dict[str, _Counts]:
        """Each player's games, wins, places, points and faults, its `forfeits` (games
        left out of these columns) counted as faults of their cause."""
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
        lost = FAULT_CAUSES.index(FORFEIT)
        for i, name in enumerate(self.source.players):
            faults[lost, i] += forfeits.get(name, 0)
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
