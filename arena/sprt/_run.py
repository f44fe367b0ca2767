"""Running an SPRT: the bots, the store, the games, the test after every pair.

`run_sprt` plays the pairs of the plan (`arena.sprt._plan`) with a game runner
(`arena.runners`: the same referee, clocks, sandbox and faults as a league), records
every finished game in the test's store and counts the pairs *in deal order*: a pair
that finished early waits for the pairs before it, so that which games happen to end
first (short games may favour one side) never decides the test. It stops when the LLR
crosses a bound (the games still in progress are abandoned, as on Ctrl-C) or when the
pairs of `max_games` are counted. Run again, it reads the store and goes on where it
stopped; a test that has ended only reports again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from statistics import NormalDist
from typing import Any

import trio

from arena._declared import about
from arena._locks import KeyedLocks
from arena.bots import (
    BotSpec,
    BuildSettings,
    check_name,
    real_path,
    run_builds,
)
from arena.errors import ArenaError, BotError, ConfigError, StoreError, shown
from arena.league import (
    BUILT_DIGESTS,
    build_and_check,
    run_settings,
    setting_changes,
    settings_in_play,
)
from arena.messages import Play, Played, Setup
from arena.ratings import ELO_PER_NAT, fit_plackett_luce
from arena.referee import RunSettings
from arena.rules import POINTS_RULES, Format, GameConfig
from arena.runners import GameRunner, Player, runner_for
from arena.seeds import new_secret, seed_key
from arena.sprt._plan import SIDES, Pair, PairGame, Plan
from arena.sprt._stats import (
    CONFIDENCE,
    GOING,
    H0,
    H1,
    Estimate,
    Hypotheses,
    Tally,
    opponent_results,
    pair_difference,
)
from arena.sprt._store import SprtStore, StoredGame

DEFAULT_MAX_GAMES = 20_000
"""The default cap on the games of a test (10,000 pairs)."""
DEALS = "hmac-sha256"
"""How deal seeds derive from the test's seed (`arena.rules.keyed_seed`)."""
ROLES = ("new", "old", "field")
"""Whose faults are counted apart."""


@dataclasses.dataclass(frozen=True)
class SprtConfig:
    """Everything that fixes an SPRT run."""

    new: BotSpec
    old: BotSpec
    field: tuple[BotSpec, ...]
    store: Path = dataclasses.field(
        metadata=about("The test's SQLite file; the same command resumes from it.")
    )
    table_size: int = dataclasses.field(
        default=2,
        metadata=about("Seats per game.", shown="one more than the field, 2 without one"),
    )
    hypotheses: Hypotheses = dataclasses.field(default_factory=Hypotheses)
    max_games: int = dataclasses.field(
        default=DEFAULT_MAX_GAMES,
        metadata=about(
            "Stop undecided after this many games (pairs of games: rounded down to even)."
        ),
    )
    game: GameConfig = dataclasses.field(default_factory=lambda: GameConfig(players=2))
    run: RunSettings = RunSettings()
    """How the bots run (`LeagueConfig.run`)."""
    build: BuildSettings = BuildSettings()
    """How the bots are built."""
    seed: int | str | None = dataclasses.field(
        default=None,
        metadata=about(
            "Seed of every deal: reproducible, and anyone who knows it knows every hand."
            " Without it a new test draws a 128-bit secret (kept in the store)."
        ),
    )
    """None: a secret drawn for a new test (kept in the store), or the stored one."""
    concurrency: int = dataclasses.field(
        default=1, metadata=about("Games at once, at most {most}.", shown="the number of cores")
    )
    pin_cpus: bool = False
    """Each worker process, with its bots, on a CPU of its own (`LeagueConfig.pin_cpus`)."""

    def __post_init__(self) -> None:
        if isinstance(self.max_games, bool) or not isinstance(self.max_games, int):
            raise ConfigError(f"max games must be a whole number, not {self.max_games!r}")
        if self.max_games < 2:
            raise ConfigError(f"max games must be at least 2 (one pair), not {self.max_games}")
        if self.concurrency < 1:
            raise ConfigError(f"concurrency must be at least 1, not {self.concurrency}")
        check_bots(self.new, self.old, self.field)
        new, old, *field = (s.name for s in bot_names(self.new, self.old, self.field))
        Plan(new, old, tuple(field), self.table_size, "")  # a table the field can fill


