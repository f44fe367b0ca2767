"""protocol.bot: the session loop for Python bots, over in-memory streams."""

from __future__ import annotations

import io
import subprocess
import sys
from typing import Any

import pytest

from protocol import (
    ActMsg,
    FrameDecoder,
    FrameError,
    FrameTooLarge,
    GameOverMsg,
    GameStartMsg,
    MessageError,
    RefereeHelloMsg,
    encode_frame,
)
from protocol.bot import read_message, run, write_message

from .conftest import load_index, vector_bytes, vector_json

SESSION = [name for name in load_index()["session"] if name is not None]
REFEREE_FRAMES = [vector_bytes(n) for n in SESSION if not n.startswith(("bot_", "action_"))]
ACTS = [vector_json(n) for n in SESSION if n.startswith("act_")]


def first(act: ActMsg) -> int:
    return 0


def decode_all(data: bytes) -> list[dict[str, Any]]:
    decoder = FrameDecoder()
    decoder.feed(data)
    messages = list(decoder)
    assert not decoder.partial
    return messages


def play(
    frames: list[bytes], choose: Any = first, **kwargs: Any
) -> tuple[list[dict[str, Any]], io.BytesIO]:
    stdin = io.BytesIO(b"".join(frames))
    stdout = io.BytesIO()
    run(choose, name="tester", stdin=stdin, stdout=stdout, **kwargs)
    return decode_all(stdout.getvalue()), stdin


def test_a_whole_session() -> None:
    seen: list[int] = []

    def choose(act: ActMsg) -> int:
        seen.append(act["request_id"])
        return len(act["legal"]) - 1

    out, stdin = play(REFEREE_FRAMES, choose)
    assert out[0] == {"type": "hello", "name": "tester", "version": "1.0", "protocol": 1}
    assert out[1:] == [
        {"type": "action", "request_id": act["request_id"], "choice": len(act["legal"]) - 1}
        for act in ACTS
    ]
    assert seen == [act["request_id"] for act in ACTS]
    assert stdin.read() == b""


def test_bot_hello_is_canonical() -> None:
    stdout = io.BytesIO()
    run(first, name="random", stdin=io.BytesIO(REFEREE_FRAMES[0]), stdout=stdout)
    assert stdout.getvalue() == vector_bytes("bot_hello")


def test_hooks_get_their_messages() -> None:
    got: list[str] = []

    def on_hello(message: RefereeHelloMsg) -> None:
        got.append(f"hello {message['limits']['decision_ms']}")

    def on_game_start(message: GameStartMsg) -> None:
        got.append(f"start {message['game_id']}")

    def on_game_over(message: GameOverMsg) -> None:
        got.append(f"over {message['places']}")

    play(REFEREE_FRAMES, on_hello=on_hello, on_game_start=on_game_start, on_game_over=on_game_over)
    assert got == [
        "hello 1000",
        "start demo-0001",
        "over [2, 1, 3]",
        "start demo-0002",
        "over [2, 1, 2, 4]",
        "start demo-0003",
        "over [1, 2, 3]",
    ]


def test_stops_at_bye_and_leaves_the_rest_unread() -> None:
    trailing = encode_frame({"type": "act"})
    out, stdin = play([*REFEREE_FRAMES, trailing])
    assert len(out) == 1 + len(ACTS)
    assert stdin.read() == trailing


@pytest.mark.parametrize("cut", [0, 1, 2])
def test_end_of_input_ends_the_session_quietly(cut: int) -> None:
    out, _ = play(REFEREE_FRAMES[:cut])
    assert len(out) == min(cut, 1)


def test_end_of_input_inside_a_frame_is_an_error() -> None:
    with pytest.raises(FrameError, match="ended"):
        play([REFEREE_FRAMES[0][:-1]])
    with pytest.raises(FrameError, match="prefix"):
        play([REFEREE_FRAMES[0], b"\x00\x00"])


def test_unknown_message_types_are_skipped(capsys: pytest.CaptureFixture[str]) -> None:
    frames = list(REFEREE_FRAMES)
    frames.insert(2, encode_frame({"type": "weather", "sunny": True}))
    out, _ = play(frames)
    assert len(out) == 1 + len(ACTS)
    assert "unknown type 'weather'" in capsys.readouterr().err


def test_unknown_keys_are_ignored() -> None:
    act = {**vector_json("act_2022_single"), "future": {"x": 1}}
    out, _ = play([REFEREE_FRAMES[0], encode_frame(act)])
    assert out[1]["request_id"] == 1


def test_first_message_must_be_hello() -> None:
    with pytest.raises(MessageError, match="first message must be hello"):
        play([REFEREE_FRAMES[1]])


def test_a_second_hello_is_an_error() -> None:
    with pytest.raises(MessageError, match="second hello"):
        play([REFEREE_FRAMES[0], REFEREE_FRAMES[0]])


def test_invalid_acts_are_caught_unless_checking_is_off() -> None:
    act = vector_json("act_2022_single")
    act["observation"]["total"] = "eight"
    frames = [REFEREE_FRAMES[0], encode_frame(act)]
    with pytest.raises(MessageError, match=r"act\.observation\.total"):
        play(frames)
    out, _ = play(frames, check=False)
    assert out[1]["choice"] == 0


