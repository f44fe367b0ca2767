"""Game runners that answer without playing: for testing what drives games (a league,
an SPRT, a ladder) in no time, with results of a known shape."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable

import trio

from arena.messages import Play, Played, Setup
from arena.referee import FaultRecord, GameResult
from arena.rules import EndReason, GameConfig, Outcome
from arena.runners import Player

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

    async def build_bots(self, specs: object, settings: object) -> None:
        """The bots are built by the caller (nothing is built for a scripted game)."""
        return None

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
