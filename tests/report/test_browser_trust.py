"""What a bot author reads in the report, checked against arena's own numbers: the
viewer's numbers round as `arena standings` rounds them, its charts stay readable on
a phone, a forfeit says it has no replay, and a fault message shows what the bot wrote
as text a person can read (escapes for control and format characters).

(The replay audit of 2026-12: every frame of 90 real and synthetic games stepped
through in chromium matched the rules engine; these are what did not.)
"""

from __future__ import annotations

import copy
import itertools
import re
from pathlib import Path
from typing import Any

import pytest

from tests.report.test_browser import (  # also skips without chromium or playwright
    browser,  # noqa: F401  (a fixture)
    expect,
    league_of,
    open_page,
)

from . import fake_site, test_browser
from .sites import engine_replay, replay_with_late_faults

pytestmark = [pytest.mark.slow]

watch_page, page = test_browser.watch_page, test_browser.page  # the fixtures, shared


@pytest.fixture(scope="module")
def halves(tmp_path_factory: pytest.TempPathFactory) -> fake_site.Site:
    """The fake league with numbers at exact halves, as a few games give them: an
    average of 62.25 points, an average place of 1.125, a share of 5/8."""
    site = fake_site.write(tmp_path_factory.mktemp("halves"))
    league = copy.deepcopy(site.league)
    row = league["standings"]["rows"][0]
    row.update(points=62.25, average_place=1.125, win_rate=0.0625, elo=1630.5)
    league["matrix"]["share"][0][1] = 0.625
    league["matrix"]["share"][1][0] = 0.375
    fake_site.write_data(site.root, "league", league, "league.js")
    site.league = league
    return site


def test_a_number_at_an_exact_half_reads_as_arena_standings_prints_it(
    page: Any, halves: fake_site.Site
) -> None:
    """toFixed and Math.round take a half up, Python's format (`arena standings`) to
    the even digit: the report said 62.3 points where the terminal said 62.2."""
    league = league_of(halves.root)
    row = league["standings"]["rows"][0]
    open_page(page, halves.url, "/")
    cells = page.locator(f'table.standings tbody tr[data-bot="{row["bot"]}"]')
    expect(cells.locator('[data-col="points"]')).to_have_text(f"{62.25:.1f}")  # 62.2
    expect(cells.locator('[data-col="average_place"]')).to_have_text(f"{1.125:.2f}")  # 1.12
    expect(cells.locator('[data-col="win_rate"]')).to_have_text(f"{6.25:.1f}")  # 6.2
    expect(cells.locator('[data-col="elo"]')).to_have_text(f"{1630.5:.0f}")  # 1630
    open_page(page, halves.url, "/h2h")
    cells = page.locator("table.h2h tbody tr")
    expect(cells.nth(0).locator("td").nth(1)).to_have_text(f"{62.5:.0f}%")  # 62%
    expect(cells.nth(1).locator("td").nth(0)).to_have_text(f"{37.5:.0f}%")  # 38%


@pytest.mark.parametrize("width", [320, 375, 1280])
def test_the_elo_charts_axis_labels_never_run_into_one_another(
    page: Any, halves: fake_site.Site, width: int
) -> None:
    """On a phone the chart's plot is some 120 px wide, and six labels of four digits
    ran together ("10001200140016001800"): as many ticks as their labels fit."""
    page.set_viewport_size({"width": width, "height": 800})
    open_page(page, halves.url, "/")
    page.wait_for_selector("svg.elo-chart text.tick")
    boxes = page.evaluate(
        """() => [...document.querySelectorAll('svg.elo-chart text.tick')]
             .map(t => t.getBoundingClientRect()).map(r => [r.left, r.right])"""
    )
    assert len(boxes) >= 2
    boxes.sort()
    for (_, right), (left, _) in itertools.pairwise(boxes):
        assert right + 2 <= left, f"tick labels overlap at {width} px: {boxes}"


@pytest.fixture(scope="module")
def with_forfeit(tmp_path_factory: pytest.TempPathFactory) -> fake_site.Site:
    """The fake league and a forfeit, listed as arena lists one: no replay."""
    site = fake_site.write(tmp_path_factory.mktemp("forfeit"))
    bots = site.games[0]["seats"]
    forfeit = {"id": "g000099", "seats": bots, "places": [1] * (len(bots) - 1) + [len(bots)],
               "reason": "forfeit", "forfeit": True, "faults": [[bots[-1], "forfeit"]],
               "plays": None}  # fmt: skip
    site.games = [*site.games, forfeit]
    fake_site.write_data(site.root, "games", site.games, "games.js")
    return site


