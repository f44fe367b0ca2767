"""Names are anyone's: what the standings write of them is shown, never obeyed.

Two audited defects. A name that begins like a formula (``=``, ``+``, ``-``, ``@``)
ran as one in a spreadsheet opened on ``arena rate -f csv`` or ``arena standings -f
csv`` (a league's bot may be called ``+cmd``); CSV now writes it with a leading ``'``,
and only names: the numbers stay numbers. And ``arena standings`` printed the names of
a store as they were, so a name rewritten to hold ESC ] 0 ; ... BEL retitled the
organiser's terminal; every format now shows control and format characters as
escapes, JSON with its own escapes, which decode to the exact name. `printable`, which
the other commands share, escapes format characters (the bidirectional overrides) too.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import sys
import unicodedata
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from arena._text import printable, printable_json, printable_name
from arena.cli import main
from arena.standings import (
    GameRecord,
    SeatRecord,
    compute_standings,
    head_to_head,
    output_formats,
    render,
    render_head_to_head,
)
from arena.store import Store

from ..store_edits import without_proofs

FORMULAS = ['=HYPERLINK("http://x","y")', "+cmd", "-2+3", "@SUM(A1)"]
"""Names a spreadsheet runs as formulas: ``+`` and ``-`` begin names a league allows."""

TITLE = "\x1b]0;PWN\x07"
"""The escape sequence that sets a terminal's window title."""

HOSTILE = [TITLE, "\x9d0;PWN\x9c", "ann\u202eSSAP", "tab\tnew\nline"]
"""Names rewritten in a store: OSC in 7 bits and in 8 (C1, which JSON does not escape),
a right-to-left override, and a tab and a newline that would split a cell."""


def game(game_id: str, *seats: tuple[str, int]) -> GameRecord:
    return GameRecord(game_id, None, tuple(SeatRecord(p, place) for p, place in seats))


def round_robin(names: list[str]) -> list[GameRecord]:
    """Two games for each pair, one won by each, and one more won by the first name:
    every Elo differs, and with a mean of 0 half of them are negative."""
    games: list[GameRecord] = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            games.append(game(f"g{len(games)}", (a, 1), (b, 2)))
            games.append(game(f"g{len(games)}", (a, 2), (b, 1)))
    games.append(game("extra", (names[0], 1), (names[-1], 2)))
    return games


# -- CSV formula injection ----------------------------------------------------------------


def test_csv_quotes_a_name_that_begins_like_a_formula_and_only_names() -> None:
    """The standings and the head-to-head CSV put a ``'`` before each name that begins
    with = + - @ (a spreadsheet would run it); a plain name is as it was, and a
    negative Elo is still a number (``-35``, not ``'-35``)."""
    names = ["ann", *FORMULAS]
    records = round_robin(names)
    standings = compute_standings(records, mean=0.0)
    rows = list(csv.DictReader(io.StringIO(render(standings, "csv"))))
    shown = {row.player: r["bot"] for row, r in zip(standings.rows, rows, strict=True)}
    assert shown == {"ann": "ann"} | {name: "'" + name for name in FORMULAS}
    elos = [float(r["elo"]) for r in rows]  # a quote would not parse
    assert min(elos) < 0 < max(elos)
    assert all(not r[c].startswith("'") for r in rows for c in r if c != "bot")

    order = [row.player for row in standings.rows]
    matrix = list(csv.reader(io.StringIO(render_head_to_head(head_to_head(records, order), "csv"))))
    expected = ["'" + name if name in FORMULAS else name for name in order]
    assert matrix[0] == ["bot", *expected]
    assert [line[0] for line in matrix[1:]] == expected
    assert all(not cell.startswith("'") for line in matrix[1:] for cell in line[1:])

    # JSON is data, not a spreadsheet: its names stay exact.
    assert [r["bot"] for r in json.loads(render(standings, "json"))["rows"]] == order
    assert json.loads(render_head_to_head(head_to_head(records, order), "json"))["players"] == order


