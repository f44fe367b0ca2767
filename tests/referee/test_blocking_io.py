"""`Connection`'s steps over real pipes, driven alone (`drive`, a poll loop for one):
the faults and their messages at the level of one exchange, and stopping at once.
Whole games over the same steps: test_referee_faults (trio driver, fake clock) and
test_subprocess (both drivers)."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator

import msgpack
import pytest
import trio
from hypothesis import example, given
from hypothesis import strategies as st

import protocol
from arena.errors import BotCrashed, BotMalformed, BotTimeout
from arena.referee import PipePort, _wire, memory_pair
from arena.referee._connection import Connection, Stopped, drive


class Pipes:
    """A connection over two real pipes; the test plays the bot at their other ends."""

    def __init__(self) -> None:
        self.to_bot_read, to_bot_write = os.pipe()
        from_bot_read, self.from_bot_write = os.pipe()
        self.stop_read, self.stop_write = os.pipe()
        self.connection = Connection(
            PipePort(
                trio.StapledStream(
                    trio.lowlevel.FdStream(to_bot_write), trio.lowlevel.FdStream(from_bot_read)
                )
            )
        )

    def answer(self, data: bytes) -> None:
        os.write(self.from_bot_write, data)

    def read_message(self) -> dict[str, object]:
        """The next message the referee sent (blocks until it is all there)."""
        decoder = protocol.FrameDecoder()
        while (message := decoder.next_message()) is None:
            decoder.feed(os.read(self.to_bot_read, 65536))
        return message

    @contextlib.contextmanager
    def bot(
        self, *chunks: bytes, delay: float = 0.0, close: bool = False
    ) -> Iterator[list[dict[str, object]]]:
        """A bot in a thread: it reads one message, then writes each of `chunks` after
        `delay` seconds (then closes its output, with `close`); the list it yields gets
        the message read."""
        read: list[dict[str, object]] = []

        def run() -> None:
            read.append(self.read_message())
            for chunk in chunks:
                time.sleep(delay)
                self.answer(chunk)
            if close:
                os.close(self.from_bot_write)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        try:
            yield read
        finally:
            thread.join(10)

    def close(self) -> None:
        for fd in (self.to_bot_read, self.from_bot_write, self.stop_read, self.stop_write):
            with contextlib.suppress(OSError):
                os.close(fd)


@pytest.fixture
def pipes() -> Iterator[Pipes]:
    p = Pipes()
    yield p
    p.close()


ACT = {"type": "act", "request_id": 1}


def frame(message: dict[str, object]) -> bytes:
    body = msgpack.packb(message)
    return len(body).to_bytes(4, "big") + body


NO_ACTION = r"^no action in time: waited \d+\.\d ms$"
"""A timeout's message without a limit given (the game gives it: test_referee_faults)."""


def soon(seconds: float = 0.2) -> float:
    return time.perf_counter() + seconds


async def test_an_answer_comes_back(pipes: Pipes) -> None:
    assert pipes.connection.pipe_fds() is not None
    with pipes.bot(frame({"type": "action", "request_id": 1, "choice": 0})) as read:
        reply = drive(pipes.connection.exchange_steps(ACT, "action", soon(5)), pipes.stop_read)
    assert reply == {"type": "action", "request_id": 1, "choice": 0}
    assert read == [ACT]


async def test_an_answer_in_pieces_is_put_together(pipes: Pipes) -> None:
    data = frame({"type": "action", "request_id": 1, "choice": 2})
    with pipes.bot(data[:3], data[3:7], data[7:], delay=0.02):
        reply = drive(pipes.connection.exchange_steps(ACT, "action", soon(5)), pipes.stop_read)
    assert reply["choice"] == 2


