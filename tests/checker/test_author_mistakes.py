"""`arena check-bot` against the mistakes a bot author new to arena makes, one a bot:
each is caught, and the report says what is wrong in the bot's own terms."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main

from ..sandbox.helpers import needs_bwrap

pytestmark = pytest.mark.subprocess

BOT = """\
import struct, sys, time
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
        version = "1" if MISTAKE != "long_version" else "build " + "x" * 4000 + "\x1b[2J"
        send({"type": "hello", "name": "Zoë", "version": version, "protocol": 1})
    elif MISTAKE == "answers_every_message" and kind != "bye":
        send({"type": "action", "request_id": message.get("request_id", 0), "choice": 0})
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
        request_id = message["request_id"]
        if MISTAKE == "prints_its_choice":  # the choice as text, not in a frame
            print(0, flush=True)
            continue
        if MISTAKE in ("prints_before_the_frame", "prints_and_pauses_before_the_frame"):
            print(0, flush=True)
            if MISTAKE == "prints_and_pauses_before_the_frame":
                time.sleep(0.1)  # the referee reads "0\\n" alone, then the frame
        if MISTAKE == "previous_request_id" and request_id > 1:
            request_id -= 1
        send({"type": "action", "request_id": request_id, "choice": 0})
    elif kind == "game_over" and MISTAKE == "one_game_only":
        sys.exit(0)
    elif kind == "bye":
        sys.exit(1 if MISTAKE == "exit_1_on_bye" else 0)
"""


def check(tmp_path: Path, mistake: str, *extra: str) -> tuple[int, str]:
    (tmp_path / "bot.py").write_text(BOT)
    (tmp_path / "bot.toml").write_text(f'name = "mine"\nrun = "python3 bot.py {mistake}"\n')
    tmp_path.chmod(0o755)  # the sandbox's user reads the folder
    result = CliRunner().invoke(
        main,
        ["check-bot", "--decision-ms", "2000", "--startup-ms", "3000", "--exit-grace-ms", "500",
         "--hello-wait-ms", "0", *extra, str(tmp_path)],
    )  # fmt: skip
    return result.exit_code, result.output


def failure(out: str) -> str:
    return next(line for line in out.splitlines() if "FAIL" in line)


def test_the_plain_bot_conforms(tmp_path: Path) -> None:
    code, out = check(tmp_path, "none", "--sandbox", "none")
    assert code == 0, out


def test_a_long_version_is_shown_cut_short_and_escaped(tmp_path: Path) -> None:
    """Found in an audit: check-bot printed a hello's version of 4,000 characters in
    full, in one line; SPEC §6.1 lets arena shorten it for display."""
    code, out = check(tmp_path, "long_version", "--sandbox", "none")
    assert code == 0, out
    line = next(line for line in out.splitlines() if "start-up" in line)
    assert "version 'build xxx" in line
    assert len(line) < 300, line
    assert "\x1b" not in line


def test_a_little_endian_length_prefix_is_told_to_be_big_endian(tmp_path: Path) -> None:
    """SPEC §3.1. The report said only "frame of 704643072 bytes exceeds the limit":
    the bytes, reversed, are the hello's own length."""
    code, out = check(tmp_path, "little_endian", "--sandbox", "none")
    assert code == 1, out
    fail = failure(out)
    assert fail.startswith("  FAIL  start-up: malformed: hello: frame of "), out
    assert "(read little-endian, those 4 bytes are 42, the size of the map that follows:" in fail
    assert "the length prefix is big-endian, most significant byte first, SPEC §3.1)" in fail


@pytest.mark.parametrize(
    "mistake", ["prints_before_the_frame", "prints_and_pauses_before_the_frame"]
)
def test_a_line_printed_before_the_frame_is_told_to_be_text_not_little_endian(
    tmp_path: Path, mistake: str
) -> None:
    """SPEC §3.6. print(0) before the frame: "0\\n" and the first two bytes of its
    prefix were read as a length, which the report called a little-endian prefix. The
    bytes shown begin at the "0\\n" whether it came in the frame's read or alone
    before it (they showed only the last read's: failed once in a clean-clone run)."""
    code, out = check(tmp_path, mistake, "--sandbox", "none")
    assert code == 1, out
    fail = failure(out)
    assert "little-endian" not in fail
    assert (
        "(those 4 length bytes begin with the text '0\\n': the bot wrote text to stdout,"
        " which carries only frames; write debugging output to stderr, SPEC §3.6)"
    ) in fail, out
    assert "bytes received: 30 0a 00 00 00 21 83 a4 74 79 70 65" in out


