"""Fixtures of the sandbox tests."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def user_tmp() -> Iterator[Path]:
    """A fresh folder for `ORDINARY_UID` to work in, outside pytest's: pytest takes the
    others' permissions off its own root folder whenever a session starts (another
    xdist worker, another run), and the user could then no longer reach its files."""
    folder = Path(tempfile.mkdtemp(prefix="arena-user-", dir="/tmp"))  # (not $TMPDIR)
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
