"""`arena match` and `arena replay` through click's CliRunner, with real bot processes."""

from __future__ import annotations

import functools
import json
import os
import pty
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import trio
from click.testing import CliRunner

from arena.bots import load_bot
from arena.cli import main
from arena.match import run_match
from arena.referee import RunSettings
from arena.replay import read_replay
from arena.rules import GameConfig
from arena.testing import alive, pids, script
from tests.mutations import mutants

pytestmark = pytest.mark.subprocess


def make_bot(root: Path, name: str, behaviour: str = "good") -> Path:
    folder = root / name
    folder.mkdir()
    (folder / "bot.py").write_text(script(behaviour))
    (folder / "bot.toml").write_text(f'name = "{name}"\nrun = "python3 bot.py pids.txt"\n')
    return folder


def table_rows(out: str) -> list[list[str]]:
    """The rows of the results table a match prints, without the closing summary that
    follows it after a blank line."""
    lines = out.splitlines()
    end = lines.index("") if "" in lines else len(lines)
    return [line.split() for line in lines[2:end]]


def test_match_prints_a_results_table(tmp_path: Path) -> None:
    a, b, c = (make_bot(tmp_path, n) for n in ("alice", "bob", "carol"))
    result = CliRunner().invoke(main, ["match", str(a), str(b), str(c), "-n", "3", "--seed", "4"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == [
        "bot",
        "games",
        "wins",
        "avg",
        "place",
        "timeout",
        "crash",
        "malformed",
        "illegal",
    ]
    body = {row[0]: row for row in table_rows(result.stdout)}
    assert set(body) == {"alice", "bob", "carol"}
    assert all(row[1] == "3" for row in body.values())
    assert sum(int(row[2]) for row in body.values()) >= 3  # shared first places count
    # each game's line on stderr counts the games finished of all, as cutechess-cli's
    # "Finished game 2 of 3" does
    games = [line.split()[:2] for line in result.stderr.splitlines() if " > " in line]
    assert games == [["m0001", "1/3"], ["m0002", "2/3"], ["m0003", "3/3"]]


def test_a_match_says_each_bots_first_fault_with_its_message_once(tmp_path: Path) -> None:
    """Found in an audit: an author whose bot crashed in a match was told "[bot: crash]"
    and where its log is, never what went wrong. A bot's first fault is said with its
    message (the referee's words and the bot's last stderr lines), once; later ones by
    their cause."""
    a = make_bot(tmp_path, "alice")
    b = make_bot(tmp_path, "raiser", "raises_mid_game")
    result = CliRunner().invoke(main, ["match", str(a), str(b), "-n", "3", "--seed", "4"])
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    told = [line for line in lines if line.startswith("  raiser: crash: ")]
    assert len(told) == 1, lines
    assert "ZeroDivisionError" in told[0]
    assert sum("[raiser: crash]" in line for line in lines) == 3


def test_bots_renamed_apart_take_no_name_another_bot_has(tmp_path: Path) -> None:
    """Three bots named x, x and x-2: the second x was renamed x-2, the name of the
    third, and the two shared one pool: the second bot never ran (the third played its
    seat as well as its own: two seats of one table), and the match ended in a
    traceback. Each bot now plays under a name of its own, with its own process."""
    who = tmp_path / "who.py"
    who.write_text(
        "import sys\n"
        "sys.stderr.write(sys.argv.pop(1) + '\\n'); sys.stderr.flush()\n"
        f"exec(open({str(tmp_path / 'bot.py')!r}).read())\n"
    )
    (tmp_path / "bot.py").write_text(script("good"))
    bots = [f"{name}={sys.executable} {who} {program} {tmp_path / 'pids'}"
            for name, program in (("x", "one"), ("x", "two"), ("x-2", "three"))]  # fmt: skip
    logs = tmp_path / "logs"
    result = CliRunner().invoke(
        main, ["match", *bots, "--games", "3", "--sandbox", "none", "--log-dir", str(logs)]
    )
    assert result.exit_code == 0, result.output
    assert sorted(row[0] for row in table_rows(result.stdout)) == ["x", "x-2", "x-3"]
    said = {log.name: log.read_text().split() for log in logs.iterdir()}
    assert said == {"x.log": ["one"], "x-3.log": ["two"], "x-2.log": ["three"]}


def test_match_json_summary_has_seeds_orders_and_causes(tmp_path: Path) -> None:
    a = make_bot(tmp_path, "alice")
    b = make_bot(tmp_path, "hanger", "garbage")
    result = CliRunner().invoke(
        main, ["match", str(a), str(b), "-n", "2", "--json", "--format", "points", "--target", "50"]
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["bots"]["hanger"]["faults"] == {"malformed": 2}
    games = summary["games"]
    assert [g["seats"] for g in games] == [["alice", "hanger"], ["hanger", "alice"]]
    for game in games:
        assert isinstance(game["seed"], int)
        assert game["order"][0] == ["alice"]
        assert {
            "bot": "hanger",
            "seat": game["seats"].index("hanger"),
            "cause": "malformed",
            "place": 2,
        } in game["eliminations"]
    assert games[0]["seed"] != games[1]["seed"]


def test_match_j_plays_the_same_games_several_at_once(tmp_path: Path) -> None:
    """Issue 44.6: -j N plays N games at once, each with processes of its own, and the
    games are those of -j 1 (seats and deals depend on the game's number alone)."""
    a, b, c = (make_bot(tmp_path, n) for n in ("alice", "bob", "carol"))
    runs = {}
    for jobs in ("1", "3"):
        result = CliRunner().invoke(
            main, ["match", str(a), str(b), str(c), "-n", "6", "-j", jobs, "--seed", "5", "--json"]
        )
        assert result.exit_code == 0, result.output
        runs[jobs] = json.loads(result.stdout)
    assert runs["1"]["games"] == runs["3"]["games"]
    assert [g["game_id"] for g in runs["3"]["games"]] == [f"m000{k}" for k in range(1, 7)]
    assert all(bot["processes"] == 1 for bot in runs["1"]["bots"].values())
    assert all(bot["processes"] == 3 for bot in runs["3"]["bots"].values())
    too_many = CliRunner().invoke(main, ["match", str(a), str(b), "-j", "100000"])
    assert too_many.exit_code == 2
    assert "'-j' / '--concurrency'" in too_many.stderr


def test_match_closes_with_wins_losses_draws_and_the_elo_difference(tmp_path: Path) -> None:
    """Issue 44.6: after the table, two bots' W/L/D and Elo difference with its 95%
    interval; more bots' places and Elo; never in --json."""
    a, b, c = (make_bot(tmp_path, n) for n in ("alice", "bob", "carol"))
    two = CliRunner().invoke(main, ["match", str(a), str(b), "-n", "4", "-q", "--seed", "2"])
    assert two.exit_code == 0, two.output
    lines = two.stdout.splitlines()
    wld = next(line for line in lines if line.startswith("alice vs bob: "))
    wins, losses, draws = (int(word) for word in wld.split(": ")[1].split()[0:6:2])
    assert wins + losses + draws == 4
    table = {line.split()[0]: line.split() for line in lines[2:4]}
    assert int(table["alice"][2]) == wins + draws  # shared first places count as wins
    assert f"({(wins + draws / 2) / 4:.1%} for alice)" in wld
    elo = next(line for line in lines if line.startswith("Elo alice - bob: "))
    assert "± " in elo
    assert "(95%: " in elo
    three = CliRunner().invoke(main, ["match", str(a), str(b), str(c), "-n", "3", "-q"])
    assert three.exit_code == 0, three.output
    header = next(line for line in three.stdout.splitlines() if line.startswith("bot    1st"))
    assert header.split() == ["bot", "1st", "2nd", "3rd", "Elo", "±"]
    quiet = CliRunner().invoke(main, ["match", str(a), str(b), "-n", "2", "--json"])
    assert "Elo" not in quiet.stdout
    json.loads(quiet.stdout)


def test_a_match_never_writes_over_replays_already_in_its_folder(tmp_path: Path) -> None:
    """Found by a red team: a second match into the same --replays folder replaced the
    first's m0001.jsonl (its game lost, the folder a mix of two matches), and wrote
    through a link by that name into the file it points at. Now the match is refused
    before it plays, and the files stay as they were."""
    a, b = make_bot(tmp_path, "alice"), make_bot(tmp_path, "bob")
    replays = tmp_path / "replays"
    first = CliRunner().invoke(
        main, ["match", str(a), str(b), "-n", "2", "--replays", str(replays), "-q"]
    )
    assert first.exit_code == 0, first.output
    before = {p.name: p.read_bytes() for p in replays.iterdir()}
    assert sorted(before) == ["m0001.jsonl", "m0002.jsonl"]
    again = CliRunner().invoke(
        main, ["match", str(b), str(a), "-n", "1", "--replays", str(replays), "-q"]
    )
    assert again.exit_code == 2, again.output
    assert f"{replays} holds m0001.jsonl already, which this match would write" in again.stderr
    assert "Traceback" not in again.output
    assert {p.name: p.read_bytes() for p in replays.iterdir()} == before
    # A link by a replay's name, to a file of the organiser's: not followed.
    linked = tmp_path / "linked"
    linked.mkdir()
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me\n")
    (linked / "m0002.jsonl").symlink_to(precious)
    third = CliRunner().invoke(
        main, ["match", str(a), str(b), "-n", "3", "--replays", str(linked), "-q"]
    )
    assert third.exit_code == 2, third.output
    assert "holds m0002.jsonl already" in third.stderr
    assert precious.read_text() == "keep me\n"
    assert sorted(p.name for p in linked.iterdir()) == ["m0002.jsonl"]
    # Names near a replay's, which this match does not write, are no obstacle (the
    # first check of the names raised ValueError on "m²1.jsonl": "²" is a digit).
    near = tmp_path / "near"
    near.mkdir()
    for name in ("m²1.jsonl", "m0002.json", "m0002", "x0001.jsonl", "m0003.jsonl", "m1.jsonl"):
        (near / name).write_text("keep\n")
    fourth = CliRunner().invoke(
        main, ["match", str(a), str(b), "-n", "2", "--replays", str(near), "-q"]
    )
    assert fourth.exit_code == 0, fourth.output
    assert (near / "m0001.jsonl").is_file()
    assert (near / "m0002.jsonl").is_file()
    assert all((near / n).read_text() == "keep\n" for n in ("m²1.jsonl", "m0003.jsonl"))


def test_a_replay_is_never_written_over_nor_left_half_written(tmp_path: Path) -> None:
    """`write_replay` itself (a name taken after the match's check, a full disk): a
    file or a link there is an error, not replaced; a write that fails leaves no
    half-written file (a red team found a truncated m0004.jsonl on a full disk, which
    `arena replay` then called "not JSON")."""
    from arena.errors import InputError
    from arena.replay import write_replay

    log = [{"type": "game", "n": i} for i in range(3)]
    taken = tmp_path / "m0001.jsonl"
    taken.write_text("mine\n")
    with pytest.raises(InputError, match="exists already: a replay is never written over"):
        write_replay(taken, log)
    assert taken.read_text() == "mine\n"
    dangling = tmp_path / "m0002.jsonl"
    dangling.symlink_to(tmp_path / "nowhere")
    with pytest.raises(InputError, match="exists already"):
        write_replay(dangling, log)
    assert not (tmp_path / "nowhere").exists()
    # A disk that fills up: a process whose files may not pass 4 KiB (RLIMIT_FSIZE).
    full = tmp_path / "full"
    full.mkdir()
    script = (
        "import resource, signal, sys\n"
        "from pathlib import Path\n"
        "from arena.errors import InputError\n"
        "from arena.replay import write_replay\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))\n"
        "try:\n"
        "    write_replay(Path(sys.argv[1]), [{'type': 'event', 'x': 'y' * 100}] * 1000)\n"
        "except InputError as err:\n"
        "    print(err)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(full / "m0003.jsonl")],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert "m0003.jsonl: cannot write the replay: File too large" in done.stdout, done
    assert list(full.iterdir()) == []


def test_match_writes_replays_that_replay_prints(tmp_path: Path) -> None:
    a, b = make_bot(tmp_path, "alice"), make_bot(tmp_path, "bob")
    replays = tmp_path / "replays"
    result = CliRunner().invoke(
        main, ["match", str(a), str(b), "-n", "1", "--replays", str(replays), "-q"]
    )
    assert result.exit_code == 0, result.output
    files = list(replays.glob("*.jsonl"))
    assert len(files) == 1
    spectator = CliRunner().invoke(main, ["replay", str(files[0])])
    assert spectator.exit_code == 0, spectator.output
    assert "alice (seat 0) plays" in spectator.stdout
    assert "== result" in spectator.stdout
    seat = CliRunner().invoke(main, ["replay", str(files[0]), "--seat", "1"])
    assert seat.exit_code == 0, seat.output
    assert "you are seat 1 (bob)" in seat.stdout
    assert ">> your turn: hand" in seat.stdout
    # A seat's view shows only its own hand at its turns.
    assert seat.stdout.count(">> your turn") == sum(
        1 for line in files[0].read_text().splitlines() if '"type":"decision","seat":1' in line
    )


def test_replay_of_an_edited_file_is_refused(tmp_path: Path) -> None:
    a, b = make_bot(tmp_path, "alice"), make_bot(tmp_path, "bob")
    replays = tmp_path / "r"
    CliRunner().invoke(main, ["match", str(a), str(b), "-n", "1", "--replays", str(replays), "-q"])
    path = next(replays.glob("*.jsonl"))
    lines = path.read_text().splitlines()
    edited = [
        line.replace('"total":', '"total":1', 1) if '"play"' in line else line for line in lines
    ]
    path.write_text("\n".join(edited) + "\n")
    result = CliRunner().invoke(main, ["replay", str(path), "--seat", "0"])
    assert result.exit_code == 2
    assert f"{path}: the replay is damaged: its events do not match the rules" in result.output


def test_replay_of_a_file_from_elsewhere_escapes_its_control_characters(tmp_path: Path) -> None:
    """A replay file need not come from arena: what it says is shown as text, and a
    control character in it (here in a bot's name) is not sent to the terminal."""
    a, b = make_bot(tmp_path, "alice"), make_bot(tmp_path, "bob")
    replays = tmp_path / "r"
    CliRunner().invoke(main, ["match", str(a), str(b), "-n", "1", "--replays", str(replays), "-q"])
    path = next(replays.glob("*.jsonl"))
    lines = path.read_text().splitlines()
    head = json.loads(lines[0])
    head["names"][0] = "\x1b]0;pwned\x07\x1b[2J"
    path.write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n")
    result = CliRunner().invoke(main, ["replay", str(path)], color=True)
    assert result.exit_code == 0, result.output
    assert not set("\x1b\x07") & set(result.stdout)
    assert "seats: 0 \\x1b]0;pwned\\x07\\x1b[2J, 1 bob" in result.stdout


def test_a_malformed_replay_file_is_refused_in_one_line_whatever_is_wrong(
    tmp_path: Path,
) -> None:
    """A replay file can be anyone's (edited, cut short, made by hand): `arena replay`
    (as a spectator and as a seat) and `arena report --replay` read it or refuse it in
    one line, and never raise (a record without its "type" gave a KeyError traceback).
    300 files, each with one value somewhere removed or of another kind."""
    a, b = make_bot(tmp_path, "alice"), make_bot(tmp_path, "bob")
    replays = tmp_path / "r"
    CliRunner().invoke(main, ["match", str(a), str(b), "-n", "1", "--replays", str(replays), "-q"])
    records = [json.loads(line) for line in next(replays.glob("*.jsonl")).read_text().splitlines()]
    path = tmp_path / "bad.jsonl"
    refused = 0
    for bad, changed in mutants(records, 5, 300):
        path.write_text("\n".join(json.dumps(r) for r in bad) + "\n")
        for args in (
            ["replay", str(path)],
            ["replay", str(path), "--seat", "1"],
            ["report", "--replay", str(path), "-o", str(tmp_path / "site")],
        ):
            result = CliRunner().invoke(main, args)
            assert result.exit_code in (0, 2), (changed, result.output)
            assert result.exception is None or isinstance(result.exception, SystemExit), changed
            if result.exit_code == 2:
                refused += 1
                assert result.stderr.startswith("arena: error: "), result.stderr
                assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert refused > 300  # most of them are caught: the test reaches the readers


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["match", "only-one"], "2 to 6 bots"),
        (["match", "/nonexistent/folder", "/nonexistent/other"], "no such bot folder"),
        (["replay", "/nonexistent.jsonl"], "no such file"),  # issue 11.4
    ],
)
def test_bad_input_gives_one_line_and_exit_2(args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_bots_start_under_a_hard_limit_below_arenas(tmp_path: Path) -> None:
    """arena run where the hard limit on file size (ulimit -Hf) is below the bots' (64
    MiB by default): a process cannot raise a hard limit, so every bot start failed with
    a traceback. The bots now get the hard limit, the lower of the two."""
    limit = 16 * 2**20
    seen = tmp_path / "limits.txt"
    report = "import resource\n" + (
        f"open({str(seen)!r}, 'a').write(repr(resource.getrlimit(resource.RLIMIT_FSIZE)) + '\\n')\n"
    )
    source = script("good").replace("acts = 0\n", "acts = 0\n" + report)
    folders = []
    for name in ("alice", "bob"):
        folder = make_bot(tmp_path, name)
        (folder / "bot.py").write_text(source)
        folders.append(str(folder))
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "match", *folders, "-n", "2", "--sandbox", "none"],
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit)),
        capture_output=True, text=True, timeout=120, cwd=Path(__file__).resolve().parents[2],
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert set(seen.read_text().splitlines()) == {repr((limit, limit))}