def test_a_choice_printed_in_place_of_the_frame_is_told_to_be_text_not_unflushed(
    tmp_path: Path,
) -> None:
    """SPEC §3.6. print(0) and no frame: 2 bytes, too few for a length prefix; the
    report told the author to flush stdout, and showed no bytes."""
    code, out = check(tmp_path, "prints_its_choice", "--sandbox", "none")
    assert code == 1, out
    fail = failure(out)
    assert "flush" not in fail
    assert "(the 2 bytes that came are the text '0\\n': the bot wrote text to stdout" in fail
    assert "bytes received: 30 0a\n" in out


def test_a_length_prefix_that_counts_characters_is_told_to_count_bytes(tmp_path: Path) -> None:
    """SPEC §3.1: N is the body's length in bytes. A hello named "Zoë" counted as text is
    one short; the report said only "Unpack failed: incomplete input"."""
    code, out = check(tmp_path, "counts_characters", "--sandbox", "none")
    assert code == 1, out
    fail = failure(out)
    assert "incomplete input (its length prefix says 41 bytes, and the map in it is 42" in fail
    assert "the prefix counts the bytes of the encoded body, not its characters" in fail


def test_a_length_prefix_that_promises_more_than_comes_is_not_put_down_to_flushing(
    tmp_path: Path,
) -> None:
    """A prefix one too big: the referee waits for a byte that never comes, and the
    timeout said only "a bot must flush stdout after each frame", which the bot does.
    The report now shows the frame that came and that it holds a whole map."""
    code, out = check(tmp_path, "one_too_many", "--sandbox", "none")
    assert code == 1, out
    fail = failure(out)
    assert fail.startswith("  FAIL  start-up: timeout: no hello within 3,000 ms"), out
    assert "must flush" not in fail
    assert (
        "(42 bytes of a frame's body had come after a length prefix of 43, and they hold a"
        " whole map: the prefix is wrong: it counts the bytes of the encoded body"
    ) in fail
    assert "bytes received: 00 00 00 2b 84 a4 74 79 70 65" in out


def test_a_bot_that_crashes_on_its_first_act_of_a_game_is_told_it_got_the_act(
    tmp_path: Path,
) -> None:
    """A bot that crashed on the first act of a 1980 game was told that "the messages it
    was last sent were the game_over of game 3 and this game's game_start": the act,
    where its traceback was, went unmentioned. And its stderr was shown twice (in the
    line, joined with '|', and below it); now once, in full lines."""
    code, out = check(tmp_path, "no_1980", "--sandbox", "none")
    assert code == 1, out
    fail = failure(out)
    assert fail.startswith("  FAIL  game 4: 1980 single, 3 seats, ONO on tens, seat 2:"), out
    assert "crash after 0 good decisions: closed its output while the referee waited for" in fail
    assert "the messages it was last sent were" not in fail
    assert (
        "(it made no decision in this game: since its last decision it was sent the game_over"
        " of game 3, this game's game_start and its first act)"
    ) in fail
    assert "its stderr ended" not in fail
    assert out.count("ValueError: no 1980 strategy yet") == 1
    assert "the bot's stderr ended with (check-bot --log-dir DIR keeps all of it):" in out
    assert "| ValueError: no 1980 strategy yet" in out


def test_with_a_log_dir_the_report_names_the_file_with_all_of_the_bots_stderr(
    tmp_path: Path,
) -> None:
    """The report shows the last 8 lines of the bot's stderr and its log went with the
    check: `--log-dir` kept the build's output only. It keeps the stderr too, and a
    failed check names the file; an earlier check's lines are not shown as this one's."""
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "mine.log").write_text("an earlier check's last words\n")
    bot = tmp_path / "bot"
    bot.mkdir()
    code, out = check(bot, "no_1980", "--sandbox", "none", "--log-dir", str(logs))
    assert code == 1, out
    assert f"the bot's stderr ended with (all of it is in {logs / 'mine.log'}):" in out
    assert "an earlier check's" not in out
    log = (logs / "mine.log").read_text()
    assert log.startswith("an earlier check's last words\n")
    assert "line 1\nline 2\n" in log
    assert "ValueError: no 1980 strategy yet" in log


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


