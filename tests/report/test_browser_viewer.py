"""The replay viewer and the game list in a real Chromium, on sites of real games:
a league of real bot processes (`sites.league`) and one-game replay sites of the
Python kit's bots (`arena match --replays`, then `arena report --replay`).

Each test names the review finding it checks.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.report.test_browser import (  # also skips without chromium or playwright
    bot_route,
    browser,  # noqa: F401  (a fixture)
    check_layout,
    expect,
    game_route,
    games_of,
    replay_of,
)

from . import test_browser
from .sites import league, random_bot

pytestmark = [pytest.mark.subprocess, pytest.mark.slow]

watch_page, page = test_browser.watch_page, test_browser.page  # the fixtures, shared

ROOT = Path(__file__).resolve().parents[2]
KIT = ROOT / "example_bots" / "python"


def arena(*args: object) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arena", *map(str, args)],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def replay_site(
    root: Path, *options: object, bots: tuple[str, ...] = ("random", "heuristic")
) -> Path:
    """The one-game site of a real match of the kit's bots with these options."""
    arena("match", *(KIT / b for b in bots), "-n", "1", "--seed", "7", "--sandbox", "none",
          "-q", "--replays", root / "replays", *options)  # fmt: skip
    (replay,) = (root / "replays").glob("*.jsonl")
    arena("report", "--replay", replay, "-o", root / "site")
    return root / "site"


def only_game(site: Path) -> dict[str, Any]:
    return replay_of(site, "m0001")


@pytest.fixture(scope="module")
def tokens_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A game of three bots with 40 tokens each (cut short by a play cap)."""
    root = tmp_path_factory.mktemp("tokens")
    return replay_site(root, "--format", "tokens", "--tokens", "40", "--play-cap", "60",
                       bots=("random", "heuristic", "random"))  # fmt: skip


@pytest.fixture(scope="module")
def points_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A game of the points format over several rounds."""
    return replay_site(tmp_path_factory.mktemp("points"), "--format", "points", "--target", "300")


def replay_url(site: Path, game_id: str = "m0001", query: str = "") -> str:
    return (site / "index.html").as_uri() + "#" + game_route(game_id) + query


def open_replay(page: Any, site: Path, query: str = "") -> None:
    page.goto("about:blank")
    page.goto(replay_url(site, query=query))
    page.wait_for_selector("#frame-counter")


# -- 1. token dots ----------------------------------------------------------------------


def test_many_tokens_fit_a_phone(page: Any, tokens_site: Path) -> None:
    """Finding 1: 40 tokens a seat made the replay 585 px wide on a 390 px phone."""
    game = only_game(tokens_site)
    assert max(game["frames"][0]["tokens"]) == 40
    page.set_viewport_size({"width": 390, "height": 844})
    open_replay(page, tokens_site)
    page.wait_for_timeout(150)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    tokens = page.locator('.seat[data-seat="0"] .tokens')
    expect(tokens).to_contain_text("40")
    check_layout(page, (tokens_site / "index.html").as_uri(), game_route("m0001"), 390, 844)


# -- 2. round lines ---------------------------------------------------------------------


def round_starts(game: dict[str, Any]) -> list[int]:
    frames = game["frames"]
    return [i for i in range(1, len(frames)) if frames[i]["round"] != frames[i - 1]["round"]]


def test_the_total_chart_marks_every_new_round(page: Any, points_site: Path) -> None:
    """Finding 2: the chart looked for frames of kind "round", which no replay has."""
    game = only_game(points_site)
    starts = round_starts(game)
    assert len(starts) >= 2  # a game of several rounds
    open_replay(page, points_site)
    lines = page.locator("svg.total-chart line.round")
    expect(lines).to_have_count(len(starts))
    assert lines.evaluate_all("ls => ls.map(l => Number(l.dataset.frame))") == starts


# -- 3. events and links to faults ------------------------------------------------------


