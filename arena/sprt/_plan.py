"""Which games an SPRT plays: pairs of games on one deal, NEW's and OLD's.

Pair ``i`` is one deal (seed ``keyed_seed(key, "sprt-deal", i)``) played twice, and
both games share the duplicate group ``"p<i>"``, so that no bot process plays both
(a process would remember the deal: `arena.referee.BotPool.acquire`).

Against a field (``K - 1`` field bots at a table of K): the tested bot and the field
bots sit in a cyclic order, rotated by ``i mod K``, so that over K deals the test seat
goes round every seat; game "a" has NEW in the test seat, game "b" OLD, every other
seat the same. Each block of K deals draws its field bots (K - 1 of the field, in a
keyed random order) afresh: with a field larger than K - 1, every field bot plays
equally often in the long run.

Directly (a table of 2, no field): game "a" seats NEW and OLD, game "b" the same deal
with the seats swapped (which order comes first alternates with ``i``): NEW plays both
sides of every deal, so a channel between its processes and OLD's would tell it OLD's
hand in game "b". Only between trusted bots (`arena sprt --trusted`).

Blind seats: the bots never see who is NEW or OLD, or which game of a pair they
play. Each pair draws a name per seat (``bot-`` and six hex digits, from the secret
key), the same in both of its games, and each game an id of its own (``g`` and twelve
hex digits); the store and the output keep the real names and ids. Which game of a
pair is played first is drawn too (`Pair.order`): a field bot that learnt, through a
side channel, that it plays a deal for the second time learns nothing by it.

A plan is a pure function of its inputs, like a league's schedule: a resumed test
plays the same games with the same seeds.
"""

from __future__ import annotations

import dataclasses

from arena.errors import ConfigError
from arena.rules import Rng, keyed_seed
from arena.schedule import MAX_TABLE, MIN_TABLE
from arena.seeds import made_up_names

SIDES = ("a", "b")
"""The two games of a pair: "a" is NEW's (with NEW first when direct), "b" the other."""


@dataclasses.dataclass(frozen=True, slots=True)
class PairGame:
    """One game of a pair."""

    game_id: str
    """``"p000012a"``: the pair and the side."""
    seats: tuple[str, ...]
    """The bot in each seat, by name."""
    seed: int
    """The deal's seed, the same for both games of the pair."""
    group: str
    """The pair's duplicate group, the same for both games."""
    test_seat: int
    """The seat scored: the tested bot's (NEW in "a"; OLD in "b" against a field, NEW
    in both when direct)."""
    shown: tuple[str, tuple[str, ...]]
    """The game id and the seats' names the bots see (blind seats)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Pair:
    """One deal, played twice."""

    index: int
    games: tuple[PairGame, PairGame]
    """Sides "a" and "b"."""
    order: tuple[int, int] = (0, 1)
    """Which of `games` is played first, then second: drawn for each pair."""


@dataclasses.dataclass(frozen=True)
class Plan:
    """The pairs of a test between `new` and `old` (bot names) at tables of `table_size`
    against `field` (names, K - 1 or more; none for NEW against OLD at a table of 2),
    with deals keyed by `key` (the test's seed)."""

    new: str
    old: str
    field: tuple[str, ...]
    table_size: int
    key: str

    def __post_init__(self) -> None:
        k, names = self.table_size, [self.new, self.old, *self.field]
        if not MIN_TABLE <= k <= MAX_TABLE:
            raise ConfigError(f"the table size must be {MIN_TABLE} to {MAX_TABLE}, not {k}")
        if len(set(names)) != len(names):
            raise ConfigError("NEW, OLD and the field bots must have distinct names")
        if not self.field and k != 2:
            raise ConfigError(
                f"tables of {k} need {k - 1} field bots (--field); only at a table of 2 can"
                " NEW play OLD directly"
            )
        if self.field and len(self.field) < k - 1:
            raise ConfigError(
                f"tables of {k} seat the tested bot and {k - 1} field bots, but the field has"
                f" {len(self.field)}: give more field bots (the same bot may be given several"
                f" times: copies of it fill the seats) or a smaller --table-size"
            )

    @property
    def direct(self) -> bool:
        """NEW plays OLD at a table of 2, with no field."""
        return not self.field

    def pair(self, index: int) -> Pair:
        """Pair `index` (from 0)."""
        if index < 0:
            raise ValueError("pairs count from 0")
        seed = keyed_seed(self.key, "sprt-deal", index)
        group = f"p{index:06d}"
        names = self._blind_names(index)
        order = (0, 1) if keyed_seed(self.key, "sprt-first", index) % 2 == 0 else (1, 0)

        def shown(side: str) -> tuple[str, tuple[str, ...]]:
            return f"g{keyed_seed(self.key, 'sprt-game-id', index, side):016x}"[:13], names

        if self.direct:
            seated = (self.new, self.old) if index % 2 == 0 else (self.old, self.new)
            swapped = seated[::-1]
            first = PairGame(group + "a", seated, seed, group, seated.index(self.new), shown("a"))
            second = PairGame(
                group + "b", swapped, seed, group, swapped.index(self.new), shown("b")
            )
            return Pair(index, (first, second), order)
        k = self.table_size
        block, turn = divmod(index, k)
        others = list(self.field)
        Rng(keyed_seed(self.key, "sprt-field", block)).shuffle(others)
        ring = ["", *others[: k - 1]]  # "" marks the test seat
        seats = ring[turn:] + ring[:turn]
        test = seats.index("")

        def game(side: str, bot: str) -> PairGame:
            placed = tuple(bot if name == "" else name for name in seats)
            return PairGame(group + side, placed, seed, group, test, shown(side))

        return Pair(index, (game("a", self.new), game("b", self.old)), order)

    def _blind_names(self, index: int) -> tuple[str, ...]:
        """A distinct name per seat for pair `index`, drawn from the secret key."""
        return made_up_names(self.key, "sprt-names", self.table_size, index)
