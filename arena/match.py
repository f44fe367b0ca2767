"""A match: N games between the same bots, seats rotating, processes reused."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from statistics import NormalDist
from typing import Any

import trio

from arena.bots import BotSpec
from arena.messages import Play, Setup
from arena.referee import GameResult, RunSettings, Wrap
from arena.replay import write_replay
from arena.rules import GameConfig, keyed_seed
from arena.runners import GameRunner, Player, runner_for
from arena.store import unpack_replay


def match_game_id(i: int) -> str:
    """The id of a match's game `i` (from 0), which also names its replay file."""
    return f"m{i + 1:04d}"


def replays_in_the_way(folder: Path, games: int) -> list[str]:
    """The files in `folder` (a link too) by the name of a replay of a match of `games`
    games (m0001.jsonl ...): from an earlier match, say."""
    try:
        names = os.listdir(folder)
    except OSError:  # (none there yet; one that cannot be read fails at its first write)
        return []
    return sorted(name for name in names if _replay_of(name, games))


def _replay_of(name: str, games: int) -> bool:
    """Whether `name` is the replay file of one of a match's first `games` games."""
    stem, _, ext = name.partition(".")
    digits = stem[1:]
    if ext != "jsonl" or not (digits.isascii() and digits.isdigit()):  # ("²" is a digit too)
        return False
    number = int(digits)
    return 1 <= number <= games and stem == match_game_id(number - 1)


async def run_match(
    specs: Sequence[BotSpec],
    config: GameConfig,
    *,
    games: int,
    seed: int | str,
    settings: RunSettings,
    replay_dir: Path | None = None,
    on_result: Callable[[GameResult], None] | None = None,
    concurrency: int = 1,
    wrap: Wrap | None = None,
    runner: GameRunner | None = None,
    logs: bool = False,
) -> tuple[list[GameResult], dict[str, int]]:
    """Play `games` games; game i seats the bots rotated by i and is dealt from a keyed
    function of `seed` and i (`arena.seeds`). Returns the results, in game order, and,
    per bot, the number of processes started. The results hold no logs (a game's log is
    its replay, written to `replay_dir` if given), unless `logs` asks for them: a long
    match keeps in memory what its summary needs alone.

    `concurrency` games are played at once, each with processes of its own (a bot's
    idle processes are reused, as one at a time); a game's seats and deal depend only
    on its number, so the games are the same whatever the concurrency, and only the
    order in which they finish (and `on_result` is called) differs.

    `runner` plays the games (`arena.runners`); by default `runner_for` chooses: this
    process at a concurrency of 1 (the bots run under `wrap`, if given, instead of
    the sandbox `settings` names: a sandbox with a smaller private /tmp, in tests),
    worker processes above it (the sandbox `settings` names)."""
    names = [spec.name for spec in specs]
    n = len(names)
    setup = Setup(bots=tuple(specs), settings=settings, config=config)
    if runner is None:
        runner = runner_for(concurrency, games, wrap=wrap)
    results: dict[int, GameResult] = {}
    started = dict.fromkeys(names, 0)
    numbers = iter(range(games))

    async def play_on(player: Player) -> None:
        for i in numbers:  # shared: each player of games takes the next number
            seats = tuple(names[(i + s) % n] for s in range(n))
            seed_i = keyed_seed(str(seed), "match", i)
            played = await player(Play(match_game_id(i), seats, seed_i, None))
            for name, count in played.launched.items():
                started[name] += count
            result = played.result  # (its log is in its replay, written out or dropped)
            if replay_dir is not None or logs:
                log = unpack_replay(played.replay) if played.replay is not None else []
                if replay_dir is not None:
                    write_replay(replay_dir / f"{result.game_id}.jsonl", log)
                if logs:
                    result = dataclasses.replace(result, log=log)
            results[i] = result
            if on_result is not None:
                on_result(result)

    async with runner.players(setup) as players, trio.open_nursery() as nursery:
        for player in players[: max(1, min(concurrency, games))]:
            nursery.start_soon(play_on, player)
    ordered = [results[i] for i in sorted(results)]
    return ordered, started


@dataclasses.dataclass
class BotSummary:
    """Per-bot totals over a list of games."""

    name: str
    games: int = 0
    wins: int = 0
    place_sum: int = 0
    points: int = 0
    faults: dict[str, int] = dataclasses.field(default_factory=dict)

    @property
    def average_place(self) -> float:
        return self.place_sum / self.games if self.games else 0.0


