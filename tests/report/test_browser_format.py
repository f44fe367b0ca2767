"""Issue 43.4: the viewer shows data of another format (another arena's) as a message
naming both formats, in a real Chromium; data that says no format is of format 1."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.report.test_browser import (  # also skips without chromium or playwright
    browser,  # noqa: F401  (a fixture)
    check_no_injection,
    expect,
    game_route,
    open_page,
)

from . import fake_site, test_browser

watch_page, page = test_browser.watch_page, test_browser.page  # the fixtures, shared

ADVICE = (
    "this viewer reads format 1: the data and the viewer come from different versions of"
    " arena. Write the report again with one arena (arena report), or open it with the"
    " arena that wrote the data"
)


def test_a_league_of_another_format_is_refused_naming_both(page: Any, tmp_path: Path) -> None:
    site = fake_site.write(tmp_path / "site")
    league = {**site.league, "format": 2, "arena": "0.9.0", "title": "not shown"}
    fake_site.write_data(site.root, "league", league, "league.js")
    for path in ("/", "/games", game_route(site.games[0]["id"])):
        open_page(page, site.url, path)
        expect(page.locator("#app .notice.format")).to_have_text(
            f"The report's data is format 2; {ADVICE} (arena 0.9.0)."
        )
        expect(page.locator("h1")).to_have_text("Another version of arena")
        expect(page.locator("table")).to_have_count(0)
        check_no_injection(page)


def test_a_game_of_another_format_is_refused_naming_both(page: Any, tmp_path: Path) -> None:
    site = fake_site.write(tmp_path / "site")
    other, kept = site.games[0]["id"], site.games[1]["id"]
    game = {**site.replays[other], "format": "2b"}  # (no arena named: none said)
    fake_site.write_data(site.root, "game", game, f"games/{other}.js")
    open_page(page, site.url, game_route(other))
    expect(page.locator("#app .notice.format")).to_have_text(
        f'The replay of game {other} is format "2b"; {ADVICE}.'
    )
    expect(page.locator("#frame-counter")).to_have_count(0)
    open_page(page, site.url, game_route(kept))  # the others play as before
    expect(page.locator("#frame-counter")).to_contain_text("frame 0 / ")


def test_data_of_this_format_is_shown(page: Any, tmp_path: Path) -> None:
    """The fake site's data say no format (format 1, as before the data said it); said,
    it is the same."""
    site = fake_site.write(tmp_path / "site")
    fake_site.write_data(site.root, "league", {**site.league, "format": 1}, "league.js")
    game_id = site.games[0]["id"]
    game = {**site.replays[game_id], "format": 1}
    fake_site.write_data(site.root, "game", game, f"games/{game_id}.js")
    open_page(page, site.url, "/")
    expect(page.locator("table.standings tbody tr")).to_have_count(
        len(site.league["standings"]["rows"])
    )
    open_page(page, site.url, game_route(game_id))
    expect(page.locator("#frame-counter")).to_contain_text("frame 0 / ")
