"""The golden game transcripts: up to date, and every rule and ruling of RULES.md shown.

protocol/vectors/games/ holds one short seeded game a scenario, written by its
generate.py: a change of the referee's behaviour shows as a diff of these files.
"""

from __future__ import annotations

import difflib
from types import ModuleType
from typing import Any

import pytest

import protocol

from .conftest import GAMES, ROOT, game_lines, game_names

NAMES = game_names()
RULES_TEXT = (ROOT / "protocol" / "RULES.md").read_text(encoding="utf-8")


def _first_difference(name: str, want: bytes, got: bytes) -> str:
    want_lines = want.decode().splitlines()
    got_lines = got.decode().splitlines()
    for number, (a, b) in enumerate(zip(got_lines, want_lines, strict=False), 1):
        if a != b:
            diff = "\n".join(difflib.unified_diff([a], [b], "checked in", "generated", lineterm=""))
            return f"{name}, line {number}:\n{diff[:3000]}"
    return f"{name}: {len(got_lines)} lines checked in, {len(want_lines)} generated"


def test_transcripts_are_up_to_date(game_generator: ModuleType) -> None:
    """Regenerated in memory, every file matches the one checked in."""
    files: dict[Any, bytes] = game_generator.outputs()
    problems = []
    for path, data in files.items():
        if not path.exists():
            problems.append(f"{path.name}: missing")
        elif path.read_bytes() != data:
            problems.append(_first_difference(path.name, data, path.read_bytes()))
    problems += [f"{p.name}: not generated" for p in game_generator.orphan_files(files)]
    assert not problems, (
        "run: python protocol/vectors/games/generate.py (and review the diff)\n"
        + "\n".join(problems)
    )


def test_there_are_transcripts() -> None:
    assert len(NAMES) >= 20


def test_every_rule_id_has_a_transcript(game_generator: ModuleType) -> None:
    ids = game_generator.rule_ids(RULES_TEXT)
    assert len(ids) >= 39
    named: dict[str, list[str]] = {}
    for name in NAMES:
        for rule_id in game_lines(name)[0]["rules"]:
            named.setdefault(rule_id, []).append(name)
    assert not set(named) - set(ids), "transcripts name rule ids RULES.md does not define"
    missing = [rule_id for rule_id in ids if rule_id not in named]
    assert not missing, f"rule ids with no transcript: {missing}"


def test_every_ruling_has_a_transcript(game_generator: ModuleType) -> None:
    """Each [ruling] of RULES.md has a key in the generator's RULINGS (by the words
    after its mark), and a transcript that shows it."""
    texts = game_generator.ruling_texts(RULES_TEXT)
    keys = [game_generator.ruling_key(words) for words in texts]
    unknown = [words[:60] for words, key in zip(texts, keys, strict=True) if key is None]
    assert not unknown, f"rulings with no key in RULINGS of generate.py: {unknown}"
    assert sorted(keys) == sorted(game_generator.RULINGS), "a key of RULINGS is no ruling"
    named = {key for name in NAMES for key in game_lines(name)[0]["rulings"]}
    missing = [key for key in keys if key not in named]
    assert not missing, f"rulings with no transcript: {missing}"


def test_every_part_of_every_rule_is_shown(game_generator: ModuleType) -> None:
    """The checks pass on the files as checked in, and together they show every part
    of the rules the generator knows (the Reverse that turns and the one that does not)."""
    seen: dict[str, set[str]] = {}
    for name in NAMES:
        for key, parts in game_generator.check(game_lines(name)).items():
            seen.setdefault(key, set()).update(parts)
    missing = {
        key: sorted(parts - seen.get(key, set()))
        for key, parts in game_generator.PARTS.items()
        if parts - seen.get(key, set())
    }
    assert not missing


def test_the_checks_catch_a_broken_rule(game_generator: ModuleType) -> None:
    """A transcript edited to break a rule fails its check: a play that adds one too many."""
    lines = game_lines("single_2022_2p")
    step = next(s for s in lines[2:] if s["chosen"].get("card", "").isdigit())
    step["events"][0]["total"] += 1
    with pytest.raises(game_generator.CheckFailed, match="after playing"):
        game_generator.check(lines)


@pytest.mark.parametrize("name", NAMES)
def test_transcript_shape(name: str) -> None:
    """Header, start, steps, end; every referee message valid; request ids in order."""
    header, start, *steps, end = game_lines(name)
    assert header["transcript"] == name
    n = header["config"]["players"]
    assert len(start["game_start"]) == n
    assert len(end["game_over"]) == n
    for message in [*start["game_start"], *end["game_over"]]:
        protocol.validate_referee_message(message, strict=True)
    request_ids = [0] * n
    for number, step in enumerate(steps, 1):
        assert step["step"] == number
        seat = step["seat"]
        act = step["act"]
        protocol.validate_referee_message(act, strict=True)
        request_ids[seat] += 1
        assert act["request_id"] == request_ids[seat]
        assert act["observation"]["seat"] == act["observation"]["to_move"] == seat
        assert step["chosen"] == act["legal"][step["action"]["choice"]]


def test_whole_set_is_small() -> None:
    size = sum(p.stat().st_size for p in GAMES.glob("*.jsonl"))
    assert size < 2_000_000
