"""For every test: temporary files (arena's bot work folders among them) go under
pytest's own temporary folder, in this process and in the processes it starts.

A test that SIGKILLs arena on purpose (to check a resume) leaves its bots' work
folders behind, as any SIGKILLed run does; there, pytest clears them with its other
old runs instead of /tmp gathering them. The records of successful builds
(`arena.bots.build_cache_dir`) go there too, not into the user's ~/.cache."""

from __future__ import annotations

import signal
import tempfile
from collections.abc import Iterator
from types import FrameType

import pytest


def _hung_up(signum: int, frame: FrameType | None) -> None:
    """Ignores a hang-up, as nohup does, in a way that its children do not inherit."""


def _as_from_a_terminal() -> None:
    """The tests stop arena and themselves with SIGINT and SIGHUP, as a terminal does;
    a suite started as a background job of a script (`make test &`: SIGINT ignored) or
    under nohup (SIGHUP ignored) passed that on to every process it started, and arena
    rightly kept ignoring what it was started ignoring: 11 tests failed, in whichever
    worker process had not yet run arena's command line in-process (which takes SIGINT
    back). Here SIGINT raises KeyboardInterrupt as usual, and a hang-up is still
    ignored by the test processes, by a handler, which their children do not inherit:
    they start with the default, as from a terminal."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if signal.getsignal(signal.SIGHUP) == signal.SIG_IGN:
        signal.signal(signal.SIGHUP, _hung_up)


_as_from_a_terminal()


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
