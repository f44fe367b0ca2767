"""Referee throughput against the floor of a bare pipe round trip, in one run.

1. floor: trio writes a recorded `act` frame to a Python bot process over a pipe and
   reads its `action` frame, again and again (no referee, no rules): round trips/s.
2. referee: 4-seat games between the same instant Python bots, through the whole
   referee (rules, observations, clocks, validation): decisions/s, and its ratio to 1;
   its CPU per decision against a blocking round trip's; and the same with two games
   at once in one process, as a league worker plays them.
3. games/s with bot processes reused across games against a fresh process per game.
4. the engine in place: the same games played by a bare blocking loop around the
   referee's core (`arena.referee._core.Core`: act frames, decisions, records; no
   clocks, faults, pausing or event loop), its CPU per decision against the floor's,
   and the time of the core's own calls in it against the same calls in a loop with
   no pipes. Every decision follows a wake-up after a bot ran, so the core runs with
   cold caches: this splits the referee's CPU into the engine's and the rest's.

With --one-cpu the whole run (this process and every bot it starts) is pinned to one
CPU, as on a loaded machine, where a bot wakes on the CPU that wrote to it: wake-ups
are then cheap, so the floor falls much further than the referee's own Python does.

Usage: python bench/referee.py [--seconds S] [--one-cpu]
"""

from __future__ import annotations

import argparse
import sys
import time

import trio

import protocol
from arena.bots import BotSpec
from arena.match import run_match
from arena.referee import BotSession, Clocks, RunSettings, open_pools, play_game
from arena.rules import GameConfig

from instant_bot import SOURCE as BOT


def bot(name: str) -> BotSpec:
    return BotSpec(name=name, command=(sys.executable, "-c", BOT), folder=None)


async def floor(seconds: float, act: dict[str, object], processes: int = 1) -> float:
    """Round trips/s of a recorded act frame over pipes, driven from trio.

    With several processes, the frames go to them in turn, as a game's acts go round
    its seats.
    """
    procs = [
        await trio.lowlevel.open_process([sys.executable, "-c", BOT], stdin=-1, stdout=-1)
        for _ in range(processes)
    ]
    decoders = [protocol.FrameDecoder() for _ in procs]
    count = 0
    start = time.perf_counter()
    deadline = start + seconds
    request_id = 0
    while True:
        request_id += 1
        i = request_id % processes
        process, decoder = procs[i], decoders[i]
        assert process.stdin is not None
        assert process.stdout is not None
        act["request_id"] = request_id
        await process.stdin.send_all(protocol.encode_frame(act))
        while (reply := decoder.next_message()) is None:
            decoder.feed(await process.stdout.receive_some(65536))
        assert reply["request_id"] == request_id
        count += 1
        if count % 200 == 0 and time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - start
    for process in procs:
        assert process.stdin is not None
        await process.stdin.aclose()
        await process.wait()
    return count / elapsed


def blocking_floor(
    seconds: float, act: dict[str, object], processes: int = 1
) -> tuple[float, float]:
    """Round trips/s and CPU seconds per round trip of the same act frame with plain
    blocking pipes (subprocess, os.write, os.read; no event loop): the least a referee
    in Python can spend per decision, encoding the act and decoding the answer. With
    several processes, the frames go to them in turn, as a game's acts go round its
    seats."""
    import os
    import subprocess

    procs = [
        subprocess.Popen([sys.executable, "-c", BOT], stdin=-1, stdout=-1, bufsize=0)
        for _ in range(processes)
    ]
    pipes = []
    for process in procs:
        assert process.stdin is not None
        assert process.stdout is not None
        pipes.append((process.stdin.fileno(), process.stdout.fileno(), protocol.FrameDecoder()))
    count = request_id = 0
    start = time.perf_counter()
    cpu = time.process_time()
    deadline = start + seconds
    while True:
        request_id += 1
        write, read, decoder = pipes[request_id % processes]
        act["request_id"] = request_id
        os.write(write, protocol.encode_frame(act))
        while (reply := decoder.next_message()) is None:
            decoder.feed(os.read(read, 65536))
        assert reply["request_id"] == request_id
        count += 1
        if count % 200 == 0 and time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu
    for process in procs:
        assert process.stdin is not None
        process.stdin.close()
        process.wait()
    return count / elapsed, cpu / count


