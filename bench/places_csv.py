"""`arena rate` at scale (issue 14.6): a file of 1,000,000 rows (250,000 4-seat games
among 100 bots), rated by the command, against reading the same file with Python's csv
module.

Both sides run as fresh processes, side by side, best of 3:

- floor: `python -c` reading every row of the file with the csv module;
- `arena rate FILE` (the whole command: imports, reading and checking the file, the
  Plackett-Luce fit with its Fisher intervals, the table).

Also times, in this process, `read_places_csv` (the file to game records) and
`read_places_columns` (the file to the columns the standings read) against the csv
module alone. Prints every time as a ratio against its floor (target for the command:
at most 4x) and the command's peak resident memory, also per million games.

Usage: python bench/places_csv.py [--games N]   (4 rows a game; default 250,000 games)
"""

from __future__ import annotations

import argparse
import csv
import io
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from ratings import best_of
from standings import timed

from arena.standings import read_places_columns, read_places_csv

FLOOR = """
import csv, sys
with open(sys.argv[1], encoding="utf-8", newline="") as stream:
    rows = sum(1 for _ in csv.reader(stream))
print(rows)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=250_000)
    args = parser.parse_args()
    rng = random.Random(1)
    lines = ["game,player,place"]
    for game in range(args.games):
        order = sorted(rng.sample(range(100), 4), key=lambda b: -(b + rng.gauss(0, 30)))
        for place, bot in enumerate(order, 1):
            lines.append(f"g{game},bot{bot:03d},{place}")
    text = "\n".join(lines) + "\n"
    rows = len(lines) - 1

    floor_in = best_of(3, lambda: sum(1 for _ in csv.reader(io.StringIO(text))))
    records = best_of(3, lambda: read_places_csv(io.StringIO(text)))
    columns = best_of(3, lambda: read_places_columns(io.StringIO(text)))

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "places.csv"
        path.write_text(text, encoding="utf-8")
        subprocess.run([sys.executable, "-c", "import numpy"], check=True)  # warm caches
        floors, commands = [], []
        for _ in range(3):
            floors.append(timed([sys.executable, "-c", FLOOR, str(path)]))
            commands.append(timed([sys.executable, "-m", "arena.cli", "rate", str(path)]))
    floor, _ = min(floors)
    command, _ = min(commands)
    peak = max(memory for _, memory in commands)
    mb = 1 << 20
    print(f"places CSV: {rows:,} rows, {args.games:,} games of 4 among 100 bots")
    print(f"floor: the csv module reading the file (fresh process): {floor:.2f} s")
    print(f"arena rate (fresh process, whole command): {command:.2f} s")
    print(f"rate / floor: {command / floor:.1f}x  (target: at most 4x)")
    print(
        f"peak memory of arena rate: {peak / mb:.0f} MiB"
        f" ({peak / mb / args.games * 1e6:.0f} MiB per million games,"
        f" {peak / mb / rows * 1e6:.0f} MiB per million rows)"
    )
    print(f"in process, floor: the csv module alone on the text: {floor_in:.2f} s")
    print(f"read_places_columns (to columns): {columns:.2f} s = {columns / floor_in:.1f}x")
    print(f"read_places_csv (to game records): {records:.2f} s = {records / floor_in:.1f}x")
    print("(best of 3; fresh processes alternated)")


if __name__ == "__main__":
    main()