@needs_bwrap
def test_a_bot_that_writes_to_its_folder_is_told_that_the_folder_is_read_only(
    tmp_path: Path,
) -> None:
    """SPEC §14.4: in the sandbox (as in a league) the bot's folder is read-only and a
    bot writes only under its own /tmp. The report showed the OSError and no more."""
    code, out = check(tmp_path, "writes_its_folder", "--sandbox", "bwrap")
    assert code == 1, out
    fail = failure(out)
    assert "the bot's folder is read-only: a bot writes only under /tmp" in fail
    assert "SPEC §14.4" in fail


def test_a_bot_that_exits_with_status_1_on_bye_is_told_the_status_it_must_give(
    tmp_path: Path,
) -> None:
    """SPEC §4.4: after bye a bot exits with status 0. The report said "exited with status
    1 after bye", not what was expected instead."""
    code, out = check(tmp_path, "exit_1_on_bye", "--sandbox", "none")
    assert code == 1, out
    assert failure(out) == (
        "  FAIL  bye: exited with status 1 after bye: a bot exits with status 0 after bye,"
        " the end of a session that went well"
    )


def test_a_bot_that_answers_every_message_is_told_that_only_an_act_takes_one(
    tmp_path: Path,
) -> None:
    """SPEC §4.1. Its answer to game_start came as the act was written, and was taken
    for the act's: "action.request_id: expected 1, got int 0", and no more."""
    code, out = check(tmp_path, "answers_every_message")
    assert code == 1, out
    fail = failure(out)
    assert fail.startswith("  FAIL  game 1: "), out
    assert "request_id: expected 1, got int 0" in fail or "sent before it was asked" in fail
    assert "only an act takes an answer: hello, game_start and game_over take none" in fail


def test_a_bot_that_answers_with_the_previous_acts_request_id_is_told_so(
    tmp_path: Path,
) -> None:
    code, out = check(tmp_path, "previous_request_id", "--sandbox", "none")
    assert code == 1, out
    fail = failure(out)
    assert "malformed after 1 good decisions: action.request_id: expected 2, got int 1" in fail
    assert "(the previous act's: an action copies the request_id of the act it answers" in fail


def test_a_bot_that_leaves_after_its_first_game_is_not_told_of_the_padding(
    tmp_path: Path,
) -> None:
    """A bot that exits with status 0 at its first game_over meant to: the note on that
    game_over's padding to 256 KiB (for a bot that chokes on a big frame) misled."""
    code, out = check(tmp_path, "one_game_only", "--sandbox", "none")
    assert code == 1, out
    fail = failure(out)
    assert fail.startswith("  FAIL  after game 1: exited with status 0 after the game_over"), out
    assert "padded" not in fail
    assert "a bot reads every message and exits only after bye or at the end of its stdin" in fail


def test_a_run_command_that_names_a_missing_file_says_how_the_bot_ended(tmp_path: Path) -> None:
    """`run = "python3 main.py"` in a folder with bot.py: Python says it on stderr and
    exits with status 2; the start-up's failure said only "closed its output while the
    referee waited for hello" (a crash during a game tells the status)."""
    (tmp_path / "bot.py").write_text(BOT)
    (tmp_path / "bot.toml").write_text('name = "mine"\nrun = "python3 main.py"\n')
    result = CliRunner().invoke(main, ["check-bot", "--sandbox", "none", str(tmp_path)])
    assert result.exit_code == 1, result.output
    fail = failure(result.output)  # (it may be gone before the referee's hello is written)
    assert fail.startswith("  FAIL  start-up: crash: "), result.output
    assert fail.endswith(" hello: the process exited with status 2"), fail
    assert "can't open file" in result.output


def test_a_full_log_is_said_to_be_full(tmp_path: Path) -> None:
    """A log is appended to up to its cap (1 MiB): an author who checks again and again
    with one --log-dir found no stderr in the report, and none in the file, without a
    word on why."""
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "mine.log").write_bytes(b"x" * (1024 * 1024))
    bot = tmp_path / "bot"
    bot.mkdir()
    code, out = check(bot, "no_1980", "--sandbox", "none", "--log-dir", str(logs))
    assert code == 1, out
    assert (
        f"the bot's stderr is kept in {logs / 'mine.log'} (it is full, at 1,024 KiB: what the"
        " bot wrote after that was dropped; remove the file, or give another --log-dir)"
    ) in out
