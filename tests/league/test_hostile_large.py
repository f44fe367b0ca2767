"""Hostile bots against the process cap and the workers that play several games at once
(issue 14.1 and 14.2)."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
import trio

from arena.bots import BotSpec
from arena.errors import MachineError
from arena.messages import Play, Setup
from arena.referee import BotSession, Clocks, RunSettings, _pool, open_pools, play_seated
from arena.rules import GameConfig
from arena.runners import WorkerPool
from arena.testing import alive, pids, spec


class Peak:
    """The most bot processes alive at once among those that wrote their pids to
    `files`, sampled every 10 ms from `run` until `stop`."""

    def __init__(self, *files: Path) -> None:
        self.files = files
        self.most = 0
        self._sampling = True

    async def run(self) -> None:
        while self._sampling:
            self.most = max(self.most, sum(alive(p) for f in self.files for p in pids(f)))
            await trio.sleep(0.01)

    def stop(self) -> None:
        self._sampling = False


async def test_a_process_closed_to_make_room_counts_until_it_is_gone(tmp_path: Path) -> None:
    """A bot that ignores bye and SIGTERM lingers through its exit and kill graces when
    it is closed to make room. It counts against the limit until it is gone: the next
    start waits for it, and never more than the limit are alive."""
    bad_pids, good_pids = tmp_path / "bad", tmp_path / "good"
    specs = [spec("ignore_sigterm", bad_pids, name="bad")]
    specs += [spec("good", good_pids, name=f"g{i}") for i in range(3)]
    clocks = Clocks(decision_ms=5000, exit_grace_ms=600, kill_grace_ms=400)
    settings = RunSettings(clocks=clocks, max_processes=2)
    peak = Peak(bad_pids, good_pids)

    async with open_pools(specs, settings) as pools, trio.open_nursery() as nursery:
        nursery.start_soon(peak.run)
        first = await play_seated(
            [pools["bad"], pools["g0"]], GameConfig(players=2), 1, clocks=clocks, game_id="a"
        )
        assert not first.faults
        start = trio.current_time()
        second = await play_seated(
            [pools["g1"], pools["g2"]], GameConfig(players=2), 2, clocks=clocks, game_id="b"
        )
        waited = trio.current_time() - start
        assert not second.faults
        await trio.sleep(0.1)
        peak.stop()
    assert pids(bad_pids)
    assert not alive(pids(bad_pids)[0])
    assert peak.most == 2
    assert waited >= 0.6  # the start waited for the lingering bot to be killed


async def test_a_process_closed_after_its_game_counts_until_it_is_gone(tmp_path: Path) -> None:
    """With --fresh-process every process is closed when its game ends. One of a bot
    that ignores bye and SIGTERM lingers through its exit and kill graces: it counts
    against the limit until it is gone, so a game starting meanwhile waits for it."""
    bad_pids, good_pids = tmp_path / "bad", tmp_path / "good"
    specs = [spec("ignore_sigterm", bad_pids, name="bad")]
    specs += [spec("good", good_pids, name=f"g{i}") for i in range(3)]
    clocks = Clocks(decision_ms=5000, exit_grace_ms=600, kill_grace_ms=400)
    settings = RunSettings(clocks=clocks, max_processes=2, fresh_process=True)
    peak = Peak(bad_pids, good_pids)
    waited = 0.0

    async with open_pools(specs, settings) as pools, trio.open_nursery() as nursery:
        nursery.start_soon(peak.run)
        bad = pools["bad"]
        giving_back, second_done = trio.Event(), trio.Event()
        release = bad.release

        async def released(session: BotSession) -> None:
            giving_back.set()
            await release(session)

        bad.release = released  # type: ignore[method-assign]

        async def second() -> None:  # starts as the first game gives its processes back
            nonlocal waited
            await giving_back.wait()
            start = trio.current_time()
            game = await play_seated(
                [pools["g1"], pools["g2"]], GameConfig(players=2), 2, clocks=clocks, game_id="b"
            )
            waited = trio.current_time() - start
            assert not game.faults
            second_done.set()

        nursery.start_soon(second)
        first = await play_seated(
            [bad, pools["g0"]], GameConfig(players=2), 1, clocks=clocks, game_id="a"
        )
        assert not first.faults
        await second_done.wait()
        peak.stop()
    assert not alive(pids(bad_pids)[0])
    assert peak.most == 2
    assert waited >= 0.6  # the start waited for the lingering bot to be killed


async def test_a_hanging_bot_holds_up_only_its_own_game() -> None:
    """One worker process plays two games at once; in one of them a bot hangs until its
    decision time runs out. The other game finishes first, untouched."""
    pidfile = Path("/dev/null")
    bots = (
        spec("hang", pidfile, name="hang"),
        spec("good", pidfile, name="g0"),
        spec("good", pidfile, name="g1"),
        spec("good", pidfile, name="g2"),
    )
    clocks = Clocks(decision_ms=3000, exit_grace_ms=300, kill_grace_ms=200)
    settings = RunSettings(clocks=clocks)
    setup = Setup(bots, settings, GameConfig(players=2))
    results = {}
    async with WorkerPool(1, games=2).players(setup) as players:

        async def play(player: int, game: Play) -> None:
            results[game.game_id] = await players[player](game)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(play, 0, Play("slow", ("hang", "g0"), 1, None))
            nursery.start_soon(play, 1, Play("quick", ("g1", "g2"), 2, None))
    slow, quick = results["slow"], results["quick"]
    assert [f.cause for f in slow.result.faults] == ["timeout"]
    assert not quick.result.faults
    assert quick.finished < slow.finished
    assert quick.finished - quick.started < 2.5


async def test_a_start_waiting_for_a_process_closed_to_make_room_closes_no_other(
    tmp_path: Path,
) -> None:
    """Room for 3: bad and g0 play, then g1 and g2. g2's start closes bad, the least
    recently used idle process, which lingers through its graces; while it goes, the
    start waits for it. It closed no more: g0's idle process was not in the way (bad,
    closing, already makes the room), and g0 plays its next game with it."""
    bad_pids, good_pids = tmp_path / "bad", tmp_path / "good"
    specs = [spec("ignore_sigterm", bad_pids, name="bad")]
    specs += [spec("good", good_pids, name=f"g{i}") for i in range(3)]
    clocks = Clocks(decision_ms=5000, exit_grace_ms=600, kill_grace_ms=400)
    settings = RunSettings(clocks=clocks, max_processes=3)
    async with open_pools(specs, settings) as pools:
        games = [("bad", "g0"), ("g1", "g2"), ("g0", "g1")]
        for i, (a, b) in enumerate(games):
            game = await play_seated(
                [pools[a], pools[b]], GameConfig(players=2), i, clocks=clocks, game_id=f"g{i}"
            )
            assert not game.faults
        started = {name: pool.started for name, pool in pools.items()}
    assert not alive(pids(bad_pids)[0])
    assert started == {"bad": 1, "g0": 1, "g1": 1, "g2": 1}


async def test_a_bot_that_cannot_start_leaves_its_place_under_the_limit(tmp_path: Path) -> None:
    """Room for 3: a bot whose program is missing fails to start (seated out, charged a
    crash); its start counted against the limit only while it was tried. g1 and g2 then
    start beside g0's idle process, and g0 plays its next game with it (a place kept
    for the failed start had g2's start close it, and g0 start again)."""
    good_pids = tmp_path / "good"
    specs = [BotSpec("missing", (str(tmp_path / "no-such-program"),), None)]
    specs += [spec("good", good_pids, name=f"g{i}") for i in range(3)]
    clocks = Clocks(decision_ms=5000)
    settings = RunSettings(clocks=clocks, max_processes=3)
    async with open_pools(specs, settings) as pools:
        for i, (a, b) in enumerate([("missing", "g0"), ("g1", "g2"), ("g0", "g1")]):
            game = await play_seated(
                [pools[a], pools[b]], GameConfig(players=2), i, clocks=clocks, game_id=f"g{i}"
            )
            assert [(f.seat, f.cause) for f in game.faults] == ([(0, "crash")] if i == 0 else [])
        started = {name: pool.started for name, pool in pools.items()}
    assert started == {"missing": 1, "g0": 1, "g1": 1, "g2": 1}


