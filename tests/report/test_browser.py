"""The report's web front-end (arena/report/static) in a real headless Chromium.

Runs against the fake site of `tests.report.fake_site` opened from disk (file://).
The checks are plain functions taking a Playwright page and the URL of a site's
index page (``file:///.../index.html`` or ``http://host:port/``), with the expected
values read from the site's own data files (`read_data`), so the same checks run
against a site written by the real exporter or served by ``arena serve``.

Needs Debian's chromium (``apt-get install chromium``) and the playwright package
(``pip install playwright``; never ``playwright install``). Screenshots go to
tests/report/artifacts/.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip(
        "no /usr/bin/chromium: the browser tests need Debian's chromium (apt-get install chromium)",
        allow_module_level=True,
    )
sync_api = pytest.importorskip(
    "playwright.sync_api",
    reason="playwright is not installed: pip install playwright (the browser is Debian's chromium)",
)
expect = sync_api.expect

from tests.report import fake_site  # noqa: E402  (after the skips)

ARTIFACTS = Path(__file__).parent / "artifacts"
STATIC = fake_site.STATIC

# The viewer's own scripts (the parts of the viewer, in assets: see util.js).
SCRIPTS = sorted(p.name for p in (STATIC / "assets").iterdir() if p.name.endswith(".js"))
# Scripts the page may hold: the viewer's and the data script of index.html, and the
# data scripts the viewer injects.
ALLOWED_SCRIPT = re.compile(
    r"^(assets/(" + "|".join(map(re.escape, SCRIPTS)) + r")|data/league\.js|data/games\.js"
    r"|data/games/[^/?#]+\.js)(\?t=\d+)?$"
)


# -- reading a site's data --------------------------------------------------------------


def read_calls(path: Path) -> list[tuple[str, Any]]:
    """The kind and payload of each ``ARENA.receive(kind, payload);`` of a data file
    (a static report packs several games in one file)."""
    text = path.read_text(encoding="utf-8").strip()
    prefix = "ARENA.receive("
    decoder = json.JSONDecoder()
    calls = []
    while text:
        assert text.startswith(prefix), f"{path}: a call does not start with {prefix}"
        kind, at = decoder.raw_decode(text, len(prefix))
        rest = text[at:].lstrip()
        assert rest.startswith(","), f"{path}: no comma after the kind"
        rest = rest[1:].lstrip()
        payload, end = decoder.raw_decode(rest)
        rest = rest[end:].lstrip()
        assert rest.startswith(");") or rest == ")", f"{path}: a call does not end"
        calls.append((kind, payload))
        text = rest[2:].lstrip()
    return calls


def read_data(path: Path) -> tuple[str, Any]:
    """The kind and payload of a data file of one ``ARENA.receive(kind, payload);``."""
    calls = read_calls(path)
    assert len(calls) == 1, f"{path}: {len(calls)} calls"
    return calls[0]


def league_of(root: Path) -> dict[str, Any]:
    kind, league = read_data(root / "data" / "league.js")
    assert kind == "league"
    return league


def games_of(root: Path) -> list[dict[str, Any]]:
    kind, games = read_data(root / "data" / "games.js")
    assert kind == "games"
    return games


def replay_of(root: Path, game_id: str) -> dict[str, Any]:
    """A game's payload, from the file the game list names (else one named after it)."""
    listed = next((g for g in games_of(root) if g["id"] == game_id), {})
    path = root / "data" / "games" / f"{listed.get('file', game_id)}.js"
    games = {payload["id"]: payload for kind, payload in read_calls(path) if kind == "game"}
    return games[game_id]


# -- what the page shows, formatted as app.js formats it ---------------------------------


def rounded(value: float) -> str:
    """A whole number as the page and `arena standings` round it: an exact half to the
    even number (Python's format)."""
    return f"{value:.0f}"


def count(value: int) -> str:
    return f"{value:,}"


def route(base: str, path: str) -> str:
    """The URL of a page of the site whose index page is ``base``."""
    return base.split("#")[0] + "#" + path


