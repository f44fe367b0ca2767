"""The ladder's web server: the submission API, the ladder's pages, and the league
report of its games (`arena.report`'s live app) for everything else.

    POST /api/submit              a bot folder as a gzipped tar (the body), the token
                                  in "Authorization: Bearer TOKEN": 202 and the id
    GET  /api/submissions/ID      its state (with the build's and check's output for
                                  its author's token only)
    GET  /api/ladder              the ladder, as JSON
    GET  /ladder                  the ladder, as a page; /ladder/bot/NAME a bot's
                                  versions; /ladder/submission/ID a submission
    GET  /ladder/login, POST      an author signs in with their token (a session
                                  cookie: HttpOnly, SameSite=Strict, Secure over HTTPS;
                                  a form a browser says another site sent is refused;
                                  the session kept, hashed, in the store: it survives a
                                  restart, for SESSION_S)
    GET  /ladder/me               the author's own submissions, build output, logs

Every refusal is a clear HTTP error (a JSON {"error": ...}) and one line in the server
log, and changes nothing. The pages carry no script at all.
"""

from __future__ import annotations

import functools
import html
import ipaddress
import json
import time
from typing import Any
from urllib.parse import quote

import click
import trio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from arena._text import printable
from arena.errors import ArenaError, BotError, InputError
from arena.ladder._run import Ladder, admit, judge_upload
from arena.report._serve import HEADERS, Reads, known_hosts_only
from arena.store import SeatRow, Store

PAGE_HEADERS = {
    **HEADERS,
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:;"
        " base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
}
"""The ladder's pages: no script at all; forms post to the ladder only."""

UPLOAD_S = 300.0
"""How long an upload may take to come in, whole (`arena submit` waits 120 s for the
answer, at each read): a client that stalls is refused, and its author may send again."""

CROSS_SITE = "a form of another site: sign in and out on the ladder's own pages"


def _cross_site(request: Request) -> bool:
    """Whether the browser says the form was sent from another site (Sec-Fetch-Site):
    a page elsewhere could sign a visitor in as its own author (whose pages the visitor
    then takes for theirs), or out. The session cookie is SameSite=Strict, so such a
    form carries none; a client that sends no such header (not a browser) is let be."""
    return request.headers.get("sec-fetch-site", "").lower() == "cross-site"


SESSION_COOKIE = "arena_session"
SESSION_S = 7 * 24 * 3600


class _Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def make_ladder_app(
    ladder: Ladder,
    report: ASGIApp,
    pages: Store,
    hosts: frozenset[str] | None = None,
    proxies: Proxies = None,
) -> ASGIApp:
    """The ladder's app: its API and pages (`LadderSite`), then `report` (the live
    league report). Behind a reverse proxy at one of `proxies` (see `trust_proxies`), a
    request is taken as the proxy says it came: over HTTPS or not, from which client.
    `hosts`: as `arena serve`'s (`known_hosts_only`)."""
    from starlette.exceptions import HTTPException

    site = LadderSite(ladder, pages)
    app: ASGIApp = Starlette(
        routes=[
            Route("/api/submit", site.submit, methods=["POST"]),
            Route("/api/submissions/{sid}", site.submission_state),
            Route("/api/ladder", site.api_ladder),
            Route("/ladder", site.ladder_page),
            Route("/ladder/bot/{name}", site.bot_page),
            Route("/ladder/submission/{sid}", site.submission_page),
            Route("/ladder/login", site.login_page, methods=["GET", "POST"]),
            Route("/ladder/logout", site.logout, methods=["POST"]),
            Route("/ladder/me", site.me_page),
            Mount("/", report),
        ],
        exception_handlers={HTTPException: site.refused_method},
    )
    if proxies is not None:
        app = trust_proxies(app, proxies)
    return known_hosts_only(app, hosts, _json({"error": "unknown host"}, 421))


