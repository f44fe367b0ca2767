"""random: picks one of the legal actions uniformly at random.

The arena runs it as `python3 bot.py` in this folder (bot.toml). It speaks wire
protocol v1 (protocol/SPEC.md) through the helper `protocol.bot.run`. Set
Each game reseeds the generator from the game id and the seat (and RANDOM_BOT_SEED
if set), so a game replays the same however the arena schedules its processes: a
league that was interrupted and resumed gives the results of an uninterrupted run.
"""

from __future__ import annotations

import os
import random
import sys

try:
    from protocol.bot import run
except ImportError:  # `protocol` is not installed: use the copy in this repository
    here = os.path.dirname(os.path.realpath(__file__))
    sys.path.insert(0, os.path.join(here, os.pardir, os.pardir, os.pardir))
    from protocol.bot import run

from protocol import ActMsg, GameStartMsg

rng = random.Random()


def game_start(message: GameStartMsg) -> None:
    """Reseed for the new game."""
    rng.seed(f"{os.environ.get('RANDOM_BOT_SEED', '')}/{message['game_id']}/{message['seat']}")


def choose(act: ActMsg) -> int:
    """Return the index of a uniformly random legal action."""
    return rng.randrange(len(act["legal"]))


if __name__ == "__main__":
    run(choose, name="random", version="1.0", on_game_start=game_start, exit_at_end=True)
