"""`arena sprt`: is NEW better than OLD? A sequential test on duplicate-paired deals."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from arena._text import printable
from arena.commands._options import (
    build_clocks,
    build_config,
    build_limits,
    game_options,
    log_folder,
    pin_cpus_option,
    run_options,
    sandbox_mode,
    setting_option,
)
from arena.commands._progress import redrawn
from arena.commands._stopping import run_stoppable
from arena.commands.league import MAX_CONCURRENCY
from arena.errors import ConfigError
from arena.sprt import Hypotheses, SprtConfig, SprtProgress

if TYPE_CHECKING:
    from arena.sprt import SprtResult, SprtStore

DEFAULT_STORE = Path("sprt.sqlite")


class _SprtCommand(click.Command):
    """`--field A B C` takes every word up to the next option, as `--field A --field B
    --field C` (click gives an option one value at a time)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, expand_field(args))
        except click.MissingParameter as err:
            if "--field" not in args or err.param is None or err.param.name not in ("new", "old"):
                raise
            # (the field took them: `--field A B NEW OLD`)
            raise click.UsageError(
                f"{err.format_message()} --field takes every word after it up to the next"
                " option: give NEW and OLD before --field, or end the field with --",
                ctx,
            ) from None


def expand_field(args: list[str]) -> list[str]:
    """Rewrite ``--field A B C`` as ``--field A --field B --field C``: the words after
    ``--field`` up to the next option (or ``--``) are field bots."""
    out: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            out += args[i:]
            break
        if arg == "--field":
            j = i + 1
            while j < len(args) and not _is_option(args[j]):
                out += ["--field", args[j]]
                j += 1
            if j == i + 1:
                raise click.UsageError("--field needs at least one BOT after it")
            i = j
            continue
        out.append(arg)
        i += 1
    return out


def _is_option(arg: str) -> bool:
    return arg.startswith("-") and arg != "-"