@pytest.mark.parametrize(
    "option",
    [
        "--decision-ms", "--bank-ms", "--increment-ms", "--startup-ms", "--grace-ms",
        "--exit-grace-ms", "--memory-mb", "--cpu-seconds", "--processes", "--file-size-mb",
        "--max-frame", "--tokens", "--target", "--open-files",
    ],
)  # fmt: skip
def test_a_number_too_large_for_an_option_is_refused_in_one_line(
    tmp_path: Path, option: str
) -> None:
    """Numbers past what a deadline, setrlimit or a message can hold were taken, and
    the match died with a traceback (OverflowError, or a ValueError in the codec)."""
    a, b = (make_bot(tmp_path, n) for n in ("alice", "bob"))
    result = CliRunner().invoke(
        main, ["match", str(a), str(b), "-n", "1", "--sandbox", "none", option, str(10**20)]
    )
    assert result.exit_code == 2, result.output
    assert f"Invalid value for '{option}'" in result.stderr
    assert "is not in the range" in result.stderr


def test_a_frame_limit_no_hello_fits_in_is_refused(tmp_path: Path) -> None:
    """Found in an audit: --max-frame took 16; below some 52 bytes no kit's hello fits, and
    every bot was charged malformed at start-up, as if its fault."""
    a, b = (make_bot(tmp_path, n) for n in ("alice", "bob"))
    result = CliRunner().invoke(
        main, ["match", str(a), str(b), "-n", "1", "--sandbox", "none", "--max-frame", "100"]
    )
    assert result.exit_code == 2, result.output
    assert "100 is not in the range 1024<=x" in result.stderr


