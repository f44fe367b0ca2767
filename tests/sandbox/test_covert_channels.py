"""Covert channels between bot processes that run at the same time (the table of
attacks in docs/fair-play.md; SPEC §14.6).

Two processes see the same files: a bot's processes share its read-only submission
folder, and every bot sees /usr and arena's Python. The kernel keeps a file's locks
and watches for the file, not for a mount namespace, so without more a lock taken by
one process, or an open seen by an inotify or dnotify watch, signals to the other: a
bot's process in one game of a deal could tell its process in another game of the
same deal an opponent's hand, and two colluding bots at one table their own.

Here one process of a bot holds every kind of lock on a file of its folder and opens
it again and again, and a second process of the same bot, in its own sandbox, probes
for them. Without the sandbox every probe sees the other process (the control: the
channels are real); under the sandbox none does.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Any

import pytest
import trio

import arena.sandbox
from arena.bots import BotProcess, BotSpec, Limits, start_process
from arena.sandbox import bwrap_wrap

from .helpers import needs_bwrap, one_after_another, wait_for

HOLDER = textwrap.dedent(
    """
    import fcntl, json, os, struct, sys, time
    fd = os.open("bot.py", os.O_RDONLY)
    held = {}
    def attempt(name, call):
        try:
            call()
            held[name] = "ok"
        except OSError as err:
            held[name] = err.errno
    attempt("flock", lambda: fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB))
    attempt("posix", lambda: fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB))
    ofd = struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 0, 0)
    attempt("ofd", lambda: fcntl.fcntl(os.open("bot.py", os.O_RDONLY), 37, ofd))
    print("HELD " + json.dumps(held), file=sys.stderr, flush=True)
    end = time.monotonic() + 20
    while time.monotonic() < end:  # opens for a watch to see, until killed
        os.close(os.open("bot.py", os.O_RDONLY))
        time.sleep(0.02)
    """
)

PROBER = textwrap.dedent(
    """
    import ctypes, errno, fcntl, json, os, select, struct, sys, time
    out = {}
    def code(err):
        return errno.errorcode.get(err.errno, str(err.errno))
    fd = os.open("bot.py", os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        out["flock"] = "granted"
    except OSError as err:
        out["flock"] = code(err)  # EWOULDBLOCK: the other process holds it
    for name, cmd in (("getlk", fcntl.F_GETLK), ("ofd_getlk", 36)):
        query = struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0)
        try:
            kind = struct.unpack("hhqqi", fcntl.fcntl(fd, cmd, query))[0]
            out[name] = "locked" if kind != fcntl.F_UNLCK else "free"
        except OSError as err:
            out[name] = code(err)
    libc = ctypes.CDLL(None, use_errno=True)
    watch = libc.inotify_init1(os.O_NONBLOCK)
    if watch < 0:
        out["inotify"] = errno.errorcode.get(ctypes.get_errno(), "?")
    else:
        libc.inotify_add_watch(watch, b"bot.py", 0x20)  # IN_OPEN
        seen = select.select([watch], [], [], 2.0)[0]
        out["inotify"] = "saw an open" if seen else "nothing"
    try:
        fcntl.fcntl(os.open(".", os.O_RDONLY), fcntl.F_NOTIFY, fcntl.DN_ACCESS)
        out["dnotify"] = "set"
    except OSError as err:
        out["dnotify"] = code(err)
    print("PROBE " + json.dumps(out), file=sys.stderr, flush=True)
    """
)


def spec(folder: Path, script: str, name: str) -> BotSpec:
    return BotSpec(name=name, command=("python3", "-c", script), folder=folder)


async def probe(tmp_path: Path, sandboxed: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """What the holder got, and what the prober saw of it."""
    folder = tmp_path / "bot"
    folder.mkdir(mode=0o755)
    (folder / "bot.py").write_text("# the file both processes see\n")
    (folder / "bot.py").chmod(0o644)
    wrap = bwrap_wrap() if sandboxed else None
    async with trio.open_nursery() as nursery:

        async def start(name: str, script: str) -> BotProcess:
            return await start_process(
                spec(folder, script, name),
                nursery,
                limits=Limits(),
                log_path=tmp_path / f"{name}.log",
                wrap=wrap,
            )

        holder = await start("holder", HOLDER)
        try:
            held = await wait_for(tmp_path / "holder.log", "HELD ")
            prober = await start("prober", PROBER)
            try:
                seen = await wait_for(tmp_path / "prober.log", "PROBE ")
            finally:
                await prober.kill(1.0)
        finally:
            await holder.kill(1.0)
        nursery.cancel_scope.cancel()
    return held, seen


async def test_without_the_sandbox_locks_and_watches_cross_between_processes(
    tmp_path: Path,
) -> None:
    """The control: the channels the sandbox closes are real."""
    held, seen = await probe(tmp_path, sandboxed=False)
    assert held == {"flock": "ok", "posix": "ok", "ofd": "ok"}
    assert seen["flock"] == "EAGAIN"
    assert seen["getlk"] == "locked"
    assert seen["ofd_getlk"] == "locked"
    assert seen["inotify"] == "saw an open"
    assert seen["dnotify"] == "set"


@needs_bwrap
async def test_under_the_sandbox_no_lock_or_watch_crosses_between_processes(
    tmp_path: Path,
) -> None:
    """Locks are granted and hold nothing (a runtime that locks its own files, like the
    JVM, runs on), a lock cannot be queried, and no watch can be set."""
    held, seen = await probe(tmp_path, sandboxed=True)
    assert held == {"flock": "ok", "posix": "ok", "ofd": "ok"}
    assert seen == {
        "flock": "granted",
        "getlk": "ENOLCK",
        "ofd_getlk": "ENOLCK",
        "inotify": "ENOSYS",
        "dnotify": "EPERM",
    }


WRITE_LOCKER = textwrap.dedent(
    """
    import errno, fcntl, json, os, struct, sys, time
    fd = os.open("/dev/null", os.O_RDWR)  # the machine's node: every sandbox's /dev/null
    out = {}
    for byte, (name, cmd) in enumerate((("posix", fcntl.F_SETLK), ("ofd", 37))):
        lock = struct.pack("hhqqi", fcntl.F_WRLCK, 0, byte, 1, 0)  # 37: F_OFD_SETLK
        try:
            fcntl.fcntl(fd, cmd, lock)
            out[name] = "ok"
        except OSError as err:
            out[name] = errno.errorcode.get(err.errno, str(err.errno))
    print("LOCKED " + json.dumps(out), file=sys.stderr, flush=True)
    time.sleep(600)  # holding them, until killed
    """
)


@pytest.mark.parametrize("sandboxed", [pytest.param(True, marks=needs_bwrap), False])
async def test_a_write_lock_on_a_shared_device_node_tells_another_sandbox_nothing(
    tmp_path: Path, sandboxed: bool
) -> None:
    """/dev/null is writable, and one inode for every sandbox: a write lock taken on
    it by one process, a POSIX one or an open file description's (F_OFD_SETLK), made
    the same lock fail for a process of another sandbox (EAGAIN), a bit per byte range.
    Under the sandbox both are granted, to both, and hold nothing."""
    folder = tmp_path / "bot"
    folder.mkdir(mode=0o755)
    wrap = bwrap_wrap() if sandboxed else None
    got = []
    async with trio.open_nursery() as nursery:
        processes = []
        try:
            for name in ("first", "second"):
                processes.append(
                    await start_process(
                        spec(folder, WRITE_LOCKER, name),
                        nursery,
                        limits=Limits(),
                        log_path=tmp_path / f"{name}.log",
                        wrap=wrap,
                    )
                )
                got.append(await wait_for(tmp_path / f"{name}.log", "LOCKED "))
        finally:
            for process in processes:
                await process.kill(1.0)
        nursery.cancel_scope.cancel()
    assert got[0] == {"posix": "ok", "ofd": "ok"}
    if sandboxed:
        assert got[1] == {"posix": "ok", "ofd": "ok"}
    else:  # the control: the channel is real
        assert got[1] == {"posix": "EAGAIN", "ofd": "EAGAIN"}


@needs_bwrap
def test_a_build_keeps_its_locks() -> None:
    """A build plays no game, and its tools (cargo, maven) lock their own files: it
    gets no allow-list."""
    assert bwrap_wrap(build=True).seccomp is None
    assert bwrap_wrap().seccomp is not None


@needs_bwrap
def test_without_the_allowlist_bots_are_not_stopped_between_turns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On an architecture the allow-list does not know, a bot could leave its
    process group, so arena must not rely on stopping it (SPEC §8.5), even when the
    user-namespace filter (as root) still gives bwrap a program."""
    monkeypatch.setattr(arena.sandbox, "allowlist_program", lambda: None)
    wrap = bwrap_wrap()
    assert not wrap.contained
    assert (wrap.seccomp is not None) == (os.geteuid() == 0)
    monkeypatch.undo()
    assert bwrap_wrap().contained


