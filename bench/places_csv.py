"""Reading finishing orders for `arena rate`: `read_places_csv` on a million rows against
reading the same text with Python's csv module alone (issue 14 target: within 4 times).

Usage: python bench/places_csv.py [--games N]   (4 rows a game; default 250,000 games)
"""

from __future__ import annotations

import argparse
import csv
import io
import random
import time

from arena.standings import read_places_csv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=250_000)
    args = parser.parse_args()
    rng = random.Random(1)
    lines = ["game,player,place"]
    for game in range(args.games):
        for place, bot in enumerate(rng.sample(range(100), 4), 1):
            lines.append(f"g{game},bot{bot:03d},{place}")
    text = "\n".join(lines) + "\n"
    start = time.perf_counter()
    rows = sum(1 for _ in csv.reader(io.StringIO(text)))
    floor = time.perf_counter() - start
    start = time.perf_counter()
    games = read_places_csv(io.StringIO(text))
    seconds = time.perf_counter() - start
    print(f"places CSV: {rows - 1:,} rows, {len(games):,} games among 100 bots")
    print(f"floor: the csv module alone: {floor:.2f} s")
    print(f"read_places_csv: {seconds:.2f} s = {seconds / floor:.1f}x the floor (target: 4x)")


if __name__ == "__main__":
    main()