async def test_half_an_answer_by_the_deadline_is_a_timeout(pipes: Pipes) -> None:
    data = frame({"type": "action", "request_id": 1, "choice": 2})
    with (
        pipes.bot(data[:3], data[3:7]),
        pytest.raises(  # half a frame: a bot that did not flush, most likely
            BotTimeout,
            match=NO_ACTION[:-1] + r" \(3 bytes of a frame came after a length"
            r" prefix of \d+, and no more: a bot must flush stdout after each frame",
        ),
    ):
        drive(pipes.connection.exchange_steps(ACT, "action", soon(0.2)), pipes.stop_read)


async def test_no_answer_by_the_deadline_is_a_timeout(pipes: Pipes) -> None:
    with pytest.raises(BotTimeout, match=NO_ACTION):
        drive(pipes.connection.exchange_steps(ACT, "action", soon(0.1)), pipes.stop_read)


async def test_a_bot_that_stops_reading_times_out_while_sending(pipes: Pipes) -> None:
    big = {"type": "game_over", "events": ["x" * 1000] * 300}  # more than a pipe holds
    with pytest.raises(BotTimeout, match=r"^did not read its game_over message in time: waited \d"):
        drive(pipes.connection.send_steps(big, soon(0.1)), pipes.stop_read)
    with pytest.raises(BotTimeout, match=NO_ACTION[:-1] + r", its input full \(300,930 bytes"):
        drive(pipes.connection.exchange_steps(big, "action", soon(0.1)), pipes.stop_read)


async def test_a_closed_input_is_a_crash(pipes: Pipes) -> None:
    os.close(pipes.to_bot_read)
    with pytest.raises(BotCrashed, match=r"^pipe closed while sending act$"):
        drive(pipes.connection.exchange_steps(ACT, "action", soon()), pipes.stop_read)


async def test_a_closed_output_is_a_crash(pipes: Pipes) -> None:
    with (
        pipes.bot(frame({"type": "action"})[:6], close=True),
        pytest.raises(
            BotCrashed,
            match=r"^closed its output while the referee waited for action \(in the middle",
        ),
    ):
        drive(pipes.connection.exchange_steps(ACT, "action", soon(5)), pipes.stop_read)


async def test_an_output_closed_before_the_act_is_a_crash_not_an_early_answer(
    pipes: Pipes,
) -> None:
    os.close(pipes.from_bot_write)
    with pytest.raises(BotCrashed, match=r"^closed its output while the referee waited"):
        drive(pipes.connection.exchange_steps(ACT, "action", soon(5)), pipes.stop_read)


async def test_bad_bytes_are_malformed_with_the_bytes(pipes: Pipes) -> None:
    with pipes.bot(b"\x00\x00\x00\x02\xc1\xc1"), pytest.raises(BotMalformed) as caught:
        drive(pipes.connection.exchange_steps(ACT, "action", soon(5)), pipes.stop_read)
    assert str(caught.value).startswith("action: ")
    assert caught.value.detail == b"\x00\x00\x00\x02\xc1\xc1"


# A bot that prints to stdout sends text where a length prefix belongs: "got " is a
# frame of 1735357472 bytes. The fault said only that, which tells a newcomer nothing;
# it now says that the bytes are text, and where text goes.


async def test_text_printed_as_the_answer_is_named_as_text_on_stdout(pipes: Pipes) -> None:
    with pipes.bot(b"thinking 42\n"), pytest.raises(BotMalformed) as caught:
        drive(pipes.connection.exchange_steps(ACT, "action", soon(5)), pipes.stop_read)
    message = str(caught.value)
    assert message.startswith("action: frame of 1952999790 bytes exceeds the limit")
    assert "the text 'thin': the bot wrote text to stdout" in message
    assert "write debugging output to stderr, SPEC §3.6" in message


async def test_text_printed_before_the_act_is_named_as_text_on_stdout(pipes: Pipes) -> None:
    pipes.answer(b"new game\n")
    with pytest.raises(BotMalformed) as caught:
        drive(pipes.connection.exchange_steps(ACT, "action", soon(5)), pipes.stop_read)
    message = str(caught.value)
    assert "the text 'new ': the bot wrote text to stdout" in message
    assert "a frame sent" not in message