KEYS = textwrap.dedent(
    """
    import ctypes, errno, json, os, platform, sys
    # keyctl, add_key: their numbers on this machine (x86_64 or aarch64)
    KEYCTL, ADD_KEY = {"aarch64": (219, 217)}.get(platform.machine(), (250, 248))
    JOIN, SETPERM, LINK, SEARCH, READ, INVALIDATE, PERSISTENT = 1, 5, 8, 10, 11, 21, 22
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    def call(*args):
        got = libc.syscall(*args)
        if got < 0:
            raise OSError(ctypes.get_errno(), "")
        return got
    out = {}
    try:
        ring = call(KEYCTL, JOIN, b"arena-channel")  # made, or joined if it exists
        if sys.argv[-1] == "write":
            call(KEYCTL, SETPERM, ctypes.c_long(ring), ctypes.c_ulong(0x3F3F3F3F))
            key = call(ADD_KEY, b"user", b"hand", b"7 8 9", 5, ctypes.c_long(ring))
            call(KEYCTL, SETPERM, ctypes.c_long(key), ctypes.c_ulong(0x3F3F3F3F))
            # Held by the user's persistent keyring (for days), it outlives the process.
            kept = call(KEYCTL, PERSISTENT, ctypes.c_long(-1), ctypes.c_long(-2))
            call(KEYCTL, LINK, ctypes.c_long(ring), ctypes.c_long(kept))
            out["wrote"] = True
        else:
            try:
                key = call(KEYCTL, SEARCH, ctypes.c_long(ring), b"user", b"hand", 0)
                data = ctypes.create_string_buffer(64)
                size = call(KEYCTL, READ, ctypes.c_long(key), data, 64)
                out["read"] = data.raw[:size].decode()
            finally:
                call(KEYCTL, INVALIDATE, ctypes.c_long(ring))  # leave nothing behind
    except OSError as err:
        out["error"] = errno.errorcode.get(err.errno, str(err.errno))
    print("KEYS " + json.dumps(out), file=sys.stderr, flush=True)
    """
)


