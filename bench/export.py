"""`arena export` at scale (issue 44.6): a store of 100,000 4-seat games among 100 bots,
each with a replay (the replay of one real game, the same for all), exported by the
whole command as a fresh process to /dev/null: as JSON lines, as CSV, and as JSON
lines with --replays.

The store is filled with rows (as a league writes them), then given its proofs as a
store made before proofs is (`Store.adopt_proofs`), so the export checks them all.
Prints each run's wall time, games/s and seat rows/s, and its peak resident memory:
the export streams, so the peak does not grow with the games (compare --games 10000).

Usage: python bench/export.py [--games N] [--bots N]
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import sys
import tempfile
from pathlib import Path

from arena.rules import Format, Game, GameConfig
from arena.store import Store, pack_replay

sys.path.insert(0, str(Path(__file__).parent))
from standings import timed


def a_replay() -> bytes:
    """The packed replay of one random 4-player game (records of its plays)."""
    config = GameConfig(players=4, format=Format.POINTS, target=60)
    game = Game(config, 7)
    rng = random.Random(7)
    log: list[dict[str, object]] = [{"type": "game", "config": config.to_dict(), "seed": 7}]
    while not game.is_over:
        actions = game.legal_actions()
        action = actions[rng.randrange(len(actions))]
        log.append({"type": "play", "seat": game.plays % 4, "action": repr(action)})
        game.apply(action)
    return pack_replay(log)


def fill(path: Path, games: int, bots: int) -> None:
    """`games` 4-seat games among `bots` bots, the stronger bots placing better."""
    rng = random.Random(1)
    names = [f"bot{i:03d}" for i in range(bots)]
    config = GameConfig(players=4, format=Format.POINTS, target=60).to_dict()
    blob = a_replay()
    with Store.open(path) as store:
        store.sync_bots([(n, "python3 bot.py", "0") for n in names])
    db = sqlite3.connect(path)
    with db:
        db.execute("DELETE FROM meta WHERE key = 'proof_key'")  # proved below, all at once
        db.execute("DROP TABLE proofs")
        for start in range(0, games, 10_000):
            game_rows, seat_rows, replays = [], [], []
            for index in range(start, min(start + 10_000, games)):
                game_id = f"g{index:07d}"
                seats = rng.sample(range(bots), 4)
                order = sorted(seats, key=lambda b: -(b + rng.gauss(0, 30)))
                places = {b: order.index(b) + 1 for b in seats}
                game_rows.append(
                    (game_id, index, str(rng.getrandbits(64)), None, "done", 0.0, 1.0, 1.0,
                     100, 90, 1, "target", json.dumps(config))
                )  # fmt: skip
                for seat, bot in enumerate(seats):
                    cause = None if places[bot] == 1 else "target"
                    seat_rows.append(
                        (game_id, seat, names[bot], places[bot], rng.randrange(100), None, cause)
                    )
                replays.append((game_id, blob))
            db.executemany(
                "INSERT INTO games (game_id, idx, seed, grp, status, started_at, finished_at,"
                " seconds, decisions, plays, rounds, reason, config)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                game_rows,
            )
            db.executemany("INSERT INTO seats VALUES (?,?,?,?,?,?,?)", seat_rows)
            db.executemany("INSERT INTO replays VALUES (?,?)", replays)
    db.close()
    with Store.open(path) as store:
        store.adopt_proofs()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--bots", type=int, default=100)
    args = parser.parse_args()
    arena = [sys.executable, "-m", "arena.cli"]
    runs = {
        "jsonl": ["--format", "jsonl"],
        "csv": ["--format", "csv"],
        "jsonl --replays": ["--format", "jsonl", "--replays"],
    }
    mb = 1 << 20
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "league.sqlite"
        fill(path, args.games, args.bots)
        print(f"store: {args.games:,} games of 4 seats among {args.bots} bots,")
        print(f"  {path.stat().st_size / mb:.0f} MiB with replays (each game's the same)")
        for name, options in runs.items():
            best = min(
                timed([*arena, "export", str(path), *options, "-o", "/dev/null"]) for _ in range(2)
            )
            seconds, peak = best
            print(
                f"arena export {name:16} {seconds:6.2f} s  {args.games / seconds:8,.0f} games/s"
                f"  {4 * args.games / seconds:9,.0f} seat rows/s  peak {peak / mb:4.0f} MiB"
            )
    print("(whole command, fresh process, to /dev/null; best of 2)")


if __name__ == "__main__":
    main()
