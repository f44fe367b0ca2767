"""Issue 12.6: the real report in a real browser: `arena report` of a real league opened
from disk, and `arena serve` live while a league writes to the same store.

The checks are those of `test_browser` (the values come from the site's own data,
which `test_report_data` checks against `arena standings` and the store).
"""

from __future__ import annotations

import functools
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.report.test_browser import (  # also skips without chromium or playwright
    browser,  # noqa: F401  (a fixture)
    check_layout,
    check_replay,
    check_standings,
    expect,
    games_of,
    league_of,
    open_page,
    replay_of,
)

from ..processes import dies_with_us
from . import test_browser
from .sites import league

pytestmark = [pytest.mark.subprocess, pytest.mark.slow]

watch_page, page = test_browser.watch_page, test_browser.page  # the fixtures, shared

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("real")
    store = league(root)
    done = subprocess.run(
        [sys.executable, "-m", "arena", "report", str(store), "-o", str(root / "site")],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return root / "site"


def test_the_static_report_of_a_real_league(page: Any, site: Path) -> None:
    base = (site / "index.html").as_uri()
    check_standings(page, base, league_of(site))
    games = [g for g in games_of(site) if not g["forfeit"]]
    faulted = next(g for g in games if g["faults"])
    for game in (games[0], faulted):
        check_replay(page, base, replay_of(site, game["id"]))
    check_layout(page, base, "/", 1280, 800, "real-index-1280.png")
    check_layout(page, base, f"/game/{faulted['id']}", 1280, 800, "real-replay-1280.png")
    check_layout(page, base, "/", 390, 844, "real-index-390.png")
    check_layout(page, base, f"/game/{faulted['id']}", 390, 844, "real-replay-390.png")


def wait_listening(server: subprocess.Popen[bytes], port: int) -> None:
    """Wait until `arena serve` (`server`) takes connections on `port`."""
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), 1).close()
            return
        except OSError:
            assert server.poll() is None, "arena serve did not start"
            assert time.monotonic() < deadline
            time.sleep(0.1)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def running_league(tmp_path: Path) -> Iterator[Path]:
    """A league of slow bots being played in another process: its store."""
    from .sites import random_bot, scripted_bot

    bots = tmp_path / "bots"
    for name in ("ann", "bob"):
        random_bot(bots, name)
    scripted_bot(bots, "slowpoke", "slow")  # 0.6 s a decision
    store = tmp_path / "league.sqlite"
    log = tmp_path / "league.log"
    with open(log, "wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "arena", "league", "--bots", str(bots), "--store", str(store),
             "--table-size", "2", "--games-per-table", "4", "-j", "1", "--sandbox", "none",
             "--progress", "quiet"],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err, preexec_fn=dies_with_us(),
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not (store.exists() and store.stat().st_size > 0):
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline
            time.sleep(0.1)
        yield store
    finally:
        proc.kill()
        proc.wait()


def test_the_live_server_follows_a_running_league(page: Any, running_league: Path) -> None:
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", str(running_league), "--port", str(port)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1"}, preexec_fn=dies_with_us(),
    )  # fmt: skip
    try:
        base = f"http://127.0.0.1:{port}/"
        wait_listening(server, port)
        open_page(page, base, "/")
        progress = page.locator("#progress")
        expect(progress).to_contain_text("of 12 games", timeout=20000)
        first = int(progress.locator("strong").inner_text())
        # The page refreshes by itself while the league plays on.
        expect(progress.locator("strong")).not_to_have_text(str(first), timeout=30000)
        assert int(progress.locator("strong").inner_text()) > first
        expect(page.locator("#live")).to_be_visible()
        response = page.request.get(base + "data/games/..%2F..%2Fetc%2Fpasswd.js")
        assert response.status == 404
        assert page.request.get(base + "../../etc/passwd").status == 404
        headers = page.request.get(base).headers
        assert "script-src 'self'" in headers["content-security-policy"]
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_the_viewer_of_a_replay_file_opens_on_a_game_id_of_any_text(
    page: Any, tmp_path: Path
) -> None:
    """Found in an audit: `arena report --replay` wrote the game id into the page to
    open on as it was, so an id with a ? or # or % in it (a replay file can be
    anyone's) opened a page for another id, "Could not load game"."""
    import json

    from .test_report_data import one_replay

    root, replay = one_replay(tmp_path)
    lines = replay.read_text().splitlines()
    head = json.loads(lines[0])
    game_id = "m1?frame=2&seat=1#x/%zz %41"
    head["game_id"] = game_id
    replay.write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "arena", "report", "--replay", str(replay), "-o",
         str(root / "site")],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    page.goto((root / "site" / "index.html").as_uri())
    page.wait_for_selector("#frame-counter")
    assert page.text_content("h1") == f"Game {game_id}"
    assert page.text_content("#frame-counter").startswith("frame 0 / ")