async def test_a_short_line_printed_before_the_frame_is_named_as_text(pipes: Pipes) -> None:
    """print(choice) before the frame: "3\\n" and the frame's first two bytes make the
    prefix, not text through and through; the fault said only "exceeds the limit" (and
    check-bot called it a little-endian prefix: tests/checker)."""
    answer = frame({"type": "action", "request_id": 1, "choice": 3})
    with pipes.bot(b"3\n" + answer), pytest.raises(BotMalformed) as caught:
        drive(pipes.connection.exchange_steps(ACT, "action", soon(5)), pipes.stop_read)
    message = str(caught.value)
    assert message.startswith("action: frame of 856293376 bytes exceeds the limit")
    assert "those 4 length bytes begin with the text '3\\n': the bot wrote text to stdout" in (
        message
    )


async def test_a_choice_printed_as_text_is_named_as_text_not_as_unflushed(
    pipes: Pipes,
) -> None:
    """print(choice) in place of the frame: 2 bytes, too few for a length prefix, so the
    timeout told the author to flush stdout, which they had done."""
    with pipes.bot(b"0\n"), pytest.raises(BotTimeout) as caught:
        drive(pipes.connection.exchange_steps(ACT, "action", soon(0.2)), pipes.stop_read)
    message = str(caught.value)
    assert message.endswith(
        " (the 2 bytes that came are the text '0\\n': the bot wrote text to stdout, which"
        " carries only frames; write debugging output to stderr, SPEC §3.6)"
    )
    assert "flush" not in message


async def test_a_short_prefix_that_is_no_text_still_hints_at_flushing(pipes: Pipes) -> None:
    with pipes.bot(b"\x00\x00"), pytest.raises(BotTimeout) as caught:
        drive(pipes.connection.exchange_steps(ACT, "action", soon(0.2)), pipes.stop_read)
    assert str(caught.value).endswith(" (a bot must flush stdout after each frame: SPEC §3.6)")


async def test_a_huge_length_that_is_no_text_is_not_called_text(pipes: Pipes) -> None:
    with pipes.bot(b"\xff\xff\xff\xf0" + b"x" * 10), pytest.raises(BotMalformed) as caught:
        drive(pipes.connection.exchange_steps(ACT, "action", soon(5)), pipes.stop_read)
    assert "exceeds the limit" in str(caught.value)
    assert "text" not in str(caught.value)


# SPEC §4.1: nothing comes from a bot between its answer and the next act. Its
# request_id is easy to foresee (one more each act), so an answer written ahead would
# otherwise be taken at once, in no time on its clock.


async def test_an_answer_written_before_the_act_is_malformed(pipes: Pipes) -> None:
    early = frame({"type": "action", "request_id": 1, "choice": 0})
    pipes.answer(early)
    with pytest.raises(
        BotMalformed, match=r"^action: a frame sent before it was asked for"
    ) as caught:
        drive(pipes.connection.exchange_steps(ACT, "action", soon(5)), pipes.stop_read)
    assert caught.value.detail == early
    os.set_blocking(pipes.to_bot_read, False)
    with pytest.raises(BlockingIOError):  # the act was never sent
        os.read(pipes.to_bot_read, 1000)


async def test_a_second_answer_sent_with_the_first_is_malformed_at_the_next_act(
    pipes: Pipes,
) -> None:
    both = frame({"type": "action", "request_id": 1, "choice": 0}) + frame(
        {"type": "action", "request_id": 2, "choice": 0}
    )
    with pipes.bot(both):
        reply = drive(pipes.connection.exchange_steps(ACT, "action", soon(5)), pipes.stop_read)
    assert reply["request_id"] == 1
    with pytest.raises(BotMalformed, match=r"SPEC §4\.1"):
        drive(
            pipes.connection.exchange_steps({"type": "act", "request_id": 2}, "action", soon(5)),
            pipes.stop_read,
        )


