"""Issue 14.1 and 14.2: bot processes alive at once are capped (least recently used
closed first), games are handed out table by table to reuse processes, and a worker
process plays several games at once."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.bots import BotSpec
from arena.league import Dispatch, LeagueConfig, Progress, run_league
from arena.messages import Play, Setup, Warm
from arena.referee import Clocks, RunSettings, _pool, open_pools, play_seated
from arena.rules import GameConfig
from arena.runners import LocalRunner, WorkerPool
from arena.schedule import Schedule, ScheduledGame, make_schedule
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
    warm=st.lists(st.integers(0, 8), max_size=6),
    done=st.sets(st.integers(0, 200), max_size=30),
    order=st.randoms(use_true_random=False),
)
def test_dispatch_hands_out_every_game_once_a_unit_at_a_time(
    bots: int,
    size: int,
    duplicate: bool,
    deals: int,
    players: int,
    warm: list[int],
    done: set[int],
    order: object,
) -> None:
    """Whatever order the players ask in, whatever their workers report warm, and
    whichever games are played already (a resume), every game left is handed out
    exactly once. One player gets the games of
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
    dispatch = Dispatch(schedule.games, {f"g{i:06d}" for i in done})
    got: dict[int, list[int]] = {p: [] for p in range(players)}
    waiting = list(range(players))
    while waiting:
        player = order.choice(waiting)
        game = dispatch.next(player)
        if game is None:
            waiting.remove(player)
        else:
            got[player].append(game.index)
            dispatch.report(player, [Warm(f"b{i}", (game.group or "",)) for i in warm])
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
@given(duplicate=st.booleans(), cut=st.floats(0, 1))
def test_a_resumed_dispatch_goes_on_as_without_the_interruption(
    duplicate: bool, cut: float
) -> None:
    """One player gets the games of a schedule in some order; told that the first of
    them are played already (a league resumed at a concurrency of 1, whose `Dispatch`
    follows no report), a new `Dispatch` hands out the others in the same order, so that
    a bot disqualified after its faults in a row forfeits the same games."""
    names = [f"b{i}" for i in range(7)]
    schedule = make_schedule(
        names, table_size=3, games_per_table=6, seed=2, duplicate=duplicate, max_tables=20
    )
    dispatch = Dispatch(schedule.games, reports=False)

    def next_game() -> ScheduledGame | None:
        game = dispatch.next("p")
        dispatch.report("p", [Warm(name) for name in names])  # (not followed)
        return game

    whole = list(iter(next_game, None))
    assert sorted(g.index for g in whole) == list(range(len(schedule.games)))
    played = round(cut * len(whole))
    resumed = Dispatch(schedule.games, {g.game_id for g in whole[:played]}, reports=False)
    assert list(iter(lambda: resumed.next("q"), None)) == whole[played:]


@settings(max_examples=30, deadline=None)
@given(duplicate=st.booleans(), done=st.sets(st.integers(0, 59), max_size=40))
def test_a_dispatch_resumed_after_any_games_hands_out_the_rest_in_their_order(
    duplicate: bool, done: set[int]
) -> None:
    """Whichever games are played already (by several players before: not the first
    of one player's order), a resumed `Dispatch` following no report hands out the
    others in the order one player would have got them, those handed out among the
    played ones first."""
    names = [f"b{i}" for i in range(6)]
    schedule = make_schedule(
        names, table_size=3, games_per_table=3, seed=8, duplicate=duplicate, max_tables=20
    )
    dispatch = Dispatch(schedule.games, reports=False)
    whole = list(iter(lambda: dispatch.next("p"), None))
    played = {f"g{i:06d}" for i in done}
    resumed = Dispatch(schedule.games, played, reports=False)
    left = list(iter(lambda: resumed.next("q"), None))
    assert left == [g for g in whole if g.game_id not in played]


def test_with_duplicate_deals_a_process_plays_one_rotation_of_many_tables() -> None:
    """The hand-out order reuses processes across tables with duplicate deals: played
    by a pool that never lets a process play two games of one group and closes the least
    recently used past its room (modelled here, reporting its idle processes to
    `Dispatch` after each game as a worker does), it needs under a fifth of the
    processes of a fresh process per game, where a table's rotations back to back need
    16 processes for its 8 games (2 per game) unless other tables share its bots while
    theirs live."""
    names = [f"b{i}" for i in range(24)]
    schedule = make_schedule(
        names, table_size=4, games_per_table=8, seed=7, duplicate=True, max_tables=60
    )
    room = 16
    dispatch = Dispatch(schedule.games)
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
        dispatch.report("p", [Warm(name, tuple(groups)) for name, groups in idle])
    assert games == len(schedule.games) == 480
    assert starts < 0.8 * games  # fresh processes: 4 a game