class SprtProgress:
    """Hears what a test does while it runs (from the trio thread); quiet here."""

    def started(self, result: SprtResult) -> None:
        """The test starts playing (`result` holds what the store already had)."""

    def counted(self, result: SprtResult) -> None:
        """One more pair entered the test."""

    def message(self, text: str) -> None:
        """Something for people: a build, a warning."""


@dataclasses.dataclass
class SprtResult:
    """Where a test stands: its tally, its verdict, its games and faults."""

    names: dict[str, str]
    """"new", "old" -> the bot's name in the games."""
    field: tuple[str, ...]
    table_size: int
    hypotheses: Hypotheses
    max_games: int
    tally: Tally
    faults: dict[str, Counter[str]]
    """Per role ("new", "old", "field"), faults by cause, in the counted games."""
    stored: int = 0
    """Games in the store (those after the decision included)."""
    played: int = 0
    """Games played by this run."""
    seconds: float = 0.0
    standings: Estimate | None = None
    """NEW - OLD as `arena standings` would rate the test's counted games (a
    Plackett-Luce fit of their finishing orders), set when the run ends."""

    @property
    def direct(self) -> bool:
        return self.tally.direct

    @property
    def games(self) -> int:
        """Games counted by the test."""
        return 2 * self.tally.pairs

    @property
    def verdict(self) -> str:
        """One of "H1", "H0", "inconclusive" (the cap reached) or "running"."""
        decision = self.tally.decision
        if decision == H1:
            return "H1"
        if decision == H0:
            return "H0"
        return "inconclusive" if self.tally.pairs >= self.max_games // 2 else "running"

    def old_above_field(self) -> dict[str, float | None]:
        """Per field bot, OLD's share of finishes above it (None before they met)."""
        tally = self.tally
        return {
            name: tally.old_wins[j] / tally.old_games[j] if tally.old_games[j] else None
            for j, name in enumerate(self.field)
        }

    def to_json(self) -> dict[str, Any]:
        tally, h = self.tally, self.hypotheses
        estimate, unbiased = tally.estimate(), tally.unbiased()
        mu0, mu1 = tally.bounds_in_score()
        return {
            "verdict": self.verdict,
            "new": self.names["new"],
            "old": self.names["old"],
            "field": list(self.field),
            "table_size": self.table_size,
            "direct": self.direct,
            "hypotheses": h.to_dict(),
            "llr": tally.llr,
            "bounds": [h.lower, h.upper],
            "score_bounds": [mu0, mu1],
            "old_score": None if self.direct else tally.level,
            "old_above_field": None if self.direct else self.old_above_field(),
            "pairs": tally.pairs,
            "games": self.games,
            "max_games": self.max_games,
            "games_stored": self.stored,
            "games_played_now": self.played,
            "mean_difference": tally.mean,
            "elo": None if estimate is None else estimate.elo,
            "elo_interval": None if estimate is None else [estimate.low, estimate.high],
            "elo_standings": None if self.standings is None else self.standings.elo,
            "elo_standings_interval": None
            if self.standings is None
            else [self.standings.low, self.standings.high],
            "elo_unbiased": None if unbiased is None else unbiased.elo,
            "elo_unbiased_interval": None if unbiased is None else [unbiased.low, unbiased.high],
            "pair_outcomes": {str(value): count for value, count in sorted(tally.outcomes.items())},
            "pairing": None
            if (pairing := tally.pairing()) is None
            else {
                "correlation": pairing.correlation,
                "variance_ratio": pairing.variance_ratio,
                "unpaired_games": None
                if pairing.unpaired_factor is None
                else round(self.games * pairing.unpaired_factor),
            },
            "faults": {role: dict(sorted(self.faults[role].items())) for role in ROLES},
            "seconds": round(self.seconds, 3),
        }


