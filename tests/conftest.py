"""For every test: temporary files (arena's bot work folders among them) go under
pytest's own temporary folder, in this process and in the processes it starts.

A test that SIGKILLs arena on purpose (to check a resume) leaves its bots' work
folders behind, as any SIGKILLed run does; there, pytest clears them with its other
old runs instead of /tmp gathering them. The records of successful builds
(`arena.bots.build_cache_dir`) go there too, not into the user's ~/.cache."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True, scope="session")
def _temporary_files_under_pytests_folder(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[None]:
    folder = str(tmp_path_factory.mktemp("tmp"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tempfile, "tempdir", folder)
        patch.setenv("TMPDIR", folder)
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
        yield
