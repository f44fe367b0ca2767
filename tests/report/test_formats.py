"""Issue 43.4: the replay file and the report's data say their format, and a replay or
data of another format is refused with a message that names both formats (not as an
"edited or corrupt file?")."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena import REPLAY_FORMAT, REPORT_FORMAT, __version__
from arena.cli import main
from arena.errors import InputError
from arena.replay import read_replay, readable
from arena.report import game_payload

pytestmark = pytest.mark.subprocess

ROOT = Path(__file__).resolve().parents[2]
KIT = ROOT / "example_bots" / "python"


def run(*args: str | Path) -> Any:
    return CliRunner().invoke(main, [str(a) for a in args])


def payload(path: Path) -> Any:
    match = re.fullmatch(r'ARENA\.receive\("(\w+)",(.*)\);\n', path.read_text(), re.S)
    assert match is not None
    return json.loads(match.group(2))


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """The records of the replay file of a one-game match of the Python kit's bots."""
    root = tmp_path_factory.mktemp("replay")
    result = run("match", KIT / "random", KIT / "heuristic", "-n", "1", "--sandbox", "none",
                 "-q", "--replays", root)  # fmt: skip
    assert result.exit_code == 0, result.output
    (replay,) = root.glob("*.jsonl")
    return [json.loads(line) for line in replay.read_text().splitlines()]


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_a_replay_says_its_format_and_the_arena_that_wrote_it(
    records: list[dict[str, Any]],
) -> None:
    head = records[0]
    assert head["type"] == "game"
    assert head["replay_format"] == REPLAY_FORMAT == 1
    assert head["arena"] == __version__


def test_a_replay_without_a_format_is_of_format_1(
    records: list[dict[str, Any]], tmp_path: Path
) -> None:
    """Replays written before they said their format are of format 1: read as before."""
    old = [{k: v for k, v in r.items() if k != "replay_format"} for r in records]
    replay = write(tmp_path / "old.jsonl", old)
    assert read_replay(replay) == old
    result = run("replay", replay)
    assert result.exit_code == 0, result.output
    assert run("report", "--replay", replay, "-o", tmp_path / "site").exit_code == 0


TOLD = (
    "this replay is format {}; this arena ({}) reads format 1: open it with the arena that wrote it"
)


@pytest.mark.parametrize(
    ("found", "wrote", "told"),
    [
        (2, "0.9.0", TOLD.format(2, __version__) + " (arena 0.9.0)"),
        ("1", None, TOLD.format("'1'", __version__)),
        (True, 3, TOLD.format(True, __version__)),
    ],
)
def test_a_replay_of_another_format_is_refused_naming_both_formats(
    records: list[dict[str, Any]], tmp_path: Path, found: object, wrote: object, told: str
) -> None:
    head = {**records[0], "replay_format": found, "arena": wrote}
    replay = write(tmp_path / "other.jsonl", [head, *records[1:]])
    with pytest.raises(InputError) as caught:
        read_replay(replay)
    assert str(caught.value) == f"{replay}: {told}"
    site = tmp_path / "site"
    for args in (["replay", replay], ["replay", replay, "--seat", "1"],
                 ["report", "--replay", replay, "-o", site]):  # fmt: skip
        result = run(*args)
        assert result.exit_code == 2, (args, result.output)
        assert result.stderr == f"arena: error: {replay}: {told}\n", args
    assert not site.exists()


def test_a_stored_replay_of_another_format_is_refused_naming_the_game(
    records: list[dict[str, Any]],
) -> None:
    """A store's replays are read by the report and `arena serve` in `readable`."""
    head = {**records[0], "replay_format": 2}
    with pytest.raises(InputError) as caught, readable("league.sqlite, game g1"):
        game_payload([head, *records[1:]])
    assert str(caught.value).startswith(
        "league.sqlite, game g1: this replay is format 2; this arena"
    )


def test_the_report_data_say_their_format(records: list[dict[str, Any]], tmp_path: Path) -> None:
    assert game_payload(records)["format"] == REPORT_FORMAT == 1
    replay = write(tmp_path / "game.jsonl", records)
    assert run("report", "--replay", replay, "-o", tmp_path / "site").exit_code == 0
    data = tmp_path / "site" / "data"
    league = payload(data / "league.js")
    assert (league["format"], league["arena"]) == (REPORT_FORMAT, __version__)
    (game,) = (data / "games").glob("*.js")
    assert payload(game)["format"] == REPORT_FORMAT


def test_the_viewer_reads_the_format_arena_writes() -> None:
    """The viewer's FORMAT (data.js) is arena's REPORT_FORMAT: a change of one is a
    change of the other."""
    script = (ROOT / "arena" / "report" / "static" / "assets" / "data.js").read_text()
    (found,) = re.findall(r"var FORMAT = \(A\.FORMAT = (\d+)\);", script)
    assert int(found) == REPORT_FORMAT