def rate(tmp_path: Path, *args: str) -> Result:
    lines = ["game,player,place"]
    for record in round_robin(["ann", "+cmd", "-2+3", "=1+1"]):
        lines += [f"{record.game_id},{s.player},{s.place}" for s in record.seats]
    path = tmp_path / "places.csv"
    path.write_text("\n".join(lines) + "\n")
    return CliRunner().invoke(main, ["rate", str(path), *args])


def test_arena_rate_csv_quotes_formula_names(tmp_path: Path) -> None:
    """The audit's reproduction: `arena rate FILE -f csv` and `--matrix -f csv`."""
    result = rate(tmp_path, "-f", "csv", "--mean", "0")
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert sorted(r["bot"] for r in rows) == sorted(["'+cmd", "'-2+3", "'=1+1", "ann"])
    assert min(float(r["elo"]) for r in rows) < 0
    result = rate(tmp_path, "--matrix", "-f", "csv")
    assert result.exit_code == 0, result.output
    header = next(csv.reader(io.StringIO(result.stdout)))
    assert sorted(header[1:]) == sorted(["'+cmd", "'-2+3", "'=1+1", "ann"])


# -- terminal escapes --------------------------------------------------------------------


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A league store whose bot names were rewritten to `HOSTILE` ones (the store is a
    file: anyone who hands it over can write in it)."""
    path = tmp_path_factory.mktemp("store") / "league.sqlite"
    Store.open(path).close()
    names = [*HOSTILE, "bob"]
    with sqlite3.connect(path) as db:
        for index, record in enumerate(round_robin(names)):
            db.execute(
                "INSERT INTO games(game_id, idx, seed, status) VALUES (?, ?, '0', 'done')",
                (record.game_id, index),
            )
            db.executemany(
                "INSERT INTO seats(game_id, seat, bot, place) VALUES (?, ?, ?, ?)",
                [(record.game_id, k, s.player, s.place) for k, s in enumerate(record.seats)],
            )
        without_proofs(db)  # a stranger's store: what is read is tested
    db.close()
    return path


UNSHOWN = set("\x1b\x07\x9d\x9c\u202e\r")
"""What must not reach the terminal from those names."""


@pytest.mark.parametrize(
    "args",
    [[], ["-f", "github"], ["-f", "tsv"], ["-f", "csv"], ["--matrix"], ["--matrix", "-f", "csv"]],
)
def test_arena_standings_shows_a_stores_names_escaped(store: Path, args: list[str]) -> None:
    """The audit's reproduction: a window-title sequence in a stored name reached the
    organiser's terminal from the table, the matrix and the CSV."""
    result = CliRunner().invoke(main, ["standings", str(store), *args])
    assert result.exit_code == 0, result.output
    assert not UNSHOWN & set(result.stdout), repr(result.stdout)
    for escaped in (
        "\\x1b]0;PWN\\x07",
        "\\x9d0;PWN\\x9c",
        "ann\\u202eSSAP",
        "tab\\x09new\\x0aline",
    ):
        assert escaped in result.stdout


@pytest.mark.parametrize("args", [["-f", "json"], ["--matrix", "-f", "json"]])
def test_arena_standings_json_is_exact_and_safe_to_print(store: Path, args: list[str]) -> None:
    """JSON escapes the C0 controls itself but writes DEL, the C1 controls (U+009D is
    OSC, ESC ]) and format characters as they are: they are written as JSON escapes,
    and the names decode exactly as stored."""
    result = CliRunner().invoke(main, ["standings", str(store), *args])
    assert result.exit_code == 0, result.output
    assert not UNSHOWN & set(result.stdout), result.stdout
    doc = json.loads(result.stdout)
    names = doc["players"] if "players" in doc else [r["bot"] for r in doc["rows"]]
    assert sorted(names) == sorted([*HOSTILE, "bob"])


