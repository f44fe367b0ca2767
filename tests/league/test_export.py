"""Issue 44.6: `arena export STORE` writes every game of a league store as JSON lines
or as CSV of seat rows, streamed (bounded memory), and refuses what standings refuses."""

from __future__ import annotations

import csv
import errno
import io
import json
import os
import sqlite3
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.export import CSV_COLUMNS, write_jsonl
from arena.sprt._store import SprtStore
from arena.store import Store

from ..store_edits import without_proofs
from .test_store_basics import finished

NAMES = ("ann", "bob", "cat")


def run_cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three played games and a forfeit, one of them in a duplicate group."""
    path = tmp_path_factory.mktemp("export") / "league.sqlite"
    with Store.open(path) as db:
        for k in range(3):
            db.record_game(
                finished(f"g{k:06d}", k + 1, NAMES), index=k, group="t0-d0" if k else None,
                started_at=10.0 + k, finished_at=11.5 + k,
            )  # fmt: skip
        db.record_forfeit("g000003", 3, None, NAMES, ["cat"], seed=99)
    return path


def test_jsonl_holds_each_game_with_its_settings_seats_places_and_causes(store: Path) -> None:
    code, out, err = run_cli("export", str(store))
    assert code == 0, err
    assert "exported 4 games (jsonl) to standard output" in err
    games = [json.loads(line) for line in out.splitlines()]
    assert [g["game_id"] for g in games] == ["g000000", "g000001", "g000002", "g000003"]
    played = finished("g000001", 2, NAMES)
    one = games[1]
    assert one["seed"] == 2
    assert one["group"] == "t0-d0"
    assert one["status"] == "done"
    assert one["reason"] == played.outcome.reason.value
    assert one["settings"] == played.config.to_dict()
    assert one["seconds"] == 1.5
    assert [s["bot"] for s in one["seats"]] == list(NAMES)
    assert [s["place"] for s in one["seats"]] == list(played.outcome.places)
    causes = {e.seat: e.cause.value for e in played.outcome.eliminations}
    assert [s["cause"] for s in one["seats"]] == [causes.get(k) for k in range(3)]
    assert "replay" not in one
    forfeit = games[3]
    assert forfeit["status"] == "forfeit"
    assert forfeit["settings"] is None
    assert [(s["place"], s["cause"]) for s in forfeit["seats"]] == [
        (1, None),
        (1, None),
        (3, "forfeit"),
    ]


def test_every_value_of_a_game_is_exported_as_stored(store: Path) -> None:
    """Each game's JSON line and CSV rows hold its index, timings, counts, seed and each
    seat's points and tokens as the game was played and stored, none in another's key."""
    code, out, err = run_cli("export", str(store))
    assert code == 0, err
    one = [json.loads(line) for line in out.splitlines()][1]
    played = finished("g000001", 2, NAMES)
    outcome = played.outcome
    assert (one["index"], one["started_at"], one["finished_at"]) == (1, 11.0, 12.5)
    assert (one["decisions"], one["plays"], one["rounds"]) == (
        played.decisions,
        outcome.plays,
        outcome.rounds,
    )
    assert outcome.points is not None
    assert [s["points"] for s in one["seats"]] == list(outcome.points)
    tokens = [None] * 3 if outcome.tokens is None else list(outcome.tokens)
    assert [s["tokens"] for s in one["seats"]] == tokens
    code, out, err = run_cli("export", str(store), "--format", "csv")
    assert code == 0, err
    rows = [r for r in csv.DictReader(io.StringIO(out)) if r["game"] == "g000001"]
    assert [(r["index"], r["seed"], r["group"], r["status"]) for r in rows] == [
        ("1", "2", "t0-d0", "done")
    ] * 3
    assert [r["reason"] for r in rows] == [outcome.reason.value] * 3
    assert [(r["seat"], r["player"]) for r in rows] == [("0", "ann"), ("1", "bob"), ("2", "cat")]
    assert [r["points"] for r in rows] == [str(p) for p in outcome.points]
    assert [r["tokens"] for r in rows] == ["" if t is None else str(t) for t in tokens]


def test_replays_add_each_games_replay(store: Path) -> None:
    code, out, err = run_cli("export", str(store), "--replays")
    assert code == 0, err
    games = [json.loads(line) for line in out.splitlines()]
    with Store.open(store, readonly=True) as db:
        assert games[0]["replay"] == db.replay("g000000")
    assert games[3]["replay"] is None  # a forfeit has none


def test_csv_has_a_row_a_seat_and_rates_as_the_store(store: Path, tmp_path: Path) -> None:
    target = tmp_path / "seats.csv"
    code, _, err = run_cli("export", str(store), "--format", "csv", "-o", str(target))
    assert code == 0, err
    assert f"exported 4 games (csv) to {target}" in err
    rows = list(csv.DictReader(io.StringIO(target.read_text())))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert len(rows) == 4 * 3
    assert rows[-1]["cause"] == "forfeit"
    assert rows[-1]["points"] == ""
    rated = run_cli("rate", str(target), "--format", "json")
    stood = run_cli("standings", str(store), "--format", "json")
    assert rated[0] == stood[0] == 0
    assert json.loads(rated[1])["rows"] == json.loads(stood[1])["rows"]


def test_csv_quotes_a_name_a_spreadsheet_would_run(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with Store.open(path) as db:
        db.record_forfeit("g1", 0, None, ("=cmd", "bob"), ["bob"], seed=1)
        db.record_forfeit("=id", 1, "=group", ("ann", "bob"), ["bob"], seed=1)  # (a stranger's)
    with sqlite3.connect(path) as edit:  # a stranger's store, made before proofs
        edit.execute("UPDATE seats SET cause = '=cause' WHERE game_id = '=id'")
        without_proofs(edit)
    code, out, _ = run_cli("export", str(path), "--format", "csv")
    assert code == 0
    assert "'=cmd" in out
    assert [(r["game"], r["group"], r["cause"]) for r in csv.DictReader(io.StringIO(out))][2:] == [
        ("'=id", "'=group", "'=cause")
    ] * 2
    code, out, _ = run_cli("export", str(path))
    assert json.loads(out.splitlines()[0])["seats"][0]["bot"] == "=cmd"  # JSON lines: exact


def edited(store: Path, tmp_path: Path, statement: str) -> Path:
    copy = tmp_path / "copy.sqlite"
    with Store.open(store, readonly=True) as db:  # a whole copy, its log included
        db._conn.db.execute("VACUUM INTO ?", (str(copy),))
    with sqlite3.connect(copy) as db:
        db.execute(statement)
    return copy


def test_a_store_edited_by_hand_is_refused_and_nothing_is_written(
    store: Path, tmp_path: Path
) -> None:
    copy = edited(store, tmp_path, "UPDATE seats SET place = 1 WHERE game_id = 'g000002'")
    target = tmp_path / "out.jsonl"
    code, out, err = run_cli("export", str(copy), "-o", str(target))
    assert code != 0
    assert "the rows of game 'g000002' do not match their proof" in err
    assert "Traceback" not in err
    assert list(tmp_path.glob("*out.jsonl*")) == []  # no file, and no part of one
    code, out, err = run_cli("export", str(copy))
    assert code != 0
    assert out == ""


def test_an_edited_replay_is_refused_with_replays(store: Path, tmp_path: Path) -> None:
    copy = edited(
        store, tmp_path,
        "UPDATE replays SET log = (SELECT log FROM replays WHERE game_id = 'g000000')"
        " WHERE game_id = 'g000001'",
    )  # fmt: skip
    code, _, err = run_cli("export", str(copy), "--replays")
    assert code != 0
    assert "the replay of game 'g000001' does not match its proof" in err


def test_bad_input_is_one_clear_line(store: Path, tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("hello\n")
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    truncated = tmp_path / "truncated.sqlite"
    truncated.write_bytes(store.read_bytes()[:100])
    sprt = tmp_path / "sprt.sqlite"
    SprtStore.open(sprt).close()
    cases = {
        str(tmp_path / "none.sqlite"): "no such league store",
        str(text): "not an arena league store (not an SQLite database)",
        str(empty): "is an empty file, not an arena league store",
        str(truncated): "the store is damaged",
        str(sprt): "is an SPRT store (arena sprt), not a league store",
    }
    for path, words in cases.items():
        code, out, err = run_cli("export", path)
        assert code != 0, path
        assert words in err, err
        assert "Traceback" not in err
        assert out == ""
    code, _, err = run_cli("export", str(store), "--format", "csv", "--replays")
    assert code != 0
    assert "--replays needs --format jsonl" in err
    code, _, err = run_cli("export", str(store), "-o", str(store))
    assert code != 0
    assert "is the store itself" in err
    assert Store.open(store, readonly=True).games_count() == 4


def fill(path: Path, games: int) -> None:
    """`games` 4-seat forfeit-free games among 20 bots, written as rows (fast), then
    given their proofs as a store made before proofs is."""
    names = [f"bot{k:02d}" for k in range(20)]
    Store.open(path).close()
    with sqlite3.connect(path) as db:
        without_proofs(db)
        db.executemany(
            "INSERT INTO games (game_id, idx, seed, status, reason, plays)"
            " VALUES (?, ?, ?, 'done', 'last_player', 90)",
            ((f"g{k:07d}", k, str(k)) for k in range(games)),
        )
        db.executemany(
            "INSERT INTO seats (game_id, seat, bot, place, cause) VALUES (?, ?, ?, ?, ?)",
            (
                (f"g{k:07d}", seat, names[(k + 5 * seat) % 20], seat + 1, (seat and "bust") or None)
                for k in range(games)
                for seat in range(4)
            ),
        )
    with Store.open(path) as store:
        store.adopt_proofs()


class _Count:
    """A text stream that keeps nothing, only counts lines."""

    lines = 0

    def write(self, text: str) -> int:
        self.lines += text.count("\n")
        return len(text)


def test_many_games_stream_in_bounded_memory(tmp_path: Path) -> None:
    """The export's peak of Python allocations is the same for 500 games and for 5,000
    (whose output alone is some 2 MB): games are read, checked and written one at a
    time, never all at once. (bench/export.py times 100,000.)"""
    peaks = {}
    for games in (500, 5_000):
        path = tmp_path / f"{games}.sqlite"
        fill(path, games)
        with Store.open(path, readonly=True) as store:
            write_jsonl(store.games(), _Count())  # type: ignore[arg-type]  # warm caches
            sink = _Count()
            tracemalloc.start()
            try:
                assert write_jsonl(store.games(), sink) == games  # type: ignore[arg-type]
                peaks[games] = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
        assert sink.lines == games
    assert peaks[5_000] < 100_000, peaks
    assert peaks[5_000] < 2 * peaks[500], peaks


@pytest.mark.parametrize("kind", ["league", "sprt"])
def test_an_export_onto_another_store_is_refused_and_leaves_it_whole(
    store: Path, tmp_path: Path, kind: str
) -> None:
    """Found in an audit: `arena export A.sqlite -o B.sqlite` (a slip of the organiser's,
    B another league's or an SPRT's store) replaced B with JSON lines: its results were
    gone. -o never replaces an SQLite file (a store); the error says so in one line."""
    other = tmp_path / "other.sqlite"
    if kind == "league":
        other.write_bytes(store.read_bytes())
    else:
        SprtStore.open(other).close()
    before = other.read_bytes()
    for fmt in ("jsonl", "csv"):
        code, _, err = run_cli("export", str(store), "--format", fmt, "-o", str(other))
        assert code != 0, err
        assert err.startswith(f"arena: error: -o {other} is an SQLite file")
        assert len(err.splitlines()) == 1
        assert other.read_bytes() == before


def test_a_fifo_given_as_the_store_is_refused_not_waited_on(tmp_path: Path) -> None:
    """A FIFO is no store: `arena standings` said so, but `arena export` asked SQLite
    what the file was (an SPRT's store?) first, and SQLite waited for ever for a
    writer to open the FIFO. Run in a process of its own: a regression hangs it, not
    the tests."""
    fifo = tmp_path / "league.sqlite"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "arena", "export", str(fifo)],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2, done.stderr
    assert "is not a regular file (a FIFO, a device...)" in done.stderr
    assert done.stdout == ""


def test_a_full_disk_under_the_out_file_is_said_of_it_and_leaves_it_as_it_was(
    store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write into -o's file that fails (a full disk) said only "arena: error: No space
    left on device", naming no file, and exited 1."""
    import arena.export

    def full(*args: object, **kwargs: object) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(arena.export, "write_jsonl", full)
    out = tmp_path / "games.jsonl"
    out.write_text("kept\n")
    code, _, err = run_cli("export", str(store), "-o", str(out))
    assert code == 2
    assert err == f"arena: error: -o {out}: cannot write: No space left on device\n"
    assert out.read_text() == "kept\n"
    assert sorted(os.listdir(tmp_path)) == ["games.jsonl"]  # no part file left
