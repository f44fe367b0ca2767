"""`arena rate FILE`, driven through the real CLI with CliRunner."""

from __future__ import annotations

import csv
import importlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from arena.cli import main
from arena.ratings import DEFAULT_K_FACTOR, DEFAULT_PRIOR

from .helpers import CITATIONS, NASCAR

GAMES = """game,player,place,points,cause
1,ann,1,10,
1,bob,2,60,bust
1,cid,3,99,timeout
2,bob,1,0,
2,ann,2,40,target
2,cid,3,100,crash
3,cid,1,,
3,ann,2,,forfeit
4,ann,1,,
4,bob,2,,cannot_play
5,cid,1,,
5,bob,2,,bust
"""


def run(*args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(main, ["rate", *args], input=stdin)


@pytest.fixture
def games(tmp_path: Path) -> Path:
    path = tmp_path / "games.csv"
    path.write_text(GAMES)
    return path


def test_prints_the_standings(games: Path) -> None:
    result = run(str(games))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split()[:9] == ["rank", "bot", "Elo", "±", "LOS", "games", "wins", "win", "%"]
    assert "avg points" in lines[0]
    assert "timeout" in lines[0]
    assert "crash" in lines[0]
    assert "forfeit" in lines[0]
    body = [line.split() for line in lines[2:5]]
    assert [row[1] for row in body] == ["ann", "bob", "cid"]
    assert body[0][:2] == ["1", "ann"]
    # Game 3 is a forfeit (ann's), no finishing order: counted as ann's forfeit only.
    assert "Plackett–Luce fit of all 4 finishing orders" in result.stdout
    assert "Forfeits: 1 game at which a disqualified bot sat" in result.stdout


def test_the_notes_count_one_finishing_order_as_one(tmp_path: Path) -> None:
    path = tmp_path / "one.csv"
    path.write_text("game,player,place\ng,ann,1\ng,bob,2\n")
    result = run(str(path))
    assert result.exit_code == 0, result.output
    assert "Plackett–Luce fit of the one finishing order, with a prior" in result.stdout


def test_stdin(games: Path) -> None:
    from_file = run(str(games), "-f", "json")
    from_stdin = run("-", "-f", "json", stdin=GAMES)
    assert from_stdin.exit_code == 0, from_stdin.output
    assert json.loads(from_stdin.stdout) == json.loads(from_file.stdout)


@pytest.mark.parametrize("fmt", ["github", "grid", "plain", "html", "latex", "tsv", "rst"])
def test_tabulate_formats(games: Path, fmt: str) -> None:
    result = run(str(games), "--format", fmt)
    assert result.exit_code == 0, result.output
    assert "ann" in result.stdout


def test_csv_output(games: Path) -> None:
    result = run(str(games), "-f", "csv")
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [r["bot"] for r in rows] == ["ann", "bob", "cid"]
    assert rows[2]["timeout"] == "1"
    assert rows[0]["forfeit"] == "1"
    # the forfeit (game 3) counts for nobody's games or wins, not even cid's, seated with ann
    assert [(r["games"], r["wins"]) for r in rows] == [("3", "2"), ("4", "1"), ("3", "1")]
    assert "Plackett" not in result.stdout  # no notes in machine formats


def test_options_reach_the_fit(games: Path) -> None:
    base = json.loads(run(str(games), "-f", "json").stdout)
    other = json.loads(run(str(games), "-f", "json", "--prior", "0.5", "--mean", "1000").stdout)
    assert base["prior"] == 1.0
    assert other["prior"] == 0.5
    assert other["mean"] == 1000.0
    assert sum(r["elo"] for r in other["rows"]) / 3 == pytest.approx(1000.0)
    spread = [d["rows"][0]["elo"] - d["rows"][-1]["elo"] for d in (base, other)]
    assert spread[1] > spread[0]  # a weaker prior pulls less


def test_no_intervals(games: Path) -> None:
    result = run(str(games), "--no-intervals")
    assert result.exit_code == 0
    assert "±" not in result.stdout
    assert "LOS" not in result.stdout


def test_bootstrap_is_seeded(tmp_path: Path) -> None:
    # GAMES ten times over: in 5 games some resample would hold none in which a bot
    # finished above (or below) another, whose refit is the prior's, and the Fisher
    # intervals would be given instead (see the next test)
    rows = GAMES.splitlines()[1:]
    games = tmp_path / "games.csv"
    games.write_text(
        "\n".join([GAMES.splitlines()[0]] + [f"{k}-{row}" for k in range(10) for row in rows])
        + "\n"
    )
    a = run(str(games), "-f", "json", "--bootstrap", "40", "--seed", "1").stdout
    b = run(str(games), "-f", "json", "--bootstrap", "40", "--seed", "1").stdout
    c = run(str(games), "-f", "json", "--bootstrap", "40", "--seed", "2").stdout
    assert a == b
    assert a != c
    # The name that says which seed it is (match, league and sprt's --seed deals cards),
    # and --seed, its former name, the same option.
    assert run(str(games), "-f", "json", "--bootstrap", "40", "--bootstrap-seed", "1").stdout == a
    doc = json.loads(a)
    assert doc["intervals"] == "bootstrap"
    assert doc["bootstrap"] == {
        "resamples": 40, "skipped": 0, "unit": "game", "no_error_bars": None,
        "fisher_instead": None,
    }  # fmt: skip


def test_a_bootstrap_of_too_few_games_gives_the_fisher_intervals_and_says_why(
    games: Path,
) -> None:
    """In 5 games, some resamples hold no game in which cid finished above another bot
    (or the like): their refits put it where the prior does, and the refits' spread
    says too little (statistics audit, defect 3). The Fisher intervals are given."""
    fisher = json.loads(run(str(games), "-f", "json").stdout)
    doc = json.loads(run(str(games), "-f", "json", "--bootstrap", "40").stdout)
    assert doc["intervals"] == "fisher"
    assert doc["rows"] == fisher["rows"]
    assert "resamples" in doc["bootstrap"]["fisher_instead"]
    assert "the prior's doing" in doc["bootstrap"]["fisher_instead"]
    text = run(str(games), "--bootstrap", "40").stdout
    assert "±: 95% interval from the Fisher information, not the bootstrap: in " in text


def test_sequential(games: Path) -> None:
    result = run(str(games), "--sequential", "--k-factor", "16", "-f", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["method"] == "sequential"
    assert doc["k_factor"] == 16.0
    assert all(r["plus_minus"] is None for r in doc["rows"])
    text = run(str(games), "--sequential").stdout
    assert "depends on that order" in text


def test_sequential_depends_on_order_and_the_fit_does_not(tmp_path: Path) -> None:
    lines = GAMES.splitlines()
    header, body = lines[0], lines[1:]
    reordered = tmp_path / "reordered.csv"
    reordered.write_text("\n".join([header, *body[::-1]]) + "\n")
    original = tmp_path / "original.csv"
    original.write_text(GAMES)
    for args, same in ((["-f", "csv"], True), (["-f", "csv", "--sequential"], False)):
        a = run(str(original), *args).stdout
        b = run(str(reordered), *args).stdout
        assert (a == b) is same


def test_matrix(games: Path) -> None:
    result = run(str(games), "--matrix")
    assert result.exit_code == 0, result.output
    header = result.stdout.splitlines()[0].split()
    assert header == ["ann", "bob", "cid"]  # ordered like the standings
    assert "67% (3)" in result.stdout  # ann above bob in 2 of 3
    doc = json.loads(run(str(games), "--matrix", "-f", "json").stdout)
    assert doc["players"] == ["ann", "bob", "cid"]
    assert doc["share"][0][1] == pytest.approx(2 / 3, abs=1e-6)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "docx"], "'docx' is not a format"),
        (["--prior", "-1"], "--prior"),
        (["--prior", "inf"], "inf is not in the range"),
        (["--mean", "nan"], "not a finite number"),
        (["--bootstrap", "-3"], "--bootstrap"),
        (["--k-factor", "10"], "--k-factor applies only with --sequential"),
        (["--sequential", "--prior", "2"], "--prior applies to the fit"),
        (["--sequential", "--bootstrap", "5"], "--bootstrap applies to the fit"),
        (["--bootstrap", "5", "--no-intervals"], "contradict"),
        (["--sequential", "--k-factor", "0"], "--k-factor"),
        # Once a traceback each (numpy's seed, math.pow), or 100,000 fitting steps on NaN.
        (["--bootstrap", "3", "--seed", "-1"], "--seed"),
        (["--sequential", "--k-factor", "1e308"], "--k-factor"),
        (["--prior", "1e308"], "--prior"),
        # Every Elo the same number, and the bot that won every game ranked last.
        (["--mean", "1e308"], "1e+308 is not in the range -1000000.0<=x<=1000000.0"),
    ],
)
def test_usage_errors(games: Path, args: list[str], message: str) -> None:
    result = run(str(games), *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "the file is empty"),
        ("game,player\n1,a\n", "line 1: missing column place"),
        ("game,player,place\n1,a,x\n", "line 2: place 'x' is not a whole number"),
        ("game,player,place\n1,a,1\n1,a,2\n", "line 3: a appears twice in game 1"),
        ("game,player,place\n1,a,1\n1,b,2\n1,c,7\n", "line 4: place 7 in game 1, which has 3"),
        ("game,player,place\n1,a,1\n1,b,1\n1,c,2\n", "line 4: place 2 in game 1, but 2 players"),
        # A stranger's 100 kB name is quoted in 80 characters at most.
        (f"game,player,place\n1,{'n' * 10**5},1\n1,{'n' * 10**5},2\n", "n... appears twice"),
        (f"game,player,place\n1,{'n' * 10**5}\x01,1\n", "n...' holds a control character"),
        (f"game,player,place\n1,a,{'9' * 10**5}\n", "place '999"),
        (f"game,player,place,points\n1,a,1,{'9' * 10**5}\n", "points '999"),
        (f"game,player,place\n{'g' * 10**5},a,1\n", "game ggg"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(content)
    result = run(str(path))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("arena: error: ")
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert len(result.stderr) < 300


def test_a_device_is_refused_in_one_line() -> None:
    """/dev/zero never ends: it was read until a MemoryError traceback. A FIFO is still
    read (process substitution, <(...), gives one)."""
    result = run("/dev/zero")
    assert result.exit_code == 2
    assert "/dev/zero: a device, not a file of results (for stdin: -)" in result.stderr
    assert "Traceback" not in result.output


def test_a_store_given_to_rate_says_what_reads_it(tmp_path: Path) -> None:
    """Found in an audit: `arena rate league.sqlite` (a store, not finishing orders)
    said "not UTF-8 text (invalid continuation byte at byte 31)"; it says what the file
    is and which command reads it."""
    from arena.store import Store

    Store.open(tmp_path / "league.sqlite").close()
    result = run(str(tmp_path / "league.sqlite"))
    assert result.exit_code == 2
    assert result.stderr == (
        f"arena: error: {tmp_path / 'league.sqlite'}: an SQLite file (an arena store?), not a"
        " CSV file of finishing orders; arena standings reads a store\n"
    )


def test_missing_file(tmp_path: Path) -> None:
    result = run(str(tmp_path / "none.csv"))
    assert result.exit_code == 2
    assert "cannot read" in result.stderr
    assert "Traceback" not in result.output


def test_plain_mle_that_does_not_exist_is_explained(tmp_path: Path) -> None:
    path = tmp_path / "unbeaten.csv"
    path.write_text("game,player,place\n1,a,1\n1,b,2\n2,a,1\n2,b,2\n")
    result = run(str(path), "--prior", "0")
    assert result.exit_code == 2
    assert "a never finished below another bot; use a prior > 0" in result.stderr
    assert run(str(path)).exit_code == 0


def test_reference_files_rate_cleanly() -> None:
    for path in (NASCAR, CITATIONS):
        result = run(str(path))
        assert result.exit_code == 0, result.output


def test_help_shows_the_library_defaults() -> None:
    rate_module = importlib.import_module("arena.commands.rate")  # the package hides it
    assert rate_module._DEFAULT_PRIOR == DEFAULT_PRIOR
    assert rate_module._DEFAULT_K_FACTOR == DEFAULT_K_FACTOR
    result = CliRunner().invoke(main, ["rate", "--help"])
    assert result.exit_code == 0
    for option in ("--prior", "--mean", "--format", "--matrix", "--bootstrap", "--seed"):
        assert option in result.stdout
    assert "--sequential" in result.stdout
    assert "--k-factor" in result.stdout


def test_importing_the_command_does_not_import_numpy() -> None:
    """The rating modules load only when the command runs: `arena --help` stays fast."""
    code = "import sys, arena.commands.rate; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_bootstrap_with_nothing_to_resample_gives_no_error_bars_and_says_why(
    tmp_path: Path,
) -> None:
    """Found in an audit: the bootstrap of one game resamples that game every time, so
    it printed ±0 and an LOS of >99%: certainty from one game. With fewer than two
    games (or groups) to resample, or fewer than two resamples, there are no error
    bars, and the notes say why."""
    one = tmp_path / "one.csv"
    one.write_text("game,player,place\ng1,a,1\ng1,b,2\n")
    result = run(str(one), "--bootstrap", "3")
    assert result.exit_code == 0, result.output
    assert "±" not in result.stdout.splitlines()[0]
    assert "LOS" not in result.stdout
    assert "no error bars: 1 game to resample, and a bootstrap needs 2 or more" in result.stdout
    three = tmp_path / "three.csv"
    three.write_text("game,player,place\n" + "".join(
        f"g{i},a,{1 + i % 2}\ng{i},b,{2 - i % 2}\n" for i in range(3)
    ))  # fmt: skip
    result = run(str(three), "--bootstrap", "1")
    assert "no error bars: 1 resample, and a spread needs 2 or more" in result.stdout
    result = run(str(three), "--bootstrap", "20")
    assert "±" in result.stdout.splitlines()[0]
    assert "no error bars" not in result.stdout


