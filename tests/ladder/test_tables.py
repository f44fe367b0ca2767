"""The ladder's tables: a deal of its own for every game unless duplicate deals are
asked for, and `arena ladder settle`, which ends when its budget is spent, separated or
not, and settles only a ladder's store.

The ladder played every table as one deal in every seat rotation, between strangers'
bots, where a bot can carry its hand from one game of a deal to its process in the
next through the page cache (docs/fair-play.md), which is why leagues deal afresh by
default. Settle's table drivers waited for a change of the active versions once no
table was left to play, and settling changes none: with the top not separated when the
budget ran out (two bots alike), settle never printed its standings and never ended.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sqlite3
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
import trio

from arena.bots import BotSpec
from arena.ladder import Ladder, LadderDB, LadderSettings, _run
from arena.messages import Play, Played
from arena.referee import FaultRecord
from arena.store import Store
from arena.testing import play_policies

from .helpers import arena
from .test_versions import submitted_ladder_store


async def _play(play: Play) -> Played:
    """A game of `play` between in-memory bots that always take the first legal action,
    under its seats' names (two rotations of a deal are one win each); its Play kept in
    `PLAYED`."""
    PLAYED.append(play)
    result = await play_policies([lambda act: 0] * len(play.seats), None, play.seed)
    head = {**result.log[0], "game_id": play.game_id, "names": list(play.seats)}
    result = dataclasses.replace(
        result, game_id=play.game_id, names=play.seats, log=[head, *result.log[1:]]
    )
    return Played(play.game_id, result, time.time(), time.time())


PLAYED: list[Play] = []


class _InMemory:
    """A runner whose players play in memory (`_play`): the test is of the ladder's own
    loop, not of bot processes."""

    def __init__(self, concurrency: int, player: Callable[[Play], Any] = _play) -> None:
        self.concurrency = concurrency
        self.player = player

    @contextlib.asynccontextmanager
    async def players(self, setup: Any) -> AsyncIterator[list[Any]]:
        yield [self.player] * self.concurrency

    async def build_bots(self, specs: Any, settings: Any) -> None:
        return None


@pytest.fixture
def ladder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Callable[..., contextlib.AbstractContextManager[Ladder]]:
    """The ladder of a store whose active versions (a.v2, b.v1, c.v1) have played one
    game, its games played in memory (`_InMemory`) at `concurrency` tables at once."""
    store = submitted_ladder_store(tmp_path / "ladder.sqlite")

    def built(settings: LadderSettings, submission: Any) -> BotSpec:
        return BotSpec(name=submission.bot, command=("true",), folder=None)

    monkeypatch.setattr(_run, "spec_of", built)

    @contextlib.contextmanager
    def opened(concurrency: int, duplicate: bool = False, table_size: int = 2) -> Any:
        PLAYED.clear()
        settings = LadderSettings(
            store=store, table_size=table_size, concurrency=concurrency, duplicate=duplicate
        )
        with Store.open(store) as writing, LadderDB.open(store) as db:
            yield Ladder(settings, writing, db, runner=lambda: _InMemory(concurrency))

    return opened


@pytest.mark.parametrize("concurrency", [1, 2])
async def test_settle_ends_when_the_budget_is_spent_with_the_top_not_separated(
    ladder: Callable[..., contextlib.AbstractContextManager[Ladder]], concurrency: int
) -> None:
    with ladder(concurrency) as settling:
        settling.settling = 2
        settling.budget = settling.games_played + 6
        settling._check_settled()
        assert settling.rated is not None
        assert not settling.rated.separated(2)
        assert not settling.settled.is_set()
        before = settling.games_played
        with trio.fail_after(60):  # ends in a second; it waited for ever
            await settling.play()
        assert settling.settled.is_set()
        assert not settling.rated.separated(2)
        # Every table begun is played out: 3 tables of 2 games, one more at 2 at once.
        assert before + 6 <= settling.games_played <= before + 6 + 2 * (concurrency - 1)


def test_settle_and_author_add_make_no_store_of_a_mistyped_path(tmp_path: Path) -> None:
    """`settle` of a path with no ladder store says so (it made a store and a folder,
    then said "no game between the active versions" and exited 0), and of a league's
    store leaves it as it was; an author's bad name is refused before any store is made."""
    missing = tmp_path / "typo.sqlite"
    done = arena("ladder", "settle", str(missing), "--budget", "3")
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert f"{missing}: no such ladder store" in done.stderr
    league = tmp_path / "league.sqlite"
    with Store.open(league):
        pass
    before = league.read_bytes()
    done = arena("ladder", "settle", str(league), "--budget", "3")
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert "a league's store, not a ladder's" in done.stderr
    assert league.read_bytes() == before
    done = arena("ladder", "author", "add", "bad name!", str(missing))
    assert done.returncode == 2
    assert "author name 'bad name!' must be" in done.stderr
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("typo")] == []
    assert "Traceback" not in done.stderr


