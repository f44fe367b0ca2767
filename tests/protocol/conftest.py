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


def load_generator() -> ModuleType:
    """protocol/vectors/generate.py as a module (it is a script, not part of the package)."""
    spec = importlib.util.spec_from_file_location("_vectors_generate", VECTORS / "generate.py")
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
