"""Building bots: a bot's build command run in its folder (`build`), in the sandbox
(`arena.bots._sandboxed`) or not, with its limits; the cache of successful builds
(`build_is_cached`); and a set of bots built in a worker thread that a stop (Ctrl-C,
SIGTERM, a hang-up) cuts short: `run_builds`, for a league, an SPRT, a match and a
check alike."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shlex
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import trio

from arena.bots._manifest import BotSpec, _unreadable, check_tree, resolve_command, walk_tree
from arena.bots._running import BUILD_STOP, BuildsStopped, BuildStop, run_build
from arena.errors import BuildError, ManifestError

T = TypeVar("T")


async def run_builds(specs: Sequence[BotSpec], build_all: Callable[..., T], *args: Any) -> T:
    """`build_all(*args)`, which builds `specs`, in a worker thread. A stop (Ctrl-C,
    SIGTERM, a hang-up) kills the build in progress and starts no other, then waits
    for the thread: a sandboxed build gives the submission folder back to its owner on
    its way out. Run in the trio thread, SIGTERM and a hang-up waited for the build to
    end (up to its timeout, 10 minutes by default). With nothing to build it runs here:
    no thread (nor, under a test's virtual clock, its real time racing the test's)."""
    if all(spec.build is None for spec in specs):
        return build_all(*args)
    stop = BuildStop()
    done: list[T] = []

    async def stop_on_cancel() -> None:
        try:
            await trio.sleep_forever()
        finally:
            stop.stop()

    async def in_thread(nursery: trio.Nursery) -> None:
        try:
            done.append(await trio.to_thread.run_sync(build_all, *args))
        except BuildsStopped:  # by the cancellation that this raises
            await trio.lowlevel.checkpoint()
            raise
        nursery.cancel_scope.cancel()

    # The wait for the thread is a child task's: Ctrl-C's KeyboardInterrupt goes to the
    # main task, which a thread's wait does not let go (it waited for the build), and
    # which the nursery's wait does.
    reset = BUILD_STOP.set(stop)  # the tasks, and the thread, run in copies of this context
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(stop_on_cancel)
            nursery.start_soon(in_thread, nursery)
    finally:
        BUILD_STOP.reset(reset)
    return done[0]


BUILD_TIMEOUT = 600.0
"""Seconds a build may take by default."""

BUILD_DISK_MB = 4096
"""The most a build may add to its folder, in MiB: past it the build is killed (the
sandbox lets a build write files of up to 1 GiB each, and nothing else bounds their sum;
its /tmp and HOME are in memory, and bounded)."""

BUILD_MEMORY_MB = 2048
"""The memory of a sandboxed build's processes together, in MiB, where arena can make
memory groups (as root on cgroup v1, or on v2: `arena._memgroups`); past it the kernel kills one
of the build's processes. Elsewhere a build has its per-process limits alone."""


# -- the build cache ---------------------------------------------------------------------
#
# A build that succeeded leaves a record named by what it left: the folder's path, its
# submission's digest, and the name, size, mode, mtime and inode of everything in it,
# build outputs and caches included (the digest skips them), with how it was built.
# When a league resumes, or another league, SPRT or check takes the same folder, a
# folder that is still exactly as a successful build left it is not built again
# (`--rebuild` builds it anyway); one whose outputs were deleted (`cargo clean`), or a
# fresh copy elsewhere, is.