def bot_names(new: BotSpec, old: BotSpec, field: tuple[BotSpec, ...]) -> list[BotSpec]:
    """NEW, OLD and the field with names unique in the games: NEW and OLD of one name
    become NAME.new and NAME.old, a field bot given twice NAME and NAME-2."""
    if new.name == old.name:
        base = new.name[:60]
        new = dataclasses.replace(new, name=f"{base}.new")
        old = dataclasses.replace(old, name=f"{base}.old")
    taken = {new.name, old.name}
    out = [new, old]
    for spec in field:
        name, count = spec.name, 1
        while name in taken:
            count += 1
            name = f"{spec.name[:58]}-{count}"
        check_name(name, "field bot")
        taken.add(name)
        out.append(dataclasses.replace(spec, name=name))
    return out


def _same_bot(a: BotSpec, b: BotSpec) -> bool:
    if a.folder is not None and b.folder is not None:
        return real_path(a.folder) == real_path(b.folder)
    return a.folder is None and b.folder is None and a.command == b.command


def check_bots(new: BotSpec, old: BotSpec, field: tuple[BotSpec, ...]) -> None:
    """Refuse the mistakes that make a test meaningless: NEW and OLD the same bot, NEW in
    the field (it would sit on both sides of the comparison)."""
    if _same_bot(new, old):
        where = f"the folder {new.folder}" if new.folder else f"the command {' '.join(new.command)}"
        raise ConfigError(
            f"NEW and OLD are the same bot ({where}): a test of a bot against itself measures"
            " nothing. To check the test itself, copy the folder and test the copy."
        )
    for spec in field:
        if _same_bot(spec, new):
            raise ConfigError(
                f"the field bot {spec.name} is NEW itself: the field is what NEW and OLD are"
                " compared against, and must not hold the bot under test (OLD may be in it:"
                " copies of OLD make a self-play field)"
            )


