"""The league schedule: which bots meet at which table, in which seats, with which deal.

`make_schedule` is a pure function of its inputs. The same bots (in any order: they
are sorted first, so the order a folder lists them in does not matter), table size,
games per table, seed and options always give the same schedule, game ids, seat
orders, seeds and game order. A killed league can therefore rebuild its schedule and
skip the games it has stored.

Tables. Every k-subset of the bots is a table. When there are more than
``max_tables`` of them, a *balanced sample* is played instead: tables chosen so that
every pair of bots meets as equally often as possible, and every bot plays as many
tables as every other, give or take one. Where an exactly balanced sample (a block
design) exists the search aims for it; the result always has pair meetings within 1
of each other and table counts within 1 of each other. Because that is not possible
for every size (two tables of 3 from 4 bots always repeat one pair and miss
another), ``max_tables`` is a maximum: if the search finds no balanced sample of that
size within its budget, it drops tables until what is left is balanced (usually one
to a few percent of them), and `Schedule.note` says so. The search is deterministic,
so the same inputs give the same sample, found or not.

Seats. A table's bots get a seeded cyclic order; game ``r`` of a deal set seats them
rotated by ``r``, so over k games each bot sits in each seat once (and the bots keep
their neighbours, whom a seat order is mostly about).

Secrecy. Every deal seed, and the seeded orders above, come from a keyed function
(HMAC-SHA256) of the league's seed and public parts (table, deal): a bot that knows
the game ids, the schedule and its own hand learns nothing about other deals unless
it knows the seed. A seed of 1 is as reproducible as it is guessable; leagues draw a
128-bit secret when none is given (`arena.seeds`).

Deals. With duplicate deals, each deal (one seed) is played k times, once in every
rotation, and those k games share a group id (``"t12-d3"``): the luck of the cards
cancels out within the group. Without duplicates every game has its own deal, its own
seed and no group (it is its own group), and the rotations still cycle.

Order. Deal 0 of every table comes first, then deal 1 of every table, and so on, so a
league stopped early has given every table about the same number of games.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from arena.errors import ConfigError
from arena.rules import Rng, keyed_seed

_T = TypeVar("_T")

MIN_TABLE = 2
"""The smallest table (R2.3)."""
MAX_TABLE = 6
"""The largest table (R2.3)."""
MAX_GAMES = 1_000_000
"""The most games one schedule may hold; past that, set ``max_tables``."""


@dataclass(frozen=True, slots=True)
class ScheduledGame:
    """One game of the league."""

    index: int
    """Position in the schedule, from 0; stable for given inputs."""
    game_id: str
    """Unique id, ``"g000123"`` for index 123."""
    seats: tuple[str, ...]
    """The bot in each seat, seat 0 first."""
    seed: int
    """The deal's seed, from (league seed, table, deal); shared by a duplicate group."""
    group: str | None
    """Duplicate-deal group (``"t12-d3"``), or None when the game is its own group."""
    table: int
    """Index of the table in `Schedule.tables`."""
    deal: int
    """Index of the deal at this table, from 0."""
    rotation: int
    """How far the table's seat order is rotated: seat s holds ``tables[table][(s + r) % k]``."""


@dataclass(frozen=True, slots=True)
class Schedule:
    """Every game of a league, in the order to play them."""

    games: tuple[ScheduledGame, ...]
    """The games; ``games[i].index == i``."""
    note: str
    """What was scheduled, in words, for the league's report."""
    full: bool
    """True when every k-subset of the bots is a table, False for a balanced sample."""
    tables: tuple[tuple[str, ...], ...] = ()
    """Each table's bots in their rotation-0 seat order, by table index."""


