"""`run_league`: a league's run from its bots to its last game."""

from __future__ import annotations

import dataclasses
import time

import trio

from arena.bots import (
    real_path,
    run_builds,
)
from arena.errors import ConfigError
from arena.league._book import _Book
from arena.league._config import LeagueConfig
from arena.league._dispatch import Dispatch
from arena.league._prepare import (
    _changed_while_played,
    _out_of_reach,
    discover_bots,
    in_one_line,
    prepare,
    register,
)
from arena.league._report import LeagueReport, LeftOut, Progress
from arena.league._resume import _schedule
from arena.messages import Setup
from arena.runners import GameRunner, runner_for, spread
from arena.store import LADDER_KEY, Store


async def run_league(
    config: LeagueConfig,
    store: Store,
    progress: Progress,
    runner: GameRunner | None = None,
) -> LeagueReport:
    """Play every game of the league not yet in the store; record each as it finishes.

    `runner` plays the games (`arena.runners`); by default the games run here at a
    concurrency of 1 and in that many worker processes above it. A league on a Dask
    cluster is given its `arena.cluster.DaskRunner` by the command that opens it.
    """
    if config.pin_cpus and (config.cluster or config.concurrency <= 1):
        where = "on a cluster" if config.cluster else "at a concurrency of 1"
        progress.message(f"--pin-cpus pins nothing {where} (it pins local worker processes)")
    started = time.monotonic()
    if store.get_meta(LADDER_KEY) is not None:  # its games would be the ladder's
        raise ConfigError(
            f"{store.path} is a ladder's store (arena ladder serve), not a league's: a"
            " league's games there would count in the ladder's standings; give another --store"
        )
    if store.games_count():  # a resume: refuse a damaged store before playing on
        store.verify()
    found = discover_bots(config.bots, store.bot_digests())
    built = await runner.build_bots(found[0], config) if runner is not None else None
    if built is not None:  # the bots are built where the games run (a cluster)
        bots = prepare(config, progress.message, built, found)
    else:
        bots = await run_builds(found[0], prepare, config, progress.message, None, found)
    if config.strict and bots.reasons:
        raise LeftOut(
            f"--strict: {len(bots.reasons)} submission(s) left out, so no game is played:"
            f" {in_one_line(bots.reasons)}"
        )
    specs = bots.ready
    _out_of_reach(config, store.path, specs)
    # The settings are checked before anything is stored: a refused resume changes
    # nothing (a digest stored then would hide a changed submission from the next one).
    schedule = _schedule(config, [s.name for s in specs], store, progress.warning, bots.reasons)
    done = store.done_game_ids()
    todo = [g for g in schedule.games if g.game_id not in done]
    changed = register(store, bots, progress.warning, finished=not todo)
    report = LeagueReport(schedule, excluded=bots.excluded, changed=changed, left_out=bots.reasons)
    report.skipped = len(schedule.games) - len(todo)
    progress.started(len(schedule.games), len(todo), schedule.note)
    book = _Book(config, store, progress, report, [s.name for s in specs])
    # The games run in up to a worker per core, each playing its share of the games in
    # flight at once (a worker waiting on one game's bot referees another meanwhile).
    per_worker = spread(config.concurrency, len(todo))[1]
    max_processes = config.run.max_processes or 8 * config.table_size * per_worker
    log_dir = config.run.log_dir
    settings = dataclasses.replace(
        config.run,
        log_dir=real_path(log_dir) if log_dir is not None else None,
        max_processes=max_processes,
    )
    setup = Setup(
        bots=tuple(specs),
        settings=settings,
        config=dataclasses.replace(config.game, players=config.table_size),
    )
    if runner is None:
        runner = runner_for(config.concurrency, len(todo), pin=config.pin_cpus)
    # One player: an order that what its worker holds does not change (a resume).
    dispatch = Dispatch(schedule.games, done, reports=config.concurrency > 1)
    async with runner.players(setup) as players, trio.open_nursery() as nursery:
        for player in players[: config.concurrency]:
            nursery.start_soon(book.drive, dispatch, player)
    if report.played:
        _changed_while_played(store, bots, progress.warning)
    report.seconds = time.monotonic() - started
    progress.finished(report)
    return report
