"""random: picks one of the legal actions uniformly at random.

The arena runs it as `python3 bot.py` in this folder (bot.toml). It speaks wire
protocol v1 (protocol/SPEC.md) through the helper `protocol.bot.run`. Set
RANDOM_BOT_SEED to make it repeatable; without it every run differs.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

try:
    from protocol.bot import run
except ImportError:  # `protocol` is not installed: use the copy in this repository
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
    from protocol.bot import run

from protocol import ActMsg

rng = random.Random(os.environ.get("RANDOM_BOT_SEED"))


def choose(act: ActMsg) -> int:
    """Return the index of a uniformly random legal action."""
    return rng.randrange(len(act["legal"]))


if __name__ == "__main__":
    run(choose, name="random", version="1.0")