def make_schedule(
    bots: Sequence[str],
    *,
    table_size: int,
    games_per_table: int,
    seed: int | str,
    duplicate: bool,
    max_tables: int | None = None,
) -> Schedule:
    """The schedule of a league between ``bots`` (see the module docstring).

    ``games_per_table`` games are played at every table; with ``duplicate`` it must
    be a multiple of ``table_size`` (each deal is played in every rotation).
    ``max_tables`` caps the number of tables; None plays every k-subset.

    Raises `ConfigError` for invalid inputs: a table size outside 2..6 or larger than
    the number of bots, duplicate or empty names, games per table below 1 or (with
    duplicate deals) not a multiple of the table size, ``max_tables`` below 1, or a
    schedule of more than `MAX_GAMES` games.
    """
    names = _check(bots, table_size, games_per_table, seed, duplicate, max_tables)
    n, k = len(names), table_size
    total = math.comb(n, k)
    key = str(seed)
    rng = Rng(keyed_seed(key, "arena.schedule"))

    full = max_tables is None or total <= max_tables
    if full:
        count = total
        _check_size(count, games_per_table, full=True)
        chosen = list(itertools.combinations(range(n), k))
    else:
        assert max_tables is not None
        _check_size(max_tables, games_per_table, full=False)
        chosen = _balanced_sample(n, k, max_tables, rng)
        count = len(chosen)

    _shuffle(rng, chosen)  # the play order of the tables
    tables: list[tuple[str, ...]] = []
    for members in chosen:
        order = list(members)
        _shuffle(rng, order)  # the table's cyclic seat order
        tables.append(tuple(names[i] for i in order))

    games = _games(tables, key, games_per_table, k, duplicate)
    note = (
        _describe(n, k, total, count, max_tables, chosen, full)
        + "; "
        + _describe_games(games_per_table, k, duplicate)
    )
    return Schedule(games=tuple(games), note=note, full=full, tables=tuple(tables))


def _games(
    tables: Sequence[tuple[str, ...]], key: str, games_per_table: int, k: int, duplicate: bool
) -> list[ScheduledGame]:
    """The games of `tables` (in their play order), as `make_schedule` orders them."""
    games: list[ScheduledGame] = []
    deals = games_per_table // k if duplicate else games_per_table
    rotations = k if duplicate else 1
    for deal in range(deals):
        for table, base in enumerate(tables):
            deal_seed = keyed_seed(key, "deal", table, deal)
            group = f"t{table}-d{deal}" if duplicate else None
            for r in range(rotations):
                rotation = r if duplicate else deal % k
                index = len(games)
                games.append(
                    ScheduledGame(
                        index=index,
                        game_id=f"g{index:06d}",
                        seats=base[rotation:] + base[:rotation],
                        seed=deal_seed,
                        group=group,
                        table=table,
                        deal=deal,
                        rotation=rotation,
                    )
                )
    return games


def is_schedule_of(
    schedule: Schedule,
    bots: Sequence[str],
    *,
    table_size: int,
    games_per_table: int,
    seed: int | str,
    duplicate: bool,
    max_tables: int | None = None,
) -> bool:
    """Whether `schedule` (one read back from a store, which can be anyone's) is one
    `make_schedule` can have made for these inputs: its tables each seat `table_size`
    of `bots` once, no two alike, no more of them than allowed (all of them for a full
    schedule), and its games are exactly the ones its tables make. Which sample of the
    tables was drawn is not checked (finding it again is what keeping it saves)."""
    names = set(bots)
    tables = schedule.tables
    total = math.comb(len(names), table_size)
    if len(tables) > total or (max_tables is not None and len(tables) > max_tables):
        return False
    if schedule.full and len(tables) != total:
        return False
    members = set()
    for table in tables:
        chosen = frozenset(table)
        if len(table) != table_size or len(chosen) != table_size or not chosen <= names:
            return False
        members.add(chosen)
    if len(members) != len(tables):
        return False
    games = _games(tables, str(seed), games_per_table, table_size, duplicate)
    return tuple(games) == schedule.games


def meetings(tables: Sequence[Sequence[str]]) -> dict[tuple[str, str], int]:
    """How often each pair of bots (names in sorted order) sits at the same table."""
    counts: dict[tuple[str, str], int] = {}
    for table in tables:
        for a, b in itertools.combinations(sorted(table), 2):
            counts[a, b] = counts.get((a, b), 0) + 1
    return counts


