"""Hostile bots against the one driver thread that plays every game between bot processes
(arena.referee._driver): a bot shares its worker process with other people's games, and
must not stall them, charge them its time or faults, crash the driver, leave processes
or descriptors behind, or win time for itself.

Each game here is played with `play_seated`, several at once in one trio run, as a
league worker plays them (arena.worker: the games are tasks of one nursery).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

import pytest
import trio

from arena.bots import BotSpec
from arena.referee import BotPool, Clocks, GameResult, RunSettings, open_pools, play_seated
from arena.rules import GameConfig
from arena.testing import BEHAVIOURS, alive, pids, spec

pytestmark = pytest.mark.subprocess

TWO = GameConfig(players=2)

_FRAME = 'w.write(len(b).to_bytes(4, "big") + b); w.flush()'
"""Bot code: write the msgpack body `b` as one frame."""

_DEEP = 'b"\\x91" * 1010 + b"\\xc0"'
"""Bot code: a list in a list ... 1010 deep (msgpack allows up to 1023 levels)."""

ATTACKS: dict[str, dict[str, str]] = {
    # Answers after 10 ms: an innocent bot whose games last a while.
    "sleeper": {
        "on_act": 'time.sleep(0.01)\n        send({"type": "action",'
        ' "request_id": m["request_id"], "choice": 0})'
    },
    # A valid action whose "choice" is a list nested 1010 deep (a 1 KB frame).
    "deep_choice": {
        "on_act": (
            'b = b"\\x83" + msgpack.packb("type") + msgpack.packb("action")'
            ' + msgpack.packb("request_id") + msgpack.packb(m["request_id"])'
            f' + msgpack.packb("choice") + {_DEEP}\n        {_FRAME}'
        )
    },
    # A hello whose "name" is a list nested 1010 deep.
    "deep_name": {
        "on_hello": (
            'b = b"\\x84" + msgpack.packb("type") + msgpack.packb("hello")'
            ' + msgpack.packb("protocol") + msgpack.packb(1)'
            f' + msgpack.packb("name") + {_DEEP}'
            ' + msgpack.packb("version") + msgpack.packb("1")'
            f"\n        {_FRAME}"
        )
    },
    # At its first two acts, after 0.3 s (the other games are well under way), a legal
    # action padded with 1.5 MiB of empty maps under an unknown key (SPEC §3.5: ignored):
    # valid, within a max_frame the organiser raised, and slow to decode.
    "slow_to_decode": {
        "on_act": (
            "if acts <= 2:\n"
            "            time.sleep(0.3)\n"
            "            n = 3 << 19\n"
            '            b = (b"\\x84" + msgpack.packb("type") + msgpack.packb("action")'
            ' + msgpack.packb("request_id") + msgpack.packb(m["request_id"])'
            ' + msgpack.packb("choice") + msgpack.packb(0) + msgpack.packb("pad")'
            ' + b"\\xdd" + n.to_bytes(4, "big") + b"\\x80" * n)\n'
            f"            {_FRAME}\n"
            "        else:\n"
            '            send({"type": "action", "request_id": m["request_id"], "choice": 0})'
        )
    },
    # Its answer one byte per write, a millisecond apart (some 30 ms in all).
    "dribbles": {
        "on_act": (
            'b = msgpack.packb({"type": "action", "request_id": m["request_id"], "choice": 0})'
            '\n        for x in len(b).to_bytes(4, "big") + b:'
            "\n            w.write(bytes([x])); w.flush(); time.sleep(0.001)"
        )
    },
    # All of its answer but the last byte at once, the last byte too late.
    "dribbles_too_slowly": {
        "on_act": (
            'b = msgpack.packb({"type": "action", "request_id": m["request_id"], "choice": 0})'
            '\n        f = len(b).to_bytes(4, "big") + b'
            "\n        w.write(f[:-1]); w.flush(); time.sleep(0.8); w.write(f[-1:]); w.flush()"
        )
    },
    "stops_itself": {"on_act": "os.kill(os.getpid(), signal.SIGSTOP)"},
    # At its second act: a child that keeps stdout open (so no end of stream comes), and
    # the bot itself exits.
    "child_keeps_stdout": {
        "on_act": (
            "if acts >= 2:\n"
            "            pid = os.fork()\n"
            "            if pid == 0:\n"
            "                time.sleep(1000)\n"
            "                os._exit(0)\n"
            "            with open(sys.argv[1], 'a') as f:\n"
            "                f.write(f'{pid}\\n')\n"
            "            os._exit(0)\n"
            '        send({"type": "action", "request_id": m["request_id"], "choice": 0})'
        )
    },
    # Closes its stdin at its second act, answers it, and lives on. (Closed after the
    # answer, the next act could be in the pipe before the close, and be lost with it:
    # a timeout, not a crash; the referee, quicker, came first now and then.)
    "closes_stdin_mid_game": {
        "on_act": (
            "if acts >= 2:\n"
            "            os.close(0)\n"
            '        send({"type": "action", "request_id": m["request_id"], "choice": 0})\n'
            "        if acts >= 2:\n"
            "            time.sleep(1000)"
        )
    },
    # After each of its first five answers: fills its own stdin pipe (opened again for
    # writing), so that its next act finds no room; thinks 150 ms; then reads back what
    # it wrote, and the act comes in whole, to be answered at once.
    "stalls_its_acts": {
        "on_act": (
            'send({"type": "action", "request_id": m["request_id"], "choice": 0})\n'
            "        if acts <= 5:\n"
            '            fd = os.open("/proc/self/fd/0", os.O_WRONLY | os.O_NONBLOCK)\n'
            "            n = 0\n"
            "            try:\n"
            "                while True:\n"
            '                    n += os.write(fd, b"x" * 4096)\n'
            "            except BlockingIOError:\n"
            "                pass\n"
            "            os.close(fd)\n"
            "            time.sleep(0.15)\n"
            "            r.read(n)"
        )
    },
    # Fills its own stdin pipe (opened again for writing) at its game_start and never
    # reads again: the referee's next write to it finds no room.
    "stuffs_stdin": {
        "on_game_start": (
            'fd = os.open("/proc/self/fd/0", os.O_WRONLY | os.O_NONBLOCK)\n'
            "        try:\n"
            "            while True:\n"
            '                os.write(fd, b"x" * 4096)\n'
            "        except BlockingIOError:\n"
            "            pass\n"
            "        time.sleep(1000)"
        )
    },
}


def bot(behaviour: str, folder: Path, name: str) -> BotSpec:
    """A bot of `behaviour` (from arena.testing, or one of the attacks here) named `name`,
    writing its pids to folder/NAME.pids."""
    with pytest.MonkeyPatch.context() as patch:
        if behaviour in ATTACKS:
            patch.setitem(BEHAVIOURS, behaviour, ATTACKS[behaviour])
        return spec(behaviour, folder / f"{name}.pids", name=name)


def open_fds() -> dict[str, str]:
    """This process's descriptors and what they are."""
    found = {}
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # the listing's own, gone by now
            found[fd] = os.readlink(f"/proc/self/fd/{fd}")
    return found


