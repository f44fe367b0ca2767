"""The default-deny sandbox when arena runs as an ordinary user, not root (issue 40.2).

Root and an ordinary user reach bubblewrap differently: an ordinary user's sandbox is
an unprivileged user namespace, where the seccomp program must be loaded under
no_new_privs and the bot's uid is the user's own. These tests run arena as a
throw-away uid with no account (setpriv), with Debian's Python and only /usr/bin and
/bin on the PATH, as a user of this machine would.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from .helpers import (
    as_ordinary_user,
    give_to_ordinary_user,
    needs_bwrap,
    needs_ordinary_user,
)
from .test_allowlist import ARCH, assert_the_list_holds

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [needs_bwrap, *needs_ordinary_user]

PROBE = """
import json, sys
from pathlib import Path
import trio
from tests.sandbox.test_allowlist import probe
print("SEEN " + json.dumps(trio.run(probe, Path(sys.argv[1]))))
"""


@pytest.mark.skipif(ARCH is None, reason="the allow-list knows x86_64 and aarch64")
def test_an_ordinary_users_bots_get_the_same_allow_list(user_tmp: Path) -> None:
    work = user_tmp / "work"
    work.mkdir()
    give_to_ordinary_user(work)
    done = as_ordinary_user(["-c", PROBE, str(work)], home=work, cwd=work)
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stdout.splitlines() if line.startswith("SEEN "))
    assert_the_list_holds(json.loads(line.removeprefix("SEEN ")))


KITS = {
    "c": "make",
    "go": "go",
    "java": "javac",
    "js": "node",
}
"""The kits whose toolchain an ordinary user of this machine can reach, with the program
each needs (Rust's cargo lives in root's home here)."""

PATH = "/usr/local/go/bin:/usr/local/bin:/usr/bin:/bin"
"""An ordinary user's PATH: Go's own install folder, as its instructions suggest."""


@pytest.mark.parametrize("kit", sorted(KITS))
def test_an_ordinary_user_builds_and_checks_each_kit_in_the_sandbox(
    user_tmp: Path, kit: str
) -> None:
    if shutil.which(KITS[kit], path=PATH) is None:
        pytest.skip(f"no {KITS[kit]} on {PATH}")
    home = user_tmp / "home"
    home.mkdir()
    bot = user_tmp / kit
    shutil.copytree(ROOT / "example_bots" / kit, bot, symlinks=True)
    give_to_ordinary_user(home, bot)
    check = ["-m", "arena", "check-bot", str(bot)]
    done = as_ordinary_user(check, home=home, cwd=home, path=PATH)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "  build: built in the sandbox" in done.stdout, done.stdout
    assert "  sandbox: bubblewrap" in done.stdout, done.stdout
    assert re.search(r"^result: all \d+ checks passed$", done.stdout, re.M), done.stdout


WRITE_AS_OWNER = """
import sys
from pathlib import Path
from arena.errors import StoreError
from arena.store import Store
path = Path(sys.argv[1])
if sys.argv[2] == "read":
    with Store.open(path, readonly=True) as store:
        print(store.games_count())
else:
    try:
        with Store.open(path) as store:
            store.set_meta("note", 1)
    except StoreError as err:
        print(err)
"""


def test_side_files_left_read_only_by_a_reader_are_named_when_writing_fails(
    user_tmp: Path,
) -> None:
    """A store made read-only (chmod 444) and read by its owner gets its -wal and -shm
    made by SQLite with the store's mode: read-only. Made writable again, the store
    still could not be written, and arena said "the store is read-only", which its mode
    belied. (Root writes any file: its owner, an ordinary user, runs arena here.)"""
    from arena.store import Store

    path = user_tmp / "league.sqlite"
    with Store.open(path) as store:
        store.sync_bots([("ada", "run ada", "d")])
    give_to_ordinary_user(user_tmp)
    path.chmod(0o444)
    read = as_ordinary_user(["-c", WRITE_AS_OWNER, str(path), "read"], home=user_tmp, cwd=user_tmp)
    assert read.returncode == 0, read.stderr
    assert (user_tmp / "league.sqlite-shm").exists()
    path.chmod(0o644)
    done = as_ordinary_user(["-c", WRITE_AS_OWNER, str(path), "write"], home=user_tmp, cwd=user_tmp)
    assert done.returncode == 0, done.stderr
    assert "its side file(s) league.sqlite-shm cannot" in done.stdout, done.stdout
    assert "make them writable too" in done.stdout
