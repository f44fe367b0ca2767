"""Issue 12: the report's data equal what `arena standings` and the store say, every
replay rebuilds to its stored result, bot text cannot break out of a data script, and
`arena replay` reads a game from a league store."""

from __future__ import annotations

import json
import re
import resource
import sqlite3
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.errors import StoreError
from arena.report import LeagueData, game_payload, script, write_site
from arena.store import Store
from tests.mutations import mutants

from ..store_edits import without_proofs
from .sites import league

pytestmark = pytest.mark.subprocess


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return league(tmp_path_factory.mktemp("league"))


def payload(path: Path) -> Any:
    text = path.read_text()
    match = re.fullmatch(r'ARENA\.receive\("(\w+)",(.*)\);\n', text, re.S)
    assert match is not None
    return json.loads(match.group(2))


def cli(*args: str | Path) -> str:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_the_site_holds_the_standings_and_matrix_of_arena_standings(
    store: Path, tmp_path: Path
) -> None:
    with Store.open(store, readonly=True) as db:
        count = write_site(db, tmp_path / "site")
    assert (tmp_path / "site" / "index.html").exists()
    league_data = payload(tmp_path / "site" / "data" / "league.js")
    standings = json.loads(cli("standings", store, "-f", "json"))
    matrix = json.loads(cli("standings", store, "-f", "json", "--matrix"))
    assert league_data["standings"]["rows"] == standings["rows"]
    assert league_data["matrix"] == matrix
    assert league_data["progress"] == {"done": count, "total": count, "forfeits": 0}
    assert "secret seed" in league_data["settings"]["seed_note"]
    assert league_data["settings"]["clocks"]["decision_ms"] == 2000


def test_per_bot_numbers_equal_the_store(store: Path, tmp_path: Path) -> None:
    with Store.open(store, readonly=True) as db:
        data = LeagueData(db)
        data.update()
        bots = data.league()["bots"]
        rows = db.seat_rows()
        faults = db.fault_counts()
    for name, bot in bots.items():
        mine = [r for r in rows if r.bot == name]
        assert bot["games"] == len(mine)
        assert bot["wins"] == sum(r.place == 1 for r in mine)
        for seat, counts in enumerate(bot["places_by_seat"]):
            assert sum(counts) == sum(r.seat == seat for r in mine)
        assert {c: len(ids) for c, ids in bot["faults"].items()} == faults.get(name, {})
        for cause, ids in bot["faults"].items():
            assert {r.game_id for r in mine if r.cause == cause} == set(ids)
        assert bot["think_ms"]["decisions"] > 0
        assert bot["think_ms"]["median"] <= bot["think_ms"]["max"]
    assert bots["crashy"]["faults"]["crash"]  # the crasher's games are listed


def test_the_static_site_packs_every_game_once(store: Path, tmp_path: Path) -> None:
    """The games go 16 to a data file (fewer files to write), each named by the list."""
    from tests.report.test_browser import games_of, read_calls

    with Store.open(store, readonly=True) as db:
        write_site(db, tmp_path / "site")
        played = db.done_game_ids()
    listed = games_of(tmp_path / "site")
    found = {}
    for path in (tmp_path / "site" / "data" / "games").glob("*.js"):
        for kind, game in read_calls(path):
            assert kind == "game"
            found[game["id"]] = path.stem
    assert set(found) == played
    assert all(found[g["id"]] == g["file"] for g in listed if not g["forfeit"])
    assert max(list(found.values()).count(f) for f in set(found.values())) <= 16


def test_every_replay_ends_with_its_stored_result(store: Path) -> None:
    with Store.open(store, readonly=True) as db:
        records = {r.game_id: r for r in db.game_records()}
        for game_id, record in records.items():
            game = game_payload(db.replay(game_id))
            last = game["frames"][-1]
            assert game["result"]["places"] == [s.place for s in record.seats]
            assert last["hands"]
            assert len(last["hands"]) == len(record.seats)
            assert [f["i"] for f in game["frames"]] == list(range(len(game["frames"])))
            for frame in game["frames"]:  # cards are conserved within the hands shown
                assert all(len(hand) <= 4 for hand in frame["hands"])


def test_bot_text_cannot_break_out_of_a_data_script() -> None:
    hostile = {"bot": "</script><script>alert(1)</script>", "note": "<!-- \u2028 & -->"}
    text = script("league", hostile)
    assert "<" not in text
    assert ">" not in text
    assert "\u2028" not in text
    assert json.loads(text[len('ARENA.receive("league",') : -3]) == hostile


def test_replay_reads_a_game_from_a_league_store(store: Path) -> None:
    with Store.open(store, readonly=True) as db:
        game_id = sorted(db.done_game_ids())[0]
    out = cli("replay", store, game_id, "--seat", "1")
    assert f"== {game_id}:" in out
    assert "you are seat 1" in out
    result = CliRunner().invoke(main, ["replay", str(store)])
    assert result.exit_code == 2
    assert "name the game" in result.output
    result = CliRunner().invoke(main, ["replay", str(store), "nope"])
    assert "no played game 'nope'" in result.output


def test_replay_of_a_game_id_in_a_file_that_is_no_store_says_so(tmp_path: Path) -> None:
    """Found in an audit: any file that is not SQLite (an export's lines, a text) was
    called "a replay file of one game", and its advice led to another error."""
    text = tmp_path / "notes.txt"
    text.write_text("hello\n")
    result = CliRunner().invoke(main, ["replay", str(text), "g000001"])
    assert result.exit_code == 2
    assert result.stderr == (
        f"arena: error: {text} is not a league store: GAME_ID names a game of one\n"
    )