@pytest.fixture(scope="module")
def league_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of a real league in which one bot crashes now and then."""
    root = tmp_path_factory.mktemp("league")
    store = league(root)
    arena("report", store, "-o", root / "site")
    return root / "site"


def notable_frames(game: dict[str, Any]) -> list[int]:
    """Faults, eliminations, ends of rounds and the end, as the viewer finds them."""
    frames = game["frames"]
    found = []
    for i in range(1, len(frames)):
        f, p = frames[i], frames[i - 1]
        out = {e["seat"] for e in f["eliminated"]} - {e["seat"] for e in p["eliminated"]}
        if f["kind"] == "fault" or out or f["round"] != p["round"] or i == len(frames) - 1:
            found.append(i)
    return found


def fault_frame(game: dict[str, Any], bot: str) -> int:
    return next(
        i for i, f in enumerate(game["frames"])
        if f["kind"] == "fault" and game["names"][f["seat"]] == bot
    )  # fmt: skip


def counter_of(game: dict[str, Any], i: int) -> str:
    return f"frame {i} / {len(game['frames']) - 1}"


def test_event_controls_step_from_event_to_event(page: Any, points_site: Path) -> None:
    """Finding 3: no way to jump to an elimination or the end of a round."""
    game = only_game(points_site)
    events = notable_frames(game)
    assert len(events) >= 3
    open_replay(page, points_site)
    counter = page.locator("#frame-counter")
    expect(page.locator("#prev-event")).to_be_disabled()
    page.click("#next-event")
    expect(counter).to_have_text(counter_of(game, events[0]))
    page.keyboard.press("Shift+ArrowRight")
    expect(counter).to_have_text(counter_of(game, events[1]))
    page.keyboard.press("Shift+ArrowLeft")
    expect(counter).to_have_text(counter_of(game, events[0]))
    options = page.locator("#event-list option:not([value=''])")
    assert options.evaluate_all("os => os.map(o => Number(o.value))") == events
    page.select_option("#event-list", str(events[-1]))
    expect(counter).to_have_text(counter_of(game, events[-1]))
    expect(page.locator("#next-event")).to_be_disabled()
    assert (
        page.locator("ol.log li.notable").evaluate_all("ls => ls.map(l => Number(l.dataset.i))")
        == events
    )


def test_links_from_fault_lists_open_at_the_fault(page: Any, league_site: Path) -> None:
    """Finding 3: links from the fault filter and a bot's fault list opened at frame 0."""
    base = (league_site / "index.html").as_uri()
    faulted = [g for g in games_of(league_site) if g["faults"]]
    assert faulted
    first = faulted[0]
    bot = first["faults"][0][0]
    game = replay_of(league_site, first["id"])
    at = fault_frame(game, bot)
    assert at > 0

    # the game list, filtered on faults
    page.goto(f"{base}#/games?bot={bot}&outcome=faults")
    page.locator(f'tr[data-game="{first["id"]}"] td.replay a').click()
    expect(page.locator("#frame-counter")).to_have_text(counter_of(game, at))
    expect(page.locator("#step-text")).to_have_text(game["frames"][at]["text"])
    assert page.url.endswith(f"?frame={at}")  # the URL names the frame: a link to this view

    # the fault badge of a seat in the unfiltered list
    page.goto("about:blank")
    page.goto(f"{base}#/games")
    page.locator(f'tr[data-game="{first["id"]}"] a.badge.bad').click()
    expect(page.locator("#frame-counter")).to_have_text(counter_of(game, at))

    # the bot's page
    page.goto("about:blank")
    page.goto(base + "#" + bot_route(bot))
    page.locator(f'ul.faults a.game-id:text-is("{first["id"]}")').click()
    expect(page.locator("#frame-counter")).to_have_text(counter_of(game, at))
    expect(page.locator(".step.k-fault")).to_be_visible()


# -- 4. keys and speed ------------------------------------------------------------------