class LadderSite:
    """What the ladder's routes answer: the submission API, the ladder's pages, an
    author's sign-in.

    The pages read the games from `pages` (the ladder's store opened read-only), in a
    worker thread (`Reads`): read on the event loop, which also plays the games, the
    ladder page of a store of 20,000 games held every game's result up by 0.45 s, and
    a bot's page by a second."""

    def __init__(self, ladder: Ladder, pages: Store) -> None:
        self.ladder = ladder
        self.settings = ladder.settings
        self.db = ladder.db
        self.pages = pages
        self.reads = Reads()
        self.accepting = trio.Lock()
        """One upload judged at a time: two of one author's at once cannot both pass
        the hourly cap, and the disk is read for one at a time. Taken once the body is
        in: an upload that stalled in the middle held every other author's up for as
        long as its client liked."""
        self.uploading: set[str] = set()
        """The authors whose upload is coming in: one at a time each."""

    def log(self, request: Request, line: str) -> None:
        client = request.client.host if request.client else "?"
        click.echo(f"ladder: {client}: {printable(line)}", err=True)

    def refuse(self, request: Request, status: int, message: str) -> Response:
        self.log(request, f"{request.method} {request.url.path}: {status} {message}")
        return _json({"error": message}, status)

    def bearer(self, request: Request) -> str | None:
        header = request.headers.get("authorization", "")
        kind, _, token = header.partition(" ")
        if kind.lower() != "bearer" or not token.strip():
            return None
        return token.strip()

    def author_of(self, request: Request, token: str | None) -> str:
        """The author of `token`; _Refused 401 for none or an unknown one, 403 for a
        revoked one."""
        if token is None:
            raise _Refused(401, "no token: send Authorization: Bearer TOKEN")
        author, revoked = self.db.author_of_token(token)
        if author is None:
            raise _Refused(401, "unknown token")
        if revoked:
            raise _Refused(403, f"the token of author {author!r} is revoked")
        return author

    def session_author(self, request: Request) -> str | None:
        sid = request.cookies.get(SESSION_COOKIE)
        if not sid:
            return None
        return self.db.session_author(sid)

    async def read_capped(self, request: Request) -> bytes:
        limit = int(self.settings.max_upload_mb * 2**20)
        body = await _capped(
            request, limit, f"the upload is over {self.settings.max_upload_mb:g} MB"
        )
        if not body:
            raise _Refused(400, "an empty upload (send the bot folder as a .tar.gz body)")
        return body

    def check_rate(self, author: str) -> None:
        """_Refused 429 if `author` has sent the most submissions an hour allows."""
        since = time.time() - 3600
        if self.db.submitted_since(author, since) >= self.settings.submissions_per_hour:
            raise _Refused(
                429,
                f"author {author!r} has sent {self.settings.submissions_per_hour}"
                " submissions in the last hour, the most allowed (--submissions-per-hour)",
            )

    async def receive_upload(self, request: Request, author: str) -> bytes:
        """The upload's body, whole within `UPLOAD_S` (_Refused 408 past it), one at a
        time of each author (_Refused 429 for a second at once)."""
        if author in self.uploading:
            raise _Refused(429, f"an upload of author {author!r} is coming in already")
        self.uploading.add(author)
        try:
            with trio.move_on_after(UPLOAD_S):
                return await self.read_capped(request)
            raise _Refused(408, f"the upload did not come in whole within {UPLOAD_S:g} s")
        finally:
            self.uploading.discard(author)

    async def submit(self, request: Request) -> Response:
        try:
            author = self.author_of(request, self.bearer(request))
            self.check_rate(author)  # before its body is read
            body = await self.receive_upload(request, author)
            async with self.accepting:
                self.check_rate(author)  # again, with the others judged meanwhile
                try:
                    judged = await trio.to_thread.run_sync(judge_upload, self.settings, body)
                except BotError as err:  # a bot.toml missing or wrong, a link out ...
                    raise _Refused(400, _relative(str(err), self.settings)) from None
                except ArenaError as err:  # BundleError: the archive refused
                    raise _Refused(400, str(err)) from None
                owner = self.db.owner_of(judged.name)
                if owner is not None and owner != author:
                    judged.kept.unlink(missing_ok=True)
                    raise _Refused(403, f"the bot name {judged.name!r} belongs to another author")
                try:
                    submission = admit(self.settings, self.db, author, judged)
                except InputError as err:
                    raise _Refused(403, str(err)) from None
        except _Refused as refused:
            return self.refuse(request, refused.status, refused.message)
        self.ladder.queue_send.send_nowait(submission.id)
        self.log(request, f"{submission.id}: {submission.bot} received from {author}")
        return _json(
            {**submission.public(owner=False), "status": f"/api/submissions/{submission.id}"},
            202,
        )

    async def submission_state(self, request: Request) -> Response:
        sid = request.path_params["sid"]
        found = self.db.submission(sid)
        if found is None:
            return self.refuse(request, 404, f"no submission {sid!r}")
        owner = False
        token = self.bearer(request)
        if token is not None:
            try:
                owner = self.author_of(request, token) == found.author
            except _Refused as refused:
                return self.refuse(request, refused.status, refused.message)
        return _json(found.public(owner=owner))

    async def ladder_rows(self) -> list[dict[str, Any]]:
        rated = self.ladder.rated
        active = self.ladder.active()
        rows: list[dict[str, Any]] = []
        if rated is None:
            return rows
        for rank, name in enumerate(rated.ranking, 1):
            submission = active.get(name)
            if submission is None:
                continue
            se = rated.se[name]
            rows.append(
                {
                    "rank": rank,
                    "bot": name,
                    "name": submission.name,
                    "author": submission.author,
                    "version": submission.version,
                    "elo": round(rated.elo[name], 1),
                    "plus_minus": None if se == float("inf") else round(1.96 * se, 1),
                    "games": rated.played.get(name, 0),
                    "age_s": round(time.time() - (submission.activated or submission.received)),
                }
            )
        return rows

    async def api_ladder(self, request: Request) -> Response:
        return _json({"games": self.ladder.games_played, "ladder": await self.ladder_rows()})

    async def ladder_page(self, request: Request) -> Response:
        rows = await self.ladder_rows()
        body = [
            "<h1>The ladder</h1>",
            f"<p>{self.ladder.games_played} games rated; every table is one deal in every"
            " seat rotation. <a href='/ladder/login'>Authors: sign in</a> ·"
            " <a href='/'>the games and replays</a></p>",
            "<table><tr><th>#</th><th>bot</th><th>author</th><th>version</th><th>Elo</th>"
            "<th>±</th><th>games</th><th>age</th></tr>",
        ]
        for row in rows:
            pm = "" if row["plus_minus"] is None else f"{row['plus_minus']:.0f}"
            body.append(
                f"<tr><td>{row['rank']}</td><td><a href='/ladder/bot/{_e(row['name'])}'>"
                f"{_e(row['name'])}</a></td><td>{_e(row['author'])}</td>"
                f"<td>v{row['version']}</td><td>{row['elo']:.0f}</td><td>{pm}</td>"
                f"<td>{row['games']}</td><td>{_age(row['age_s'])}</td></tr>"
            )
        body.append("</table>")
        waiting = [
            s for s in self.db.submissions() if s.state in ("received", "building", "checking")
        ]
        if waiting:
            body.append("<h2>Waiting</h2><ul>")
            body += [
                f"<li><a href='/ladder/submission/{_e(s.id)}'>{_e(s.id)}</a> {_e(s.bot)}:"
                f" {_e(s.state)}</li>"
                for s in waiting
            ]
            body.append("</ul>")
        return _page("Ladder", "".join(body), refresh=10)

    async def bot_page(self, request: Request) -> Response:
        name = request.path_params["name"]
        versions = [s for s in self.db.submissions() if s.name == name]
        if not versions:
            return _page("Not found", "<p>no such bot</p>", status=404)
        me = self.session_author(request)
        every = functools.partial(_every_version, self.pages)
        ratings = await self.reads.shared("every version", every, RATED_EVERY_S)
        bots = [s.bot for s in versions]
        latest = await self.reads.read(
            functools.partial(_latest_games, self.pages, bots, GAMES_LISTED)
        )
        body = [f"<h1>{_e(name)}</h1><p>by {_e(versions[0].author)}</p>"]
        body.append(
            "<h2>Versions</h2><table><tr><th>version</th><th>submission</th><th>state</th>"
            "<th>Elo (all versions' games)</th><th>games</th></tr>"
        )
        for s in versions:
            row = ratings.get(s.bot)
            elo = "" if row is None else f"{row.elo:.0f} ± {row.plus_minus or 0:.0f}"
            games = "" if row is None else str(row.games)
            body.append(
                f"<tr><td>v{s.version}</td><td><a href='/ladder/submission/{_e(s.id)}'>"
                f"{_e(s.id)}</a></td><td>{_e(s.state)}</td><td>{elo}</td><td>{games}</td></tr>"
            )
        body.append("</table><h2>Games</h2><ul>")
        for game_id, seats in latest:
            order = ", ".join(
                f"{seat.place}. {seat.bot}" for seat in sorted(seats, key=lambda x: x.place)
            )
            body.append(
                f"<li><a href='/#/game/{_e(quote(game_id, safe=''))}'>{_e(game_id)}</a>:"
                f" {_e(order)}</li>"
            )
        body.append("</ul>")
        if me == versions[0].author:
            body.append("<p><a href='/ladder/me'>your logs and build output</a></p>")
        return _page(name, "".join(body))

    async def submission_page(self, request: Request) -> Response:
        sid = request.path_params["sid"]
        found = self.db.submission(sid)
        if found is None:
            return _page("Not found", "<p>no such submission</p>", status=404)
        me = self.session_author(request)
        body = [
            f"<h1>Submission {_e(found.id)}</h1><p>{_e(found.bot)} by {_e(found.author)}:"
            f" <b>{_e(found.state)}</b></p>"
        ]
        if found.reason:
            body.append(f"<p>{_e(found.reason)}</p>")
        if me == found.author and found.output:
            body.append(f"<h2>Build and check output</h2><pre>{_e(found.output)}</pre>")
        refresh = 5 if found.state in ("received", "building", "checking") else None
        return _page(found.id, "".join(body), refresh=refresh)

    async def login_page(self, request: Request) -> Response:
        secure = request.url.scheme == "https"
        if request.method == "POST":
            if _cross_site(request):
                return self.refuse(request, 403, CROSS_SITE)
            try:
                form = await _read_form(request)
            except _Refused as refused:
                return self.refuse(request, refused.status, refused.message)
            token = ""
            for part in form.decode("latin-1").split("&"):
                key, _, value = part.partition("=")
                if key == "token":
                    from urllib.parse import unquote_plus

                    token = unquote_plus(value)
            try:
                author = self.author_of(request, token or None)
            except _Refused as refused:
                self.log(request, f"sign-in refused: {refused.message}")
                return _page("Sign in", _login_form(refused.message), status=refused.status)
            sid = self.db.add_session(author, SESSION_S)
            self.log(request, f"{author} signed in")
            response = Response(status_code=303, headers={**PAGE_HEADERS, "Location": "/ladder/me"})
            response.set_cookie(
                SESSION_COOKIE, sid, max_age=SESSION_S, httponly=True, samesite="strict",
                secure=secure, path="/",
            )  # fmt: skip
            return response
        return _page("Sign in", _login_form(""))

    async def logout(self, request: Request) -> Response:
        if _cross_site(request):
            return self.refuse(request, 403, CROSS_SITE)
        sid = request.cookies.get(SESSION_COOKIE)
        if sid:
            self.db.end_session(sid)
        response = Response(status_code=303, headers={**PAGE_HEADERS, "Location": "/ladder"})
        response.delete_cookie(SESSION_COOKIE, path="/")
        return response

    async def me_page(self, request: Request) -> Response:
        author = self.session_author(request)
        if author is None:
            return Response(status_code=303, headers={**PAGE_HEADERS, "Location": "/ladder/login"})
        mine = [s for s in self.db.submissions() if s.author == author]
        body = [
            f"<h1>{_e(author)}</h1><form method='post' action='/ladder/logout'>"
            "<button>sign out</button></form><h2>Your submissions</h2>"
        ]
        for s in mine:
            body.append(
                f"<h3>{_e(s.id)}: {_e(s.bot)} — {_e(s.state)}</h3>"
                + (f"<p>{_e(s.reason)}</p>" if s.reason else "")
                + (f"<details><summary>build and check output</summary><pre>{_e(s.output)}"
                   "</pre></details>" if s.output else "")
            )  # fmt: skip
            stderr = _read_log(self.settings.logs / f"{s.bot}.log")
            if stderr:
                body.append(
                    f"<details><summary>stderr of its games</summary><pre>{_e(stderr)}</pre>"
                    "</details>"
                )
        return _page(author, "".join(body))

    async def refused_method(self, request: Request, exc: Exception) -> Response:
        from starlette.exceptions import HTTPException

        assert isinstance(exc, HTTPException)
        return self.refuse(request, exc.status_code, str(exc.detail))


