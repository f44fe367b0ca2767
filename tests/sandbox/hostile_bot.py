"""A hostile bot: one attack when it starts, then legal play.

    python3 bot.py ATTACK [ARG ...] TOKEN

ATTACK is one of the functions in ATTACKS; TOKEN (the last word) only marks the
process so that a test can find strays. What the attack achieved goes to stderr as
one line, `REPORT {json}`, which the test reads from the bot's log. Then the bot
answers every request with choice 0 (always legal), so results are deterministic.

It speaks raw msgpack (4-byte big-endian length, then the map) and imports nothing
of arena or `protocol`: it must run anywhere the sandbox lets Python run.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import signal
import socket
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack

Report = dict[str, Any]


def _error(err: BaseException) -> str:
    if isinstance(err, OSError) and err.errno is not None:
        return errno.errorcode.get(err.errno, str(err.errno))
    return type(err).__name__


def none() -> Report:
    """No attack: the reference bot."""
    return {}


def read_other(secret: str) -> Report:
    """Read another bot's file, and list the folder that holds the submissions."""
    out: Report = {}
    try:
        out["secret"] = Path(secret).read_text()
    except OSError as err:
        out["secret_error"] = _error(err)
    try:
        out["listing"] = sorted(os.listdir(Path(secret).parent.parent))
    except OSError as err:
        out["listing_error"] = _error(err)
    return out


def store(path: str) -> Report:
    """Read the results store (its tables and their sizes), then write into it."""
    out: Report = {}
    try:
        db = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=5)
        tables = [t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        out["rows"] = {t: db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}
        with db:
            db.execute("CREATE TABLE pwned (note TEXT)")
            db.execute("INSERT INTO pwned VALUES ('written by hostile')")
        db.close()
        out["wrote"] = True
    except (sqlite3.Error, OSError) as err:
        out["error"] = str(err)
    return out


def proc(pid: str, address: str, length: str) -> Report:
    """Read the referee's environment and memory through /proc; list what /proc shows."""
    out: Report = {}
    try:
        out["environ_sha256"] = hashlib.sha256(
            Path(f"/proc/{pid}/environ").read_bytes()
        ).hexdigest()
    except OSError as err:
        out["environ_error"] = _error(err)
    try:
        with open(f"/proc/{pid}/mem", "rb") as mem:
            mem.seek(int(address))
            out["memory"] = mem.read(int(length)).hex()
    except OSError as err:
        out["memory_error"] = _error(err)
    visible = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                raw = Path(f"/proc/{entry}/cmdline").read_bytes()
                visible[entry] = raw.replace(b"\0", b" ").decode(errors="replace")[:200]
    out["visible"] = visible
    return out


def network(port: str, abstract: str) -> Report:
    """Reach a TCP service on the host's loopback and an abstract unix socket."""
    out: Report = {}
    try:
        with socket.create_connection(("127.0.0.1", int(port)), timeout=2) as conn:
            conn.sendall(b"tcp from hostile")
        out["tcp"] = "sent"
    except OSError as err:
        out["tcp_error"] = _error(err)
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(2)
            conn.connect("\0" + abstract)
            conn.sendall(b"unix from hostile")
        out["unix"] = "sent"
    except OSError as err:
        out["unix_error"] = _error(err)
    return out


def write_outside(marker: str) -> Report:
    """Write a file outside the private folder, into its own folder, and into HOME."""
    out: Report = {}
    for key, path in [
        ("marker", Path(marker)),
        ("own_folder", Path.cwd() / "planted.txt"),
        ("home", Path(os.environ["HOME"]) / "scratch.txt"),
    ]:
        try:
            path.write_text("written by hostile\n")
            out[key] = "written"
        except OSError as err:
            out[key] = _error(err)
    return out


def kill(victim: str, pid: str) -> Report:
    """SIGKILL every process whose command line holds `victim`, and process `pid`.

    The bots of a table start at the same time, so it looks for up to 3 s until it has
    seen a victim (in a sandbox it sees none and gives up then)."""
    out: Report = {"killed": [], "errors": []}
    me = os.getpid()
    end = time.monotonic() + 3
    while not (out["killed"] or out["errors"]) and time.monotonic() < end:
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) == me:
                continue
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if victim.encode() in cmdline:
                try:
                    os.kill(int(entry), signal.SIGKILL)
                    out["killed"].append(entry)
                except OSError as err:
                    out["errors"].append(_error(err))
        time.sleep(0.05)
    try:
        os.kill(int(pid), signal.SIGKILL)
        out["pid"] = "killed"
    except OSError as err:
        out["pid"] = _error(err)
    return out


