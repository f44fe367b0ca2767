"""The Python kit replays the golden game transcripts (protocol/vectors/games/).

For every seat of every transcript, the referee's side of the session is rebuilt as
frames with the kit's codec: the vectors' hello, the seat's game_start, its acts, its
game_over, bye. ``protocol.bot.run`` reads them as a bot would; its ``choose`` sees
each act exactly as the transcript has it and answers the transcript's choice, and
every action the kit writes is the transcript's, byte for byte, and what the
referee accepts.
"""

from __future__ import annotations

import io
from typing import Any

import pytest

import protocol
from protocol import ActMsg, FrameDecoder, GameOverMsg, GameStartMsg, decode_frame, encode_frame
from protocol.bot import run

from .conftest import game_lines, game_names, vector_bytes

CASES = [
    (name, seat)
    for name in game_names()
    for seat in range(game_lines(name)[0]["config"]["players"])
]


def _frames(data: bytes) -> list[bytes]:
    out = []
    while data:
        size = 4 + int.from_bytes(data[:4], "big")
        out.append(data[:size])
        data = data[size:]
    return out


@pytest.mark.parametrize(("name", "seat"), CASES, ids=[f"{n}-seat{s}" for n, s in CASES])
def test_kit_replays_a_seat(name: str, seat: int) -> None:
    _, start, *steps, end = game_lines(name)
    mine = [step for step in steps if step["seat"] == seat]
    referee = [
        vector_bytes("referee_hello"),
        encode_frame(start["game_start"][seat]),
        *(encode_frame(step["act"]) for step in mine),
        encode_frame(end["game_over"][seat]),
        vector_bytes("bye"),
    ]
    for frame, message in zip(
        referee[1:-1],
        [start["game_start"][seat], *(s["act"] for s in mine), end["game_over"][seat]],
        strict=True,
    ):
        assert decode_frame(frame, max_frame=protocol.MAX_REFEREE_FRAME) == message

    acts: list[ActMsg] = []
    starts: list[GameStartMsg] = []
    overs: list[GameOverMsg] = []

    def choose(act: ActMsg) -> int:
        step = mine[len(acts)]
        acts.append(act)
        assert act == step["act"]
        assert act["legal"][step["action"]["choice"]] == step["chosen"]
        choice: int = step["action"]["choice"]
        return choice

    stdout = io.BytesIO()
    run(
        choose,
        name=f"bot{seat}",
        on_game_start=starts.append,
        on_game_over=overs.append,
        stdin=io.BytesIO(b"".join(referee)),
        stdout=stdout,
    )
    assert starts == [start["game_start"][seat]]
    assert overs == [end["game_over"][seat]]
    assert len(acts) == len(mine)

    written = _frames(stdout.getvalue())[1:]  # after the bot's hello
    assert len(written) == len(mine)
    for frame, step in zip(written, mine, strict=True):
        expected: dict[str, Any] = step["action"]
        assert frame == encode_frame(expected)
        decoder = FrameDecoder()
        decoder.feed(frame)
        message = decoder.next_message()
        assert message == expected
        action = protocol.parse_bot_action(
            message,
            request_id=step["act"]["request_id"],
            legal_count=len(step["act"]["legal"]),
        )
        assert action.choice == expected["choice"]
