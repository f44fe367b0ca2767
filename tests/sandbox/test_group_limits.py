"""The limits written into a bot's groups (`arena._memgroups`), read back from the
kernel's files: a limit that was never written is no limit, and nothing a bot does
shows it where the machine has no swap (a memory limit that leaves swap unbounded) or
one bot decides at a time (a cpu share)."""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

import pytest

from arena import _memgroups


def _read(group: Path, name: str) -> str | None:
    with contextlib.suppress(OSError):
        return (group / name).read_text().strip()
    return None


@pytest.mark.skipif(_memgroups.groups_root() is None, reason="arena cannot make memory groups")
def test_a_memory_group_bounds_memory_and_swap() -> None:
    root = _memgroups.groups_root()
    assert root is not None
    limit = 96 * 1024 * 1024
    group = _memgroups.new_group(root, limit)
    try:
        if _memgroups.is_unified(root):
            assert _read(group, "memory.max") == str(limit)
            assert _read(group, "memory.swap.max") in ("0", None)  # None: no swap accounting
        else:
            assert _read(group, "memory.limit_in_bytes") == str(limit)
            # Memory and swap together, where the kernel accounts swap: no more than memory.
            assert _read(group, "memory.memsw.limit_in_bytes") in (str(limit), None)
    finally:
        group.rmdir()


@pytest.mark.skipif(_memgroups.cpu_groups_root() is None, reason="arena cannot make cpu groups")
def test_every_cpu_group_has_the_kernels_default_weight() -> None:
    """One weight for every bot, the default of a group: a bot in a heavier group would
    get more of the CPU than a bot of another game deciding at the same time."""
    root = _memgroups.cpu_groups_root()
    assert root is not None
    group = _memgroups.new_cpu_group(root)
    try:
        if _memgroups.is_unified(root):
            assert _read(group, "cpu.weight") == "100"
        else:
            assert _read(group, "cpu.shares") == "1024"
    finally:
        group.rmdir()


@pytest.mark.parametrize("unified", [True, False], ids=["v2", "v1"])
def test_the_limits_each_version_is_given(tmp_path: Path, unified: bool) -> None:
    """The files written, on either version, in a folder made to look like a group."""
    if unified:
        (tmp_path / "cgroup.controllers").write_text("cpu memory\n")
    limit = 96 * 1024 * 1024
    memory = _memgroups.new_group(tmp_path, limit)
    cpu = _memgroups.new_cpu_group(tmp_path)
    if unified:
        assert (_read(memory, "memory.max"), _read(memory, "memory.swap.max")) == (str(limit), "0")
        assert _read(cpu, "cpu.weight") == "100"
    else:
        assert _read(memory, "memory.limit_in_bytes") == str(limit)
        assert _read(memory, "memory.memsw.limit_in_bytes") == str(limit)
        assert _read(cpu, "cpu.shares") == "1024"


def test_the_sweep_takes_the_empty_groups_of_gone_arenas_only(tmp_path: Path) -> None:
    """An empty group of a live arena is one it has just made, its bot about to join:
    swept away by another arena starting, the bot would start outside it, without the
    shared limit (its join fails quietly, by design)."""
    gone = 2**22 + 1  # above the kernel's largest pid: no such process
    assert not Path(f"/proc/{gone}").exists()
    live = tmp_path / f"arena-{os.getpid()}-0123456789ab"
    dead = tmp_path / f"arena-{gone}-0123456789ab"
    other = tmp_path / f"other-{gone}"
    for group in (live, dead, other):
        group.mkdir()
    _memgroups._sweep(tmp_path)
    assert live.is_dir()
    assert not dead.exists()
    assert other.is_dir()  # not arena's


def test_the_writable_mount_of_the_controller_is_chosen() -> None:
    """A read-only mount of the hierarchy first (a container's view of the host's), the
    writable one after it: groups can be made only in the second."""
    mountinfo = (
        "32 31 0:29 / /ro/memory ro,relatime - cgroup cgroup rw,memory\n"
        "33 31 0:30 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
        "34 31 0:31 /docker/a /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    )
    assert _memgroups._mount_of(mountinfo, "cgroup", "memory") == (
        "/sys/fs/cgroup/memory",
        "/docker/a",
    )
    assert _memgroups._mount_of(mountinfo, "cgroup2", None) is None


@pytest.mark.skipif(_memgroups.groups_root() is None, reason="arena cannot make memory groups")
def test_no_groups_where_a_shell_cannot_join_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the probe's join fails, the bots' would too (quietly): arena says it has no
    groups, rather than making groups no bot is in."""
    false = shutil.which("false")
    assert false is not None
    monkeypatch.setattr(_memgroups, "_shell", lambda: false)
    assert _memgroups._root("memory", lambda root: _memgroups.new_group(root, 1 << 26)) is None