def playing(page: Any) -> bool:
    return bool(page.locator("#play").evaluate("b => b.classList.contains('on')"))


def test_space_plays_and_pauses_once_wherever_the_focus_is(page: Any, points_site: Path) -> None:
    """Finding 4: no Space for play/pause; on a focused button it must not also click it."""
    game = only_game(points_site)
    open_replay(page, points_site)
    counter = page.locator("#frame-counter")
    page.select_option("#speed", "0.25")  # 2.6 s a frame: nothing moves while we look
    page.locator("#frame-counter").click()  # the focus off the list
    page.keyboard.press("Space")
    assert playing(page)
    page.keyboard.press("Space")
    assert not playing(page)
    # Space on the focused "next" button plays, and does not step too.
    page.focus("#next-frame")
    page.keyboard.press("Space")
    page.wait_for_timeout(200)
    assert playing(page)
    expect(counter).to_have_text(counter_of(game, 0))
    page.keyboard.press("Space")
    assert not playing(page)
    # Space on the focused play button toggles once, not twice.
    page.focus("#play")
    page.keyboard.press("Space")
    page.wait_for_timeout(200)
    assert playing(page)
    page.keyboard.press("Space")
    page.wait_for_timeout(200)
    assert not playing(page)
    # The slider steps itself with the arrows, once a key.
    page.focus("input.slider")
    page.keyboard.press("ArrowRight")
    expect(counter).to_have_text(counter_of(game, 1))
    expect(page.locator("#keys")).to_contain_text("Space")
    expect(page.locator("#keys")).to_be_visible()


def test_the_speed_setting_changes_the_pace(page: Any, points_site: Path) -> None:
    """Finding 4: 650 ms a frame, fixed."""
    open_replay(page, points_site)
    counter = page.locator("#frame-counter")
    page.select_option("#speed", "4")  # 162 ms a frame
    page.click("#play")
    page.wait_for_timeout(1300)
    page.click("#play")
    fast = int(counter.inner_text().split()[1])
    assert fast >= 5  # at 1x, 1.3 s is 2 frames
    page.keyboard.press("Home")
    page.keyboard.press("-")
    page.keyboard.press("-")
    expect(page.locator("#speed")).to_have_value("1")
    page.keyboard.press("+")
    expect(page.locator("#speed")).to_have_value("2")


# -- 5. the game list -------------------------------------------------------------------


def shown_games(page: Any) -> list[str]:
    return list(
        page.locator("#games-body tbody tr").evaluate_all("rs => rs.map(r => r.dataset.game)")
    )


def expect_games(page: Any, ids: list[str]) -> None:
    """The list shows these games, in this order (once the page has caught up)."""
    for _ in range(50):
        if shown_games(page) == ids:
            return
        page.wait_for_timeout(100)
    assert shown_games(page) == ids