async def test_a_worker_reports_the_processes_it_holds_warm(tmp_path: Path) -> None:
    """With each result, the body of a game (here in this process, as in a worker)
    says which bot processes it holds idle, as the pool keeps them: the games of
    `test_the_processes_alive_at_once_stay_within_the_limit` leave b0, b1 and b5 (b1's
    second process), after 7 starts in all; a duplicate group's games leave a process of
    each bot per game it sat at, each naming the group."""
    pidfile = tmp_path / "pids"
    specs = tuple(spec("good", pidfile, name=f"b{i}") for i in range(6))
    settings = RunSettings(clocks=Clocks(decision_ms=5000), max_processes=3)
    setup = Setup(specs, settings, GameConfig(players=2))
    pairs = [(0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (1, 0), (0, 5)]
    launched = 0
    async with LocalRunner().players(setup) as (play,):
        for i, (a, b) in enumerate(pairs):
            played = await play(Play(f"g{i}", (f"b{a}", f"b{b}"), i, None))
            launched += sum(played.launched.values())
    assert sorted(w.bot for w in played.warm) == ["b0", "b1", "b5"]
    assert launched == 7
    setup = Setup(specs, RunSettings(clocks=Clocks(decision_ms=5000)), GameConfig(players=2))
    async with LocalRunner().players(setup) as (play,):
        for i, seats in enumerate([("b0", "b1"), ("b1", "b0"), ("b0", "b2")]):
            played = await play(Play(f"d{i}", seats, 7, "t0-d0"))
    warm = sorted((w.bot, w.groups) for w in played.warm)
    assert warm == [("b0", ("t0-d0",))] * 3 + [("b1", ("t0-d0",))] * 2 + [("b2", ("t0-d0",))]


async def test_a_process_that_faulted_is_neither_kept_nor_reported_warm(tmp_path: Path) -> None:
    """A bot whose process crashed in its game is charged the crash and its process is
    gone: the pool keeps nothing of it (it would count against the process limit until
    the bot's next game) and the worker reports no process of it warm (the dispatch
    would send the bot's next games there for a process that is dead). The next game
    starts a new one."""
    pidfile = tmp_path / "pids"
    specs = (spec("crash_mid_game", pidfile, name="crash"), spec("good", pidfile, name="good"))
    setup = Setup(specs, RunSettings(clocks=Clocks(decision_ms=5000)), GameConfig(players=2))
    async with LocalRunner().players(setup) as (play,):
        played = await play(Play("g0", ("crash", "good"), 1, None))
        assert [f.cause for f in played.result.faults] == ["crash"]
        assert [w.bot for w in played.warm] == ["good"]
        again = await play(Play("g1", ("crash", "good"), 2, None))
    assert again.launched == {"crash": 1}


async def test_a_worker_reports_a_processs_latest_groups_and_never_reuses_it_in_an_older(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process plays on for thousands of games: a report of every group it played
    would grow with the league, on every result. The worker reports the latest
    (`REPORTED_GROUPS`, 3 here), and its pool still gives no process a game of a group
    it played, reported or not: a new process plays it."""
    monkeypatch.setattr(_pool, "REPORTED_GROUPS", 3)
    pidfile = tmp_path / "pids"
    specs = tuple(spec("good", pidfile, name=f"b{i}") for i in range(2))
    setup = Setup(specs, RunSettings(clocks=Clocks(decision_ms=5000)), GameConfig(players=2))
    launched = 0
    async with LocalRunner().players(setup) as (play,):
        for i in range(5):
            played = await play(Play(f"g{i}", ("b0", "b1"), i, f"t{i}-d0"))
            launched += sum(played.launched.values())
        assert launched == 2  # one process a bot, all five groups
        assert sorted((w.bot, w.groups) for w in played.warm) == [
            ("b0", ("t2-d0", "t3-d0", "t4-d0")),
            ("b1", ("t2-d0", "t3-d0", "t4-d0")),
        ]
        again = await play(Play("g5", ("b1", "b0"), 0, "t0-d0"))  # t0's other rotation
    assert again.launched == {"b0": 1, "b1": 1}


def test_an_idle_player_takes_over_half_of_the_longest_queue() -> None:
    names = ["a", "b", "c"]
    schedule = make_schedule(names, table_size=3, games_per_table=9, seed=1, duplicate=False)
    dispatch = Dispatch(schedule.games)  # one table of 9 games
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


def test_players_starting_together_get_rotation_0_of_different_tables() -> None:
    """With duplicate deals, the players asking for their first games get rotation 0 of
    a table each, the tables in the schedule's order: rotation 1 of the first table
    would share each deal (a duplicate group) with the first player's games, which
    `_Book.drive` plays one at a time, so the second player would wait on the first."""
    names = [f"b{i}" for i in range(4)]  # 4 tables
    schedule = make_schedule(names, table_size=3, games_per_table=6, seed=4, duplicate=True)
    dispatch = Dispatch(schedule.games)
    firsts = [dispatch.next(player) for player in ("p", "q", "r")]
    assert [(g.table, g.rotation, g.deal) for g in firsts if g is not None] == [
        (0, 0, 0),
        (1, 0, 0),
        (2, 0, 0),
    ]


def near_units(schedule: Schedule, first: ScheduledGame) -> list[int]:
    """The tables other than `first`'s that share a bot with it."""
    return [
        t
        for t in range(len(schedule.tables))
        if t != first.table and set(schedule.tables[t]) & set(first.seats)
    ]


@pytest.mark.parametrize("reports", [True, False])
def test_dispatch_prefers_a_table_with_bots_just_used(reports: bool) -> None:
    """After a table's games, a player whose worker holds those bots' processes warm
    (as it reports, or, not following reports, as a lone player's worker is taken to)
    gets the table that most of them can play."""
    names = [f"b{i}" for i in range(12)]
    schedule = make_schedule(
        names, table_size=3, games_per_table=3, seed=5, duplicate=False, max_tables=40
    )
    dispatch = Dispatch(schedule.games, reports=reports)
    first = dispatch.next("p")
    assert first is not None
    for _ in range(2):
        dispatch.next("p")
    if reports:
        dispatch.report("p", [Warm(name) for name in first.seats])
    second = dispatch.next("p")
    assert second is not None
    best = max(
        len(set(schedule.tables[t]) & set(first.seats)) for t in near_units(schedule, first)
    )  # the most bots any other table shares with the first
    assert best >= 2
    assert len(set(second.seats) & set(first.seats)) == best


def test_dispatch_follows_what_the_worker_reports() -> None:
    """The choice follows the worker's report, not the games it was given: a worker
    whose pool closed the processes of the bots that the preferred table shares with the
    last one is no longer sent that table, but one that the processes it still holds
    can play; one that holds nothing gets the first table left in the schedule."""
    names = [f"b{i}" for i in range(12)]
    schedule = make_schedule(
        names, table_size=3, games_per_table=3, seed=5, duplicate=False, max_tables=40
    )

    def second_table(warm: list[str] | None) -> tuple[ScheduledGame, ScheduledGame]:
        dispatch = Dispatch(schedule.games)
        first = dispatch.next("p")
        assert first is not None
        for _ in range(2):
            dispatch.next("p")
        if warm is not None:
            dispatch.report("p", [Warm(name) for name in warm])
        second = dispatch.next("p")
        assert second is not None
        return first, second

    first, preferred = second_table(list(second_table(None)[0].seats))
    shared = set(preferred.seats) & set(first.seats)
    kept = [name for name in first.seats if name not in shared]  # the others evicted
    assert kept
    _, second = second_table(kept)
    assert second.table != preferred.table
    assert set(second.seats) & set(kept)
    _, second = second_table([])
    assert second.table == min(t for t in range(len(schedule.tables)) if t != first.table)


def test_a_player_holding_nothing_warm_gets_the_first_table_left_not_a_near_one() -> None:
    """A worker that holds no process gets the first table left in the schedule's
    order, not one sharing a bot with its last table (none of them is any readier)."""
    names = [f"b{i}" for i in range(8)]
    schedule = make_schedule(names, table_size=2, games_per_table=1, seed=1, duplicate=False)
    dispatch = Dispatch(schedule.games)
    first = dispatch.next("p")
    assert first is not None
    assert first.table == 0
    dispatch.report("p", [])
    order = [g.table for g in iter(lambda: dispatch.next("p"), None)]
    assert order == list(range(1, len(schedule.tables)))


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


async def test_a_process_that_played_many_duplicate_groups_is_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process remembers every duplicate group it played (it plays no other game of
    one): in a long league of duplicate deals that memory grew with every game for as
    long as the process lived. One that played `MAX_GROUPS` (3 here) is replaced by a
    new one, as a process whose CPU time could run out is."""
    monkeypatch.setattr(_pool, "MAX_GROUPS", 3)
    pidfile = tmp_path / "pids"
    specs = tuple(spec("good", pidfile, name=f"b{i}") for i in range(2))
    setup = Setup(specs, RunSettings(clocks=Clocks(decision_ms=5000)), GameConfig(players=2))
    launched = 0
    most = 0
    async with LocalRunner().players(setup) as (play,):
        for i in range(7):
            played = await play(Play(f"g{i}", ("b0", "b1"), i, f"t{i}-d0"))
            launched += sum(played.launched.values())
            most = max(most, *(len(w.groups) for w in played.warm))
    assert most == 3
    assert launched == 3 * 2  # groups 0-2, 3-5 and 6, each bot
