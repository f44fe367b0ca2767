"""SPEC.md §2 is enough to write a bot (issue 44.1): it cites every rule id of
protocol/RULES.md that a bot needs, and its tables agree with the rules engine.

A bot author wrote a bot from SPEC.md alone and guessed what SPEC left to RULES.md:
the points of a hand, a Reverse with two players left, ONO on tens, a quad under a
Play 2, the total after an elimination. These tests keep those facts in SPEC.md.
"""

from __future__ import annotations

import re

import pytest

import protocol
from arena.bots import check_name
from arena.errors import ManifestError
from arena.rules import (
    DECK_COUNTS,
    MAX_TOTAL,
    Action,
    Card,
    Cause,
    Edition,
    Ending,
    Format,
    Game,
    GameConfig,
)
from arena.rules._game import ROUND_ELIMINATED_POINTS

from .conftest import GAMES, ROOT, SPEC

TEXT = SPEC.read_text(encoding="utf-8")
RULES = (ROOT / "protocol" / "RULES.md").read_text(encoding="utf-8")

# A rule's definition in RULES.md: the id in bold at the start of a line.
DEFINITION = re.compile(r"^\*\*(R\d+(?:\.\d+)+(?:\.[a-z])?)\*\*", re.MULTILINE)

# Rule ids a bot needs no word of, each with the reason. None today: even R2.3 (whose
# box blurb, ages and minutes, is descriptive) fixes the 2 to 6 players of
# game_start.players, and R8.5 (the draw penalty of a real table) is why a hand is
# never scored for missing cards. A rule added to RULES.md is needed until listed here.
NOT_NEEDED: dict[str, str] = {}


def section(number: str) -> str:
    """The text of one section, up to the next heading of the same or a higher level."""
    match = re.search(rf"^(#{{2,3}}) {re.escape(number)} .*$", TEXT, flags=re.MULTILINE)
    assert match, number
    level = len(match.group(1))
    rest = TEXT[match.end() :]
    end = re.search(rf"^#{{2,{level}}} ", rest, flags=re.MULTILINE)
    return rest[: end.start()] if end else rest


def flat(text: str) -> str:
    """`text` with every run of white space (line breaks included) made one space."""
    return " ".join(text.split())


def cites(text: str, rule_id: str) -> bool:
    """True if `text` cites `rule_id` itself: "R9.3" is not cited by "R9.31" or "R9.3.a"."""
    pattern = r"(?<![\w.])" + re.escape(rule_id) + r"(?!\d|\.[a-z]\b)"
    return re.search(pattern, text) is not None


def table_rows(text: str) -> list[list[str]]:
    """The cells of every markdown table row in `text` (header and rule rows included)."""
    return [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in text.splitlines()
        if line.startswith("|")
    ]


def row(text: str, first: str) -> list[str]:
    """The one table row of `text` whose first cell starts with `first`."""
    rows = [r for r in table_rows(text) if r[0].startswith(first)]
    assert len(rows) == 1, (first, rows)
    return rows[0]


def codes_of(cell: str) -> list[str]:
    """The card codes a first cell names: `"7"`, or a range `"2"` … `"9"`."""
    codes = re.findall(r'`"([^"`]+)"`', cell)
    if "…" in cell and len(codes) == 2 and codes[0].isdigit() and codes[1].isdigit():
        return [str(v) for v in range(int(codes[0]), int(codes[1]) + 1)]
    return codes


def test_every_rule_id_a_bot_needs_is_cited_in_section_2() -> None:
    ids = DEFINITION.findall(RULES)
    assert len(ids) > 30, "RULES.md defines its rules with **R…** at the start of a line"
    assert set(NOT_NEEDED) <= set(ids), "NOT_NEEDED lists ids RULES.md does not define"
    rules_section = section("§2")
    missing = [i for i in ids if i not in NOT_NEEDED and not cites(rules_section, i)]
    assert not missing, f"SPEC.md §2 does not cite {missing}"


def test_spec_cites_only_rule_ids_that_exist() -> None:
    ids = set(DEFINITION.findall(RULES))
    cited = set(re.findall(r"(?<![\w.])R\d+(?:\.\d+)+(?:\.[a-z]\b)?", TEXT))
    assert cited <= ids, f"SPEC.md cites rule ids RULES.md does not define: {cited - ids}"


