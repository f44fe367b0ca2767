"""The league store: round trips, no double counting, clear errors."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from arena.errors import StoreError
from arena.referee import GameResult
from arena.rules import Format, Game, GameConfig
from arena.store import Store


def finished(game_id: str, seed: int, names: tuple[str, ...] = ("a", "b", "c")) -> GameResult:
    config = GameConfig(players=len(names), format=Format.POINTS, target=60)
    game = Game(config, seed)
    rng = random.Random(seed)
    while not game.is_over:
        actions = game.legal_actions()
        game.apply(actions[rng.randrange(len(actions))])
    return GameResult(
        game_id=game_id, seed=seed, config=config, names=names, outcome=game.outcome(),
        faults=(), decisions=game.plays, think_ms=(0.0,) * len(names),
        log=[{"type": "game", "game_id": game_id}],
    )  # fmt: skip


def test_a_game_round_trips_with_its_seats_and_replay(tmp_path: Path) -> None:
    result = finished("g1", 5)
    with Store.open(tmp_path / "s.sqlite") as store:
        store.record_game(result, index=0, group="t0-d0", started_at=1.0, finished_at=2.5)
        (record,) = store.game_records()
        assert record.game_id == "g1"
        assert record.group == "t0-d0"
        assert [s.player for s in record.seats] == ["a", "b", "c"]
        assert [s.place for s in record.seats] == list(result.outcome.places)
        assert [s.points for s in record.seats] == list(result.outcome.points or ())
        causes = {e.seat: e.cause.value for e in result.outcome.eliminations}
        assert [s.cause for s in record.seats] == [causes.get(i) for i in range(3)]
        assert store.replay("g1") == result.log
    with Store.open(tmp_path / "s.sqlite") as again:  # reopened from disk
        assert again.done_game_ids() == {"g1"}


def test_recording_a_game_twice_is_refused_and_counts_once(tmp_path: Path) -> None:
    with Store.open(tmp_path / "s.sqlite") as store:
        store.record_game(finished("g1", 1), index=0, group=None, started_at=0, finished_at=1)
        with pytest.raises(StoreError, match="already stored"):
            store.record_game(finished("g1", 2), index=0, group=None, started_at=0, finished_at=1)
        assert store.games_count() == 1
        assert len(store.game_records()[0].seats) == 3


def test_a_result_whose_seats_and_settings_disagree_is_refused(tmp_path: Path) -> None:
    """Names, places and the configured players must agree: a result for 4 players with
    3 seats, or 3 names with 2 places, is refused and nothing is stored."""
    import dataclasses

    played = finished("g1", 1)
    four = dataclasses.replace(played, config=dataclasses.replace(played.config, players=4))
    two = dataclasses.replace(played, names=played.names[:2])
    with Store.open(tmp_path / "s.sqlite") as store:
        for bad in (four, two):
            with pytest.raises(StoreError, match="names and"):
                store.record_game(bad, index=0, group=None, started_at=0, finished_at=1)
        assert store.games_count() == 0


@pytest.mark.parametrize("streaks", ['{"a": -1}', '{"a": "2"}', '{"a": 1.5}', "[1]", '{"a": true}'])
def test_fault_streaks_no_league_writes_are_damage(tmp_path: Path, streaks: str) -> None:
    """The fault streaks (which no proof covers: they change with every game) are
    checked when read: a value no league writes is damage, not a traceback later."""
    import sqlite3

    path = tmp_path / "s.sqlite"
    with Store.open(path) as store:
        store.record_game(
            finished("g1", 1), index=0, group=None, started_at=0, finished_at=1,
            streaks={"a": 1, "b": 0, "c": 0},
        )  # fmt: skip
        assert store.fault_streaks() == {"a": 1, "b": 0, "c": 0}
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'fault_streaks'", (streaks,))
    with Store.open(path) as store, pytest.raises(StoreError, match=r"damaged \(fault streaks"):
        store.fault_streaks()


def test_forfeits_put_the_disqualified_last(tmp_path: Path) -> None:
    with Store.open(tmp_path / "s.sqlite") as store:
        store.record_forfeit("g9", 9, None, ("a", "b", "c", "d"), ["b", "d"], seed=3)
        (record,) = store.game_records()
        assert [(s.player, s.place, s.cause) for s in record.seats] == [
            ("a", 1, None), ("b", 3, "forfeit"), ("c", 1, None), ("d", 3, "forfeit"),
        ]  # fmt: skip


def test_changed_digests_are_reported(tmp_path: Path) -> None:
    with Store.open(tmp_path / "s.sqlite") as store:
        assert store.sync_bots([("a", "run a", "d1"), ("b", "run b", "d2")]) == []
        assert store.sync_bots([("a", "run a", "d1"), ("b", "run b", "XX")]) == ["b"]
        assert store.sync_bots([("b", "run b", "XX")]) == []
        store.set_bot_status("a", "disqualified", "5 faults in a row")
        assert store.bot_statuses() == {"a": "disqualified", "b": "ok"}


@pytest.mark.parametrize("content", [b"not a database at all" * 100, b""])
def test_a_file_that_is_not_a_store_gives_a_clear_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "x.sqlite"
    path.write_bytes(content)
    with pytest.raises(StoreError, match="not an arena league store"):
        Store.open(path)


def test_another_sqlite_database_is_refused(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE t (x)")
    with pytest.raises(StoreError, match="not an arena league store"):
        Store.open(path)
    with pytest.raises(StoreError, match="is a folder"):
        Store.open(tmp_path)