def left_behind(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """The descriptors opened since `before` and still open, but for a pipe of which
    this process holds both ends (the driver's wake-up, made when first needed): a bot's
    pipes have their other end in the bot."""
    new = [what for fd, what in after.items() if before.get(fd) != what]
    return [what for what in new if not (what.startswith("pipe:") and new.count(what) == 2)]


def written_pids(folder: Path) -> list[int]:
    return [p for f in folder.glob("*.pids") for p in pids(f)]


async def all_gone(folder: Path) -> list[int]:
    """The pids written under `folder` still running after up to 5 s (a SIGKILLed
    process dies when it next runs: on a busy machine that takes a moment)."""
    everyone = written_pids(folder)
    assert everyone, "the bots ran"
    for _ in range(100):
        if not [p for p in everyone if alive(p)]:
            break
        await trio.sleep(0.05)
    return [p for p in everyone if alive(p)]


def leaves(group: BaseException) -> list[BaseException]:
    """The exceptions in `group` and in the groups in it."""
    if isinstance(group, BaseExceptionGroup):
        return [leaf for exc in group.exceptions for leaf in leaves(exc)]
    return [group]


async def play_at_once(
    pools: dict[str, BotPool],
    games: dict[str, tuple[Sequence[str], Clocks]],
    results: dict[str, GameResult] | None = None,
) -> dict[str, GameResult]:
    """Play `games` (id: seat names and clocks) at once, as a worker does; each result
    goes into `results` as it comes."""
    results = {} if results is None else results

    async def one(game_id: str, names: Sequence[str], clocks: Clocks) -> None:
        results[game_id] = await play_seated(
            [pools[n] for n in names], TWO, 7, clocks=clocks, game_id=game_id
        )

    async with trio.open_nursery() as nursery:
        for game_id, (names, clocks) in games.items():
            nursery.start_soon(one, game_id, names, clocks)
    return results


def faults(result: GameResult) -> list[tuple[str, str]]:
    return [(result.names[f.seat], f.cause) for f in result.faults]


CLOCKS = Clocks(decision_ms=400, grace_ms=50, exit_grace_ms=300, kill_grace_ms=200)


# --- Defects ------------------------------------------------------------------------


@pytest.mark.parametrize("behaviour", ["deep_choice", "deep_name"])
async def test_a_deeply_nested_value_is_a_fault_not_an_error_that_ends_every_game(
    tmp_path: Path, behaviour: str
) -> None:
    """A bot answers with a value nested 1010 deep (valid msgpack, in a 1 KB frame): as
    its action's "choice", or as its hello's "name". Its fault message describes the
    value (`protocol.describe`, `repr`), which raised RecursionError: not a BotFault,
    so it left `play_game` (from the driver's thread, or from the handshake in the
    pool), and in a worker the games' nursery then cancelled every other game in the
    process.

    Before the fix: RecursionError out of play_seated; the innocent game at the same time
    was cancelled. Now the referee contains it as the bot's fault (illegal choice, or a
    failed start-up: malformed) and the other game plays to its end."""
    settings = RunSettings(clocks=CLOCKS)
    specs = [
        bot(behaviour, tmp_path, "hostile"),
        bot("good", tmp_path, "opponent"),
        bot("sleeper", tmp_path, "innocent-1"),
        bot("sleeper", tmp_path, "innocent-2"),
    ]
    escaped: list[BaseException] = []
    results: dict[str, GameResult] = {}
    async with open_pools(specs, settings) as pools:
        try:
            await play_at_once(
                pools,
                {
                    "hostile": (["hostile", "opponent"], CLOCKS),
                    "innocent": (["innocent-1", "innocent-2"], CLOCKS),
                },
                results,
            )
        except* Exception as group:
            escaped.extend(leaves(group))
    assert await all_gone(tmp_path) == []
    assert escaped == [], (
        f"{escaped[0]!r} came out of the referee (a bot's answer, not a fault);"
        f" the innocent game at the same time: {'played' if 'innocent' in results else 'cancelled'}"
        if escaped
        else ""
    )
    assert faults(results["hostile"]) == [
        ("hostile", "illegal" if behaviour == "deep_choice" else "malformed")
    ]
    assert faults(results["innocent"]) == []


async def test_an_answer_slow_to_decode_does_not_charge_other_games_bots(
    tmp_path: Path,
) -> None:
    """With a max_frame raised by the organiser (here 2 MiB), a hostile bot answers a
    legal action padded with 1.5 MiB of empty maps under an unknown key (ignored, SPEC
    §3.5): the driver's thread decodes it for the better part of a second, and no other
    game in the process takes a step meanwhile. An innocent bot in another game that
    answered in 10 ms is found only after it, and was charged the whole stall: it was
    out for a timeout. (The hostile bot is charged nothing for it: its time ends when
    its bytes were seen, before the decode.) With a thread per game, the other games'
    threads took the GIL from the decode's Python hooks every 5 ms.

    Before the fix: the innocent bots timed out ("action after 4xx ms (limit 250 ms)").
    Now the referee does not charge a bot for time it spent on another game: the
    innocent games finish without faults (the driver credits the games that waited
    with the time a step took)."""
    settings = RunSettings(clocks=CLOCKS, max_frame=2 << 20)
    specs = [
        bot("slow_to_decode", tmp_path, "hostile"),
        bot("good", tmp_path, "opponent"),
        bot("sleeper", tmp_path, "innocent-1"),
        bot("sleeper", tmp_path, "innocent-2"),
    ]
    innocent_clocks = Clocks(decision_ms=250, grace_ms=50, exit_grace_ms=300, kill_grace_ms=200)
    hostile_clocks = Clocks(decision_ms=10_000, exit_grace_ms=300, kill_grace_ms=200)
    innocent: list[GameResult] = []
    async with open_pools(specs, settings) as pools:
        hostile_done = trio.Event()

        async def innocents() -> None:
            number = 0
            while not hostile_done.is_set():
                number += 1
                innocent.append(
                    await play_seated(
                        [pools["innocent-1"], pools["innocent-2"]],
                        TWO,
                        number,
                        clocks=innocent_clocks,
                        game_id=f"innocent-{number}",
                    )
                )

        async with trio.open_nursery() as nursery:
            nursery.start_soon(innocents)
            hostile = await play_seated(
                [pools["hostile"], pools["opponent"]],
                TWO,
                7,
                clocks=hostile_clocks,
                game_id="hostile",
            )
            hostile_done.set()
    assert await all_gone(tmp_path) == []
    assert faults(hostile) == []
    assert hostile.decisions > 4, "its two slow answers were taken, and the game went on"
    charged = [f.message for r in innocent for f in r.faults]
    assert charged == [], f"innocent bots charged the hostile bot's decode: {charged}"


async def test_a_bot_that_holds_up_its_act_is_charged_the_time_it_thinks_meanwhile(
    tmp_path: Path,
) -> None:
    """A decision's time ran from the act written whole (`Connection.sent_at`), but the
    deadline from before the write. A bot fills its own stdin pipe after each answer
    (it opens /proc/self/fd/0 for writing), so its next act waits for room; it thinks
    150 ms meanwhile (it runs: nothing stops a bot about to be asked), then reads back
    its filler, and answers the act at once. Each decision took 150 ms from the
    referee's start, all of it the bot's own doing, yet it was charged about 1 ms: with
    a bank of 400 ms and no increment, it played on with its bank all but untouched,
    where an honest bot thinking 150 ms a decision is out of time by its fourth (SPEC
    §8.3: the bank is the total time its decisions may take).

    Before the fix: no fault, decisions logged at ~1 ms each. Now the referee charges the
    wait for room in the bot's own input to the bot (its time runs from the act's
    first write, as its deadline does): the bot times out by its fifth act."""
    clocks = Clocks(decision_ms=400, bank_ms=400, grace_ms=50, exit_grace_ms=300, kill_grace_ms=200)
    specs = [bot("stalls_its_acts", tmp_path, "staller"), bot("sleeper", tmp_path, "honest")]
    async with open_pools(specs, RunSettings(clocks=clocks)) as pools:
        result = await play_seated(
            [pools["staller"], pools["honest"]], TWO, 7, clocks=clocks, game_id="g"
        )
    assert await all_gone(tmp_path) == []
    staller = result.names.index("staller")
    charged = [d["ms"] for d in result.log if d["type"] == "decision" and d["seat"] == staller]
    assert faults(result) == [("staller", "timeout")], (
        f"it thought 150 ms before each of its acts 2..6, and was charged {charged[:6]} ms"
    )


def test_a_thread_that_cannot_start_does_not_wedge_every_later_game(tmp_path: Path) -> None:
    """The driver's thread is started when a game comes and none runs. If that start
    fails (RuntimeError "can't start new thread": a machine out of processes, which
    bots without the sandbox can bring about, root having no RLIMIT_NPROC), the game
    hears of it, but the driver stays marked as running with the game in its inbox:
    every later game in the process only writes a wake-up to a thread that does not
    exist, and waits for ever, cancel or not (a cancel waits for the driver too).

    Run in a child process (a wedged driver would hang the rest of this session).
    Before the fix: the second game, with its answer waiting, never ended (killed after
    6 s). Now the driver forgets a start that failed: the next game starts the thread."""
    program = textwrap.dedent(
        """
        import os, select, time, trio
        from arena.referee import _driver

        def reader(fd, deadline):
            seen = yield (fd, select.POLLIN, deadline, None, None)
            return None if seen is None else os.read(fd, 100)

        async def main():
            read, write = os.pipe2(os.O_NONBLOCK)
            real = trio.lowlevel.start_thread_soon

            def cannot(*args, **kwargs):
                raise RuntimeError("can't start new thread")

            trio.lowlevel.start_thread_soon = cannot
            try:
                await _driver.run(reader(read, time.perf_counter() + 1))
            except RuntimeError as err:
                print("first:", err, flush=True)
            finally:
                trio.lowlevel.start_thread_soon = real
            os.write(write, b"answer")
            print("second:", await _driver.run(reader(read, time.perf_counter() + 1)), flush=True)

        trio.run(main)
        """
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", program],
            capture_output=True,
            text=True,
            timeout=6,
            cwd=Path(__file__).parents[2],
            check=False,
        )
    except subprocess.TimeoutExpired as expired:
        out = expired.stdout.decode() if isinstance(expired.stdout, bytes) else expired.stdout
        pytest.fail(f"the next game hung after a failed thread start (printed: {out!r})")
    assert "first: can't start new thread" in done.stdout, done.stderr
    assert "second: b'answer'" in done.stdout, done.stderr


# --- Defences that hold -------------------------------------------------------------


async def test_hostile_bots_in_other_games_neither_stall_nor_charge_an_innocent_game(
    tmp_path: Path,
) -> None:
    """Eight games at once in one process, seven with a hostile bot (byte-by-byte
    answers, a last byte too late, SIGSTOP of itself, a child keeping its stdout while
    it exits, a closed stdin, a stuffed stdin pipe, an answer written ahead, a crash),
    one between two innocent bots: each fault is charged to the hostile bot of its own
    game with the cause its behaviour earns, the innocent game has none, and
    afterwards no process and no descriptor is left."""
    hostile = {
        "dribbles": [],
        "dribbles_too_slowly": ["timeout"],
        "stops_itself": ["timeout"],
        "child_keeps_stdout": ["timeout"],
        "closes_stdin_mid_game": ["crash"],
        "stuffs_stdin": ["timeout"],
        "answers_ahead": ["malformed"],
        "crash_mid_game": ["crash"],
    }
    specs = [bot("sleeper", tmp_path, "innocent-1"), bot("sleeper", tmp_path, "innocent-2")]
    games: dict[str, tuple[Sequence[str], Clocks]] = {
        "innocent": (["innocent-1", "innocent-2"], CLOCKS)
    }
    for behaviour in hostile:
        name = behaviour.replace("_", "-")
        specs += [bot(behaviour, tmp_path, name), bot("good", tmp_path, f"{name}-opponent")]
        games[name] = ([name, f"{name}-opponent"], CLOCKS)
    before = open_fds()
    async with open_pools(specs, RunSettings(clocks=CLOCKS)) as pools:
        results = await play_at_once(pools, games)
    assert await all_gone(tmp_path) == []
    assert left_behind(before, open_fds()) == []
    assert faults(results["innocent"]) == []
    assert results["innocent"].decisions > 0
    for behaviour, causes in hostile.items():
        name = behaviour.replace("_", "-")
        got = faults(results[name])
        assert all(seat == name for seat, _ in got), (behaviour, got)
        if behaviour in ("crash_mid_game", "closes_stdin_mid_game") and not got:
            continue  # the game may end before its third act
        assert [cause for _, cause in got] == causes, (behaviour, results[name].faults)


async def test_cancelling_a_game_mid_write_leaves_nothing_and_others_play_on(
    tmp_path: Path,
) -> None:
    """A game whose act waits for room in a bot's stuffed stdin (a minute on its clock)
    is cancelled in the middle of that write while another game plays: the cancel is
    prompt, the other game finishes without faults, and no process or descriptor of
    either is left."""
    slow = Clocks(decision_ms=60_000, exit_grace_ms=300, kill_grace_ms=200)
    specs = [
        bot("stuffs_stdin", tmp_path, "stuffer"),
        bot("good", tmp_path, "opponent"),
        bot("sleeper", tmp_path, "innocent-1"),
        bot("sleeper", tmp_path, "innocent-2"),
    ]
    before = open_fds()
    innocent: list[GameResult] = []
    async with open_pools(specs, RunSettings(clocks=CLOCKS)) as pools:

        async def stuffed() -> None:
            with trio.move_on_after(1.5) as scope:
                await play_seated(
                    [pools["stuffer"], pools["opponent"]], TWO, 7, clocks=slow, game_id="s"
                )
            assert scope.cancelled_caught

        async def innocents() -> None:
            innocent.append(
                await play_seated(
                    [pools["innocent-1"], pools["innocent-2"]], TWO, 3, clocks=CLOCKS, game_id="i"
                )
            )

        start = trio.current_time()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(stuffed)
            nursery.start_soon(innocents)
        assert trio.current_time() - start < 20
    assert await all_gone(tmp_path) == []
    assert left_behind(before, open_fds()) == []
    assert [faults(r) for r in innocent] == [[]]
