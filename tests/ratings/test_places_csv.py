"""Reading `game,player,place` CSV: good files, and a clear error naming the line for
every kind of bad one."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.errors import InputError
from arena.standings import GameRecord, SeatRecord, load_places_csv, read_places_csv


def read(text: str) -> list[GameRecord]:
    return read_places_csv(io.StringIO(text), "results.csv")


def test_reads_games_in_order_of_first_row() -> None:
    records = read("game,player,place\nb,x,2\na,y,1\nb,z,1\na,x,2\n")
    assert records == [
        GameRecord("b", None, (SeatRecord("x", 2), SeatRecord("z", 1))),
        GameRecord("a", None, (SeatRecord("y", 1), SeatRecord("x", 2))),
    ]


def test_header_is_case_insensitive_any_order_with_extra_columns() -> None:
    text = " Place ,Comment,PLAYER,Game\n1,hello,x,g\n2,,y,g\n"
    (record,) = read(text)
    assert record.seats == (SeatRecord("x", 1), SeatRecord("y", 2))


def test_optional_points_cause_and_group() -> None:
    text = (
        "game,player,place,points,cause,group\n"
        "g1,x,1,12,,d1\n"
        "g1,y,2,100,timeout,d1\n"
        "g2,x,2,,bust,\n"
        "g2,y,1,,,\n"
    )
    first, second = read(text)
    assert first.group == "d1"
    assert first.seats[1] == SeatRecord("y", 2, points=100, cause="timeout")
    assert first.seats[0].cause is None
    assert second.group is None
    assert second.seats[0] == SeatRecord("x", 2, points=None, cause="bust")


def test_blank_lines_quotes_spaces_and_ties() -> None:
    text = 'game,player,place\n\n"g 1","Bot, the first",1\n g 1 , b ,1\n\n'
    (record,) = read(text)
    assert record.game_id == "g 1"
    assert record.ranking() == [["Bot, the first", "b"]]


def test_load_reads_a_file_with_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_bytes("\ufeffgame,player,place\n1,a,1\n1,b,2\n".encode())
    assert load_places_csv(path)[0].seats[0] == SeatRecord("a", 1)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "results.csv: the file is empty"),
        ("\n\n", "results.csv: the file is empty"),
        ("game,player,place\n", "results.csv: no results, only a header"),
        ("game,player\n1,a\n", "results.csv, line 1: missing column place"),
        ("name,rank\n", "line 1: missing columns game, player, place"),
        # A NUL in a header cell said only "missing column place".
        (
            "game,player,place\0\n",
            "place; the header must name game, player and place (it"
            " names game, player, place\\x00)",
        ),
        ("game,player,place,Place\n", "line 1: column place appears twice"),
        ("game,player,place\n1,a\n", "line 2: expected 3 fields like the header, found 2"),
        ("game,player,place\n1,a,1,x\n", "line 2: expected 3 fields like the header, found 4"),
        ("game,player,place\n1,a,1\n,b,2\n", "line 3: the game is empty"),
        ("game,player,place\n1, ,1\n", "line 2: the player is empty"),
        ("game,player,place\n1,a,first\n", "line 2: place 'first' is not a whole number"),
        ("game,player,place\n1,a,1.5\n", "line 2: place '1.5' is not a whole number"),
        ("game,player,place\n1,a,0\n", "line 2: place '0' is not a whole number >= 1"),
        ("game,player,place\n1,a,-2\n", "line 2: place '-2' is not a whole number >= 1"),
        ("game,player,place\n1,a,\n", "line 2: place '' is not a whole number >= 1"),
        (
            "game,player,place\n1,a,1\n2,a,1\n1,a,2\n",
            "line 4: a appears twice in game 1 (first on line 2)",
        ),
        ("game,player,place,points\n1,a,1,lots\n", "line 2: points 'lots' is not a whole number"),
        (
            "game,player,place,group\n1,a,1,x\n1,b,2,y\n",
            "line 3: game 1 is in group y here but in group x on an earlier line",
        ),
        ('game,player,place\n1,"a\n', "line 2: not valid CSV (unexpected end of data)"),
        ('game,player,place\n1,"a" ,1\n', "line 2: not valid CSV"),
        ("game,player,place\n1,a\x00,1\n", "line 2: the player 'a\\x00' holds a control character"),
        ("game,player,place\ng\x1b[2J,a,1\n", "line 2: the game 'g\\x1b[2J' holds a control"),
    ],
)
def test_bad_input_names_the_line(text: str, message: str) -> None:
    with pytest.raises(InputError, match=re.escape(message)):
        read(text)


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        # A place past the game's players made the average place wrong (7 of 4 seats).
        ("g,a,1\ng,b,2\ng,c,3\ng,d,7\n", "line 5: place 7 in game g, which has 4 players"),
        ("g,a,1\ng,b,3\n", "line 3: place 3 in game g, which has 2 players (places 1 to 2)"),
        ("g,a,2\ng,b,2\n", "line 2: place 2 in game g, but no player of the game placed"),
        ("g,a,1\ng,b,1\ng,c,2\n", "line 4: place 2 in game g, but 2 players of the game"),
        ("g,a,1\ng,b,3\ng,c,3\n", "line 3: place 3 in game g, but 1 player of the game"),
        ("g,a,1\ng,b,2\nh,a,1\nh,b,1\nh,c,4\n", "line 6: place 4 in game h, which has 3"),
    ],
)
def test_a_place_the_game_cannot_have_is_refused_with_its_line(
    tmp_path: Path, rows: str, message: str
) -> None:
    """Found in an audit: a place past the game's number of players (7 in a game of
    4), a game with nobody first, or a place that its game's other places rule out
    were read as they were, and the average place was wrong. A place is 1 plus the
    number of the game's players placed better, as arena places its own games; both
    readers (by lines, and by columns from the bytes) refuse anything else."""
    text = "game,player,place\n" + rows
    with pytest.raises(InputError, match=re.escape(f"results.csv, {message}")):
        read(text)
    path = tmp_path / "results.csv"
    path.write_text(text)
    with pytest.raises(InputError, match=re.escape(message)):
        load_places_csv(path)


def test_ties_share_a_place_and_skip_the_places_after_them(tmp_path: Path) -> None:
    text = "game,player,place\ng,a,1\ng,b,1\ng,c,3\nh,a,1\nh,b,2\nh,c,2\nh,d,4\n"
    records = read(text)
    assert [[s.place for s in record.seats] for record in records] == [[1, 1, 3], [1, 2, 2, 4]]
    path = tmp_path / "r.csv"
    path.write_text(text)
    assert load_places_csv(path) == records


def test_missing_and_undecodable_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=re.escape("nope.csv: cannot read: No such file")):
        load_places_csv(tmp_path / "nope.csv")
    with pytest.raises(InputError, match="cannot read"):
        load_places_csv(tmp_path)  # a directory
    latin = tmp_path / "latin.csv"
    latin.write_bytes("game,player,place\n1,Jos\xe9,1\n".encode("latin-1"))
    with pytest.raises(InputError, match=re.escape("latin.csv: not UTF-8 text")):
        load_places_csv(latin)


@given(st.text(alphabet='gamepl,ace\n"0123456789 -x\r\t', max_size=120))
def test_any_text_gives_records_or_an_input_error(text: str) -> None:
    records: list[GameRecord] = []
    error = ""
    try:
        records = read(text)
    except InputError as err:
        error = str(err)
    if error:
        assert error.startswith("results.csv")
        assert "\n" not in error
    else:
        assert records
        for record in records:
            players = [seat.player for seat in record.seats]
            assert len(players) == len(set(players))
            assert all(1 <= seat.place <= len(record.seats) for seat in record.seats)


def test_a_file_whose_games_rows_are_interleaved_rates_as_one_whose_are_not(
    tmp_path: Path,
) -> None:
    """The rows of a game need not be together. Read by columns, a game's seats are put
    together before anything counts on it: the groups of bots no game links were found
    from seats side by side, and with a's game's seats apart from each other every bot
    was a group of its own ("Apart", and no LOS)."""
    from arena.standings import compute_standings, load_places_columns

    games = [("g1", "a", "b"), ("g2", "c", "d"), ("g3", "b", "c"), ("g4", "d", "a")]
    together = "".join(f"{g},{w},1\n{g},{lost},2\n" for g, w, lost in games)
    apart = "".join(f"{g},{w},1\n" for g, w, _ in games) + "".join(
        f"{g},{lost},2\n" for g, _, lost in games
    )
    tables = []
    for name, rows in (("together", together), ("apart", apart)):
        path = tmp_path / f"{name}.csv"
        path.write_text("game,player,place\n" + rows)
        tables.append(compute_standings(load_places_columns(path)))
    assert tables[1].apart == ()
    assert tables[1] == tables[0]
    assert all(row.superiority is not None for row in tables[1].rows[:-1])