def build_cache_dir() -> Path:
    """Where the records of successful builds are kept: $XDG_CACHE_HOME/arena/builds,
    else ~/.cache/arena/builds."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "arena" / "builds"


def _build_record(spec: BotSpec, sandbox: str, network: bool) -> Path:
    """The record a successful build of `spec`'s folder as it is now would have left;
    raises ManifestError as `BotSpec.digest` and `walk_tree` do."""
    assert spec.folder is not None
    h = hashlib.sha256()
    h.update(repr((os.path.realpath(spec.folder), spec.digest(), sandbox, network)).encode())
    for rel, _, entry, _ in walk_tree(spec.name, spec.folder):
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError as err:
            raise _unreadable(spec.name, rel, err) from None
        h.update(os.fsencode(rel) + b"\0")
        h.update(repr((info.st_mode, info.st_size, info.st_mtime_ns, info.st_ino)).encode())
    return build_cache_dir() / h.hexdigest()


def build_is_cached(spec: BotSpec, *, sandbox: str = "none", network: bool = False) -> bool:
    """Whether `spec`'s folder is exactly as a successful build (made the same way) left
    it, so that `build` will not run its build again; raises ManifestError as
    `BotSpec.digest` does."""
    if spec.build is None or spec.folder is None:
        return False
    return _build_record(spec, sandbox, network).is_file()


def _remember_build(spec: BotSpec, sandbox: str, network: bool) -> None:
    """Record `spec`'s successful build; a cache that cannot be written only means the
    next run builds again."""
    with contextlib.suppress(OSError, ManifestError):
        record = _build_record(spec, sandbox, network)
        record.parent.mkdir(parents=True, exist_ok=True)
        partial = record.with_name(f"{record.name}.{os.getpid()}.part")
        partial.write_text(f"{spec.name}\t{spec.folder}\t{time.time():.0f}\n")
        os.replace(partial, record)


def build(
    spec: BotSpec,
    *,
    sandbox: str = "none",
    network: bool = False,
    timeout: float = BUILD_TIMEOUT,
    log_path: Path | None = None,
    log_kb: int = 1024,
    disk_mb: int = BUILD_DISK_MB,
    memory_mb: int = BUILD_MEMORY_MB,
    rebuild: bool = False,
) -> str:
    """Run the bot's build command in its folder; returns its output, raises BuildError.
    A folder that a successful build left as it is now is not built again
    (`build_is_cached`) unless `rebuild`.

    With `sandbox` "bwrap" the build runs under bubblewrap as the bot will (see
    `arena.sandbox.sandboxed_build`): its own folder writable, the toolchains visible
    read-only, no network unless `network`. It is killed after `timeout` seconds, or
    once it has added more than `disk_mb` MiB to its folder. Its output goes to the
    bot's log at `log_path` too (within the log's cap of `log_kb`);
    `MachineError` if that log cannot be written.
    """
    if spec.build is None or spec.folder is None:
        return ""
    if not rebuild and build_is_cached(spec, sandbox=sandbox, network=network):
        return ""
    command = resolve_command(spec.build, spec.folder)
    try:
        if sandbox == "bwrap":
            from arena.bots._sandboxed import sandboxed_build

            code, data = sandboxed_build(
                command,
                spec.folder,
                network=network,
                timeout=timeout,
                disk_mb=disk_mb,
                memory_mb=memory_mb,
            )
        else:
            disk = ([spec.folder], disk_mb)
            code, data = run_build(command, spec.folder, timeout=timeout, disk=disk)
    except OSError as err:
        raise BuildError(f"{spec.name}: build failed: {err}") from None
    except BuildError as err:  # killed for its disk use
        raise BuildError(f"{spec.name}: {err}") from None
    output: str = data.decode(errors="replace")
    if log_path is not None:
        _log_build(log_path, log_kb, command, code, data)
    if code is None:
        hint = _no_network_hint(output) if sandbox == "bwrap" and not network else ""
        raise BuildError(f"{spec.name}: build did not finish in {timeout:g} s{hint}")
    if code != 0:
        tail = "\n".join(output.strip().splitlines()[-5:])
        hint = _no_network_hint(output) if sandbox == "bwrap" and not network else ""
        where = f" (the whole output: {log_path})" if log_path is not None else ""
        raise BuildError(f"{spec.name}: build exited with status {code}{where}: {tail}{hint}")
    try:
        check_tree(spec.name, spec.folder)  # what the build made, build outputs included
    except ManifestError as err:
        raise BuildError(f"{err} (after its build)") from None
    _remember_build(spec, sandbox, network)
    return output


_NO_NETWORK = re.compile(
    r"EAI_AGAIN|ENOTFOUND|ENETUNREACH|Temporary failure in name resolution|"
    r"Could not resolve host|Name or service not known|Network is unreachable|"
    r"network is unreachable|dial tcp|no such host|failed to download|"
    r"Could not transfer artifact|UnknownHostException|spurious network error"
)
"""What a toolchain says when it cannot reach the network (npm, pip, cargo, go, maven)."""


def _no_network_hint(output: str) -> str:
    """For a sandboxed build that failed trying to reach the network, what to do."""
    if not _NO_NETWORK.search(output):
        return ""
    return (
        "\n(a sandboxed build has no network: vendor its dependencies into the bot's folder"
        " before handing it in, as the kits' fetch.sh do, or let builds use the network with"
        " --build-network. Paths the build printed under its HOME or TMPDIR, such as npm's"
        " log, are gone: its whole output is in the bot's log, see --log-dir; SPEC §14.3)"
    )


def _log_build(path: Path, kb: int, command: Sequence[str], code: int | None, data: bytes) -> None:
    from arena.bots._process import CappedLog

    log = CappedLog(path, kb * 1024)  # MachineError if it cannot be written
    status = "timed out" if code is None else f"exit status {code}"
    log.write(f"[arena: build {shlex.join(command)}: {status}]\n".encode() + data + b"\n")
    log.close()
