"""Issue 15.6 and 15.4: real bot processes, through `arena sprt` itself: the heuristic bot
beats the random bot (H1), two copies of one bot do not (H0), paired games never share
a bot process, and Ctrl-C loses nothing."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.sprt._plan import Plan
from arena.testing import alive, script

from ..sandbox.helpers import arena_on_read_only, cannot_write_store, gone_sync, needs_bwrap
from .helpers import ROOT, example_bot

pytestmark = pytest.mark.subprocess

QUICK = ("--sandbox", "none", "--json")


def sprt(*args: str, quiet: bool = True) -> dict[str, object]:
    result = CliRunner().invoke(main, ["sprt", *args, *QUICK, *(["-q"] if quiet else [])])
    assert result.exit_code == 0, result.stderr
    data: dict[str, object] = json.loads(result.stdout)
    data["stderr"] = result.stderr
    return data


def test_the_heuristic_bot_is_better_than_the_random_bot(tmp_path: Path) -> None:
    heuristic = example_bot(tmp_path, "heuristic")
    rand = example_bot(tmp_path, "random")
    store = tmp_path / "t.sqlite"
    args = (str(heuristic), str(rand), "--max-games", "400", "--store", str(store), "-j", "1")
    result = sprt(*args, quiet=False)
    assert result["verdict"] == "H1"
    assert result["direct"] is True
    assert isinstance(result["games"], int)
    assert result["games"] < 400
    interval = result["elo_interval"]
    assert isinstance(interval, list)
    assert interval[0] > 10.0
    assert result["faults"] == {"new": {}, "old": {}, "field": {}}
    outcomes = result["pair_outcomes"]
    assert isinstance(outcomes, dict)
    assert sum(outcomes.values()) == result["pairs"]
    # the progress line on stderr shows the LLR as it moves, up to the decision
    lines = [line for line in str(result["stderr"]).splitlines() if " LLR " in line]
    assert lines[0].startswith("games      2  LLR")
    assert f"games {result['games']:>6}  LLR  +{result['llr']:.2f}" in lines[-1]
    # the same command again: the test has ended, nothing is played
    again = sprt(*args)
    assert (again["verdict"], again["games_played_now"], again["llr"]) == (
        "H1", 0, result["llr"],
    )  # fmt: skip


def test_two_copies_of_one_bot_are_not_found_better(tmp_path: Path) -> None:
    """The heuristic bot is deterministic: both copies replay each deal alike (D = 0), and
    the test accepts H0 after 143 pairs; in two worker processes."""
    new = example_bot(tmp_path, "heuristic", "new")
    old = example_bot(tmp_path, "heuristic", "old")
    store = tmp_path / "t.sqlite"
    result = sprt(str(new), str(old), "--max-games", "300", "--store", str(store), "-j", "2")
    assert result["verdict"] == "H0"
    assert (result["new"], result["old"]) == ("heuristic.new", "heuristic.old")
    assert result["pair_outcomes"] == {"0": 143}


LOGGER = r"""
import os, sys, time, msgpack
log, pause = sys.argv[1], float(sys.argv[2])
r, w = sys.stdin.buffer, sys.stdout.buffer
while True:
    h = r.read(4)
    if len(h) < 4:
        break
    m = msgpack.unpackb(r.read(int.from_bytes(h, "big")))
    t = m["type"]
    if t == "game_start":
        with open(log, "a") as f:
            f.write(f"{os.getpid()} {m['game_id']}\n")
        continue
    if t == "hello":
        b = msgpack.packb({"type": "hello", "name": "logger", "version": "1", "protocol": 1})
    elif t == "act":
        time.sleep(pause)
        b = msgpack.packb({"type": "action", "request_id": m["request_id"], "choice": 0})
    elif t == "bye":
        break
    else:
        continue
    w.write(len(b).to_bytes(4, "big") + b)
    w.flush()
"""


def logger_bots(root: Path, names: list[str], pause: float) -> list[Path]:
    folders = []
    for name in names:
        folder = root / name
        folder.mkdir(parents=True)
        (folder / "bot.py").write_text(LOGGER)
        log = root / "games.log"
        run = f"python3 bot.py {log} {pause}"
        (folder / "bot.toml").write_text(f'name = "{name}"\nrun = "{run}"\n')
        folders.append(folder)
    return folders


def real_ids(store: Path) -> dict[str, str]:
    """The store's game id of each game id the bots saw (blind seats), from the plan the
    test's stored settings make."""
    with sqlite3.connect(store) as db:
        (value,) = db.execute("SELECT value FROM meta WHERE key = 'test'").fetchone()
        (pairs,) = db.execute("SELECT MAX(pair) + 1 FROM games").fetchone()
    test = json.loads(value)
    field = tuple(bot["name"] for bot in test["field"])
    plan = Plan(test["new"]["name"], test["old"]["name"], field, test["table_size"], test["seed"])
    return {g.shown[0]: g.game_id for i in range(pairs) for g in plan.pair(i).games}


