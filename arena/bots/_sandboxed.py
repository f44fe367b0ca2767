"""A bot's build in the sandbox: `sandboxed_build`, which `arena.bots.build` runs for a
sandboxed league, match, SPRT or check. It sees what the bot will see (`arena.sandbox`),
with its own folder writable; run by root, as a uid of its own."""

from __future__ import annotations

import contextlib
import os
import resource
import secrets
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from arena._memgroups import groups_root, joined, new_group, release_group
from arena.bots._manifest import BotSpec
from arena.bots._running import run_build
from arena.errors import ManifestError
from arena.sandbox import UID_BASE, UID_SPAN, build_env, bwrap_wrap, check_apart, is_root

BUILD_TMP_MB = 512
"""Size of a sandboxed build's private temporary folder, in MiB."""

BUILD_LIMITS = ((resource.RLIMIT_NPROC, 1024), (resource.RLIMIT_FSIZE, 1 << 30))
"""A build's resource limits: processes of its user (compilers run many), largest file;
its time is bounded by the build timeout."""


def check_sandboxed_apart(specs: Sequence[BotSpec], sandbox: str) -> None:
    """In the sandbox (`sandbox` "bwrap"), refuse (ConfigError) bots whose folder the
    sandbox would show the other bots or their builds (`arena.sandbox.check_apart`:
    a folder inside arena's Python, or inside a folder on the PATH when another bot
    is built). Unconfined, every bot reads every folder anyway."""
    if sandbox == "bwrap":
        check_apart([(spec.name, spec.folder, spec.build is not None) for spec in specs])


def sandboxed_build(
    command: list[str],
    folder: Path,
    *,
    network: bool,
    timeout: float,
    disk_mb: int | None = None,
    memory_mb: int = 2048,
) -> tuple[int | None, bytes]:
    """Run a bot's build command under bubblewrap; (exit status or None on timeout, output).

    The build sees what the bot will see, its folder writable and the toolchains
    read-only (`bwrap_wrap(build=True)`), and no network unless `network`. Run by root,
    it runs as a uid of its own: the folder is handed to that uid for the build and
    given back to its owner afterwards (links are never followed), so a build can
    read nothing of the host that the bot could not, /etc/shadow and other bots
    included. With `disk_mb`, a build that adds more than that to its folder is killed
    (BuildError). Its processes together may touch `memory_mb` MiB where arena can make
    memory groups (as root on cgroup v1, or on v2: `arena._memgroups`); past it the kernel kills
    one of them. Elsewhere a build has its per-process limits alone.
    """
    wrap = bwrap_wrap(tmp_mb=BUILD_TMP_MB, build=True, network=network)
    owner = folder.stat()
    uid = UID_BASE + secrets.randbelow(UID_SPAN) if is_root() else None
    own_copies(folder)
    group = None
    if (memory := groups_root()) is not None:
        with contextlib.suppress(OSError):  # (the machine's groups changed: limits alone)
            group = new_group(memory, memory_mb * 1024 * 1024)
    with tempfile.TemporaryDirectory(prefix="arena-build-") as home:
        try:
            if uid is not None:
                _chown_tree(folder, uid, uid)
            wrapped = wrap(command, Path(home), folder)
            if group is not None:  # every process of the build is born in its group
                wrapped = joined(wrapped, group)
            env = {"PATH": os.environ.get("PATH", os.defpath), "LANG": "C.UTF-8", **build_env()}
            env |= {"HOME": home, "TMPDIR": home}

            deny_userns = getattr(wrap, "preexec", None)

            def limits() -> None:
                for which, value in BUILD_LIMITS:
                    resource.setrlimit(which, (value, value))
                if deny_userns is not None:
                    deny_userns()

            # Its HOME and TMPDIR are the sandbox's /tmp, in memory and bounded: only the
            # folder is on the disk.
            disk = ([folder], disk_mb) if disk_mb is not None else None
            return run_build(
                wrapped, folder, timeout=timeout, env=env, preexec_fn=limits, disk=disk
            )
        finally:
            if group is not None:
                release_group(group)
            if uid is not None:
                _chown_tree(folder, owner.st_uid, owner.st_gid)


def own_copies(folder: Path) -> None:
    """Give every file of `folder` with another hard link a copy of its own, before a
    build may write it: a submission whose files share their inodes with another's (an
    organiser who de-duplicates with `cp -al` or rdfind) let one bot's build rewrite
    the other's files (its uid owns the shared inode once the folder is handed to it).
    Raises ManifestError if a copy cannot be made."""
    stack = [str(folder)]
    while stack:
        top = stack.pop()
        with os.scandir(top) as entries:
            for entry in entries:
                info = entry.stat(follow_symlinks=False)
                if stat.S_ISDIR(info.st_mode):
                    stack.append(entry.path)
                elif stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
                    copy = f"{entry.path}.arena-copy"
                    try:
                        shutil.copy2(entry.path, copy, follow_symlinks=False)
                        os.replace(copy, entry.path)
                    except OSError as err:
                        with contextlib.suppress(OSError):
                            os.unlink(copy)
                        raise ManifestError(
                            f"{entry.path} is a hard link shared with another file, and"
                            f" arena could not give the build a copy of its own: {err.strerror}"
                        ) from None


def _chown_tree(folder: Path, uid: int, gid: int) -> None:
    """Give `folder` and everything in it to uid:gid, never following a link: GNU
    chown, whose walk takes a tree of any depth (Python's recursed once per level, and a
    build could nest its folder past that), in a session of its own (the terminal's
    Ctrl-C would cut the hand-back short). Raises OSError if it fails."""
    done = subprocess.run(
        ["chown", "-R", "-P", "-h", f"{uid}:{gid}", "--", str(folder)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        check=False,
        start_new_session=True,
    )
    if done.returncode != 0:
        lines = done.stderr.decode(errors="replace").strip().splitlines()
        status = done.returncode
        ended = f"killed by signal {-status}" if status < 0 else f"exited with status {status}"
        why = lines[-1] if lines else f"chown {ended}"
        raise OSError(f"cannot give {folder} to {uid}:{gid}: {why}")