def test_a_log_that_cannot_be_written_stops_the_match_in_one_line(tmp_path: Path) -> None:
    """A bot's log on a full disk (its file is /dev/full here): the failed write left the
    referee with an OSError, and the match (a league: its worker) died with a traceback
    at the first stderr a bot wrote. Then the log was given up without a word and the
    match exited 0, the logs asked for lost. Now it stops in one line, as a machine that
    cannot start a bot does, charging no bot (tests/league: a league resumes after)."""
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "loud.log").symlink_to("/dev/full")
    loud, quiet = make_bot(tmp_path, "loud", "flood_stderr"), make_bot(tmp_path, "quiet")
    args = ["match", str(loud), str(quiet), "-n", "2", "--json", "--sandbox", "none"]
    result = CliRunner().invoke(main, [*args, "--log-dir", str(logs)])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr == (
        f"arena: error: cannot write the bot log {logs / 'loud.log'}: No space left on device;"
        " that is this machine's problem, not the bot's, so nothing is charged to it\n"
    )


def test_a_replay_folder_that_cannot_be_written_is_refused_in_one_line(tmp_path: Path) -> None:
    """--replays under a file (or where arena may not write): the first game was played,
    then its replay's NotADirectoryError ended the match with a traceback."""
    (tmp_path / "file").write_text("")
    a, b = make_bot(tmp_path, "alice"), make_bot(tmp_path, "bob")
    folder = tmp_path / "file" / "replays"
    result = CliRunner().invoke(
        main, ["match", str(a), str(b), "-n", "2", "--sandbox", "none", "--replays", str(folder)]
    )
    assert result.exit_code == 2, result.output
    assert f"replay folder {folder}: cannot write there" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["replay", "/dev/zero"], "/dev/zero: larger than 64 MiB, not a replay file"),
        (["report", "--replay", "/dev/zero", "-o", "site"], "larger than 64 MiB"),
        (["league", "/dev/zero"], "/dev/zero: larger than 1 MiB, not a league file"),
    ],
)
def test_a_file_that_never_ends_is_refused_in_one_line(
    tmp_path: Path, args: list[str], message: str
) -> None:
    """A replay file or a league file was read whole: given /dev/zero (or any file
    of gigabytes), arena replay, report --replay and league took memory until a
    MemoryError traceback. They now read at most the largest such file can be (the
    process runs here under a 1 GiB address space, as a smaller machine would)."""
    gib = 2**30
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (gib, gib)),
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("arena: error: "), done.stderr
    assert message in done.stderr
    assert len(done.stderr.splitlines()) == 1
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize(
    ("stop", "code", "word"),
    [
        (signal.SIGINT, 130, "interrupted"),
        (signal.SIGTERM, 143, "terminated"),
        (signal.SIGHUP, 129, "hung up"),
    ],
)
def test_a_match_stopped_by_ctrl_c_or_sigterm_prints_its_finished_games(
    tmp_path: Path, stop: signal.Signals, code: int, word: str
) -> None:
    """Ctrl-C gave a traceback and printed nothing of the games played; SIGTERM and
    SIGHUP (the terminal closing) killed arena at once, leaving unsandboxed bots
    running. Now all three stop the match as a league stops: every bot is killed, and
    the table of the finished games is printed."""
    a, b = make_bot(tmp_path, "alice"), make_bot(tmp_path, "bob")
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "match", str(a), str(b), "-n", "100000",
         "--sandbox", "none", "--seed", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert proc.stderr is not None
    played = 0
    seen: list[bytes] = []
    try:
        while played < 2:  # a line per finished game
            line = proc.stderr.readline()
            seen.append(line)
            # (bounded: a line that changed its form must fail here, not wait for the
            # 100,000 games)
            assert line, seen[-5:]
            assert len(seen) < 50, seen[-5:]
            played += line.startswith(b"m0")
    except BaseException:
        proc.kill()
        proc.communicate()
        raise
    proc.send_signal(stop)
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:  # fail here, leaving no process to a later test
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"arena did not stop within 30 s of {stop.name}: {err.decode()[-2000:]}")
    assert proc.returncode == code, err
    assert b"Traceback" not in err
    (told,) = [line for line in err.decode().splitlines() if line.startswith(word)]
    finished = int(told.removeprefix(f"{word} after ").split()[0])
    assert told == f"{word} after {finished} of 100000 games"
    assert finished >= played
    rows = {row[0]: row for row in table_rows(out.decode())}
    assert set(rows) == {"alice", "bob"}
    assert all(row[1] == str(finished) for row in rows.values())
    started = pids(a / "pids.txt") + pids(b / "pids.txt")
    assert started
    assert [pid for pid in started if alive(pid)] == []