def played(root: Path) -> dict[str, set[int]]:
    """The processes (pids) that played each game, by the store's game id."""
    ids = real_ids(root / "t.sqlite")
    games: dict[str, set[int]] = {}
    for line in (root / "games.log").read_text().split("\n"):
        if line:
            pid, game_id = line.split()
            games.setdefault(ids[game_id], set()).add(int(pid))
    return games


def test_no_bot_process_plays_both_games_of_a_deal(tmp_path: Path) -> None:
    """A field bot that remembered the deal of game a would play game b knowing every hand
    (the fair-play rule of duplicate groups): the two games never share a process."""
    new, old, f1, f2 = logger_bots(tmp_path, ["new", "old", "f1", "f2"], 0.0)
    result = sprt(
        str(new), str(old), "--field", str(f1), str(f2), "--max-games", "16",
        "--store", str(tmp_path / "t.sqlite"), "-j", "2",
    )  # fmt: skip
    assert (result["verdict"], result["games"], result["table_size"]) == ("inconclusive", 16, 3)
    games = played(tmp_path)
    assert len(games) == 16
    for pair in range(8):
        a, b = games[f"p{pair:06d}a"], games[f"p{pair:06d}b"]
        assert len(a) == len(b) == 3
        assert a.isdisjoint(b)


def test_the_two_games_of_a_deal_are_never_played_at_once(tmp_path: Path) -> None:
    """Two processes of a field bot playing one deal at once could tell each other what
    they see (a lock on a file of their folder crosses the sandbox), and the one that is
    behind would know the draws to come: at -j 2, game b starts after game a ends."""
    new, old, f1, f2 = logger_bots(tmp_path, ["new", "old", "f1", "f2"], 0.005)
    store = tmp_path / "t.sqlite"
    sprt(
        str(new), str(old), "--field", str(f1), str(f2), "--max-games", "8",
        "--store", str(store), "-j", "2",
    )  # fmt: skip
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT game_id, started, finished FROM games").fetchall()
    spans = {game_id: (started, finished) for game_id, started, finished in rows}
    assert len(spans) == 8
    for pair in range(4):
        a, b = sorted([spans[f"p{pair:06d}a"], spans[f"p{pair:06d}b"]])
        assert b[0] >= a[1], f"the games of pair {pair} were played at once: {a}, {b}"


def _stored(store: Path) -> list[tuple[object, ...]]:
    if not store.exists():
        return []
    try:  # read-only: never the one to create the file
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
            return list(db.execute("SELECT * FROM games ORDER BY game_id"))
    except sqlite3.OperationalError:
        return []


def test_ctrl_c_stops_kills_the_bots_and_the_same_command_resumes(tmp_path: Path) -> None:
    new, old = logger_bots(tmp_path, ["new", "old"], 0.01)
    store = tmp_path / "t.sqlite"
    command = [
        sys.executable, "-m", "arena.cli", "sprt", str(new), str(old), "--max-games", "12",
        "--store", str(store), "--sandbox", "none", "-j", "1", "--json",
    ]  # fmt: skip
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while len(_stored(store)) < 3:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the test did not get going"
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert b"run the same command to resume" in err
    assert b"Traceback" not in err
    before = _stored(store)
    assert 3 <= len(before) < 12
    pids = {pid for pids in played(tmp_path).values() for pid in pids}
    assert pids
    assert not [p for p in pids if alive(p)]
    again = subprocess.run(command, cwd=ROOT, capture_output=True, timeout=120)
    assert again.returncode == 0, again.stderr
    result = json.loads(again.stdout)
    assert (result["games"], result["games_stored"]) == (12, 12)
    assert result["games_played_now"] == 12 - len(before)
    assert set(before) <= set(_stored(store))  # nothing lost, nothing played again


