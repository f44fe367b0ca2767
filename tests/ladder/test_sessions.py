"""Issue 45.5: an author's session is kept in the ladder's store (its hash, with an
expiry), so it survives a restart of `arena ladder serve`; its cookie is HttpOnly,
SameSite=Strict, and Secure when the browser came over HTTPS, which a reverse proxy
says only if the organiser trusts it (`--forwarded-allow-ips`), never by default."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import trio
from click.testing import CliRunner

from arena.cli import main
from arena.ladder import LadderDB
from arena.ladder._web import SESSION_COOKIE, parse_proxies, trust_proxies

from .helpers import Server, add_author, arena, get, post, stalled_post

httpx = pytest.importorskip("httpx")


def test_a_session_is_stored_hashed_outlives_its_connection_and_expires(tmp_path: Path) -> None:
    store = tmp_path / "ladder.sqlite"
    with LadderDB.open(store, create=True) as db:
        db.add_author("alice")
        sid = db.add_session("alice", 60, now=1000.0)
        assert db.session_author(sid, now=1000.0) == "alice"
    with LadderDB.open(store) as db:  # as a server started again
        assert db.session_author(sid, now=1059.0) == "alice"
        assert db.session_author(sid, now=1060.0) is None  # expired
        assert db.session_author(sid + "x", now=1000.0) is None
        assert db.session_author("", now=1000.0) is None
    with sqlite3.connect(store) as raw:
        kept = raw.execute("SELECT hash, author FROM ladder_sessions").fetchall()
    assert len(kept) == 1
    assert sid not in repr(kept)  # only its hash


def test_a_session_ends_with_sign_out_and_with_its_authors_revocation(tmp_path: Path) -> None:
    with LadderDB.open(tmp_path / "ladder.sqlite", create=True) as db:
        db.add_author("alice")
        db.add_author("bob")
        out, kept = db.add_session("alice", 60), db.add_session("alice", 60)
        bobs = db.add_session("bob", 60)
        db.end_session(out)
        assert db.session_author(out) is None
        assert db.session_author(kept) == "alice"
        db.revoke_author("alice")
        assert db.session_author(kept) is None
        db.add_author("alice")  # a new token: the old sessions stay ended
        assert db.session_author(kept) is None
        assert db.session_author(bobs) == "bob"


async def test_a_sign_in_form_that_does_not_come_in_in_time_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Anyone may post a sign-in form: one that sends 2 bytes of a declared 4,000 and
    then nothing is refused (408) once `FORM_S` has passed; its connection was held
    for ever, and a few hundred such took every file descriptor of the server."""
    import types

    from arena.ladder import LadderSettings, _web

    monkeypatch.setattr(_web, "FORM_S", 0.2, raising=False)
    store = tmp_path / "ladder.sqlite"
    with LadderDB.open(store, create=True) as db:
        ladder = types.SimpleNamespace(settings=LadderSettings(store=store), db=db)
        site = _web.LadderSite(ladder, None)  # type: ignore[arg-type]
        request = stalled_post("/ladder/login", [(b"content-length", b"4000")], b"to")
        with trio.fail_after(60):  # (it waited for ever)
            answer = await site.login_page(request)
        assert answer.status_code == 408
        assert b"did not come in whole within 0.2 s" in answer.body


def test_expired_sessions_are_dropped_from_the_store(tmp_path: Path) -> None:
    store = tmp_path / "ladder.sqlite"
    with LadderDB.open(store, create=True) as db:
        db.add_author("alice")
        db.add_session("alice", 10, now=1000.0)
        db.add_session("alice", 10, now=1020.0)  # the first has expired by then
    with sqlite3.connect(store) as raw:
        assert raw.execute("SELECT count(*) FROM ladder_sessions").fetchone()[0] == 1


async def _echo(scope: Any, receive: Any, send: Any) -> None:
    body = f"{scope['scheme']} {scope['client'][0]}".encode()
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": body})


