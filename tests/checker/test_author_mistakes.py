"""`arena check-bot` against the mistakes a bot author new to arena makes, one a bot:
each is caught, and the report says what is wrong in the bot's own terms."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main

pytestmark = pytest.mark.subprocess

BOT = """\
import struct, sys
import msgpack

MISTAKE = sys.argv[1]
edition = None


def read_exactly(n):
    data = b""
    while len(data) < n:
        chunk = sys.stdin.buffer.read(n - len(data))
        if not chunk:
            sys.exit(0)
        data += chunk
    return data


def send(message):
    body = msgpack.packb(message)
    if MISTAKE == "little_endian":
        prefix = struct.pack("<I", len(body))
    elif MISTAKE == "counts_characters":  # the body's length as text, not bytes
        prefix = struct.pack(">I", len(body.decode("utf-8", errors="replace")))
    elif MISTAKE == "one_too_many":
        prefix = struct.pack(">I", len(body) + 1)
    else:
        prefix = struct.pack(">I", len(body))
    sys.stdout.buffer.write(prefix + body)
    sys.stdout.buffer.flush()


while True:
    (n,) = struct.unpack(">I", read_exactly(4))
    message = msgpack.unpackb(read_exactly(n))
    kind = message["type"]
    if kind == "hello":
        send({"type": "hello", "name": "Zoë", "version": "1", "protocol": 1})
    elif kind == "game_start":
        edition = message["edition"]
    elif kind == "act":
        if MISTAKE == "no_1980" and edition == "1980":
            sys.stderr.write("line 1\\nline 2\\n")
            raise ValueError("no 1980 strategy yet")
        if MISTAKE == "no_reshuffle":
            for event in message["events"]:
                handle = {"round_start": 0, "play": 0, "draw": 0, "owes_two": 0,
                          "eliminated": 0, "quad": 0, "bust": 0, "token_lost": 0,
                          "round_end": 0, "out_of_round": 0}
                handle[event["type"]]  # KeyError on a reshuffle
        if MISTAKE == "writes_its_folder":
            with open("memory.txt", "a") as file:
                file.write("seen\\n")
        send({"type": "action", "request_id": message["request_id"], "choice": 0})
    elif kind == "bye":
        sys.exit(0)
"""


def check(tmp_path: Path, mistake: str, *extra: str) -> tuple[int, str]:
    (tmp_path / "bot.py").write_text(BOT)
    (tmp_path / "bot.toml").write_text(f'name = "mine"\nrun = "python3 bot.py {mistake}"\n')
    tmp_path.chmod(0o755)  # the sandbox's user reads the folder
    result = CliRunner().invoke(
        main,
        ["check-bot", "--decision-ms", "500", "--startup-ms", "3000", "--exit-grace-ms", "500",
         "--hello-wait-ms", "0", *extra, str(tmp_path)],
    )  # fmt: skip
    return result.exit_code, result.output


def failure(out: str) -> str:
    return next(line for line in out.splitlines() if "FAIL" in line)


def test_the_plain_bot_conforms(tmp_path: Path) -> None:
    code, out = check(tmp_path, "none", "--sandbox", "none")
    assert code == 0, out


def test_a_bot_that_fails_on_a_reshuffle_fails(tmp_path: Path) -> None:
    """R4.3, SPEC §7.4: when the draw pile runs out the discard pile is shuffled into a
    new one (a `reshuffle` event). No game of check-bot's plan ran out of cards (2022's
    112, or 1980's 54 at tables of 2 to 4), so a bot that broke on the event passed,
    and crashed in nearly every 1980 game at 6 seats of a league (a draw pile of 30)."""
    code, out = check(tmp_path, "no_reshuffle", "--sandbox", "none")
    assert code == 1, out
    fail = failure(out)
    assert fail.startswith("  FAIL  game 11: 1980 single, 6 seats, the draw pile runs out"), out
    assert "| KeyError: 'reshuffle'" in out