def test_a_store_removed_before_the_test_is_stopped_has_its_games_saved(tmp_path: Path) -> None:
    """The store removed after a pair, then Ctrl-C before the next game is stored: the test
    said its games were stored there, in a file that was gone with them. They are saved
    on the way out, and the last words say where (as a league's: tests/league)."""
    for name in ("new", "old"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "bot.py").write_text(script("hangs_after_first_game"))
        (folder / "bot.toml").write_text(
            f'name = "{name}"\nrun = "python3 bot.py {tmp_path}/pids"\n'
        )
    store = tmp_path / "t.sqlite"
    command = [
        sys.executable, "-m", "arena.cli", "sprt", str(tmp_path / "new"), str(tmp_path / "old"),
        "--store", str(store), "--sandbox", "none", "-j", "1", "--decision-ms", "600000",
    ]  # fmt: skip
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while len(_stored(store)) < 2:  # a pair (processes of their own), then all think for ever
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the test did not get going"
        time.sleep(0.05)
    store.unlink()
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    rescue = tmp_path / f"t.sqlite.rescued-{proc.pid}"
    assert err.decode().splitlines()[-1] == (
        f"interrupted: {store}: the store was removed while this SPRT wrote it; its 2 games"
        f" are saved in {rescue}: move that to {store} to resume"
    )
    assert len(_stored(rescue)) == 2


def test_sigterm_during_a_build_kills_it_and_stops_the_test_at_once(tmp_path: Path) -> None:
    """SIGTERM waited for a bot's build to end, up to its timeout (10 minutes)."""
    token = f"arena-build-{os.getpid()}-sprt"
    new, old = logger_bots(tmp_path, ["new", "old"], 0.01)
    manifest = new / "bot.toml"
    build = f"sh -c 'touch started; sleep 60; : {token}'"
    manifest.write_text(manifest.read_text() + f'build = "{build}"\n')
    command = [
        sys.executable, "-m", "arena.cli", "sprt", str(new), str(old), "--max-games", "12",
        "--store", str(tmp_path / "t.sqlite"), "--sandbox", "none", "-j", "1",
    ]  # fmt: skip
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while not (new / "started").exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the build did not start"
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    try:
        _out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:  # fail here, leaving no process to a later test
        proc.kill()
        proc.communicate()
        pytest.fail("the SPRT did not stop within 30 s of SIGTERM")
    assert proc.returncode == 143, err
    assert b"Traceback" not in err
    assert gone_sync(token)


def test_pinned_workers_run_the_tests_bots_on_a_cpu_of_their_own(tmp_path: Path) -> None:
    """`arena sprt -j 2 --pin-cpus`: every bot process runs on its worker's CPU alone."""
    report = "import os, sys; print('CPUS', sorted(os.sched_getaffinity(0)), file=sys.stderr)\n"
    future = "from __future__ import annotations\n"
    bots = []
    for kind in ("heuristic", "random"):
        bot = example_bot(tmp_path, kind) / "bot.py"
        source = bot.read_text()
        assert future in source
        bot.write_text(source.replace(future, future + report, 1))
        bots.append(str(bot.parent))
    logs, store = str(tmp_path / "logs"), str(tmp_path / "t.sqlite")
    sprt(
        *bots, "--max-games", "8", "--store", store, "-j", "2", "--pin-cpus", "--log-dir", str(logs)
    )
    seen = {
        line.removeprefix("CPUS ")
        for log in Path(logs).glob("*.log")
        for line in log.read_text().splitlines()
        if line.startswith("CPUS ")
    }
    allowed = sorted(os.sched_getaffinity(0))
    assert seen == {f"[{cpu}]" for cpu in allowed[: min(2, os.cpu_count() or 1)]}


@needs_bwrap
def test_a_store_whose_folder_cannot_be_written_is_said_so(tmp_path: Path) -> None:
    """Found by a red team: a finished test's store on a read-only mount said only
    SQLite's "cannot open: unable to open database file" (a league's store said why);
    now the same words as a league's."""
    new, old = example_bot(tmp_path, "heuristic"), example_bot(tmp_path, "random")
    shelf = tmp_path / "shelf"
    store = shelf / "t.sqlite"
    args = (str(new), str(old), "--max-games", "2", "--store", str(store), "-j", "1")
    assert sprt(*args)["games"] == 2
    done = arena_on_read_only(shelf, "sprt", *args, *QUICK)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(cannot_write_store(store)), done.stderr


HELPER = '''
"""A field bot that helps NEW: it throws a game whose tested seat it takes for NEW
(a name ending in ".new", a game id ending in "a": what an SPRT showed before blind
seats), spending its escape cards first and keeping its high numbers, and otherwise
plays the heuristic. It reads everything it is given."""
import os, sys
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, "example_bots", "python", "heuristic"))
from bot import Heuristic
from protocol.bot import run

THROW = ("-10", "R", "P2", "H", "DP", "0")
heuristic = Heuristic()
helping = False


def game_start(message):
    global helping
    heuristic.on_game_start(message)
    others = [n for i, n in enumerate(message["names"]) if i != message["seat"]]
    clues = [*others, message["game_id"], *os.environ.values(), os.getcwd(), *sys.argv]
    helping = any(str(c).endswith(".new") for c in clues) or message["game_id"].endswith("a")


def choose(act):
    if not helping:
        return heuristic.choose(act)
    cards = [str(a.get("card", "")) for a in act["legal"]]
    for card in THROW:
        if card in cards:
            return cards.index(card)
    numbers = [(int(c), i) for i, c in enumerate(cards) if c.isdigit() and c != "99"]
    return min(numbers)[1] if numbers else 0


run(choose, name="helper", version="1", on_game_start=game_start, exit_at_end=True)
'''