async def test_a_process_that_fails_its_hello_is_killed_at_once(tmp_path: Path) -> None:
    """A process that does not say hello in its start-up time is seated out of its game:
    it is killed then, not left running (not stopped either: it never had a game) on the
    machine the other seats play on until the game ends."""
    pidfile = tmp_path / "pids"
    clocks = Clocks(decision_ms=5000, startup_ms=300)
    settings = RunSettings(clocks=clocks)
    async with open_pools([spec("silent", pidfile, name="silent")], settings) as pools:
        session = await pools["silent"].acquire()
        assert session.fault is not None
        assert session.fault.cause == "timeout"
        assert pids(pidfile)
        assert not any(alive(pid) for pid in pids(pidfile))
        await pools["silent"].release(session)


async def test_a_process_in_a_game_is_not_reported_warm(tmp_path: Path) -> None:
    """What a worker reports warm after a game are its idle processes, ready for
    another: not one in a game it plays at the same time."""
    pidfile = tmp_path / "pids"
    settings = RunSettings(clocks=Clocks(decision_ms=5000))
    async with open_pools([spec("good", pidfile, name="b")], settings) as pools:
        pool = pools["b"]
        session = await pool.acquire("t0-d0")
        assert pool.warm() == []
        await pool.release(session)
        assert pool.warm() == [("t0-d0",)]


@pytest.mark.parametrize(
    "number", [errno.EAGAIN, errno.ENOMEM, errno.EMFILE, errno.ENFILE, errno.ENOSPC]
)
async def test_a_start_the_machine_refuses_charges_no_bot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, number: int
) -> None:
    """A fork the machine refuses (EAGAIN: no more processes; ENOMEM), no descriptors
    left, no disk for the bot's private folder: the game stops with a MachineError
    that says so, and no bot is charged a crash (in a loaded league, one after
    another would be disqualified for it)."""

    async def refused(*args: object, **kwargs: object) -> None:
        raise OSError(number, os.strerror(number))

    monkeypatch.setattr(_pool, "start_process", refused)
    specs = [spec("good", tmp_path / "pids", name=f"g{i}") for i in range(2)]
    clocks = Clocks(decision_ms=5000)
    with pytest.raises(BaseExceptionGroup) as caught:
        async with open_pools(specs, RunSettings(clocks=clocks)) as pools:
            await play_seated(
                [pools["g0"], pools["g1"]], GameConfig(players=2), 1, clocks=clocks, game_id="a"
            )
    errors = leaves(caught.value)
    assert errors
    assert all(isinstance(err, MachineError) for err in errors), errors
    assert all("nothing is charged to it" in str(err) for err in errors)


def leaves(error: BaseException) -> list[BaseException]:
    """The exceptions in `error`, groups opened."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]