def test_author_commands_refuse_what_is_no_store_as_every_command_does(tmp_path: Path) -> None:
    """`arena ladder author add/revoke` connected to the file as it was: an empty file or
    /dev/null was "cannot open: no such table: meta", a FIFO "disk I/O error", the path
    '' "unable to open database file". Now each is said as the other commands say it."""
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    fifo = tmp_path / "fifo.sqlite"
    os.mkfifo(fifo)
    cases = {
        str(empty): f"{empty} is an empty file, not an arena league store",
        "/dev/null": "/dev/null is not a regular file (a FIFO, a device...)",
        str(fifo): f"{fifo} is not a regular file (a FIFO, a device...)",
        "": ". is a folder, not an arena league store",
    }
    for store, said in cases.items():
        for command in (["add"], ["revoke"]):
            done = arena("ladder", "author", *command, "alice", store)
            assert (done.returncode, done.stdout) == (2, ""), done.stderr
            assert f"arena: error: {said}" in done.stderr, done.stderr
    assert empty.read_bytes() == b""


@pytest.mark.parametrize("duplicate", [False, True])
async def test_a_table_deals_each_game_afresh_unless_duplicate_deals_are_asked_for(
    ladder: Callable[..., contextlib.AbstractContextManager[Ladder]], duplicate: bool
) -> None:
    """By default each game of a table has a deal of its own, and no duplicate group
    (a bot process may then play on); with `duplicate` the rotations share the table's
    deal, as one group. Either way the deals are those a killed ladder plays again."""
    with ladder(1, duplicate) as playing:
        playing.settling = 2
        playing.budget = playing.games_played + 6
        with trio.fail_after(60):
            await playing.play()
        tables = {n: (seats, seed) for n, seats, seed in playing.db.tables_since(0)}
    assert len(PLAYED) == 6
    by_table: dict[str, list[Play]] = {}
    for play in PLAYED:
        by_table.setdefault(play.game_id.split("-")[0], []).append(play)
    assert sorted(len(plays) for plays in by_table.values()) == [2, 2, 2]
    for name, (r0, r1) in by_table.items():
        number = int(name[1:])
        seats, seed = tables[number]
        assert (r0.seats, r1.seats) == (seats, seats[1:] + seats[:1])
        if duplicate:
            assert (r0.seed, r1.seed) == (seed, seed)
            assert r0.group == r1.group == name
        else:
            assert len({r0.seed, r1.seed, seed}) == 3
            assert (r0.seed, r1.seed) == tuple(
                _run.deal_of(playing.seed, number, r) for r in range(2)
            )
            assert (r0.group, r1.group) == (None, None)
    with contextlib.closing(sqlite3.connect(playing.settings.store)) as db:
        groups = dict(db.execute("SELECT game_id, grp FROM games").fetchall())
    assert all(
        groups[play.game_id] == (play.game_id.split("-")[0] if duplicate else None)
        for play in PLAYED
    )


async def test_the_bots_of_a_table_see_made_up_names_not_who_sits_there(
    ladder: Callable[..., contextlib.AbstractContextManager[Ladder]],
) -> None:
    """SPEC §5.2: a ladder's bots see, as an SPRT's, a made-up game id and made-up names,
    drawn afresh for every game. With the real names an author's bot recognised its
    sibling by name and threw its games to it (a real ladder at tables of 2: 63 of 80
    games lost to the sibling, which rose 40 Elo above an identical copy of itself by
    another author), and a bot could single out an opponent to crash or stall against."""
    with ladder(1) as playing:
        playing.settling = 2
        playing.budget = playing.games_played + 6
        with trio.fail_after(60):
            await playing.play()
    assert len(PLAYED) == 6
    seen: list[str] = []
    for play in PLAYED:
        assert play.shown is not None
        game_id, names = play.shown
        assert game_id != play.game_id
        assert play.game_id.split("-")[0][1:] not in game_id
        assert len(set(names)) == len(names) == len(play.seats)
        assert not any(real in name for name in names for real in playing.active())
        assert (game_id, names) == _run.blind(
            playing.seed, int(play.game_id[1:7]), int(play.game_id[-1]), len(play.seats)
        )  # (a table finished after a restart shows the names it began with)
        seen += names
    assert len(set(seen)) == len(seen)  # nothing follows a bot from game to game