def test_a_match_started_under_nohup_plays_on_through_a_hang_up(tmp_path: Path) -> None:
    """`nohup arena match ...` starts arena with SIGHUP ignored: arena's own handling
    of a hang-up must not undo that, so the match plays to its end."""
    a, b = make_bot(tmp_path, "alice"), make_bot(tmp_path, "bob")
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "match", str(a), str(b), "-n", "6",
         "--sandbox", "none", "--seed", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN),
    )  # fmt: skip
    assert proc.stderr is not None
    line = proc.stderr.readline()
    assert line.startswith(b"m0"), proc.communicate()
    proc.send_signal(signal.SIGHUP)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    rows = table_rows(out.decode())
    assert {row[0]: row[1] for row in rows} == {"alice": "6", "bob": "6"}


def _closed_pipe() -> int:
    """The writing end of a pipe whose reader has gone (`arena ... | head` once head
    has exited)."""
    read, write = os.pipe()
    os.close(read)
    return write


def test_a_match_whose_output_is_closed_stops_cleanly(tmp_path: Path) -> None:
    """`arena match ... | head -1`: the first write after head exited raised a
    BrokenPipeError traceback out of the match, the bots left to the way out. Now it
    stops as on a signal: every bot killed, one line, exit 141 as for SIGPIPE."""
    a, b = make_bot(tmp_path, "alice"), make_bot(tmp_path, "bob")
    write = _closed_pipe()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "arena.cli", "match", str(a), str(b), "-n", "100000",
             "--sandbox", "none", "--seed", "1"],
            stdout=subprocess.DEVNULL, stderr=write, stdin=subprocess.DEVNULL, timeout=60,
        )  # fmt: skip
    finally:
        os.close(write)
    assert done.returncode == 141
    started = pids(a / "pids.txt") + pids(b / "pids.txt")
    assert started
    assert [pid for pid in started if alive(pid)] == []


