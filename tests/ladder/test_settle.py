"""`arena ladder settle` ends when its budget is spent, separated or not, and settles
only a ladder's store.

Its table drivers waited for a change of the active versions once no table was left to
play, and settling changes none: with the top not separated when the budget ran out
(two bots alike), settle never printed its standings and never ended.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.bots import BotSpec
from arena.ladder import Ladder, LadderDB, LadderSettings, _run
from arena.messages import Play, Played
from arena.store import Store
from arena.testing import play_policies

from .helpers import arena
from .test_versions import make_ladder_store


async def _play(play: Play) -> Played:
    """A game of `play` between in-memory bots that always take the first legal action,
    under its seats' names: two rotations of a deal are one win each."""
    result = await play_policies([lambda act: 0] * len(play.seats), None, play.seed)
    head = {**result.log[0], "game_id": play.game_id, "names": list(play.seats)}
    result = dataclasses.replace(
        result, game_id=play.game_id, names=play.seats, log=[head, *result.log[1:]]
    )
    return Played(play.game_id, result, time.time(), time.time())


class _InMemory:
    """A runner whose players play in memory (`_play`): the test is of the ladder's own
    loop, not of bot processes."""

    def __init__(self, concurrency: int) -> None:
        self.concurrency = concurrency

    @contextlib.asynccontextmanager
    async def players(self, setup: Any) -> AsyncIterator[list[Any]]:
        yield [_play] * self.concurrency

    async def build_bots(self, specs: Any, settings: Any) -> None:
        return None


@pytest.fixture
def ladder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Callable[[int], contextlib.AbstractContextManager[Ladder]]:
    """The ladder of a store whose active versions (a.v2, b.v1, c.v1) have played one
    game, its games played in memory (`_InMemory`) at `concurrency` tables at once."""
    store = make_ladder_store(tmp_path / "ladder.sqlite")
    with LadderDB.open(store, create=True) as db:
        for author, name, versions in (("alice", "a", 2), ("bob", "b", 1), ("carol", "c", 1)):
            db.add_author(author)
            for _ in range(versions):
                db.activate(db.add_submission(author, name, "digest").id, "")

    def built(settings: LadderSettings, submission: Any) -> BotSpec:
        return BotSpec(name=submission.bot, command=("true",), folder=None)

    monkeypatch.setattr(_run, "spec_of", built)

    @contextlib.contextmanager
    def opened(concurrency: int) -> Any:
        settings = LadderSettings(store=store, table_size=2, concurrency=concurrency)
        with Store.open(store) as writing, LadderDB.open(store) as db:
            yield Ladder(settings, writing, db, runner=lambda: _InMemory(concurrency))

    return opened


@pytest.mark.parametrize("concurrency", [1, 2])
async def test_settle_ends_when_the_budget_is_spent_with_the_top_not_separated(
    ladder: Callable[[int], contextlib.AbstractContextManager[Ladder]], concurrency: int
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