async def test_a_bot_withdrawn_from_outside_stops_playing_after_its_table(
    ladder: Callable[..., contextlib.AbstractContextManager[Ladder]],
) -> None:
    """`arena ladder withdraw` (another process) retires an active version while the
    ladder plays: it plays no table chosen after the one in play, and its status in the
    store is "retired" (so `arena standings` leaves it out). There was no way to take a
    bot out of play, one that colluded say, but by hand in the store."""
    with ladder(1) as playing:
        playing.settling = 2
        playing.budget = playing.games_played + 8
        with LadderDB.open(playing.settings.store) as other:
            assert other.withdraw("c").bot == "c.v1"
        with trio.fail_after(60):
            await playing.play()
        assert "c.v1" not in playing.active()
        assert playing.store.bot_statuses()["c.v1"] == "retired"
    tables: dict[str, tuple[str, ...]] = {}
    for play in PLAYED:
        tables.setdefault(play.game_id.split("-")[0], play.seats)
    assert len(tables) >= 2
    assert all("c.v1" not in seats for seats in list(tables.values())[1:])


async def test_a_table_begun_before_a_restart_is_finished_as_it_was_begun(
    ladder: Callable[..., contextlib.AbstractContextManager[Ladder]],
) -> None:
    """A table begun with duplicate deals by a ladder that was then stopped, and started
    again without them, is finished with its deal and its group (a group left short
    kept its replays withheld for ever); and the other way round."""
    for before, after in ((True, False), (False, True)):
        with ladder(1, before) as first:
            seats = tuple(sorted(first.active())[:2])
            number = first.db.add_table(seats, 4242, "a test")
            group = f"t{number:06d}" if before else None
            deal = 4242 if before else _run.deal_of(first.seed, number, 0)
            played = await _play(Play(f"t{number:06d}-r0", seats, deal, group))
            first._record(number * 6, group, played)
        with ladder(1, after) as second:
            second.settling = 2
            second.budget = second.games_played + 1
            with trio.fail_after(60):
                await second.play()
        (rest,) = [play for play in PLAYED if play.game_id == f"t{number:06d}-r1"]
        assert rest.seats == (seats[1], seats[0])
        assert rest.group == group
        assert rest.seed == (4242 if before else _run.deal_of(second.seed, number, 1))


@pytest.mark.parametrize(("concurrency", "size"), [(2, 2), (3, 2), (2, 3)])
async def test_tables_played_at_once_share_no_bot_when_few_bots_are_free(
    ladder: Callable[..., contextlib.AbstractContextManager[Ladder]], concurrency: int, size: int
) -> None:
    """docs/ladder.md: tables played at once (`-j`) share no bot. With fewer than a
    table's k bots free, the ladder chose the next table among them all: at 3 active
    versions, tables of 2 and `-j 2` (a real server, real bots), a bot sat at two tables
    in play at once (of 48 tables, 32 pairs in play at once shared a bot), and at 2
    versions every table was "the only table", played twice at once. Now a table
    driver with too few bots free waits for a table to end; every table still has k
    bots, each once."""
    with ladder(concurrency, table_size=size) as playing:

        async def player(play: Play) -> Played:
            await trio.testing.wait_all_tasks_blocked()  # every other driver has chosen
            seats = [name for table in playing._claimed.values() for name in table]
            assert len(seats) == len(set(seats)), playing._claimed
            return await _play(play)

        playing._runner = lambda: _InMemory(concurrency, player)
        # (not settling: its top could be separated after a table, before 4 tables)
        playing.budget = playing.games_played + 4 * size
        with trio.fail_after(60):
            await playing.play()
        tables = playing.db.tables_since(0)
    assert len(PLAYED) >= 4 * size
    assert all(len(set(seats)) == len(seats) == size for _, seats, _ in tables[1:])


