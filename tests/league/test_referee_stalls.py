"""Issue 39: a league never stalls without a word. Thousands of very short games go
through the real driver under a CPU hog; a game the referee loses fails as its own
error, charges no bot, is played again, and the league finishes."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.referee import _driver

from ..processes import dies_with_us
from .test_league_run import four_bots, league_file, random_bot, results, run_cli

pytestmark = pytest.mark.subprocess

FAULTS = {"timeout", "crash", "malformed", "illegal"}


QUICK = ("--progress", "quiet", "--decision-ms", "500")
"""Half-second decisions: a lost game is found in 1.5 s with a margin of 1 s."""


def faults(games: dict[str, list[tuple[str, int, str | None]]]) -> list[str | None]:
    """The fault causes among the stored seats."""
    return [cause for seats in games.values() for _, _, cause in seats if cause in FAULTS]


def test_a_game_the_referee_loses_is_played_again_and_the_league_finishes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The driver loses the fifth game it is given (as the lost wake-up did: never
    taken on). The watchdog fails it as the referee's error, its bots are charged
    nothing, it is played again, and every game of the league is stored."""
    four_bots(tmp_path)
    monkeypatch.setattr(_driver, "STALL_MARGIN_S", 1.0)  # 0.5 s decisions + 1 s
    real_start = _driver.Driver.start
    posts: list[_driver.Play] = []

    def start(self: _driver.Driver, play: _driver.Play) -> None:
        posts.append(play)
        if len(posts) != 5:  # the fifth is lost
            real_start(self, play)

    monkeypatch.setattr(_driver.Driver, "start", start)
    with caplog.at_level(logging.ERROR, logger="arena.referee"):
        code, _, err = run_cli("league", str(league_file(tmp_path, concurrency=1)), *QUICK)
    assert code == 0, err
    games = results(tmp_path / "league.sqlite")
    assert len(games) == 4 * 3  # every game, once
    assert faults(games) == []
    stalls = [r.getMessage() for r in caplog.records if "no progress" in r.getMessage()]
    assert len(stalls) == 1, caplog.text
    assert "never took the game on" in stalls[0]
    assert "nothing is charged to a bot" in stalls[0]
    assert "played again (try 2 of 3)" in stalls[0]
    assert len(posts) == 13  # twelve games, and the lost one again


def test_a_game_lost_every_time_stops_the_league_with_the_referees_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game that stalls on every try stops the league with an error that says no bot
    is charged; what was played is kept, and a resume plays the rest."""
    four_bots(tmp_path)
    monkeypatch.setattr(_driver, "STALL_MARGIN_S", 1.0)
    real_start = _driver.Driver.start
    posts: list[_driver.Play] = []

    def start(self: _driver.Driver, play: _driver.Play) -> None:
        posts.append(play)
        if not 3 <= len(posts) <= 5:  # the third game, and its two tries again
            real_start(self, play)

    monkeypatch.setattr(_driver.Driver, "start", start)
    league = str(league_file(tmp_path, concurrency=1))
    code, _, err = run_cli("league", league, *QUICK)
    assert code != 0
    assert "failed 3 times in a row; nothing is charged to a bot" in err
    assert "Traceback" not in err
    assert len(results(tmp_path / "league.sqlite")) == 2
    monkeypatch.undo()
    code, _, err = run_cli("league", league, *QUICK)
    assert code == 0, err
    games = results(tmp_path / "league.sqlite")
    assert len(games) == 12
    assert faults(games) == []


async def test_no_process_of_a_game_the_referee_lost_plays_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game the referee fails (RefereeError) is played again from its start: the same
    deal. Its processes had seen it (here all of it: the referee fails it at its end),
    so they are killed, never given back to their pools: one kept would replay a deal
    it had watched, knowing every hand the others hold."""
    from arena.errors import RefereeError
    from arena.referee import Clocks, RunSettings, _pool, open_pools, play_seated
    from arena.rules import GameConfig
    from arena.testing import alive, pids, spec

    real = _pool.play_game
    seated: list[list[object]] = []

    async def play_game(seats: list[object], *args: object, **kwargs: object) -> object:
        seated.append(list(seats))
        played = await real(seats, *args, **kwargs)  # type: ignore[arg-type]
        if len(seated) == 1:
            raise RefereeError("the game made no progress (a test's)")
        return played

    monkeypatch.setattr(_pool, "play_game", play_game)
    pidfile = tmp_path / "pids"
    clocks = Clocks(decision_ms=5000)
    specs = [spec("good", pidfile, name=name) for name in ("ann", "bob")]
    async with open_pools(specs, RunSettings(clocks=clocks)) as pools:
        result = await play_seated(
            [pools["ann"], pools["bob"]], GameConfig(players=2), 7, clocks=clocks, game_id="g"
        )
        assert not result.faults
        first, again = seated
        assert not set(map(id, first)) & set(map(id, again))
        started = pids(pidfile)
        assert len(started) == 4
        assert not any(alive(pid) for pid in started[:2])
        assert all(alive(pid) for pid in started[2:])  # kept for the next game


