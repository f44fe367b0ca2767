"""`arena serve`: the report's pages served live from a league store, read-only.

A Starlette app on Hypercorn's trio worker (no second event loop library). It serves
the pages and their assets, and the data scripts made from the store (opened read-only,
so it reads beside the league that writes it), but not the replay of a game whose
duplicate deal is still being played (`LeagueData`); nothing else: every other path is
a 404, and every response forbids inline and foreign scripts (Content-Security-Policy),
so that no text a bot chose can run as script.

The store is read in a worker thread, one read at a time, so that the pages and other
viewers are served meanwhile. The league's standings and its game list (what every
open page asks for every few seconds) are made at most once every `FRESH_S` seconds
and shared by every request meanwhile, as one bytes object: a reader that never reads
its answer holds no copy of its own (without this, 4,000 such requests for the list of
a 10,000-game league held 5.8 GB, and 8 clients asking for the standings in a loop
held up every other request by 2.5 s).
"""

from __future__ import annotations

import collections
import functools
import ipaddress
import signal
import socket
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar, cast

import click
import trio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from arena.errors import ArenaError, InputError
from arena.replay import readable
from arena.report._export import STATIC, LeagueData, _walk, game_payload, script
from arena.store import Store

HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
        " connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "Referrer-Policy": "no-referrer",
    # A page of another site could otherwise run the data scripts as its own (a
    # <script src> of one is no cross-origin read to the browser), with an ARENA of its
    # own to receive them: the standings and every hand of every replay, of a league
    # served on the organiser's 127.0.0.1, whatever Host checks (`known_host`).
    "Cross-Origin-Resource-Policy": "same-origin",
}

_TYPES = {
    ".txt": "text/plain",
    ".html": "text/html",
    ".js": "text/javascript",
    ".css": "text/css",
    ".png": "image/png",
}


FRESH_S = 1.0
"""How long the standings and the game list, once made, serve every request: an open
page asks for them every 3 s."""

T = TypeVar("T")

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]"})
"""The names a browser gives a server on this machine's loopback (port aside)."""


def host_name(header: str) -> str:
    """The host of a Host header, without its port: "[::1]:8000" gives "[::1]"."""
    if header.startswith("["):
        return header[: header.find("]") + 1].lower()
    return header.split(":", 1)[0].lower()


def known_host(name: str, hosts: frozenset[str]) -> bool:
    """Whether a request for the host `name` (`host_name`) is answered: one of `hosts`,
    or an address (a browser asks a page by its address only when given it; a web site's
    page that rebinds a name of its own to this machine comes by that name)."""
    if name in hosts:
        return True
    try:
        ipaddress.ip_address(name[1:-1] if name.startswith("[") else name)
    except ValueError:
        return False
    return True


def own_hosts(extra: Iterable[str] = ()) -> frozenset[str]:
    """The names `arena serve` answers besides addresses: the loopback's, this machine's
    own (`hostname`, its fully qualified name) and `extra` (`--allow-host`)."""
    names = {socket.gethostname(), socket.getfqdn(), *extra}
    return LOOPBACK_HOSTS | {name.lower() for name in names if name}


class Replays:
    """The data scripts of the games asked for lately (a replay's frames, every hand in
    each: a game capped at 100,000 plays took 4 s to make and 38 MB), kept up to
    `KEPT_BYTES` in all; one made at a time, outside the store's reads (`Reads`), so
    that a client that asks for replays in a loop holds up no other request."""

    KEPT_BYTES = 64 << 20

    def __init__(self) -> None:
        self._kept: collections.OrderedDict[str, bytes] = collections.OrderedDict()
        self._making = trio.Lock()

    def kept(self, game_id: str) -> bytes | None:
        found = self._kept.get(game_id)
        if found is not None:
            self._kept.move_to_end(game_id)
        return found

    async def make(self, game_id: str, work: Callable[[], bytes]) -> bytes:
        """The script of `game_id`: kept, or made by `work` in a worker thread."""
        async with self._making:  # a request that waited finds what the one before made
            if (found := self.kept(game_id)) is not None:
                return found
            made = await trio.to_thread.run_sync(work)
            self._kept[game_id] = made
            while sum(map(len, self._kept.values())) > self.KEPT_BYTES and len(self._kept) > 1:
                self._kept.popitem(last=False)
            return made