def test_a_forfeit_says_it_was_never_played_rather_than_that_its_replay_failed_to_load(
    page: Any, with_forfeit: fake_site.Site
) -> None:
    """A forfeit has no replay (never played): its game page said "Could not load game
    ...: could not load data/games/g000099.js. It may not be exported yet." with a
    Try again button, and the game list offered a Replay button for it."""
    loser = with_forfeit.games[-1]["seats"][-1]
    open_page(page, with_forfeit.url, "/game/g000099?fault=" + loser)
    expect(page.locator("#app")).to_contain_text("is a forfeit: it was never played")
    expect(page.locator("#app")).not_to_contain_text("Could not load")
    expect(page.locator("#app")).not_to_contain_text("Try again")
    open_page(page, with_forfeit.url, "/games")
    row = page.locator('table.games tr[data-game="g000099"]')
    expect(row.locator("td.replay")).to_have_text("no replay")
    expect(row.locator("td.replay a")).to_have_count(0)
    played = page.locator("table.games tbody tr").first
    expect(played.locator("td.replay a")).to_have_text("Replay \u25b8")


def test_a_fault_that_changes_nothing_is_told_as_such(page: Any, tmp_path: Path) -> None:
    """A fault of a seat already out, or after the end, changes nothing; the viewer
    told it as any fault ("bob (seat 1) faults: crash"), and the result showed its
    message beside "winner" or "could not play" as if it explained that place."""
    from arena.report import write_replay_site

    log = replay_with_late_faults()
    crashed = next(r["seat"] for r in log if r["type"] == "fault")
    winner = log[-1]["places"].index(1)
    write_replay_site(log, tmp_path / "site")
    base = (tmp_path / "site" / "index.html").as_uri()
    open_page(page, base, "/game/late")
    page.wait_for_selector("#frame-counter")
    log_items = page.locator("ol.log li")
    expect(log_items.filter(has_text="faults: crash")).to_contain_text(
        "(already out of the game: it changes nothing)"
    )
    expect(log_items.filter(has_text="faults: timeout")).to_contain_text(
        "(after the game's end: it changes nothing)"
    )
    options = page.locator("#event-list option")
    expect(options.filter(has_text=f"fault of seat {crashed}")).to_contain_text(
        "(already out: no effect)"
    )
    expect(options.filter(has_text=f"fault of seat {winner}")).to_contain_text(
        "(after the end: no effect)"
    )
    result = page.locator("table.result")
    expect(result.locator(f'tr[data-seat="{winner}"] [data-col="cause"]')).to_contain_text(
        "winner then a fault: timeout no game_over"
    )
    expect(result.locator(f'tr[data-seat="{crashed}"] [data-col="cause"]')).to_contain_text(
        "could not play then a fault: crash exited after it was out"
    )


def test_a_seat_out_at_the_deal_is_out_from_the_first_frame(page: Any, tmp_path: Path) -> None:
    """R9.3/R5.1: a 1980 hand of four ONO 99 cannot play, and the seat is out at the
    deal. The viewer showed it in the game at frame 0, and told its elimination (and
    the deal, "round 1: ... draw pile 30") with the first play of another seat."""
    from arena.report import write_replay_site
    from arena.rules import Edition, GameConfig

    config = GameConfig(players=6, edition=Edition.E1980)
    log = engine_replay(config, 131693, "deal")  # seat 0 is dealt four ONO 99
    write_replay_site(log, tmp_path / "site")
    open_page(page, (tmp_path / "site" / "index.html").as_uri(), "/game/deal")
    page.wait_for_selector("#frame-counter")
    expect(page.locator("#frame-counter")).to_have_text("frame 0 / " + str(
        sum(r["type"] == "decision" for r in log)))  # fmt: skip
    seat = page.locator('.seats .seat[data-seat="0"]')
    expect(seat).to_have_class(re.compile(r"\bout\b"))
    expect(seat.locator(".badges")).to_contain_text("out: could not play")
    expect(seat.locator(".faceup .card")).to_have_count(4)
    expect(page.locator("#step-text")).to_contain_text("round 1: ann (seat 0) starts")
    expect(page.locator("#step-text")).to_contain_text("ann (seat 0) is out (could not play)")
    page.locator("#next-frame").click()
    expect(page.locator("#step-text")).to_contain_text("bob (seat 1) plays")
    expect(page.locator("#step-text")).not_to_contain_text("round 1")
    expect(page.locator("#step-text")).not_to_contain_text("is out")


def test_a_bot_of_a_one_replay_site_is_not_said_to_be_missing(page: Any, tmp_path: Path) -> None:
    """`arena report --replay` makes a site of one game: a click on one of its bots'
    names said "No bot of this name in the league." of the bot that played it."""
    from arena.report import write_replay_site
    from arena.rules import GameConfig

    write_replay_site(engine_replay(GameConfig(players=2), 3, "one"), tmp_path / "site")
    base = (tmp_path / "site" / "index.html").as_uri()
    open_page(page, base, "/game/one")
    page.locator(".seat-chip a.bot").first.click()
    expect(page.locator("#app")).to_contain_text("This report is one game's replay")
    expect(page.locator("#app")).not_to_contain_text("No bot of this name")
