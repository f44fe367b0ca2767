"""What hidden information is worth in ONO 99 (issue 46.5): the yardstick that sees every
hand against the yardstick that does not, at the same playouts, through arena's referee.

One seat runs ``yardstick --level L --perfect-info`` and is shown every hand by the
test hook ``arena.testing.play_seeing`` (nothing else can show it: tests/test_seeing.py);
the other seats run ``yardstick --level L``. Every deal is played once with the seeing
seat in each seat. Prints the seeing seat's mean score (the share of opponents finished
below it, ties half) and the Elo it gives, with a 95% interval from the games' standard
error (deals are shared by the seat rotations, so this interval is a little wide of
honest; it does not claim more than the games show).

Usage: python bench/perfect_info.py [--level 3] [--players 2] [--deals 100] [--seed 1]
[-j 2]. Build the yardstick first (make bots, or example_bots/yardstick/build.sh).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import trio

from arena.bots import BotSpec
from arena.referee import Clocks
from arena.rules import GameConfig
from arena.testing import play_seeing

FOLDER = Path(__file__).resolve().parent.parent / "example_bots" / "yardstick"
BINARY = "./target/release/yardstick"


def elo(score: float) -> float:
    score = min(max(score, 0.001), 0.999)
    return -400 * math.log10(1 / score - 1)


async def main(args: argparse.Namespace) -> None:
    level = ("--level", str(args.level))
    seeing = BotSpec("seeing", (BINARY, *level, "--perfect-info"), FOLDER)
    plain = BotSpec("plain", (BINARY, *level), FOLDER)
    config = GameConfig(players=args.players)
    scores: list[float] = []
    shown = mismatches = 0
    limiter = trio.CapacityLimiter(args.j)

    async def one(deal: int, seat: int) -> None:
        nonlocal shown, mismatches
        async with limiter:
            players = [seeing if s == seat else plain for s in range(args.players)]
            result, port = await play_seeing(
                players, config, args.seed * 100_000 + deal, seat, clocks=Clocks()
            )
        if result.faults:
            sys.exit(f"a fault: {result.faults}")
        places = result.outcome.places
        others = [places[s] for s in range(args.players) if s != seat]
        below = sum(p > places[seat] for p in others) + 0.5 * sum(p == places[seat] for p in others)
        scores.append(below / len(others))
        shown += port.shown
        mismatches += port.mismatches

    async with trio.open_nursery() as nursery:
        for deal in range(args.deals):
            for seat in range(args.players):
                nursery.start_soon(one, deal, seat)
    n = len(scores)
    mean = sum(scores) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in scores) / max(1, n - 1))
    low, high = mean - 1.96 * sd / math.sqrt(n), mean + 1.96 * sd / math.sqrt(n)
    print(
        f"level {args.level}, {args.players} players, {n} games: the seeing yardstick scores"
        f" {mean:.3f}: {elo(mean):+.0f} Elo [{elo(low):+.0f}, {elo(high):+.0f}] over the"
        f" yardstick ({shown} acts shown every hand, {mismatches} not)"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--level", type=int, default=3)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("-j", type=int, default=2)
    trio.run(main, parser.parse_args())