# -- checks ----------------------------------------------------------------------------


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check(
    bots: Sequence[str],
    k: int,
    games_per_table: int,
    seed: int | str,
    duplicate: bool,
    max_tables: int | None,
) -> list[str]:
    if isinstance(bots, str):
        raise ConfigError("bots must be a sequence of names, not one string")
    names = list(bots)
    for name in names:
        if not isinstance(name, str) or not name:
            raise ConfigError(f"a bot name must be a non-empty string, not {name!r}")
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ConfigError(f"bot names must be unique: {', '.join(twice)} listed twice")
    if not _is_int(k) or not MIN_TABLE <= k <= MAX_TABLE:
        raise ConfigError(f"table size must be {MIN_TABLE} to {MAX_TABLE}, not {k!r} (R2.3)")
    if len(names) < k:
        raise ConfigError(f"a table of {k} needs at least {k} bots; the league has {len(names)}")
    if not _is_int(games_per_table) or games_per_table < 1:
        raise ConfigError(f"games per table must be a whole number >= 1, not {games_per_table!r}")
    if duplicate and games_per_table % k:
        lower = games_per_table - games_per_table % k
        options = f"{lower} or {lower + k}" if lower else f"{k}"
        raise ConfigError(
            f"with duplicate deals, games per table must be a multiple of the table size "
            f"{k} (each deal is played once in each of the {k} seat rotations); "
            f"{games_per_table} is not: use {options}, or turn duplicate deals off"
        )
    if not (_is_int(seed) or (isinstance(seed, str) and seed)):
        raise ConfigError(f"the seed must be a whole number or a non-empty string, not {seed!r}")
    if max_tables is not None and (not _is_int(max_tables) or max_tables < 1):
        raise ConfigError(f"max tables must be a whole number >= 1, not {max_tables!r}")
    return sorted(names)


def _check_size(tables: int, games_per_table: int, *, full: bool) -> None:
    if tables * games_per_table > MAX_GAMES:
        hint = "set a maximum number of tables" if full else "lower the maximum number of tables"
        raise ConfigError(
            f"{tables:,} tables of {games_per_table} games are more than the "
            f"{MAX_GAMES:,} games a league may hold; {hint} or play fewer games per table"
        )


# -- words -----------------------------------------------------------------------------


def _times(count: int) -> str:
    return "once" if count == 1 else "twice" if count == 2 else f"{count} times"


def _spread(low: int, high: int, unit: str) -> str:
    if low == high:
        return f"{low} {unit}" if low != 1 else f"1 {unit.removesuffix('s')}"
    return f"{low} or {high} {unit}"


def _describe(
    n: int,
    k: int,
    total: int,
    count: int,
    max_tables: int | None,
    chosen: Sequence[Sequence[int]],
    full: bool,
) -> str:
    plural = "" if total == 1 else "s"
    if full:
        return f"all {total:,} table{plural} of {k} from {n} bots"
    pairs = _pair_counts(n, chosen)
    per_bot = [0] * n
    for table in chosen:
        for bot in table:
            per_bot[bot] += 1
    lo, hi = min(pairs), max(pairs)
    meet = _times(lo) if lo == hi else f"{lo} or {hi} times" if lo else f"at most {_times(hi)}"
    text = (
        f"a balanced sample of {count:,} of {total:,} tables of {k} from {n} bots; "
        f"each pair meets {meet}, each bot plays {_spread(min(per_bot), max(per_bot), 'tables')}"
    )
    if max_tables is not None and count < max_tables:
        text += f" (no balanced sample of {max_tables:,} was found)"
    return text