async def keyring_relay(tmp_path: Path, sandboxed: bool) -> list[dict[str, Any]]:
    """A process names a keyring, puts a key in it and has the user's persistent
    keyring hold it, then exits; a later process (another uid, as root under the
    sandbox) joins the keyring by its name."""
    folder = tmp_path / "bot"
    folder.mkdir(mode=0o755)
    scripts = [
        ("writer", KEYS.replace("sys.argv[-1]", '"write"'), "KEYS "),
        ("reader", KEYS, "KEYS "),
    ]
    return await one_after_another(tmp_path, folder, scripts, bwrap_wrap() if sandboxed else None)


async def test_without_the_sandbox_a_named_keyring_carries_a_key_across_processes(
    tmp_path: Path,
) -> None:
    """The control: the kernel's keyrings outlive the process that made them, and
    a later process finds one by its name."""
    wrote, read = await keyring_relay(tmp_path, sandboxed=False)
    assert wrote == {"wrote": True}
    assert read == {"read": "7 8 9"}


@needs_bwrap
async def test_under_the_sandbox_the_keyrings_are_out_of_reach(tmp_path: Path) -> None:
    """Without a user namespace of their own (arena as root) all sandboxes share the
    keyrings' names: add_key, request_key and keyctl are absent (ENOSYS)."""
    wrote, read = await keyring_relay(tmp_path, sandboxed=True)
    assert wrote == {"error": "ENOSYS"}
    assert read == {"error": "ENOSYS"}