Proxies = frozenset[ipaddress.IPv4Network | ipaddress.IPv6Network] | None
"""The addresses of trusted reverse proxies (`--forwarded-allow-ips`); None: none."""


def parse_proxies(text: str) -> Proxies:
    """`--forwarded-allow-ips`: addresses or networks, comma-separated ("*": any
    address, for a proxy on a network of its own). ValueError for anything else."""
    networks = set()
    for part in text.split(","):
        part = part.strip()
        if part == "*":
            networks |= {ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0")}
        elif part:
            try:
                networks.add(ipaddress.ip_network(part, strict=False))
            except ValueError:
                raise ValueError(f"{part!r} is not an IP address or network") from None
    if not networks:
        raise ValueError("no address given")
    return frozenset(networks)


def trust_proxies(app: ASGIApp, proxies: Proxies) -> ASGIApp:
    """`app` behind reverse proxies at `proxies`: a request from one of them is taken
    as its last X-Forwarded-Proto and X-Forwarded-For say (what the nearest proxy
    wrote), so that a session cookie is Secure when the browser came over HTTPS and the
    log names the client. A request from anywhere else is taken as it came: nobody but
    a trusted proxy can make the server believe it was reached over HTTPS."""
    trusted = proxies or frozenset()

    def from_proxy(scope: Scope) -> bool:
        client = scope.get("client")
        if not client:
            return False
        try:
            address = ipaddress.ip_address(client[0])
        except ValueError:
            return False
        return any(address in network for network in trusted)

    async def forwarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and from_proxy(scope):
            headers = dict(scope["headers"])
            scope = dict(scope)
            proto = _last(headers.get(b"x-forwarded-proto"))
            if proto in ("http", "https"):
                secure = proto == "https"
                if scope["type"] == "http":
                    scope["scheme"] = proto
                else:
                    scope["scheme"] = "wss" if secure else "ws"
            client = _last(headers.get(b"x-forwarded-for"))
            if client:
                scope["client"] = (client, 0)
        await app(scope, receive, send)

    return forwarded


def _last(value: bytes | None) -> str:
    if not value:
        return ""
    return value.decode("latin-1").rsplit(",", 1)[-1].strip().lower()


GAMES_LISTED = 100
"""The latest games a bot's page lists."""

RATED_EVERY_S = 10.0
"""How long the ratings of every version (a fit over every game: a second for 100,000)
serve the bots' pages once made."""


def _every_version(store: Store) -> dict[str, Any]:
    """The standings rows of every version (retired ones too) by name, rated on every
    game: a bot's page shows each version's."""
    columns = store.result_columns()
    if not columns.players:
        return {}
    from arena.standings import compute_standings

    return {row.player: row for row in compute_standings(columns, intervals=True).rows}


def _latest_games(store: Store, bots: list[str], limit: int) -> list[tuple[str, list[SeatRow]]]:
    """The `limit` latest games in which one of `bots` played, with their seats."""
    game_ids = store.latest_games_of(bots, limit)
    seats: dict[str, list[SeatRow]] = {game_id: [] for game_id in game_ids}
    for seat in store.seat_rows_of(game_ids):
        seats[seat.game_id].append(seat)
    return list(seats.items())


FORM_BYTES = 4096
"""The most a sign-in form may hold (a token is 43 characters)."""

FORM_S = 30.0
"""How long a sign-in form may take to come in: anyone may send one, and a client that
sent a byte of it now and then held its connection open for ever (a few hundred such
took every file descriptor of the server, which then answered nobody)."""


async def _capped(request: Request, limit: int, over: str) -> bytes:
    """The body of `request`, read as it comes; _Refused 413 (`over`) as soon as it is
    longer than `limit` bytes, or says it is: a body is never held whole before its
    size is known (Hypercorn bounds none)."""
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            if int(declared) > limit:
                raise _Refused(413, over)
        except ValueError:
            raise _Refused(400, "a Content-Length that is not a number") from None
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise _Refused(413, over)
    return bytes(body)


async def _read_form(request: Request) -> bytes:
    """The sign-in form of `request`: _Refused 413 past `FORM_BYTES`, 408 unless it
    came in whole within `FORM_S`."""
    with trio.move_on_after(FORM_S):
        return await _capped(request, FORM_BYTES, "a sign-in form of more than 4 KiB")
    raise _Refused(408, f"the sign-in form did not come in whole within {FORM_S:g} s")


def _json(data: Any, status: int = 200) -> Response:
    return Response(
        json.dumps(data), status_code=status, media_type="application/json", headers=HEADERS
    )


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


STYLE = (
    "body{font:15px system-ui,sans-serif;margin:2em auto;max-width:60em;padding:0 1em}"
    "table{border-collapse:collapse}td,th{padding:.2em .6em;border-bottom:1px solid #ddd;"
    "text-align:left}pre{background:#f6f6f6;padding:.5em;overflow:auto;max-height:40em}"
)


def _page(title: str, body: str, *, status: int = 200, refresh: int | None = None) -> Response:
    meta = f"<meta http-equiv='refresh' content='{refresh}'>" if refresh else ""
    text = (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{_e(title)}</title>{meta}"
        f"<style>{STYLE}</style></head><body><nav><a href='/ladder'>ladder</a></nav>"
        f"{body}</body></html>"
    )
    return Response(text, status_code=status, media_type="text/html; charset=utf-8",
                    headers=PAGE_HEADERS)  # fmt: skip


def _login_form(problem: str) -> str:
    note = f"<p><b>{_e(problem)}</b></p>" if problem else ""
    return (
        f"<h1>Sign in</h1>{note}<form method='post' action='/ladder/login'>"
        "<label>Your token <input name='token' type='password' autocomplete='off'></label>"
        " <button>sign in</button></form>"
    )


def _age(seconds: float) -> str:
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 86400:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:.0f} d"


def _read_log(path: Any, limit: int = 64 * 1024) -> str:
    try:
        with open(path, "rb") as file:
            file.seek(0, 2)
            size = file.tell()
            file.seek(max(0, size - limit))
            return file.read().decode(errors="replace")
    except OSError:
        return ""


def _relative(message: str, settings: Any) -> str:
    """An error about an upload, without the server's folders in it."""
    import re

    incoming = re.escape(str(settings.folder / "incoming")) + r"/[0-9a-f-]+"
    return re.sub(incoming, "(the upload)", message)
