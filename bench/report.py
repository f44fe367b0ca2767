"""Time to write the report of a league of 10,000 stored games (target: under 30 s on
one core), and the time its index takes to open in headless Chromium.

The store is filled with games played by the rules engine with random choices (no bot
processes: this measures the report, not the games), recorded as the referee records
them (the game record, every decision with its time, the result). Prints: games and
the store's size, the time to write the site and its size, per game, and the index's
load time (navigation to the standings drawn) where Playwright and Debian's chromium
are installed.

Usage: python bench/report.py [--games N] [--bots N]
"""

from __future__ import annotations

import argparse
import random
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from arena.referee import Clocks, GameResult
from arena.report import write_site
from arena.rules import Game, GameConfig
from arena.store import Store

CHROMIUM = "/usr/bin/chromium"


def fill(store: Store, games: int, bots: int, seed: int = 1) -> None:
    """`games` random 4-seat games among `bots` bots, recorded with their replays."""
    rng = random.Random(seed)
    names = [f"bot{i:03d}" for i in range(bots)]
    store.sync_bots([(n, "python3 bot.py", "0") for n in names])
    config = GameConfig(players=4)
    for index in range(games):
        seats = tuple(rng.sample(names, 4))
        game_id = f"g{index:06d}"
        game = Game(config, index)
        log: list[dict[str, Any]] = [
            {"type": "game", "game_id": game_id, "seed": index, "config": config.to_dict(),
             "names": list(seats), "clocks": Clocks().to_dict()}
        ]  # fmt: skip
        while not game.is_over:
            seat = game.to_move
            legal = game.legal_actions()
            choice = rng.randrange(len(legal))
            action = legal[choice]
            card = action.card.code if action.card is not None else None
            log.append({"type": "decision", "seat": seat, "request_id": 1, "choice": choice,
                        "action": {"kind": action.kind.value, "card": card},
                        "ms": round(rng.uniform(0.1, 5.0), 3)})  # fmt: skip
            game.apply(action)
        result = GameResult(game_id, index, config, seats, game.outcome(), (), game.plays,
                            (0.0,) * 4, log)  # fmt: skip
        store.record_game(result, index=index, group=None, started_at=0.0, finished_at=1.0)


def index_load_ms(site: Path) -> float | None:
    """Milliseconds from navigation to the standings drawn, or None without a browser."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if not Path(CHROMIUM).exists():
        return None
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        start = time.perf_counter()
        page.goto((site / "index.html").as_uri())
        page.wait_for_selector("table tbody tr")
        elapsed = (time.perf_counter() - start) * 1000
        browser.close()
    return elapsed


def size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--bots", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        with Store.open(root / "league.sqlite") as store:
            fill(store, args.games, args.bots)
        with Store.open(root / "league.sqlite", readonly=True) as store:
            start = time.perf_counter()
            write_site(store, root / "site")
            seconds = time.perf_counter() - start
        print(f"report: {args.games:,} games among {args.bots} bots, 4 seats")
        print(f"store: {(root / 'league.sqlite').stat().st_size / 1e6:.1f} MB")
        print(f"write the site: {seconds:.1f} s  (target: under 30 s on one core)")
        print(
            f"per game: {1000 * seconds / args.games:.2f} ms; site: {size_mb(root / 'site'):.0f} MB"
        )
        load = index_load_ms(root / "site")
        if load is None:
            print("index load: not measured (needs playwright and Debian's chromium)")
        else:
            print(f"index load in headless Chromium: {load:.0f} ms  (target: under 1 s)")
        shutil.rmtree(root / "site")


if __name__ == "__main__":
    main()