async def test_tables_played_at_once_do_not_lock_into_the_same_tables(
    ladder: Callable[..., contextlib.AbstractContextManager[Ladder]], tmp_path: Path
) -> None:
    """With exactly j tables' bots active (4 bots, tables of 2, `-j 2`), the table that
    ended first left only its own bots free, and its driver played them again, forced,
    while the other table played on: the same two tables over and over (20 of 20 here,
    every bot's 3 placement tables against one bot), their bots never meeting the
    others'. A driver whose only choice is the table that has just ended now waits for
    another table to end, and chooses among more bots."""
    with LadderDB.open(tmp_path / "ladder.sqlite") as db:
        db.add_author("dave")
        db.activate(db.add_submission("dave", "d", "digest").id, "")
    in_play: list[dict[int, tuple[str, ...]]] = []
    with ladder(2) as playing:

        async def player(play: Play) -> Played:
            in_play.append(dict(playing._claimed))
            await trio.testing.wait_all_tasks_blocked()  # the other table plays on
            return await _play(play)

        playing._runner = lambda: _InMemory(2, player)
        playing.budget = playing.games_played + 40  # (not settling: no end once separated)
        with trio.fail_after(60):
            await playing.play()
    tables = {n: seats for snapshot in in_play for n, seats in snapshot.items()}
    assert len(tables) >= 20
    forced = [
        (first, then, other)
        for i, before in enumerate(in_play)
        for after in in_play[i + 1 :]
        for first in before
        for then in after
        if first < then and set(tables[first]) == set(tables[then])
        for other in set(before) & set(after) - {first, then}
    ]  # a table played again while another table played on throughout
    assert forced == []


async def test_tables_begun_before_a_restart_share_no_bot_with_tables_in_play(
    ladder: Callable[..., contextlib.AbstractContextManager[Ladder]], tmp_path: Path
) -> None:
    """Tables a killed ladder chose and did not finish are played first, each only when
    its bots are at no table in play, and only at the table size in force (a mutation
    audit: taking such a table with a bot at another table, or of another size, passed
    every test). Two pending tables share b: they are never played at once."""
    with LadderDB.open(tmp_path / "ladder.sqlite") as db:
        db.add_author("dave")
        db.activate(db.add_submission("dave", "d", "digest").id, "")
    with ladder(2) as first:
        a, b, c, d = sorted(first.active())
        pending = [first.db.add_table(seats, 4242, "a test") for seats in ((a, b), (b, c))]
        other_size = first.db.add_table((a, c, d), 4242, "a test")
    with ladder(2) as playing:

        async def player(play: Play) -> Played:
            await trio.testing.wait_all_tasks_blocked()  # every other driver has chosen
            seats = [name for table in playing._claimed.values() for name in table]
            assert len(seats) == len(set(seats)), playing._claimed
            return await _play(play)

        playing._runner = lambda: _InMemory(2, player)
        playing.budget = playing.games_played + 12
        with trio.fail_after(60):
            await playing.play()
    played = {play.game_id for play in PLAYED}
    assert {f"t{n:06d}-r{r}" for n in pending for r in range(2)} <= played
    assert not any(game.startswith(f"t{other_size:06d}-") for game in played)


@pytest.mark.parametrize(
    ("limit", "faulting", "out"),
    [
        (3, "every game", "3 faults in a row in its games"),
        (2, "every other game", None),  # no two in a row: a streak ends with a good game
        (0, "every game", None),  # 0: no limit
    ],
)
async def test_a_bot_is_disqualified_at_its_fault_limit_of_faults_in_a_row(
    ladder: Callable[..., contextlib.AbstractContextManager[Ladder]],
    limit: int,
    faulting: str,
    out: str | None,
) -> None:
    """docs/ladder.md: a version that faults in `--fault-limit` games in a row stops
    playing (failed, disqualified in the standings), at the game that makes the limit;
    faults apart, or a limit of 0, disqualify nobody. (A mutation audit: no test
    played a fault: the limit off by one, streaks that never ended, and a limit of 0
    that disqualified every bot all passed.)"""
    games: list[str] = []

    async def player(play: Play) -> Played:
        played = await _play(play)
        if "c.v1" not in play.seats:
            return played
        games.append(play.game_id)
        if faulting == "every other game" and len(games) % 2 == 0:
            return played
        fault = FaultRecord(play.seats.index("c.v1"), "crash", "exited", None, 0)
        result = dataclasses.replace(played.result, faults=(fault,))
        return msgspec.structs.replace(played, result=result)

    with ladder(1) as playing:
        playing.settings = dataclasses.replace(playing.settings, fault_limit=limit)
        playing._runner = lambda: _InMemory(1, player)
        playing.budget = playing.games_played + 24
        with trio.fail_after(60):
            await playing.play()
        (c,) = [s for s in playing.db.submissions() if s.bot == "c.v1"]
        active = playing.db.active_bots()
    assert len(games) >= 4
    if out is None:
        assert c.state == "active"
        assert "c.v1" in active
    else:
        assert (c.state, c.reason) == ("failed", out)
        assert "c.v1" not in active
        assert len(games) <= limit + 1  # (the table it was at is played to its end)
