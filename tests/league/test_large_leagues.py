"""Issue 14.1 and 14.2: bot processes alive at once are capped (least recently used
closed first), games are handed out table by table to reuse processes, and a worker
process plays several games at once."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.bots import BotSpec
from arena.league import Dispatch, LeagueConfig, Progress, run_league
from arena.league._dispatch import _PoolModel
from arena.messages import Play, Setup
from arena.referee import Clocks, RunSettings, open_pools, play_seated
from arena.rules import GameConfig
from arena.runners import WorkerPool
from arena.schedule import make_schedule
from arena.store import Store
from arena.testing import alive, pids, spec


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
        bots, RunSettings(clocks=Clocks(decision_ms=5000)),
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


@settings(max_examples=60, deadline=None)
@given(
    bots=st.integers(4, 9),
    size=st.integers(2, 4),
    duplicate=st.booleans(),
    deals=st.integers(1, 3),
    players=st.integers(1, 4),
    limit=st.sampled_from([None, 4, 16]),
    done=st.sets(st.integers(0, 200), max_size=30),
    order=st.randoms(use_true_random=False),
)
def test_dispatch_hands_out_every_game_once_a_unit_at_a_time(
    bots: int,
    size: int,
    duplicate: bool,
    deals: int,
    players: int,
    limit: int | None,
    done: set[int],
    order: object,
) -> None:
    """Whatever order the players ask in, and whichever games are played already (a
    resume), every game left is handed out exactly once. One player gets the games of
    a unit back to back: a table's games, with duplicate deals a table's games in one
    rotation, deal by deal (several players may split a unit at the end, when one with
    nothing left takes over half of another's queue)."""
    import random

    assert isinstance(order, random.Random)
    names = [f"b{i}" for i in range(bots)]
    schedule = make_schedule(
        names, table_size=size, games_per_table=size * deals, seed=3, duplicate=duplicate,
        max_tables=12,
    )  # fmt: skip
    todo = [g for g in schedule.games if g.index not in done]
    dispatch = Dispatch(schedule.games, limit, {f"g{i:06d}" for i in done})
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
    assert handed == [g.index for g in todo]
    if players == 1 and not done:  # one player: unit after unit, each whole, by deal

        def unit(index: int) -> tuple[int, int]:
            game = schedule.games[index]
            return game.table, game.rotation if duplicate else 0

        runs = [list(run) for _, run in itertools.groupby(got[0], key=unit)]
        assert len({unit(run[0]) for run in runs}) == len(runs)  # no unit comes back
        for run in runs:
            assert len(run) == sum(unit(g.index) == unit(run[0]) for g in todo)
            assert [schedule.games[i].deal for i in run] == sorted(
                schedule.games[i].deal for i in run
            )


@settings(max_examples=30, deadline=None)
@given(
    duplicate=st.booleans(),
    limit=st.sampled_from([None, 3, 8]),
    cut=st.floats(0, 1),
)
def test_a_resumed_dispatch_goes_on_as_without_the_interruption(
    duplicate: bool, limit: int | None, cut: float
) -> None:
    """One player gets the games of a schedule in some order; told that the first of
    them are played already (a league resumed at a concurrency of 1), a new `Dispatch`
    hands out the others in the same order, so that a bot disqualified after its faults
    in a row forfeits the same games."""
    names = [f"b{i}" for i in range(7)]
    schedule = make_schedule(
        names, table_size=3, games_per_table=6, seed=2, duplicate=duplicate, max_tables=20
    )
    dispatch = Dispatch(schedule.games, limit)
    whole = list(iter(lambda: dispatch.next("p"), None))
    assert sorted(g.index for g in whole) == list(range(len(schedule.games)))
    played = round(cut * len(whole))
    resumed = Dispatch(schedule.games, limit, {g.game_id for g in whole[:played]})
    assert list(iter(lambda: resumed.next("q"), None)) == whole[played:]


def test_with_duplicate_deals_a_process_plays_one_rotation_of_many_tables() -> None:
    """The hand-out order reuses processes across tables with duplicate deals: played
    by a pool that never lets a process play two games of one group and closes the least
    recently used past its room (modelled here independently of `Dispatch`), it
    needs under a fifth of the processes of a fresh process per game, where a table's
    rotations back to back need 16 processes for its 8 games (2 per game) unless other
    tables share its bots while theirs live."""
    names = [f"b{i}" for i in range(24)]
    schedule = make_schedule(
        names, table_size=4, games_per_table=8, seed=7, duplicate=True, max_tables=60
    )
    room = 16
    dispatch = Dispatch(schedule.games, room)
    idle: list[tuple[str, set[str]]] = []  # least recently used first
    starts = games = 0
    while (game := dispatch.next("p")) is not None:
        assert game.group is not None
        taken = []
        for name in game.seats:
            process = next(
                (p for p in reversed(idle) if p[0] == name and game.group not in p[1]), None
            )
            if process is not None:
                idle.remove(process)
            else:
                starts += 1
                while idle and len(idle) + len(taken) >= room:
                    idle.pop(0)
                process = (name, set())
            process[1].add(game.group)
            taken.append(process)
        idle.extend(taken)
        games += 1
    assert games == len(schedule.games) == 480
    assert starts < 0.8 * games  # fresh processes: 4 a game


def test_the_dispatch_models_the_pool_of_processes() -> None:
    """`Dispatch`'s model of a worker's processes starts and closes them as the pool
    does: the games of `test_the_processes_alive_at_once_stay_within_the_limit` start
    7 processes in both; a duplicate group takes another process of each bot."""
    model = _PoolModel(3)
    pairs = [(0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (1, 0), (0, 5)]
    for pair in pairs:
        model.play(pair, None)
    assert model.started == 7
    assert sorted(p.bot for ps in model.processes.values() for p in ps) == [0, 1, 5]
    model = _PoolModel(None)
    for pair in [(0, 1), (1, 0), (0, 1), (0, 2)]:
        model.play(pair, "t0-d0")
    assert model.started == 8  # a process for each game of b0 (4), of b1 (3), of b2 (1)
    model.play((1, 0), "t0-d1")
    assert model.started == 8
    assert [len(model.processes[bot]) for bot in (0, 1, 2)] == [4, 3, 1]


def test_an_idle_player_takes_over_half_of_the_longest_queue() -> None:
    names = ["a", "b", "c"]
    schedule = make_schedule(names, table_size=3, games_per_table=9, seed=1, duplicate=False)
    dispatch = Dispatch(schedule.games, None)  # one table of 9 games
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
    dispatch = Dispatch(schedule.games, None)
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
            concurrency=4, run=RunSettings(max_processes=limit),
        )  # fmt: skip
        with Store.open(config.store) as store:
            report = await run_league(config, store, Progress())
            assert report.played == 36
            results.append(sorted(store.seat_rows(), key=lambda row: (row.game_id, row.seat)))
    assert results[0] == results[1]