async def test_part_of_a_frame_left_after_an_answer_is_malformed_at_the_next_act(
    pipes: Pipes,
) -> None:
    extra = frame({"type": "action", "request_id": 2, "choice": 0})[:5]
    with pipes.bot(frame({"type": "action", "request_id": 1, "choice": 0}) + extra):
        drive(pipes.connection.exchange_steps(ACT, "action", soon(5)), pipes.stop_read)
    with pytest.raises(BotMalformed, match=r"SPEC §4\.1"):
        drive(
            pipes.connection.exchange_steps({"type": "act", "request_id": 2}, "action", soon(5)),
            pipes.stop_read,
        )


async def test_bytes_after_the_last_answer_in_its_write_are_held(pipes: Pipes) -> None:
    """What a bot wrote after its last answer, in the same write, is read with it and
    waits in the decoder: `held` gives it to check-bot's stdout check (after bye, no act
    follows to refuse it). Two bytes ("ok", printed after the frame) are no whole frame,
    only the start of one: held all the same."""
    answer = frame({"type": "action", "request_id": 1, "choice": 0})
    with pipes.bot(answer + b"ok"):
        drive(pipes.connection.exchange_steps(ACT, "action", soon(5)), pipes.stop_read)
    assert pipes.connection.held().endswith(b"ok")


def act_steps(pipes: Pipes, request_id: int) -> object:
    """The exchange of the act `request_id` as a game makes it (with its canonical answer,
    which tells the connection the act's id)."""
    act = {"type": "act", "request_id": request_id}
    canonical = (_wire.canonical_action(request_id), request_id)
    return drive(
        pipes.connection.exchange_steps(act, "action", soon(5), None, canonical), pipes.stop_read
    )


async def test_an_answer_written_ahead_is_named_as_the_answer_to_the_act_not_yet_sent(
    pipes: Pipes,
) -> None:
    """SPEC §4.1. The fault said "a frame sent before it was asked for", and check-bot
    added that "only an act takes an answer: hello, game_start and game_over take none":
    of a bot that had answered the act about to be sent, not any of those."""
    pipes.answer(frame({"type": "action", "request_id": 1, "choice": 0}))
    with pytest.raises(BotMalformed) as caught:
        act_steps(pipes, 1)
    assert str(caught.value) == (
        "action: a frame sent before it was asked for: an action for request_id 1, the act"
        " not yet sent (nothing may come between an answer and the next act: SPEC §4.1)"
    )


async def test_a_second_answer_is_named_as_an_answer_to_an_act_already_answered(
    pipes: Pipes,
) -> None:
    answer = frame({"type": "action", "request_id": 1, "choice": 0})
    with pipes.bot(answer + answer):
        assert act_steps(pipes, 1) == {"type": "action", "request_id": 1, "choice": 0}
    with pytest.raises(BotMalformed) as caught:
        act_steps(pipes, 2)
    assert ": an action for request_id 1, an act already answered (" in str(caught.value)


async def test_an_unasked_frame_that_answers_no_act_is_not_named_as_an_answer(
    pipes: Pipes,
) -> None:
    """An answer to game_start (request_id 0, or none): no act's."""
    pipes.answer(frame({"type": "action", "request_id": 0, "choice": 0}))
    with pytest.raises(BotMalformed) as caught:
        act_steps(pipes, 1)
    assert str(caught.value) == (
        "action: a frame sent before it was asked for (nothing may come between an answer"
        " and the next act: SPEC §4.1)"
    )


async def test_part_of_a_frame_before_the_act_is_called_part_of_a_frame(pipes: Pipes) -> None:
    pipes.answer(b"\x00\x00")
    with pytest.raises(BotMalformed) as caught:
        act_steps(pipes, 1)
    assert str(caught.value).startswith(
        "action: part of a frame (2 bytes) came before it was asked for (nothing may come"
    )


