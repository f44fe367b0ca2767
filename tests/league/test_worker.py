"""What crosses between the league and its worker processes survives the trip, and
anything else is refused by name (issue 16.2, 16.3)."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from arena.bots import BotSpec, Limits
from arena.errors import ArenaError
from arena.messages import (
    FromWorker,
    MessageError,
    Play,
    Played,
    Reader,
    Setup,
    ToWorker,
    encode,
)
from arena.referee import Clocks, FaultRecord, RunSettings
from arena.rules import GameConfig
from arena.runners import WorkerPool

from .test_store_basics import finished


def roundtrip(message: msgspec.Struct, kind: object) -> object:
    reader = Reader(kind, "test")
    frame = encode(message)
    for i in range(len(frame)):  # split anywhere
        reader.feed(frame[i : i + 1])
    out = reader.next()
    assert reader.next() is None
    return out


def test_a_game_result_survives_the_wire() -> None:
    result = finished("g7", 9)
    result = dataclasses.replace(
        result, faults=(FaultRecord(1, "malformed", "bad bytes", b"\x00\xff", 12),)
    )
    played = Played("g7", result, 1.5, 2.5, b"zlib")
    assert roundtrip(played, FromWorker) == played


def test_bots_and_settings_survive_the_wire() -> None:
    spec = BotSpec("ann", ("python3", "bot.py"), Path("/x/ann"), ("make",))
    bare = BotSpec("cmd", ("./bot",), None)
    settings = RunSettings(
        clocks=Clocks(decision_ms=123, bank_ms=4000, increment_ms=7),
        limits=Limits(memory_mb=512, processes=None),
        max_frame=4096,
        fresh_process=True,
        log_dir=Path("/tmp/logs"),
        sandbox="bwrap",
        max_processes=9,
    )
    setup = Setup((spec, bare), settings, GameConfig(players=3))
    back = roundtrip(setup, ToWorker)
    assert back == setup
    assert isinstance(back, Setup)
    assert back.settings == settings  # data only: the sandbox crosses as its name
    play = Play("g1", ("ann", "cmd"), 2**64 - 1, "t0-d0")
    assert roundtrip(play, ToWorker) == play


@pytest.mark.parametrize(
    ("message", "kind", "match"),
    [
        (Play("g1", ("a",), 1, None), FromWorker, "not a message it understands"),
        (Played("g1", finished("g1", 1), 0.0, 1.0), ToWorker, "not a message it understands"),
        ({"type": "bogus"}, ToWorker, "Invalid value 'bogus'"),
        ({"type": "play", "game_id": 7}, ToWorker, r"Expected `str`, got `int` - at `\$.game_id`"),
    ],
)
def test_an_unknown_or_mismatched_message_is_refused_by_name(
    message: object, kind: object, match: str
) -> None:
    reader = Reader(kind, "test")
    body = msgspec.msgpack.encode(message)
    reader.feed(len(body).to_bytes(4, "big") + body)
    with pytest.raises(MessageError, match=match):
        reader.next()


async def test_a_worker_that_cannot_set_up_says_why_and_leaves_no_process(
    tmp_path: Path,
) -> None:
    """A worker whose set-up fails (here: a bot folder that is not there under the
    sandbox it names) reports it; the pool closes every worker."""
    settings = RunSettings(sandbox="no-such-sandbox")
    bot = BotSpec("ghost", ("./bot",), tmp_path / "ghost")
    setup = Setup((bot,), settings, GameConfig(players=2))
    pool = WorkerPool(2)
    failed = pytest.RaisesExc(ArenaError, match="a worker process failed: unknown sandbox")
    with pytest.RaisesGroup(failed, flatten_subgroups=True):
        async with pool.players(setup) as players:
            await players[0](Play("g1", ("ghost", "ghost"), 1, None))
    assert workers_of(os.getpid()) == []


def workers_of(parent: int) -> list[int]:
    """Worker processes whose parent is `parent`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if b"arena.worker" in cmdline and int(stat.rsplit(")", 1)[1].split()[1]) == parent:
                found.append(int(entry.name))
    return found


def test_a_worker_whose_coordinator_stops_before_its_setup_ends_quietly() -> None:
    """A league or an SPRT stopped (Ctrl-C, SIGTERM) just as it started its workers
    closes their input before it sends a setup: each worker printed a traceback
    (trio.EndOfChannel) onto the terminal under arena's "interrupted"."""
    done = subprocess.run(
        [sys.executable, "-m", "arena.worker"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


async def test_a_worker_interrupted_while_it_starts_prints_no_traceback(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """Found in a clean-clone run: a Ctrl-C at the terminal as a league started its
    workers reached one still importing arena, which printed a KeyboardInterrupt
    traceback under the league's "interrupted". A worker ignores SIGINT until it takes
    it itself; the league stops its workers (here: its input closed)."""
    import signal

    import trio

    from arena.runners import WorkerProcess

    setup = Setup((), RunSettings(), GameConfig(players=2))
    worker = await WorkerProcess.start(setup)  # at once: still importing
    worker._process.send_signal(signal.SIGINT)
    await worker._stdin.aclose()
    with trio.fail_after(60):
        await worker._process.wait()
    assert "Traceback" not in capfd.readouterr().err
    assert worker._process.returncode == 0