def test_a_field_that_tries_to_help_new_cannot_tell_it_from_old(tmp_path: Path) -> None:
    """Issue 41.1, blind seats: two identical copies of the random bot against a field
    bot that throws every game it takes for NEW's (before blind seats it moved the
    estimate by hundreds of Elo, and the test accepted H1). Now it cannot tell NEW's
    seat or game, and the estimate stays within its own interval of 0."""
    new = example_bot(tmp_path, "random", "new")
    old = example_bot(tmp_path, "random", "old")
    helper = tmp_path / "helper"
    helper.mkdir()
    (helper / "bot.py").write_text(f"REPO = {str(ROOT)!r}\n" + HELPER)
    (helper / "bot.toml").write_text('name = "helper"\nrun = "python3 bot.py"\n')
    result = sprt(
        str(new), str(old), "--field", str(helper), "--max-games", "300", "--seed", "blind",
        "--alpha", "1e-9", "--beta", "1e-9", "--store", str(tmp_path / "t.sqlite"), "-j", "2",
    )  # fmt: skip
    assert result["games"] == 300, result
    low, high = result["elo_interval"]  # type: ignore[misc]
    assert low <= 0 <= high, result
    pairing = result["pairing"]  # issue 41.3: what the pairs bought, from their scores
    assert isinstance(pairing, dict)
    assert -1 <= pairing["correlation"] <= 1
    assert pairing["unpaired_games"] == round(300 / pairing["variance_ratio"])
    assert result["verdict"] == "inconclusive"


ROLE = LOGGER.replace(
    """f.write(f"{os.getpid()} {m['game_id']}\\n")""",
    """f.write(repr(sorted(os.environ.items())) + "\\n")""",
)


def test_neither_new_nor_old_finds_its_role_in_its_environment(tmp_path: Path) -> None:
    """Found in an audit: a bot's HOME and TMPDIR were named after it, and NEW and OLD
    of one name are NAME.new and NAME.old in the games (/tmp/arena-random.old-xyz): two
    byte-identical copies of the heuristic that played at random where HOME said
    ".old" came out +175 Elo [+105, +273] in 200 pairs, arena having warned that
    identical submissions can only be found equal. The environment names neither."""
    folders = []
    for folder_name in ("mine", "mine-before"):
        folder = tmp_path / folder_name
        folder.mkdir()
        (folder / "bot.py").write_text(ROLE)
        run = f"python3 bot.py {tmp_path / 'env.log'} 0"
        (folder / "bot.toml").write_text(f'name = "mine"\nrun = "{run}"\n')
        folders.append(folder)
    field = logger_bots(tmp_path, ["field"], 0.0)[0]
    sprt(
        *map(str, folders), "--field", str(field), "--max-games", "4",
        "--store", str(tmp_path / "t.sqlite"), "-j", "1",
    )  # fmt: skip
    seen = (tmp_path / "env.log").read_text()
    assert seen.count("HOME") == 4  # NEW or OLD, in each of the 4 games
    for word in ("mine", ".new", ".old", "field"):
        assert word not in seen, seen


def test_a_direct_test_warns_unless_the_bots_are_trusted(tmp_path: Path) -> None:
    """Issue 41.2: in a direct test NEW plays both sides of every deal; arena says so
    unless --trusted, and a test against a field needs no warning."""
    new = example_bot(tmp_path, "random", "new")
    old = example_bot(tmp_path, "heuristic", "old")
    args = (str(new), str(old), "--max-games", "4")
    direct = sprt(*args, "--store", str(tmp_path / "a.sqlite"))
    assert direct["direct"] is True
    assert "NEW plays both sides of every deal" in str(direct["stderr"])
    assert "--trusted silences this" in str(direct["stderr"])
    trusted = sprt(*args, "--trusted", "--store", str(tmp_path / "b.sqlite"))
    assert "both sides" not in str(trusted["stderr"])
    field = sprt(*args, "--field", str(old), "--store", str(tmp_path / "c.sqlite"))
    assert field["direct"] is False
    assert "both sides" not in str(field["stderr"])