def _seen(app: Any, client: str, headers: dict[str, str]) -> str:
    async def get() -> str:
        transport = httpx.ASGITransport(app=app, client=(client, 5000))
        async with httpx.AsyncClient(transport=transport, base_url="http://ladder") as http:
            return (await http.get("/", headers=headers)).text

    return trio.run(get)


FORWARDED = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9"}


def test_only_a_trusted_proxys_forwarded_headers_are_believed() -> None:
    trusting = trust_proxies(_echo, parse_proxies("127.0.0.1, 10.0.0.0/8"))
    assert _seen(trusting, "127.0.0.1", FORWARDED) == "https 203.0.113.9"
    assert _seen(trusting, "10.1.2.3", FORWARDED) == "https 203.0.113.9"
    assert _seen(trusting, "192.0.2.1", FORWARDED) == "http 192.0.2.1"  # not a proxy
    assert _seen(trusting, "127.0.0.1", {}) == "http 127.0.0.1"
    # a client's own header before the proxy's: the proxy's (the last) is believed
    chained = {"X-Forwarded-Proto": "https, http", "X-Forwarded-For": "1.2.3.4, 203.0.113.9"}
    assert _seen(trusting, "127.0.0.1", chained) == "http 203.0.113.9"
    anyone = trust_proxies(_echo, parse_proxies("*"))
    assert _seen(anyone, "192.0.2.1", FORWARDED) == "https 203.0.113.9"
    nobody = trust_proxies(_echo, None)
    assert _seen(nobody, "127.0.0.1", FORWARDED) == "http 127.0.0.1"


def test_a_bad_forwarded_allow_ips_is_refused_clearly(tmp_path: Path) -> None:
    for bad in ("localhost", "", "10.0.0.0/33", ","):
        result = CliRunner().invoke(
            main, ["ladder", "serve", str(tmp_path / "x.sqlite"), "--forwarded-allow-ips", bad]
        )
        assert result.exit_code == 2, (bad, result.output)
        assert "--forwarded-allow-ips" in result.stderr
        assert "Traceback" not in result.output
        assert not (tmp_path / "x.sqlite").exists()


def _sign_in(server: Server, token: str, headers: dict[str, str]) -> tuple[str, str]:
    signed = post(f"{server.url}/ladder/login", data={"token": token}, headers=headers)
    assert signed.status_code == 303, signed.text
    header = signed.headers["set-cookie"]
    return signed.cookies[SESSION_COOKIE], header.lower()


def _me(server: Server, sid: str) -> Any:
    return get(f"{server.url}/ladder/me", headers={"Cookie": f"{SESSION_COOKIE}={sid}"})


@pytest.mark.skipif(os.environ.get("ARENA_NO_SANDBOX") == "1", reason="needs bubblewrap")
def test_sessions_survive_a_restart_and_are_secure_behind_a_trusted_proxy(
    tmp_path: Path,
) -> None:
    store = tmp_path / "ladder.sqlite"
    token = add_author(store, "alice")
    server = Server(store)  # trusting no proxy
    try:
        sid, cookie = _sign_in(server, token, FORWARDED)
        assert "httponly" in cookie
        assert "samesite=strict" in cookie
        assert "secure" not in cookie  # a forwarded header from anyone is not believed
        assert _me(server, sid).status_code == 200
        server.kill()
        server = Server(store, "--forwarded-allow-ips", "127.0.0.1")
        mine = _me(server, sid)  # the session outlived the server
        assert mine.status_code == 200
        assert "<h1>alice</h1>" in mine.text
        secure, cookie = _sign_in(server, token, FORWARDED)
        assert "secure" in cookie  # the trusted proxy says the browser came over HTTPS
        assert "samesite=strict" in cookie
        assert "203.0.113.9: alice signed in" in server.logged()
        plain, cookie = _sign_in(server, token, {})
        assert "secure" not in cookie
        assert arena("ladder", "author", "revoke", "alice", str(store)).returncode == 0
        for ended in (sid, secure, plain):
            gone = _me(server, ended)
            assert gone.status_code == 303
            assert gone.headers["location"] == "/ladder/login"
    finally:
        server.stop()
