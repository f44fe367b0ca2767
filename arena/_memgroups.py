"""One memory limit and one share of the CPU for all the processes of a bot: a memory
cgroup and a cpu cgroup of its own.

RLIMIT_AS bounds each process by itself, so a bot that forks (up to its process limit)
may hold many times `--memory-mb`, and the kernel's OOM killer, once the machine runs
short, may then kill any process: another bot (charged a crash it did not cause), a
worker, the referee. In a cgroup of its own a bot's processes share one limit, the
kernel counts what they touch (its tmpfs pages too), and past it the OOM killer ends
one of *its* processes (a crash of that bot).

The CPU the same way: where the kernel gives each session a scheduling group of its own
(autogroup), a bot that forks a crowd of spinners during its decisions takes no more
than one process would; but run arena inside a cpu cgroup (a container, a systemd
slice: where most leagues run) and autogroup is off there, so 240 spinners got 240
shares against an innocent bot's one in another game, which then timed out (issue 40).
In a cpu group of its own (equal shares, `new_cpu_group`) a bot's processes compete
only with each other.

Where arena can (each bot's group goes under arena's own, so a limit on arena holds for
its bots too):
- cgroup v1: as root, with the memory (and cpu) controller mounted writable.
- cgroup v2: wherever arena's own group is writable and offers the controller (root, or
  an ordinary user in a delegated group: `systemd-run --user --scope -p Delegate=yes`).
  v2 lets a group either hold processes or hand controllers to its children, not both
  (the root group aside), so arena first moves itself into a leaf of its own
  (`arena-PID-self`) and then enables the controller for its group's children, as
  nsjail and container runtimes do; a process arena starts there (a worker) makes its
  bots' groups beside that leaf. One hierarchy means one group a bot: where the memory
  and the cpu roots are the same folder, a bot's memory group is its cpu group too.
Elsewhere `groups_root` (`cpu_groups_root`) is None and bots have the per-process
limits alone. A bot's process joins its groups before it runs bwrap: a shell writes its
own pid into each group's `cgroup.procs`, then runs the command (`joined`), so that
every process the bot ever makes is born in them.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import functools
import os
import secrets
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

_JOIN = 'while [ "$1" != -- ]; do echo 0 2>/dev/null > "$1"; shift; done; shift; exec "$@"'
"""The shell's script: join the groups whose cgroup.procs are the arguments before "--",
then run the rest. A join that fails (the machine's cgroups changed under arena) leaves
the bot with its per-process limits: failing its start instead would charge the bot a
crash."""

CPU_SHARES = 1024
"""Every bot's cpu group has the same weight (the kernel's default for a group): two bots
deciding at once get half the CPU each, however many processes either runs."""

CPU_WEIGHT = 100
"""The same on cgroup v2 (`cpu.weight`, whose default is 100 as v1's shares' is 1024)."""

_PREFIX = "arena-"
_SELF = "-self"
"""The end of the name of the leaf arena moves itself into on cgroup v2."""


@functools.cache
def _shell() -> str | None:
    """The shell that joins a bot's process to its group (looked up once, not at every
    bot's start)."""
    return shutil.which("sh")


@functools.cache
def groups_root() -> Path | None:
    """The folder under which each bot process gets its memory group, or None where
    arena cannot make one (tried once: a group is made and a process joins it)."""
    return _root("memory", lambda root: new_group(root, 64 * 1024 * 1024))


@functools.cache
def cpu_groups_root() -> Path | None:
    """The folder under which each bot process gets its cpu group, or None where arena
    cannot make one (tried once: a group is made and a process joins it)."""
    return _root("cpu", new_cpu_group)