def uri_component(text: str) -> str:
    """JavaScript's encodeURIComponent."""
    return quote(text, safe="!'()*")


def game_route(game_id: str) -> str:
    return "/game/" + uri_component(game_id)


def bot_route(name: str) -> str:
    return "/bot/" + uri_component(name)


class Watch:
    """Everything a page did that it never should: dialogs, uncaught errors."""

    def __init__(self, page: Any) -> None:
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.console_errors: list[str] = []
        page.on("dialog", self._dialog)
        page.on("pageerror", lambda err: self.errors.append(str(err)))
        page.on("console", self._console)

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self.console_errors.append(message.text)

    def check(self) -> None:
        assert not self.dialogs, f"the page opened dialogs: {self.dialogs}"
        assert not self.errors, f"uncaught errors in the page: {self.errors}"
        refused = [m for m in self.console_errors if "Content Security Policy" in m]
        assert not refused, f"the page's own content policy refused: {refused}"


def open_page(page: Any, base: str, path: str) -> None:
    """Load a page of the site afresh and wait until app.js has drawn it."""
    page.goto("about:blank")
    page.goto(route(base, path))
    page.wait_for_selector("#app > :not(#boot)")


def check_standings(page: Any, base: str, league: dict[str, Any]) -> None:
    """The standings table shows every row of the data, in order, with its values."""
    open_page(page, base, "/")
    rows = league["standings"]["rows"]
    shown = page.locator("table.standings tbody tr")
    expect(shown).to_have_count(len(rows))
    has_points = any(r["points"] is not None for r in rows)
    causes = [c for c in fault_causes(rows) if any(r["faults"].get(c) for r in rows)]
    for i, row in enumerate(rows):
        tr = shown.nth(i)
        assert tr.get_attribute("data-bot") == row["bot"]

        def cell(col: str, tr: Any = tr) -> str:
            return str(tr.locator(f'td[data-col="{col}"]').inner_text()).strip()

        assert cell("rank") == str(row["rank"])
        assert cell("bot") == row["bot"]
        assert cell("elo") == rounded(row["elo"])
        if row["plus_minus"] is not None:
            assert cell("plus_minus") == f"\u00b1{rounded(row['plus_minus'])}"
            low, high = rounded(row["elo_low"]), rounded(row["elo_high"])
            assert cell("interval") == f"{low}\u2013{high}"
        assert cell("games") == count(row["games"])
        assert cell("wins") == count(row["wins"])
        assert cell("win_rate") == f"{100 * row['win_rate']:.1f}"
        assert cell("average_place") == f"{row['average_place']:.2f}"
        if has_points:
            points = row["points"]
            assert cell("points") == ("\u2013" if points is None else f"{points:.1f}")
        else:
            assert tr.locator('td[data-col="points"]').count() == 0
        for cause in causes:
            assert cell(f"fault-{cause}") == str(row["faults"].get(cause, 0))
        if not causes:
            assert cell("faults") == "0"
    progress = league["progress"]
    expect(page.locator("#progress")).to_have_text(
        f"{count(progress['done'])} of {count(progress['total'])} games"
    )
    expect(page.locator("svg.elo-chart circle.point")).to_have_count(len(rows))


def fault_causes(rows: list[dict[str, Any]]) -> list[str]:
    """Fault causes in the order of the table: the known ones, then any other."""
    known = ["timeout", "crash", "malformed", "illegal", "forfeit"]
    extra = sorted({c for r in rows for c in r["faults"]} - set(known))
    return known + extra


def frame_counter(index: int, last: int) -> str:
    return f"frame {index} / {last}"