@pytest.mark.parametrize("fmt", sorted(set(output_formats()) - {"json"}))  # JSON: above
def test_every_format_escapes_a_title_sequence(fmt: str) -> None:
    records = round_robin([TITLE, "bob"])
    standings = compute_standings(records)
    for text in (render(standings, fmt), render_head_to_head(head_to_head(records), fmt)):
        assert "\x1b" not in text
        assert "\x07" not in text


# -- printable -----------------------------------------------------------------------------


BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
"""The bidirectional formatting characters (the "Trojan Source" list, and ALM)."""


def test_printable_escapes_bidirectional_overrides() -> None:
    """The audit: `check-bot` printed a bot's U+202E (category Cf) as it was, which
    shows the rest of its line backwards; only category Cc was escaped."""
    assert printable("a\u202eSSAP") == "a\\u202eSSAP"
    for char in BIDI:
        assert printable(char) == f"\\u{ord(char):04x}"
    assert printable("\U000e0041") == "\\U000e0041"  # a tag character, invisible
    # Nothing else changes: other scripts, emoji, tab and newline are shown as they are.
    text = "Zoë, 中文, עברית, 🙂, a\ttab and a\nnewline"
    assert printable(text) == text
    assert printable("\x1b[2J\r\x7f\x9b") == "\\x1b[2J\\x0d\\x7f\\x9b"


def test_printable_escapes_every_format_character() -> None:
    """The list of format characters is spelled out (for speed): every one this
    Python's Unicode knows is in it."""
    missed = [
        f"U+{code:04X}"
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) == "Cf" and printable(chr(code)) == chr(code)
    ]
    assert missed == []


def test_printable_name_escapes_tab_and_newline_too() -> None:
    assert printable_name("a\tb\nc\u200bd") == "a\\x09b\\x0ac\\u200bd"


def test_printable_json_decodes_to_the_same_data() -> None:
    data = {"names": ["\x7f\x9b\u202e\U000e0041", "ann", "Zoë"]}
    text = printable_json(json.dumps(data, ensure_ascii=False))
    assert json.loads(text) == data
    assert text.isascii() is False  # Zoë stays as it is
    assert not set("\x7f\x9b\u202e\U000e0041") & set(text)


@pytest.mark.subprocess
def test_check_bot_shows_a_bots_override_escaped(tmp_path: Path) -> None:
    """The audit's reproduction for `check-bot`, by the stderr it quotes."""
    bot = tmp_path / "bot.py"
    bot.write_text("import sys\nsys.stderr.write('FAIL \\u202eSSAP\\n')\nsys.exit(2)\n")
    result = CliRunner().invoke(main, ["check-bot", "--", "python3", str(bot)])
    assert result.exit_code == 1
    assert "\u202e" not in result.output
    assert "FAIL \\u202eSSAP" in result.output


@pytest.mark.parametrize("matrix", [False, True])
def test_a_name_in_a_wide_script_keeps_its_row_in_line(tmp_path: Path, matrix: bool) -> None:
    """`arena rate` on a CSV of anyone's names: tabulate counted 机器人 as three columns,
    where a terminal gives it six, and the rest of that row stood three columns right of
    the others'. Every line of a table now takes the same columns on the screen (tabulate
    measures by the `wcwidth` package, which its `widechars` extra brings)."""
    from wcwidth import wcswidth as display_width

    games = tmp_path / "games.csv"
    games.write_text(
        "game,player,place\n1,机器人,1\n1,bob,2\n2,bob,1\n2,机器人,2\n3,Ωmega,1\n3,bob,2\n"
    )
    args = ["rate", str(games), "-f", "grid"] + (["--matrix"] if matrix else [])
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    table = result.stdout.split("\n\n")[0].splitlines()
    assert any("机器人" in line for line in table)
    assert len({display_width(line) for line in table}) == 1, table
    assert display_width("机器人") == 6
    assert display_width("Ωmega") == 5
    assert display_width("e\u0301") == 1  # a combining accent takes no column
