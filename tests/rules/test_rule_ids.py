"""The rule ids of protocol/RULES.md: none lost, none invented, every one cited by a test."""

from __future__ import annotations

import re
from pathlib import Path

RULES_MD = Path(__file__).parents[2] / "protocol" / "RULES.md"
TESTS_DIR = Path(__file__).parent

# Every rule id of the rule book, copied by hand so that a deleted or renamed rule is noticed.
EXPECTED_IDS = frozenset(
    {
        "R1.1",
        "R2.1",
        "R2.2",
        "R2.3",
        "R3.1",
        "R3.2",
        "R4.1",
        "R4.2",
        "R4.3",
        "R4.4",
        "R5.1",
        "R5.2",
        "R5.3",
        "R5.4",
        "R6.1",
        "R6.2",
        "R6.3",
        "R6.4",
        "R6.5",
        "R6.6",
        "R6.7",
        "R7.1",
        "R7.2",
        "R7.3",
        "R7.4",
        "R7.5",
        "R8.1",
        "R8.2",
        "R8.3",
        "R8.4",
        "R8.5",
        "R9.1",
        "R9.2",
        "R9.3",
        "R9.3.a",
        "R9.3.b",
        "R9.4",
        "R10.1",
        "R10.2",
    }
)

# A rule id anywhere in the text: R1.1, R10.2, R9.3.a (not R1, a section; not part of a word).
RULE_ID = re.compile(r"(?<![\w.])R\d+(?:\.\d+)+(?:\.[a-z]\b)?")
# A rule's definition: the id in bold at the start of a line, "**R4.3** After playing, ...".
DEFINITION = re.compile(r"^\*\*(R\d+(?:\.\d+)+(?:\.[a-z])?)\*\*", re.MULTILINE)


def rules_text() -> str:
    return RULES_MD.read_text(encoding="utf-8")


def defined_ids() -> list[str]:
    return DEFINITION.findall(rules_text())


def test_rules_page_defines_every_rule_id_once() -> None:
    ids = defined_ids()
    twice = sorted({i for i in ids if ids.count(i) > 1})
    assert not twice, f"defined more than once: {twice}"
    lost, unknown = sorted(EXPECTED_IDS - set(ids)), sorted(set(ids) - EXPECTED_IDS)
    assert set(ids) == EXPECTED_IDS, f"not defined: {lost}, unknown: {unknown}"


def test_rules_page_mentions_only_known_rule_ids() -> None:
    mentioned = set(RULE_ID.findall(rules_text()))
    assert mentioned <= EXPECTED_IDS, f"unknown: {sorted(mentioned - EXPECTED_IDS)}"


def cites(text: str, rule_id: str) -> bool:
    """True if `text` cites `rule_id` itself: "R9.3" is not cited by "R9.31" or "R9.3.a"."""
    pattern = r"(?<![\w.])" + re.escape(rule_id) + r"(?!\d|\.[a-z]\b)"
    return re.search(pattern, text) is not None


def test_every_rule_id_is_cited_by_a_rules_test() -> None:
    this = Path(__file__).resolve()
    texts = [
        path.read_text(encoding="utf-8")
        for path in sorted(TESTS_DIR.rglob("*.py"))
        if path.resolve() != this
    ]
    assert texts, f"no test files under {TESTS_DIR}"
    ids = set(RULE_ID.findall(rules_text())) | EXPECTED_IDS
    missing = sorted(i for i in ids if not any(cites(text, i) for text in texts))
    assert not missing, f"rule ids no test under tests/rules/ cites: {missing}"