@pytest.mark.parametrize(
    ("rows", "resamples", "why"),
    [
        ("g1,a,1\ng1,b,2\n", "3", "1 game to resample, and a bootstrap needs 2 or more"),
        (
            "g1,a,1\ng1,b,2\ng2,a,2\ng2,b,1\n",
            "1",
            "1 resample, and a spread needs 2 or more",
        ),
        (
            "game,player,place,group\ng1,a,1,d\ng1,b,2,d\ng2,a,2,d\ng2,b,1,d\n",
            "3",
            "1 duplicate group to resample, and a bootstrap needs 2 or more",
        ),
        # (16 games: in 2 some resamples hold a's win only, or b's, and their refits
        # are the prior's: the Fisher intervals would be given, `fisher_instead`)
        ("".join(f"g{i},a,{1 + i % 2}\ng{i},b,{2 - i % 2}\n" for i in range(16)), "20", None),
    ],
)
def test_why_a_bootstrap_gave_no_error_bars_is_in_the_json(
    tmp_path: Path, rows: str, resamples: str, why: str | None
) -> None:
    """Found in an audit: the reason the table's notes give for a bootstrap without
    error bars was not in the JSON, which showed only null intervals. It is
    bootstrap.no_error_bars (null when there are error bars). CSV has a row per bot
    and no place for it: its interval cells are empty."""
    path = tmp_path / "r.csv"
    path.write_text(rows if rows.startswith("game,") else "game,player,place\n" + rows)
    result = run(str(path), "--bootstrap", resamples, "-f", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["bootstrap"]["no_error_bars"] == why
    assert doc["intervals"] == (None if why else "bootstrap")
    table = run(str(path), "--bootstrap", resamples).stdout
    if why is not None:
        assert f"Bootstrap: no error bars: {why}." in table
        assert all(r["plus_minus"] is None and r["los"] is None for r in doc["rows"])
    csv_rows = list(
        csv.DictReader(io.StringIO(run(str(path), "--bootstrap", resamples, "-f", "csv").stdout))
    )
    assert [r["plus_minus"] == "" for r in csv_rows] == [why is not None] * 2


def test_anchor_fixes_a_bot_and_is_refused_when_it_cannot_be(games: Path) -> None:
    """Issue 46.4: `--anchor NAME=ELO` (arena rate and arena standings share it)."""
    result = run(str(games), "--anchor", "bob=2000", "-f", "json")
    assert result.exit_code == 0, result.output
    rows = {row["bot"]: row for row in json.loads(result.stdout)["rows"]}
    assert rows["bob"]["elo"] == pytest.approx(2000.0)
    result = run(str(games), "--anchor", "bob=2000")
    assert "anchored at bob = 2000" in result.stdout
    for bad, words in [
        ("bob", "'bob' is not NAME=ELO"),
        ("bob=high", "'bob=high' is not NAME=ELO"),
        ("=5", "'=5' is not NAME=ELO"),
        ("zed=1500", "the anchor 'zed' played no game here"),
    ]:
        result = run(str(games), "--anchor", bad)
        assert result.exit_code == 2, result.output
        assert words in result.output
        assert "Traceback" not in result.output
    result = run(str(games), "--anchor", "bob=2000", "--mean", "1000")
    assert result.exit_code == 2
    assert "--anchor and --mean both set the scale" in result.output
