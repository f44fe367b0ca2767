"""Issue 10.2: no bot process plays two games of one duplicate group.

A duplicate group replays one deal with the seats rotated; a process that played the
first game would know its earlier hand as an opponent's hand in the next (24 of 24
predictions were exact at concurrency 1). Spy bots report their process id with every
game they are dealt; no process may have seen two games of a group, whatever the
concurrency, with or without the sandbox (whose private /tmp dies with the process).
"""

from __future__ import annotations

import contextlib
import itertools
import sqlite3
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main

from .helpers import BOTH, make_bot, reports

pytestmark = [pytest.mark.subprocess, pytest.mark.slow]

NAMES = ["spy-a", "spy-b", "spy-c", "spy-d"]


def run_league(tmp_path: Path, settings: list[str], sandbox: str = "none") -> None:
    """`arena league` on a league file of bots/ at tables of 3, 6 games a table, with
    more `settings` lines for its [league] section (and sections after it)."""
    lines = [
        "[league]", 'bots = "bots"', 'store = "league.sqlite"', "table_size = 3",
        "games_per_table = 6", *settings,
    ]  # fmt: skip
    (tmp_path / "league.toml").write_text("\n".join(lines) + "\n")
    args = ["league", str(tmp_path / "league.toml"), "--progress", "quiet", "--sandbox", sandbox]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("concurrency", [1, 2, 4])
@pytest.mark.parametrize("sandboxed", BOTH)
def test_no_process_plays_two_games_of_a_duplicate_group(
    tmp_path: Path, concurrency: int, sandboxed: bool
) -> None:
    for name in NAMES:
        make_bot(tmp_path / "bots", name, "spy", token="arena-duplicate-memory")
    settings = ["duplicate = true", f"concurrency = {concurrency}", 'log_dir = "logs"']
    settings += ["[clocks]", "startup_ms = 15000"]
    run_league(tmp_path, settings, "bwrap" if sandboxed else "none")
    with contextlib.closing(sqlite3.connect(tmp_path / "league.sqlite")) as db:
        group = dict(db.execute("SELECT game_id, grp FROM games"))
    assert len(group) == 4 * 6  # C(4, 3) tables x 6 games, in groups of 3
    assert len(set(group.values())) == 4 * 2
    seen: dict[str, list[str]] = defaultdict(list)
    dealt = 0
    for name in NAMES:
        for report in reports(tmp_path / "logs" / f"{name}.log"):
            if "game_id" in report:
                seen[report["process"]].append(group[report["game_id"]])
                dealt += 1
    assert dealt == 4 * 6 * 3
    for pid, groups in seen.items():
        assert len(groups) == len(set(groups)), f"process {pid} played {groups}"


@pytest.mark.parametrize("concurrency", [2, 3])
def test_no_two_games_of_a_duplicate_group_are_played_at_once(
    tmp_path: Path, concurrency: int
) -> None:
    """Two processes of a bot that play one deal at the same time, in two seats, can
    tell each other their hands: a lock on a file of their folder or an inotify watch
    on it crosses the sandbox (the kernel's locks and watches are the file's, not the
    mount namespace's). So the games of a group are played one after another: each one
    starts after the last one of its group has finished, at any concurrency."""
    for name in NAMES[:3]:
        make_bot(tmp_path / "bots", name, "slow", 5, token="arena-duplicate-timing")
    run_league(tmp_path, ["duplicate = true", f"concurrency = {concurrency}"])
    with contextlib.closing(sqlite3.connect(tmp_path / "league.sqlite")) as db:
        rows = db.execute("SELECT grp, started_at, finished_at FROM games").fetchall()
    assert len(rows) == 6
    spans: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for grp, started, finished in rows:
        spans[grp].append((started, finished))
    assert len(spans) == 2
    for grp, games in spans.items():
        games.sort()
        for (_, finished), (started, _) in itertools.pairwise(games):
            assert started >= finished, f"two games of {grp} were played at once: {games}"


def test_a_league_deals_every_game_afresh_by_default(tmp_path: Path) -> None:
    """Duplicate deals are off unless asked for: a bot's processes can carry a hand from
    one game of a deal into the next through the page cache, by timing reads
    (test_page_cache.py), which no sandbox closes. By default no two games share a
    deal, so there is nothing to carry: the spies' hands, whole per game, never repeat
    (with duplicate deals each deal would come back once per seat rotation)."""
    for name in NAMES[:3]:
        make_bot(tmp_path / "bots", name, "spy", token="arena-fresh-deals")
    run_league(tmp_path, ["concurrency = 1", 'log_dir = "logs"'])
    with contextlib.closing(sqlite3.connect(tmp_path / "league.sqlite")) as db:
        groups = [grp for (grp,) in db.execute("SELECT grp FROM games")]
    assert groups == [None] * 6
    deals: dict[str, set[tuple[str, ...]]] = defaultdict(set)
    for name in NAMES[:3]:
        for report in reports(tmp_path / "logs" / f"{name}.log"):
            if "game_id" in report:
                deals[report["game_id"]].add(tuple(report["hand"]))
    assert len(deals) == 6
    assert len({frozenset(hands) for hands in deals.values()}) == 6