def check_replay(page: Any, base: str, game: dict[str, Any]) -> None:
    """Step through a replay with the keyboard: End shows the final total and places,
    Home the first frame, the arrows one frame at a time."""
    open_page(page, base, game_route(game["id"]))
    frames = game["frames"]
    last = len(frames) - 1
    counter = page.locator("#frame-counter")
    expect(counter).to_have_text(frame_counter(0, last))

    page.keyboard.press("End")
    expect(counter).to_have_text(frame_counter(last, last))
    expect(page.locator("#total")).to_have_text(str(frames[-1]["total"]))
    expect(page.locator("#step-text")).to_have_text(frames[-1]["text"])
    places = game["result"]["places"]
    for seat, place in enumerate(places):
        badge = page.locator(f'.seat[data-seat="{seat}"] .badge.place')
        expect(badge).to_have_attribute("data-place", str(place))
        row = page.locator(f'table.result tr[data-seat="{seat}"] td[data-col="place"]')
        expect(row).to_have_text(ordinal(place))
    for e in frames[-1]["eliminated"]:
        expect(
            page.locator(f'.seat[data-seat="{e["seat"]}"] .badge[data-cause]')
        ).to_have_attribute("data-cause", e["cause"])

    page.keyboard.press("Home")
    expect(counter).to_have_text(frame_counter(0, last))
    expect(page.locator("#total")).to_have_text(str(frames[0]["total"]))
    page.keyboard.press("ArrowRight")
    expect(counter).to_have_text(frame_counter(1, last))
    expect(page.locator("#total")).to_have_text(str(frames[1]["total"]))
    expect(page.locator("#step-text")).to_have_text(frames[1]["text"])
    for seat, hand in enumerate(frames[1]["hands"]):
        shown = page.locator(f'.seat[data-seat="{seat}"] .hand .card').evaluate_all(
            "els => els.map(e => e.dataset.card)"
        )
        assert shown == hand
    page.keyboard.press("ArrowLeft")
    expect(counter).to_have_text(frame_counter(0, last))
    page.keyboard.press("ArrowLeft")  # stays on the first frame
    expect(counter).to_have_text(frame_counter(0, last))


def ordinal(n: int) -> str:
    suffix = "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def check_seat_view(page: Any, base: str, game: dict[str, Any], seat: int, index: int) -> None:
    """Showing one seat's view: its hand face up, the others hidden (their size only)."""
    open_page(page, base, f"{game_route(game['id'])}?frame={index}")
    frame = game["frames"][index]
    page.select_option("#view-as", str(seat))
    for s, hand in enumerate(frame["hands"]):
        panel = page.locator(f'.seat[data-seat="{s}"]')
        faces = panel.locator(".hand .card:not(.card-back)")
        backs = panel.locator(".hand .card-back")
        if s == seat:
            expect(faces).to_have_count(len(hand))
            expect(backs).to_have_count(0)
        else:
            expect(faces).to_have_count(0)
            expect(backs).to_have_count(len(hand))
    page.select_option("#view-as", "")
    for s, hand in enumerate(frame["hands"]):
        expect(page.locator(f'.seat[data-seat="{s}"] .hand .card-back')).to_have_count(0)
        expect(page.locator(f'.seat[data-seat="{s}"] .hand .card')).to_have_count(len(hand))


def check_no_injection(page: Any) -> None:
    """No element came from data as HTML: only the page's own scripts, no images."""
    scripts = page.locator("script").evaluate_all(
        "els => els.map(e => [e.getAttribute('src'), e.textContent])"
    )
    for src, text in scripts:
        assert src is not None, f"a script without src: {text[:80]!r}"
        assert ALLOWED_SCRIPT.match(src), f"unexpected script {src!r}"
        assert not text.strip(), f"a script with inline code: {text[:80]!r}"
    assert page.locator("img, iframe, object, embed").count() == 0
    handlers = page.evaluate(
        "() => [...document.querySelectorAll('*')].flatMap(e => [...e.attributes]"
        ".filter(a => a.name.startsWith('on')).map(a => e.tagName + ' ' + a.name))"
    )
    assert not handlers, f"inline event handlers: {handlers}"