def summarize(names: Sequence[str], results: Sequence[GameResult]) -> list[BotSummary]:
    """Games, wins (first places, shared ones included), average place, points, faults."""
    table = {name: BotSummary(name) for name in names}
    for result in results:
        for seat, name in enumerate(result.names):
            row = table[name]
            row.games += 1
            place = result.outcome.places[seat]
            row.place_sum += place
            row.wins += place == 1
            if result.outcome.points is not None:
                row.points += result.outcome.points[seat]
        for fault in result.faults:
            faults = table[result.names[fault.seat]].faults
            faults[fault.cause] = faults.get(fault.cause, 0) + 1
    return list(table.values())


def result_to_json(result: GameResult) -> dict[str, Any]:
    """One game for scripts: seed, finishing order by bot name, eliminations with causes."""
    outcome = result.outcome
    return {
        "game_id": result.game_id,
        "seed": result.seed,
        "seats": list(result.names),
        "order": [[result.names[s] for s in group] for group in outcome.order()],
        "places": {name: outcome.places[s] for s, name in enumerate(result.names)},
        "points": (
            {name: outcome.points[s] for s, name in enumerate(result.names)}
            if outcome.points is not None
            else None
        ),
        "eliminations": [
            {"bot": result.names[e.seat], "seat": e.seat, "cause": e.cause.value, "place": e.place}
            for e in outcome.eliminations
        ],
        "faults": [
            {"bot": result.names[f.seat], "cause": f.cause, "message": f.message}
            for f in result.faults
        ],
        "reason": outcome.reason.value,
        "plays": outcome.plays,
    }


@dataclasses.dataclass(frozen=True)
class MatchRating:
    """A bot's Elo from a match's games, relative to the average of its bots (a
    Plackett–Luce fit of the finishing orders, as `arena standings` makes)."""

    name: str
    places: tuple[int, ...]
    """How many games it finished in each place, first place first (shared ones too)."""
    elo: float
    plus_minus: float | None
    """Half-width of the 95% interval (Fisher information)."""


@dataclasses.dataclass(frozen=True)
class HeadToHead:
    """The result of a match of two bots, as the first named sees it."""

    first: str
    second: str
    wins: int
    losses: int
    draws: int
    elo: float
    """The Elo difference first - second."""
    plus_minus: float | None
    """Half-width of its 95% interval."""

    @property
    def score(self) -> float:
        """The first bot's share of the points (a draw counts half)."""
        games = self.wins + self.losses + self.draws
        return (self.wins + self.draws / 2) / games if games else 0.0


def rate_match(
    names: Sequence[str], results: Sequence[GameResult]
) -> tuple[list[MatchRating], HeadToHead | None]:
    """Each bot's places and Elo over a match's games (`arena.ratings.fit_plackett_luce`,
    with the standings' prior and 95% intervals from its Fisher information), and for a
    match of two bots their wins, losses and draws and the Elo difference with its
    interval. Empty without games."""
    from arena.ratings import ELO_PER_NAT, fit_plackett_luce
    from arena.standings import CONFIDENCE

    if not results:
        return [], None
    z = NormalDist().inv_cdf(0.5 + CONFIDENCE / 2)
    rankings = [[[r.names[s] for s in group] for group in r.outcome.order()] for r in results]
    fit = fit_plackett_luce(rankings)
    errors = fit.standard_errors()
    places = {name: [0] * len(names) for name in names}
    for result in results:
        for seat, name in enumerate(result.names):
            places[name][result.outcome.places[seat] - 1] += 1
    ratings = []
    for name in names:
        k = fit.players.index(name)
        ratings.append(
            MatchRating(
                name,
                tuple(places[name]),
                ELO_PER_NAT * float(fit.log_strength[k]),
                None if errors is None else z * ELO_PER_NAT * float(errors[k]),
            )
        )
    if len(names) != 2:
        return ratings, None
    first, second = names
    wins = losses = 0
    for result in results:
        mine = result.outcome.places[result.names.index(first)]
        theirs = result.outcome.places[result.names.index(second)]
        wins += mine < theirs
        losses += mine > theirs
    diff, error = fit.contrast(first, second)
    return ratings, HeadToHead(
        first,
        second,
        wins,
        losses,
        len(results) - wins - losses,
        ELO_PER_NAT * diff,
        None if error is None else z * ELO_PER_NAT * error,
    )