def test_a_replay_that_unpacks_to_gigabytes_is_refused(store: Path, tmp_path: Path) -> None:
    """A store can be anyone's (a league's published results): a replay whose zlib
    stream of 100 KiB unpacks to 100 MiB is refused in one line by what reads replays
    (arena replay, arena report), and the standings, which read none, still work."""
    bomb = tmp_path / "bomb.sqlite"
    bomb.write_bytes(store.read_bytes())
    with sqlite3.connect(bomb) as db:
        (game_id,) = db.execute("SELECT game_id FROM replays ORDER BY game_id LIMIT 1").fetchone()
        packed = zlib.compress(b" " * (100 * 2**20), 9)
        assert len(packed) < 200_000
        db.execute("UPDATE replays SET log = ? WHERE game_id = ?", (packed, game_id))
        without_proofs(db)  # a stranger's store: what is read is tested
    for args in (["replay", bomb, game_id], ["report", bomb, "-o", tmp_path / "site"]):
        result = CliRunner().invoke(main, [str(a) for a in args])
        assert result.exit_code == 2, result.output
        assert "more than 64 MiB" in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
    assert "rank" in cli("standings", bomb)
    with Store.open(bomb, readonly=True) as db, pytest.raises(StoreError, match="more than 64"):
        db.verify()  # what a resume does first


def _damaged_copy(store: Path, bad: Path, damage: str) -> Path:
    """A copy of `store` with its league settings a list, or one replay that lacks its
    records' values."""
    bad.write_bytes(store.read_bytes())
    with sqlite3.connect(bad) as db:
        (game_id,) = db.execute("SELECT game_id FROM replays ORDER BY game_id").fetchone()
        if damage == "settings":
            db.execute("UPDATE meta SET value = '[1, 2]' WHERE key = 'league'")
        else:
            packed = zlib.compress(b'{"type": "game"}\n{"type": "decision"}')
            db.execute("UPDATE replays SET log = ? WHERE game_id = ?", (packed, game_id))
        without_proofs(db)  # a stranger's store: what is read is tested
    return bad


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ("settings", "the store is damaged (setting 'league': [1, 2])"),
        ("replay", "not a replay arena can read (a record lacks the field 'seat')"),
    ],
)
async def test_arena_serve_says_why_it_cannot_read_a_damaged_store(
    store: Path, tmp_path: Path, damage: str, message: str
) -> None:
    """arena serve on a store it cannot read (the league's settings stored as a list,
    a replay without its records' values) answered a bare 500 and said nothing; now
    the data script's answer, and the terminal, say why, and the pages still load."""
    import httpx

    from arena.report._serve import make_app

    bad = _damaged_copy(store, tmp_path / "bad.sqlite", damage)
    with Store.open(bad, readonly=True) as db:
        transport = httpx.ASGITransport(app=make_app(db))
        async with httpx.AsyncClient(transport=transport, base_url="http://arena") as client:
            page = await client.get("/index.html")
            league_js = await client.get("/data/league.js")
    assert page.status_code == 200
    assert league_js.status_code == 500
    assert message in league_js.text
    assert league_js.headers["content-type"].startswith("text/plain")


async def test_every_answer_of_arena_serve_carries_its_security_headers(store: Path) -> None:
    """Found in an audit: Starlette's own answers (a 405 for a POST) carried none of the
    headers every page has (no script but the site's own, no sniffing, no caching)."""
    import httpx

    from arena.report._serve import HEADERS, make_app

    with Store.open(store, readonly=True) as db:
        transport = httpx.ASGITransport(app=make_app(db))
        async with httpx.AsyncClient(transport=transport, base_url="http://arena") as client:
            answers = [
                await client.get("/index.html"),
                await client.get("/no-such-page"),
                await client.get("/data/games/no-such-game.js"),
                await client.post("/index.html", content=b"x"),
                await client.delete("/data/league.js"),
            ]
    assert [a.status_code for a in answers] == [200, 404, 404, 405, 405]
    for answer in answers:
        assert {k: answer.headers.get(k) for k in HEADERS} == HEADERS, answer
    assert set(answers[3].headers["allow"].split(", ")) == {"GET", "HEAD"}


def test_a_decision_of_no_seat_is_refused_not_credited_to_the_last_seat(
    store: Path, tmp_path: Path
) -> None:
    """A replay's decision of seat -1 was credited to the last seat's think time (a
    negative index): the report now refuses it in one line, naming the game."""
    with sqlite3.connect(store) as db:
        game_id, blob = db.execute("SELECT game_id, log FROM replays ORDER BY game_id").fetchone()
    records = [json.loads(line) for line in zlib.decompress(blob).decode().splitlines()]
    first = next(r for r in records if r["type"] == "decision")
    first["seat"] = -1
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(store.read_bytes())
    with sqlite3.connect(bad) as db:
        packed = zlib.compress("\n".join(json.dumps(r) for r in records).encode())
        db.execute("UPDATE replays SET log = ? WHERE game_id = ?", (packed, game_id))
        without_proofs(db)  # a stranger's store: what is read is tested
    result = CliRunner().invoke(main, ["report", str(bad), "-o", str(tmp_path / "site")])
    assert result.exit_code == 2, result.output
    assert f"game {game_id}: the replay is damaged: a decision of seat -1, in a game of " in (
        result.stderr
    )


def one_replay(tmp_path: Path) -> tuple[Path, Path]:
    """A folder, and the replay file of a one-game match of the Python kit's bots in it."""
    root = tmp_path / "m"
    root.mkdir()
    bots = Path(__file__).resolve().parents[2] / "example_bots" / "python"
    cli("match", bots / "random", bots / "heuristic", "-n", "1", "--sandbox", "none",
        "--replays", root / "replays")  # fmt: skip
    (replay,) = (root / "replays").glob("*.jsonl")
    return root, replay


def test_report_of_one_replay_file(tmp_path: Path) -> None:
    root, replay = one_replay(tmp_path)
    cli("report", "--replay", replay, "-o", root / "site")
    game = next((root / "site" / "data" / "games").glob("*.js"))
    assert payload(game)["names"] == ["random", "heuristic"]
    assert payload(root / "site" / "data" / "league.js")["start"] == "#/game/m0001"