def overflowing(page: Any) -> list[str]:
    """Elements that stick out of the window on the right, outside a scrolling box."""
    return list(
        page.evaluate(
            """() => {
        const w = document.documentElement.clientWidth;
        const out = [];
        for (const el of document.querySelectorAll('body *')) {
          const r = el.getBoundingClientRect();
          if (r.width === 0 || r.right <= w + 1) continue;
          let clipped = false;
          for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
            const o = getComputedStyle(a).overflowX;
            if (o === 'auto' || o === 'scroll' || o === 'hidden') { clipped = true; break; }
          }
          if (!clipped) out.push(`${el.tagName.toLowerCase()}.${el.className} right=${r.right}`);
        }
        return out.slice(0, 10);
      }"""
        )
    )


def check_layout(
    page: Any, base: str, path: str, width: int, height: int, shot: str | None = None
) -> None:
    """No page-wide horizontal overflow at this window size; a screenshot if asked."""
    page.set_viewport_size({"width": width, "height": height})
    open_page(page, base, path)
    page.wait_for_timeout(150)  # charts are drawn to the box's width after mounting
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    window_width = page.evaluate("window.innerWidth")
    assert scroll_width <= window_width, (
        f"{path} at {width}x{height}: the page is {scroll_width}px wide: {overflowing(page)}"
    )
    assert not overflowing(page), f"{path} at {width}x{height}: {overflowing(page)}"
    if shot:
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / shot), full_page=True)


# -- fixtures ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture
def watch_page(browser: Any) -> Iterator[tuple[Any, Watch]]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(10000)  # real bots' sites on a busy machine
    watch = Watch(page)
    yield page, watch
    context.close()
    watch.check()


@pytest.fixture
def page(watch_page: tuple[Any, Watch]) -> Any:
    return watch_page[0]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> fake_site.Site:
    return fake_site.write(tmp_path_factory.mktemp("site"))


def fault_game(site: fake_site.Site) -> dict[str, Any]:
    """The fake league's game in which the hostile bot crashes with a hostile message."""
    return replay_of(site.root, "g000010")


# -- tests ------------------------------------------------------------------------------


def test_data_files_read_back(site: fake_site.Site) -> None:
    assert league_of(site.root) == site.league
    assert games_of(site.root) == site.games
    for game_id, game in site.replays.items():
        assert replay_of(site.root, game_id) == game


def test_standings_rows_equal_the_data(page: Any, site: fake_site.Site) -> None:
    check_standings(page, site.url, league_of(site.root))


def test_replay_steps_with_the_keyboard(page: Any, site: fake_site.Site) -> None:
    check_replay(page, site.url, fault_game(site))


@pytest.mark.parametrize("fmt", ["tokens", "points"])
def test_replay_of_other_formats(page: Any, tmp_path: Path, fmt: str) -> None:
    other = fake_site.write(tmp_path, fmt=fmt)
    game = replay_of(other.root, "g000001")
    check_replay(page, other.url, game)
    page.keyboard.press("End")
    final = game["frames"][-1]
    key = "tokens" if fmt == "tokens" else "scores"
    for seat, value in enumerate(final[key]):
        panel = page.locator(f'.seat[data-seat="{seat}"] .extra')
        expect(panel).to_contain_text(str(value))
    expect(page.locator('[data-tile="round"] .value')).to_have_text(str(final["round"]))


def test_one_seat_view_hides_the_other_hands(page: Any, site: fake_site.Site) -> None:
    game = fault_game(site)
    check_seat_view(page, site.url, game, seat=1, index=1)
    # The choice is in the URL, so a link to this view shows the same.
    page.select_option("#view-as", "0")
    assert page.url.endswith("?frame=1&seat=0")
    page.reload()
    page.wait_for_selector("#frame-counter")
    expect(page.locator("#view-as")).to_have_value("0")
    expect(page.locator('.seat[data-seat="1"] .hand .card-back')).to_have_count(
        len(game["frames"][1]["hands"][1])
    )