def test_the_viewer_says_why_a_game_of_a_deal_still_to_play_is_held_back(
    page: Any, site: Path, tmp_path: Path
) -> None:
    """The report of a running league with duplicate deals holds back the replays of a
    deal still being played (`test_a_report_of_a_running_league_shows_no_deal_still_to_
    play`): the game list and the viewer say so, and show no hand."""
    from .test_report_data import _running_copy

    running, _ = _running_copy(site.parent / "league.sqlite", tmp_path / "running.sqlite")
    out = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "arena", "report", str(running), "-o", str(out)],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    held = [g["id"] for g in games_of(out) if g.get("withheld")]
    assert held
    base = (out / "index.html").as_uri()
    page.goto(base + "#/games")
    page.wait_for_selector("#games-body table")
    row = page.locator(f'tr[data-game="{held[0]}"]')
    assert "replay held back" in row.text_content()
    page.goto("about:blank")
    page.goto(base + "#/game/" + held[0])
    page.wait_for_selector("#app .notice")
    assert "is held back until every game of its deal is played" in page.text_content("#app")
    assert page.locator(".card").count() == 0


def test_bots_named_like_what_every_object_has_meet_no_phantoms(page: Any, tmp_path: Path) -> None:
    """Found in an audit: bot names may be "constructor" or "toString" (letters), and
    the bot page looked opponents up in a plain object: alpha's page listed both as
    opponents it never met (rows of dashes); a page of no bot, #/bot/hasOwnProperty,
    showed an empty bot instead of saying there is none."""
    from .sites import random_bot

    for name in ("alpha", "bravo", "constructor", "toString"):
        random_bot(tmp_path / "bots", name)
    store, out = tmp_path / "league.sqlite", tmp_path / "site"
    for args in (
        ["league", "--bots", str(tmp_path / "bots"), "--store", str(store), "--table-size", "2",
         "--games-per-table", "2", "--max-tables", "2", "-j", "1", "--sandbox", "none", "-q"],
        ["report", str(store), "-o", str(out)],
    ):  # fmt: skip
        done = subprocess.run(
            [sys.executable, "-m", "arena", *args],
            capture_output=True, text=True, check=False, cwd=ROOT,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    met: dict[str, set[str]] = {}
    for game in games_of(out):
        for name in game["seats"]:
            met.setdefault(name, set()).update(set(game["seats"]) - {name})
    assert all(len(others) == 1 for others in met.values())  # two tables of two
    base = (out / "index.html").as_uri()
    for name, others in met.items():
        page.goto("about:blank")
        page.goto(f"{base}#/bot/{name}")
        page.wait_for_selector("table.versus")
        rows = page.eval_on_selector_all(
            "table.versus tbody tr", "rs => rs.map(r => r.dataset.bot)"
        )
        assert rows == sorted(others), name
    page.goto("about:blank")
    page.goto(f"{base}#/bot/hasOwnProperty")
    page.wait_for_selector("#app .notice")
    assert "No bot of this name in the league." in page.text_content("#app")


def test_a_page_of_another_site_cannot_run_the_data_scripts_as_its_own(
    page: Any, site: Path, tmp_path: Path
) -> None:
    """Found in an audit: a page of any other site (here another port of 127.0.0.1,
    another origin) that defines an ARENA of its own and loads `arena serve`'s
    /data/league.js by a <script src> received the league (and every hand of every
    replay, from /data/games/ID.js): a script is no cross-origin read to a browser, and
    the Host header such a page sends (127.0.0.1) passes the check against DNS
    rebinding. Its answers now say Cross-Origin-Resource-Policy: same-origin."""
    import http.server
    import threading

    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", str(site.parent / "league.sqlite"),
         "--port", str(port)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        preexec_fn=dies_with_us(),
    )  # fmt: skip
    (tmp_path / "evil.html").write_text(
        "<!doctype html><pre id='out'>nothing</pre><script src='evil.js'></script>"
        f"<script src='http://127.0.0.1:{port}/data/league.js'></script>"
    )
    (tmp_path / "evil.js").write_text(
        "window.ARENA = {receive: function (kind, data) {"
        " document.getElementById('out').textContent = 'read ' + kind; }};"
    )
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    evil = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        wait_listening(server, port)
        asked: list[str] = []
        page.on("requestfailed", lambda request: asked.append(request.url))
        page.on("requestfinished", lambda request: asked.append(request.url))
        page.goto(f"http://localhost:{evil.server_address[1]}/evil.html")
        page.wait_for_load_state("load")
        assert f"http://127.0.0.1:{port}/data/league.js" in asked  # it was asked for
        expect(page.locator("#out")).to_have_text("nothing")
        open_page(page, f"http://127.0.0.1:{port}/", "/")  # its own pages still read it
        check_standings(page, f"http://127.0.0.1:{port}/", league_of(site))
    finally:
        evil.shutdown()
        evil.server_close()
        server.terminate()
        server.wait(timeout=10)