@pytest.fixture(scope="module")
def replay_lines(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The lines of the replay file of a one-game match of the Python kit's bots."""
    _, replay = one_replay(tmp_path_factory.mktemp("replay"))
    return replay.read_text().splitlines()


@pytest.mark.parametrize(
    ("kind", "seat", "message"),
    [
        ("decision", 7, "a decision of seat 7, in a game of 2 seats"),
        ("decision", -1, "a decision of seat -1, in a game of 2 seats"),
        ("decision", True, "a decision of seat True, in a game of 2 seats"),
        ("decision", "0", "a decision of seat '0', in a game of 2 seats"),
        ("decision", "other", "a decision of seat 1 when seat 0 was to move"),
        ("fault", 2, "a fault of seat 2, in a game of 2 seats"),
        ("names", None, "3 bots named for a game of 2 seats"),
    ],
)
def test_a_replay_file_with_a_seat_its_game_does_not_have_is_damaged(
    tmp_path: Path, replay_lines: list[str], kind: str, seat: object, message: str
) -> None:
    """Found in an audit: a replay file (anyone's: edited, damaged) with a decision of
    seat 7 in a game of 2 was shown as one: the report's viewer wrote a frame of seat 7,
    and arena replay --seat 0 left out a decision of seat 0 relabelled so. A decision or
    fault of a seat the game does not have, a decision of a seat not to move, or a
    game with more names than seats is a damaged replay: both commands say so in one
    line naming the file, exit 2, and write no site."""
    records = [json.loads(line) for line in replay_lines]
    if kind == "names":
        records[0]["names"].append("intruder")
    elif kind == "fault":
        fault = {"type": "fault", "seat": seat, "cause": "timeout", "message": "x"}
        records.insert(3, fault)  # after the first decision
    else:
        first = next(r for r in records if r["type"] == "decision")
        first["seat"] = 1 - first["seat"] if seat == "other" else seat
    replay = tmp_path / "damaged.jsonl"
    replay.write_text("".join(json.dumps(r) + "\n" for r in records))
    expected = f"arena: error: {replay}: the replay is damaged: {message}\n"
    site = tmp_path / "site"
    commands = [["report", "--replay", replay, "-o", site], ["replay", replay, "--seat", "0"],
                ["replay", replay, "--seat", "1"]]  # fmt: skip
    if seat != "other":  # the spectator's view shows no decision, nor replays the game
        commands.append(["replay", replay])
    for args in commands:
        result = CliRunner().invoke(main, [str(a) for a in args])
        assert result.exit_code == 2, (args, result.output)
        assert result.stderr == expected, args
        assert result.stdout == ""
    assert not site.exists()


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        ("long name", "a bot named in 1,000,000 characters (at most 200)"),
        ("infinite seed", "its seed is no whole number (inf)"),
        ("faults", "a second fault of seat 0 (a seat faults once)"),
    ],
)
def test_a_replay_file_with_a_huge_name_an_infinite_seed_or_faults_galore_is_damaged(
    tmp_path: Path, replay_lines: list[str], kind: str, message: str
) -> None:
    """Found in an audit: a replay of 1 MB naming a bot in a million characters, with
    a thousand faults, took 4 GB (every frame and fault line repeats a name) and ended
    in a MemoryError's traceback; a seed of 1e999 was an OverflowError's traceback. A
    seat faults once in a game (it is then out): a second fault of it is damage too.
    Both commands say so, in one line, and write no site."""
    lines = list(replay_lines)
    head = json.loads(lines[0])
    if kind == "long name":
        head["names"][0] = "n" * 1_000_000
        lines[0] = json.dumps(head)
    elif kind == "infinite seed":
        lines[0] = json.dumps(head).replace(f'"seed": {head["seed"]}', '"seed": 1e999')
    else:  # (300,000 of them, 16.5 MB, took 1.55 GB: a frame each)
        fault = json.dumps({"type": "fault", "seat": 0, "cause": "crash", "message": ""})
        lines[-1:-1] = [fault] * 1000
    replay = tmp_path / "damaged.jsonl"
    replay.write_text("\n".join(lines) + "\n")
    site = tmp_path / "site"
    for args in (["report", "--replay", replay, "-o", site], ["replay", replay]):
        result = CliRunner().invoke(main, [str(a) for a in args])
        assert result.exit_code == 2, (args, result.output)
        assert result.stderr == f"arena: error: {replay}: the replay is damaged: {message}\n"
    assert not site.exists()


