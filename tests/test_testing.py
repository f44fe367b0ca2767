"""`arena.testing`: the doubles a bot author can use too (issue 43.5)."""

from __future__ import annotations

from typing import Any

import pytest

from arena.referee import Clocks
from arena.rules import GameConfig
from arena.testing import first_legal, play_policies


def last_legal(act: dict[str, Any]) -> int:
    return len(act["legal"]) - 1


async def test_a_policy_plays_whole_games_through_the_referee() -> None:
    """A Python policy (a function of the act) plays a whole game in memory, judged by
    the referee's own steps: the same game for the same seed, every seat placed."""
    config = GameConfig(players=3)
    first = await play_policies([last_legal, first_legal, last_legal], config, seed=7)
    again = await play_policies([last_legal, first_legal, last_legal], config, seed=7)
    assert first.faults == ()
    assert first.decisions > 0
    assert sorted(first.outcome.places)[0] == 1
    assert first.outcome.places == again.outcome.places
    assert first.decisions == again.decisions


async def test_a_policy_that_chooses_badly_is_charged_as_a_bot_would_be() -> None:
    def out_of_range(act: dict[str, Any]) -> int:
        return len(act["legal"])

    result = await play_policies([out_of_range, first_legal], seed=1, clocks=Clocks())
    assert [(f.seat, f.cause) for f in result.faults] == [(0, "illegal")]
    assert result.outcome.places[1] == 1


@pytest.mark.parametrize("players", [2, 6])
async def test_every_table_size_plays(players: int) -> None:
    result = await play_policies([first_legal] * players, GameConfig(players=players), seed=3)
    assert len(result.outcome.places) == players
