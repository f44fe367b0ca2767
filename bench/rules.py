"""Random-playout throughput of the rules engine.

Prints plays per second and games per second for 2, 4 and 6 players in both editions,
single format, on one core: every game is dealt, played to the end with uniformly
random legal actions, and counted. Usage: python bench/rules.py [--seconds S]
"""

from __future__ import annotations

import argparse
import random
import time

from arena.rules import Edition, Game, GameConfig


def playout(config: GameConfig, seconds: float) -> tuple[float, float]:
    """Play random games for about `seconds`; return (plays/s, games/s)."""
    rng = random.Random(1)
    plays = games = 0
    seed = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(50):
            game = Game(config, seed)
            seed += 1
            while not game.is_over:
                actions = game.legal_actions()
                game.apply_unchecked(actions[int(rng.random() * len(actions))])
            plays += game.plays
            games += 1
        now = time.perf_counter()
        if now >= deadline:
            break
    elapsed = now - start
    return plays / elapsed, games / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per configuration")
    args = parser.parse_args()
    print(f"{'edition':>7} {'players':>7} {'plays/s':>10} {'games/s':>9}")
    for edition in Edition:
        for players in (2, 4, 6):
            config = GameConfig(players=players, edition=edition)
            plays, games = playout(config, args.seconds)
            print(f"{edition.value:>7} {players:>7} {plays:>10,.0f} {games:>9,.0f}")


if __name__ == "__main__":
    main()
