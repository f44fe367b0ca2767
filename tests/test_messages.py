"""Issue 11.4: messages that point at the mistake, never a traceback."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from arena.bots import load_manifest
from arena.cli import main
from arena.errors import ManifestError
from arena.testing import script

pytestmark = pytest.mark.subprocess


def invoke(*args: str | Path) -> Result:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert "Traceback" not in result.output
    return result


def bot(root: Path, name: str, behaviour: str = "good", manifest: str | None = None) -> Path:
    folder = root / name
    folder.mkdir()
    (folder / "bot.py").write_text(script(behaviour))
    text = manifest or f'name = "{name}"\nrun = "python3 bot.py pids.txt"\n'
    (folder / "bot.toml").write_text(text)
    return folder


def test_a_missing_bot_folder_is_named_as_one(tmp_path: Path) -> None:
    good = bot(tmp_path, "good")
    result = invoke("match", good, tmp_path / "does" / "not" / "exist", "--sandbox", "none")
    assert result.exit_code == 2
    assert "does/not/exist: no such bot folder (a bot is a folder with a bot.toml)" in (
        result.output
    )


def test_a_bot_toml_stands_for_its_folder(tmp_path: Path) -> None:
    a, b = bot(tmp_path, "a"), bot(tmp_path, "b")
    result = invoke("match", a / "bot.toml", b, "-n", "1", "--sandbox", "none")
    assert result.exit_code == 0, result.output


def test_a_misspelt_run_is_said_to_be_missing(tmp_path: Path) -> None:
    folder = bot(tmp_path, "typo", manifest='name = "typo"\nrunn = "python3 bot.py"\n')
    result = invoke("match", folder, folder, "--sandbox", "none")
    assert result.exit_code == 2
    assert "unknown key(s): runn; and 'run' is missing" in result.output


def test_replay_of_a_file_that_is_not_a_replay(tmp_path: Path) -> None:
    binary = tmp_path / "picture.png"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe" * 10)
    result = invoke("replay", binary)
    assert result.exit_code == 2
    assert "not a replay file" in result.output
    text = tmp_path / "notes.txt"
    text.write_text("hello\n")
    assert "not a replay file (line 1 is not JSON" in invoke("replay", text).output


def test_a_replay_cut_in_a_string_says_where(tmp_path: Path) -> None:
    """The decoder's own words end "Unterminated string starting at": the message
    stopped there, saying nothing of where."""
    cut = tmp_path / "cut.jsonl"
    cut.write_text('{"type": "game"}\n{"type": "ev\n')
    result = invoke("replay", cut)
    assert result.exit_code == 2
    assert f"{cut}:2: not JSON: Unterminated string starting at (column 10)" in result.output
    result = invoke("replay", tmp_path / "missing.jsonl")
    assert "missing.jsonl: no such file" in result.output
    assert "Errno" not in result.output


def test_a_bot_that_faults_every_game_points_at_its_log(tmp_path: Path) -> None:
    good, bad = bot(tmp_path, "good"), bot(tmp_path, "bad", "crash_at_start")
    result = invoke("match", good, bad, "-n", "2", "--sandbox", "none")
    assert "bad faulted in every game (its stderr is in " in result.output  # (issue 44.2)
    log = result.output.split("its stderr is in ", 1)[1].split(")", 1)[0]
    assert Path(log).name == "bad.log"
    assert Path(log).exists()
    assert f"the bots' logs: {Path(log).parent}" in result.output
    nothing = invoke("match", good, bad, "-n", "2", "--sandbox", "none", "--no-logs")
    assert "bad faulted in every game (run again without --no-logs" in nothing.output
    logs = tmp_path / "logs"
    result = invoke("match", good, bad, "-n", "2", "--sandbox", "none", "--log-dir", logs)
    assert f"bad faulted in every game (its stderr is in {logs / 'bad.log'})" in result.output


def test_match_reports_builds(tmp_path: Path) -> None:
    manifest = 'name = "built"\nrun = "python3 bot.py pids.txt"\nbuild = "true"\n'
    built, good = bot(tmp_path, "built", manifest=manifest), bot(tmp_path, "good")
    result = invoke("match", built, good, "-n", "1", "--sandbox", "none")
    assert result.exit_code == 0, result.output
    assert "building built: true" in result.output


def test_rate_refuses_a_one_player_game(tmp_path: Path) -> None:
    places = tmp_path / "places.csv"
    places.write_text("game,player,place\ng1,ann,1\ng1,bob,2\ng2,ann,1\n")
    result = invoke("rate", places)
    assert result.exit_code == 2
    assert "game g2 has one player (ann); a game needs at least 2" in result.output


def test_league_without_a_store_writes_it_in_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "bots").mkdir()
    for name in ("a", "b"):
        bot(tmp_path / "bots", name)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    args = ["league", "--bots", tmp_path / "bots", "--table-size", "2", "--games-per-table", "2"]
    result = invoke(*args, "--sandbox", "none", "--progress", "quiet")
    assert result.exit_code == 0, result.output
    assert (work / "league.sqlite").exists()
    assert not (tmp_path / "league.sqlite").exists()
    assert "league.sqlite in the current folder" in " ".join(
        invoke("league", "--help").output.split()
    )


# -- found by a sweep of bad input through every command --------------------------------


def link_loop(tmp_path: Path) -> Path:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    return tmp_path / "a"


def test_a_store_that_is_a_loop_of_links_is_refused_in_one_line(tmp_path: Path) -> None:
    """`Path.resolve` raises RuntimeError on a loop of links (Python 3.11): a league
    or test given one as its store ended in a traceback."""
    loop = link_loop(tmp_path)
    for name in ("ann", "bob"):
        bot(tmp_path, name)
    league = invoke("league", "--bots", tmp_path, "--store", loop, "--table-size", "2")
    sprt = invoke("sprt", tmp_path / "ann", tmp_path / "bob", "--store", loop)
    for result in (league, sprt):
        assert result.exit_code == 2, result.output
        assert f"{loop}: cannot open: Too many levels of symbolic links" in result.output


def test_a_seed_of_bytes_that_are_not_utf8_is_refused_before_a_store_is_made(
    tmp_path: Path,
) -> None:
    """A seed from argv bytes that are not UTF-8 (a lone surrogate in Python) ended
    every command in a traceback, after the league or test had made its store."""
    for name in ("ann", "bob"):
        bot(tmp_path, name)
    store = tmp_path / "s.sqlite"
    runs = [
        ("match", tmp_path / "ann", tmp_path / "bob", "-n", "1", "--sandbox", "none"),
        ("league", "--bots", tmp_path, "--store", store, "--table-size", "2"),
        ("sprt", tmp_path / "ann", tmp_path / "bob", "--store", store),
    ]
    for run in runs:
        result = invoke(*run, "--seed", "x\udcff")
        assert result.exit_code == 2, result.output
        assert "the seed must be UTF-8 text, not 'x\\udcff'" in result.output
        assert not store.exists()


def test_a_league_file_that_is_none_says_what_it_is(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    (tmp_path / "bots").mkdir()
    for name in ("ann", "bob"):
        bot(tmp_path / "bots", name)
    assert invoke("league", "--bots", tmp_path / "bots", "--store", store, "--table-size", "2",
                  "--games-per-table", "1", "--sandbox", "none").exit_code == 0  # fmt: skip
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"[league]\nbots = '\xff'\n")
    seed = tmp_path / "seed.toml"
    seed.write_text(f'[league]\nbots = "{tmp_path / "bots"}"\nseed = 1.5\n')
    expected = {
        store: f"{store}: an SQLite file, not a league file (TOML); a store is given as --store",
        tmp_path / "nope.toml": f"{tmp_path / 'nope.toml'}: no such league file",
        binary: f"{binary}: not a league file (not UTF-8 text: byte 18 is 0xff)",
        seed: f"{seed}: [league] seed = 1.5: the seed must be a whole number or a string",
    }
    for path, message in expected.items():
        result = invoke("league", path)
        assert result.exit_code == 2, result.output
        assert message in result.output


@pytest.mark.parametrize("option", ["--host", "--allow-host"])
@pytest.mark.parametrize("name", ["", " ", "a b", "x:80", "\udcff"])
def test_serve_refuses_a_host_that_is_no_name(tmp_path: Path, option: str, name: str) -> None:
    """An empty --host listened on every address (the league open to the network)."""
    result = invoke("serve", tmp_path / "s.sqlite", option, name, "--port", "0")
    assert result.exit_code == 2
    assert f"Invalid value for '{option}'" in result.output
    empty = "(give 0.0.0.0 to listen on every address)"
    assert (empty in result.output) == (option == "--host" and not name.strip())


def test_a_bootstrap_past_any_use_is_refused(tmp_path: Path) -> None:
    """--bootstrap 100000000000 ran for ever."""
    places = tmp_path / "p.csv"
    places.write_text("game,player,place\ng,a,1\ng,b,2\n")
    result = invoke("rate", places, "--bootstrap", "100001")
    assert result.exit_code == 2
    assert "100001 is not in the range 0<=x<=100000" in result.output
    assert invoke("rate", places, "--bootstrap", "100000", "--seed", "1").exit_code == 0


def test_a_long_cell_is_refused_in_the_words_of_the_page(tmp_path: Path) -> None:
    """One cell of 10 MB took the column reader a minute (every row's field is read to
    the longest's length); Python's own words explained it."""
    places = tmp_path / "p.csv"
    places.write_text("game,player,place\ng," + "a" * 10_000_000 + ",1\ng,b,2\n")
    result = invoke("rate", places)
    assert result.exit_code == 2
    assert f"{places}, line 2: not valid CSV (a cell longer than 131,072 characters)" in (
        result.output
    )
    carriage = tmp_path / "r.csv"
    carriage.write_bytes(b"game,player,place\ng,a\r\rb,1\n")
    result = invoke("rate", carriage)
    assert "not valid CSV (a carriage return inside a cell that is not quoted)" in result.output


def test_a_replay_that_lacks_a_field_names_it(tmp_path: Path) -> None:
    replay = tmp_path / "r.jsonl"
    replay.write_text('{"type": "game"}\n')
    for run in (("replay", replay), ("report", "--replay", replay, "-o", tmp_path / "out")):
        result = invoke(*run)
        assert result.exit_code == 2
        assert f"{replay}: not a replay arena can read (a record lacks the field 'names')" in (
            result.output
        )


# Issue 44.5: the words a user needs.


@pytest.mark.parametrize("command", [["check-bot"], ["match", "--sandbox", "none"]])
def test_a_word_that_is_neither_a_folder_nor_a_command_is_said_so(
    tmp_path: Path, command: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """It was "command 'nosuchdir' not found on the PATH"."""
    monkeypatch.chdir(tmp_path)
    result = invoke(*command, "nosuchdir", *(["nosuchdir"] if command[0] == "match" else []))
    assert result.exit_code == 2
    assert "no bot folder or command named 'nosuchdir'" in result.output
    assert "a bot is a folder with a bot.toml" in result.output


def test_a_file_of_a_bot_folder_suggests_the_folder(tmp_path: Path) -> None:
    """It was "program '.../bot.py' not found or not executable"."""
    folder = bot(tmp_path, "ok")
    result = invoke("check-bot", folder / "bot.py")
    assert result.exit_code == 2
    assert f"{folder / 'bot.py'} is a file of the bot folder {folder}: give the folder" in (
        result.output
    )


def test_a_mistyped_command_suggests_the_nearest() -> None:
    result = invoke("leauge")
    assert result.exit_code == 2
    assert "No such command 'leauge'. Did you mean 'league'?" in result.output
    result = invoke("frobnicate")
    assert "No such command 'frobnicate'." in result.output
    assert "Did you mean" not in result.output


def test_a_bad_run_names_its_bot_toml(tmp_path: Path) -> None:
    folder = bot(tmp_path, "typo", manifest='name = "typo"\nrun = "pyhton3 bot.py"\n')
    for command in (["check-bot", folder], ["match", folder, folder, "--sandbox", "none"]):
        result = invoke(*command)
        assert result.exit_code == 2
        assert f"{folder / 'bot.toml'}: command 'pyhton3' not found on the PATH" in result.output


def test_check_bot_says_whether_it_built_and_whether_the_sandbox_is_on(tmp_path: Path) -> None:
    folder = bot(
        tmp_path,
        "built",
        # (its pids outside its folder: a bot that writes into its folder is built again)
        manifest=f'name = "built"\nrun = "python3 bot.py {tmp_path / "pids"}"\n'
        'build = "touch made"\n',
    )
    args = ["check-bot", "--sandbox", "none", "--hello-wait-ms", "0", folder]
    first = invoke(*args).output.splitlines()
    assert first[1:3] == [
        "  build: built unconfined: touch made",
        "  sandbox: none: the bot ran unconfined",
    ]
    again = invoke(*args).output.splitlines()
    assert again[1].startswith("  build: built already, its folder as that build left it")


def test_a_fault_ends_with_what_the_bot_last_said(tmp_path: Path) -> None:
    """Issue 44.2: a fault said "crash" and where; why was in a log the author had to
    ask for. It ends with the last lines of the bot's stderr, in the match's output
    and in the replay."""
    good, bad = bot(tmp_path, "good"), bot(tmp_path, "bad", "raises_mid_game")
    replays = tmp_path / "replays"
    result = invoke(
        "match", good, bad, "-n", "1", "--sandbox", "none", "--replays", replays, "--json"
    )
    assert result.exit_code == 0, result.output
    faults = [
        json.loads(line)
        for path in replays.iterdir()
        for line in path.read_text().splitlines()
        if '"type":"fault"' in line.replace(" ", "")
    ]
    assert len(faults) == 1
    message = faults[0]["message"]
    assert "(its stderr ended: " in message
    assert message.endswith("ZeroDivisionError: division by zero)")


@pytest.mark.parametrize("name", ["a" * 65, "-x", ".x", "_x", "+x", "x/y", "x y", ""])
def test_a_bot_name_out_of_the_rule_is_refused_in_one_line(tmp_path: Path, name: str) -> None:
    """bot.toml's name: 1 to 64 letters, digits or - _ . +, a letter or digit first (a
    name that begins as an option, or names a hidden file, is none)."""
    folder = bot(tmp_path, "b", manifest=f'name = "{name}"\nrun = "python3 bot.py"\n')
    with pytest.raises(
        ManifestError, match=re.escape("must be 1 to 64 letters, digits or - _ . +")
    ):
        load_manifest(folder)


def test_a_bot_name_of_64_characters_is_taken(tmp_path: Path) -> None:
    folder = bot(tmp_path, "b", manifest=f'name = "{"a" * 64}"\nrun = "python3 bot.py"\n')
    assert load_manifest(folder).name == "a" * 64


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        ('name = 5\nrun = "python3 bot.py"\n', "'name' must be a string"),
        ('name = ["b"]\nrun = "python3 bot.py"\n', "'name' must be a string"),
        ('name = "b"\nrun = 5\n', "'run' must be a non-empty string"),
        ('name = "b"\nrun = ["python3", "bot.py"]\n', "'run' must be a non-empty string"),
        ('name = "b"\nrun = "  "\n', "'run' must be a non-empty string"),
        ('name = "b"\nrun = "python3 \'bot.py"\n', "'run' is not a valid command line"),
        ('name = "b"\nrun = "python3 bot.py"\nbuild = 1\n', "'build' must be a non-empty string"),
        ('name = "b"\nrun = "python3 bot.py"\nbuild = ""\n', "'build' must be a non-empty string"),
        ('name = "b"\nrun = "python3 bot.py"\nbuild = "make \'all"\n', "'build' is not a valid"),
    ],
)
def test_a_bot_toml_value_of_the_wrong_kind_is_refused_in_one_line(
    tmp_path: Path, manifest: str, message: str
) -> None:
    """Each key of bot.toml read as what it must be: a value of another type, an empty
    command or one shlex cannot split is said, naming the key, never a traceback (a
    name that is a number reached the name's pattern, a run that is a list its split)."""
    folder = bot(tmp_path, "b", manifest=manifest)
    with pytest.raises(ManifestError, match=re.escape(message)):
        load_manifest(folder)
    result = invoke("match", folder, folder, "--sandbox", "none")
    assert result.exit_code == 2
    assert message in result.output


@pytest.mark.parametrize(
    ("arg", "message"),
    [
        ("x=", "empty bot command line"),
        ("x= ", "empty bot command line"),
        ("x/y=python3 bot.py", "bot argument: bot name 'x/y' must be 1 to 64 letters"),
        (".x=python3 bot.py", "bot argument: bot name '.x' must be 1 to 64 letters"),
        ("x=python3 'bot.py", "is not a valid command line: No closing quotation"),
    ],
)
def test_a_command_line_bot_that_is_no_command_is_refused_in_one_line(
    arg: str, message: str
) -> None:
    """NAME=COMMAND: a name out of the rule, a command that is empty or that shlex
    cannot split is said in one line (exit 2), never played nor a traceback."""
    result = invoke("match", arg, "python3 bot.py", "--sandbox", "none")
    assert result.exit_code == 2, result.output
    assert message in result.output


def test_a_program_named_with_a_slash_is_found_in_the_bots_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """run = "./run.sh" names the bot folder's run.sh, wherever arena runs (SPEC §14.2),
    not a file of arena's working folder."""
    from arena.bots._manifest import resolve_run

    folder = bot(tmp_path, "b", manifest='name = "b"\nrun = "./run.sh --fast"\n')
    (folder / "run.sh").write_text("#!/bin/sh\n")
    (folder / "run.sh").chmod(0o755)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert resolve_run(load_manifest(folder)) == [str(folder.resolve() / "run.sh"), "--fast"]
