"""`arena league`: a round-robin league from a folder of submissions, resumable."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from arena.commands._options import (
    build_clocks,
    build_config,
    build_limits,
    check_file_values,
    game_options,
    league_config_class,
    log_folder,
    pin_cpus_option,
    run_options,
    setting_option,
    size,
)
from arena.commands._stopping import run_stoppable
from arena.errors import ConfigError, InputError
from arena.referee import RunSettings

MAX_CONCURRENCY = 4 * max(1, os.cpu_count() or 1)
"""The most games at once: each is a worker process with a bot process per seat, and
bots that share a core think slower than their clock allows for."""

MAX_CLUSTER_CONCURRENCY = 100_000
"""The most games in flight on a cluster (--cluster), whose cores are elsewhere."""


class _ClusterAddress(click.ParamType[str]):
    """A Dask scheduler's address, checked by `arena.cluster.parse_address`."""

    name = "address"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from arena.cluster import parse_address

        if not isinstance(value, str):
            self.fail("must be a string, tcp://HOST:PORT", param, ctx)
        try:
            return parse_address(value)
        except ConfigError as err:
            self.fail(str(err), param, ctx)


if TYPE_CHECKING:  # the league pulls in the ratings (numpy): imported when it runs
    from arena.league import LeagueConfig, LeagueReport, Progress
    from arena.store import Store


def _league_config(file: Path | None, opts: dict[str, Any]) -> LeagueConfig:
    from arena.league import LEAGUE_KEYS, compose, read_league_file

    data = read_league_file(file) if file is not None else {}
    if file is not None:
        check_file_values(file, data, click.get_current_context().command)
    league = dict(data.get("league", {}))
    for key in LEAGUE_KEYS.keys() - {"log_dir"}:  # each [league] key has its option
        if opts.get(key) is not None:
            league[key] = opts[key]
    _check_concurrency(file, league, opts)
    if opts.get("log_dir") is not None or opts.get("no_logs"):
        league["log_dir"] = log_folder(opts, None)
    if "bots" not in league:
        raise ConfigError("no bots folder: give a league file or --bots DIR")
    league["bots"] = Path(league["bots"])
    league["store"] = Path(league.get("store", "league.sqlite"))  # in the current folder
    if "log_dir" not in league and league.get("cluster") is None:
        # The bots' logs by default, beside the store (on a cluster a log folder is a
        # path on every worker: only where given).
        league["log_dir"] = log_folder({}, league["store"])
    if league.get("log_dir") is not None:
        league["log_dir"] = Path(league["log_dir"])
    table_size = league.get("table_size", 4)
    if league.get("max_tables", 1) is not None and league.get("max_tables", 1) <= 0:
        league["max_tables"] = None
    try:
        return compose(
            league,
            game=build_config(table_size, data.get("game", {}), opts),
            clocks=build_clocks(data.get("clocks", {}), opts),
            limits=build_limits(data.get("limits", {}), opts),
            sandbox=_sandbox(opts, cluster=league.get("cluster") is not None),
            source=file,
        )
    except TypeError as err:
        raise ConfigError(f"league settings: {err}") from None


def _check_concurrency(file: Path | None, league: dict[str, Any], opts: dict[str, Any]) -> None:
    """At most four games per core here; on a cluster any number, by default a game per
    worker thread and more waiting (a concurrency of 0 for `run_league`)."""
    if league.get("cluster") is not None:
        league["cluster"] = _ClusterAddress().convert(league["cluster"], None, None)
        league.setdefault("concurrency", 0)
        return
    value = league.get("concurrency")
    if value is None or value <= MAX_CONCURRENCY:
        return
    problem = f"{value} is not in the range 1<=x<={MAX_CONCURRENCY} (four per core; or --cluster)"
    if opts.get("concurrency") is None and file is not None:
        raise InputError(f"{file}: [league] concurrency = {value}: {problem}")
    raise click.BadParameter(problem, param_hint="'-j' / '--concurrency'")


def _sandbox(opts: dict[str, Any], *, cluster: bool) -> str:
    """The sandbox asked for, or by default bwrap where it works here, else none with
    a warning. On a cluster the bots run on the workers, each of which checks that it
    can sandbox them: bwrap unless `--sandbox none` is given. (Resolved here, a
    coordinator without bwrap ran strangers' bots unconfined on workers that had it,
    where they reached the scheduler's port, which runs any code it is sent.)"""
    from arena.sandbox import resolve_sandbox

    if cluster and opts.get("sandbox") is None:
        return "bwrap"
    mode, warning = resolve_sandbox(opts.get("sandbox"))
    if warning is not None:
        click.echo(f"arena: {warning}", err=True)
    return mode