@pytest.mark.parametrize("number", ["§2.2", "§7.1"])
def test_deck_tables_match_the_engine(number: str) -> None:
    """Every card's count per edition, in §2.2 (the rules) and §7.1 (the codes)."""
    header = table_rows(section(number))[0]
    col = {
        edition: next(i for i, h in enumerate(header) if edition.value in h) for edition in Edition
    }
    seen: dict[Edition, dict[str, int]] = {edition: {} for edition in Edition}
    for cells in table_rows(section(number))[2:]:
        codes = codes_of(cells[0])
        for edition, i in col.items():
            cell = cells[i]
            if cell == "—":
                continue
            match = re.search(r"×(\d+)", cell)
            assert match, (number, cells)
            count = int(match.group(1))
            listed = codes_of(cell) or codes  # §7.1: `"2"`–`"9"` ×3 each for 1980
            if "–" in cell and len(listed) == 2:
                listed = [str(v) for v in range(int(listed[0]), int(listed[1]) + 1)]
            for code in listed:
                seen[edition][code] = count
    for edition in Edition:
        expected = {card.code: n for card, n in DECK_COUNTS[edition].items()}
        assert seen[edition] == expected, edition


def test_the_deck_sizes_are_stated() -> None:
    text = flat(section("§2.2"))
    for edition, rule in ((Edition.E2022, "R2.1"), (Edition.E1980, "R2.2")):
        size = sum(DECK_COUNTS[edition].values())
        assert f"{edition.value} deck has {size} cards ({rule})" in text


def test_card_points_in_the_deck_table_match_the_engine() -> None:
    rows = table_rows(section("§2.2"))
    points = rows[0].index("points (§2.8)")
    for cells in rows[2:]:
        for code in codes_of(cells[0]):
            card = Card.from_code(code)
            shown = cells[points]
            assert shown == str(card.score) or (shown == "face value" and card.is_number), code


def test_hand_values_for_the_points_format() -> None:
    """The user's bot guessed these: number = face value, ONO 99 = 20, the other
    specials 15, +25 for being out of the round (R9.3)."""
    text = section("§2.8")
    assert row(text, "a number card")[1] == "its face value"
    assert row(text, "ONO 99")[1] == str(Card.ONO99.score) == "20"
    specials = row(text, "Reverse, -10, Play 2, Hold, Double Play")
    for code in codes_of(specials[0]):
        assert Card.from_code(code).score == 15, code
    assert {c for c in Card if not c.is_number and c is not Card.ONO99} == {
        Card.from_code(code) for code in codes_of(specials[0])
    }
    assert specials[1] == "15 each"
    assert row(text, "being out of the round")[1] == f"+{ROUND_ELIMINATED_POINTS}" == "+25"
    assert "0 in the arena" in row(text, "each card short of four")[1]
    assert "(R9.3)" in text
    assert "(R8.5 [ruling])" in text


def test_the_limit_is_98_in_both_editions() -> None:
    assert MAX_TOTAL == 98
    assert "**98 or less**" in flat(section("§2.1"))
    assert "in both editions (R4.2)" in flat(section("§2.1"))
    assert f"total + *n* ≤ {MAX_TOTAL} (R4.2, R6.1)" in section("§2.4")


def test_defaults_in_section_2_match_the_engine() -> None:
    config = GameConfig()
    text = flat(section("§2.8"))
    assert f"`options.tokens` tokens (default {config.tokens}" in text
    assert f"`options.target` (default {config.target})" in text
    assert f"`options.play_cap`, default {config.play_cap}" in text
    assert config.ending is Ending.ELIMINATION
    assert "**Ending `elimination`** (R9.3.a; the default" in text


def test_reverse_with_two_players_left() -> None:
    """R6.4 [ruling], R7.2: with two players left in the game a Reverse is a plain 0;
    it does not answer a Play 2. The user's bot got two-player tables wrong."""
    deck = row(section("§2.2"), '`"R"`')
    assert "except with two players left in the game" in deck[5]
    assert "R6.4, R7.2" in deck[5]
    playing = flat(section("§2.4"))
    assert "**Reverse with two players left** (R6.4 [ruling])" in playing
    assert "does not answer a Play 2" in playing
    assert "`in_game`" in playing
    owing = section("§2.5")
    two = row(owing, "Reverse, 2 players in the game")
    assert "**does not answer**" in two[1]
    assert "still owes its second card" in two[1]
    assert "R6.4, R7.2" in two[1]
    three = row(owing, "Reverse, 3 or more players in the game")
    assert "answers" in three[1]
    assert "R7.2" in three[1]


def test_ono_on_tens() -> None:
    """R8.4: under the 1980 option an ONO 99 adds 0, on a total ending in zero, one a turn."""
    cells = row(section("§2.4"), "ONO 99, 1980")
    assert "`options.ono_on_tens` (R8.4" in cells[1]
    assert "total mod 10 = 0" in cells[1]
    assert "this turn" in cells[1]
    assert "It adds 0" in cells[1]
    assert "R8.4 [ruling]" in cells[1]  # the two cards owed under a Double Play: one turn
    owing = row(section("§2.5"), 'ONO 99 under "ONO on tens"')
    assert "adds 0" in owing[1]
    assert "R8.4" in owing[1]


