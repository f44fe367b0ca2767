"""`arena serve` under load: what many viewers, or one hostile client, cost the others.

Found in a red-team review: every request for the standings or the game list read the
store and made them again, on the server's one event loop. 8 clients asking for the
standings in a loop held every other answer up by 2.5 s (a 10,000-game league), and
4,000 clients that asked for the game list and never read it made the server hold
5.8 GB (a copy of the 1.4 MB list each).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio
import trio.testing

from arena.report import LeagueData
from arena.report._serve import FRESH_S, make_app
from arena.store import Store

from .sites import league

pytestmark = pytest.mark.subprocess


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return league(tmp_path_factory.mktemp("league"))


def client(app: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://arena")


async def test_the_standings_are_made_once_for_every_request_within_a_second(
    store: Path, mock_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A burst of requests for the standings and the game list costs one making of
    each; they are made again once FRESH_S has passed."""
    made = {"league": 0}
    real = LeagueData.league

    def counted(self: LeagueData, *, live: bool = False) -> dict[str, Any]:
        made["league"] += 1
        return real(self, live=live)

    monkeypatch.setattr(LeagueData, "league", counted)
    with Store.open(store, readonly=True) as db:
        async with client(make_app(db)) as viewer:
            answers = [await viewer.get("/data/league.js") for _ in range(10)]
            assert made["league"] == 1
            mock_clock.jump(FRESH_S + 0.01)
            answers.append(await viewer.get("/data/league.js"))
            assert made["league"] == 2
    assert {a.status_code for a in answers} == {200}
    assert all('"standings":' in a.text for a in answers)


async def test_every_request_within_a_second_gets_the_same_bytes(
    store: Path, mock_clock: trio.testing.MockClock
) -> None:
    """The game list goes out to every request as one shared bytes object, so that a
    client that never reads its answer holds no copy of its own."""
    with Store.open(store, readonly=True) as db:
        app = make_app(db)
        bodies: list[bytes] = []
        for _ in range(3):
            bodies.extend(await _bodies(app, "/data/games.js"))
    assert len(bodies) == 3
    assert len(bodies[0]) > 100
    assert bodies[1] is bodies[0]
    assert bodies[2] is bodies[0]


async def _bodies(app: Any, path: str) -> list[bytes]:
    """The bodies the app sends for one GET of `path`, as the objects it sent."""
    sent: list[bytes] = []
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
        "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
        "root_path": "", "headers": [(b"host", b"arena")], "server": ("arena", 80),
        "client": ("127.0.0.1", 1),
    }  # fmt: skip

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body" and message.get("body"):
            sent.append(message["body"])

    await app(scope, receive, send)
    return sent


async def test_the_pages_are_served_while_the_standings_are_made(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store is read, and the standings made, in a worker thread: a page, and
    another viewer's answer that needs no reading, go out meanwhile."""
    going = threading.Event()
    release = threading.Event()
    real = LeagueData.league

    def slow(self: LeagueData, *, live: bool = False) -> dict[str, Any]:
        going.set()
        assert release.wait(30)
        return real(self, live=live)

    monkeypatch.setattr(LeagueData, "league", slow)
    with Store.open(store, readonly=True) as db:
        async with client(make_app(db)) as viewer:
            standings, (page, style) = await while_held(
                viewer, "/data/league.js", going, release, ["/index.html", "/assets/style.css"]
            )
    assert page.status_code == 200
    assert style.status_code == 200
    assert standings.status_code == 200


async def while_held(
    viewer: httpx.AsyncClient,
    held: str,
    going: threading.Event,
    release: threading.Event,
    paths: list[str],
) -> tuple[httpx.Response, list[httpx.Response]]:
    """GET `held`, whose making (in a worker thread) sets `going`, then waits for
    `release`; meanwhile, GET each of `paths`. Their answers, all come while `held` was
    still being made, and then `held`'s."""
    answers: list[httpx.Response] = []

    async def get_held() -> None:
        answers.append(await viewer.get(held))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(get_held)
        await trio.to_thread.run_sync(going.wait, 30)
        others = [await viewer.get(path) for path in paths]
        assert answers == []  # still being made
        release.set()
    return answers[0], others


async def test_a_replay_being_made_holds_up_no_other_request_and_is_made_once(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found in an audit: a replay's script was made under the lock of the store's
    reads (a game of 100,000 plays: 4 s, 38 MB), so that a client fetching replays in a
    loop held the game list up by 13 s. It is made outside it now, one at a time, and
    kept for the next request."""
    from arena.report import _serve

    going = threading.Event()
    release = threading.Event()
    made: list[str] = []
    real = _serve.game_payload

    def slow(log: Any) -> dict[str, Any]:
        made.append(log[0]["game_id"])
        going.set()
        assert release.wait(30)
        return real(log)

    monkeypatch.setattr(_serve, "game_payload", slow)
    with Store.open(store, readonly=True) as db:
        game_id = sorted(db.done_game_ids())[0]
        async with client(make_app(db)) as viewer:
            path = f"/data/games/{game_id}.js"
            replay, (listed, standings) = await while_held(
                viewer, path, going, release, ["/data/games.js", "/data/league.js"]
            )
            again = await viewer.get(path)
    assert (listed.status_code, standings.status_code) == (200, 200)
    assert replay.status_code == 200
    assert again.content == replay.content
    assert made == [game_id]
