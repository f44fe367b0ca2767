"""`arena rate FILE`: the standings table for finishing orders from elsewhere.

`rating_options` and `print_standings` are shared with any other command that prints
standings (such as `arena standings DB`). The rating modules import numpy, so they are
imported only when a command runs: `arena --help` stays fast.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from arena.standings import GameRecord, ResultColumns

F = TypeVar("F", bound=Callable[..., Any])

# The same values as arena.ratings.DEFAULT_PRIOR and DEFAULT_K_FACTOR (a test checks).
_DEFAULT_PRIOR = 1.0
_DEFAULT_K_FACTOR = 32.0
# The largest a prior and a K-factor may be: far past any use, and short of the floats'
# overflow (a prior of 1e308 made the fit run 100,000 steps on NaN; a K-factor of 1e308
# overflowed 10^(Δ/400)).
_MAX_PRIOR = 1e6
_MAX_K_FACTOR = 1000.0


def _check_format(ctx: click.Context, param: click.Parameter, value: str) -> str:
    from arena.standings import output_formats

    if value not in output_formats():
        raise click.BadParameter(
            f"{value!r} is not a format; choose one of: {', '.join(output_formats())}"
        )
    return value


def _anchor(value: str | None) -> tuple[str, float] | None:
    """`--anchor NAME=ELO` as (name, elo)."""
    if value is None:
        return None
    name, sep, number = value.rpartition("=")
    try:
        elo = float(number)
    except ValueError:
        elo = math.nan
    if not sep or not name or not math.isfinite(elo) or abs(elo) > 1e6:
        raise click.BadParameter(
            f"{value!r} is not NAME=ELO (a bot's name and a finite Elo, e.g. yardstick-3=1500)"
        )
    return name, elo


def _check_finite(ctx: click.Context, param: click.Parameter, value: float) -> float:
    if not math.isfinite(value):
        raise click.BadParameter(f"{value} is not a finite number")
    return value


anchor_option = click.option(
    "--anchor",
    default=None,
    metavar="NAME=ELO",
    callback=lambda ctx, param, value: _anchor(value),
    help="Fix the scale at a bot: NAME gets ELO, and each ± is the interval of the"
    " difference from NAME (as Ordo and BayesElo anchor theirs), so that ratings from"
    " different leagues with that bot compare. The yardstick's levels make good"
    " anchors.",
)
"""`--anchor NAME=ELO` (arena standings, rate, report and serve)."""


_RATING_OPTIONS = [
    click.option(
        "--prior",
        type=click.FloatRange(0.0, _MAX_PRIOR),
        default=_DEFAULT_PRIOR,
        show_default=True,
        callback=_check_finite,
        help="Pseudo-wins and as many pseudo-losses per bot against an average bot; "
        "0 gives the plain maximum-likelihood fit.",
    ),
    click.option(
        "--mean",
        type=click.FloatRange(-1e6, 1e6),  # past it an Elo difference is lost in rounding
        default=1500.0,
        show_default=True,
        callback=_check_finite,
        help="The Elo the bots average to.",
    ),
    anchor_option,
    click.option(
        "-f",
        "--format",
        "fmt",
        default="simple",
        show_default=True,
        callback=_check_format,
        help="Any tabulate format (simple, github, grid, ...), csv or json. Tables and "
        "CSV show a control character in a name as an escape (\\x1b), and CSV writes a "
        "name that begins with = + - @, a tab or a carriage return with a leading ' (a "
        "spreadsheet would run it as a formula); JSON gives every name exactly.",
    ),
    click.option(
        "--matrix",
        is_flag=True,
        help="Print the head-to-head table (share of shared games in which the row "
        "bot finished above the column bot) instead of the standings.",
    ),
    click.option(
        "--bootstrap",
        type=click.IntRange(0, 100_000),
        default=0,
        metavar="N",
        help="Error bars from N resamples of whole games (whole duplicate groups "
        "when the games have them) instead of the Fisher information. Fewer than 2 games "
        "(or groups) to resample, or fewer than 2 resamples, give none: the table's notes "
        "say why, and so does JSON's bootstrap.no_error_bars (null when there are error "
        "bars); CSV, one row a bot, leaves those cells empty. Where the resamples cannot "
        "measure the spread (a bot that won, or lost, every game it played, in the "
        "results or in some resample of them; games that all ended alike) the Fisher "
        "intervals are given instead, and the notes and "
        "JSON's bootstrap.fisher_instead say why.",
    ),
    click.option(
        "--bootstrap-seed",
        "--seed",
        "seed",
        type=click.IntRange(min=0),
        default=0,
        show_default=True,
        help="Seed of the --bootstrap resamples (no deal's: the --seed of match, league and"
        " sprt deals cards; --seed is kept here as this option's former name).",
    ),
    click.option(
        "--no-intervals",
        is_flag=True,
        help="Leave out the error bars and the likelihood of superiority.",
    ),
    click.option(
        "--sequential",
        is_flag=True,
        help="Classic sequential Elo in the order the games are given instead of the "
        "fit; it depends on that order.",
    ),
    click.option(
        "--k-factor",
        type=click.FloatRange(0.0, _MAX_K_FACTOR, min_open=True),
        default=_DEFAULT_K_FACTOR,
        show_default=True,
        callback=_check_finite,
        help="K-factor of --sequential.",
    ),
]
"""The options that choose how standings are rated and printed."""


def rating_options(command: F) -> F:
    """The options that choose how standings are rated and printed."""
    for option in reversed(_RATING_OPTIONS):
        command = option(command)
    return command


def _given(ctx: click.Context, name: str) -> bool:
    return ctx.get_parameter_source(name) not in (
        None,
        click.core.ParameterSource.DEFAULT,
    )


def print_standings(
    ctx: click.Context,
    records: Sequence[GameRecord] | ResultColumns,
    versions: Mapping[str, int] | None = None,
    **options: Any,
) -> None:
    """Rate ``records`` (or the same in columns) as the `rating_options` say and print
    the table; ``versions``: the bots whose rows pool versions of their submission (a
    league store's `changed_versions`), for the table's notes."""
    from arena.standings import (
        ResultColumns,
        compute_standings,
        head_to_head,
        render,
        render_head_to_head,
    )

    sequential = options["sequential"]
    if sequential:
        for name, option in (
            ("prior", "--prior"),
            ("bootstrap", "--bootstrap"),
            ("seed", "--bootstrap-seed"),
        ):
            if _given(ctx, name):
                raise click.UsageError(f"{option} applies to the fit, not to --sequential")
    elif _given(ctx, "k_factor"):
        raise click.UsageError("--k-factor applies only with --sequential")
    if options["anchor"] is not None and _given(ctx, "mean"):
        raise click.UsageError("--anchor and --mean both set the scale: give one of them")
    if options["no_intervals"] and options["bootstrap"]:
        raise click.UsageError("--bootstrap and --no-intervals contradict each other")

    standings = compute_standings(
        records,
        prior=options["prior"],
        mean=options["mean"],
        method="sequential" if sequential else "mle",
        bootstrap=options["bootstrap"],
        seed=options["seed"],
        k_factor=options["k_factor"],
        intervals=not options["no_intervals"],
        anchor=options["anchor"],
        versions=versions,
    )
    fmt = options["fmt"]
    if options["matrix"]:
        order = [row.player for row in standings.rows]
        games = records.records() if isinstance(records, ResultColumns) else records
        text = render_head_to_head(head_to_head(games, order), fmt)
    else:
        text = render(standings, fmt)
    click.echo(text, nl=False)


@click.command()
@click.argument("file", metavar="FILE")
@rating_options
@click.pass_context
def rate(ctx: click.Context, /, file: str, **options: Any) -> None:
    """Print standings for the finishing orders in FILE ("-" reads standard input).

    FILE is CSV with the columns game, player, place: one row per player per game.
    A place is 1 plus the number of the game's players placed better, as arena places
    its own games: 1 the best, tied players sharing a place and the places after them
    skipped (1, 1, 3), none past the game's number of players; a file with other
    places is refused, naming the line. Optional columns: points, cause
    (the elimination cause; timeout, crash, malformed, illegal and forfeit count as
    faults, and a game with a forfeit is no finishing order: it is left out of the
    ratings and counts but the forfeit column, as in arena's own standings) and group
    (duplicate-deal group, resampled as a whole by --bootstrap).

    Elo comes from a Plackett–Luce maximum-likelihood fit of all finishing orders at
    once (Bradley–Terry for two-player games), which does not depend on the order of
    the games; ± is the 95% interval and LOS the likelihood that a bot is stronger than
    the next one down. Bots that no chain of games links (two leagues in one file) are
    named in the notes' Apart line and JSON's apart: Elo compares only within a group.
    """
    from arena.standings import load_places_columns

    print_standings(ctx, load_places_columns(file), **options)