async def decisions_per_second(seconds: float, at_once: int = 1) -> tuple[float, float]:
    """Decisions/s of 4-seat games between instant bots, their start-up excluded, and
    this process's CPU seconds per decision; with `at_once` games at a time in this
    process (each between 4 bots of its own), as a league worker plays them."""
    settings = RunSettings(clocks=Clocks(decision_ms=5000))
    specs = [bot(f"b{i}") for i in range(4 * at_once)]
    async with open_pools(specs, settings) as by_name:
        pools = list(by_name.values())
        sessions = [await pool.acquire() for pool in pools]
        counts = [0, 0]  # decisions, games
        start = time.perf_counter()
        cpu = time.process_time()

        async def table(seats: list[BotSession]) -> None:
            while time.perf_counter() - start < seconds:
                seed = counts[1]
                counts[1] += 1
                result = await play_game(seats, GameConfig(players=4), seed, clocks=settings.clocks)
                assert not result.faults
                counts[0] += result.decisions

        async with trio.open_nursery() as nursery:
            for i in range(at_once):
                nursery.start_soon(table, sessions[4 * i : 4 * i + 4])
        elapsed = time.perf_counter() - start
        cpu = time.process_time() - cpu
        for pool, session in zip(pools, sessions, strict=True):
            await pool.release(session)
    return counts[0] / elapsed, cpu / counts[0]


async def games_per_second(games: int, fresh: bool) -> float:
    """Games/s of a whole match (start-up included), reusing processes or not."""
    specs = [bot(f"b{i}") for i in range(4)]
    settings = RunSettings(clocks=Clocks(decision_ms=5000), fresh_process=fresh)
    start = time.perf_counter()
    await run_match(specs, GameConfig(players=4), games=games, seed=1, settings=settings)
    return games / (time.perf_counter() - start)


def engine_in_place(seconds: float) -> tuple[float, float, float]:
    """4-seat games played by a bare loop around the referee's core over blocking pipes
    to 4 instant bots: its CPU seconds per decision, and the CPU seconds per decision
    of the core's calls (act frame, decision) in it and in the same games without
    pipes (hot caches)."""
    import os
    import subprocess

    from arena.referee import _wire
    from arena.referee._core import Core

    procs = [
        subprocess.Popen([sys.executable, "-c", BOT], stdin=-1, stdout=-1, bufsize=0)
        for _ in range(4)
    ]
    pipes = [(p.stdin.fileno(), p.stdout.fileno()) for p in procs]  # type: ignore[union-attr]
    clock = time.thread_time

    def games(until: float, piped: bool) -> tuple[int, float]:
        decisions, core_cpu, seed = 0, 0.0, 0
        request_ids = [0] * 4
        while time.process_time() < until:
            core = Core(GameConfig(players=4), seed)
            seed += 1
            log: list[object] = []
            while (seat := core.to_move) is not None:
                request_ids[seat] += 1
                request_id = request_ids[seat]
                before = clock()
                frame = core.act_frame(seat, request_id, 5000, None)
                core_cpu += clock() - before
                choice = 0
                if piped:
                    write, read = pipes[seat]
                    os.write(write, frame)
                    data = os.read(read, 65536)
                    prefix = _wire.canonical_action(request_id)
                    assert len(data) == len(prefix) + 1
                    assert data.startswith(prefix)
                    choice = data[-1]
                before = clock()
                core.play(choice, log, request_id, 0.1)  # type: ignore[arg-type]
                core_cpu += clock() - before
                decisions += 1
            core.records(log)  # type: ignore[arg-type]
        return decisions, core_cpu

    start = time.process_time()
    decisions, core_cpu = games(start + seconds, piped=True)
    cpu = (time.process_time() - start) / decisions
    hot_decisions, hot_cpu = games(time.process_time() + seconds / 3, piped=False)
    for process in procs:
        assert process.stdin is not None
        process.stdin.close()
        process.wait()
    return cpu, core_cpu / decisions, hot_cpu / hot_decisions


async def recorded_act() -> dict[str, object]:
    """A typical act from the middle of a real 4-seat game."""
    results, _ = await run_match(
        [bot(f"b{i}") for i in range(4)],
        GameConfig(players=4),
        games=1,
        seed=99,
        settings=RunSettings(),
    )
    log = results[0].log
    # Rebuild the act the referee sent at the middle decision.
    from arena.referee import _wire
    from arena.replay import rebuild

    game = rebuild(log)
    decisions = [r for r in log if r["type"] == "decision"]
    assert game.is_over
    assert decisions
    from arena.rules import Game

    replay = Game(game.config, game.seed)
    half = len(decisions) // 2
    history = [h for h in game.history]
    for entry in history[:half]:
        replay.apply(entry)  # type: ignore[arg-type]
    seat = replay.to_move
    assert seat is not None
    events = [_wire.event_to_dict(e) for e in replay.events[-8:]]
    return _wire.act(1, replay.observation_dict(seat), events, 1000, None, replay.legal_actions())


