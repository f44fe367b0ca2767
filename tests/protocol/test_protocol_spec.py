"""SPEC.md agrees with the code: sections, field tables in SPEC order, constants."""

from __future__ import annotations

import re

import pytest

import protocol
from protocol import _schema

from .conftest import SPEC, VECTORS

TEXT = SPEC.read_text()
HEADINGS = set(re.findall(r"^#{2,3} (§[\d.]+)", TEXT, flags=re.MULTILINE))


def section(number: str) -> str:
    """The text of one section, up to the next heading of the same or a higher level."""
    match = re.search(rf"^(#{{2,3}}) {re.escape(number)} .*$", TEXT, flags=re.MULTILINE)
    assert match, number
    level = len(match.group(1))
    rest = TEXT[match.end() :]
    end = re.search(rf"^#{{2,{level}}} ", rest, flags=re.MULTILINE)
    return rest[: end.start()] if end else rest


def table_fields(text: str) -> list[str]:
    """The first-column `names` of the markdown tables in ``text``, in order."""
    return re.findall(r"^\| `([a-z_]+)` \|", text, flags=re.MULTILINE)


def test_every_cited_section_exists() -> None:
    sources = [TEXT, (VECTORS / "README.md").read_text()]
    for path in (VECTORS.parent).glob("*.py"):
        sources.append(path.read_text())
    sources.append((VECTORS / "generate.py").read_text())
    for source in sources:
        for cited in re.findall(r"§(\d+(?:\.\d+)*)", source):
            assert f"§{cited}" in HEADINGS, cited


def test_sections_are_numbered_in_order() -> None:
    top = re.findall(r"^## §(\d+) ", TEXT, flags=re.MULTILINE)
    assert [int(n) for n in top] == list(range(1, len(top) + 1))


@pytest.mark.parametrize(
    ("number", "fields"),
    [
        ("§5.1", [*_schema.MESSAGE_FIELDS["hello"], *_schema.LIMITS_FIELDS]),
        (
            "§5.2",
            [
                *_schema.MESSAGE_FIELDS["game_start"],
                *_schema.OPTIONS_FIELDS,
                *_schema.GAME_CLOCK_FIELDS,
            ],
        ),
        ("§5.3", [*_schema.MESSAGE_FIELDS["act"], *_schema.ACT_CLOCK_FIELDS]),
        ("§5.4", [*_schema.MESSAGE_FIELDS["game_over"], *_schema.ELIMINATION_FIELDS]),
        ("§5.5", [*_schema.MESSAGE_FIELDS["bye"]]),
        ("§7.3", [*_schema.OBSERVATION_FIELDS]),
    ],
)
def test_field_tables_follow_the_schema_order(
    number: str, fields: list[tuple[str, object]]
) -> None:
    assert table_fields(section(number)) == [name for name, _ in fields]


def test_bot_message_tables() -> None:
    assert table_fields(section("§6.1")) == ["type", "name", "version", "protocol"]
    assert table_fields(section("§6.2")) == ["type", "request_id", "choice"]


def test_event_table_lists_every_event_with_its_fields_in_order() -> None:
    rows = re.findall(r"^\| `([a-z_]+)` \| (.*?) \| ", section("§7.4"), flags=re.MULTILINE)
    assert [name for name, _ in rows] == list(protocol.EVENT_TYPES)
    for name, fields in rows:
        expected = [field for field, _ in _schema.EVENT_FIELDS[name]][1:]
        assert re.findall(r"`([a-z_]+)`", fields) == expected, name


def test_action_kinds_causes_and_cards_are_documented() -> None:
    kinds = re.findall(r"^\| `\"([a-z]+)\"` \|", section("§7.2"), flags=re.MULTILINE)
    assert kinds == list(protocol.ACTION_KINDS)
    causes = re.findall(r"^\| `\"([a-z_]+)\"` \|", section("§7.5"), flags=re.MULTILINE)
    assert causes == list(protocol.CAUSES)
    sentence = section("§7.1").split("**Card order**")[1].split(".\n")[0]
    listed = re.findall(r'`"([^"]+)"`', sentence)
    assert listed == [code for code in protocol.CARDS if code not in "23456789"]
    for code in protocol.CARDS:
        assert f'`"{code}"`' in section("§7.1") or code in "2345678", code


def test_defaults_in_the_spec_match_the_constants() -> None:
    limits = section("§5.1")
    assert f"default {protocol.DEFAULT_MAX_FRAME}" in limits
    assert f"default {protocol.DEFAULT_STARTUP_MS}" in limits
    assert f"default {protocol.DEFAULT_DECISION_MS}" in limits
    assert f"default {protocol.DEFAULT_EXIT_GRACE_MS}" in limits
    assert f"{protocol.DEFAULT_GRACE_MS} ms" in section("§8.1")
    assert str(protocol.MAX_REFEREE_FRAME) in section("§3.3")


def test_spec_points_to_the_rules_page() -> None:
    assert "`protocol/RULES.md`" in section("§2")
