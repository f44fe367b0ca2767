"""Issue 44.6: `--tc`, the clock options in short, on match, league, sprt and check-bot."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.commands._options import TimeControlType, build_clocks
from arena.errors import ConfigError
from arena.referee import Clocks

from .test_cli_match import make_bot


def clocks(text: str, **options: int) -> Clocks:
    tc = TimeControlType().convert(text, None, None)
    return build_clocks({"decision_ms": 3000, "grace_ms": 70}, {"tc": tc, **options})


def test_each_form_sets_its_clocks_and_leaves_the_rest() -> None:
    assert (clocks("1000").decision_ms, clocks("1000").grace_ms) == (1000, 70)
    both = clocks("1000+50")
    assert (both.decision_ms, both.grace_ms, both.bank_ms) == (1000, 50, None)
    bank = clocks("bank:60000+100")
    assert (bank.decision_ms, bank.bank_ms, bank.increment_ms) == (3000, 60000, 100)
    assert clocks("bank:60000").increment_ms == 0
    every = clocks("200+5,bank:9000+10")
    assert (every.decision_ms, every.grace_ms, every.bank_ms, every.increment_ms) == (
        200,
        5,
        9000,
        10,
    )
    assert clocks("bank:9000,200").decision_ms == 200  # either order
    assert clocks("1000+50", startup_ms=500).startup_ms == 500  # other options go on


@pytest.mark.parametrize(
    "text",
    ["", "x", "1000+", "+50", "1000+50+1", "-5", "1.5", "1000,2000", "bank:", "bank:1,bank:2",
     "1,bank:2,3", "1000 + 50", "bank=60000+100"],
)  # fmt: skip
def test_what_is_no_time_control_is_refused_with_its_forms(text: str) -> None:
    with pytest.raises(click.BadParameter, match="is not a time control: give DECISION"):
        TimeControlType().convert(text, None, None)


def test_a_time_out_of_range_is_refused_naming_it() -> None:
    with pytest.raises(click.BadParameter, match="the time per decision must be from 1"):
        TimeControlType().convert("0+50", None, None)
    with pytest.raises(click.BadParameter, match="the time bank must be from 0 to 86,400,000"):
        TimeControlType().convert(f"bank:{10**9}", None, None)


@pytest.mark.parametrize(
    ("tc", "option", "words"),
    [
        ("1000+50", "--decision-ms", "--tc 1000+50 sets the time per decision (1000 ms), and"
         " --decision-ms 500 sets it too: give one of them"),
        ("1000+50", "--grace-ms", "--tc 1000+50 sets the deadline margin (50 ms), and"
         " --grace-ms 500 sets it too"),
        ("bank:60000+100", "--bank-ms", "--tc bank:60000+100 sets the time bank (60000 ms)"),
        ("bank:60000+100", "--increment-ms", "sets the bank increment (100 ms), and"
         " --increment-ms 500"),
    ],
)  # fmt: skip
def test_an_option_the_tc_sets_too_is_refused_naming_both(tc: str, option: str, words: str) -> None:
    with pytest.raises(ConfigError, match="give one of them") as err:
        clocks(tc, **{option[2:].replace("-", "_"): 500})
    assert words in str(err.value)
    for command in (["match", "a=x", "b=y"], ["check-bot", "x"]):
        if command[0] == "check-bot" and option != "--decision-ms":
            continue  # check-bot's only clock options are the decision and start-up times
        result = CliRunner().invoke(main, [*command, "--tc", tc, option, "500"])
        assert result.exit_code == 2, result.output
        assert words in result.stderr
        assert "Traceback" not in result.output


def test_every_command_with_clocks_takes_tc_and_documents_it() -> None:
    for command in ("match", "league", "sprt", "check-bot"):
        result = CliRunner().invoke(main, [command, "--help"])
        assert "--tc TC" in result.stdout
        assert "DECISION[+GRACE]" in result.stdout
        bad = CliRunner().invoke(main, [command, "--tc", "soon", "x", "y", "z"])
        assert bad.exit_code == 2
        assert "'soon' is not a time control" in bad.stderr


@pytest.mark.subprocess
def test_a_match_plays_with_the_clocks_tc_gives(tmp_path: Path) -> None:
    a, b = (make_bot(tmp_path, name) for name in ("alice", "bob"))
    replays = tmp_path / "replays"
    result = CliRunner().invoke(
        main,
        ["match", str(a), str(b), "-n", "1", "-q", "--tc", "700+30,bank:20000+15",
         "--replays", str(replays)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    first = json.loads((replays / "m0001.jsonl").read_text().splitlines()[0])
    assert {k: first["clocks"][k] for k in ("decision_ms", "grace_ms", "bank_ms")} == {
        "decision_ms": 700,
        "grace_ms": 30,
        "bank_ms": 20000,
    }
    assert first["clocks"]["increment_ms"] == 15