class Reads:
    """The reads of a store open read-only: one at a time (its connection is not for two
    threads at once), each in a worker thread (a read of a large store would hold up
    the event loop, which answers every other request: in a ladder it also plays the
    games); what every open page asks for is made at most once every FRESH_S seconds,
    and shared."""

    def __init__(self) -> None:
        self._lock = trio.Lock()
        self._made: dict[str, tuple[float, Any]] = {}
        """What `shared` made, by name, with when it was made."""

    async def read(self, work: Callable[[], T]) -> T:
        """`work` (which reads the store) in a worker thread, after any other read."""
        async with self._lock:
            return await trio.to_thread.run_sync(work)

    def _fresh(self, name: str, seconds: float) -> tuple[bool, Any]:
        kept = self._made.get(name)
        if kept is not None and trio.current_time() - kept[0] < seconds:
            return True, kept[1]
        return False, None

    async def shared(self, name: str, make: Callable[[], T], seconds: float = FRESH_S) -> T:
        """What `make` makes (reading the store), made at most once every `seconds`
        under `name` (one that fails is not kept: the next request tries again).
        Every request within it gets the same object: the same bytes, for a data
        script, so that a client that never reads its answer holds no copy."""
        found, made = self._fresh(name, seconds)
        if found:
            return cast(T, made)
        async with self._lock:  # a request that waited finds what the one before it made
            found, made = self._fresh(name, seconds)
            if found:
                return cast(T, made)
            result = await trio.to_thread.run_sync(make)
            self._made[name] = (trio.current_time(), result)
            return result


def make_app(
    store: Store,
    hosts: frozenset[str] | None = None,
    anchor: tuple[str, float] | None = None,
    all_versions: bool = False,
) -> ASGIApp:
    """The app serving the league in `store` (opened read-only by the caller).

    Of a ladder's store, the active versions and their games, as `arena report`
    shows them (every version with `all_versions`): read again at every update, since
    a running ladder retires versions and activates new ones.

    `hosts`, if given, are the only Host names answered besides addresses
    (`known_host`; others get a 421): a page on any web site could otherwise read the
    league from a browser on this machine, or on its network, by pointing a name of its
    own at it (DNS rebinding)."""
    data = LeagueData(store, anchor)

    def update() -> None:
        """Bring `data` up to date: of the versions active now, the games recorded."""
        if not all_versions:
            data.follow(store.active_versions())
        data.update()

    files = {name: entry.read_bytes() for name, entry in _walk(STATIC)}
    reads = Reads()
    replays = Replays()

    def respond(body: str | bytes, suffix: str, status: int = 200) -> Response:
        media = _TYPES.get(suffix, "application/octet-stream") + "; charset=utf-8"
        return Response(body, status_code=status, media_type=media, headers=HEADERS)

    async def page(request: Request) -> Response:
        path = request.url.path.lstrip("/") or "index.html"
        if path not in files:
            return respond("not found", ".html", 404)
        return respond(files[path], Path(path).suffix)

    def make_league() -> str:
        update()
        return script("league", data.league(live=True))

    def make_games() -> str:
        update()
        return script("games", data.games)

    async def league(request: Request) -> Response:
        return respond(await reads.shared("league", lambda: make_league().encode()), ".js")

    async def games(request: Request) -> Response:
        return respond(await reads.shared("games", lambda: make_games().encode()), ".js")

    async def game(request: Request) -> Response:
        game_id = request.path_params["game_id"]

        what = f"{store.path}, game {game_id}"

        def replay() -> list[dict[str, Any]]:
            with readable(what):
                return store.replay(game_id)

        def look(read: bool) -> tuple[int, str] | list[dict[str, Any]] | None:
            """The refusal of the game, or (if `read`) its replay."""
            update()
            if data.status(game_id) != "done":  # (of every version: a bot's page links them)
                return 404, "not found"
            if data.withheld(game_id):  # its deal is still to be played (LeagueData)
                return 404, "withheld: a game of its duplicate deal is still to play"
            return replay() if read else None

        def make(log: list[dict[str, Any]]) -> bytes:
            with readable(what):
                return script("game", game_payload(log)).encode()

        # Looked at every time, a kept script too: a game may be withheld now (a ladder's
        # active versions change).
        kept = replays.kept(game_id)
        found = await reads.read(functools.partial(look, kept is None))
        if isinstance(found, tuple):
            return respond(found[1], ".js", found[0])
        if kept is not None:
            return respond(kept, ".js")
        assert found is not None
        return respond(await replays.make(game_id, functools.partial(make, found)), ".js")

    async def refused(request: Request, exc: Exception) -> Response:
        """A store that cannot be read (a damaged one, or anyone's): the reason, as
        text, and on the terminal (escaped), instead of a bare 500."""
        from arena._text import printable

        message = str(exc)
        click.echo(f"arena serve: {printable(message)}", err=True)
        return Response(message, 500, media_type="text/plain; charset=utf-8", headers=HEADERS)

    async def http_error(request: Request, exc: Exception) -> Response:
        """Starlette's own answers (405 for a method other than GET, say), with the
        headers of every other answer: its plain ones carried none."""
        assert isinstance(exc, HTTPException)
        response = respond(exc.detail, ".txt", exc.status_code)
        response.headers.update(exc.headers or {})
        return response

    routes = [
        Route("/data/league.js", league),
        Route("/data/games.js", games),
        Route("/data/games/{game_id:path}.js", game),  # an id may hold a /
        Route("/{path:path}", page),
    ]
    app = Starlette(
        routes=routes, exception_handlers={ArenaError: refused, HTTPException: http_error}
    )
    refusal = respond("unknown host: arena serve answers only its own", ".html", 421)
    return known_hosts_only(app, hosts, refusal)