def test_referee_frames_up_to_16_mib_are_read() -> None:
    with pytest.raises(FrameTooLarge):
        play([REFEREE_FRAMES[0], (16 * 1024 * 1024 + 1).to_bytes(4, "big")])


class Index:
    """An int-like object, as numpy returns: accepted through __index__."""

    def __index__(self) -> int:
        return 2


@pytest.mark.parametrize(
    ("returned", "fragment"),
    [(3, "indexes 0..2"), (-1, "indexes 0..2"), (True, "int index"), ("1", "int index")],
)
def test_a_bad_choice_is_reported_clearly(returned: Any, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        play(REFEREE_FRAMES[:3], lambda act: returned)


def test_int_like_choices_are_accepted() -> None:
    out, _ = play(REFEREE_FRAMES[:3], lambda act: Index())
    assert out[1]["choice"] == 2


def test_bad_names_are_refused_before_anything_is_read() -> None:
    for name in ("", "x" * 65):
        with pytest.raises(ValueError, match="1 to 64"):
            run(first, name=name, stdin=io.BytesIO(), stdout=io.BytesIO())


class Trickle(io.RawIOBase):
    """A stream that returns at most one byte per read, like a slow pipe."""

    def __init__(self, data: bytes) -> None:
        self.data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        return self.data.read(min(size, 1))


def test_read_message_copes_with_short_reads() -> None:
    stream = Trickle(b"".join(REFEREE_FRAMES[:3]))
    assert read_message(stream) == vector_json("referee_hello")
    assert read_message(stream) == vector_json("game_start_2022_single")
    assert read_message(stream) == vector_json("act_2022_single")
    assert read_message(stream) is None


def test_write_message_flushes() -> None:
    class Recorder(io.BytesIO):
        flushed = 0

        def flush(self) -> None:
            self.flushed += 1

    out = Recorder()
    write_message(out, vector_json("action_2022_single"))
    assert out.getvalue() == vector_bytes("action_2022_single")
    assert out.flushed == 1


class BrokenPipe(io.BytesIO):
    def write(self, data: Any) -> int:
        raise BrokenPipeError


def test_a_closed_stdout_stops_the_bot_quietly(capsys: pytest.CaptureFixture[str]) -> None:
    run(first, name="tester", stdin=io.BytesIO(REFEREE_FRAMES[0]), stdout=BrokenPipe())
    assert "stdout closed" in capsys.readouterr().err


def test_print_goes_to_stderr_while_the_real_stdout_carries_frames(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(b"".join(REFEREE_FRAMES[:3])))
    stdout = io.TextIOWrapper(io.BytesIO())
    stderr = io.StringIO()
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(sys, "stdout", stdout)
    monkeypatch.setattr(sys, "stderr", stderr)

    def chatty(act: ActMsg) -> int:
        print("thinking about", act["request_id"])
        return 0

    run(chatty, name="chatty")
    assert sys.stdout is stdout
    stdout.flush()
    raw = stdout.buffer
    assert isinstance(raw, io.BytesIO)
    assert [m["type"] for m in decode_all(raw.getvalue())] == ["hello", "action"]
    assert "thinking about 1" in stderr.getvalue()


QUICK_BOT = """
import atexit, sys
from protocol.bot import run
atexit.register(lambda: sys.stderr.write("[atexit ran]"))
sys.stderr.write("[no newline, still buffered]")
run(lambda act: 0, name="quick", exit_at_end={exit_at_end})
sys.stderr.write("[after run]")
"""


@pytest.mark.subprocess
@pytest.mark.parametrize(
    ("exit_at_end", "frames", "status", "stderr"),
    [
        # bye, and the end of stdin: the process ends in run(), after atexit and a flush
        (True, REFEREE_FRAMES, 0, "[no newline, still buffered][atexit ran]"),
        (True, REFEREE_FRAMES[:2], 0, "[no newline, still buffered][atexit ran]"),
        # without it, run() returns and the code after it runs
        (False, REFEREE_FRAMES, 0, "[no newline, still buffered][after run][atexit ran]"),
        # a broken stream raises as ever: a traceback, status 1, atexit at the real exit
        (True, [REFEREE_FRAMES[0], b"\0\0\0\1\xc1"], 1, "Traceback"),
    ],
)
def test_exit_at_end_ends_the_process_in_run(
    exit_at_end: bool, frames: list[bytes], status: int, stderr: str
) -> None:
    """A real process: `exit_at_end` skips the interpreter's teardown but loses nothing
    the bot wrote, and keeps atexit; it never hides an error."""
    result = subprocess.run(
        [sys.executable, "-c", QUICK_BOT.format(exit_at_end=exit_at_end)],
        input=b"".join(frames),
        capture_output=True,
        timeout=30,
    )
    err = result.stderr.decode()
    assert result.returncode == status, err
    if status == 0:
        assert err == stderr
    else:
        assert stderr in err
        assert "[after run]" not in err
        assert err.endswith("[atexit ran]")
    assert result.stdout.startswith(
        encode_frame({"type": "hello", "name": "quick", "version": "1.0", "protocol": 1})
    )
