"""Issue 14.1 and 14.2: bot processes alive at once are capped (least recently used
closed first), games are handed out table by table to reuse processes, and a worker
process plays several games at once."""

from __future__ import annotations

import sys
from pathlib import Path

import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.bots import BotSpec
from arena.league import Dispatch, LeagueConfig, Progress, run_league
from arena.messages import Play, Setup, WorkerSettings
from arena.referee import Clocks, RunSettings, open_pools, play_seated
from arena.rules import GameConfig
from arena.runners import WorkerPool
from arena.schedule import make_schedule
from arena.store import Store

from ..referee.botscripts import alive, pids, spec


async def test_the_processes_alive_at_once_stay_within_the_limit(tmp_path: Path) -> None:
    """Six bots in 2-seat games with room for three processes: b0 plays every game and
    keeps its process; each new bot closes the least recently used idle process (b1
    comes back to a new one), never more than three are alive, and b5, used more
    lately than b4, is the one that survives b1's return."""
    pidfile = tmp_path / "pids"
    specs = [spec("good", pidfile, name=f"b{i}") for i in range(6)]
    settings = RunSettings(clocks=Clocks(decision_ms=5000), max_processes=3)
    most = 0
    async with open_pools(specs, settings) as pools:
        pairs = [("b0", "b1"), ("b0", "b2"), ("b0", "b3"), ("b0", "b4"), ("b0", "b5")]
        pairs += [("b1", "b0"), ("b0", "b5")]
        for i, (a, b) in enumerate(pairs):
            result = await play_seated(
                [pools[a], pools[b]], GameConfig(players=2), i, clocks=settings.clocks,
                game_id=f"g{i}",
            )  # fmt: skip
            assert not result.faults
            await trio.sleep(0.2)  # the closing of evicted processes, in the background
            most = max(most, sum(alive(pid) for pid in pids(pidfile)))
        started = {name: pool.started for name, pool in pools.items()}
    assert most <= 3
    assert started == {"b0": 1, "b1": 2, "b2": 1, "b3": 1, "b4": 1, "b5": 1}
    assert not any(alive(pid) for pid in pids(pidfile))


