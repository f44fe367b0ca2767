"""`arena.testing.play_seeing`: the perfect-information control of issue 46.5. One
seat's acts carry every hand; no other seat's, and no game played by arena itself;
and nothing outside `arena.testing` can switch it on."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

import arena
from arena.rules import Edition, Format, GameConfig
from arena.testing import first_legal, play_policies, play_seeing
from arena.testing._seeing import KEY

Act = dict[str, Any]


def recorder(seat: int, log: list[tuple[int, Act]], choose: int = 0) -> Any:
    def policy(act: Act) -> int:
        log.append((seat, act))
        return choose if choose < len(act["legal"]) else len(act["legal"]) - 1

    return policy


async def test_the_seeing_seat_is_shown_the_hands_the_others_then_hold() -> None:
    """Heads-up, seat 1's hand does not change between seat 0's act and seat 1's next
    one: what seat 0 was shown of it is what seat 1 is then dealt to play from."""
    log: list[tuple[int, Act]] = []
    config = GameConfig(players=2)
    result, port = await play_seeing([recorder(0, log), recorder(1, log, 9)], config, 3, 0)
    assert result.faults == ()
    seen = [(i, act) for i, (seat, act) in enumerate(log) if seat == 0]
    assert port.shown == len(seen) > 5
    assert port.mismatches == 0
    checked = 0
    for i, act in seen:
        hands = act[KEY]
        assert sorted(hands[0]) == sorted(act["observation"]["hand"])
        assert [len(h) for h in hands] == act["observation"]["hand_sizes"]
        later = next((a for seat, a in log[i + 1 :] if seat == 1), None)
        if later is not None:
            assert sorted(hands[1]) == sorted(later["observation"]["hand"])
            checked += 1
    assert checked > 5


@pytest.mark.parametrize(
    ("players", "edition", "fmt"),
    [
        (3, Edition.E2022, Format.SINGLE),
        (4, Edition.E1980, Format.TOKENS),
        (3, Edition.E2022, Format.POINTS),
        (6, Edition.E1980, Format.POINTS),
    ],
)
async def test_the_replayed_game_follows_every_edition_and_format(
    players: int, edition: Edition, fmt: Format
) -> None:
    """Rounds, busts, quads and reshuffles: the hook's copy of the game never strays
    (every act of the seeing seat carries the hands)."""
    config = GameConfig(players=players, edition=edition, format=fmt)
    log: list[tuple[int, Act]] = []
    policies = [recorder(s, log, s % 3) for s in range(players)]
    _, port = await play_seeing(policies, config, 11, players - 1)
    acts = [act for seat, act in log if seat == players - 1]
    assert port.mismatches == 0
    assert port.shown == len(acts) > 0
    assert all(KEY in act for act in acts)


async def test_no_other_seat_and_no_ordinary_game_carries_the_hands() -> None:
    log: list[tuple[int, Act]] = []
    await play_seeing(
        [recorder(0, log), recorder(1, log), first_legal], GameConfig(players=3), 4, 2
    )
    assert log
    assert all(KEY not in act for _, act in log)
    ordinary: list[tuple[int, Act]] = []
    await play_policies([recorder(0, ordinary), recorder(1, ordinary)], seed=4)
    assert ordinary
    assert all(KEY not in act for _, act in ordinary)


def test_nothing_outside_arena_testing_can_switch_it_on() -> None:
    """No command, league file or bot.toml reaches the hook: no module of arena outside
    arena.testing imports arena.testing, and none of them names the key."""
    root = Path(arena.__file__).parent
    sources = [p for p in root.rglob("*.py") if "testing" not in p.relative_to(root).parts]
    assert len(sources) > 20
    for path in sources:
        text = path.read_text()
        assert KEY not in text, path
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom):
                assert not (node.module or "").startswith("arena.testing"), path
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith("arena.testing") for a in node.names), path
