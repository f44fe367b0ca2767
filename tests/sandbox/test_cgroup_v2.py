"""Per-bot groups on cgroup v2 (issue 40.4: "cgroup v1 and v2").

This machine kind mounts the memory and cpu controllers on cgroup v1, and its cgroup v2
mount offers only `hugetlb`. So the v2 files a bot's group gets are checked on a folder
that stands for a v2 group, and the v2 mechanics that need the kernel (arena moving
itself into a leaf of its own so that its group may hand a controller to its children,
a process arena starts finding the same root, a bot joining its group) are checked on
the real v2 mount with the controller it has.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena._memgroups import (
    CPU_WEIGHT,
    new_cpu_group,
    new_group,
    oom_kills,
    unified_root,
)

UNIFIED = Path("/sys/fs/cgroup/unified")


def _v2_folder(tmp_path: Path, controllers: str = "cpu memory pids") -> Path:
    root = tmp_path / "cg" / "arena.slice"
    root.mkdir(parents=True)
    (root / "cgroup.controllers").write_text(controllers + "\n")
    (root / "cgroup.subtree_control").write_text("\n")
    return root


def _texts(tmp_path: Path, own: str) -> tuple[str, str]:
    cgroup = f"0::{own}\n"
    mountinfo = (
        f"29 23 0:26 / {tmp_path / 'cg'} rw,nosuid,nodev,noexec,relatime shared:4"
        " - cgroup2 cgroup2 rw,nsdelegate\n"
    )
    return cgroup, mountinfo


def test_a_bots_memory_group_on_v2_bounds_memory_and_forbids_swap(tmp_path: Path) -> None:
    root = _v2_folder(tmp_path)
    group = new_group(root, 256 * 1024 * 1024)
    assert (group / "memory.max").read_text() == str(256 * 1024 * 1024)
    assert (group / "memory.swap.max").read_text() == "0"
    assert not (group / "memory.limit_in_bytes").exists()  # (v1's name)
    cpu = new_cpu_group(root)
    assert (cpu / "cpu.weight").read_text() == str(CPU_WEIGHT)
    assert not (cpu / "cpu.shares").exists()


def test_an_oom_kill_is_read_from_either_version(tmp_path: Path) -> None:
    v2 = tmp_path / "v2"
    v2.mkdir()
    (v2 / "memory.events").write_text("low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\n")
    v1 = tmp_path / "v1"
    v1.mkdir()
    (v1 / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 2\n")
    none = tmp_path / "none"
    none.mkdir()
    assert (oom_kills(v2), oom_kills(v1), oom_kills(none)) == (1, 2, 0)


def test_the_v2_root_is_arenas_own_group_with_the_controller_enabled(tmp_path: Path) -> None:
    root = _v2_folder(tmp_path)
    cgroup, mountinfo = _texts(tmp_path, "/arena.slice")
    assert unified_root("memory", cgroup, mountinfo) == root
    assert (root / "cgroup.subtree_control").read_text() == "+memory"
    # A process started by arena lives in arena's leaf: its root is the same group.
    leaf = f"/arena.slice/arena-{os.getpid()}-self"
    assert unified_root("memory", *_texts(tmp_path, leaf)) == root


def test_no_v2_root_where_the_group_does_not_offer_the_controller(tmp_path: Path) -> None:
    _v2_folder(tmp_path, controllers="pids")
    assert unified_root("memory", *_texts(tmp_path, "/arena.slice")) is None
    cgroup, _ = _texts(tmp_path, "/arena.slice")
    assert unified_root("memory", cgroup, "") is None  # no cgroup2 mounted


def _offers_hugetlb() -> bool:
    try:
        return "hugetlb" in (UNIFIED / "cgroup.controllers").read_text().split()
    except OSError:
        return False


CHILD = """
import json, os, subprocess, sys
from pathlib import Path
from arena._memgroups import joined, unified_root
root = unified_root("hugetlb")
leaf = root / f"arena-{os.getpid()}-self"
bot = root / "arena-0-bot"
bot.mkdir()
seen = subprocess.run(joined(["cat", "/proc/self/cgroup"], bot), capture_output=True, text=True)
again = subprocess.run([sys.executable, "-c", sys.argv[1]], capture_output=True, text=True)
print(json.dumps({
    "root": str(root),
    "self": Path(f"/proc/{os.getpid()}/cgroup").read_text(),
    "leaf_procs": (leaf / "cgroup.procs").read_text().split(),
    "subtree": (root / "cgroup.subtree_control").read_text().split(),
    "bot": seen.stdout,
    "worker_root": again.stdout.strip(),
}))
"""
WORKER = "from arena._memgroups import unified_root; print(unified_root('hugetlb'))"


@pytest.fixture
def v2_group() -> Iterator[Path]:
    """A group of the machine's v2 mount, standing for arena's own, whose parent hands
    it `hugetlb`. (Enabling hugetlb for the mount's groups is left as it is afterwards:
    tests in other workers may be using it, and it limits nothing by itself.)"""
    if os.geteuid() != 0:
        pytest.skip("makes groups on the machine's v2 mount")
    if not _offers_hugetlb():
        pytest.skip("no cgroup v2 mount offering hugetlb")
    top = UNIFIED / "cgroup.subtree_control"
    if "hugetlb" not in top.read_text().split():
        top.write_text("+hugetlb")
    group = UNIFIED / f"arena-test-{secrets.token_hex(4)}"
    group.mkdir()
    try:
        yield group
    finally:
        # A group whose last process has just exited may be busy for a moment longer.
        deadline = time.monotonic() + 10
        while group.exists() and time.monotonic() < deadline:
            for child in sorted(group.glob("arena-*"), reverse=True):
                with contextlib.suppress(OSError):
                    child.rmdir()
            with contextlib.suppress(OSError):
                (group / "cgroup.subtree_control").write_text("-hugetlb")
            with contextlib.suppress(OSError):
                group.rmdir()
            time.sleep(0.01)


def run_in(group: Path, script: str, *args: str) -> Any:
    """Run the Python `script` in a process that starts in `group`; what it printed,
    as JSON."""
    start = f'echo $$ > {group}/cgroup.procs && exec "$@"'
    done = subprocess.run(
        ["sh", "-c", start, "sh", sys.executable, "-c", script, *args],
        capture_output=True, text=True, timeout=60, check=False,
        cwd=Path(__file__).resolve().parents[2],
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_on_the_real_v2_mount_arena_moves_into_a_leaf_and_its_bots_join_their_group(
    v2_group: Path,
) -> None:
    """The kernel refuses to enable a controller for the children of a group that holds
    processes (EBUSY): arena, in such a group, moves itself into a leaf of its own, then
    enables it; a bot's shell joins its group; a process arena starts finds the root."""
    seen = run_in(v2_group, CHILD, WORKER)
    name = v2_group.name
    assert seen["root"] == str(v2_group)
    assert "hugetlb" in seen["subtree"]
    assert len(seen["leaf_procs"]) == 1  # arena alone, in its leaf
    assert seen["self"].strip().endswith(f"/{name}/arena-{seen['leaf_procs'][0]}-self")
    assert f"0::/{name}/arena-0-bot" in seen["bot"].splitlines()
    assert seen["worker_root"] == str(v2_group)


SHARED = """
import errno, json, os
from pathlib import Path
from arena._memgroups import unified_root
try:
    unified_root("hugetlb")
    print("made")
except OSError as err:
    print(json.dumps([errno.errorcode[err.errno], Path("/proc/self/cgroup").read_text()]))
"""


def test_where_arena_shares_its_v2_group_it_makes_no_groups_and_stays_where_it_was(
    v2_group: Path,
) -> None:
    """A shell in arena's group (arena run from a terminal's scope, not a delegated one
    of its own): the kernel refuses, and arena goes back to its group, leaving nothing."""
    other = subprocess.Popen(["sleep", "60"])
    try:
        (v2_group / "cgroup.procs").write_text(str(other.pid))
        code, where = run_in(v2_group, SHARED)
        assert code == "EBUSY"
        assert f"0::/{v2_group.name}" in where.splitlines()
        assert not list(v2_group.glob("arena-*"))
    finally:
        other.kill()
        other.wait()