async def test_without_a_limit_every_process_is_kept(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    specs = [spec("good", pidfile, name=f"b{i}") for i in range(4)]
    settings = RunSettings(clocks=Clocks(decision_ms=5000))
    async with open_pools(specs, settings) as pools:
        for i, (a, b) in enumerate([("b0", "b1"), ("b2", "b3"), ("b0", "b1")]):
            await play_seated(
                [pools[a], pools[b]], GameConfig(players=2), i, clocks=settings.clocks,
                game_id=f"g{i}",
            )  # fmt: skip
        assert sum(alive(pid) for pid in pids(pidfile)) == 4
        assert all(pool.started == 1 for pool in pools.values())


def bot_code(delay: float) -> str:
    return (
        "import sys, time, msgpack\n"
        "r, w = sys.stdin.buffer, sys.stdout.buffer\n"
        "while (h := r.read(4)) and len(h) == 4:\n"
        "    m = msgpack.unpackb(r.read(int.from_bytes(h, 'big')))\n"
        "    if m['type'] == 'hello':\n"
        "        b = msgpack.packb({'type': 'hello', 'name': 's', 'version': '1', 'protocol': 1})\n"
        "    elif m['type'] == 'act':\n"
        f"        time.sleep({delay})\n"
        "        b = msgpack.packb({'type': 'action', 'request_id': m['request_id'],"
        " 'choice': 0})\n"
        "    elif m['type'] == 'bye':\n"
        "        break\n"
        "    else:\n"
        "        continue\n"
        "    w.write(len(b).to_bytes(4, 'big') + b); w.flush()\n"
    )


def slow_bot(name: str) -> BotSpec:
    return BotSpec(name, (sys.executable, "-c", bot_code(0.02)), None)


async def test_one_worker_process_plays_several_games_at_once() -> None:
    """Two games sent to one worker at once are played at the same time (their times
    overlap) and each answer comes back to the game it belongs to."""
    bots = tuple(slow_bot(f"s{i}") for i in range(4))
    setup = Setup(
        bots, WorkerSettings.of(RunSettings(clocks=Clocks(decision_ms=5000)), "none"),
        GameConfig(players=2),
    )  # fmt: skip
    results = {}
    async with WorkerPool(1, games=2).players(setup) as players:
        assert len(players) == 2

        async def play(player_index: int, game: Play) -> None:
            results[game.game_id] = await players[player_index](game)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(play, 0, Play("g1", ("s0", "s1"), 1, None))
            nursery.start_soon(play, 1, Play("g2", ("s2", "s3"), 2, None))
    one, two = results["g1"], results["g2"]
    assert one.result.game_id == "g1"
    assert two.result.game_id == "g2"
    assert one.result.names == ("s0", "s1")
    assert two.result.names == ("s2", "s3")
    assert one.started < two.finished
    assert two.started < one.finished


@settings(max_examples=40, deadline=None)
@given(
    bots=st.integers(4, 9),
    size=st.integers(2, 4),
    duplicate=st.booleans(),
    players=st.integers(1, 4),
    limit=st.sampled_from([None, 4, 16]),
    order=st.randoms(use_true_random=False),
)
def test_dispatch_hands_out_every_game_once_a_table_at_a_time(
    bots: int, size: int, duplicate: bool, players: int, limit: int | None, order: object
) -> None:
    """Whatever order the players ask in, every game is handed out exactly once; one
    player gets the games of a table back to back, with duplicate deals rotation by
    rotation (several players may split a table at the end, when one with nothing left
    takes over half of another's queue)."""
    import random

    assert isinstance(order, random.Random)
    names = [f"b{i}" for i in range(bots)]
    schedule = make_schedule(
        names, table_size=size, games_per_table=size * 2, seed=3, duplicate=duplicate,
        max_tables=12,
    )  # fmt: skip
    dispatch = Dispatch(list(schedule.games), limit, size)
    got: dict[int, list[int]] = {p: [] for p in range(players)}
    waiting = list(range(players))
    while waiting:
        player = order.choice(waiting)
        game = dispatch.next(player)
        if game is None:
            waiting.remove(player)
        else:
            got[player].append(game.index)
    handed = sorted(i for games in got.values() for i in games)
    assert handed == list(range(len(schedule.games)))
    if players == 1:  # one player: whole tables, one after the other, by rotation
        games = got[0]
        for start in range(0, len(games), size * 2):
            block = [schedule.games[i] for i in games[start : start + size * 2]]
            assert len({g.table for g in block}) == 1
            if duplicate:
                assert [g.rotation for g in block] == sorted(g.rotation for g in block)


def test_an_idle_player_takes_over_half_of_the_longest_queue() -> None:
    names = ["a", "b", "c"]
    schedule = make_schedule(names, table_size=3, games_per_table=9, seed=1, duplicate=False)
    dispatch = Dispatch(list(schedule.games), None, 3)  # one table of 9 games
    first = dispatch.next("p")
    assert first is not None
    stolen = dispatch.next("q")  # no table left: q takes the last 4 of p's 8
    assert stolen is not None
    rest_p = [dispatch.next("p") for _ in range(4)]
    assert dispatch.next("p") is not None  # p's queue is empty: it takes back 1 of q's 3
    order = [first.index, *(g.index for g in rest_p if g is not None)]
    assert order == [0, 1, 2, 3, 4]
    assert stolen.index == 5
    left = [dispatch.next("q"), dispatch.next("q"), dispatch.next("q"), dispatch.next("p")]
    assert left.count(None) == 2
    handed = {0, 1, 2, 3, 4, 5, *(g.index for g in left if g is not None)}
    assert len(handed) == 8  # with the one p took back: all 9, none twice


def test_dispatch_prefers_a_table_with_bots_just_used() -> None:
    names = [f"b{i}" for i in range(12)]
    schedule = make_schedule(
        names, table_size=3, games_per_table=3, seed=5, duplicate=False, max_tables=40
    )
    dispatch = Dispatch(list(schedule.games), None, 3)
    first = dispatch.next("p")
    assert first is not None
    for _ in range(2):
        dispatch.next("p")
    second = dispatch.next("p")
    assert second is not None
    later_tables = {g.table for g in schedule.games if g.table != first.table}
    best = max(
        len(set(schedule.tables[t]) & set(first.seats)) for t in later_tables
    )  # the most bots any other table shares with the first
    assert best >= 1
    assert len(set(second.seats) & set(first.seats)) == best


async def test_a_league_with_a_process_limit_records_every_game(tmp_path: Path) -> None:
    """A league of 8 bots at 2 games per worker and room for 6 processes per worker
    plays everything, as the same league without a limit does (same results)."""
    bots = tmp_path / "bots"
    for i in range(8):
        (bots / f"b{i}").mkdir(parents=True)
        (bots / f"b{i}" / "bot.py").write_text(bot_code(0))
        (bots / f"b{i}" / "bot.toml").write_text(f'name = "b{i}"\nrun = "python3 bot.py"\n')
    results = []
    for limit in (6, None):
        config = LeagueConfig(
            bots=bots, store=tmp_path / f"s{limit}.sqlite", game=GameConfig(players=3),
            seed=11, table_size=3, games_per_table=3, duplicate=True, max_tables=12,
            concurrency=4, max_processes=limit,
        )  # fmt: skip
        with Store.open(config.store) as store:
            report = await run_league(config, store, Progress())
            assert report.played == 36
            results.append(sorted(store.seat_rows(), key=lambda row: (row.game_id, row.seat)))
    assert results[0] == results[1]
