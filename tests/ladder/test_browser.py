"""Issue 45.7 and 45.5: the ladder's pages in a real headless Chromium, served by a real
`arena ladder serve` process on 127.0.0.1 with bots submitted by `arena submit`: the
ladder table (Elo, interval, games, version, age), a bot's page and a game's replay in
the viewer, and an author signed in with their token who sees their own build output
and game logs, which another author signed in does not see.

Needs Debian's chromium and the playwright package, as tests/report's browser tests
(never `playwright install`)."""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.report.test_browser import (  # also skips without chromium or playwright
    browser,  # noqa: F401  (a fixture)
    expect,
    frame_counter,
)

from .helpers import Server, add_author, arena, bot_folder, wait_until

pytestmark = [
    pytest.mark.subprocess,
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("ARENA_NO_SANDBOX") == "1", reason="the ladder needs bubblewrap"
    ),
]

ALICE_LOG = "alice-says-this-on-stderr"


def _wait(check: Any, seconds: float = 180, what: str = "") -> Any:
    return wait_until(check, seconds, what)


def _rows(store: Path, sql: str) -> list[Any]:
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
        return db.execute(sql).fetchall()


@pytest.fixture(scope="module")
def ladder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A ladder of two bots (alice's writes a line to stderr in every game) that has
    played two whole tables."""
    tmp = tmp_path_factory.mktemp("browser")
    store = tmp / "ladder.sqlite"
    tokens = {name: add_author(store, name) for name in ("alice", "bob")}
    server = Server(store, "--table-size", "2")
    try:
        loud = bot_folder(tmp, "alicebot")
        script = loud / "bot.py"
        future = "from __future__ import annotations\n"
        loud_start = f"import sys as _s\nprint({ALICE_LOG!r}, file=_s.stderr, flush=True)\n"
        script.write_text(script.read_text().replace(future, future + loud_start, 1))
        for folder, author in ((loud, "alice"), (bot_folder(tmp, "bobbot"), "bob")):
            done = arena("submit", str(folder), "--to", server.url, "--token", tokens[author])
            assert done.returncode == 0, done.stderr
        # two whole tables (every rotation of each deal): their replays are shown
        _wait(
            lambda: _rows(store, "SELECT count(*) FROM games")[0][0] >= 4,
            what=f"two tables played; the ladder said: {server.logged()}",
        )
        yield {"server": server, "tokens": tokens, "store": store}
    finally:
        server.stop()


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:  # noqa: F811 (the fixture imported)
    made = browser.new_context(viewport={"width": 1280, "height": 800})
    made.set_default_timeout(15000)  # real bots on a busy machine
    yield made
    made.close()


def _cells(row: Any) -> list[str]:
    return [str(t).strip() for t in row.locator("td").all_inner_texts()]


def test_the_ladder_page_shows_each_active_version_and_opens_its_games_replay(
    context: Any, ladder: dict[str, Any]
) -> None:
    server = ladder["server"]
    page = context.new_page()
    page.goto(f"{server.url}/ladder")
    header = [str(t).strip() for t in page.locator("table tr th").all_inner_texts()]
    assert header == ["#", "bot", "author", "version", "Elo", "±", "games", "age"]
    rows = page.locator("table tr:has(td)")
    expect(rows).to_have_count(2)
    shown = {}
    elos = []
    for i in range(2):
        rank, bot, author, version, elo, pm, games, age = _cells(rows.nth(i))
        assert rank == str(i + 1)
        shown[bot] = author
        assert version == "v1"
        assert re.fullmatch(r"-?\d+", elo), elo
        elos.append(int(elo))
        assert re.fullmatch(r"\d+", pm), pm  # both have games: a finite interval
        assert int(games) >= 4
        assert re.fullmatch(r"\d+ (min|h|d)", age), age
    assert shown == {"alicebot": "alice", "bobbot": "bob"}
    assert elos == sorted(elos, reverse=True)  # best first
    # the bots are the API's (its order may have changed since: the games go on)
    api = page.request.get(f"{server.url}/api/ladder").json()
    assert sorted(r["name"] for r in api["ladder"]) == sorted(shown)

    page.click("text=alicebot")
    expect(page.locator("h1")).to_have_text("alicebot")
    expect(page.locator("text=by alice")).to_be_visible()
    first = _rows(ladder["store"], "SELECT game_id FROM games ORDER BY rowid LIMIT 1")[0][0]
    link = page.locator(f"a:text-is('{first}')")
    expect(link).to_have_count(1)
    link.click()
    # the report's viewer, live, on that game's replay
    expect(page.locator("h1")).to_have_text(f"Game {first}")
    counter = page.locator("#frame-counter")
    expect(counter).to_contain_text("frame 0 / ")
    page.keyboard.press("End")
    last = int(str(counter.inner_text()).rsplit("/", 1)[1].strip())
    expect(counter).to_have_text(frame_counter(last, last))
    assert page.locator(".seat").count() == 2


def _sign_in(context: Any, url: str, token: str) -> Any:
    page = context.new_page()
    page.goto(f"{url}/ladder/login")
    page.fill("input[name=token]", token)
    page.click("button:text-is('sign in')")
    page.wait_for_url(f"{url}/ladder/me")
    return page


def test_an_author_signed_in_sees_their_build_output_and_logs_and_nobody_elses(
    browser: Any,  # noqa: F811 (the fixture imported)
    ladder: dict[str, Any],
) -> None:
    server, tokens = ladder["server"], ladder["tokens"]
    log = server.store.parent / "ladder.sqlite.ladder" / "logs" / "alicebot.v1.log"
    _wait(lambda: log.exists() and ALICE_LOG in log.read_text(errors="replace"), what=str(log))
    alice = browser.new_context()
    bob = browser.new_context()
    try:
        page = _sign_in(alice, server.url, tokens["alice"])
        expect(page.locator("h1")).to_have_text("alice")
        expect(page.locator("h3")).to_have_count(1)
        expect(page.locator("h3")).to_contain_text("alicebot.v1")
        page.click("text=build and check output")
        expect(page.locator("pre").first).to_contain_text("check-bot")
        page.click("text=stderr of its games")
        expect(page.locator("pre").nth(1)).to_contain_text(ALICE_LOG)
        cookie = next(c for c in alice.cookies() if c["name"] == "arena_session")
        assert cookie["httpOnly"]
        assert cookie["sameSite"] == "Strict"
        # her submission's page shows her its output too
        page.goto(f"{server.url}/ladder/submission/s000001")
        expect(page.locator("h2")).to_have_text("Build and check output")

        other = _sign_in(bob, server.url, tokens["bob"])
        expect(other.locator("h1")).to_have_text("bob")
        expect(other.locator("h3")).to_contain_text("bobbot.v1")
        assert "alicebot" not in other.content()
        assert ALICE_LOG not in other.content()
        other.goto(f"{server.url}/ladder/submission/s000001")
        expect(other.locator("h1")).to_have_text("Submission s000001")
        assert other.locator("h2").count() == 0
        assert "check-bot" not in other.content()
        other.goto(f"{server.url}/ladder/bot/alicebot")
        assert "your logs" not in other.content()
        assert ALICE_LOG not in other.content()
        # signed out: the page asks for a token again
        other.goto(f"{server.url}/ladder/me")
        other.click("button:text-is('sign out')")
        other.goto(f"{server.url}/ladder/me")
        expect(other.locator("h1")).to_have_text("Sign in")
    finally:
        alice.close()
        bob.close()