def test_a_lone_surrogate_in_a_replay_is_printed_as_an_escape_and_keeps_a_site_whole(
    tmp_path: Path, replay_lines: list[str]
) -> None:
    """Found in an audit: a bot named "a\\ud800" (JSON can spell half a character)
    ended `arena replay` in a UnicodeEncodeError's traceback, and `arena report
    --replay` refused it only after it had begun to replace the folder's earlier site,
    whose replay links then led nowhere."""
    head = json.loads(replay_lines[0])
    head["names"][0] = "a\ud800"
    replay = tmp_path / "half.jsonl"
    replay.write_text("\n".join([json.dumps(head), *replay_lines[1:]]) + "\n")
    shown = subprocess.run(
        [sys.executable, "-m", "arena", "replay", str(replay)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    assert "a\\ud800" in shown.stdout
    site = tmp_path / "site"
    good = tmp_path / "good.jsonl"
    good.write_text("\n".join(replay_lines) + "\n")
    cli("report", "--replay", good, "-o", site)
    before = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    result = CliRunner().invoke(main, ["report", "--replay", str(replay), "-o", str(site)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert {p: p.read_bytes() for p in site.rglob("*") if p.is_file()} == before


def test_a_replay_files_game_id_names_no_file_outside_the_site(tmp_path: Path) -> None:
    """A replay file need not come from arena: its game id is text, not a path. The
    viewer's data file of `arena report --replay` has a name of arena's, inside the
    site, and the viewer still opens on the game."""
    root, replay = one_replay(tmp_path)
    lines = replay.read_text().splitlines()
    head = json.loads(lines[0])
    head["game_id"] = "../../../outside"
    replay.write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n")
    site = root / "site" / "one"
    cli("report", "--replay", replay, "-o", site)
    assert not list(tmp_path.rglob("outside.js"))
    (listed,) = payload(site / "data" / "games.js")
    assert listed["id"] == "../../../outside"
    game = site / "data" / "games" / f"{listed['file']}.js"
    assert payload(game)["id"] == "../../../outside"


def test_a_report_of_a_store_with_malformed_replays_refuses_in_one_line(
    store: Path, tmp_path: Path
) -> None:
    """A store can be anyone's: a replay whose zlib stream and checksum are whole but
    whose records lack a value, or hold one of another kind (a decision without its
    action, a seat of 10**30, a time that is text), made arena report die with a
    KeyError, IndexError, ValueError or TypeError traceback (arena replay refused the
    same game in one line). 150 stores, each with one value of one game's replay
    removed or retyped: the report is written, or refused in one line naming the game."""
    with sqlite3.connect(store) as db:
        game_id, blob = db.execute("SELECT game_id, log FROM replays ORDER BY game_id").fetchone()
    records = [json.loads(line) for line in zlib.decompress(blob).decode().splitlines()]
    bad = tmp_path / "bad.sqlite"
    refused = 0
    for log, changed in mutants(records, 8, 150):
        bad.write_bytes(store.read_bytes())
        with sqlite3.connect(bad) as db:
            packed = zlib.compress("\n".join(json.dumps(r) for r in log).encode())
            db.execute("UPDATE replays SET log = ? WHERE game_id = ?", (packed, game_id))
            without_proofs(db)  # a stranger's store: what is read is tested
        result = CliRunner().invoke(main, ["report", str(bad), "-o", str(tmp_path / "site")])
        assert result.exit_code in (0, 2), (changed, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit), changed
        if result.exit_code == 2:
            refused += 1
            assert result.stderr.startswith(f"arena: error: {bad}, game {game_id}: "), changed
            assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert refused > 25  # the test reaches the readers (events are not read)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("UPDATE seats SET seat = 9223372036854775807 WHERE seat = 0", "seats [1, 2, 9223"),
        ("UPDATE seats SET seat = -5 WHERE seat = 0", "seats [-5, 1, 2]"),
        ("UPDATE meta SET value = '[1, 2]' WHERE key = 'league'", "setting 'league'"),
        ("UPDATE meta SET value = '\"x\"' WHERE key = 'settings'", "setting 'settings'"),
        (
            "UPDATE meta SET value = json_set(value, '$.game', 5) WHERE key = 'league'",
            "setting 'league'",
        ),
    ],
)
def test_a_report_of_a_store_with_values_no_league_writes_refuses_in_one_line(
    store: Path, tmp_path: Path, change: str, message: str
) -> None:
    """Values no league writes, in a store that can be anyone's: a seat of 2**63 - 1
    made arena report (and serve) count places for every seat up to it, taking memory
    until it was killed; a seat of -5 gave an IndexError traceback; the league's
    settings stored as a list or a string, an AttributeError traceback. Each is now
    reported as damage in one line (the process runs under a 1 GiB address space)."""
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(store.read_bytes())
    with sqlite3.connect(bad) as db:
        db.execute(change)
        without_proofs(db)  # a stranger's store: what is read is tested
    gib = 2**30
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "report", str(bad), "-o", str(tmp_path / "site")],
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (gib, gib)),
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"arena: error: {bad}: "), done.stderr
    assert "the store is damaged" in done.stderr
    assert message in done.stderr
    assert len(done.stderr.splitlines()) == 1


@pytest.mark.parametrize(
    ("host", "status"),
    [("127.0.0.1:8000", 200), ("localhost:8000", 200), ("[::1]:8000", 200),
     ("LOCALHOST", 200), ("192.168.1.5:8000", 200), ("[fe80::1]:8000", 200),
     ("arena.lab:8000", 200), ("evil.example", 421), ("evil.example:8000", 421),
     ("127.0.0.1.evil.example", 421), ("", 421)],
)  # fmt: skip
async def test_arena_serve_answers_only_addresses_and_its_own_names(
    store: Path, host: str, status: int
) -> None:
    """Found in an audit: a page on any web site could read the league from a browser
    on the organiser's machine by pointing a name of its own at 127.0.0.1 (DNS
    rebinding): the Host header was not checked; and a review found that a wildcard
    bind (0.0.0.0), which listens on the loopback too, was not checked at all."""
    import httpx

    from arena.report._serve import make_app, own_hosts

    with Store.open(store, readonly=True) as db:
        transport = httpx.ASGITransport(app=make_app(db, own_hosts(["Arena.Lab"])))
        async with httpx.AsyncClient(transport=transport, base_url="http://x") as client:
            page = await client.get("/data/league.js", headers={"Host": host})
    assert page.status_code == status
    if status == 421:
        assert "unknown host" in page.text
        assert page.headers["content-security-policy"].startswith("default-src 'none'")


def _give_seed(db: sqlite3.Connection, seed: str) -> None:
    """Store `seed` as one the organiser gave (in the league's stored settings)."""
    (text,) = db.execute("SELECT value FROM meta WHERE key = 'league'").fetchone()
    db.execute(
        "UPDATE meta SET value = ? WHERE key = 'league'",
        (json.dumps(json.loads(text) | {"seed": seed}),),
    )


def _running_copy(store: Path, copy: Path, *, seed: str | None = None) -> tuple[Path, str]:
    """A copy of `store` as it was while its league ran: the last game of one duplicate
    group not recorded yet (its deal still to play). Returns it and the group. `seed`:
    the league's seed as the organiser gave it."""
    copy.write_bytes(store.read_bytes())
    with sqlite3.connect(copy) as db:
        game_id, group = db.execute(
            "SELECT game_id, grp FROM games WHERE grp IS NOT NULL ORDER BY rowid DESC"
        ).fetchone()
        for table in ("replays", "seats", "games"):
            db.execute(f"DELETE FROM {table} WHERE game_id = ?", (game_id,))
        if seed is not None:
            _give_seed(db, seed)
    return copy, group


