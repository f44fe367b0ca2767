"""Tiny bot programs that misbehave on purpose, for real-process tests of a referee
or a tool: `python -c SCRIPT PIDFILE` (`script`, `spec`; `BEHAVIOURS` lists them).

Each writes its pid (and any child's) to PIDFILE, so a test can check that nothing
is left running afterwards.
"""

from __future__ import annotations

import sys
from pathlib import Path

from arena.bots import BotSpec

_TEMPLATE = """
import os, signal, sys, time, msgpack
r, w = sys.stdin.buffer, sys.stdout.buffer
try:  # under the sandbox the bot cannot write there: fine
    with open(sys.argv[1], "a") as f:
        f.write(f"{{os.getpid()}}\\n")
except OSError:
    pass
def read():
    h = r.read(4)
    if len(h) < 4:
        {on_eof}
    return msgpack.unpackb(r.read(int.from_bytes(h, "big")))
def send(m):
    b = msgpack.packb(m)
    w.write(len(b).to_bytes(4, "big") + b)
    w.flush()
acts = 0
games = 0
{prelude}
while True:
    m = read()
    t = m["type"]
    if t == "hello":
        {on_hello}
    elif t == "game_start":
        {on_game_start}
    elif t == "act":
        acts += 1
        {on_act}
    elif t == "game_over":
        games += 1
        {on_game_over}
    elif t == "bye":
        {on_bye}
"""