def test_the_game_list_finds_sorts_and_filters_won_or_lost(page: Any, league_site: Path) -> None:
    """Finding 5: no search by id or bot, no sort, no won/lost filter."""
    base = (league_site / "index.html").as_uri()
    games = games_of(league_site)
    page.goto(f"{base}#/games")
    page.wait_for_selector("#games-body table")
    expect_games(page, [g["id"] for g in games])
    expect(page.locator("#filter-result")).to_be_hidden()  # no bot chosen

    # by a part of an id, in any case
    page.fill("#filter-text", games[3]["id"].upper())
    expect(page.locator("#games-body tbody tr")).to_have_count(1)
    expect_games(page, [games[3]["id"]])
    # by a part of a bot's name; a space typed is the box's, not the page's
    page.fill("#filter-text", "")
    page.type("#filter-text", " cat ")
    with_cat = [g["id"] for g in games if "cat" in g["seats"]]
    expect(page.locator("#games-body tbody tr")).to_have_count(len(with_cat))
    expect_games(page, with_cat)
    assert page.input_value("#filter-text") == " cat "
    assert "q=%20cat%20" in page.url
    page.reload()  # the URL keeps it
    page.wait_for_selector("#games-body table")
    assert page.input_value("#filter-text") == " cat "
    expect_games(page, with_cat)
    page.fill("#filter-text", "")

    # sorts by length
    page.select_option("#sort", "longest")
    expect(page.locator("#sort")).to_have_value("longest")
    order = sorted(range(len(games)), key=lambda i: (-games[i]["plays"], i))
    expect_games(page, [games[i]["id"] for i in order])
    page.select_option("#sort", "newest")
    expect_games(page, [g["id"] for g in reversed(games)])
    page.select_option("#sort", "played")

    # won or lost, of the bot chosen
    page.select_option("#filter-bot", "ann")
    expect(page.locator("#filter-result")).to_be_visible()
    page.select_option("#filter-result", "won")
    won = [
        g["id"] for g in games if "ann" in g["seats"] and g["places"][g["seats"].index("ann")] == 1
    ]
    lost = [
        g["id"] for g in games if "ann" in g["seats"] and g["places"][g["seats"].index("ann")] != 1
    ]
    assert won
    assert lost
    expect(page.locator("#games-count")).to_have_text(f"{len(won)} of {len(games)} games")
    expect_games(page, won)
    page.select_option("#filter-result", "lost")
    expect(page.locator("#games-count")).to_have_text(f"{len(lost)} of {len(games)} games")
    expect_games(page, lost)


# -- 6. words -----------------------------------------------------------------------------


def test_a_league_of_one_game_says_so_in_the_singular(page: Any, tmp_path: Path) -> None:
    """Finding 6: "all 1 finishing orders"."""
    for name in ("ann", "bob"):
        random_bot(tmp_path / "bots", name)
    store = tmp_path / "league.sqlite"
    arena("league", "--bots", tmp_path / "bots", "--store", store, "--table-size", "2",
          "--games-per-table", "1", "--max-tables", "1", "-j", "1", "--sandbox", "none",
          "-q")  # fmt: skip
    arena("report", store, "-o", tmp_path / "site")
    assert len(games_of(tmp_path / "site")) == 1
    page.goto((tmp_path / "site" / "index.html").as_uri())
    page.wait_for_selector("table.standings")
    text = page.text_content(".standings-panel")
    assert "the one finishing order" in text
    assert "1 finishing orders" not in text


def test_move_texts_say_causes_in_words(page: Any, points_site: Path, league_site: Path) -> None:
    """Finding 6: raw cause codes (cannot_play) in the move text."""
    for site in (points_site, league_site):
        for game in [replay_of(site, g["id"]) for g in games_of(site) if not g.get("withheld")]:
            assert not any("cannot_play" in f["text"] for f in game["frames"]), game["id"]

    def out_unable(frame: dict[str, Any]) -> bool:
        return any(e["cause"] == "cannot_play" for e in frame["eliminated"])

    replays = [replay_of(league_site, g["id"]) for g in games_of(league_site)]
    game = next(r for r in replays if out_unable(r["frames"][-1]))
    at = next(i for i, f in enumerate(game["frames"]) if out_unable(f))
    page.goto(replay_url(league_site, game["id"], f"?frame={at}"))
    expect(page.locator("#step-text")).to_contain_text("is out (could not play)")


def test_the_bot_page_lists_its_fault_messages(page: Any, league_site: Path) -> None:
    """Finding 6: the bot page's fault list had no fault messages."""
    base = (league_site / "index.html").as_uri()
    faulted = [g for g in games_of(league_site) if any(f[0] == "crashy" for f in g["faults"])]
    assert faulted
    page.goto(base + "#" + bot_route("crashy"))
    page.wait_for_selector("ul.faults")
    for g in faulted:
        message = next(f["message"] for f in replay_of(league_site, g["id"])["faults"])
        item = page.locator(f'ul.fault-games li[data-game="{g["id"]}"]')
        expect(item).to_contain_text(message)