async def test_a_report_of_a_running_league_shows_no_deal_still_to_play(
    store: Path, tmp_path: Path
) -> None:
    """Found in an audit: with duplicate deals, `arena serve` (and `arena report`) of a
    running league gave the replay of every finished game, every hand shown, while the
    other games of its deal were still to play, seats rotated: a bot's author watching
    the league (or a bot that could reach the server) saw its opponents' hands in a
    game not yet played. Such a replay is now withheld until its group is complete."""
    import httpx

    from arena.report._serve import make_app

    with sqlite3.connect(store) as db:
        groups = dict(db.execute("SELECT game_id, grp FROM games"))
    running, group = _running_copy(store, tmp_path / "running.sqlite")
    with Store.open(running, readonly=True) as db:
        write_site(db, tmp_path / "site")
        held = {g for g in db.done_game_ids() if groups[g] == group}
        shown = db.done_game_ids() - held
        listed = {g["id"]: g for g in payload(tmp_path / "site" / "data" / "games.js")}
        transport = httpx.ASGITransport(app=make_app(db))
        async with httpx.AsyncClient(transport=transport, base_url="http://arena") as client:
            answers = {g: await client.get(f"/data/games/{g}.js") for g in held | shown}
            games_js = await client.get("/data/games.js")
    written = "".join(p.read_text() for p in (tmp_path / "site" / "data" / "games").glob("*.js"))
    assert len(held) == 2  # a group of 3 games, the last still to play
    assert len(shown) >= 3
    for game_id in held:
        assert listed[game_id]["withheld"] is True
        assert "file" not in listed[game_id]
        assert f'"id":"{game_id}"' not in written
        assert answers[game_id].status_code == 404
        assert "withheld" in answers[game_id].text
    for game_id in shown:
        assert "withheld" not in listed[game_id]
        assert f'"id":"{game_id}"' in written
        assert answers[game_id].status_code == 200
    assert '"withheld":true' in games_js.text
    with Store.open(store, readonly=True) as db:  # the whole league: nothing withheld
        write_site(db, tmp_path / "whole")
    assert all("withheld" not in g for g in payload(tmp_path / "whole" / "data" / "games.js"))


def _with_a_fault_message(path: Path, group: str, message: str) -> None:
    """Give the first game of `group` in the store at `path` a fault of seat 0 saying
    `message` (its proofs dropped: an edited store). A seat faults once in a game: a
    fault seat 0 had already (a bot slow on a loaded machine) is given the message."""
    with sqlite3.connect(path) as db:
        without_proofs(db)
        (game_id,) = db.execute(
            "SELECT game_id FROM games WHERE grp = ? ORDER BY rowid", (group,)
        ).fetchone()
        (blob,) = db.execute("SELECT log FROM replays WHERE game_id = ?", (game_id,)).fetchone()
        lines = zlib.decompress(blob).decode().splitlines()
        fault = {"type": "fault", "seat": 0, "cause": "crash", "message": message, "bytes": None}
        records = [json.loads(line) for line in lines]
        had = [i for i, r in enumerate(records) if r["type"] == "fault" and r["seat"] == 0]
        if had:
            lines[had[0]] = json.dumps(fault)
        else:
            lines.insert(len(lines) - 1, json.dumps(fault))  # before its result
        packed = zlib.compress("\n".join(lines).encode())
        db.execute("UPDATE replays SET log = ? WHERE game_id = ?", (packed, game_id))


def test_a_report_of_a_running_league_shows_no_fault_message_of_a_withheld_game(
    store: Path, tmp_path: Path
) -> None:
    """Found in an audit: a withheld game's replay was held back, but its faults'
    messages were in the league's data (a bot's page), and a message ends with the
    bot's last stderr lines: a bot that prints its hand, as bots do while their author
    debugs, and then crashes or times out, had the hand shown while the rest of its
    deal, where that hand is an opponent's, was still to play. Shown once the group is
    complete."""
    said = "closed its output (its stderr ended: HAND 4 7 8 8)"
    running, group = _running_copy(store, tmp_path / "running.sqlite")
    whole = tmp_path / "whole.sqlite"
    whole.write_bytes(store.read_bytes())
    for path, shown in ((running, False), (whole, True)):
        _with_a_fault_message(path, group, said)
        with Store.open(path, readonly=True) as db:
            data = LeagueData(db)
            data.update()
            league = json.dumps(data.league(live=True))
            write_site(db, tmp_path / path.stem)
        written = "".join(p.read_text() for p in (tmp_path / path.stem).rglob("*.js"))
        assert ("HAND 4 7 8 8" in league) is shown, path
        assert ("HAND 4 7 8 8" in written) is shown, path


def test_a_report_shows_the_organisers_seed_once_every_game_is_played(
    store: Path, tmp_path: Path
) -> None:
    """Found in an audit: the report of a running league showed the seed the organiser
    gave, from which anyone computes the deals of the games still to play."""
    running, _ = _running_copy(store, tmp_path / "running.sqlite", seed="spring-cup-x7")
    whole = tmp_path / "whole.sqlite"
    whole.write_bytes(store.read_bytes())
    with sqlite3.connect(whole) as db:
        _give_seed(db, "spring-cup-x7")
    for path, shown in ((running, False), (whole, True)):
        with Store.open(path, readonly=True) as db:
            data = LeagueData(db)
            data.update()
            note = data.league(live=True)["settings"]["seed_note"]
        assert ("spring-cup-x7" in note) is shown, note
        assert "given by the organiser" in note


