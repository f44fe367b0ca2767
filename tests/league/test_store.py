"""The league store: round trips, nothing counted twice, nothing finished lost on SIGKILL,
clear errors for files that are not stores or are damaged.

Games here are real games of the rules engine played with seeded random choices; one
seat may be removed for a fault the way the referee does it. Nothing depends on a
particular rule beyond the outcome's shape.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import arena.store._columns as store_module  # (where the store reads in chunks)
from arena.errors import StoreError
from arena.records import SeatRecord
from arena.referee import FaultRecord, GameResult
from arena.rules import Cause, Format, Game, GameConfig
from arena.store import SCHEMA_VERSION, SeatRow, Store, pack_replay, unpack_replay

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("ada", "bob", "cyd")
FORMATS = [Format.SINGLE, Format.TOKENS, Format.POINTS]


def finished(
    i: int, names: tuple[str, ...] = NAMES, *, fault: str | None = None, padding: int = 0
) -> GameResult:
    """Game number ``i``: always the same game for the same arguments.

    ``fault`` removes seat 1 for that cause before the first play, as the referee does
    for a bot that faults. ``padding`` adds that many records to the replay log.
    """
    config = GameConfig(players=len(names), format=FORMATS[i % 3], target=60, tokens=1)
    seed = (i * 0x9E3779B97F4A7C15) % 2**64  # big seeds too: above SQLite's INTEGER
    game = Game(config, seed)
    faults: tuple[FaultRecord, ...] = ()
    log: list[dict[str, Any]] = [{"type": "game", "game_id": f"g{i:06d}", "seed": seed}]
    if fault is not None:
        game.eliminate(1, Cause(fault))
        faults = (FaultRecord(1, fault, "it faulted", b"\x00\xff", 0),)
        log.append({"type": "fault", "seat": 1, "cause": fault, "bytes": "00ff"})
    rng = random.Random(i)
    while not game.is_over:
        actions = game.legal_actions()
        choice = rng.randrange(len(actions))
        game.apply(actions[choice])
        log.append({"type": "decision", "choice": choice, "text": "é ✓"})
    log.extend({"type": "event", "n": n, "pad": "x" * 40} for n in range(padding))
    return GameResult(
        game_id=f"g{i:06d}", seed=seed, config=config, names=names, outcome=game.outcome(),
        faults=faults, decisions=game.plays, think_ms=(0.5,) * len(names), log=log,
    )  # fmt: skip


def record(store: Store, result: GameResult, i: int, **kwargs: Any) -> None:
    store.record_game(
        result, index=i, group=f"t{i // 3}-d0", started_at=1000.0 + i, finished_at=1001.5 + i,
        **kwargs,
    )  # fmt: skip


# -- round trips ----------------------------------------------------------------------


@pytest.mark.parametrize("i", [0, 1, 2])
def test_a_game_round_trips_with_its_seats_and_replay(tmp_path: Path, i: int) -> None:
    result = finished(i, fault="timeout")
    path = tmp_path / "league.sqlite"
    with Store.open(path) as store:
        record(store, result, i)
    with Store.open(path) as store:  # from disk
        (game,) = store.game_records()
        assert game.game_id == result.game_id
        assert game.group == f"t{i // 3}-d0"
        outcome = result.outcome
        assert [s.player for s in game.seats] == list(NAMES)
        assert [s.place for s in game.seats] == list(outcome.places)
        assert [s.points for s in game.seats] == list(outcome.points or (None,) * 3)
        causes = {e.seat: e.cause.value for e in outcome.eliminations}
        assert [s.cause for s in game.seats] == [causes.get(seat) for seat in range(3)]
        assert game.seats[1].cause == "timeout"
        assert store.replay(result.game_id) == result.log
        assert store.done_game_ids() == {result.game_id}
        assert store.games_count() == 1
        rows = store.seat_rows()
        assert rows[1] == SeatRow(
            result.game_id, i, "done", 1, "bob", outcome.places[1],
            outcome.points[1] if outcome.points else None,
            outcome.tokens[1] if outcome.tokens else None, "timeout",
        )  # fmt: skip
        assert store.fault_counts() == {"bob": {"timeout": 1}}
    with sqlite3.connect(path) as db:
        seed, seconds, config = db.execute("SELECT seed, seconds, config FROM games").fetchone()
    assert int(seed) == result.seed  # above 2**63: kept exactly, as text
    assert seconds == pytest.approx(1.5)
    assert GameConfig.from_dict(__import__("json").loads(config)) == result.config


def test_a_replay_packed_by_a_worker_is_stored_as_given(tmp_path: Path) -> None:
    result = finished(4)
    packed = pack_replay(result.log)
    assert unpack_replay(packed) == result.log
    with Store.open(tmp_path / "s.sqlite") as store:
        record(store, result, 4, replay=packed)
        assert store.replay(result.game_id) == result.log


def test_a_long_replay_is_written_a_chunk_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Found in an audit: msgspec holds the GIL for the whole of a call, and a long
    game's replay written in one call (89,000 records) made the referee's thread of the
    worker's other games wait for it (up to 186 ms), and charged their bots. It is now
    written a chunk at a time, the same bytes."""
    import msgspec

    import arena.store._replays as replays

    most = 4096  # records a call may write (about 0.5 MB, a few ms)
    ascii = [r for r in finished(4).log if json.dumps(r, ensure_ascii=False).isascii()]
    log = ascii * (3 * most // len(ascii) + 1)
    whole = zlib.compress(b"\n".join(map(msgspec.json.encode, log)), 6)
    calls: list[int] = []
    lines = replays._lines

    def counted(records: Any) -> bytes:
        calls.append(len(records))
        return lines(records)

    monkeypatch.setattr(replays, "_lines", counted)
    assert pack_replay(log) == whole
    assert sum(calls) == len(log)
    assert max(calls) <= most


@pytest.mark.parametrize(
    "text",
    ["plain", 'caf\u00e9 \u2028 \u2029 \x85 \x1c \x7f "q" \\ \x01 \n'],
    ids=["ascii", "beyond-ascii"],
)
def test_a_replay_reads_back_one_ascii_line_per_record(text: str) -> None:
    # Whatever a record holds: text beyond ASCII (U+2028 and the other separators that
    # str.splitlines splits at, were they written as they are), floats of every finite
    # form, nesting.
    log = [
        *finished(4).log,
        {"type": "fault", "seat": 0, "message": text, "bytes": None},
        {"type": "x", "floats": [0.1, 1e16, 2.5e-05, -0.0, 1.7976931348623157e308, 5e-324]},
        {"type": "y", "nested": {"a": [[1, None, True, False], {"b": (2, 3)}]}},
    ]
    packed = zlib.decompress(pack_replay(log))
    assert packed.isascii()
    lines = packed.decode().splitlines()
    assert len(lines) == len(log)
    assert [json.loads(line) for line in lines] == json.loads(json.dumps(log))
    assert unpack_replay(pack_replay(log)) == json.loads(json.dumps(log))
    assert math.copysign(1.0, unpack_replay(pack_replay(log))[-2]["floats"][3]) == -1.0


def test_games_come_back_in_schedule_order(tmp_path: Path) -> None:
    with Store.open(tmp_path / "s.sqlite") as store:
        for i in (5, 2, 9, 0):
            record(store, finished(i), i)
        assert [g.game_id for g in store.game_records()] == [
            "g000000", "g000002", "g000005", "g000009",
        ]  # fmt: skip
        assert [r.index for r in store.seat_rows()] == [0] * 3 + [2] * 3 + [5] * 3 + [9] * 3


# -- nothing counted twice ------------------------------------------------------------


def test_recording_a_game_twice_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    with Store.open(tmp_path / "s.sqlite") as store:
        record(store, finished(1), 1)
        other = finished(2)
        again = dataclasses.replace(other, game_id="g000001")
        with pytest.raises(StoreError, match="game g000001 is already stored"):
            record(store, again, 7)
        with pytest.raises(StoreError, match="already stored"):
            store.record_forfeit("g000001", 1, None, NAMES, ["ada"], 3)
        assert store.games_count() == 1
        (game,) = store.game_records()
        assert [s.place for s in game.seats] == list(finished(1).outcome.places)
        assert store.replay("g000001") == finished(1).log
        assert len(store.seat_rows()) == 3
        record(store, finished(3), 3)  # the store is still usable
        assert store.games_count() == 2


# -- forfeits --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("forfeiting", "places"),
    [(["b"], [1, 4, 1, 1]), (["b", "d"], [1, 3, 1, 3]), (["a", "b", "c", "d"], [1, 1, 1, 1])],
)
def test_forfeiting_bots_share_the_last_place(
    tmp_path: Path, forfeiting: list[str], places: list[int]
) -> None:
    seats = ("a", "b", "c", "d")
    with Store.open(tmp_path / "s.sqlite") as store:
        store.record_forfeit("g000009", 9, "t3-d0", seats, forfeiting, 2**64 - 1)
        (game,) = store.game_records()
        assert game.group == "t3-d0"
        assert [s.place for s in game.seats] == places
        assert [s.cause for s in game.seats] == [
            "forfeit" if name in forfeiting else None for name in seats
        ]
        assert {r.status for r in store.seat_rows()} == {"forfeit"}
        assert store.fault_counts() == {name: {"forfeit": 1} for name in forfeiting}
        assert store.done_game_ids() == {"g000009"}
        with pytest.raises(StoreError, match="no replay of game g000009"):
            store.replay("g000009")


