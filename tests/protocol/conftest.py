"""Shared helpers for the protocol tests: the golden vectors and their generator."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "protocol" / "vectors"
GAMES = VECTORS / "games"
SPEC = ROOT / "protocol" / "SPEC.md"


def load_index() -> dict[str, Any]:
    """protocol/vectors/index.json."""
    index: dict[str, Any] = json.loads((VECTORS / "index.json").read_text())
    return index


def vector_bytes(name: str) -> bytes:
    """The exact frame of a vector."""
    return (VECTORS / f"{name}.bin").read_bytes()


def vector_json(name: str) -> Any:
    """The JSON of a vector (key order kept)."""
    return json.loads((VECTORS / f"{name}.json").read_text())


def load_generator(
    path: Path = VECTORS / "generate.py", name: str = "_vectors_generate"
) -> ModuleType:
    """protocol/vectors/generate.py as a module (it is a script, not part of the package)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def generator() -> ModuleType:
    """The vector generator, loaded once."""
    return load_generator()


def game_names() -> list[str]:
    """The golden game transcripts, by name (protocol/vectors/games/NAME.jsonl)."""
    return sorted(p.stem for p in GAMES.glob("*.jsonl"))


def game_lines(name: str) -> list[dict[str, Any]]:
    """The lines of a golden game transcript, as JSON objects (key order kept)."""
    with (GAMES / f"{name}.jsonl").open(encoding="utf-8") as file:
        return [json.loads(line) for line in file]


@pytest.fixture(scope="session")
def game_generator() -> ModuleType:
    """The transcript generator, protocol/vectors/games/generate.py, loaded once."""
    return load_generator(GAMES / "generate.py", "_games_generate")
