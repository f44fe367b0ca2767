"""Bot folders for sandbox tests, their reports, and a check for stray processes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.bots import BotSpec, Limits, load_manifest, start_process
from arena.sandbox import Wrap, bwrap_problem

HOSTILE = Path(__file__).with_name("hostile_bot.py")
RANDOM = Path(__file__).resolve().parents[2] / "example_bots" / "python" / "random"
"""The random example bot."""

needs_bwrap = pytest.mark.skipif(
    bwrap_problem() is not None, reason=f"no working bubblewrap: {bwrap_problem()}"
)

BOTH = [
    pytest.param(True, id="bwrap", marks=needs_bwrap),
    pytest.param(False, id="none"),
]
"""Parametrize `sandboxed` over both modes; the bwrap one skips where bwrap fails."""


def arena_on_read_only(folder: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """Run `arena ARGS` (from the repository) with `folder` mounted read-only (bwrap)."""
    root = Path(__file__).resolve().parents[2]
    command = ["bwrap", "--bind", "/", "/", "--ro-bind", str(folder), str(folder), "--dev", "/dev"]
    command += ["--proc", "/proc", sys.executable, "-m", "arena.cli", *map(str, args)]
    return subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=120)


def cannot_write_store(store: Path) -> str:
    """What arena says of a store it must write in a folder mounted read-only."""
    return (
        f"arena: error: {store}: cannot open: its folder {store.parent} cannot be written (a"
        " read-only file system, or another user's folder)"
    )


def find_instead(monkeypatch: pytest.MonkeyPatch, program: str, found: str | None) -> None:
    """Make `shutil.which` answer `found` for `program` (None: not installed), and
    find every other program as before."""
    which = shutil.which

    def instead(name: str, path: str | None = None) -> str | None:
        return found if name == program else which(name, path=path)

    monkeypatch.setattr(shutil, "which", instead)


def make_bot(root: Path, name: str, attack: str, *args: object, token: str) -> BotSpec:
    """A bot folder under `root` running hostile_bot.py with `attack` (see its docstring)."""
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(HOSTILE, folder / "bot.py")
    words = " ".join(str(a) for a in (attack, *args, token))
    (folder / "bot.toml").write_text(f'name = "{name}"\nrun = "python3 bot.py {words}"\n')
    return load_manifest(folder)


def reports(log: Path) -> list[dict[str, Any]]:
    """The REPORT lines a hostile bot wrote to its stderr log, one per process."""
    if not log.exists():
        return []
    prefix = "REPORT "
    lines = log.read_text(errors="replace").splitlines()
    return [json.loads(line[len(prefix) :]) for line in lines if line.startswith(prefix)]


def leftovers(token: str) -> list[int]:
    """Processes whose command line holds `token` (bots and their bwrap), other than us."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if token.encode() in cmdline:
            found.append(int(entry))
    return found


async def gone(token: str, seconds: float = 5.0) -> bool:
    """Wait until no process holds `token`: killed processes take a moment to go."""
    for _ in range(int(seconds / 0.05)):
        if not leftovers(token):
            return True
        await trio.sleep(0.05)
    return not leftovers(token)


def gone_sync(token: str, seconds: float = 5.0) -> bool:
    """`gone` for tests outside trio."""
    for _ in range(int(seconds / 0.05)):
        if not leftovers(token):
            return True
        time.sleep(0.05)
    return not leftovers(token)


def line_of(log: Path, prefix: str) -> dict[str, Any] | None:
    """The JSON after `prefix` on a line of `log`, once there is one."""
    if log.exists():
        for line in log.read_text().splitlines():
            if line.startswith(prefix):
                found: dict[str, Any] = json.loads(line[len(prefix) :])
                return found
    return None


async def wait_for(log: Path, prefix: str) -> dict[str, Any]:
    """`line_of(log, prefix)`, waiting up to 20 s for the line."""
    for _ in range(400):
        if (found := line_of(log, prefix)) is not None:
            return found
        await trio.sleep(0.05)
    raise AssertionError(f"no {prefix!r} line in {log}")


async def one_after_another(
    tmp_path: Path, folder: Path, scripts: list[tuple[str, str, str]], wrap: Wrap | None
) -> list[dict[str, Any]]:
    """Run Python `scripts` (name, source, prefix of the line each one prints to stderr)
    as bot processes in `folder`, each after the one before has exited; the JSON of
    each one's line."""
    found = []
    async with trio.open_nursery() as nursery:
        for name, script, prefix in scripts:
            process = await start_process(
                BotSpec(name=name, command=("python3", "-c", script), folder=folder),
                nursery,
                limits=Limits(),
                log_path=tmp_path / f"{name}.log",
                wrap=wrap,
            )
            try:
                found.append(await wait_for(tmp_path / f"{name}.log", prefix))
                assert await process.wait_exit(10)  # gone before the next one starts
            finally:
                await process.kill(1.0)
        nursery.cancel_scope.cancel()
    return found


def random_bots(bots: Path, *names: str) -> None:
    """Copies of the random example bot, named `names`, in `bots`."""
    for name in names:
        folder = bots / name
        shutil.copytree(RANDOM, folder)
        toml = folder / "bot.toml"
        toml.write_text(toml.read_text().replace('name = "random"', f'name = "{name}"'))


ORDINARY_UID = 61_234
"""A throw-away uid with no account, for tests of arena run by an ordinary user."""


def system_python() -> str | None:
    """Debian's Python, if it can import arena's compiled dependencies (the same minor
    version): arena's own may live in a folder only root may enter (pyenv's in /root)."""
    python = shutil.which("python3", path="/usr/bin")
    if python is None:
        return None
    version = subprocess.run(
        [python, "-c", "import sys; print(sys.version_info[:2])"],
        capture_output=True, text=True, check=False,
    ).stdout.strip()  # fmt: skip
    return python if version == str(sys.version_info[:2]) else None


needs_ordinary_user = [
    pytest.mark.skipif(os.geteuid() != 0, reason="takes a throw-away uid (setpriv, as root)"),
    pytest.mark.skipif(system_python() is None, reason="no /usr/bin/python3 of this version"),
    pytest.mark.skipif(shutil.which("setpriv") is None, reason="no setpriv"),
]
"""Marks for a test that runs arena as `ORDINARY_UID`."""


def give_to_ordinary_user(*trees: Path) -> None:
    """Hand `trees` to `ORDINARY_UID`."""
    for tree in trees:
        subprocess.run(["chown", "-R", f"{ORDINARY_UID}:{ORDINARY_UID}", str(tree)], check=True)


def as_ordinary_user(
    args: list[str], *, home: Path, cwd: Path, path: str = "/usr/bin:/bin", timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """Run `python ARGS` (Debian's Python, arena from this repository) as `ORDINARY_UID`
    with `home` as its HOME and only `path` on its PATH: arena as an ordinary user on
    this machine would run it."""
    python = system_python()
    assert python is not None
    root = Path(__file__).resolve().parents[2]
    site = next((root / ".venv" / "lib").glob("python3*/site-packages"), None)
    env = {
        "HOME": str(home),
        "PATH": path,
        "PYTHONPATH": os.pathsep.join(str(p) for p in [root, site] if p is not None),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    uid = str(ORDINARY_UID)
    command = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", python, *args]
    return subprocess.run(
        command, env=env, cwd=cwd, capture_output=True, text=True, check=False, timeout=timeout
    )