def test_a_match_whose_terminal_hangs_up_stops_cleanly(tmp_path: Path) -> None:
    """A match whose terminal is gone without a SIGHUP to it (a job the shell let go
    of, `disown`): the next line it wrote raised an EIO traceback. Now it stops as on
    a hang-up: every bot killed, exit 129."""
    a, b = make_bot(tmp_path, "alice"), make_bot(tmp_path, "bob")
    terminal, line = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "match", str(a), str(b), "-n", "100000",
         "--sandbox", "none", "--seed", "1"],
        stdout=line, stderr=line, stdin=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    os.close(line)
    seen = b""
    while b"m0001" not in seen:
        seen += os.read(terminal, 4096)
    os.close(terminal)
    assert proc.wait(timeout=30) == 129
    started = pids(a / "pids.txt") + pids(b / "pids.txt")
    assert started
    assert [pid for pid in started if alive(pid)] == []


def test_a_command_whose_output_is_closed_exits_quietly(tmp_path: Path) -> None:
    """`arena replay FILE | head`, once head has gone: a BrokenPipeError traceback
    on stderr; now nothing there, and exit 141, as a shell tool ends (a command with
    something to say, a league's stored games, says it: tests/league)."""
    a, b = make_bot(tmp_path, "alice"), make_bot(tmp_path, "bob")
    replays = tmp_path / "replays"
    result = CliRunner().invoke(
        main, ["match", str(a), str(b), "-n", "1", "--sandbox", "none", "--replays", str(replays)]
    )
    assert result.exit_code == 0, result.output
    (replay,) = replays.iterdir()
    write = _closed_pipe()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "arena.cli", "replay", str(replay)],
            stdout=write, stderr=subprocess.PIPE, timeout=60,
        )  # fmt: skip
    finally:
        os.close(write)
    assert done.returncode == 141, done.stderr
    assert done.stderr == b""


