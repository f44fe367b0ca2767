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