def test_buttons_and_the_log_step_too(page: Any, site: fake_site.Site) -> None:
    game = fault_game(site)
    last = len(game["frames"]) - 1
    open_page(page, site.url, game_route(game["id"]))
    counter = page.locator("#frame-counter")
    page.get_by_role("button", name="next frame (Right)").click()
    expect(counter).to_have_text(frame_counter(1, last))
    page.get_by_role("button", name="last frame (End)").click()
    expect(counter).to_have_text(frame_counter(last, last))
    page.locator('ol.log li[data-i="3"]').click()
    expect(counter).to_have_text(frame_counter(3, last))
    expect(page.locator("#step-text")).to_have_text(game["frames"][3]["text"])


def test_hostile_text_stays_text(watch_page: tuple[Any, Watch], site: fake_site.Site) -> None:
    page, watch = watch_page
    bot = fake_site.XSS_BOT
    message = fake_site.XSS_MESSAGE
    open_page(page, site.url, "/")
    expect(page.locator("table.standings").get_by_text(bot, exact=True)).to_have_count(1)
    check_no_injection(page)
    for path in ["/h2h", bot_route(bot), "/games?bot=" + uri_component(bot)]:
        open_page(page, site.url, path)
        expect(page.get_by_text(bot, exact=True).filter(visible=True).first).to_be_visible()
        check_no_injection(page)
    open_page(page, site.url, bot_route(bot))
    expect(page.locator("h1")).to_have_text(bot)
    expect(page.locator("ul.fault-games .message").get_by_text(message)).to_have_count(1)
    check_no_injection(page)
    game = fault_game(site)
    open_page(page, site.url, game_route(game["id"]))
    page.keyboard.press("End")
    expect(page.locator(".fault-message")).to_contain_text(message)
    expect(page.locator("table.result")).to_contain_text(message)
    check_no_injection(page)
    page.wait_for_timeout(200)
    assert not watch.dialogs


def test_the_app_never_parses_html() -> None:
    assert "app.js" in SCRIPTS
    for name in SCRIPTS:
        app = (STATIC / "assets" / name).read_text(encoding="utf-8")
        for sink in (
            "innerHTML",
            "outerHTML",
            "insertAdjacentHTML",
            "document.write",
            "eval(",
            "new Function",
            "DOMParser",
            "createContextualFragment",
        ):
            assert sink not in app, f"{name} uses {sink}"
    index = (STATIC / "index.html").read_text(encoding="utf-8")
    assert "Content-Security-Policy" in index
    assert re.search(r"https?://", index.replace("http://www.w3.org", "")) is None
    css = (STATIC / "assets" / "style.css").read_text(encoding="utf-8")
    assert "@import" not in css  # no fonts or images from anywhere
    assert "url(" not in css


def test_game_list_filters(page: Any, site: fake_site.Site) -> None:
    games = games_of(site.root)
    rows = page.locator("table.games tbody tr")

    def shown() -> list[str]:
        return list(rows.evaluate_all("els => els.map(e => e.dataset.game)"))

    open_page(page, site.url, "/games")
    expect(rows).to_have_count(len(games))
    assert shown() == [g["id"] for g in games]

    open_page(page, site.url, "/games?outcome=faults")
    expect(rows).to_have_count(sum(1 for g in games if g["faults"] or g["forfeit"]))
    assert shown() == [g["id"] for g in games if g["faults"] or g["forfeit"]]

    open_page(page, site.url, "/games?outcome=cap")
    capped = [g["id"] for g in games if g["reason"] == "play_cap"]
    assert capped, "the fake league has a game at the play cap"
    expect(rows).to_have_count(len(capped))
    assert shown() == capped

    bot = fake_site.XSS_BOT
    page.select_option("#filter-outcome", "all")
    page.select_option("#filter-bot", bot)
    expect(rows).to_have_count(sum(1 for g in games if bot in g["seats"]))
    assert page.url.endswith("#/games?bot=" + uri_component(bot))
    page.locator("table.games tbody tr a.game-id").first.click()
    first = next(g for g in games if bot in g["seats"])
    expect(page.locator("h1")).to_have_text(f"Game {first['id']}")