ANSWER = 'send({"type": "action", "request_id": m["request_id"], "choice": 0})'
HELLO = 'send({"type": "hello", "name": "t", "version": "1", "protocol": 1})'
BEHAVIOURS: dict[str, dict[str, str]] = {
    "good": {},
    "hang": {"on_act": "time.sleep(1000)"},
    "crash_at_start": {"prelude": "sys.exit(3)"},
    "crash_mid_game": {"on_act": f"if acts > 2: os._exit(1)\n        {ANSWER}"},
    "raises_mid_game": {"on_act": f"if acts > 2: print(1 / 0)\n        {ANSWER}"},
    "exit_zero_mid_game": {"on_act": f"if acts > 2: sys.exit(0)\n        {ANSWER}"},
    "garbage": {"on_act": 'w.write(b"\\x00\\x00\\x00\\x05hello"); w.flush()'},
    "huge_length": {"on_act": 'w.write(b"\\xff\\xff\\xff\\xf0" + b"x" * 100); w.flush()'},
    "flood_stdout": {"on_act": 'while True: w.write(b"\\x00\\x00\\x00\\x01\\x80" * 8192)'},
    "flood_stderr": {
        "on_act": f'sys.stderr.buffer.write(b"e" * 4_000_000); sys.stderr.flush()\n        {ANSWER}'
    },
    "fork_child": {
        "prelude": (
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    time.sleep(1000)\n"
            "    os._exit(0)\n"
            "try:\n"
            "    with open(sys.argv[1], 'a') as f:\n"
            "        f.write(f'{pid}\\n')\n"
            "except OSError:\n"
            "    pass"
        )
    },
    "ignore_sigterm": {
        "prelude": "signal.signal(signal.SIGTERM, signal.SIG_IGN)",
        "on_bye": "time.sleep(1000)",
    },
    "silent": {"prelude": "time.sleep(1000)"},
    "slow_to_start": {"prelude": "time.sleep(9.0)"},  # then a good bot
    "chatty": {"on_act": f'sys.stderr.write("thinking\\n"); sys.stderr.flush()\n        {ANSWER}'},
    "stderr_then_crash": {
        "on_act": 'sys.stderr.buffer.write(b"e" * 40_000); sys.stderr.flush(); os._exit(1)'
    },
    "slow": {"on_act": f"time.sleep(0.6)\n        {ANSWER}"},
    "unhurried": {"on_act": f"time.sleep(0.05)\n        {ANSWER}"},
    "wrong_request_id": {
        "on_act": 'send({"type": "action", "request_id": m["request_id"] + 1, "choice": 0})'
    },
    # Foresees the next request_id and answers before it is asked: at its first act it
    # writes its answer and the next one at once (in two writes, the second could come
    # after the referee's look before the next act, SPEC §4.1, and be taken: a test of
    # it failed now and then on a busy machine).
    "answers_ahead": {
        "on_act": (
            "frames = [msgpack.packb({'type': 'action', 'request_id': m['request_id'] + i,"
            " 'choice': 0}) for i in (0, 1)]"
            '\n        w.write(b"".join(len(b).to_bytes(4, "big") + b for b in frames)); w.flush()'
        )
    },
    "out_of_range": {
        "on_act": 'send({"type": "action", "request_id": m["request_id"], "choice": 99})'
    },
    "wrong_types": {
        "on_act": 'send({"type": "action", "request_id": str(m["request_id"]), "choice": 0})'
    },
    "no_choice": {"on_act": 'send({"type": "action", "request_id": m["request_id"]})'},
    "exit_nonzero_on_bye": {"on_bye": "sys.exit(4)"},
    # Bots that break only in a situation a few games never meet (arena check-bot).
    "no_quad": {  # takes every legal action for a card: a quad has none
        "on_act": f'cards = [a["card"] for a in m["legal"]]\n        {ANSWER}'
    },
    "no_bust": {  # knows the kinds play and quad only
        "on_act": (
            f'kinds = [{{"play": 0, "quad": 1}}[a["kind"]] for a in m["legal"]]\n        {ANSWER}'
        )
    },
    "four_seats_at_most": {"on_game_start": 'per_seat = [0] * 4\n        per_seat[m["seat"]] = 1'},
    "no_bank": {"on_act": f'assert m["clock"]["bank_ms"] is None\n        {ANSWER}'},
    "no_lowest": {"on_game_start": 'assert m["options"]["ending"] == "elimination"'},
    # Bots that go wrong after their last action (arena check-bot).
    "says_goodbye": {"on_bye": 'sys.stdout.write("goodbye\\n"); sys.stdout.flush(); sys.exit(0)'},
    "prints_after_each_game": {"on_game_over": 'w.write(b"game over\\n"); w.flush()'},
    "request_id_in_8_bits": {
        "on_act": 'send({"type": "action", "request_id": m["request_id"] & 0xFF, "choice": 0})'
    },
    "dies_on_third_game_over": {"on_game_over": "if games == 3: sys.exit(3)"},
    "reads_frames_of_4_kib": {  # a buffer of 4 KiB for a frame, as in C: char buf[4096]
        "prelude": (
            "def read():\n"
            "    h = r.read(4)\n"
            "    if len(h) < 4:\n"
            "        sys.exit(0)\n"
            "    n = int.from_bytes(h, 'big')\n"
            "    if n > 4096:\n"
            "        print(f'a frame of {n} bytes: my buffer holds 4096', file=sys.stderr)\n"
            "        sys.exit(5)\n"
            "    return msgpack.unpackb(r.read(n))"
        )
    },
    # (check-bot's last game is the first its request ids pass 300 in: WIDE_ID)
    "leaves_after_its_last_game": {
        "on_act": f"last = m['request_id']\n        {ANSWER}",
        "on_game_over": "if last > 300: sys.exit(0)",
    },
    # ... the same a second later: the bye written meanwhile is left unread in its stdin
    "leaves_late_after_its_last_game": {
        "on_act": f"last = m['request_id']\n        {ANSWER}",
        "on_game_over": "if last > 300:\n            time.sleep(1.0)\n            sys.exit(0)",
    },
    "killed_on_bye": {"on_bye": "os.kill(os.getpid(), signal.SIGKILL)"},
    # Plays its first game, then thinks for ever: a league at one game at a time holds
    # still with exactly one game stored, for a test to act on it.
    "hangs_after_first_game": {
        "on_act": f"if games:\n            time.sleep(1000)\n        {ANSWER}"
    },
    # Misbehaviours at the level of bytes, for the two drivers of the referee to judge
    # alike (tests/referee/test_subprocess.py).
    "partial_then_silence": {
        "on_act": 'w.write(b"\\x00\\x00\\x00\\x21\\x83"); w.flush(); time.sleep(1000)'
    },
    "eof_mid_frame": {"on_act": 'w.write(b"\\x00\\x00\\x00\\x21\\x83"); w.flush(); os._exit(0)'},
    "one_byte_too_large": {
        "on_act": 'w.write(b"\\x00\\x00\\x10\\x01" + b"\\x80" * 4097); w.flush()'
    },
    "closes_stdout": {"on_game_start": "os.close(1)", "on_act": "time.sleep(1000)"},
    "closes_stdin": {  # reads the hello, closes its stdin, answers, and lives on
        "prelude": (
            "read()\nos.close(0)\n"
            'send({"type": "hello", "name": "t", "version": "1", "protocol": 1})\n'
            "time.sleep(1000)"
        )
    },
    "answer_then_junk": {  # a good answer, and in the same write the start of another frame
        "on_act": (
            'b = msgpack.packb({"type": "action", "request_id": m["request_id"], "choice": 0})'
            '\n        w.write(len(b).to_bytes(4, "big") + b + b"\\x00\\x00"); w.flush()'
        )
    },
    "ignores_eof": {"on_eof": "time.sleep(1000)"},
    "protocol_2": {"on_hello": HELLO.replace('"protocol": 1', '"protocol": 2')},
    "hello_first": {"prelude": HELLO, "on_hello": "pass"},  # writes its hello unasked
    # print() to a pipe is buffered: the text comes out at exit, after every frame.
    "prints_to_stdout": {"on_act": f'print("thinking")\n        {ANSWER}'},
    "memory_hog": {"on_act": f"x = bytearray(3_000_000_000)\n        {ANSWER}"},
}


def script(behaviour: str) -> str:
    parts = {
        "prelude": "",
        "on_hello": HELLO,
        "on_game_start": "pass",
        "on_act": ANSWER,
        "on_game_over": "pass",
        "on_bye": "sys.exit(0)",
        "on_eof": "sys.exit(0)",
    }
    parts.update(BEHAVIOURS[behaviour])
    return _TEMPLATE.format(**parts)


def spec(behaviour: str, pidfile: Path, name: str | None = None) -> BotSpec:
    return BotSpec(
        name=name or behaviour.replace("_", "-"),
        command=(sys.executable, "-c", script(behaviour), str(pidfile)),
        folder=None,
    )


def alive(pid: int) -> bool:
    """True if `pid` runs (a zombie waiting for its reaper counts as dead)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    state = stat.rsplit(")", 1)[1].split()[0]
    return state not in ("Z", "X")


def pids(pidfile: Path) -> list[int]:
    if not pidfile.exists():
        return []
    return [int(line) for line in pidfile.read_text().split()]