def _describe_games(games_per_table: int, k: int, duplicate: bool) -> str:
    each = f"{games_per_table} game{'s' if games_per_table > 1 else ''} per table"
    if duplicate:
        deals = games_per_table // k
        return (
            f"{each}: {deals} duplicate deal{'s' if deals > 1 else ''}, "
            f"each played in all {k} seat rotations"
        )
    if games_per_table % k == 0:
        return f"{each}, each its own deal, every bot in every seat equally often"
    return f"{each}, each its own deal, seats rotating"


# -- the balanced sample ---------------------------------------------------------------


def _pair_counts(n: int, tables: Sequence[Sequence[int]]) -> list[int]:
    counts = [[0] * n for _ in range(n)]
    for table in tables:
        for a, b in itertools.combinations(table, 2):
            counts[a][b] += 1
    return [counts[a][b] for a in range(n) for b in range(a + 1, n)]


def _below(rng: Rng, n: int) -> int:
    """A uniform integer in [0, n), for any n >= 1."""
    if n <= 1 << 16:
        return rng.below(n)
    bits = n.bit_length()
    while True:
        value = 0
        for _ in range((bits + 15) // 16):
            value = value << 16 | rng.word()
        value &= (1 << bits) - 1
        if value < n:
            return value


def _shuffle(rng: Rng, items: list[_T]) -> None:
    """Shuffle in place (Fisher-Yates), for lists of any length."""
    for i in range(len(items) - 1, 0, -1):
        j = _below(rng, i + 1)
        items[i], items[j] = items[j], items[i]


def _balanced_sample(n: int, k: int, size: int, rng: Rng) -> list[tuple[int, ...]]:
    """At most ``size`` distinct k-subsets of range(n), balanced in pairs and bots."""
    total = math.comb(n, k)
    if size > total - size:
        # The complement of a balanced sample is balanced: over all tables every pair
        # meets comb(n - 2, k - 2) times and every bot plays comb(n - 1, k - 1). Here a
        # failed search adds a table to the complement, which drops one from the sample.
        rest = set(_search(n, k, total - size, rng, grow=True))
        return [t for t in itertools.combinations(range(n), k) if t not in rest]
    return _search(n, k, size, rng, grow=False)


STEPS_BASE = 1_000
"""Steps the search may take for any sample size before it gives up on that size..."""
STEPS_PER_SEAT = 20
"""...plus this many per seat of the sample (tables times table size)..."""
STEPS_CAP = 10_000
"""...but no more than this."""
STEPS_RETRY = 10
"""After a size failed, each next size gets this fraction of the first budget."""


def _search(n: int, k: int, size: int, rng: Rng, *, grow: bool) -> list[tuple[int, ...]]:
    """``size`` tables, or fewer (more when ``grow``), distinct, pairs and bots balanced.

    A local search from a greedy start looks for ``size`` tables. When it has not found
    a balanced set within its budget, it drops the table that costs most (or adds the
    table that costs least) and goes on with a smaller budget; past twice `STEPS_CAP`
    steps it changes ever more tables at a time. One table alone, like all tables but
    one, is balanced, so this ends.
    """
    search = _Search(n, k, rng)
    for _ in range(size):
        search.add(search.new_table())
    first = min(STEPS_BASE + STEPS_PER_SEAT * size * k, STEPS_CAP)
    retry = max(first // STEPS_RETRY, 1)
    budget = first
    steps = changes = 0
    while not search.balanced():
        if steps >= budget:
            # Past twice the cap, change more tables at a time, so that this ends soon.
            for _ in range(1 + changes // 4 if steps >= 2 * STEPS_CAP else 1):
                if grow:
                    search.add(search.new_table())
                elif len(search.tables) > 1:
                    search.remove(search.costliest())
                changes += 1
            budget = steps + retry
            continue
        search.step(_ACCEPT[steps // _CYCLE % len(_ACCEPT)])
        steps += 1
    return sorted(search.tables)


class _Bag:
    """A set of ints with O(1) add, remove and uniform pick, in an order fixed by history.

    (The search must not depend on the iteration order of a set, which hashing decides.)
    """

    __slots__ = ("items", "where")

    def __init__(self, items: Iterable[int] = ()) -> None:
        self.items = list(items)
        self.where = {item: i for i, item in enumerate(self.items)}

    def add(self, item: int) -> None:
        self.where[item] = len(self.items)
        self.items.append(item)

    def remove(self, item: int) -> None:
        i = self.where.pop(item)
        last = self.items.pop()
        if last != item:
            self.items[i] = last
            self.where[last] = i


def _move(levels: dict[int, _Bag], key: int, old: int, step: int) -> None:
    """Move ``key`` from count ``old`` to ``old + step`` (the bag operations inlined)."""
    bag = levels[old]
    items, where = bag.items, bag.where
    i = where.pop(key)
    last = items.pop()
    if last != key:
        items[i] = last
        where[last] = i
    if not items:
        del levels[old]
    into = levels.get(old + step)
    if into is None:
        levels[old + step] = _Bag([key])
    else:
        into.where[key] = len(into.items)
        into.items.append(key)


def _width(levels: dict[int, _Bag]) -> int:
    return max(levels) - min(levels)


Move = tuple[int, int, int]
"""At the table at position `where`, bot x leaves and bot y takes its seat."""


class _Search:
    """Distinct tables with pair and bot counts, improved by swapping bots.

    The cost is the sum of squared pair counts plus the sum of squared bot counts;
    with the totals fixed, it is smallest exactly when both are spread by at most 1.
    Each step takes a pair or a bot whose count is off (above the ceiling of the mean
    or below its floor), a few tables where a swap would fix it, and the swap there
    that costs least. While the bots are balanced, the bot that left a table may take
    the seat of its replacement at another table: an exchange that keeps every bot's
    count. A move that raises the cost is taken with a chance that falls fast with the
    rise (simulated annealing), to leave dead ends.
    """

    def __init__(self, n: int, k: int, rng: Rng) -> None:
        self.n = n
        self.k = k
        self.total = math.comb(n, k)
        self.rng = rng
        self.pairs = [[0] * n for _ in range(n)]
        self.bots = [0] * n
        # The same counts for vector arithmetic over all bots at once.
        self.pairs_np = np.zeros((n, n), dtype=np.int64)
        self.bots_np = np.zeros(n, dtype=np.int64)
        self.tables: list[tuple[int, ...]] = []
        self.used: set[tuple[int, ...]] = set()
        self.of_bot = [_Bag() for _ in range(n)]
        self.pair_levels = {0: _Bag(a * n + b for a in range(n) for b in range(a + 1, n))}
        self.bot_levels = {0: _Bag(range(n))}

    # -- state

    def _count(self, table: tuple[int, ...], where: int, step: int) -> None:
        n, pairs, bots, pairs_np, bots_np = (
            self.n,
            self.pairs,
            self.bots,
            self.pairs_np,
            self.bots_np,
        )
        for i, a in enumerate(table):
            _move(self.bot_levels, a, bots[a], step)
            bots[a] += step
            bots_np[a] += step
            if step > 0:
                self.of_bot[a].add(where)
            else:
                self.of_bot[a].remove(where)
            row = pairs[a]
            for b in table[i + 1 :]:
                old = row[b]
                row[b] = pairs[b][a] = old + step
                pairs_np[a, b] = pairs_np[b, a] = old + step
                _move(self.pair_levels, a * n + b, old, step)

    def add(self, table: tuple[int, ...]) -> None:
        self.tables.append(table)
        self.used.add(table)
        self._count(table, len(self.tables) - 1, 1)

    def remove(self, where: int) -> None:
        table = self.tables[where]
        self._count(table, where, -1)
        self.used.discard(table)
        last = len(self.tables) - 1
        if where != last:
            moved = self.tables[last]
            self._count(moved, last, -1)
            self.tables[where] = moved
            self._count(moved, where, 1)
        self.tables.pop()

    def replace(self, where: int, new: tuple[int, ...]) -> None:
        old = self.tables[where]
        self._count(old, where, -1)
        self.used.discard(old)
        self.tables[where] = new
        self.used.add(new)
        self._count(new, where, 1)

    def balanced(self) -> bool:
        return _width(self.pair_levels) <= 1 and _width(self.bot_levels) <= 1

    # -- construction

    def _pick(self, options: Sequence[_T]) -> _T:
        return options[_below(self.rng, len(options))]

    def _some(self, options: list[int]) -> list[int]:
        """At most `SOME` of the options, drawn at random: a step looks at a few tables."""
        if len(options) <= SOME:
            return options
        return [self._pick(options) for _ in range(SOME)]

    def new_table(self) -> tuple[int, ...]:
        """A table not yet used: the least-used bot, then the bots that add least cost."""
        n, k, bots, pairs = self.n, self.k, self.bots, self.pairs
        low = min(bots)
        table = [self._pick([b for b in range(n) if bots[b] == low])]
        while len(table) < k:
            best: list[int] = []
            best_cost = 0
            for b in range(n):
                if b in table:
                    continue
                row = pairs[b]
                cost = sum(row[t] for t in table) + bots[b]
                if not best or cost < best_cost:
                    best, best_cost = [b], cost
                elif cost == best_cost:
                    best.append(b)
            table.append(self._pick(best))
        result = tuple(sorted(table))
        if result in self.used and 2 * len(self.used) >= self.total:
            # Most tables are used: take the first unused one in a seeded order.
            every = list(itertools.combinations(range(n), k))
            start = _below(self.rng, len(every))
            return next(t for t in every[start:] + every[:start] if t not in self.used)
        while result in self.used:  # a random table is new with a chance of at least 1/2
            out = _below(self.rng, k)
            others = [b for b in range(n) if b not in result]
            result = tuple(sorted([*result[:out], self._pick(others), *result[out + 1 :]]))
        return result

    def costliest(self) -> int:
        """The table whose removal lowers the cost most."""
        pairs, bots = self.pairs, self.bots
        best, best_cost = 0, -1
        for where, table in enumerate(self.tables):
            cost = sum(bots[a] + sum(pairs[a][b] for b in table) for a in table)
            if cost > best_cost:
                best, best_cost = where, cost
        return best

    # -- improvement

    def _delta(self, table: tuple[int, ...], x: int, y: int) -> int:
        """Half the change of cost when `y` takes the seat of `x` at `table`."""
        px, py = self.pairs[x], self.pairs[y]
        delta = self.bots[y] - self.bots[x] + self.k - py[x]
        for z in table:
            delta += py[z] - px[z]
        return delta

    def _best_outsiders(self, leave: Sequence[tuple[int, int]]) -> tuple[int, list[Move]]:
        """For x leaving the table at `where`, for each (where, x) in ``leave``, and any
        bot y not at that table taking its seat: the least `_delta`, and those moves."""
        k, pairs = self.k, self.pairs_np
        seats = np.array([self.tables[where] for where, _ in leave], dtype=np.intp)
        xs = np.array([x for _, x in leave], dtype=np.intp)
        own = pairs[xs[:, None], seats].sum(axis=1)  # x's meetings at its table
        deltas = (  # bots by rows, moves by columns
            self.bots_np[:, None]
            + pairs[:, seats].sum(axis=2)
            - pairs[:, xs]
            + (k - self.bots_np[xs] - own)[None, :]
        )
        deltas[seats, np.arange(len(leave))[:, None]] = _FAR
        least = int(deltas.min())
        ys, columns = np.nonzero(deltas == least)
        return least, [
            (*leave[c], int(y)) for y, c in zip(ys.tolist(), columns.tolist(), strict=True)
        ]

    def _violator(self, levels: dict[int, _Bag], num: int, den: int) -> tuple[int, bool]:
        """A key whose count is off, and whether it is too high; the mean is num / den."""
        low, high = min(levels), max(levels)
        too_low = low * den < num - den + 1  # low < floor(mean)
        too_high = high * den > num + den - 1  # high > ceil(mean)
        if too_low and too_high:
            too_low = _below(self.rng, 2) == 0
        return self._pick(levels[low if too_low else high].items), not too_low

    def _moves(self) -> tuple[int, list[Move], bool]:
        """The least `_delta` of the moves that would fix a count that is off, those
        moves, and whether the count is a pair's."""
        rng, n, k, tables, of_bot = self.rng, self.n, self.k, self.tables, self.of_bot
        size = len(tables)
        pair = _width(self.pair_levels) > 1
        if pair:
            key, high = self._violator(self.pair_levels, size * k * (k - 1), n * (n - 1))
            a, b = divmod(key, n)
            if not high:  # a and b meet too rarely: one comes to a table of the other
                moves = [
                    (where, x, come)
                    for stay, come in ((a, b), (b, a))
                    for where in self._some(
                        [t for t in of_bot[stay].items if come not in tables[t]]
                    )
                    for x in tables[where]
                    if x != stay
                ]
                return *self._least(moves), pair
            # a and b meet too often: one of them leaves a table of both
            leave = [
                (t, x)
                for t in self._some([t for t in of_bot[a].items if b in tables[t]])
                for x in (a, b)
            ]
        else:
            a, high = self._violator(self.bot_levels, size * k, n)
            if not high:  # a plays too few tables: a comes to a table without a
                while True:
                    where = _below(rng, size)
                    if a not in tables[where]:
                        return *self._least([(where, x, a) for x in tables[where]]), pair
            leave = [(self._pick(of_bot[a].items), a)]  # a plays too many: a leaves one
        return *self._best_outsiders(leave), pair

    def _least(self, moves: list[Move]) -> tuple[int, list[Move]]:
        best: list[Move] = []
        least = 0
        for move in moves:
            delta = self._delta(self.tables[move[0]], move[1], move[2])
            if not best or delta < least:
                best, least = [move], delta
            elif delta == least:
                best.append(move)
        return least, best

    def _take(self, delta: int, accept: Sequence[int]) -> bool:
        return delta <= 0 or self.rng.word() < accept[min(delta, len(accept) - 1)]

    def step(self, accept: Sequence[int]) -> None:
        """One move of the search (see the class docstring)."""
        first, moves, pair = self._moves()
        where, x, y = self._pick(moves)
        table = self.tables[where]
        stay = [z for z in table if z != x]
        new = tuple(sorted([y, *stay]))
        if new in self.used:
            return
        if not pair or _width(self.bot_levels) > 1:
            if self._take(first, accept):
                self.replace(where, new)
            return
        # x may take y's seat at another table. The change of cost of that second swap
        # after the first, which took x from and brought y to the bots of `stay`:
        options = [-1]  # -1: no second swap
        second = 0
        for other in self._some(self.of_bot[y].items):
            there = self.tables[other]
            if x not in there:
                delta = self._delta(there, y, x) - 2 - 2 * sum(z in there for z in stay)
                if delta < second:
                    options, second = [other], delta
                elif delta == second:
                    options.append(other)
        if not self._take(first + second, accept):
            return
        other = self._pick(options)
        self.replace(where, new)
        if other >= 0:
            swapped = tuple(sorted([x, *(z for z in self.tables[other] if z != y)]))
            if swapped not in self.used:
                self.replace(other, swapped)


SOME = 12
"""The most tables one step of the search looks at for one purpose."""
TEMPERATURES = (0.15, 0.25, 0.35, 0.5)
"""The search cycles through these temperatures: a cold spell settles, a warm one shakes."""
_ACCEPT = [[int(65536 * math.exp(-d / t)) for d in range(16)] + [0] for t in TEMPERATURES]
"""For each temperature, out of 65536, the chance to take a move that raises the cost by d."""
_CYCLE = 1_000
"""Steps at each temperature before the next."""
_FAR = 1 << 40
"""A cost no swap reaches: marks the bots already at a table."""
