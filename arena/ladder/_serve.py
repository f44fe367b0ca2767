"""`arena ladder serve`: the web server, the intake and the games, in one trio run."""

from __future__ import annotations

import contextlib
import functools
import shutil
import signal
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path

import click
import trio

from arena.errors import InputError
from arena.ladder._cluster import ClusterLink
from arena.ladder._db import LadderDB, mark_ladder
from arena.ladder._run import Ladder, LadderSettings
from arena.ladder._web import Proxies
from arena.report._serve import _first_os_error, make_app, own_hosts
from arena.runners import GameRunner
from arena.store import LADDER_KEY, Store


def _say(text: str) -> None:
    from arena._text import printable

    click.echo(f"ladder: {printable(text)}", err=True)


@contextlib.asynccontextmanager
async def open_ladder(
    settings: LadderSettings, say: Callable[[str], None] = _say, *, existing: bool = False
) -> AsyncIterator[Ladder]:
    """The ladder of `settings.store` (made if there is none, unless `existing`: then
    InputError, as for a league's store, games or none), open to run."""
    from arena.sandbox import resolve_sandbox

    if existing:  # a league's store, even without games, is left as it is
        if not settings.store.exists():
            raise InputError(f"{settings.store}: no such ladder store")
        with Store.open(settings.store, readonly=True) as store:
            _check_ladder(store, settings.store, "")
    resolve_sandbox("bwrap")  # the ladder never builds or runs a bot outside it
    with Store.open(settings.store) as store:  # (refuses a folder, '' among them, first)
        settings.make_folders()
        # What a ladder killed while it judged an upload left (the upload half unpacked,
        # up to --max-unpacked-mb): no submission names it. (The store is held: no other
        # ladder is judging into it.)
        shutil.rmtree(settings.folder / "incoming", ignore_errors=True)
        if store.games_count():
            _check_ladder(store, settings.store, " (give a new file)")
            store.verify()
        mark_ladder(store, settings.table_size)
        store.adopt_proofs()  # an older ladder's store: marked with this arena's schema
        with (
            LadderDB.open(settings.store) as db,
            Store.open(settings.store, readonly=True) as reader,
        ):
            yield Ladder(settings, store, db, say, reader=reader)


def _check_ladder(store: Store, path: Path, hint: str) -> None:
    """InputError unless `store` (at `path`) is a ladder's; its message ends with `hint`."""
    if store.get_meta(LADDER_KEY) is None:
        raise InputError(f"{path}: a league's store, not a ladder's{hint}")


async def serve_ladder(
    settings: LadderSettings,
    host: str,
    port: int,
    allow: Sequence[str] = (),
    *,
    play: bool = True,
    proxies: Proxies = None,
) -> None:
    """Serve the ladder and play its games until cancelled."""
    from hypercorn.config import Config
    from hypercorn.trio import serve as hypercorn_serve

    config = Config()
    config.bind = [f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
    config.accesslog = None
    config.errorlog = None
    async with open_ladder(settings) as ladder:
        from arena.ladder._web import make_ladder_app

        with (
            Store.open(settings.store, readonly=True) as reading,
            Store.open(settings.store, readonly=True) as pages,
        ):
            report = make_app(reading)
            app = make_ladder_app(ladder, report, pages, own_hosts(allow), proxies)
            link = None
            if settings.cluster is not None:  # (one that cannot be reached: an error now)
                link = ClusterLink(
                    settings.cluster, settings.concurrency or None, settings.cluster_retry, _say
                )
                await link.connect()
            ladder.cluster, ladder.serving = link, True
            try:
                async with trio.open_nursery() as nursery:
                    binds = await nursery.start(hypercorn_serve, app, config)
                    where = ", ".join(f"{bind}/ladder" for bind in binds)
                    _say(f"serving {settings.store} at {where} (Ctrl-C stops)")
                    if link is not None:
                        nursery.start_soon(link.keep)
                    nursery.start_soon(ladder.intake)
                    if play:
                        nursery.start_soon(ladder.play)
            except (OSError, BaseExceptionGroup) as caught:
                err = _first_os_error(caught)
                if err is None:
                    raise
                reason = err.strerror or str(err) or type(err).__name__
                raise InputError(
                    f"arena ladder serve cannot listen at {config.bind[0]}: {reason}"
                ) from None
            finally:
                if link is not None:
                    await link.disconnect()


@contextlib.asynccontextmanager
async def _runner(settings: LadderSettings) -> AsyncIterator[GameRunner | None]:
    if settings.cluster is None:
        yield None
        return
    from arena.cluster import DaskRunner

    async with DaskRunner.open(
        settings.cluster, concurrency=settings.concurrency or None, say=_say
    ) as cluster:
        yield cluster


def run_until_stopped(main: Callable[[], object]) -> None:
    """Run `main` (an async function) until it ends, Ctrl-C or SIGTERM."""

    async def guarded() -> None:
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async with trio.open_nursery() as nursery:

                async def running() -> None:
                    await main()  # type: ignore[misc]
                    nursery.cancel_scope.cancel()

                nursery.start_soon(running)
                async for _ in signals:
                    nursery.cancel_scope.cancel()
                    break

    trio.run(guarded)
    click.echo("stopped", err=True)


def serve(
    settings: LadderSettings,
    host: str,
    port: int,
    allow: Sequence[str],
    proxies: Proxies = None,
) -> None:
    run_until_stopped(functools.partial(serve_ladder, settings, host, port, allow, proxies=proxies))