def test_quad_counts_as_the_first_of_two_owed_cards() -> None:
    cells = row(section("§2.5"), "`quad`")
    assert "**counts as the first card** (R6.3 [ruling])" in cells[1]
    assert "never answers" in cells[1]
    assert "the next player owes one" in cells[2]


def test_the_total_after_an_elimination_and_at_a_new_round() -> None:
    text = section("§2.7")
    assert "**unchanged**" in row(text, "single")[2]
    assert "**total 0, direction 1** (R9.4)" in row(text, "tokens")[2]
    points = row(text, "points")
    assert "**unchanged**" in points[2]
    assert "**total 0, direction 1**" in points[3]
    assert "the total and direction unchanged" in flat(text)  # after a fault
    deal = flat(section("§2.3"))
    assert "the **total is 0**, the **direction is 1**" in deal
    assert "R9.4" in deal


def test_every_game_section_2_names_exists() -> None:
    names = re.findall(r"`([a-z0-9_]+_(?:2022|1980)_\dp)`", section("§2"))
    assert names
    for name in names:
        assert (GAMES / f"{name}.jsonl").is_file(), name


def test_end_of_input_in_the_middle_of_a_frame() -> None:
    text = flat(section("§3.6"))
    assert "**End of input in the middle of a frame.**" in text
    assert "The bot MUST then exit" in text
    # The referee's words (arena/referee/_connection.py) and cause.
    assert "charges a `crash` (§9.1)" in text
    assert "(in the middle of a frame)" in text


def test_the_two_name_rules_point_at_each_other() -> None:
    hello, manifest = flat(section("§6.1")), flat(section("§14.1"))
    assert "§14.1" in hello
    assert "§6.1" in manifest
    limit = protocol.MAX_NAME_LENGTH
    assert f"1 to {limit} characters (Unicode code points, not bytes)" in hello
    rule = (
        f"1 to {limit} characters, each an ASCII letter, a digit, `-`, `_`, `.` or `+`,"
        " the first a letter or a digit"
    )
    assert rule in manifest
    assert rule in hello
    assert f"any 1 to {limit} code points" in manifest
    assert "never the name in its hello (§6.1)" in flat(section("§5.2"))


@pytest.mark.parametrize(
    ("name", "ok"),
    [("a", True), ("9" * 64, True), ("my-bot_1.2+x", True), ("a" * 65, False),
     ("-bot", False), (".bot", False), ("Zoë", False), ("my bot", False), ("", False)],
)  # fmt: skip
def test_the_bot_toml_rule_is_the_one_arena_enforces(name: str, ok: bool) -> None:
    """§14.1 (and §6.1, which repeats it) describe `arena.bots.check_name`."""
    try:
        check_name(name, "test")
    except ManifestError:
        assert not ok, name
    else:
        assert ok, name


@pytest.mark.parametrize(
    ("name", "ok"), [("Zoë 🂡", True), ("x" * 64, True), ("", False), ("x" * 65, False)]
)
def test_the_hello_rule_is_the_one_the_referee_enforces(name: str, ok: bool) -> None:
    """§6.1: any str of 1 to 64 code points."""
    hello = {"type": "hello", "name": name, "version": "", "protocol": 1}
    try:
        protocol.parse_bot_hello(hello)
    except protocol.ProtocolError:
        assert not ok, name
    else:
        assert ok, name


def test_a_fault_off_turn_that_ends_a_points_round_is_said_to_change_the_player_to_move() -> None:
    """R9.3, R9.4: a seat that faults when it is not its turn leaves the player to move
    as it was, except when that fault leaves one player in a points round (or one in the
    game): the round is scored and the next round's starter moves. SPEC §2.7 and
    RULES.md "Faults" once said the player to move is always unchanged."""
    config = GameConfig(players=4, format=Format.POINTS, target=1000)
    nines, ones = [Card.N9] * 4, [Card.N1] * 4
    game = Game.arranged(config, [nines, nines, [Card.N2] * 4, ones], [Card.N3] * 4, total=95)
    game.apply(Action.bust(Card.N9))
    game.apply(Action.bust(Card.N9))
    assert game.to_move == 2  # seats 2 and 3 are left in the round
    game.eliminate(3, Cause.CRASH)  # not its turn; seat 2 is left alone in the round
    assert game.observation(2).round == 2
    assert game.to_move == 1  # the starter of round 2 (R9.4), not seat 2
    spec = flat(section("§2.7"))
    assert (
        "the player to move is unchanged, unless the fault ends the game or a points round" in spec
    )
    rules = flat(RULES.split("### Faults", 1)[1].split("\n### ", 1)[0])
    assert "unless that fault ends the game, or ends a points round" in rules
