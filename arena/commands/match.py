"""`arena match`: games between the same bots, a results table, JSON for scripts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
import tabulate

import protocol
from arena._text import printable
from arena.bots import (
    check_log_dir,
    check_out_of_reach,
    check_sandboxed_apart,
    load_bot,
    resolve_run,
    run_builds,
    unique_names,
)
from arena.commands._options import (
    build_bot,
    build_clocks,
    build_config,
    build_limits,
    check_sandboxed,
    game_options,
    log_folder,
    run_options,
    sandbox_mode,
)
from arena.commands._stopping import run_stoppable
from arena.commands.league import MAX_CONCURRENCY
from arena.errors import ConfigError, InputError
from arena.match import (
    BotSummary,
    rate_match,
    replays_in_the_way,
    result_to_json,
    run_match,
    summarize,
)
from arena.referee import GameResult, RunSettings
from arena.rules import FAULT_ORDER, GameConfig
from arena.sandbox import wrap_for
from arena.seeds import new_secret, seed_key

CAUSES = [cause.value for cause in FAULT_ORDER]


@click.command()
@click.argument("bots", nargs=-1, required=True)
@click.option(
    "-n", "--games", type=click.IntRange(1), default=10, show_default=True, help="Games to play."
)
@click.option(
    "-j",
    "--concurrency",
    type=click.IntRange(1, MAX_CONCURRENCY),
    default=1,
    show_default=True,
    help=f"Games at once, at most {MAX_CONCURRENCY} (four per core), each with processes of"
    " its own: the games are the same at any -j, only the order they finish in differs.",
)
@click.option(
    "--seed",
    default=None,
    help="Seed of every deal: reproducible, and anyone who knows it knows every hand."
    " Without it a 128-bit secret is drawn; --json and the replay files keep it.",
)
@game_options
@run_options
@click.option(
    "--replays",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Write one replay file per game into this folder (m0001.jsonl ...); files there"
    " by those names are never written over.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON summary instead.")
@click.option("-q", "--quiet", is_flag=True, help="No per-game lines.")
def match(
    bots: tuple[str, ...],
    games: int,
    concurrency: int,
    seed: str | None,
    replays: Path | None,
    as_json: bool,
    quiet: bool,
    **opts: Any,
) -> None:
    """Play games between 2 to 6 BOTS: bot folders (with bot.toml) or quoted commands.

    Seats rotate from game to game. NAME=COMMAND names a command-line bot. The table
    closes with each bot's Elo and its 95% interval (a Plackett–Luce fit, as arena
    standings), and for two bots their wins, losses and draws and the Elo difference.
    """
    if not 2 <= len(bots) <= 6:
        raise ConfigError(f"a game seats 2 to 6 bots, not {len(bots)}")
    specs = unique_names([load_bot(b) for b in bots])
    given = opts.get("log_dir") is not None
    opts["log_dir"] = log_folder(opts, None)  # a new folder under $TMPDIR by default
    check_out_of_reach(specs, [("the log folder", opts["log_dir"]), ("the replay folder", replays)])
    check_log_dir(opts["log_dir"])
    check_log_dir(replays, "replay folder")
    if replays is not None and (taken := replays_in_the_way(replays, games)):
        more = f" and {len(taken) - 1} more replay files" if len(taken) > 1 else ""
        raise InputError(
            f"{replays} holds {taken[0]}{more} already, which this match would write"
            " (an earlier match's?): a replay is never written over; give a new or empty"
            " folder, or move them away"
        )
    sandbox = sandbox_mode(opts)
    check_sandboxed_apart(specs, sandbox)
    wrap = wrap_for(sandbox)  # (the same as the pools build: to check the bots' programs)
    config = build_config(len(specs), {}, opts)
    drawn = seed is None
    seed = seed_key(seed) if seed is not None else new_secret()
    settings = RunSettings(
        clocks=build_clocks({}, opts),
        limits=build_limits({}, opts),
        max_frame=opts["max_frame"] or protocol.DEFAULT_MAX_FRAME,
        fresh_process=bool(opts["fresh_process"]),
        log_dir=opts["log_dir"],
        sandbox=sandbox,
    )
    finished: list[GameResult] = []

    told: set[str] = set()  # the bots whose first fault's message was said

    def on_result(result: GameResult) -> None:
        finished.append(result)
        if not (as_json or quiet):
            _print_game(result, told, len(finished), games)

    def stopped() -> str:
        """Stopped (Ctrl-C, SIGTERM, a hang-up): the table of the games finished (not
        for --json, whose readers expect a whole match), and how many they are."""
        if finished and not as_json:
            _print_table(config, summarize([s.name for s in specs], finished))
            _print_ratings([s.name for s in specs], finished)
        kept = f" after {len(finished)} of {games} games"
        if replays is not None and finished:
            kept += f" (their replays are in {replays})"
        return kept

    def prepare() -> None:
        """Build the bots, and check that each program is there and seen in the sandbox."""
        for spec in specs:
            if spec.build is not None and spec.folder is not None:
                click.echo(printable(f"building {spec.name}: {' '.join(spec.build)}"), err=True)
            build_bot(spec, opts, sandbox_mode(opts))
            resolve_run(spec)  # fails early on a missing program
            check_sandboxed(spec, wrap)

    async def play() -> tuple[list[GameResult], dict[str, int]]:
        # The builds run inside the stoppable run, as a league's do: a stop kills the
        # build in progress, and a sandboxed build gives its folder back to its owner.
        await run_builds(specs, prepare)
        return await run_match(
            specs, config, games=games, seed=seed, settings=settings, replay_dir=replays,
            on_result=on_result, concurrency=concurrency,
        )  # fmt: skip

    results, started = run_stoppable(play, stopped, resumable=False)
    rows = summarize([s.name for s in specs], results)
    _point_at_logs(rows, opts["log_dir"])
    if not quiet and not given and opts["log_dir"] is not None:
        click.echo(printable(f"the bots' logs: {opts['log_dir']}"), err=True)
    if as_json:
        _print_json(config, seed, rows, started, results)
        return
    if not quiet and drawn:
        click.echo(f"deals from the secret seed {seed} (--seed {seed} deals them again)", err=True)
    _print_table(config, rows)
    _print_ratings([s.name for s in specs], results)


def _print_ratings(names: list[str], results: list[GameResult]) -> None:
    """The closing summary: each bot's places and Elo with its interval, and for two
    bots their wins, losses and draws and the Elo difference with its interval."""
    ratings, pair = rate_match(names, results)
    if not ratings:
        return

    def interval(elo: float, plus_minus: float | None) -> str:
        if plus_minus is None:
            return f"{elo:+.0f}"
        low, high = elo - plus_minus, elo + plus_minus
        return f"{elo:+.0f} ± {plus_minus:.0f} (95%: {low:+.0f} to {high:+.0f})"

    click.echo("")
    if pair is not None:
        click.echo(
            printable(
                f"{pair.first} vs {pair.second}: {pair.wins} W, {pair.losses} L, {pair.draws} D"
                f" ({pair.score:.1%} for {pair.first})"
            )
        )
        click.echo(
            printable(f"Elo {pair.first} - {pair.second}: {interval(pair.elo, pair.plus_minus)}")
        )
    else:
        headers = ["bot", *(_ordinal(k + 1) for k in range(len(names))), "Elo", "±"]
        table = [
            [
                printable(r.name),
                *r.places,
                f"{r.elo:+.0f}",
                "" if r.plus_minus is None else f"{r.plus_minus:.0f}",
            ]
            for r in sorted(ratings, key=lambda r: -r.elo)
        ]
        click.echo(
            tabulate.tabulate(table, headers=headers, tablefmt="simple", disable_numparse=True)
        )
    relative = "" if pair is not None else ", relative to the bots' average"
    click.echo(
        "Elo: a Plackett–Luce fit of the finishing orders, as arena standings (a prior of 1"
        f" pseudo-win and 1 pseudo-loss per bot){relative}; ± is its 95% interval"
    )


def _ordinal(n: int) -> str:
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n, 'th') }"


def _print_game(result: GameResult, told: set[str], done: int, total: int) -> None:
    """A game's line: its id, the games finished of all, its finishing order and its faults;
    each bot's first fault with its message (what went wrong, with the bot's last
    stderr lines), once (`told`)."""
    order = " > ".join("=".join(result.names[s] for s in g) for g in result.outcome.order())
    faults = "".join(f"  [{result.names[f.seat]}: {f.cause}]" for f in result.faults)
    count = f"{done:>{len(str(total))}}/{total}"
    click.echo(f"{result.game_id}  {count}  {order}{faults}", err=True)
    for fault in result.faults:
        name = result.names[fault.seat]
        if name not in told:
            told.add(name)
            click.echo(f"  {name}: {fault.cause}: {printable(fault.message)}", err=True)


def _point_at_logs(rows: list[BotSummary], log_dir: Path | None) -> None:
    """Say where to look for a bot that faulted in every game."""
    for bot in rows:
        if bot.games and sum(bot.faults.values()) == bot.games:
            where = (
                f"its stderr is in {log_dir / (bot.name + '.log')}"
                if log_dir is not None
                else "run again without --no-logs to keep its stderr"
            )
            click.echo(f"{bot.name} faulted in every game ({where})", err=True)


def _print_json(
    config: GameConfig,
    seed: str,
    rows: list[BotSummary],
    started: dict[str, int],
    results: list[GameResult],
) -> None:
    summary = {
        "config": config.to_dict(),
        "seed": seed,
        "bots": {
            r.name: {
                "games": r.games,
                "wins": r.wins,
                "average_place": round(r.average_place, 4),
                "points": r.points if config.format.value == "points" else None,
                "faults": r.faults,
                "processes": started[r.name],
            }
            for r in rows
        },
        "games": [result_to_json(r) for r in results],
    }
    click.echo(json.dumps(summary, indent=2))


def _print_table(config: GameConfig, rows: list[BotSummary]) -> None:
    headers = ["bot", "games", "wins", "avg place"]
    if config.format.value == "points":
        headers.append("points")
    headers += CAUSES
    table = []
    for r in sorted(rows, key=lambda r: (r.average_place, r.name)):
        row: list[Any] = [r.name, r.games, r.wins, f"{r.average_place:.2f}"]
        if config.format.value == "points":
            row.append(r.points)
        row += [r.faults.get(c, 0) for c in CAUSES]
        table.append(row)
    click.echo(tabulate.tabulate(table, headers=headers, tablefmt="simple"))