async def test_a_stop_wakes_the_wait_at_once(pipes: Pipes) -> None:
    os.write(pipes.stop_write, b"x")
    start = time.perf_counter()
    with pytest.raises(Stopped):
        drive(pipes.connection.exchange_steps(ACT, "action", soon(30)), pipes.stop_read)
    big = {"type": "game_over", "events": ["x" * 1000] * 300}
    with pytest.raises(Stopped):
        drive(pipes.connection.send_steps(big, soon(30)), pipes.stop_read)
    assert time.perf_counter() - start < 10


async def test_closed_pipes_have_no_descriptors(pipes: Pipes) -> None:
    """A closed stream's descriptor numbers are gone (trio's reads -1 then; the number
    itself may be another file's by now): neither the port nor its connection gives
    any."""
    port = pipes.connection.port
    assert port.fds() is not None
    await port.aclose()
    assert port.fds() is None
    await pipes.connection.aclose()
    assert pipes.connection.pipe_fds() is None


async def test_other_streams_have_no_pipes() -> None:
    port, _bot = memory_pair()
    assert Connection(port).pipe_fds() is None


# The `slow` hook: how the referee stops the other seats' processes once a decision has
# run for a while (SPEC §8.5), and only then.


async def test_a_quick_answer_never_calls_the_slow_hook(pipes: Pipes) -> None:
    calls: list[float] = []
    slow = (soon(0.5), lambda: calls.append(time.perf_counter()))
    with pipes.bot(frame({"type": "action", "request_id": 1, "choice": 0})):
        reply = drive(
            pipes.connection.exchange_steps(ACT, "action", soon(5), slow), pipes.stop_read
        )
    assert reply["choice"] == 0
    assert calls == []


async def test_a_slow_answer_calls_the_hook_once_and_still_counts(pipes: Pipes) -> None:
    calls: list[float] = []
    start = time.perf_counter()
    answer = threading.Timer(
        0.15, pipes.answer, [frame({"type": "action", "request_id": 1, "choice": 3})]
    )
    answer.start()
    try:
        slow = (soon(0.03), lambda: calls.append(time.perf_counter()))
        reply = drive(
            pipes.connection.exchange_steps(ACT, "action", soon(5), slow), pipes.stop_read
        )
    finally:
        answer.join()
    assert reply["choice"] == 3
    assert len(calls) == 1
    assert calls[0] - start >= 0.03


async def test_a_slow_mark_after_the_deadline_is_still_a_timeout(pipes: Pipes) -> None:
    calls: list[float] = []
    start = time.perf_counter()
    slow = (soon(10.0), lambda: calls.append(time.perf_counter()))
    with pytest.raises(BotTimeout, match=NO_ACTION):
        drive(pipes.connection.exchange_steps(ACT, "action", soon(0.1), slow), pipes.stop_read)
    assert time.perf_counter() - start < 5
    assert calls == []


async def test_a_stop_after_the_slow_mark_wakes_the_wait(pipes: Pipes) -> None:
    calls: list[float] = []
    stop = threading.Timer(0.1, os.write, [pipes.stop_write, b"x"])
    stop.start()
    try:
        slow = (soon(0.02), lambda: calls.append(time.perf_counter()))
        with pytest.raises(Stopped):
            drive(pipes.connection.exchange_steps(ACT, "action", soon(30), slow), pipes.stop_read)
    finally:
        stop.join()
    assert len(calls) == 1


# An answer written as SPEC §3.4 writes it is read without the decoder (the referee's
# common case); every other answer goes through the decoder as before.