@pytest.mark.parametrize("where", ["taken", "no.such.host.invalid", "192.0.2.1"])
def test_arena_serve_that_cannot_listen_says_why_in_one_line(store: Path, where: str) -> None:
    """Found in an audit: `arena serve` on a port another program holds, at a host name
    that does not resolve or at an address not this machine's printed "serving ..." and
    then a traceback of Hypercorn's."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        host = "127.0.0.1" if where == "taken" else where
        done = subprocess.run(
            [sys.executable, "-m", "arena", "serve", str(store), "--host", host,
             "--port", str(port)],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "serving" not in done.stderr
    assert f"arena serve cannot listen at {host}:{port}: " in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_ctrl_c_stops_arena_serve_in_one_line(store: Path) -> None:
    """`arena serve` says where it listens once it does (the port it was given 0 for
    too), and Ctrl-C stops it with a word, not a traceback."""
    import signal
    import urllib.request

    with subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", str(store), "--port", "0"],
        stderr=subprocess.PIPE, text=True,
    ) as server:  # fmt: skip
        try:
            assert server.stderr is not None
            line = server.stderr.readline()
            match = re.search(r"at (http://127\.0\.0\.1:(\d+))/ \(Ctrl-C stops\)", line)
            assert match is not None, line
            assert match.group(2) != "0"
            with urllib.request.urlopen(match.group(1) + "/index.html", timeout=10) as answer:
                assert answer.status == 200
            server.send_signal(signal.SIGINT)
            rest = server.stderr.read()
            assert server.wait(timeout=30) == 0, rest
        finally:
            if server.poll() is None:
                server.kill()
    assert rest.strip() == "stopped"


def test_a_replay_file_whose_game_id_is_not_text_is_refused(tmp_path: Path) -> None:
    """A replay file's game id of 7 or {} wrote a site whose viewer could never find
    the game (it finds games by their id, as text): now refused in one line."""
    root, replay = one_replay(tmp_path)
    lines = replay.read_text().splitlines()
    head = json.loads(lines[0])
    head["game_id"] = 7
    replay.write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n")
    result = CliRunner().invoke(main, ["report", "--replay", str(replay), "-o", str(root / "s")])
    assert result.exit_code == 2, result.output
    assert "not a replay arena can read (ValueError: a game id that is not text: 7)" in (
        result.stderr
    )
    assert not (root / "s").exists()


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        ("names", "the bots' names are no list of names ('rh')"),
        ("places", "its result does not match the rules engine's"),
    ],
)
def test_arena_replay_and_report_refuse_the_same_damaged_replay(
    tmp_path: Path, damage: str, said: str
) -> None:
    """Found by a red team: the names "rh" (text, not a list) were taken by both as
    the bots "r" and "h"; places [2] in the result were refused by `arena replay` but
    made into a site by `arena report --replay`. Both now check the whole file alike."""
    root, replay = one_replay(tmp_path)
    lines = [json.loads(line) for line in replay.read_text().splitlines()]
    if damage == "names":
        lines[0]["names"] = "rh"
    else:
        lines[-1]["places"] = [2]
    replay.write_text("".join(json.dumps(line) + "\n" for line in lines))
    for command in (["replay", str(replay)], ["report", "--replay", str(replay), "-o",
                                                str(root / "site")]):  # fmt: skip
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 2, (command, result.output)
        assert f"{replay}: the replay is damaged: " in result.stderr, result.stderr
        assert said in result.stderr, result.stderr
    assert not (root / "site").exists()


def _seats_damaged_copy(store: Path, bad: Path) -> tuple[Path, str]:
    """A copy of `store` whose second game has seats 0, 2 and 5; and that game."""
    bad.write_bytes(store.read_bytes())
    with sqlite3.connect(bad) as db:
        (game_id,) = db.execute(
            "SELECT game_id FROM games ORDER BY rowid LIMIT 1 OFFSET 1"
        ).fetchone()
        db.execute("UPDATE seats SET seat = 5 WHERE game_id = ? AND seat = 1", (game_id,))
        without_proofs(db)  # a stranger's store: what is read is tested
    return bad, game_id


async def test_arena_serve_never_goes_on_past_a_game_it_could_not_read(
    store: Path, tmp_path: Path
) -> None:
    """Found in an audit: after a data script answered that the store is damaged (a
    game whose seats are not 0, 1, 2), the next request answered 200 with that game and
    every game recorded after it missing from the list, as if they were not stored.
    Each request now says again why it cannot read the store."""
    import httpx

    from arena.report._serve import make_app

    bad, game_id = _seats_damaged_copy(store, tmp_path / "bad.sqlite")
    with Store.open(bad, readonly=True) as db:
        transport = httpx.ASGITransport(app=make_app(db))
        async with httpx.AsyncClient(transport=transport, base_url="http://arena") as client:
            answers = [await client.get("/data/games.js") for _ in range(3)]
    for answer in answers:
        assert answer.status_code == 500, answer.text[:200]
        assert f"the store is damaged (game {game_id!r} has seats [0, 2, 5])" in answer.text


@pytest.mark.parametrize("total", ['"x"', "[1]", "1e400", "true"])
def test_a_total_of_games_that_is_no_number_hides_the_seed_and_breaks_nothing(
    store: Path, tmp_path: Path, total: str
) -> None:
    """A review of the fix above: the store's total of games compared with the games
    read made a total of "x" (a store can be anyone's) a TypeError's traceback; such a
    total now counts as a league not finished."""
    copy = tmp_path / "copy.sqlite"
    copy.write_bytes(store.read_bytes())
    with sqlite3.connect(copy) as db:
        _give_seed(db, "spring-cup-x7")
        db.execute("UPDATE meta SET value = ? WHERE key = 'total_games'", (total,))
    result = CliRunner().invoke(main, ["report", str(copy), "-o", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    note = payload(tmp_path / "site" / "data" / "league.js")["settings"]["seed_note"]
    assert "spring-cup-x7" not in note


def _renamed_copy(store: Path, copy: Path, new_id: str) -> Path:
    """A copy of `store` with its first game's id `new_id`."""
    copy.write_bytes(store.read_bytes())
    with sqlite3.connect(copy) as db:
        game_id, blob = db.execute("SELECT game_id, log FROM replays ORDER BY game_id").fetchone()
        log = zlib.decompress(blob).decode().replace(f'"{game_id}"', json.dumps(new_id), 1)
        db.execute(
            "UPDATE replays SET log = ? WHERE game_id = ?", (zlib.compress(log.encode()), game_id)
        )
        for table in ("games", "seats", "replays"):
            db.execute(f"UPDATE {table} SET game_id = ? WHERE game_id = ?", (new_id, game_id))
    return copy


async def test_arena_serve_answers_for_a_game_id_with_a_slash(store: Path, tmp_path: Path) -> None:
    """Found in an audit: a game id with a / in it (a store can be anyone's) was listed
    but its replay answered 404, whether the viewer asked for it encoded (%2F) or not:
    the route took one path segment."""
    import httpx

    from arena.report._serve import make_app

    odd = _renamed_copy(store, tmp_path / "odd.sqlite", "a/b")
    with Store.open(odd, readonly=True) as db:
        transport = httpx.ASGITransport(app=make_app(db))
        async with httpx.AsyncClient(transport=transport, base_url="http://arena") as client:
            listed = await client.get("/data/games.js")
            answers = [await client.get(f"/data/games/{path}.js") for path in ("a%2Fb", "a/b")]
            missing = await client.get("/data/games/a/c.js")
    assert '"a/b"' in listed.text
    for answer in answers:
        assert answer.status_code == 200, answer.text
        assert answer.text.startswith('ARENA.receive("game",{"id":"a/b",')
    assert missing.status_code == 404


def test_the_report_takes_the_standings_anchor(store: Path, tmp_path: Path) -> None:
    """Issue 46.4: `arena report --anchor NAME=ELO` rates the bots as `arena standings
    --anchor` does; a name the store has no bot of is refused."""
    first = json.loads(cli("standings", store, "-f", "json"))["rows"][0]["bot"]
    result = CliRunner().invoke(
        main, ["report", str(store), "-o", str(tmp_path / "site"), "--anchor", f"{first}=2000"]
    )
    assert result.exit_code == 0, result.output
    league_data = payload(tmp_path / "site" / "data" / "league.js")
    anchored = json.loads(cli("standings", store, "-f", "json", "--anchor", f"{first}=2000"))
    assert league_data["standings"]["rows"] == anchored["rows"]
    assert league_data["standings"]["anchor"] == {"bot": first, "elo": 2000.0}
    result = CliRunner().invoke(
        main, ["report", str(store), "-o", str(tmp_path / "other"), "--anchor", "zed=0"]
    )
    assert result.exit_code == 2
    assert f"--anchor 'zed': no such bot in {store}" in result.output


def _four_games(db: Store, names: tuple[str, ...]) -> None:
    """Games g0 to g3 of `names`, stored played (each with its own finishing order)."""
    from tests.league.test_store_basics import finished

    for k in range(4):
        db.record_game(
            finished(f"g{k}", k + 1, names), index=k, group=None,
            started_at=1.0, finished_at=2.0,
        )  # fmt: skip


def test_a_forfeit_counts_in_no_bots_games_wins_or_results_in_the_report(
    tmp_path: Path,
) -> None:
    """Defect 1 of the statistics audit: a forfeit (a disqualified bot's game, stored
    with the others sharing first place) counted as a win for every other bot at its
    table, on its bot pages as in the standings. It is listed, with its forfeit as a
    fault, and counted nowhere else: the pages' games, wins, places and results against
    each opponent are those of the played games, as the standings' and the matrix."""
    names = ("ann", "bob", "cat")
    path = tmp_path / "league.sqlite"
    with Store.open(path) as db:
        _four_games(db, names)
        played = db.seat_rows()
        for k in range(4, 10):
            db.record_forfeit(f"g{k}", k, None, names, ["cat"], seed=k)
    with Store.open(path, readonly=True) as db:
        data = LeagueData(db)
        data.update()
        league_data = data.league()
    bots = league_data["bots"]
    for name in names:
        mine = [r for r in played if r.bot == name]
        assert bots[name]["games"] == len(mine)
        assert bots[name]["wins"] == sum(r.place == 1 for r in mine)
        for other in set(names) - {name}:
            versus = bots[name]["versus"][other]
            assert versus["games"] == 4
            theirs = {r.game_id: r.place for r in played if r.bot == other}
            assert versus["above"] == sum(r.place < theirs[r.game_id] for r in mine)
    assert sorted(bots["cat"]["faults"]["forfeit"]) == [f"g{k}" for k in range(4, 10)]
    assert league_data["progress"]["forfeits"] == 6
    standings = json.loads(cli("standings", path, "-f", "json"))
    assert league_data["standings"]["rows"] == standings["rows"]
    assert league_data["matrix"] == json.loads(cli("standings", path, "-f", "json", "--matrix"))
    assert standings["games"] == 4
    assert standings["forfeits"] == 6
    rows = {row["bot"]: row for row in standings["rows"]}
    assert [rows[n]["games"] for n in names] == [4, 4, 4]
    assert [rows[n]["faults"]["forfeit"] for n in names] == [0, 0, 6]
    matrix = league_data["matrix"]["games"]
    assert matrix == [[0 if a == b else 4 for b in range(3)] for a in range(3)]


def test_a_fault_message_shows_control_and_format_characters_as_escapes(
    store: Path, tmp_path: Path
) -> None:
    """Found in an audit: a fault's message ends with the bot's last lines of stderr,
    which the pages showed as they were: a NUL as a box, an escape sequence's ESC
    unseen, and a right-to-left override (U+202E) turned the rest of the line round
    ("HAND 4 7" read "7 4 DNAH"). Shown as escapes, as `arena replay` prints them."""
    said = "closed its output (its stderr ended: \x00\x1b[31mred \u202eHAND 4 7)"
    escaped = "closed its output (its stderr ended: \\x00\\x1b[31mred \\u202eHAND 4 7)"
    copy = tmp_path / "copy.sqlite"
    copy.write_bytes(store.read_bytes())
    with sqlite3.connect(copy) as db:
        (group,) = db.execute("SELECT grp FROM games ORDER BY rowid").fetchone()
    _with_a_fault_message(copy, group, said)
    with Store.open(copy, readonly=True) as db:
        data = LeagueData(db)
        logs: dict[str, list[dict[str, Any]]] = {}
        data.update(logs.__setitem__)
        bots = data.league()["bots"]
    messages = [m for bot in bots.values() for m in bot["fault_messages"].values()]
    assert escaped in messages
    faults = [f for log in logs.values() for f in game_payload(log)["faults"]]
    assert escaped in [f["message"] for f in faults]
    for text in [*messages, *(f["message"] for f in faults)]:
        assert not re.search("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", text), text


def test_a_replay_cut_before_its_game_ends_is_refused_in_words(
    replay_lines: list[str], tmp_path: Path
) -> None:
    """Found in an audit: `arena report --replay` of a replay cut short said "not a
    replay arena can read (RulesError: the game is not over)", the rules engine's
    words; `arena replay` shows such a file as far as it goes."""
    decisions = [i for i, line in enumerate(replay_lines) if '"type":"decision"' in line]
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(replay_lines[: decisions[len(decisions) // 2]]) + "\n")
    result = CliRunner().invoke(main, ["report", "--replay", str(cut), "-o", str(tmp_path / "s")])
    assert result.exit_code != 0
    assert "RulesError" not in result.output
    assert "the replay is damaged: it ends before its game does" in result.output
    assert "(the game did not finish)" in cli("replay", cut)


def test_a_report_following_a_league_counts_a_game_replaced_by_its_forfeit_once(
    tmp_path: Path,
) -> None:
    """A running league replaces a game of a bot disqualified before it (in the order it
    counts faults in a row) by its forfeit, stored again under a new row: the live
    report that follows the store lists the game once, as the forfeit, and counts it
    nowhere else (it listed the game twice, played and forfeited, and counted both)."""
    from tests.league.test_store_basics import finished

    path = tmp_path / "s.sqlite"
    with Store.open(path) as db:
        for i in range(3):
            result = finished(f"g{i}", i + 5, ("a", "b", "c"))
            db.record_game(result, index=i, group=None, started_at=1.0, finished_at=2.0)
        data = LeagueData(db)
        data.update()
        assert [g["id"] for g in data.games] == ["g0", "g1", "g2"]
        played = data.league()["bots"]["a"]["games"]
        db.record_forfeit("g1", 1, None, ("a", "b", "c"), ["a"], 6, replace=True)
        assert data.update() == ["g0", "g2", "g1"]  # (all read anew, as recorded)
        assert [g["id"] for g in data.games] == ["g0", "g2", "g1"]
        assert data.status("g1") == "forfeit"
        assert data.league()["bots"]["a"]["games"] == played - 1
        fresh = LeagueData(db)
        fresh.update()
        assert fresh.league() == data.league()


def test_an_anchor_whose_only_games_are_forfeits_is_rated_as_no_anchor(tmp_path: Path) -> None:
    """A live league whose anchor has no game yet is rated as without one (`LeagueData`):
    a forfeit is no game played (the standings neither rate nor count it), so an anchor
    whose only games are forfeits has none either. Counted as played, it made every
    league payload raise "the anchor 'dan' played no game here", on each page
    `arena serve` was asked for."""
    path = tmp_path / "league.sqlite"
    with Store.open(path) as db:
        _four_games(db, ("ann", "bob", "cat"))
        db.record_forfeit("g4", 4, None, ("ann", "dan"), ["dan"], seed=4)
    with Store.open(path, readonly=True) as db:
        data = LeagueData(db, anchor=("dan", 2000.0))
        data.update()
        league_data = data.league(live=True)
    plain = json.loads(cli("standings", path, "-f", "json"))
    assert league_data["standings"]["anchor"] is None
    assert league_data["standings"]["rows"] == plain["rows"]
    assert plain["unplayed"] == ["dan"]


def test_a_draw_is_neither_above_nor_below_in_a_bots_results_against_another(
    tmp_path: Path,
) -> None:
    """R5.4: a game that reaches its play cap is a draw, its players sharing a place.
    On a bot's page, its results against each opponent count the games it finished
    above and below that one: a shared place is neither (the matrix counts it half)."""
    import random

    from arena.referee import GameResult
    from arena.rules import Format, Game, GameConfig

    names = ("ann", "bob", "cat")
    path = tmp_path / "league.sqlite"
    with Store.open(path) as db:
        for k, cap in enumerate([1, 1, 5000]):
            config = GameConfig(players=3, format=Format.POINTS, target=60, play_cap=cap)
            game = Game(config, k + 1)
            rng = random.Random(k)
            while not game.is_over:
                actions = game.legal_actions()
                game.apply(actions[rng.randrange(len(actions))])
            result = GameResult(
                game_id=f"g{k}", seed=k + 1, config=config, names=names,
                outcome=game.outcome(), faults=(), decisions=game.plays,
                think_ms=(0.0,) * 3, log=[{"type": "game", "game_id": f"g{k}"}],
            )  # fmt: skip
            db.record_game(result, index=k, group=None, started_at=1.0, finished_at=2.0)
        rows = db.seat_rows()
    place = {(r.game_id, r.bot): r.place for r in rows}
    assert {place["g0", n] for n in names} == {1}  # a draw
    with Store.open(path, readonly=True) as db:
        data = LeagueData(db)
        data.update()
        bots = data.league()["bots"]
    for a in names:
        assert sorted(bots[a]["versus"]) == sorted(set(names) - {a})  # not itself
        for b in set(names) - {a}:
            versus = bots[a]["versus"][b]
            games = [f"g{k}" for k in range(3)]
            assert versus["games"] == 3
            assert versus["above"] == sum(place[g, a] < place[g, b] for g in games)
            assert versus["below"] == sum(place[g, a] > place[g, b] for g in games)
            assert versus["above"] + versus["below"] == 1


def test_the_report_says_which_rows_pool_versions_of_a_submission(tmp_path: Path) -> None:
    """The report's standings are `arena standings`' JSON, the versions a row pools
    included: a submission that changed between runs is named with its versions."""
    from tests.league.test_store_basics import finished

    names = ("ann", "bob", "cat")
    path = tmp_path / "league.sqlite"
    with Store.open(path) as db:
        for k in range(3):
            db.record_game(
                finished(f"g{k}", k + 1, names), index=k, group=None,
                started_at=1.0, finished_at=2.0,
            )  # fmt: skip
        db.count_version("ann")
    with Store.open(path, readonly=True) as db:
        data = LeagueData(db)
        data.update()
        league_data = data.league()
    standings = json.loads(cli("standings", path, "-f", "json"))
    assert standings["versions"] == {"ann": 2}
    assert league_data["standings"] == standings