def _root(controller: str, make: Callable[[Path], Path]) -> Path | None:
    sh = _shell()
    if sh is None:
        return None
    try:
        own = _own_group(controller)
        mount = _mount(controller)
    except OSError:
        return None
    if own is not None and mount is not None:  # cgroup v1 (as root)
        if os.geteuid() != 0:
            return None
        where, shown = mount
        root = Path(where) / below(own, shown).lstrip("/")
    else:
        try:
            found = unified_root(controller)
        except OSError:
            return None
        if found is None:
            return None
        root = found
    if not root.is_dir():  # a group arena cannot see from here
        return None
    _sweep(root)
    try:
        probe = make(root)
    except OSError:
        return None
    try:  # a shell must be able to join it (the bots' join goes on if it cannot)
        join = [sh, "-c", 'echo 0 > "$1"', "arena-probe", str(probe / "cgroup.procs")]
        done = subprocess.run(join, capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    finally:
        with contextlib.suppress(OSError):
            probe.rmdir()
    return root if done.returncode == 0 else None


def is_unified(root: Path) -> bool:
    """Whether `root` is a group of cgroup v2 (its files say so)."""
    return (root / "cgroup.controllers").exists()


def new_group(root: Path, limit: int) -> Path:
    """Make a memory group under `root` whose processes together may use `limit` bytes
    (and as much swap, where the kernel accounts it; on v2 no swap); raises OSError."""
    _remove_pending()
    group = root / f"{_PREFIX}{os.getpid()}-{secrets.token_hex(6)}"
    group.mkdir()
    try:
        if is_unified(root):
            (group / "memory.max").write_text(str(limit))
            with contextlib.suppress(OSError):  # no swap accounting: nothing to bound
                (group / "memory.swap.max").write_text("0")
        else:
            (group / "memory.limit_in_bytes").write_text(str(limit))
            with contextlib.suppress(OSError):  # no swap accounting: nothing to bound
                (group / "memory.memsw.limit_in_bytes").write_text(str(limit))
    except OSError:
        group.rmdir()
        raise
    return group


def new_cpu_group(root: Path) -> Path:
    """Make a cpu group under `root` with the weight every bot's has (`CPU_SHARES`, on
    v2 `CPU_WEIGHT`); raises OSError."""
    _remove_pending()
    group = root / f"{_PREFIX}{os.getpid()}-{secrets.token_hex(6)}"
    group.mkdir()
    try:
        share_cpu(group)
    except OSError:
        group.rmdir()
        raise
    return group


def share_cpu(group: Path) -> None:
    """Give `group` the weight every bot's group has; raises OSError."""
    if is_unified(group.parent):
        (group / "cpu.weight").write_text(str(CPU_WEIGHT))
    else:
        (group / "cpu.shares").write_text(str(CPU_SHARES))


def oom_kills(group: Path) -> int:
    """How many of `group`'s processes the kernel killed for passing its memory limit
    (v1's `memory.oom_control`, v2's `memory.events`), 0 if it cannot say."""
    for name in ("memory.events", "memory.oom_control"):
        try:
            text = (group / name).read_text()
        except OSError:
            continue
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and value.strip().isdigit():
                return int(value)
        return 0
    return 0


def joined(command: list[str], *groups: Path) -> list[str]:
    """`command` run by a shell that first moves itself into each of `groups`."""
    procs = [str(group / "cgroup.procs") for group in groups]
    return [_shell() or "/bin/sh", "-c", _JOIN, "arena-groups", *procs, "--", *command]


_pending: set[Path] = set()
"""Groups whose last processes were still going when they were released."""
_at_exit: list[object] = []
"""Holds the exit handler that removes the groups still pending, once registered."""


def release_group(group: Path) -> None:
    """Remove `group`, its bot gone; if the kernel has not quite let its last process
    go (the sandbox's own processes exit a moment after the bot), later: at the next
    `new_group` or when arena exits. Nothing here waits, so no bot's close does."""
    if not _removed(group):
        if not _at_exit:
            _at_exit.append(atexit.register(_remove_pending, 1.0))
        _pending.add(group)


def _removed(group: Path) -> bool:
    try:
        os.rmdir(group)  # a cgroup's rmdir is one quick system call
    except OSError as err:
        return err.errno != errno.EBUSY  # gone already, or not ours to remove: done
    return True


def _remove_pending(seconds: float = 0.0) -> None:
    deadline = time.monotonic() + seconds
    while _pending:
        for group in list(_pending):
            if _removed(group):
                _pending.discard(group)
        if not _pending or time.monotonic() >= deadline:
            return
        time.sleep(0.01)


def unified_root(
    controller: str,
    cgroup_text: str | None = None,
    mountinfo_text: str | None = None,
) -> Path | None:
    """On cgroup v2, the folder of arena's own group, made ready for children with
    `controller` (enabled in its `cgroup.subtree_control`, arena moved into a leaf of
    its own if it must); None where the group does not offer the controller. The texts
    of /proc/self/cgroup and /proc/self/mountinfo may be given (tests). Raises OSError
    where the group cannot be changed (not arena's to write, or other processes in it).
    """
    if cgroup_text is None:
        cgroup_text = Path("/proc/self/cgroup").read_text()
    if mountinfo_text is None:
        mountinfo_text = Path("/proc/self/mountinfo").read_text()
    own = next((line[3:] for line in cgroup_text.splitlines() if line.startswith("0::")), None)
    mount = _mount_of(mountinfo_text, "cgroup2", None)
    if own is None or mount is None:
        return None
    where, shown = mount
    group = Path(where) / below(own, shown).lstrip("/")
    if group.name.startswith(_PREFIX) and group.name.endswith(_SELF):
        group = group.parent  # arena's leaf (this process was started by an arena)
    if controller not in (group / "cgroup.controllers").read_text().split():
        return None
    if controller not in (group / "cgroup.subtree_control").read_text().split():
        try:
            (group / "cgroup.subtree_control").write_text(f"+{controller}")
        except OSError as err:
            if err.errno != errno.EBUSY:
                raise
            # Processes in the group (arena itself): move arena to a leaf, try again.
            leaf = group / f"{_PREFIX}{os.getpid()}{_SELF}"
            leaf.mkdir(exist_ok=True)
            (leaf / "cgroup.procs").write_text(str(os.getpid()))
            try:
                (group / "cgroup.subtree_control").write_text(f"+{controller}")
            except OSError:  # others share the group (a shell): back where it was
                with contextlib.suppress(OSError):
                    (group / "cgroup.procs").write_text(str(os.getpid()))
                    leaf.rmdir()
                raise
    return group


def _own_group(controller: str) -> str | None:
    """arena's own group in the v1 hierarchy of `controller` (from /proc/self/cgroup)."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3 and controller in parts[1].split(","):
            return parts[2]
    return None


def below(own: str, shown: str) -> str:
    """arena's group `own` (from /proc/self/cgroup) as a path below a mount that shows
    the group `shown` as its root: "/docker/a/b" below "/docker/a" is "/b"."""
    if shown == "/" or not (own == shown or own.startswith(shown.rstrip("/") + "/")):
        return own
    return own[len(shown.rstrip("/")) :] or "/"


def _mount(controller: str) -> tuple[str, str] | None:
    """Where the v1 hierarchy of `controller` is mounted, writable, and the group it
    shows there (a container's mount may show its own group as the mount's root), from
    /proc/self/mountinfo."""
    return _mount_of(Path("/proc/self/mountinfo").read_text(), "cgroup", controller)


def _mount_of(mountinfo: str, kind: str, controller: str | None) -> tuple[str, str] | None:
    """The first writable mount of filesystem `kind` (with `controller` among its
    options, if given) in the text of a mountinfo file: where, and the group shown."""
    for line in mountinfo.splitlines():
        before, _, after = line.partition(" - ")
        fields, tail = before.split(), after.split()
        if len(fields) < 6 or tail[:1] != [kind]:
            continue
        options = tail[2].split(",") if len(tail) >= 3 else []
        if (controller is None or controller in options) and "rw" in fields[5].split(","):
            return fields[4], fields[3]
    return None


def _sweep(root: Path) -> None:
    """Remove the empty groups of arena processes that are gone (killed before they
    could remove them); a group with a process in it cannot be removed, so this never
    takes a live bot's."""
    with contextlib.suppress(OSError):
        for entry in root.iterdir():
            name = entry.name
            if not name.startswith(_PREFIX):
                continue
            pid = name[len(_PREFIX) :].split("-", 1)[0]
            if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                with contextlib.suppress(OSError):
                    entry.rmdir()