@pytest.mark.parametrize("forfeiting", [[], ["zed"]])
def test_a_forfeit_needs_forfeiting_bots_from_the_table(
    tmp_path: Path, forfeiting: list[str]
) -> None:
    with Store.open(tmp_path / "s.sqlite") as store:
        with pytest.raises(StoreError, match="must be some of its seats"):
            store.record_forfeit("g1", 1, None, NAMES, forfeiting, 1)
        assert store.games_count() == 0


# -- bots and settings -----------------------------------------------------------------


def test_changed_digests_are_reported_and_stored(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with Store.open(path) as store:
        assert store.sync_bots([("a", "run a", "d1"), ("b", "run b", "d2")]) == []
        assert store.bot_statuses() == {"a": "ok", "b": "ok"}
    with Store.open(path) as store:
        bots = [("c", "run c", "d3"), ("b", "run b2", "XX"), ("a", "run a", "YY")]
        assert store.sync_bots(bots) == ["b", "a"]
        assert store.sync_bots(bots) == []  # the new digests are stored
        store.set_bot_status("a", "disqualified", "5 faults in a row")
        store.set_bot_status("z", "build_failed", "make: no rule")
        assert store.bot_statuses() == {
            "a": "disqualified", "b": "ok", "c": "ok", "z": "build_failed",
        }  # fmt: skip
        assert store.bot_notes()["a"] == "5 faults in a row"
        # A changed digest leaves the status to the league.
        assert store.sync_bots([("a", "run a", "ZZ")]) == ["a"]
        assert store.bot_statuses()["a"] == "disqualified"


def test_settings_are_json_values(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with Store.open(path) as store:
        assert store.get_meta("league") is None
        store.set_meta("league", {"seed": 2**64 - 1, "bots": ["a", "b"], "dup": True})
        store.set_meta("note", "ünïcode")
    with Store.open(path) as store:
        assert store.get_meta("league") == {"seed": 2**64 - 1, "bots": ["a", "b"], "dup": True}
        assert store.get_meta("note") == "ünïcode"
        with pytest.raises(StoreError, match="belongs to the store"):
            store.set_meta("schema", 2)
        with pytest.raises(TypeError):
            store.set_meta("bad", object())
        assert store.get_meta("bad") is None


# -- files that are not stores ----------------------------------------------------------


def test_a_new_store_is_created_with_its_folder_and_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "league.sqlite"
    Store.open(path).close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert tables == {"meta", "bots", "games", "seats", "replays", "proofs", "faults"}
        schema = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0]
    assert int(schema) == SCHEMA_VERSION
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    with pytest.raises(StoreError, match="is an empty file"):  # issue 10.10
        Store.open(empty)
    assert empty.read_bytes() == b""


@pytest.mark.parametrize(
    "content",
    [b"not a database at all\n" * 200, b"SQLite format 3\x00" + b"\xff" * 5000, b"\x00" * 4096],
)
def test_a_file_that_is_not_a_store_is_refused_and_left_alone(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "results.sqlite"
    path.write_bytes(content)
    with pytest.raises(StoreError, match=r"results\.sqlite: .*(not an arena league store|damaged)"):
        Store.open(path)
    assert path.read_bytes() == content


@pytest.mark.parametrize("readonly", [False, True])
def test_a_fifo_a_device_or_a_link_to_nothing_is_refused_as_what_it_is(
    tmp_path: Path, readonly: bool
) -> None:
    """Found in an audit: `--store` given a FIFO or /dev/null was refused as "an empty
    file ... remove the file to start a new store there" (their size is 0), and a link
    to a file that does not exist as "cannot open: No such file or directory". Each is
    refused as what it is, and left as it was; the SPRT's store likewise."""
    from arena.sprt import SprtStore

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    link = tmp_path / "link.sqlite"
    link.symlink_to(tmp_path / "nowhere" / "x.sqlite")
    for path in (fifo, Path("/dev/null")):
        with pytest.raises(StoreError, match=r"is not a regular file \(a FIFO, a device...\)"):
            Store.open(path, readonly=readonly)
    with pytest.raises(StoreError, match=r"is not a regular file .*, not an arena SPRT store"):
        SprtStore.open(fifo)
    with pytest.raises(StoreError, match=r"link\.sqlite is a link to .*nowhere/x\.sqlite'"):
        Store.open(link, readonly=readonly)
    with pytest.raises(StoreError, match=r"which does not exist, not an arena SPRT store"):
        SprtStore.open(link)
    assert link.is_symlink()
    assert not link.exists()
    assert not (tmp_path / "nowhere").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo", "link.sqlite"]


@pytest.mark.parametrize(
    "meta",
    [
        "CREATE TABLE meta (key TEXT, value TEXT)",
        # Found in an audit: "cannot open: no such column: value".
        "CREATE TABLE meta (k, v)",
    ],
)
def test_another_sqlite_database_is_refused_and_left_alone(tmp_path: Path, meta: str) -> None:
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as db:
        db.execute(meta)
        db.execute("INSERT INTO meta VALUES ('format', '\"something else\"')")
    before = path.read_bytes()
    with pytest.raises(StoreError, match="an SQLite file, but not an arena league store"):
        Store.open(path)
    assert path.read_bytes() == before  # not even switched to WAL
    with pytest.raises(StoreError, match="is a folder"):
        Store.open(tmp_path)


def test_a_store_of_another_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    Store.open(path).close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    with pytest.raises(StoreError, match=f"store schema 99, this arena reads {SCHEMA_VERSION}"):
        Store.open(path)


@pytest.mark.parametrize("table", ["bots", "games", "seats", "replays"])
@pytest.mark.parametrize("readonly", [False, True])
def test_a_store_without_one_of_its_tables_is_refused_naming_it(
    tmp_path: Path, table: str, readonly: bool
) -> None:
    """A store missing a table (dropped by hand) is refused when opened, in words, and
    left as it was: not opened to fail at its first game with "no such table"."""
    path = tmp_path / "s.sqlite"
    with Store.open(path) as store:
        record(store, finished(0), 0)
    with sqlite3.connect(path) as db:
        db.execute(f"DROP TABLE {table}")
    before = path.read_bytes()
    with pytest.raises(StoreError, match=f"the store is damaged \\(no table {table}\\)"):
        Store.open(path, readonly=readonly)
    assert path.read_bytes() == before


def test_a_closed_store_says_so(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "s.sqlite")
    store.close()
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.games_count()


def build_store(path: Path, games: int) -> None:
    with Store.open(path) as store:
        store.sync_bots([(n, f"run {n}", "d") for n in NAMES])
        for i in range(games):
            record(store, finished(i, padding=20), i)


def use_store(path: Path) -> None:
    """Everything a league and the standings do with a store."""
    with Store.open(path, check=True) as store:
        store.get_meta("league")
        store.bot_statuses()
        ids = store.done_game_ids()
        store.game_records()
        store.seat_rows()
        store.fault_counts()
        for game_id in sorted(ids):
            store.replay(game_id)
        record(store, finished(999), 999)


def test_a_damaged_store_gives_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    build_store(path, 40)
    data = bytearray(path.read_bytes())
    assert len(data) > 8 * 4096
    for page in range(2, len(data) // 4096):  # every page but the first: garbage inside
        data[page * 4096 + 100 : page * 4096 + 400] = os.urandom(300)
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match="damaged"):
        use_store(path)
    half = tmp_path / "half.sqlite"
    build_store(half, 40)
    half.write_bytes(half.read_bytes()[: len(data) // 2])
    with pytest.raises(StoreError, match="damaged"):
        use_store(half)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("UPDATE seats SET place = 0 WHERE seat = 1 AND game_id = 'g000003'", "unexpected values"),
        ("UPDATE seats SET place = 'first' WHERE seat = 0 AND game_id = 'g000004'", "unexpected"),
        ("UPDATE seats SET bot = '' WHERE seat = 0 AND game_id = 'g000005'", "unexpected values"),
        ("UPDATE seats SET points = 1.5 WHERE seat = 0 AND game_id = 'g000006'", "unexpected"),
        (
            "UPDATE seats SET bot = (SELECT bot FROM seats AS o WHERE o.game_id = seats.game_id"
            " AND o.seat = 0) WHERE seat = 1 AND game_id = 'g000007'",
            "seated twice",
        ),
        ("DELETE FROM games WHERE game_id = 'g000008'", "which is not stored"),
        ("DELETE FROM seats WHERE game_id = 'g000009'", "a game without seats"),
        # Places no game can have (each made the average place wrong): 7 of 3 seats,
        # and two firsts before a second (1, 1, 2: the third of them is third).
        ("UPDATE seats SET place = 7 WHERE seat = 0 AND game_id = 'g000010'", r"\[1, 3, 7\]"),
        (
            "UPDATE seats SET place = 1 WHERE seat = 0 AND game_id = 'g000011';"
            " UPDATE seats SET place = 2 WHERE seat = 1 AND game_id = 'g000011'",
            r"game g000011 has places \[1, 1, 2\] for its 3 players",
        ),
    ],
)
@pytest.mark.parametrize("chunk", [5, 1 << 16])
def test_values_no_game_can_hold_are_reported_as_damage(
    tmp_path: Path, change: str, message: str, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 14.6: the standings read checks the kinds of the values in SQL, over whole
    tables; a value of a wrong kind or out of range is still damage, named; also when
    the seat rows are read in chunks of 5 (a large store's are read a chunk at a time)."""
    monkeypatch.setattr(store_module, "_CHUNK_ROWS", chunk)
    path = tmp_path / "s.sqlite"
    build_store(path, 12)
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA foreign_keys = OFF")
        for statement in change.split(";"):
            db.execute(statement)
    with Store.open(path, readonly=True) as store, pytest.raises(StoreError, match=message):
        store.game_records()


@pytest.mark.parametrize("chunk", [1, 3, 7, 1 << 16])
def test_the_results_read_in_chunks_are_the_seat_rows(
    tmp_path: Path, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The standings' read of a store, a chunk of seat rows at a time, gives what the
    seats say row by row (`seat_rows`, read another way), at any chunk size."""
    path = tmp_path / "s.sqlite"
    build_store(path, 30)
    monkeypatch.setattr(store_module, "_CHUNK_ROWS", chunk)
    with Store.open(path, readonly=True) as store:
        got = store.game_records()
        seats = store.seat_rows()
    by_game: dict[str, list[SeatRecord]] = {}
    for row in seats:
        seat = SeatRecord(row.bot, row.place, row.points, row.cause)
        by_game.setdefault(row.game_id, []).append(seat)
    assert [(g.game_id, list(g.seats)) for g in got] == list(by_game.items())
    assert len(got) == 30


@settings(max_examples=40, deadline=None)
@given(
    flips=st.lists(st.tuples(st.integers(0, 2**31), st.integers(0, 255)), min_size=1, max_size=8)
)
def test_damage_anywhere_gives_only_store_errors(
    pristine: bytes, flips: list[tuple[int, int]]
) -> None:
    data = bytearray(pristine)
    for offset, value in flips:
        data[offset % len(data)] = value
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.sqlite"
        path.write_bytes(bytes(data))
        try:
            use_store(path)
            error = ""
        except StoreError as err:
            error = str(err)
    if error:
        assert error.startswith(f"{path}: ")


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    path = tmp_path_factory.mktemp("pristine") / "s.sqlite"
    build_store(path, 12)
    return path.read_bytes()  # closed: the log is checkpointed into the file


def test_the_store_does_not_import_the_referee_or_trio() -> None:
    code = "import sys, arena.store; print('trio' in sys.modules, 'arena.referee' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


# -- SIGKILL at any moment -------------------------------------------------------------

TOTAL = 60

CHILD = """
import sys, time
from pathlib import Path
from tests.league.test_store import finished, record
from arena.store import Store

path, stall = Path(sys.argv[1]), int(sys.argv[2])
results = [finished(i, fault="crash" if i % 7 == 0 else None, padding=200) for i in range(TOTAL)]
store = Store.open(path)
done = store.done_game_ids()
current = [None]

def trace(statement):
    # Stall inside the transaction of game `stall`: its game and seats rows are
    # written, its replay is about to be.
    if current[0] == stall and statement.startswith("INSERT INTO replays"):
        print("stalled", flush=True)
        time.sleep(600)

store._conn.db.set_trace_callback(trace)
print("ready", flush=True)
for i, result in enumerate(results):
    if result.game_id in done:
        continue
    current[0] = i
    record(store, result, i)
    print(result.game_id, flush=True)
""".replace("TOTAL", str(TOTAL))


def run_until_killed(path: Path, *, after: int, stall: int = -1) -> list[str]:
    """Record games in a child process; SIGKILL it after ``after`` games (or when it
    stalls); the ids it reported as recorded."""
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), str(stall)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert child.stdout is not None
    recorded: list[str] = []
    try:
        assert child.stdout.readline() == "ready\n", child.communicate()[1]
        while len(recorded) < after:
            line = child.stdout.readline().strip()
            if line in ("", "stalled"):
                break
            recorded.append(line)
    finally:
        child.send_signal(signal.SIGKILL)
        _, err = child.communicate()
    assert child.returncode == -signal.SIGKILL, err
    return recorded


def check_consistent(path: Path, reported: set[str]) -> set[str]:
    """Every stored game is whole, and every game reported as recorded is stored."""
    with Store.open(path, check=True) as store:
        ids = store.done_game_ids()
        assert reported <= ids  # nothing that finished is lost
        assert store.games_count() == len(ids)
        records = store.game_records()
        assert [r.game_id for r in records] == sorted(ids)
        for game in records:
            i = int(game.game_id[1:])
            expected = finished(i, fault="crash" if i % 7 == 0 else None, padding=200)
            assert [s.player for s in game.seats] == list(NAMES)
            assert [s.place for s in game.seats] == list(expected.outcome.places)
            assert store.replay(game.game_id) == expected.log
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        for table in ("seats", "replays"):
            orphans = db.execute(
                f"SELECT count(*) FROM {table} WHERE game_id NOT IN (SELECT game_id FROM games)"
            ).fetchone()[0]
            assert orphans == 0, table
        assert db.execute("SELECT count(*) FROM seats").fetchone()[0] == 3 * len(ids)
        assert db.execute("SELECT count(*) FROM replays").fetchone()[0] == len(ids)
    return ids


@pytest.mark.slow
@pytest.mark.subprocess
def test_a_store_survives_sigkill_at_any_moment(tmp_path: Path) -> None:
    path = tmp_path / "league.sqlite"
    reported: set[str] = set()

    # Killed in the middle of a transaction, for certain: the game is not there.
    reported |= set(run_until_killed(path, after=TOTAL, stall=5))
    assert reported == {f"g{i:06d}" for i in range(5)}
    stored = check_consistent(path, reported)
    assert stored == reported

    # Killed wherever it happens to be, a few times over.
    rng = random.Random(7)
    for _ in range(5):
        reported |= set(run_until_killed(path, after=rng.randint(1, 8)))
        stored = check_consistent(path, reported)

    # Finish the league in this process: every game exactly once.
    with Store.open(path) as store:
        for i in range(TOTAL):
            result = finished(i, fault="crash" if i % 7 == 0 else None, padding=200)
            if result.game_id not in stored:
                record(store, result, i)
        assert store.games_count() == TOTAL
        assert len(store.seat_rows()) == 3 * TOTAL
        assert store.fault_counts() == {"bob": {"crash": len(range(0, TOTAL, 7))}}
    check_consistent(path, {f"g{i:06d}" for i in range(TOTAL)})


def test_verify_finds_damage_inside_the_replays(tmp_path: Path) -> None:
    """Issue 10.10: bytes overwritten inside replays (overflow pages, which quick_check
    does not read as content) are found by `verify`, named by game, and nothing else is
    touched; an undamaged store verifies."""
    path = tmp_path / "s.sqlite"
    build_store(path, 30)
    with Store.open(path) as store:
        store.verify()
        ids = sorted(store.done_game_ids())
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        (blob,) = db.execute("SELECT log FROM replays WHERE game_id = ?", (ids[7],)).fetchone()
    data = bytearray(path.read_bytes())
    at = data.find(bytes(blob[20:60]))
    assert at > 0
    data[at : at + 40] = random.Random(1).randbytes(40)
    path.write_bytes(bytes(data))
    with Store.open(path, check=True) as store:  # the page structure is intact
        with pytest.raises(StoreError, match=f"damaged .*replay of '{ids[7]}'"):
            store.verify()
        assert store.games_count() == 30


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        # A played game's replay removed: its proof keeps the replay's digest.
        ("DELETE FROM replays WHERE game_id = 'g000004'", "the replay of game 'g000004'"),
        # A game renamed in every table, its proof's row too: the proof covers its id.
        (
            "UPDATE games SET game_id = 'g000099' WHERE game_id = 'g000004';"
            " UPDATE seats SET game_id = 'g000099' WHERE game_id = 'g000004';"
            " UPDATE replays SET game_id = 'g000099' WHERE game_id = 'g000004';"
            " UPDATE proofs SET id = 'g000099' WHERE id = 'g000004'",
            "the rows of game 'g000099'",
        ),
    ],
)
def test_a_replay_removed_or_a_game_renamed_by_hand_is_found(
    tmp_path: Path, edit: str, message: str
) -> None:
    path = tmp_path / "s.sqlite"
    build_store(path, 6)
    with sqlite3.connect(path) as db:
        db.executescript(edit)
    with Store.open(path) as store:
        with pytest.raises(StoreError, match=message):
            store.verify()
        with pytest.raises(StoreError, match=message):
            list(store.games(replays=True))


def test_seats_and_replays_of_many_games_are_read_a_chunk_at_a_time_and_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`seat_rows_of` and `replay_logs` ask for the games a chunk of ids at a time
    (`_MANY`, 2 here): every game of every chunk comes back, none twice."""
    import arena.store._reading as reading

    monkeypatch.setattr(reading, "_MANY", 2)
    path = tmp_path / "s.sqlite"
    build_store(path, 7)
    ids = [f"g{i:06d}" for i in range(7)]
    with Store.open(path, readonly=True) as store:
        seats = store.seat_rows_of(ids)
        logs = dict(store.replay_logs(ids))
    assert sorted((s.game_id, s.seat) for s in seats) == [(g, k) for g in ids for k in range(3)]
    assert sorted(logs) == ids


def test_game_rows_after_a_row_and_games_by_bot_count_every_game(tmp_path: Path) -> None:
    """`game_rows(after)` gives the games recorded after row `after`, never that one
    again (a report following a league would show it twice); `games_by_bot` counts a
    bot's every game, those it faulted in or forfeited too."""
    path = tmp_path / "s.sqlite"
    with Store.open(path) as store:
        record(store, finished(0), 0)
        record(store, finished(1, fault="crash"), 1)
        store.record_forfeit("g000002", 2, None, NAMES, ["cyd"], seed=1)
        rows = store.game_rows()
        assert [r[1] for r in rows] == ["g000000", "g000001", "g000002"]
        assert [r[1] for r in store.game_rows(rows[0][0])] == ["g000001", "g000002"]
        assert store.game_rows(rows[-1][0]) == []
        assert store.games_by_bot() == {name: 3 for name in NAMES}


def test_the_latest_games_of_bots_come_latest_first(tmp_path: Path) -> None:
    """`latest_games_of` (a ladder's page of a bot's recent games): the `limit` games
    recorded last with one of the bots, latest first, whatever their schedule order."""
    path = tmp_path / "s.sqlite"
    with Store.open(path) as store:
        for i in (5, 1, 4, 2, 3, 0):  # recorded out of their order
            record(store, finished(i), i)
        ids = [f"g{i:06d}" for i in (0, 3, 2, 4)]
        assert store.latest_games_of(["ada"], 4) == ids
        assert store.latest_games_of(["bob", "cyd"], 2) == ids[:2]
        assert store.latest_games_of(["nobody"], 4) == []


def test_a_read_only_store_writes_nothing_and_reads_while_a_league_writes(
    tmp_path: Path,
) -> None:
    """Issue 16.4: `Store.open(path, readonly=True)` creates and changes nothing (not even
    the journal mode), refuses what is not a store, and sees games a writer commits."""
    missing = tmp_path / "missing.sqlite"
    with pytest.raises(StoreError, match="no such league store"):
        Store.open(missing, readonly=True)
    assert not missing.exists()
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE t (x)")
    before = other.read_bytes()
    with pytest.raises(StoreError, match="not an arena league store"):
        Store.open(other, readonly=True)
    assert other.read_bytes() == before
    path = tmp_path / "s.sqlite"
    writer = Store.open(path)
    writer.sync_bots([(n, f"run {n}", "d") for n in NAMES])
    record(writer, finished(0), 0)
    with Store.open(path, readonly=True) as reader:
        assert reader.games_count() == 1
        record(writer, finished(1), 1)  # the league goes on while the reader is open
        assert reader.games_count() == 2
        assert len(reader.game_records()) == 2
        with pytest.raises(StoreError):
            reader.set_meta("x", 1)
    writer.close()
    content = path.read_bytes()
    with Store.open(path, readonly=True) as reader:  # after the writer closed
        assert reader.games_count() == 2
    assert path.read_bytes() == content


CREATE_CHILD = """
import os, signal, sqlite3, sys
from pathlib import Path

kind, path, kill_at = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
connect = sqlite3.connect
statements = [0]

def killing_connect(*args, **kwargs):
    db = connect(*args, **kwargs)

    def trace(statement):
        if statements[0] == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        statements[0] += 1

    db.set_trace_callback(trace)
    return db

sqlite3.connect = killing_connect
if kind == "league":
    from arena.store import Store as Opened
else:
    from arena.sprt import SprtStore as Opened
Opened.open(path).close()
print("opened", statements[0], flush=True)
"""


@pytest.mark.subprocess
@pytest.mark.parametrize("kind", ["league", "sprt"])
def test_a_store_killed_while_it_is_made_opens_again(tmp_path: Path, kind: str) -> None:
    """A league or SPRT killed (SIGKILL) at any statement of making its new store leaves
    no file that the same command then refuses (such as an empty one): opened again,
    the store is made anew, or is the store already made."""
    from arena.sprt import SprtStore

    opener = Store.open if kind == "league" else SprtStore.open
    kill_at = 0
    while True:
        path = tmp_path / str(kill_at) / "store.sqlite"
        child = subprocess.run(
            [sys.executable, "-c", CREATE_CHILD, kind, str(path), str(kill_at)],
            cwd=ROOT, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        if child.returncode == 0:  # opened without reaching statement `kill_at`
            assert child.stdout.startswith("opened"), child.stderr
            break
        assert child.returncode == -signal.SIGKILL, child.stderr
        opener(path).close()  # the same command works again
        with sqlite3.connect(path) as db:
            assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
            assert {"meta", "games"} <= tables
        kill_at += 1
    assert kill_at > 3  # the child was killed at every statement up to the last


# -- a store removed while it is written: its games are saved under a free name ------


def test_a_rescue_never_writes_over_an_earlier_one(tmp_path: Path) -> None:
    """The games of a store removed mid-run are copied to ``NAME.rescued-PID``. A file
    of that name left by an earlier run (of a process that had the same number) made
    the copy fail, and the games were lost with it: the next free name is taken, and
    the earlier file is left as it was."""
    path = tmp_path / "s.sqlite"
    earlier = tmp_path / f"s.sqlite.rescued-{os.getpid()}"
    earlier.write_bytes(b"an earlier rescue")
    with Store.open(path) as store:
        for i in range(3):
            record(store, finished(i), i)
        path.unlink()
        with pytest.raises(StoreError) as caught:
            store.check_in_place()
    rescue = tmp_path / f"s.sqlite.rescued-{os.getpid()}-1"
    assert f"its 3 games are saved in {rescue}: move that to {path} to resume" in str(caught.value)
    assert earlier.read_bytes() == b"an earlier rescue"
    with Store.open(rescue, readonly=True, check=True) as saved:
        assert saved.games_count() == 3


def test_a_store_whose_folder_is_removed_is_rescued_into_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the store's whole folder gone, the copy goes to the working folder."""
    folder = tmp_path / "league"
    folder.mkdir()
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    path = folder / "s.sqlite"
    with Store.open(path) as store:
        for i in range(2):
            record(store, finished(i), i)
        for name in os.listdir(folder):
            (folder / name).unlink()
        folder.rmdir()
        with pytest.raises(StoreError) as caught:
            store.check_in_place()
    rescue = here / f"s.sqlite.rescued-{os.getpid()}"
    assert f"its 2 games are saved in {rescue}" in str(caught.value)
    with Store.open(rescue, readonly=True, check=True) as saved:
        assert saved.games_count() == 2


def test_a_removed_write_ahead_log_is_found_and_its_games_saved(tmp_path: Path) -> None:
    """The store's log (``s.sqlite-wal``) removed while a league wrote it, as a careless
    clean-up of "temporary" files might: SQLite wrote on in the log it had open, every
    reader failed ("disk I/O error"), and a league killed then lost every game since
    SQLite last copied the log into the store (45 of 1,061 in the audit's run). It is
    found at the next game, and the games are saved beside the store."""
    path = tmp_path / "s.sqlite"
    wal = tmp_path / "s.sqlite-wal"
    with Store.open(path) as store:
        for i in range(3):
            record(store, finished(i), i)
        assert wal.exists()
        wal.unlink()
        with pytest.raises(StoreError) as caught:
            record(store, finished(3), 3)
    rescue = tmp_path / f"s.sqlite.rescued-{os.getpid()}"
    assert str(caught.value) == (
        f"{path}: its write-ahead log s.sqlite-wal was removed while this league wrote it;"
        f" its 4 games are saved in {rescue}: move that to {path} to resume"
    )
    assert sorted(os.listdir(tmp_path)) == ["s.sqlite", rescue.name]
    rescue.rename(path)
    with Store.open(path, check=True) as store:
        assert store.games_count() == 4


def test_a_write_ahead_log_replaced_by_another_file_is_found(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    wal = tmp_path / "s.sqlite-wal"
    with Store.open(path) as store:
        record(store, finished(0), 0)
        wal.unlink()
        wal.write_bytes(b"")  # a reader opening the store made a new one
        with pytest.raises(StoreError, match=r"s\.sqlite-wal was replaced by another file"):
            store.check_in_place()
    (rescue,) = tmp_path.glob("s.sqlite.rescued-*")
    with Store.open(rescue, readonly=True, check=True) as saved:
        assert saved.games_count() == 1


def test_a_store_removed_before_an_error_ends_its_run_is_saved_and_noted(
    tmp_path: Path,
) -> None:
    """The store is checked in its place after each game; one removed after its last
    game, then a run that fails (a worker process died) or is stopped, closed it
    unchecked: its games were lost with the process, and the run said they were
    stored. Its games are saved on the way out, noted on the error."""
    path = tmp_path / "s.sqlite"

    def fail() -> None:
        with Store.open(path) as store:
            for i in range(2):
                record(store, finished(i), i)
            path.unlink()
            raise RuntimeError("a worker process died while playing g000002")

    with pytest.raises(RuntimeError) as caught:
        fail()
    rescue = tmp_path / f"s.sqlite.rescued-{os.getpid()}"
    assert caught.value.__notes__ == [
        f"{path}: the store was removed while this league wrote it; its 2 games are saved"
        f" in {rescue}: move that to {path} to resume"
    ]
    with Store.open(rescue, readonly=True, check=True) as saved:
        assert saved.games_count() == 2


def test_a_store_removed_after_its_last_game_fails_its_close(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    store = Store.open(path)
    record(store, finished(0), 0)
    path.unlink()
    with pytest.raises(StoreError, match="its 1 game is saved in"):
        store.__exit__(None, None, None)
    with Store.open(path) as store:  # a store in place closes without a word
        record(store, finished(1), 1)
