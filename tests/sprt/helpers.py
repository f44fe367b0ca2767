"""Bot folders and a scripted game runner for the SPRT's tests."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import trio

from arena.bots import BotSpec, load_manifest
from arena.messages import Play, Played, Setup
from arena.referee import FaultRecord, GameResult
from arena.rules import EndReason, GameConfig, Outcome
from arena.runners import Player

ROOT = Path(__file__).resolve().parents[2]


def bot_folder(root: Path, name: str, source: str = "pass\n") -> BotSpec:
    """A bot folder named `name` (with a bot.py of `source`) and its spec."""
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(source)
    (folder / "bot.toml").write_text(f'name = "{name}"\nrun = "python3 bot.py"\n')
    return load_manifest(folder)


def example_bot(root: Path, kind: str, folder_name: str | None = None) -> Path:
    """A copy of example_bots/python/KIND that finds `protocol` in this repository."""
    folder = root / (folder_name or kind)
    folder.mkdir(parents=True)
    source = (ROOT / "example_bots" / "python" / kind / "bot.py").read_text()
    fallback = "os.path.join(here, os.pardir, os.pardir, os.pardir)"  # this repository
    assert fallback in source
    source = source.replace(fallback, repr(str(ROOT)))
    (folder / "bot.py").write_text(source)
    (folder / "bot.toml").write_text(f'name = "{kind}"\nrun = "python3 bot.py"\n')
    return folder


Rank = Callable[[Play], tuple[list[int], list[int]]]
"""A game's places, and the seats that fault in it."""


def by_strength(strength: dict[str, float]) -> Rank:
    """Places by the bots' strength, the deal's luck added per seat (from the seed)."""

    def rank(play: Play) -> tuple[list[int], list[int]]:
        luck = [((play.seed >> (8 * s)) & 0xFF) / 255.0 for s in range(len(play.seats))]
        value = [strength.get(name, 0.0) + luck[s] for s, name in enumerate(play.seats)]
        order = sorted(range(len(value)), key=lambda s: -value[s])
        places = [0] * len(value)
        for place, seat in enumerate(order, start=1):
            places[seat] = place
        return places, []

    return rank


def result(play: Play, places: list[int], faulted: list[int]) -> GameResult:
    outcome = Outcome(
        places=tuple(places), points=None, tokens=None, eliminations=(),
        reason=EndReason.LAST_PLAYER, rounds=1, plays=10,
    )  # fmt: skip
    return GameResult(
        game_id=play.game_id,
        seed=play.seed,
        config=GameConfig(players=len(play.seats)),
        names=play.seats,
        outcome=outcome,
        faults=tuple(FaultRecord(s, "crash", "scripted", None, 0) for s in faulted),
        decisions=10,
        think_ms=(0.0,) * len(play.seats),
        log=[],
    )


class ScriptedRunner:
    """`players` players that answer each game by `rank`, after `delay(play)` seconds."""

    def __init__(
        self, rank: Rank, players: int = 1, delay: Callable[[Play], float] | None = None
    ) -> None:
        self.rank = rank
        self.count = players
        self.delay = delay
        self.setups: list[Setup] = []
        self.started: list[str] = []
        self.finished: list[str] = []

    @contextlib.asynccontextmanager
    async def players(self, setup: Setup) -> AsyncIterator[list[Player]]:
        self.setups.append(setup)

        async def play(game: Play) -> Played:
            self.started.append(game.game_id)
            await trio.sleep(self.delay(game) if self.delay else 0)
            places, faulted = self.rank(game)
            self.finished.append(game.game_id)
            return Played(game.game_id, result(game, places, faulted), 1.0, 2.0)

        yield [play] * self.count
