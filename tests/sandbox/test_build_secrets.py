"""Issue 40.1: a sandboxed build sees its toolchains and nothing of the organiser's
home, whoever runs arena. Run as an ordinary user with ~/bin and ~/.local/bin on the
PATH (Debian's and pipx's habits), a build found the whole home before: it copied
~/.ssh/id_rsa into its folder. Now it sees the two bin folders alone."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from arena.sandbox import toolchain_paths

from .helpers import ORDINARY_UID as USER
from .helpers import needs_bwrap, system_python

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import ctypes, errno, json, os
seen = {}
for path in PATHS:
    try:
        with open(path) as f:
            seen[path] = "read: " + f.read()
    except OSError as err:
        seen[path] = err.strerror
libc = ctypes.CDLL(None, use_errno=True)
if libc.unshare(0x10000000) == 0:  # CLONE_NEWUSER: then mounts of its own, unbounded
    seen["userns"] = "made"
else:
    seen["userns"] = errno.errorcode[ctypes.get_errno()]
json.dump(seen, open("seen.json", "w"))
"""


@needs_bwrap
@pytest.mark.skipif(os.geteuid() != 0, reason="takes a throw-away uid (setpriv, as root)")
@pytest.mark.skipif(system_python() is None, reason="no /usr/bin/python3 of this version")
def test_a_build_run_by_an_ordinary_user_sees_nothing_of_their_home(user_tmp: Path) -> None:
    top = user_tmp / "user"
    home = top / "home"
    secrets = {
        home / ".ssh" / "id_rsa": "PRIVATE KEY",
        home / ".config" / "service" / "credentials": "token=abc",
        home / "notes.txt": "the organiser's notes",
        home / ".cargo" / "credentials.toml": "[registry]\ntoken = 'xyz'",
    }
    for path, text in secrets.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(0o600)
    tools = {home / "bin" / "mytool": "#!/bin/sh\n", home / ".local" / "bin" / "pipx-app": ""}
    for path, text in tools.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(0o755)
    (home / ".cargo" / "bin").mkdir()
    bot = top / "bot"
    bot.mkdir()
    paths = [str(p) for p in [*secrets, *tools]]
    (bot / "probe.py").write_text(f"PATHS = {paths!r}\n" + PROBE)
    subprocess.run(["chown", "-R", f"{USER}:{USER}", str(top)], check=True)
    python = system_python()
    assert python is not None
    run = (
        "from pathlib import Path\n"
        "from arena.bots._sandboxed import sandboxed_build\n"
        f"print(sandboxed_build([{python!r}, 'probe.py'], Path({str(bot)!r}),"
        " network=False, timeout=60))\n"
    )
    path = os.pathsep.join(
        [
            str(home / "bin"),
            str(home / ".local" / "bin"),
            str(home / ".cargo" / "bin"),
            "/usr/bin",
            "/bin",
        ]
    )
    site = next((ROOT / ".venv" / "lib").glob("python3*/site-packages"), None)
    env = {
        "HOME": str(home),
        "PATH": path,
        "PYTHONPATH": os.pathsep.join(str(p) for p in [ROOT, site] if p is not None),
    }
    done = subprocess.run(
        ["setpriv", f"--reuid={USER}", f"--regid={USER}", "--clear-groups", python, "-c", run],
        env=env, cwd=top, capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("(0,"), done.stdout
    seen = json.loads((bot / "seen.json").read_text())
    for secret in secrets:
        assert seen[str(secret)] == "No such file or directory", seen
    for tool in tools:  # the bin folders on the PATH, and nothing around them
        assert seen[str(tool)] == "read: " + tools[tool], seen
    # Nor may it make a user namespace of its own (bwrap's --disable-userns): in one it
    # could mount a tmpfs that no limit bounds and fill the machine's memory.
    assert seen["userns"] != "made", seen


def test_toolchain_paths_never_hold_the_home_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """~/bin on the PATH is bound as itself, never as the home around it; the home
    itself, or / , on the PATH is left out."""
    home = tmp_path / "users" / "home"
    for sub in ("bin", ".local/bin", ".cargo/bin", ".pyenv/shims"):
        (home / sub).mkdir(parents=True)
    tools = tmp_path / "opt-tools"  # a link to the home, named as a toolchain's folder
    tools.symlink_to(home)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv(
        "PATH",
        os.pathsep.join(
            [str(home / "bin"), str(home / ".local/bin"), str(home / ".cargo/bin"),
             str(home / ".pyenv/shims"), str(home), str(home.parent), str(tools), "/",
             "/usr/bin"]
        ),
    )  # fmt: skip
    paths = toolchain_paths()
    assert home not in paths
    assert home.parent not in paths  # /home: every user's home, the organiser's among them
    assert tools not in paths
    assert Path("/") not in paths
    assert not any(p in home.parents for p in paths)
    assert {home / "bin", home / ".local/bin", home / ".cargo/bin"} <= set(paths)
    assert home / ".cargo" not in paths  # its credentials.toml stays out
