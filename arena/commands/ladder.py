"""`arena ladder`: a ladder's server, its authors, and its settling."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from arena.bots import BUILD_TIMEOUT, BuildSettings
from arena.commands._options import setting_option
from arena.commands.report import server_options

_STORE = click.argument("store", type=click.Path(dir_okay=False, path_type=Path))


@click.group()
def ladder() -> None:
    """Run a ladder: bots submitted over HTTP, games that never end."""


_SUBMITTED = ("max_upload_mb", "submissions_per_hour", "bots_per_author")
"""The settings of the submissions taken (`serve`'s options only)."""


def _settings(store: Path, opts: dict[str, Any]) -> Any:
    from arena.cluster._bundles import UploadCaps
    from arena.ladder import LadderSettings

    caps = UploadCaps(bytes=int(opts["max_unpacked_mb"] * 2**20))
    return LadderSettings(
        store=store,
        table_size=opts["table_size"],
        concurrency=opts["concurrency"],
        fault_limit=opts["fault_limit"],
        build_timeout=opts["build_timeout"],
        caps=caps,
        **{key: opts[key] for key in _SUBMITTED if key in opts},
        top=opts.get("top") or 10,
        cluster=opts.get("cluster"),
        cluster_retry=opts.get("cluster_retry") or 30.0,
        duplicate=opts["duplicate"],
    )


def _ladder_settings() -> Any:
    """`arena.ladder.LadderSettings`, which declares the ladder's settings (imported when
    their help is shown)."""
    from arena.ladder import LadderSettings

    return LadderSettings


def _proxies(ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
    if value is None:
        return None
    from arena.ladder._web import parse_proxies

    try:
        return parse_proxies(value)
    except ValueError as err:
        raise click.BadParameter(str(err)) from None


_RUN_OPTIONS = [
    click.option(
        "--table-size", type=click.IntRange(2, 6), default=4, show_default=True,
        help="Seats per table (fewer while fewer versions are active).",
    ),
    click.option(
        "-j", "--concurrency", type=click.IntRange(1, 1000), default=1, show_default=True,
        help="Tables played at once (worker processes past 1; on --cluster, games in flight).",
    ),
    click.option(
        "--cluster", default=None, metavar="tcp://HOST:PORT",
        help="Play the games on the workers of this Dask scheduler (docs/cluster.md).",
    ),
    setting_option(_ladder_settings, "--duplicate/--no-duplicate", default=False),
    click.option(
        "--fault-limit", type=click.IntRange(0), default=5, show_default=True,
        help="Faults in a row after which a version stops playing (0: never).",
    ),
    setting_option(  # (declared once, with the league's: arena.bots.BuildSettings)
        BuildSettings, "--build-timeout", type=click.FloatRange(1), default=BUILD_TIMEOUT
    ),
    click.option(
        "--max-unpacked-mb", type=click.FloatRange(0.01), default=64.0, show_default=True,
        help="The most an upload may hold once unpacked.",
    ),
]  # fmt: skip

_SUBMISSION_OPTIONS = [
    click.option(
        "--max-upload-mb", type=click.FloatRange(0.01), default=16.0, show_default=True,
        help="The largest upload (the packed folder).",
    ),
    click.option(
        "--submissions-per-hour", type=click.IntRange(1), default=6, show_default=True,
        help="Submissions an author may send in any hour.",
    ),
    setting_option(
        _ladder_settings, "--bots-per-author", type=click.IntRange(0), default=1
    ),
]  # fmt: skip
"""Options of the submissions taken: `arena ladder serve`'s only (a settling ladder
takes none)."""


def _run_options(command: Any) -> Any:
    for option in reversed(_RUN_OPTIONS):
        command = option(command)
    return command


def _submission_options(command: Any) -> Any:
    for option in reversed(_SUBMISSION_OPTIONS):
        command = option(command)
    return command


@ladder.command(short_help="Run the ladder: its web server and its games.")
@_STORE
@server_options
@click.option(
    "--forwarded-allow-ips", "proxies", default=None, callback=_proxies, metavar="IPS",
    help="Reverse proxies to trust (addresses or networks, comma-separated; * for any):"
    " their X-Forwarded-Proto and X-Forwarded-For are believed (a session cookie is then"
    " Secure over HTTPS). Nobody's by default.",
)  # fmt: skip
@click.option(
    "--cluster-retry", type=click.FloatRange(0.1), default=30.0, show_default=True,
    metavar="SECONDS",
    help="With --cluster: seconds between tries to reach the cluster again once it failed"
    " (its scheduler lost, a game it could not play); the web pages and submissions go on.",
)  # fmt: skip
@_run_options
@_submission_options
def serve(
    store: Path, host: str, port: int, allow: tuple[str, ...], proxies: Any, **opts: Any
) -> None:
    """Run the ladder in STORE (made if there is none): the web server (the ladder's
    pages, the submission API, the live report) and the games between the active
    versions. Killed at any moment, it starts again where it was."""
    from arena.ladder._serve import serve as run

    if opts.get("cluster"):
        from arena.cluster import parse_address

        opts["cluster"] = parse_address(opts["cluster"])
    run(_settings(store, opts), host, port, allow, proxies)


@ladder.command(short_help="Close the ladder and play until the top is separated.")
@_STORE
@click.option("--top", type=click.IntRange(2), default=10, show_default=True,
              help="Places whose neighbours must all be separated at 95% LOS.")  # fmt: skip
@click.option("--budget", type=click.IntRange(1), default=10_000, show_default=True,
              help="Games to play before it stops anyway (begins no table after;"
                   " those in play are played to their end).")  # fmt: skip
@_run_options
def settle(store: Path, top: int, budget: int, **opts: Any) -> None:
    """Close the ladder in STORE to submissions and play on until every pair of
    neighbours among the top places is separated at 95% likelihood of superiority, or
    the budget of games is spent; then print the final standings with their
    intervals."""
    import functools

    from arena.commands._stopping import run_stoppable
    from arena.ladder._settle import settle_ladder

    opts["top"] = top
    if opts.get("cluster"):
        from arena.cluster import parse_address

        opts["cluster"] = parse_address(opts["cluster"])
    text, _ = run_stoppable(
        functools.partial(settle_ladder, _settings(store, opts), top, budget),
        lambda: f": the games played are kept in {store}",
    )
    click.echo(text, nl=False)


@ladder.group()
def author() -> None:
    """Add or revoke the authors who may submit."""


@author.command("add", short_help="Add an author and print their token.")
@click.argument("name")
@_STORE
def author_add(name: str, store: Path) -> None:
    """Add author NAME to the ladder in STORE and print their token, once: only its hash
    is kept. A revoked author gets a new token."""
    from arena.ladder import LadderDB
    from arena.ladder._db import check_author_name

    check_author_name(name)  # before the store is made
    with LadderDB.open(store, create=True) as db:
        token = db.add_author(name)
    click.echo(token)
    click.echo(
        f"the token of {name}: shown this once (arena submit --token-file FILE, or ARENA_TOKEN)",
        err=True,
    )


@author.command("revoke", short_help="Refuse an author's token from now on.")
@click.argument("name")
@_STORE
def author_revoke(name: str, store: Path) -> None:
    """Revoke author NAME's token: refused from now on (a running server included)."""
    from arena.ladder import LadderDB

    with LadderDB.open(store) as db:
        db.revoke_author(name)
    click.echo(f"revoked {name}", err=True)


@ladder.command(short_help="Take a bot out of play (its games kept).")
@click.argument("name")
@_STORE
def withdraw(name: str, store: Path) -> None:
    """Retire the active version of bot NAME in STORE, also while the server runs (after
    the table in play) or settles: it plays no more and, as any retired version, its
    games count only as the order of the active versions in them. Its author may still
    send a new version: revoke the author first to keep the bot out."""
    from arena.ladder import LadderDB

    with LadderDB.open(store) as db:
        withdrawn = db.withdraw(name)
    click.echo(f"withdrew {withdrawn.bot} (author {withdrawn.author})", err=True)