@given(request_id=st.integers(0, 2**64 - 1), choice=st.integers(0, 127))
# Each width's edges: random ids of 0 to 2**64 - 1 nearly never fall on one (an id of
# 128 written in one byte, 0x80, is an empty map: a malformed answer taken as right).
@example(request_id=0x7F, choice=0)
@example(request_id=0x80, choice=0)
@example(request_id=0xFF, choice=0)
@example(request_id=0x100, choice=0)
@example(request_id=0xFFFF, choice=0)
@example(request_id=0x10000, choice=0)
@example(request_id=0xFFFFFFFF, choice=0)
@example(request_id=0x100000000, choice=0)
def test_the_canonical_action_is_the_encoders_own_bytes(request_id: int, choice: int) -> None:
    expected = protocol.encode_frame({"type": "action", "request_id": request_id, "choice": choice})
    assert _wire.canonical_action(request_id) + bytes([choice]) == expected


def act_canonically(pipes: Pipes, request_id: int) -> dict[str, object]:
    """Act `request_id` and take its answer, with the canonical answer's bytes given."""
    act = {"type": "act", "request_id": request_id}
    canonical = (_wire.canonical_action(request_id), request_id)
    return drive(
        pipes.connection.exchange_steps(act, "action", soon(5), None, canonical), pipes.stop_read
    )


@pytest.mark.parametrize(
    "answer",
    [
        {"type": "action", "request_id": 1, "choice": 3},  # the canonical bytes
        {"type": "action", "choice": 3, "request_id": 1},  # another order of keys
        {"type": "action", "request_id": 2, "choice": 3},  # another act's id
        {"type": "action", "request_id": 1, "choice": 200},  # a choice past a fixint
        {"type": "action", "request_id": 1, "choice": -1},
        {"type": "action", "request_id": 1, "choice": 3, "note": "x"},
    ],
)
async def test_an_answer_read_past_the_decoder_is_the_decoders_answer(
    pipes: Pipes, answer: dict[str, object]
) -> None:
    with pipes.bot(frame(answer)):
        reply = act_canonically(pipes, 1)
    assert reply == answer
    assert list(reply) == list(answer)


async def test_a_canonical_answer_in_pieces_goes_through_the_decoder(pipes: Pipes) -> None:
    data = frame({"type": "action", "request_id": 1, "choice": 2})
    assert data == _wire.canonical_action(1) + b"\x02"
    with pipes.bot(data[:3], data[3:], delay=0.02):
        reply = act_canonically(pipes, 1)
    assert reply == {"type": "action", "request_id": 1, "choice": 2}


async def test_a_second_answer_sent_with_a_canonical_first_is_malformed_at_the_next_act(
    pipes: Pipes,
) -> None:
    both = frame({"type": "action", "request_id": 1, "choice": 0}) + frame(
        {"type": "action", "request_id": 2, "choice": 0}
    )
    with pipes.bot(both):
        reply = act_canonically(pipes, 1)
    assert reply == {"type": "action", "request_id": 1, "choice": 0}
    with pytest.raises(BotMalformed, match=r"SPEC §4\.1"):
        act_canonically(pipes, 2)


async def test_a_canonical_answer_written_before_the_act_is_refused(pipes: Pipes) -> None:
    with pipes.bot(frame({"type": "action", "request_id": 1, "choice": 0})):
        act_canonically(pipes, 1)
    pipes.answer(_wire.canonical_action(2) + b"\x00")  # in the pipe before act 2 is sent
    with pytest.raises(BotMalformed, match=r"SPEC §4\.1"):
        act_canonically(pipes, 2)


async def test_a_canonical_answer_is_taken_without_the_decoder(pipes: Pipes) -> None:
    fed: list[bytes] = []

    class Watched(protocol.FrameDecoder):
        def feed(self, data: bytes | bytearray | memoryview) -> None:
            fed.append(bytes(data))
            super().feed(data)

    pipes.connection._decoder = Watched()
    with pipes.bot(frame({"type": "action", "request_id": 300, "choice": 5})):
        reply = act_canonically(pipes, 300)
    assert reply == {"type": "action", "request_id": 300, "choice": 5}
    assert fed == []
    assert pipes.connection.last_bytes == _wire.canonical_action(300) + b"\x05"