@click.command()
@click.argument("file", required=False, type=click.Path(path_type=Path))
@setting_option(league_config_class, "--bots", type=click.Path(file_okay=False, path_type=Path))
@setting_option(league_config_class, "--store", type=click.Path(dir_okay=False, path_type=Path))
@setting_option(league_config_class, "--seed")
@setting_option(league_config_class, "--table-size", type=click.IntRange(2, 6))
@setting_option(league_config_class, "--games-per-table", type=click.IntRange(1))
@setting_option(league_config_class, "--duplicate/--no-duplicate")
@setting_option(league_config_class, "--max-tables", type=click.IntRange(0))
@setting_option(
    league_config_class,
    "-j",
    "--concurrency",
    type=click.IntRange(1, MAX_CLUSTER_CONCURRENCY),
    fill={"most": MAX_CONCURRENCY},
)
@setting_option(league_config_class, "--cluster", type=_ClusterAddress(), metavar="tcp://HOST:PORT")
@setting_option(league_config_class, "--strict", is_flag=True)
@setting_option(league_config_class, "--fault-limit", type=click.IntRange(0))
@setting_option(RunSettings, "--max-processes", type=size(1))
@pin_cpus_option
@game_options
@run_options
@click.option(
    "--progress",
    "mode",
    type=click.Choice(["terminal", "quiet", "jsonl"]),
    default="terminal",
    show_default=True,
    help="How to report progress (quiet: warnings only, on stderr).",
)
@click.option("-q", "--quiet", is_flag=True, help="Same as --progress quiet.")
@click.option(
    "--every",
    type=click.IntRange(0),
    default=0,
    help="Print the top of the standings every N games (0: every tenth of a league of"
    " more than 50 games, 10 at least; none for a smaller one).",
    show_default=True,
)
@click.option(
    "--watch",
    metavar="BOT",
    default=None,
    help="Show this bot's line in every table of the standings the progress prints"
    " (under the top 5 when it is not among them).",
)
def league(
    file: Path | None, mode: str, quiet: bool, every: int, watch: str | None, **opts: Any
) -> None:
    """Run the league in FILE (TOML), or of the bots in a folder (FILE a folder, or
    --bots); resume where it stopped.

    Games already in the store are skipped, so running the same command again after
    an interruption plays only the rest. Every game's replay is kept in the store:
    arena replay STORE GAME_ID shows one, arena report and arena serve all of them.
    Ctrl-C (or SIGTERM, or a hang-up) stops cleanly: games in progress are abandoned
    (not recorded) and every bot process is killed.
    """
    from arena.bots import check_log_dir
    from arena.commands._progress import make_progress
    from arena.league import check_before_store
    from arena.store import Store

    if file is not None and file.is_dir():  # `arena league bots/`: the bots' folder
        if opts.get("bots") is not None:
            raise click.UsageError(f"{file} is a folder: give it as FILE or as --bots, not both")
        file, opts["bots"] = None, file
    config = _league_config(file, opts)
    if quiet:
        mode = "quiet"
    check_before_store(config)
    if config.cluster is not None:  # nothing there: said before any store is made
        from arena.cluster._address import probe
        from arena.cluster._runner import check_scheduler

        probe(config.cluster)
        check_scheduler(config.cluster)  # a worker's address, tls:// without TLS settings
    log_dir = config.run.log_dir
    beside = log_dir is not None and log_dir == log_folder({}, config.store)
    if not beside:  # (the default, beside the store, is checked once the store opens)
        check_log_dir(log_dir)
    with Store.open(config.store) as store:
        check_log_dir(log_dir)
        progress = make_progress(mode, every, store, watch)
        _play(config, store, progress)
        store.check_in_place()  # a store removed after its last game: not "all well"
        if mode != "jsonl":
            from arena.standings import compute_standings, render

            table = compute_standings(store.game_records(), versions=store.changed_versions())
            click.echo(render(table, "simple"), nl=False)


def _play(config: LeagueConfig, store: Store, progress: Progress) -> LeagueReport:
    """Run the league; stopped (Ctrl-C, SIGTERM, a hang-up: `run_stoppable`), say what
    is stored."""
    import dataclasses

    from arena.league import run_league

    async def run() -> LeagueReport:
        if config.cluster is None:
            return await run_league(config, store, progress)
        from arena.cluster import DaskRunner  # the runner, chosen here at the edge

        async with DaskRunner.open(
            config.cluster, concurrency=config.concurrency or None, say=progress.message
        ) as cluster:  # each worker process there plays one game at a time
            most = config.run.max_processes or 8 * config.table_size
            settled = dataclasses.replace(
                config,
                concurrency=cluster.concurrency,
                run=dataclasses.replace(config.run, max_processes=most),
            )
            return await run_league(settled, store, progress, cluster)

    return run_stoppable(
        run,
        lambda: f": {len(store.done_game_ids())} games are stored in {config.store}",
        moved=store.moved,
    )
