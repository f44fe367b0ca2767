"""SPEC §8.5: a bot computes only when it is asked to. arena stops (SIGSTOP) a bot's
process group while another bot decides (from 5 ms into the decision) and while it
waits in the pool between games, so a bot that spins a child process on the others'
time takes next to no CPU from the bot that decides; under the sandbox no process of
it can leave the group (setsid and setpgid fail with EPERM).

Before, such a bot's spinners ran all the time: on two cores, two of them took the
machine from its opponents while they thought.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.match import run_match
from arena.referee import Clocks, RunSettings, open_pools
from arena.rules import Format, GameConfig

from .helpers import BOTH, HOSTILE, gone, make_bot, needs_bwrap, reports

pytestmark = pytest.mark.subprocess


@pytest.mark.parametrize("sandboxed", BOTH)
async def test_a_bot_gets_no_cpu_time_while_another_decides(
    tmp_path: Path, sandboxed: bool
) -> None:
    token = f"arena-steal-{uuid.uuid4().hex}"
    specs = [
        make_bot(tmp_path / "bots", "stealer", "steal", token=token),
        make_bot(tmp_path / "bots", "thinker", "slow", 100, token=token),
    ]
    settings = RunSettings(
        clocks=Clocks(startup_ms=15000),
        log_dir=tmp_path / "logs",
        sandbox="bwrap" if sandboxed else "none",
    )
    results, _ = await run_match(specs, GameConfig(players=2), games=2, seed=1, settings=settings)
    assert all(not result.faults for result in results)
    log = tmp_path / "logs" / "stealer.log"
    start, end = reports(log)
    assert "pid" in start
    # Between its answer and its next act the thinker thought (100 ms a decision) ...
    assert end["idle_wall"] > 1.0, end
    lines = log.read_text().splitlines()
    if sandboxed:
        # ... and the child could not leave the group, and was stopped with it.
        assert "EPERM" in lines, lines
        assert "left" not in lines, lines
        # (The others are stopped once a decision has run 5 ms: about 8% here.)
        assert end["idle_cpu"] < 0.2 * end["idle_wall"], end
    else:
        # Without the sandbox nothing is stopped (a killed arena would leave stopped
        # bots behind for ever), and a child may leave the group: it spins on, on a
        # CPU or waiting for one (how much CPU it gets depends on the machine's load;
        # that it is runnable throughout does not).
        assert "left" in lines, lines
        assert end["idle_runnable"] > 0.8 * end["idle_wall"], end
    assert await gone(token)


@pytest.mark.parametrize("sandboxed", BOTH)
async def test_an_idle_process_in_the_pool_is_stopped_until_its_next_game(
    tmp_path: Path, sandboxed: bool
) -> None:
    """Between its games a reused process is stopped (state T in /proc); a game that
    takes it lets it run just before it writes its game_start (not before: the game
    may wait for another seat's process to start); without the sandbox it is never
    stopped."""
    token = f"arena-idle-{uuid.uuid4().hex}"
    spec = make_bot(tmp_path / "bots", "idler", "none", token=token)
    settings = RunSettings(
        clocks=Clocks(startup_ms=15000), sandbox="bwrap" if sandboxed else "none"
    )

    def state(pid: int) -> str:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0]

    async def settled(pid: int) -> str:
        """Its state once a signal sent to it has been taken (it takes a moment)."""
        for _ in range(50 if sandboxed else 5):
            if state(pid) == "T":
                break
            await trio.sleep(0.01)
        return state(pid)

    async with open_pools([spec], settings) as pools:
        pool = pools["idler"]
        session = await pool.acquire()
        assert session.process is not None
        pid = session.process.pid  # bubblewrap's: it is stopped with its group
        assert state(pid) in "RS"
        await pool.release(session)
        assert await settled(pid) == ("T" if sandboxed else "S")
        again = await pool.acquire()
        assert again is session
        assert await settled(pid) == ("T" if sandboxed else "S")
        again.resume()  # as its game does before the game_start
        assert state(pid) in "RS"
        await pool.release(again)
    assert await gone(token)


@needs_bwrap
async def test_a_stopped_bot_runs_again_to_read_its_game_over(tmp_path: Path) -> None:
    """Found in an audit: a seat out of the game is never asked again, so a seat
    stopped during someone's decision was still stopped when its game_over came. A
    game_over larger than its pipe holds (64 KiB by default, 4 KiB for these bots;
    the message holds every event since the seat last moved) then timed out on it, a
    fault for the referee's own stop, and five of them disqualified the bot. The
    referee now lets every seat run before its game_over."""
    token = f"arena-over-{uuid.uuid4().hex}"
    root = tmp_path / "bots"
    specs = [
        make_bot(root, "first", "measure", 0, token=token),
        make_bot(root, "thinker", "measure", 6, token=token),  # the others stop after 5 ms
        make_bot(root, "third", "measure", 0, token=token),
    ]
    settings = RunSettings(
        clocks=Clocks(startup_ms=15000), log_dir=tmp_path / "logs", sandbox="bwrap"
    )
    config = GameConfig(players=3, format=Format.TOKENS, tokens=5)
    results, _ = await run_match(specs, config, games=2, seed=1, settings=settings)
    largest = [
        report["largest"]["game_over"]
        for name in ("first", "thinker", "third")
        for report in reports(tmp_path / "logs" / f"{name}.log")
        if "largest" in report
    ]
    assert [fault for result in results for fault in result.faults] == []
    assert max(largest) > 2 * 4096, largest  # more than a pipe holds, or this tests nothing
    assert await gone(token)


async def test_a_stop_is_ended_by_sigcont_timers_without_the_allow_list() -> None:
    """The attack of the test below, without the sandbox: a process that has the kernel
    send it SIGCONT every millisecond (POSIX timers) runs on though it is stopped."""
    import json
    import os
    import signal
    import sys

    script = (
        f"import sys; sys.path.insert(0, {str(HOSTILE.parent)!r})\n"
        "from hostile_bot import sigcont_timers\n"
        "print(__import__('json').dumps(sigcont_timers()), flush=True)\n"
        "while True: pass\n"
    )
    process = await trio.lowlevel.open_process([sys.executable, "-c", script], stdout=-1)
    try:
        assert process.stdout is not None
        line = b""
        while not line.endswith(b"\n"):
            line += await process.stdout.receive_some(4096)
        assert json.loads(line) == {"timer_create": "ok", "F_SETSIG": "ok"}
        os.kill(process.pid, signal.SIGSTOP)
        stopped = _cpu(process.pid)
        for _ in range(6000):  # it runs on (the CPU it gets depends on the machine)
            if _cpu(process.pid) >= stopped + 0.05:
                break
            await trio.sleep(0.01)
        else:
            raise AssertionError("stopped for a minute: the timers did not end the stop")
    finally:
        process.kill()
        await process.wait()


def _cpu(pid: int) -> float:
    """The CPU time of process `pid` so far, in seconds."""
    with open(f"/proc/{pid}/schedstat") as stat:
        return int(stat.read().split()[0]) / 1e9


@needs_bwrap
async def test_a_bot_cannot_have_the_kernel_end_its_stop(tmp_path: Path) -> None:
    """Found in an audit: a bot's child asked for SIGCONT every millisecond from POSIX
    timers, and computed at 99% while the other bot decided, unstopped (the stop is a
    SIGSTOP, which any SIGCONT ends). Under the sandbox the calls that have the kernel
    send a signal of one's choosing later fail, and the child is stopped as any."""
    lines, end = await _steal_under_bwrap(tmp_path, "timers")
    assert 'timers {"timer_create": "ENOSYS", "F_SETSIG": "EPERM"}' in lines, lines
    assert end["idle_wall"] > 1.0, end
    assert end["idle_cpu"] < 0.2 * end["idle_wall"], end


async def test_a_stop_is_ended_by_sigcont_at_an_exit_without_the_allow_list() -> None:
    """The attack of the test below, without the sandbox: a spinner keeps children that
    exit slowly (30,000 mappings to unmap), each with a child of its own whose
    parent-death signal is SIGCONT and which then continues the whole group. A child
    whose exit began before a stop of the group is not stopped; when its exit ends, the
    stop of the rest ends too, and the spinner runs on though it was stopped."""
    import json
    import os
    import signal
    import sys

    script = (
        f"import sys, os; sys.path.insert(0, {str(HOSTILE.parent)!r})\n"
        "from hostile_bot import sigcont_at_exit, _spin_with_wakers\n"
        "print(__import__('json').dumps(sigcont_at_exit()), flush=True)\n"
        "_spin_with_wakers(os.getppid())\n"
    )
    process = await trio.lowlevel.open_process(
        [sys.executable, "-c", script], stdout=-1, start_new_session=True
    )
    try:
        assert process.stdout is not None
        line = b""
        while not line.endswith(b"\n"):
            line += await process.stdout.receive_some(4096)
        assert json.loads(line) == {"PR_SET_PDEATHSIG": "ok", "clone": "ok"}
        for _ in range(60):  # a stop ends once a child was exiting when it came
            await trio.sleep(0.5)  # running: children begin and end their exits
            os.killpg(process.pid, signal.SIGSTOP)
            await trio.sleep(0.05)  # the stop taken, or already ended
            stopped = _cpu(process.pid)
            for _ in range(100):
                if _cpu(process.pid) >= stopped + 0.02:
                    break
                await trio.sleep(0.01)
            else:
                os.killpg(process.pid, signal.SIGCONT)
                continue
            break
        else:
            raise AssertionError("stopped 60 times and never ran on: no exit ended a stop")
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        await process.wait()


@needs_bwrap
async def test_a_bot_cannot_have_an_exit_end_its_stop(tmp_path: Path) -> None:
    """Found in an audit: a bot's child kept children exiting slowly (an exit with
    30,000 mappings to unmap takes a tenth of a second), each with SIGCONT as the
    parent-death signal of a child of its own, which then continued the whole group
    (clone's exit signal would do the same for the parent). An exit that began before
    the stop is not stopped, and the SIGCONT its end sent let the bot compute on the
    other bot's time (the child was runnable 47% of the time the other bot decided,
    against 10% for a child that is stopped). Under the sandbox a SIGCONT at an exit
    cannot be asked for, and the child is stopped as any."""
    lines, end = await _steal_under_bwrap(tmp_path, "exits", 100)
    assert 'exits {"PR_SET_PDEATHSIG": "EPERM", "clone": "EPERM"}' in lines, lines
    assert end["idle_wall"] > 1.0, end
    assert end["idle_cpu"] < 0.2 * end["idle_wall"], end


@needs_bwrap
async def test_a_bot_is_stopped_while_its_game_waits_for_another_to_start(
    tmp_path: Path,
) -> None:
    """Found in an audit: a game took the idle processes of its seats from their pools
    and let them run at once, then waited for the other seats' new processes to start
    (up to the start-up time, 10 s by default): a spinner child of the bot waiting so
    was runnable 3.55 s of the 3.57 s from its answer in one game to its act in a later
    one, while the other bot's process (which ends every game with an illegal answer,
    so that each game waits for a new one) took 1.5 s to start each time. A process now
    runs from its game_start on."""
    token = f"arena-wait-{uuid.uuid4().hex}"
    specs = [
        make_bot(tmp_path / "bots", "stealer", "steal", token=token),
        make_bot(tmp_path / "bots", "starter", "late_illegal", 1500, token=token),
    ]
    settings = RunSettings(
        clocks=Clocks(startup_ms=15000), log_dir=tmp_path / "logs", sandbox="bwrap"
    )
    results, _ = await run_match(specs, GameConfig(players=2), games=3, seed=1, settings=settings)
    assert [[f.cause for f in result.faults] for result in results] == [["illegal"]] * 3
    _, end = reports(tmp_path / "logs" / "stealer.log")
    assert end["idle_wall"] > 2 * 1.5, end  # it waited for two start-ups, at least
    assert end["idle_runnable"] < 0.3 * end["idle_wall"], end
    assert await gone(token)


async def _steal_under_bwrap(tmp_path: Path, how: str, *args: object) -> tuple[list[str], Any]:
    """A match under bwrap of the `steal` bot (`how`: its way to end a stop) against a
    thinker of 100 ms a move, without a fault and leaving no process: the stealer's
    stderr lines, and its last report (what its child got while the other decided)."""
    token = f"arena-{how}-{uuid.uuid4().hex}"
    specs = [
        make_bot(tmp_path / "bots", "stealer", "steal", how, *args, token=token),
        make_bot(tmp_path / "bots", "thinker", "slow", 100, token=token),
    ]
    settings = RunSettings(
        clocks=Clocks(startup_ms=15000), log_dir=tmp_path / "logs", sandbox="bwrap"
    )
    results, _ = await run_match(specs, GameConfig(players=2), games=2, seed=1, settings=settings)
    assert all(not result.faults for result in results)
    log = tmp_path / "logs" / "stealer.log"
    _, end = reports(log)
    assert await gone(token)
    return log.read_text().splitlines(), end


async def test_every_new_process_is_stopped_from_its_hello_to_its_first_game_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SPEC §8.5: a process started for a game is stopped once it has said hello, until
    the game writes its game_start: the game may wait for another seat's process to
    start meanwhile (an idle process's stop is test_a_bot_is_stopped_while_its_game_
    waits_for_another_to_start's). Seen in the order of the stops and the goes, with no
    clock: the first thing done to each process is a stop."""
    from arena.referee import BotSession

    calls: dict[BotSession, list[str]] = {}  # (kept alive: no id is reused)
    pause, resume = BotSession.pause, BotSession.resume

    def paused(session: BotSession) -> None:
        calls.setdefault(session, []).append("stop")
        pause(session)

    def resumed(session: BotSession) -> None:
        calls.setdefault(session, []).append("go")
        resume(session)

    monkeypatch.setattr(BotSession, "pause", paused)
    monkeypatch.setattr(BotSession, "resume", resumed)
    token = f"arena-new-{uuid.uuid4().hex}"
    specs = [
        make_bot(tmp_path / "bots", "quick", "slow", 1, token=token),
        make_bot(tmp_path / "bots", "faulter", "late_illegal", 0, token=token),
    ]
    settings = RunSettings(log_dir=tmp_path / "logs", sandbox="none")
    results, started = await run_match(
        specs, GameConfig(players=2), games=3, seed=1, settings=settings
    )
    assert [[f.cause for f in result.faults] for result in results] == [["illegal"]] * 3
    assert started == {"quick": 1, "faulter": 3}  # a new process for each game
    assert len(calls) == 4
    assert all(made[0] == "stop" for made in calls.values()), calls
    assert await gone(token)