def test_ctrl_c_in_a_command_without_games_gives_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Any command stopped by Ctrl-C (here `arena rate` reading its file) says so in one
    line and exits 130, not with a traceback."""
    import arena.standings

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    rows = tmp_path / "rows.csv"
    rows.write_text("game,bot,place\n1,a,1\n1,b,2\n")
    monkeypatch.setattr(arena.standings, "load_places_columns", interrupted)
    result = CliRunner().invoke(main, ["rate", str(rows)])
    assert result.exit_code == 130, result.output
    assert result.stderr == "\ninterrupted\n"


def test_a_match_holds_no_game_logs_in_memory(tmp_path: Path) -> None:
    """Found when a test's `arena match -n 100000` ran on: it kept every game's whole
    log (its unpacked replay) to the end, 5.4 GB after a quarter of an hour; 2,000
    games took 205 MB. The results keep what the summary needs; a game's log goes to
    its replay file, when asked for, and is then let go."""
    a, b = make_bot(tmp_path, "alice"), make_bot(tmp_path, "bob")
    specs = [load_bot(str(a)), load_bot(str(b))]
    replays = tmp_path / "replays"
    replays.mkdir()
    results, _ = trio.run(
        functools.partial(
            run_match, specs, GameConfig(players=2), games=3, seed=1,
            settings=RunSettings(sandbox="none"), replay_dir=replays,
        )
    )  # fmt: skip
    assert [r.log for r in results] == [[], [], []]
    assert sorted(p.name for p in replays.iterdir()) == [f"m000{i}.jsonl" for i in (1, 2, 3)]
    assert all(read_replay(replays / f"m000{i}.jsonl") for i in (1, 2, 3))