@click.command(cls=_SprtCommand)
@click.argument("new")
@click.argument("old")
@click.option(
    "--field",
    "field",
    multiple=True,
    metavar="BOT [BOT ...]",
    help="The bots NEW and OLD are compared against (a bot may be given more than once:"
    " copies). Without it, at a table of 2, NEW plays OLD directly, in both seats of"
    " every deal: only between bots you trust (see --trusted).",
)
@click.option(
    "--trusted",
    is_flag=True,
    help="NEW and OLD are your own bots: no warning for a direct test (no --field), in"
    " which NEW plays both sides of every deal and a channel between its processes and"
    " OLD's would show it OLD's hand.",
)
@setting_option(SprtConfig, "--table-size", type=click.IntRange(2, 6))
@setting_option(Hypotheses, "--elo0", type=float)
@setting_option(Hypotheses, "--elo1", type=float)
@setting_option(Hypotheses, "--alpha", type=float)
@setting_option(Hypotheses, "--beta", type=float)
@setting_option(SprtConfig, "--max-games", type=click.IntRange(2))
@setting_option(
    SprtConfig,
    "--store",
    type=click.Path(dir_okay=False, path_type=Path),
    default=DEFAULT_STORE,
    show_default=True,
)
@setting_option(SprtConfig, "--seed")
@setting_option(
    SprtConfig,
    "-j",
    "--concurrency",
    type=click.IntRange(1, MAX_CONCURRENCY),
    fill={"most": MAX_CONCURRENCY},
)
@pin_cpus_option
@game_options
@run_options
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON, for scripts.")
@click.option("-q", "--quiet", is_flag=True, help="No progress line.")
def sprt(
    new: str,
    old: str,
    field: tuple[str, ...],
    table_size: int | None,
    elo0: float | None,
    elo1: float | None,
    alpha: float | None,
    beta: float | None,
    max_games: int | None,
    store: Path,
    seed: str | None,
    concurrency: int | None,
    trusted: bool,
    as_json: bool,
    quiet: bool,
    **opts: Any,
) -> None:
    """Test whether bot NEW is stronger than bot OLD.

    In as few games as it takes: each deal is played twice at the same table, once
    with NEW in the test seat and once with OLD there, the same field bots in the other
    seats (at a table of 2 with no field, NEW plays OLD in both seat orders: NEW plays
    both sides of every deal, so use a --field unless NEW and OLD are bots you trust).
    The bots see neutral names and game ids: no bot can tell NEW from OLD by name (a
    field bot still sees how each plays, and how long it takes). The paired difference
    of their scores (the share of opponents finished above) feeds a sequential
    probability ratio test of H0: NEW - OLD = elo0 against H1: NEW - OLD = elo1, in the
    Elo of arena standings. It stops when the log-likelihood ratio crosses
    a bound (H1 or H0 accepted) or at --max-games (inconclusive).

    Every game is stored in --store as it finishes: Ctrl-C loses nothing, and the
    same command resumes (a store of another test is refused). The exit status is 0
    whatever the verdict: a script reads it from --json ("verdict": "H1", "H0" or
    "inconclusive").
    """
    from arena.bots import (
        BuildSettings,
        check_log_dir,
        check_out_of_reach,
        check_sandboxed_apart,
        load_bot,
    )
    from arena.referee import RunSettings
    from arena.seeds import seed_key
    from arena.sprt import DEFAULT_MAX_GAMES, SprtStore

    if seed is not None:
        seed = seed_key(seed)  # refused before the store is made
    asked = {"elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta}
    hypotheses = Hypotheses(**{key: value for key, value in asked.items() if value is not None})
    size = _table_size(table_size, len(field))
    specs = [load_bot(b) for b in (new, old, *field)]
    sandbox = sandbox_mode(opts)
    config = SprtConfig(
        new=specs[0],
        old=specs[1],
        field=tuple(specs[2:]),
        store=store,
        table_size=size,
        hypotheses=hypotheses,
        max_games=max_games if max_games is not None else DEFAULT_MAX_GAMES,
        game=build_config(size, {}, opts),
        run=RunSettings(
            clocks=build_clocks({}, opts),
            limits=build_limits({}, opts),
            fresh_process=bool(opts.get("fresh_process")),
            log_dir=log_folder(opts, store),
            sandbox=sandbox,
            **_given(opts, RunSettings),
        ),
        build=BuildSettings(**_given(opts, BuildSettings)),
        seed=seed,
        concurrency=concurrency if concurrency is not None else _cores(),
        pin_cpus=bool(opts.get("pin_cpus")),
    )
    from arena.sprt import render

    log_dir = config.run.log_dir
    check_out_of_reach(specs, [("the store", config.store), ("the log folder", log_dir)])
    check_sandboxed_apart(specs, sandbox)
    beside = log_dir is not None and log_dir == log_folder({}, config.store)
    if not beside:  # (the default, beside the store, is checked once the store opens)
        check_log_dir(log_dir)
    with SprtStore.open(config.store) as db:
        check_log_dir(log_dir)
        if not field and not trusted:  # (after the store's errors, which stop the test)
            click.echo(
                "warning: a direct test (no --field): NEW plays both sides of every deal, so"
                " a channel between NEW's processes and OLD's (docs/fair-play.md) would show"
                " NEW OLD's hand in the second game. Between bots you do not trust, give a"
                " --field; --trusted silences this.",
                err=True,
            )
        progress = TerminalProgress(quiet=quiet)
        try:
            result = _play(config, db, progress)
        finally:
            progress.close()
        db.check_in_place()  # a store removed after its last game: not "all well"
        if as_json:
            click.echo(json.dumps(result.to_json(), indent=2))
        else:
            click.echo(render(result), nl=False)


def _table_size(given: int | None, field: int) -> int:
    if given is not None:
        return given
    if field + 1 > 6:
        raise ConfigError(
            f"a field of {field} bots needs --table-size (2 to 6): each table seats the tested"
            " bot and table size - 1 of the field"
        )
    return max(2, field + 1)


def _cores() -> int:
    return max(1, os.cpu_count() or 1)


def _given(opts: dict[str, Any], kind: Any) -> dict[str, Any]:
    """The options given of the settings `kind` declares, but for those made above
    (clocks, limits, the sandbox, the logs: options of their own)."""
    made = {"clocks", "limits", "sandbox", "log_dir", "fresh_process"}
    names = {f.name for f in dataclasses.fields(kind)} - made
    return {key: opts[key] for key in names if opts.get(key) is not None}


class TerminalProgress(SprtProgress):
    """The LLR as it moves, on stderr: one line redrawn on a terminal, otherwise a
    line every `every` seconds (and the last)."""

    def __init__(self, *, quiet: bool, every: float = 5.0) -> None:
        self.quiet = quiet
        self.every = every
        self.tty = sys.stderr.isatty()
        self.start = time.monotonic()
        self.last = -math.inf
        self.first = 0
        self.drawn = False

    def message(self, text: str) -> None:
        if self.drawn and self.tty:
            click.echo("", err=True)
            self.drawn = False
        click.echo(printable(text), err=True)

    def started(self, result: SprtResult) -> None:
        self.start = time.monotonic()
        self.first = result.stored
        if result.tally.pairs and not self.quiet:
            click.echo(
                f"resuming: {result.games} games already counted, LLR {result.tally.llr:.2f}",
                err=True,
            )

    def counted(self, result: SprtResult) -> None:
        if self.quiet:
            return
        now = time.monotonic()
        if not self.tty and now - self.last < self.every and result.verdict == "running":
            return
        self.last = now
        elapsed = now - self.start
        rate = (result.stored - self.first) / elapsed if elapsed > 0 else 0.0
        h, tally = result.hypotheses, result.tally
        estimate = tally.estimate()
        elo = (
            ""
            if estimate is None
            else f"  Elo {estimate.elo:+.1f} [{estimate.low:+.1f}, {estimate.high:+.1f}]"
        )
        line = (
            f"games {result.games:>6}  LLR {tally.llr:+6.2f} [{h.lower:.2f}, {h.upper:.2f}]"
            f"{elo}  {rate:.1f} games/s"
        )
        if self.tty:
            click.echo("\r" + redrawn(line), err=True, nl=False)
            self.drawn = True
        else:
            click.echo(line, err=True)

    def close(self) -> None:
        if self.drawn and self.tty:
            click.echo("", err=True)
            self.drawn = False


def _play(config: SprtConfig, store: SprtStore, progress: SprtProgress) -> SprtResult:
    """Run the test; stopped (Ctrl-C, SIGTERM, a hang-up: `run_stoppable`), say what
    is stored."""
    from arena.sprt import run_sprt

    started = time.monotonic()
    return run_stoppable(
        lambda: run_sprt(config, store, progress),
        lambda: (
            f" after {time.monotonic() - started:.0f} s: {store.count()} games are stored"
            f" in {config.store}"
        ),
        moved=store.moved,
    )