# The stress test: every table size, at 1, 2 and 4 games at once, with a CPU hog on
# every core. Games of one play (--play-cap 1) end in a few steps, so most of the
# driver's rounds start or end a game: where the lost wake-up hid.

STRESS_GAMES_PER_TABLE = 6
"""Six bots: 15 + 20 + 15 + 6 + 1 tables of 2 to 6, so 342 games a concurrency, 1,026
in all (and 3,600 through the driver alone: tests/referee/test_driver.py)."""

STRESS_LIMIT_S = 180
"""The most one league of the stress test may take (a few seconds each, under the hog)."""


@contextlib.contextmanager
def cpu_hogs() -> Iterator[None]:
    """A process spinning on every core, for as long as the block runs."""
    hogs = [
        subprocess.Popen(
            [sys.executable, "-c", "while True: pass"],
            start_new_session=True,
            preexec_fn=dies_with_us(),
        )
        for _ in range(os.cpu_count() or 1)
    ]
    try:
        yield
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


@pytest.mark.slow
def test_thousands_of_one_play_games_under_a_cpu_hog_never_stall(tmp_path: Path) -> None:
    for name in "abcdef":
        random_bot(tmp_path, name)
    played = 0
    begun = time.perf_counter()
    with cpu_hogs():
        for concurrency in (1, 2, 4):
            for table_size in (2, 3, 4, 5, 6):
                store = tmp_path / f"j{concurrency}-t{table_size}.sqlite"
                edition = "1980" if table_size % 2 else "2022"
                command = [
                    sys.executable, "-m", "arena", "league", "--bots", str(tmp_path / "bots"),
                    "--store", str(store), "--seed", f"stress{table_size}",
                    "--table-size", str(table_size),
                    "--games-per-table", str(STRESS_GAMES_PER_TABLE), "--play-cap", "1",
                    "--edition", edition, "-j", str(concurrency), "--sandbox", "none",
                    "--fault-limit", "0", "--progress", "quiet",
                ]  # fmt: skip
                league = subprocess.Popen(
                    command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
                )
                try:
                    _, err = league.communicate(timeout=STRESS_LIMIT_S)
                except subprocess.TimeoutExpired:
                    os.killpg(league.pid, signal.SIGKILL)
                    _, err = league.communicate()
                    pytest.fail(
                        f"the league at -j {concurrency}, tables of {table_size}, made no end"
                        f" in {STRESS_LIMIT_S} s (a stall):\n{err.decode(errors='replace')}"
                    )
                assert league.returncode == 0, err.decode(errors="replace")
                assert b"no progress" not in err  # the watchdog had nothing to do
                with sqlite3.connect(store) as db:
                    (games,) = db.execute("SELECT COUNT(*) FROM games").fetchone()
                    (faulted,) = db.execute(
                        "SELECT COUNT(*) FROM seats WHERE cause IN (?, ?, ?, ?)", sorted(FAULTS)
                    ).fetchone()
                tables = {2: 15, 3: 20, 4: 15, 5: 6, 6: 1}[table_size]
                assert games == tables * STRESS_GAMES_PER_TABLE
                assert faulted == 0, f"faults under the hog at -j {concurrency}"
                played += games
    assert played == 3 * 57 * STRESS_GAMES_PER_TABLE
    print(f"{played} one-play games in {time.perf_counter() - begun:.1f} s under the hog")