def fork_bomb(seconds: str, cap: str) -> Report:
    """Fork for `seconds` (at most `cap` children, each sleeping a little longer)."""
    made = failed = 0
    last = None
    end = time.monotonic() + float(seconds)
    while time.monotonic() < end and made < int(cap):
        try:
            child = os.fork()
        except OSError as err:
            failed += 1
            last = _error(err)
            time.sleep(0.01)
            continue
        if child == 0:
            time.sleep(float(seconds) + 2)
            os._exit(0)
        made += 1
    return {"made": made, "failed": failed, "error": last}


def fill_disk(cap_mb: str) -> Report:
    """Write up to `cap_mb` MiB into HOME, a new file whenever one is refused."""
    chunk = b"x" * (1024 * 1024)
    written = files = 0
    last = None
    home = Path(os.environ["HOME"])
    while written < int(cap_mb) and files < 64:
        files += 1
        try:
            with open(home / f"fill-{files}", "wb", buffering=0) as f:
                while written < int(cap_mb):
                    f.write(chunk)
                    written += 1
        except OSError as err:
            last = _error(err)
            if err.errno != errno.EFBIG:  # EFBIG: one file is full, try another
                break
    return {"written_mb": written, "files": files, "error": last}


def memory(mb: str) -> Report:
    """Allocate `mb` MiB at once."""
    try:
        block = bytearray(int(mb) * 1024 * 1024)
        return {"allocated": len(block) // (1024 * 1024)}
    except MemoryError:
        return {"error": "MemoryError"}


def _ends(pids: list[int]) -> list[str]:
    """How each child of `pids` ended ("exit", or "signal N"), once it has."""
    ends = []
    for pid in pids:
        _, status = os.waitpid(pid, 0)
        ends.append(f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else "exit")
    return ends


def memory_children(count: str, mb: str) -> Report:
    """Fork `count` children that each touch `mb` MiB (every page) and hold it a moment:
    each within the per-process limit, together past it. Reports how each ended."""
    pids = []
    for _ in range(int(count)):
        pid = os.fork()
        if pid == 0:
            try:
                size = int(mb) * 1024 * 1024
                block = bytearray(size)
                block[::4096] = b"x" * (size // 4096)  # touched: resident, not just reserved
                time.sleep(1.0)
            finally:
                os._exit(0)
        pids.append(pid)
    ends = _ends(pids)
    return {"ends": ends}


def memory_outside(kind: str, count: str, mb: str) -> Report:
    """Fork `count` children that each hold `mb` MiB outside their address space, in
    pieces of 4 MiB (within the tests' file size limit): memfds written and never
    mapped (`memfd`), or System V shared memory segments attached, touched and
    detached (`sysv`). Reports how each ended, then removes the segments (they
    outlive their maker)."""
    import ctypes

    piece = 4 * 1024 * 1024
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    pids = []
    for _ in range(int(count)):
        pid = os.fork()
        if pid == 0:
            try:
                held = []
                for _ in range(int(mb) // 4):
                    if kind == "memfd":
                        fd = os.memfd_create("held")
                        os.write(fd, b"x" * piece)
                        held.append(fd)
                    else:
                        segment = libc.shmget(0, ctypes.c_size_t(piece), 0o1600)
                        address = libc.shmat(segment, None, 0)
                        ctypes.memset(address, 1, piece)
                        libc.shmdt(ctypes.c_void_p(address))
                time.sleep(1.0)
            finally:
                os._exit(0)
        pids.append(pid)
    ends = _ends(pids)
    with contextlib.suppress(OSError):
        for line in Path("/proc/sysvipc/shm").read_text().splitlines()[1:]:
            libc.shmctl(int(line.split()[1]), 0, None)  # IPC_RMID
    return {"ends": ends}


FILL = [0]
"""MiB to write to $TMPDIR at the first act (the `fill_at_act` bot)."""


def fill_at_act(mb: str) -> Report:
    """At its first act, write `mb` MiB to its private /tmp (memory: a tmpfs)."""
    FILL[0] = int(mb)
    return {}


def fill_tmp(mb: str) -> Report:
    """Before its hello, write `mb` MiB to its private /tmp (memory: a tmpfs)."""
    with open(Path(os.environ["TMPDIR"]) / "fill", "wb") as fill:
        for _ in range(int(mb)):
            fill.write(b"x" * (1 << 20))
    return {}


def limits() -> Report:
    """The limits and identity the bot runs with."""
    soft = {}
    for line in Path("/proc/self/limits").read_text().splitlines()[1:]:
        name, value = line[:26].strip(), line[26:47].strip()
        soft[name] = value
    status = dict(
        line.split(":\t", 1) for line in Path("/proc/self/status").read_text().splitlines()
    )
    return {
        "limits": soft,
        "uid": os.getuid(),
        "caps": status["CapEff"].strip(),
        "home": os.environ["HOME"],
        "cwd": os.getcwd(),
    }


def userns_tmpfs(mb: str) -> Report:
    """A user namespace of its own, a tmpfs mounted in it with no size limit, and `mb`
    MiB written there: past the sandbox's 64 MiB /tmp and into the host's memory."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    clone_newuser, clone_newns = 0x10000000, 0x00020000
    if libc.unshare(clone_newuser | clone_newns) != 0:
        return {"unshare": errno.errorcode.get(ctypes.get_errno(), "?")}
    target = Path(os.environ["HOME"]) / "mnt"
    target.mkdir(exist_ok=True)
    if libc.mount(b"none", str(target).encode(), b"tmpfs", 0, None) != 0:
        return {"unshare": "ok", "mount": errno.errorcode.get(ctypes.get_errno(), "?")}
    written = 0
    try:
        with open(target / "fill", "wb") as f:
            while written < int(mb):
                f.write(b"x" * (1 << 20))
                written += 1
    except OSError as err:
        return {"unshare": "ok", "mount": "ok", "written_mb": written, "error": _error(err)}
    return {"unshare": "ok", "mount": "ok", "written_mb": written}


THINK = [0.0]
"""Seconds to think before each action (the `slow` bot)."""


def slow(ms: str) -> Report:
    """No attack: a legal bot that thinks `ms` milliseconds per decision."""
    THINK[0] = int(ms) / 1000
    return {"pid": os.getpid()}


BURN = [0.0]
"""CPU seconds to burn at the start of each game (the `burn` bot)."""

CHOICE = [0]
"""The choice the bot answers every act with (the `late_illegal` bot's is illegal)."""


def late_illegal(ms: str) -> Report:
    """No attack: a bot that takes `ms` milliseconds to start (before it reads the
    referee's hello), then answers every act with an illegal choice: each of its games
    ends its process, and its next game waits for a new one to start."""
    time.sleep(int(ms) / 1000)
    CHOICE[0] = 10_000
    return {"pid": os.getpid()}


def burn(ms: str) -> Report:
    """No attack: a legal bot that computes `ms` milliseconds of CPU time every game."""
    BURN[0] = int(ms) / 1000
    return {"pid": os.getpid()}


LARGEST: dict[str, int] = {}
"""The largest frame of each message type it read (the `measure` bot)."""


def measure(ms: str) -> Report:
    """No attack: a legal bot that thinks `ms` milliseconds per decision and at the end
    reports the size of the largest frame of each type it read. Its stdin pipe holds
    one page (4 KiB) instead of 64: a larger message fits only as the bot reads it."""
    THINK[0] = int(ms) / 1000
    LARGEST["act"] = 0
    fcntl.fcntl(0, fcntl.F_SETPIPE_SZ, 4096)
    return {"pipe": fcntl.fcntl(0, fcntl.F_GETPIPE_SZ)}


ACT_CPU = [0.0]
"""CPU seconds to compute at each decision (the `cpu_per_act` bot)."""
WORST = [0.0]
"""Its slowest decision so far, wall time in seconds."""


def cpu_per_act(ms: str) -> Report:
    """No attack: a legal bot that computes `ms` milliseconds of CPU time at every
    decision, and reports its slowest decision's wall time whenever it grows."""
    ACT_CPU[0] = int(ms) / 1000
    return {"pid": os.getpid()}


def gated_cpu_per_act(ms: str, gate: str) -> Report:
    """`cpu_per_act`, once the file `gate` (in its own folder, which the test writes)
    exists: a test holds the bot's games until their scene is set."""
    while not Path(gate).exists():
        time.sleep(0.01)
    return cpu_per_act(ms)


SPINNERS = [0]
"""How many spinning children to fork at its first decision (the `spinners` bot)."""


def spinners(count: str, think_ms: str) -> Report:
    """Crowd the CPU: at its first decision fork `count` children that spin for as
    long as the bot lives (stopped with it between its decisions), and think
    `think_ms` milliseconds of wall time at every decision while they spin."""
    SPINNERS[0] = int(count)
    THINK[0] = int(think_ms) / 1000
    return {"pid": os.getpid()}


def _spin_up(count: int) -> int:
    """Fork `count` children that wait until all are forked, then spin while the bot
    lives; how many it could fork."""
    parent, made = os.getpid(), 0
    go, ready = os.pipe()
    for _ in range(count):
        try:
            child = os.fork()
        except OSError:
            break
        if child == 0:
            os.close(ready)
            os.read(go, 1)  # until the parent closes its end
            while os.getppid() == parent:
                pass
            os._exit(0)
        made += 1
    os.close(go)
    os.close(ready)
    return made


PROCESS = os.urandom(8).hex()
"""Names this process in reports (a pid repeats across sandboxes' PID namespaces)."""

SPY = [False]
"""Report every game_start (the `spy` bot): what a cheat sees of each deal."""


def spy() -> Report:
    """Report the public facts of every game: its id, the seat and the hand dealt."""
    SPY[0] = True
    return {}


STEAL: dict[str, Any] = {}
"""What the `steal` bot measured: its child's CPU time and the wall time between the
bot's turns."""


def steal(how: str = "leave", think_ms: str = "0") -> Report:
    """Compute on the others' time: a child process that spins for ever (until the bot
    is gone), after trying to leave the process group (setsid, else setpgid), or with
    `how` "timers", to have the kernel send it SIGCONT every millisecond, which ends a
    stop (`sigcont_timers`), or with "exits", to have it sent SIGCONT when a process
    whose exit began before the stop ends it (`sigcont_at_exit`, `_spin_with_wakers`).
    The bot itself thinks `think_ms` per decision. At the end (bye) a second report says
    how much CPU time the child got between the bot's answer and its next act, against
    the wall time that passed, and how long it could run (runnable, on a CPU or waiting
    for one) between a game_over and the next game_start."""
    THINK[0] = int(think_ms) / 1000
    parent = os.getpid()
    child = os.fork()
    if child == 0:
        if how == "timers":
            print(f"timers {json.dumps(sigcont_timers())}", file=sys.stderr, flush=True)
        elif how == "exits":
            print(f"exits {json.dumps(sigcont_at_exit())}", file=sys.stderr, flush=True)
            _spin_with_wakers(parent)
        else:
            for leave in (os.setsid, lambda: os.setpgid(0, 0)):
                try:
                    leave()
                    print("left", file=sys.stderr, flush=True)
                    break
                except OSError as err:
                    print(_error(err), file=sys.stderr, flush=True)
        while os.getppid() == parent:
            pass
        os._exit(0)
    STEAL.update(child=child, idle_cpu=0.0, idle_runnable=0.0, idle_wall=0.0)
    STEAL.update(between_wall=0.0, between_runnable=0.0)
    return {"pid": os.getpid()}


def sigcont_timers(count: int = 12) -> dict[str, str]:
    """Ask the kernel for SIGCONT, which ends a stop (SIGSTOP), from `count` POSIX
    timers, the first due in 50 ms, each next one twice as late (to 100 s), then every
    millisecond: a stop drops the SIGCONT pending, and a timer whose signal was dropped
    is not armed again, so the timers not yet due when a stop comes end it (a process
    that waited for a CPU had every timer due at once pending). Also F_SETSIG on a
    pipe. SIGCONT is handled (ignored, its signal may never be queued). What each call
    answered ("ok" or its errno)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)

    class SigEvent(ctypes.Structure):  # sigval, signo, notify, then padding to 64 bytes
        _fields_ = [
            ("value", ctypes.c_void_p),
            ("signo", ctypes.c_int),
            ("notify", ctypes.c_int),
            ("pad", ctypes.c_byte * 48),
        ]

    class Spec(ctypes.Structure):  # itimerspec: interval, then value (seconds, ns each)
        _fields_ = [
            ("interval_s", ctypes.c_long),
            ("interval_ns", ctypes.c_long),
            ("value_s", ctypes.c_long),
            ("value_ns", ctypes.c_long),
        ]

    signal.signal(signal.SIGCONT, lambda *_: None)
    out: dict[str, str] = {}
    for i in range(count):
        timer = ctypes.c_void_p()
        event = SigEvent(None, int(signal.SIGCONT), 0)  # SIGEV_SIGNAL
        if libc.timer_create(1, ctypes.byref(event), ctypes.byref(timer)) != 0:  # MONOTONIC
            out["timer_create"] = errno.errorcode.get(ctypes.get_errno(), "?")
            break
        due_ms = 50 << i
        spec = Spec(0, 1_000_000, due_ms // 1000, due_ms % 1000 * 1_000_000)
        libc.timer_settime(timer, 0, ctypes.byref(spec), None)
        out["timer_create"] = "ok"
    read, _ = os.pipe()
    try:
        fcntl.fcntl(read, 10, int(signal.SIGCONT))  # F_SETSIG
        out["F_SETSIG"] = "ok"
    except OSError as err:
        out["F_SETSIG"] = _error(err)
    return out


_PAGE = 4096


def _libc() -> Any:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [
        ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long
    ]  # fmt: skip
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    libc.syscall.argtypes = [ctypes.c_long] * 6
    return libc


def sigcont_at_exit() -> dict[str, str]:
    """Ask the kernel for SIGCONT when a process exits: as the parent-death signal of a
    child (prctl PR_SET_PDEATHSIG), and as a child's exit signal to its parent (clone
    with SIGCONT in place of SIGCHLD). A process that began its exit before a stop
    (SIGSTOP to the group) is not stopped: it ends its exit, and its SIGCONT ends the
    stop of its parent or child. What each call answered ("ok" or its errno)."""
    import ctypes
    import platform

    libc = _libc()
    out: dict[str, str] = {}
    pid = os.fork()
    if pid == 0:  # in a child, which exits: its parent-death signal is left unused
        code = libc.prctl(1, int(signal.SIGCONT), 0, 0, 0)  # PR_SET_PDEATHSIG
        os._exit(0 if code == 0 else ctypes.get_errno())
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    out["PR_SET_PDEATHSIG"] = "ok" if code == 0 else errno.errorcode.get(code, str(code))
    number = {"x86_64": 56, "aarch64": 220}.get(platform.machine())
    if number is not None:
        signal.signal(signal.SIGCONT, lambda *_: None)
        child = libc.syscall(number, int(signal.SIGCONT), 0, 0, 0, 0)  # a fork
        if child == 0:
            os._exit(0)
        if child < 0:
            out["clone"] = errno.errorcode.get(ctypes.get_errno(), "?")
        else:
            os.waitpid(child, 0x40000000)  # __WALL: a child whose exit signal is not SIGCHLD
            out["clone"] = "ok"
        signal.signal(signal.SIGCONT, signal.SIG_DFL)
    return out


def _waker(vmas: int) -> None:
    """In a fresh child (it never returns): a child of its own, whose parent-death
    signal is SIGCONT, continues every process of the group once it is told; then this
    process makes `vmas` mappings, which make its exit slow (a tenth of a second), and
    exits. A stop that comes during the exit does not stop it, and its end sends the
    SIGCONT."""
    me = os.getpid()
    if os.fork() == 0:
        signal.signal(signal.SIGCONT, lambda *_: None)
        _libc().prctl(1, int(signal.SIGCONT), 0, 0, 0)  # PR_SET_PDEATHSIG
        while os.getppid() == me:
            signal.pause()
        os.kill(0, signal.SIGCONT)
        os._exit(0)
    libc = _libc()
    base = libc.mmap(None, 2 * vmas * _PAGE, 3, 0x22 | 0x4000, -1, 0)  # anonymous, noreserve
    if base is not None and base != 2**64 - 1:  # not MAP_FAILED
        for i in range(vmas):  # every other page read-only: no two mappings merge
            libc.mprotect(base + 2 * i * _PAGE, _PAGE, 1)
    os._exit(0)


def _spin_with_wakers(parent: int, keep: int = 4, vmas: int = 30000) -> None:
    """Spin while `parent` lives, keeping `keep` wakers (`_waker`) going, one begun
    every 30 ms at most, so that one is nearly always exiting."""
    live: set[int] = set()
    begun = 0.0
    while os.getppid() == parent:
        for _ in range(20000):
            pass
        with contextlib.suppress(ChildProcessError):
            while live and (done := os.waitpid(-1, os.WNOHANG)[0]):
                live.discard(done)
        if len(live) < keep and time.monotonic() - begun > 0.03:
            begun = time.monotonic()
            pid = os.fork()
            if pid == 0:
                _waker(vmas)
            live.add(pid)
    os._exit(0)


def _child_cpu() -> float:
    """The `steal` bot's child's CPU time so far, in seconds (ns from schedstat)."""
    return _child_sched()[0]


def _child_sched() -> tuple[float, float]:
    """The `steal` bot's child's CPU time and its time waiting for a CPU while runnable,
    so far, in seconds (from schedstat): their sum grows with the wall time whenever
    the child is not stopped, however busy the machine is."""
    with open(f"/proc/{STEAL['child']}/schedstat") as stat:
        ran, waited = stat.read().split()[:2]
    return int(ran) / 1e9, int(waited) / 1e9


def _steal_report() -> None:
    """The `steal` bot's second report, at the end of its session."""
    names = ("idle_cpu", "idle_runnable", "idle_wall", "between_wall", "between_runnable")
    report = {k: STEAL[k] for k in names}
    sys.stderr.write("REPORT " + json.dumps(report) + "\n")
    sys.stderr.flush()


ATTACKS: dict[str, Callable[..., Report]] = {
    "none": none,
    "read_other": read_other,
    "store": store,
    "proc": proc,
    "network": network,
    "write_outside": write_outside,
    "kill": kill,
    "fork_bomb": fork_bomb,
    "fill_disk": fill_disk,
    "memory": memory,
    "memory_children": memory_children,
    "memory_outside": memory_outside,
    "fill_at_act": fill_at_act,
    "fill_tmp": fill_tmp,
    "limits": limits,
    "slow": slow,
    "measure": measure,
    "burn": burn,
    "spy": spy,
    "userns_tmpfs": userns_tmpfs,
    "steal": steal,
    "cpu_per_act": cpu_per_act,
    "gated_cpu_per_act": gated_cpu_per_act,
    "spinners": spinners,
    "late_illegal": late_illegal,
}


def play() -> None:
    r, w = sys.stdin.buffer, sys.stdout.buffer

    def send(message: dict[str, Any]) -> None:
        data = msgpack.packb(message)
        w.write(len(data).to_bytes(4, "big") + data)
        w.flush()

    answered: tuple[float, float, float] | None = None  # wall, child's CPU and wait, at answer
    between: tuple[float, float, float] | None = None  # the same at a game_over
    while True:
        head = r.read(4)
        if len(head) < 4:
            break
        size = int.from_bytes(head, "big")
        message = msgpack.unpackb(r.read(size))
        kind = message["type"]
        if LARGEST:
            LARGEST[kind] = max(LARGEST.get(kind, 0), size)
        if kind == "game_start" and STEAL and between is not None:
            ran, waited = _child_sched()
            STEAL["between_wall"] += time.perf_counter() - between[0]
            STEAL["between_runnable"] += ran + waited - between[1] - between[2]
        if kind == "game_over" and STEAL:
            between = (time.perf_counter(), *_child_sched())
        if kind == "act" and STEAL and answered is not None:
            ran, waited = _child_sched()
            STEAL["idle_wall"] += time.perf_counter() - answered[0]
            STEAL["idle_cpu"] += ran - answered[1]
            STEAL["idle_runnable"] += ran + waited - answered[1] - answered[2]
        if kind == "hello":
            send({"type": "hello", "name": "hostile", "version": "1", "protocol": 1})
        elif kind == "game_start":
            if SPY[0]:
                seen = {k: message[k] for k in ("game_id", "seat", "hand")}
                seen["process"] = PROCESS
                sys.stderr.write("REPORT " + json.dumps(seen) + "\n")
                sys.stderr.flush()
            end = time.process_time() + BURN[0]
            while time.process_time() < end:
                pass
        elif kind == "act":
            if FILL[0]:
                with open(Path(os.environ["TMPDIR"]) / "fill", "wb") as fill:
                    for _ in range(FILL[0]):
                        fill.write(b"x" * (1 << 20))
                FILL[0] = 0
            started = time.perf_counter()
            if SPINNERS[0]:
                made = _spin_up(SPINNERS[0])
                SPINNERS[0] = 0
                sys.stderr.write("REPORT " + json.dumps({"spinners": made}) + "\n")
                sys.stderr.flush()
            end = time.process_time() + ACT_CPU[0]
            while time.process_time() < end:
                pass
            time.sleep(THINK[0])
            if ACT_CPU[0] and time.perf_counter() - started > WORST[0]:
                WORST[0] = time.perf_counter() - started
                sys.stderr.write("REPORT " + json.dumps({"worst_s": WORST[0]}) + "\n")
                sys.stderr.flush()
            send({"type": "action", "request_id": message["request_id"], "choice": CHOICE[0]})
            if STEAL:
                answered = (time.perf_counter(), *_child_sched())
        elif kind == "bye":
            break
    if STEAL:
        _steal_report()
    if LARGEST:
        sys.stderr.write("REPORT " + json.dumps({"largest": LARGEST}) + "\n")
        sys.stderr.flush()


def main() -> None:
    name, *args = sys.argv[1:-1]
    try:
        report = ATTACKS[name](*args)
    except Exception as err:  # the report says what went wrong; the bot still plays
        report = {"crashed": repr(err)}
    sys.stderr.write("REPORT " + json.dumps({"attack": name, **report}) + "\n")
    sys.stderr.flush()
    play()


if __name__ == "__main__":
    main()