async def main(seconds: float) -> None:
    act = await recorded_act()
    size = len(protocol.encode_frame(act))
    floors, floors4, referees, blocking, blocking4, twos, engines = [], [], [], [], [], [], []
    for _ in range(3):  # interleaved, so that a noisy neighbour hits both alike
        blocking.append(blocking_floor(seconds, act))
        blocking4.append(blocking_floor(seconds, act, processes=4))
        floors.append(await floor(seconds, act))
        floors4.append(await floor(seconds, act, processes=4))
        referees.append(await decisions_per_second(seconds))
        twos.append(await decisions_per_second(seconds, at_once=2))
        engines.append(engine_in_place(seconds))
    rtt, rtt4 = max(floors), max(floors4)
    dps, cpu = max(referees)
    brtt, bcpu = min(blocking, key=lambda b: b[1])
    brtt4, bcpu4 = min(blocking4, key=lambda b: b[1])
    cpu = min(cpu for _, cpu in referees)
    dps2 = max(dps for dps, _ in twos)
    cpu2 = min(cpu for _, cpu in twos)
    bare, in_place, hot = min(engines)
    reuse = await games_per_second(40, fresh=False)
    fresh = await games_per_second(10, fresh=True)
    print(
        f"floor: bare pipe round trip of a {size}-byte act frame to one bot process: {rtt:,.0f}/s"
    )
    print(
        f"blocking floor: the same with blocking pipes, no event loop: {brtt:,.0f}/s,"
        f" {bcpu * 1e6:.0f} us CPU per round trip"
    )
    print(
        f"blocking floor, going round 4 bot processes: {brtt4:,.0f}/s,"
        f" {bcpu4 * 1e6:.0f} us CPU per round trip"
    )
    print(f"floor: the same, going round 4 bot processes: {rtt4:,.0f}/s")
    print(f"referee: 4-seat games between 4 instant bots: {dps:,.0f} decisions/s")
    print(f"referee process CPU per decision: {cpu * 1e6:.0f} us")
    print(
        f"referee CPU per decision / blocking floor CPU per round trip: {cpu / bcpu:.1f}x"
        "  (target: at most 2x)"
    )
    print(f"referee CPU per decision / blocking floor going round 4 processes: {cpu / bcpu4:.1f}x")
    print(
        f"referee, 2 games at once in this process: {dps2:,.0f} decisions/s"
        f" ({dps2 / dps:.2f}x one game), {cpu2 * 1e6:.0f} us CPU per decision"
    )
    print(
        f"referee CPU per decision, 2 games at once / blocking floor: {cpu2 / bcpu:.1f}x"
        "  (target: at most 2x)"
    )
    print(
        f"engine in place: a bare blocking loop around the referee's core, 4 bot processes:"
        f" {bare * 1e6:.0f} us CPU per decision ({bare / bcpu4:.1f}x the floor going round"
        f" 4 processes; the referee {cpu / bcpu4:.1f}x)"
    )
    print(
        f"engine in place: the core's calls take {in_place * 1e6:.0f} us CPU per decision"
        f" there, {hot * 1e6:.0f} us in a loop with no pipes ({in_place / hot:.1f}x: cold"
        f" caches after each wake-up); {in_place / bcpu:.1f}x the floor's whole round trip"
    )
    print(f"referee / floor (1 process): {dps / rtt:.0%}  (target: at least 60%)")
    print(f"referee / floor (4 processes): {dps / rtt4:.0%}")
    print(f"games/s with processes reused: {reuse:,.2f} (40 games, start-up included)")
    print(f"games/s with a fresh process per game: {fresh:,.2f} (10 games)")
    print(f"reuse / fresh: {reuse / fresh:.1f}x")
    print("(best of 3 interleaved runs each: the most per second, the least CPU)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--one-cpu", action="store_true", help="pin everything to one CPU")
    args = parser.parse_args()
    if args.one_cpu:
        import os

        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})  # inherited by every process started from here
        print(f"(pinned to CPU {cpu}, with every bot process)")
    trio.run(main, args.seconds)