def known_hosts_only(app: ASGIApp, hosts: frozenset[str] | None, refusal: Response) -> ASGIApp:
    """`app`, answering only requests for a host name of `hosts` or an address
    (`known_host`); any other gets `refusal` (a 421). None: every request."""
    if hosts is None:
        return app

    async def only_known_hosts(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            header = dict(scope["headers"]).get(b"host", b"").decode("latin-1")
            if not known_host(host_name(header), hosts):
                await refusal(scope, receive, send)
                return
        await app(scope, receive, send)

    return only_known_hosts


async def serve(
    store_path: Path,
    host: str,
    port: int,
    allow: Sequence[str] = (),
    anchor: tuple[str, float] | None = None,
    all_versions: bool = False,
) -> None:
    """Serve until cancelled (Ctrl-C). InputError if it cannot listen at `host`:`port`
    (the port taken, a name that does not resolve, an address not this machine's)."""
    from hypercorn.config import Config
    from hypercorn.trio import serve as hypercorn_serve

    config = Config()
    config.bind = [f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
    config.accesslog = None
    config.errorlog = None
    with Store.open(store_path, readonly=True) as store:
        if anchor is not None and anchor[0] not in store.bot_digests():
            raise InputError(f"--anchor {anchor[0]!r}: no such bot in {store_path}")
        app = make_app(store, own_hosts(allow), anchor, all_versions)
        try:
            async with trio.open_nursery() as nursery:
                binds = await nursery.start(hypercorn_serve, app, config)
                where = ", ".join(f"{bind}/" for bind in binds)
                click.echo(f"serving {store_path} at {where} (Ctrl-C stops)", err=True)
        except (OSError, BaseExceptionGroup) as caught:
            # Raised before it listens (the nursery may wrap it): the binding failed.
            err = _first_os_error(caught)
            if err is None:
                raise
            reason = err.strerror or str(err) or type(err).__name__
            raise InputError(f"arena serve cannot listen at {config.bind[0]}: {reason}") from None


def _first_os_error(caught: BaseException) -> OSError | None:
    """`caught` if an OSError, the first OSError of an exception group that holds
    nothing else, or None."""
    if isinstance(caught, OSError):
        return caught
    if not isinstance(caught, BaseExceptionGroup):
        return None
    found = [_first_os_error(err) for err in caught.exceptions]
    if not found or None in found:
        return None
    return found[0]


def run(
    store_path: Path,
    host: str,
    port: int,
    allow: Sequence[str] = (),
    anchor: tuple[str, float] | None = None,
    all_versions: bool = False,
) -> None:
    """`arena serve`: serve until Ctrl-C.

    Ctrl-C is taken as a signal and cancels the server, rather than raised as
    KeyboardInterrupt wherever the program is: raised in a request's handler, it made
    Hypercorn answer a response already begun with a 500, whose error then showed as
    a traceback."""
    serving = functools.partial(serve, store_path, host, port, allow, anchor, all_versions)
    trio.run(_serve_until_interrupted, serving)
    click.echo("stopped", err=True)


async def _serve_until_interrupted(serve_store: Callable[[], Awaitable[None]]) -> None:
    with trio.open_signal_receiver(signal.SIGINT) as signals:
        async with trio.open_nursery() as nursery:

            async def serving() -> None:
                await serve_store()
                nursery.cancel_scope.cancel()

            nursery.start_soon(serving)
            async for _ in signals:
                nursery.cancel_scope.cancel()
                break