TIMES = textwrap.dedent(
    """
    import errno, json, os, sys, time
    DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty")
    GAP_MS = 173
    def mtime(device):
        return os.stat(device).st_mtime_ns
    out = {}
    if sys.argv[-1] == "write":
        for device in DEVICES:  # each set to now: every process may (they are 0666)
            before = mtime(device)
            try:
                os.utime(device)
                out[device] = "changed" if mtime(device) != before else "unchanged"
            except OSError as err:
                out[device] = errno.errorcode.get(err.errno, str(err.errno))
        # A number: /dev/full's time set GAP_MS after /dev/zero's.
        os.utime("/dev/zero")
        end = time.monotonic() + 2 * GAP_MS / 1000
        while time.monotonic() < end and mtime("/dev/full") - mtime("/dev/zero") < GAP_MS * 10**6:
            os.utime("/dev/full")
    out["gap_ms"] = (mtime("/dev/full") - mtime("/dev/zero")) // 10**6
    print("TIMES " + json.dumps(out), file=sys.stderr, flush=True)
    """
)


async def times_relay(tmp_path: Path, sandboxed: bool) -> list[dict[str, Any]]:
    """A process sets the times of the device nodes every sandbox sees (the host's own,
    bound in: their inodes are the machine's), the gap between two of them a number,
    then exits; a later process, in a sandbox of its own, reads the gap."""
    folder = tmp_path / "bot"
    folder.mkdir(mode=0o755)
    scripts = [
        ("writer", TIMES.replace("sys.argv[-1]", '"write"'), "TIMES "),
        ("reader", TIMES, "TIMES "),
    ]
    return await one_after_another(tmp_path, folder, scripts, bwrap_wrap() if sandboxed else None)


async def test_without_the_sandbox_the_times_of_dev_null_carry_a_number(tmp_path: Path) -> None:
    """The control: /dev/null and its kind are 0666, so any process may set their times
    to now (utimensat with no times), and any later process reads them."""
    wrote, read = await times_relay(tmp_path, sandboxed=False)
    assert set(wrote.values()) - {wrote["gap_ms"]} == {"changed"}
    assert wrote["gap_ms"] >= 173
    assert read["gap_ms"] == wrote["gap_ms"]


@needs_bwrap
async def test_under_the_sandbox_setting_a_files_times_changes_nothing(tmp_path: Path) -> None:
    """Found in an audit: a bot process set the times of /dev/zero and /dev/full 173 ms
    apart, exited, and a process of another sandbox read 173 (the device nodes bwrap
    binds into /dev are the host's, their mounts writable, and a time set to now needs
    no more than write permission): any number, from any bot to any other, at once or
    in a later game. Now utime, utimes, utimensat and futimesat succeed without setting
    anything."""
    wrote, read = await times_relay(tmp_path, sandboxed=True)
    devices = {k: v for k, v in wrote.items() if k != "gap_ms"}
    assert set(devices.values()) == {"unchanged"}, devices
    assert read["gap_ms"] == wrote["gap_ms"]