async def run_sprt(
    config: SprtConfig,
    store: SprtStore,
    progress: SprtProgress,
    runner: GameRunner | None = None,
) -> SprtResult:
    """Play the test's pairs until a bound or the cap; resume from `store`."""
    started = time.monotonic()
    specs = bot_names(config.new, config.old, config.field)
    digests = [s.digest() for s in specs]  # the submissions as given, before their builds
    if config.new.name == config.old.name and config.new.digest() == config.old.digest():
        progress.message(
            "warning: NEW and OLD are identical submissions (the same files): the test can"
            " only find them equal"
        )
    await run_builds(specs, _prepare, config, specs, progress.message)
    built = {}  # as the builds leave the folders (a C bot's ./bot is there now)
    for spec in specs:
        with contextlib.suppress(BotError):
            built[spec.name] = spec.digest()
    new, old, *field = (s.name for s in specs)
    try:
        seed = _identity(config, store, specs, digests, built)
    except _Changed as err:  # a finished test is shown all the same; one to go on is not
        plan = Plan(new, old, tuple(field), config.table_size, err.seed)
        book = _Book(config, plan, store, progress)
        if not book.done():
            raise
        progress.message(
            f"warning: {', '.join(err.bots)} changed since the test's games were played; the"
            " test is finished, and its result is that of the files it was played with"
        )
    else:
        plan = Plan(new, old, tuple(field), config.table_size, seed)
        book = _Book(config, plan, store, progress)
    result = book.result
    if book.done():  # (its settings stay those its games were played with)
        result.seconds = time.monotonic() - started
        result.standings = book.standings()
        return result
    _run_settings(config, store, progress.message)
    progress.started(result)
    log_dir = config.run.log_dir
    settings = dataclasses.replace(
        config.run, log_dir=real_path(log_dir) if log_dir is not None else None
    )
    setup = Setup(
        bots=tuple(specs),
        settings=settings,
        config=dataclasses.replace(config.game, players=config.table_size),
    )
    if runner is None:
        todo = 2 * (config.max_games // 2) - book.result.stored
        runner = runner_for(config.concurrency, max(1, todo), pin=config.pin_cpus)
    queue = book.queue()
    with trio.CancelScope() as scope:
        book.stop = scope.cancel
        async with runner.players(setup) as players, trio.open_nursery() as nursery:
            for player in players:
                nursery.start_soon(book.drive, queue, player)
    result.seconds = time.monotonic() - started
    result.standings = book.standings()
    return result


def _prepare(config: SprtConfig, specs: list[BotSpec], say: Callable[[str], None]) -> None:
    """Build the bots (each folder once) and check that the sandbox shows their programs."""
    built: set[Path | None] = set()
    for spec in specs:
        if spec.folder is None or spec.folder not in built:
            built.add(spec.folder)
            build_and_check(spec, config, say)


def _identity(
    config: SprtConfig,
    store: SprtStore,
    specs: list[BotSpec],
    digests: list[str],
    built: dict[str, str],
) -> str:
    """The test's seed; its settings are stored, and a resume must match them.

    A bot's submission is the one stored if its folder is as given then, or as the
    last build of the test left it (`built`, each bot's digest after its build): a
    build that writes into its folder (a C bot's ./bot) adds files the first digest,
    taken before the first build, did not see."""
    stored = store.get_meta("test")
    if stored is not None and not isinstance(stored, dict):  # a store can be anyone's
        raise StoreError(
            f"{store.path}: the store is damaged (the test's settings: {shown(stored)})"
        )
    before = store.get_meta(BUILT_DIGESTS)
    if stored is not None and isinstance(before, dict):
        field = stored.get("field")
        roles = [stored.get("new"), stored.get("old"), *(field if isinstance(field, list) else [])]
        was: dict[str, str] = {
            bot["name"]: bot["digest"]
            for bot in roles
            if isinstance(bot, dict)
            and isinstance(bot.get("name"), str)
            and isinstance(bot.get("digest"), str)
        }
        digests = [
            was[s.name] if s.name in was and before.get(s.name) == d else d
            for s, d in zip(specs, digests, strict=True)
        ]
    if config.seed is not None:
        seed = seed_key(config.seed)
    elif stored is not None:
        seed = str(stored.get("seed"))
    else:
        seed = new_secret()
    bots = [
        {"name": s.name, "digest": d, "command": " ".join(s.command)}
        for s, d in zip(specs, digests, strict=True)
    ]
    identity = {
        "new": bots[0],
        "old": bots[1],
        "field": bots[2:],
        "table_size": config.table_size,
        "hypotheses": config.hypotheses.to_dict(),
        "game": dataclasses.replace(config.game, players=config.table_size).to_dict(),
        "clocks": config.run.clocks.to_dict(),
        "seed": seed,
        "deals": DEALS,
    }
    if config.game.format is Format.POINTS:  # as a league's: its legal actions changed
        identity["points_rules"] = POINTS_RULES
    if stored is not None and settings_in_play(stored) != settings_in_play(identity):
        why = _difference(store.path, settings_in_play(stored), settings_in_play(identity))
        then = [stored.get("new"), stored.get("old"), *(stored.get("field") or [])]
        if len(then) == len(bots) and all(isinstance(b, dict) for b in then):
            # The same test but for the files of some bots: with their stored digests,
            # the same settings.
            same = [b | {"digest": t.get("digest")} for b, t in zip(bots, then, strict=True)]
            as_stored = identity | {"new": same[0], "old": same[1], "field": same[2:]}
            if settings_in_play(stored) == settings_in_play(as_stored):
                changed = [b["name"] for b, t in zip(bots, then, strict=True) if b != t]
                raise _Changed(why, changed, seed)
        raise ConfigError(why)
    if stored is None:
        store.set_meta("test", identity)
    store.set_meta(BUILT_DIGESTS, (before if isinstance(before, dict) else {}) | built)
    return seed


class _Changed(ConfigError):
    """A resume refused for the files of `bots` changed since the test's games (the
    message: `_difference`), with the stored test's seed: a finished test is shown all
    the same."""

    def __init__(self, why: str, bots: list[str], seed: str) -> None:
        super().__init__(why)
        self.bots = bots
        self.seed = seed


RUN_SETTINGS = "settings"
"""The meta key of the settings a resume may change (`_run_settings`)."""


def _run_settings(config: SprtConfig, store: SprtStore, say: Callable[[str], None]) -> None:
    """Store the settings that shape the games but not the test's identity: the sandbox
    and the limits, which decide which bot faults (a loss). A resume may change them
    (another machine), with a warning that names each change, as a league's resume
    does; the clocks and the rest are the test's own (`_identity`)."""
    now = run_settings(config.run)
    before = store.get_meta(RUN_SETTINGS)
    if isinstance(before, dict) and store.count():
        changes = setting_changes(before, now)
        if changes:
            say(
                "warning: the test's games so far were played with other settings than"
                f" these ({', '.join(changes)}); they count with the games played now"
            )
    store.set_meta(RUN_SETTINGS, now)


def _difference(path: Path, stored: dict[str, Any], identity: dict[str, Any]) -> str:
    """Why a store cannot go on with these settings, in words."""
    for role in ("new", "old"):
        was, now = stored.get(role), identity[role]
        if not isinstance(was, dict):
            was = {}
        if was.get("name") == now["name"] and was.get("digest") != now["digest"]:
            return (
                f"{path} holds a test whose {role.upper()} ({now['name']}) has changed since its"
                " games were played: counting both versions would mix two bots. Give another"
                " --store for the new version (or put the old files back to finish that test)."
            )
    was_field = stored.get("field")
    now_field = identity["field"]
    if isinstance(was_field, list) and len(was_field) == len(now_field):
        changed = [
            now["name"]
            for was, now in zip(was_field, now_field, strict=True)
            if isinstance(was, dict)
            and was.get("name") == now["name"]
            and was.get("digest") != now["digest"]
        ]
        if changed and all(  # the same field bots otherwise: the same test
            isinstance(was, dict) and was.get("name") == now["name"]
            for was, now in zip(was_field, now_field, strict=True)
        ):
            return (
                f"{path} holds a test whose field bot{'s' if len(changed) > 1 else ''}"
                f" {', '.join(changed)} changed since its games were played: NEW and OLD would"
                " be compared against two fields. Give another --store for the new field (or"
                " put the old files back to finish that test)."
            )
    same_game = stored.get("game") == identity["game"]
    if same_game and stored.get("points_rules") != identity.get("points_rules"):
        return (
            f"{path} holds a test played under earlier rules of the points format, without"
            " busting on purpose (R4.2): its games cannot be counted with new ones; give"
            " another --store"
        )
    differ = sorted(k for k in identity if stored.get(k) != identity[k])
    return (
        f"{path} holds another test (it differs in: {', '.join(differ)}); run the same"
        " command to resume that one, or give another --store"
    )


class _Book:
    """The test's bookkeeping: stored games, the pairs counted in order, the faults."""

    def __init__(
        self, config: SprtConfig, plan: Plan, store: SprtStore, progress: SprtProgress
    ) -> None:
        self.config, self.plan, self.store, self.progress = config, plan, store, progress
        self.max_pairs = config.max_games // 2
        self.games: dict[str, StoredGame] = store.games()
        self.stop: Callable[[], None] = lambda: None
        names = {"new": plan.new, "old": plan.old}
        tally = Tally(config.hypotheses, plan.direct, field=len(plan.field))
        self._field = {name: index for index, name in enumerate(plan.field)}
        faults: dict[str, Counter[str]] = {role: Counter() for role in ROLES}
        self.result = SprtResult(
            names, plan.field, plan.table_size, config.hypotheses, config.max_games, tally,
            faults, stored=len(self.games),
        )  # fmt: skip
        self._pairs: dict[int, Pair] = {}
        self._pairs_playing = KeyedLocks()
        """Held while a game of the pair is played (see `drive`); gone with the last."""
        self._advance(report=False)

    def _pair(self, index: int) -> Pair:
        pair = self._pairs.get(index)
        if pair is None:
            pair = self._pairs[index] = self.plan.pair(index)
        return pair

    def done(self) -> bool:
        """The test has reached a bound or counted its last pair."""
        return self.result.tally.decision != GOING or self.result.tally.pairs >= self.max_pairs

    def queue(self) -> Iterator[tuple[Pair, PairGame]]:
        """The games still to play, in deal order, until the test is done."""
        for index in range(self.result.tally.pairs, self.max_pairs):
            pair = self._pair(index)
            for game in (pair.games[i] for i in pair.order):
                if self.done():
                    return
                if game.game_id not in self.games:
                    yield pair, game

    async def drive(self, queue: Iterator[tuple[Pair, PairGame]], player: Player) -> None:
        """Give `player` the next game until none is left or the test is done. The two
        games of a pair are never played at once (see `arena.league`'s `drive`)."""
        for pair, game in queue:
            async with self._pairs_playing.hold(pair.index):
                played = await player(
                    Play(game.game_id, game.seats, game.seed, game.group, game.shown)
                )
            self._record(pair, game, played)
            if self.done():
                self.stop()
                return

    def _record(self, pair: Pair, game: PairGame, played: Played) -> None:
        result = played.result
        if tuple(result.names) != game.seats or result.game_id != game.game_id:
            raise ArenaError(f"the runner answered {game.game_id} with another game")
        faults = [(f.seat, f.cause, f.message) for f in result.faults]
        side = SIDES[pair.games.index(game)]
        self.store.record(
            game_id=game.game_id, pair=pair.index, side=side, seats=game.seats, seed=game.seed,
            places=tuple(result.outcome.places), faults=faults, started=played.started,
            finished=played.finished,
        )  # fmt: skip
        self.games[game.game_id] = self.store_game(pair, side, game, played)
        self.result.stored += 1
        self.result.played += 1
        self._advance(report=True)

    @staticmethod
    def store_game(pair: Pair, side: str, game: PairGame, played: Played) -> StoredGame:
        result = played.result
        return StoredGame(
            game.game_id, pair.index, side, game.seats, game.seed, tuple(result.outcome.places),
            tuple((f.seat, f.cause, f.message) for f in result.faults), played.started,
            played.finished,
        )  # fmt: skip

    def _advance(self, *, report: bool) -> None:
        """Count every pair, in order, whose two games are stored, until a decision."""
        tally = self.result.tally
        while not self.done():
            pair = self._pair(tally.pairs)
            stored = [self.games.get(g.game_id) for g in pair.games]
            if stored[0] is None or stored[1] is None:
                return
            scores: list[float] = []
            against: dict[int, float] = {}
            for planned, game in zip(pair.games, stored, strict=True):
                assert game is not None
                if game.seats != planned.seats or game.seed != planned.seed:
                    raise StoreError(
                        f"{self.store.path}: game {game.game_id} does not match this test's"
                        " plan (the store is damaged or was written by another arena)"
                    )
                results = opponent_results(game.places, game.faulted, planned.test_seat)
                scores.append(float(results.sum()) / (len(game.seats) - 1))
                if not self.plan.direct:  # OLD's game last: its results against the field
                    against = {
                        self._field[name]: float(results[seat])
                        for seat, name in enumerate(game.seats)
                        if seat != planned.test_seat
                    }
                self._count_faults(game)
            difference = float(pair_difference(self.plan.direct, scores[0], scores[1]))
            # NEW's and OLD's scores in the test seat of this deal (directly, OLD's in
            # game b is 1 - NEW's): D = s - t either way
            old = 1.0 - scores[1] if self.plan.direct else scores[1]
            tally.add(difference, against, (scores[0], old))
            if report:
                self.progress.counted(self.result)

    def standings(self) -> Estimate | None:
        """NEW - OLD and its 95% interval as the standings rate the counted games: a
        Plackett-Luce fit of their finishing orders (every bot of the test in it), on
        the standings' Elo scale; None before a pair is counted."""
        counted = [
            self.games[game.game_id]
            for index in range(self.result.tally.pairs)
            for game in self._pair(index).games
        ]
        if not counted:
            return None
        rankings = []
        for game in counted:
            groups: dict[int, list[str]] = {}
            for name, place in zip(game.seats, game.places, strict=True):
                groups.setdefault(place, []).append(name)
            rankings.append([groups[place] for place in sorted(groups)])
        fit = fit_plackett_luce(rankings)
        diff, error = fit.contrast(self.plan.new, self.plan.old)
        spread = NormalDist().inv_cdf(0.5 + CONFIDENCE / 2) * (error or 0.0)
        return Estimate(
            ELO_PER_NAT * diff, ELO_PER_NAT * (diff - spread), ELO_PER_NAT * (diff + spread)
        )

    def _count_faults(self, game: StoredGame) -> None:
        for seat, cause, _ in game.faults:
            name = game.seats[seat]
            role = "new" if name == self.plan.new else "old" if name == self.plan.old else "field"
            self.result.faults[role][cause] += 1
