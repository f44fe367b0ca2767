"""Issue 11.4: messages that point at the mistake, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from arena.cli import main

from .referee.botscripts import script

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
    result = invoke("replay", tmp_path / "missing.jsonl")
    assert "missing.jsonl: no such file" in result.output
    assert "Errno" not in result.output


def test_a_bot_that_faults_every_game_points_at_its_log(tmp_path: Path) -> None:
    good, bad = bot(tmp_path, "good"), bot(tmp_path, "bad", "crash_at_start")
    result = invoke("match", good, bad, "-n", "2", "--sandbox", "none")
    assert "bad faulted in every game (run again with --log-dir DIR" in result.output
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