def test_bot_page(page: Any, site: fake_site.Site) -> None:
    league = league_of(site.root)
    bot = fake_site.XSS_BOT
    info = league["bots"][bot]
    open_page(page, site.url, bot_route(bot))
    for seat, places in enumerate(info["places_by_seat"]):
        cells = page.locator(f'table.places tr[data-seat="{seat}"] td[data-col^="place"]')
        assert cells.all_inner_texts() == [count(n) for n in places]
    for other, v in info["versus"].items():
        row = page.locator("table.versus tr").filter(
            has=page.locator(f'a[href="#{bot_route(other)}"]')
        )
        expect(row.locator('td[data-col="games"]')).to_have_text(count(v["games"]))
        expect(row.locator('td[data-col="above"]')).to_have_text(count(v["above"]))
    for cause, ids in info["faults"].items():
        links = page.locator(f'ul.faults li[data-cause="{cause}"] a.game-id')
        assert links.all_inner_texts() == ids
    page.locator('ul.faults li[data-cause="crash"] a.game-id').first.click()
    expect(page.locator("h1")).to_have_text(f"Game {info['faults']['crash'][0]}")


def test_head_to_head(page: Any, site: fake_site.Site) -> None:
    matrix = league_of(site.root)["matrix"]
    open_page(page, site.url, "/h2h")
    n = len(matrix["players"])
    for r, name in enumerate(matrix["players"]):
        cells = page.locator(f"table.h2h tbody tr:nth-child({r + 1}) td")
        expect(cells).to_have_count(n)
        for c in range(n):
            share = matrix["share"][r][c]
            if share is None:
                continue
            cell = cells.nth(c)
            expect(cell).to_have_text(f"{rounded(100 * share)}%")
            assert cell.get_attribute("data-games") == str(matrix["games"][r][c])
            title = cell.get_attribute("title") or ""
            assert name in title
            assert f"{count(matrix['games'][r][c])} shared games" in title


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)])
def test_layout(page: Any, site: fake_site.Site, width: int, height: int) -> None:
    game = fault_game(site)
    frame = next(f["i"] for f in game["frames"] if f["kind"] == "fault") + 4
    check_layout(page, site.url, "/", width, height, f"index-{width}.png")
    check_layout(
        page,
        site.url,
        f"{game_route(game['id'])}?frame={frame}",
        width,
        height,
        f"replay-{width}.png",
    )
    for path in ["/h2h", "/games", bot_route(fake_site.LONG_BOT), bot_route(fake_site.XSS_BOT)]:
        check_layout(page, site.url, path, width, height)


def test_live_mode_reloads(page: Any, tmp_path: Path) -> None:
    live = fake_site.write(tmp_path, live=True, done=20)
    open_page(page, live.url, "/")
    expect(page.locator("#progress")).to_have_text("20 of 30 games")
    expect(page.locator("#live")).to_be_visible()
    open_page(page, live.url, "/games")
    expect(page.locator("table.games tbody tr")).to_have_count(20)
    started = time.monotonic()
    fake_site.write(tmp_path, live=True, done=30)
    expect(page.locator("table.games tbody tr")).to_have_count(30, timeout=8000)
    assert time.monotonic() - started < 8
    page.locator(".nav a[data-page=index]").click()
    expect(page.locator("#progress")).to_have_text("30 of 30 games", timeout=8000)


def test_missing_data_says_so(page: Any, tmp_path: Path) -> None:
    fake_site.copy_static(tmp_path)
    open_page(page, (tmp_path / "index.html").as_uri(), "/")
    expect(page.locator("#app .notice")).to_contain_text("data/league.js did not load")
    partial = fake_site.write(tmp_path / "partial")
    (partial.root / "data" / "games" / "g000002.js").unlink()
    open_page(page, partial.url, game_route("g000002"))
    expect(page.locator("#app .notice.bad")).to_contain_text("Could not load game g000002")
    open_page(page, partial.url, "/nowhere")
    expect(page.locator("h1")).to_have_text("Not found")
