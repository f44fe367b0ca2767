"""A seccomp filter that denies new user namespaces, for bots and builds started by root.

Run as an ordinary user, bubblewrap makes a user namespace for the sandbox and its
`--disable-userns` forbids nesting another. Run by root it needs none, and a bot could
then make one of its own (unshare(CLONE_NEWUSER | CLONE_NEWNS)), mount a tmpfs with
no size limit in it and fill the host's memory. This filter, installed by bwrap in
a bot's process just before it runs the bot's command (chained before the
covert-channel filter below, `chained`), or for a build in the child just before it
runs bwrap (root may install one without no_new_privs), is inherited by everything
the bot or build starts, and makes

- unshare and clone with CLONE_NEWUSER fail with EPERM,
- setns fail with EPERM (a bot has no business joining namespaces),
- clone3 fail with ENOSYS (its flags are behind a pointer a filter cannot read;
  the C library then falls back to clone, which the filter checks),
- x32 system calls fail with EPERM (another numbering of the same calls).

Everything else is allowed. It is classic BPF over `struct seccomp_data`, written out
here because no library for it is part of arena's dependencies.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct
from collections.abc import Callable
from typing import NamedTuple

_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06
_JA = 0x05

_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_CLONE_NEWUSER = 0x10000000
_X32_BIT = 0x40000000

_NR_OFFSET, _ARCH_OFFSET, _ARG0_OFFSET = 0, 4, 16  # arg0's low 32 bits (little-endian)

# (audit arch, clone, unshare, clone3, setns) per architecture a process may use.
_ARCHES = {
    "x86_64": [(0xC000003E, 56, 272, 435, 308), (0x40000003, 120, 310, 435, 346)],
    "aarch64": [(0xC00000B7, 220, 97, 435, 268)],
}

_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k)


def _program(arches: list[tuple[int, int, int, int, int]]) -> bytes:
    """The filter: per architecture, a block that judges its system call numbers."""
    deny = _ERRNO | errno.EPERM
    out: list[bytes] = []
    for i, (arch, clone, unshare, clone3, setns) in enumerate(arches):
        block = [
            _insn(_JEQ_K, 0, 0, clone3),  # 0
            _insn(_JEQ_K, 0, 0, setns),  # 1
            _insn(_JEQ_K, 0, 0, unshare),  # 2
            _insn(_JEQ_K, 0, 0, clone),  # 3
            _insn(_RET_K, 0, 0, _ALLOW),  # 4
            _insn(_LD_W_ABS, 0, 0, _ARG0_OFFSET),  # 5: unshare or clone: their flags
            _insn(_JSET_K, 0, 0, _CLONE_NEWUSER),  # 6
            _insn(_RET_K, 0, 0, _ALLOW),  # 7
            _insn(_RET_K, 0, 0, deny),  # 8
            _insn(_RET_K, 0, 0, _ERRNO | errno.ENOSYS),  # 9
        ]
        # Jump offsets count from the next instruction.
        block[0] = _insn(_JEQ_K, 9 - 1, 0, clone3)
        block[1] = _insn(_JEQ_K, 8 - 2, 0, setns)
        block[2] = _insn(_JEQ_K, 5 - 3, 0, unshare)
        block[3] = _insn(_JEQ_K, 5 - 4, 0, clone)
        block[6] = _insn(_JSET_K, 8 - 7, 0, _CLONE_NEWUSER)
        head = [_insn(_LD_W_ABS, 0, 0, _ARCH_OFFSET)]
        x32 = i == 0 and arch == 0xC000003E
        check = [_insn(_LD_W_ABS, 0, 0, _NR_OFFSET)]
        if x32:
            check.append(_insn(_JGE_K, 0, 1, _X32_BIT))
            check.append(_insn(_RET_K, 0, 0, deny))
        body = check + block
        # Not this architecture: skip the block (to the next architecture's test).
        head.append(_insn(_JEQ_K, 0, len(body), arch))
        out += head + body
    out.append(_insn(_RET_K, 0, 0, _ALLOW))  # an architecture not listed: not ours to judge
    return b"".join(out)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def userns_program(machine: str | None = None) -> bytes | None:
    """The filter as a program (for bubblewrap, see `chained`), or None on an
    architecture this module does not know."""
    arches = _ARCHES.get(machine or platform.machine())
    return None if arches is None else _program(arches)


def chained(first: bytes | None, then: bytes | None) -> bytes | None:
    """One program that judges a system call by `first` and, where `first` allows it,
    by `then`: each of `first`'s "allow" returns becomes a jump to `then`'s start.

    Classic BPF jumps only forward, so `first`'s own jumps stay as they are. Both
    programs run in one: bubblewrap before 0.5 takes a single `--seccomp` program.
    """
    if first is None or then is None:
        return first if then is None else then
    code = [struct.unpack("HBBI", first[at : at + 8]) for at in range(0, len(first), 8)]
    out = []
    for at, (op, jt, jf, k) in enumerate(code):
        if op == _RET_K and k == _ALLOW:
            out.append(_insn(_JA, 0, 0, len(code) - at - 1))
        else:
            out.append(_insn(op, jt, jf, k))
    return b"".join(out) + then


def userns_filter() -> Callable[[], None] | None:
    """A function that installs the filter in the calling process (for preexec_fn), or
    None on an architecture this module does not know."""
    code = userns_program()
    if code is None:
        return None
    buffer = ctypes.create_string_buffer(code, len(code))
    prog = _SockFprog(len(code) // 8, ctypes.addressof(buffer))
    libc = ctypes.CDLL(None, use_errno=True)

    def install() -> None:  # in the child, between fork and exec
        _keep = buffer  # the program must outlive the call
        if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "cannot install the user-namespace filter")
        del _keep

    return install


# -- the filter against covert channels between processes ------------------------------
#
# Two bot processes that run at the same time can signal to each other through the
# kernel's state of a file they both see (their read-only submission folder, /usr):
# one takes a lock or opens the file, the other tests the lock or is told of the open
# by inotify. A bot's processes in two games of one deal could so pass on an
# opponent's hand, and two bots at one table their own. Installed by bubblewrap
# (`--seccomp`) in every bot process of a game, as root or not, this filter makes
#
# - flock, and fcntl's F_SETLK, F_SETLKW (and their 64-bit and open-file-description
#   forms), succeed without locking anything: a lock neither holds nor conflicts,
#   so it carries no signal (and a runtime that locks its own files runs on);
# - fcntl's F_GETLK (and its forms) fail with ENOLCK: there is no lock to report;
# - fcntl's F_NOTIFY (dnotify) and F_SETLEASE fail with EPERM;
# - inotify_init, inotify_init1 and inotify_add_watch fail with ENOSYS, fanotify_init
#   with EPERM;
# - setsid and setpgid fail with EPERM: every process of a bot stays in its process
#   group, which arena stops while the bot is not deciding (SPEC §8.5), so none can
#   leave it to compute on the others' time;
# - the exact probes of the page cache fail, which would tell a process, without
#   reading anything, whether a page of a file was read lately (by any process, one
#   long gone included): preadv2 with RWF_NOWAIT with EOPNOTSUPP (what a file system
#   without it answers), mincore and cachestat with ENOSYS, and io_uring_setup and
#   io_setup with ENOSYS (io_uring and Linux AIO read without waiting too; runtimes
#   fall back to threads, as glibc's POSIX AIO always does);
# - add_key, request_key and keyctl fail with ENOSYS: the kernel's keyrings have no
#   namespace of their own when arena runs as root, and a keyring one process named
#   (and opened to all) another process, of another uid and after the first had
#   exited, joined by its name and read;
# - the calls that move pages of a file into or out of the shared page cache without
#   reading them fail with EPERM: fadvise64 (and i386's fadvise64_64), readahead,
#   process_madvise, and madvise with MADV_WILLNEED, MADV_REMOVE, MADV_COLD,
#   MADV_PAGEOUT, MADV_POPULATE_READ or MADV_POPULATE_WRITE (MADV_DONTNEED and
#   MADV_FREE, which allocators use, drop a process's own mapping and leave the cache
#   alone): with them a process set and cleared bits in the cache exactly, for a later
#   process to read by counting its major page faults (issue 40);
# - socket and socketpair of any family but AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK
#   fail with EAFNOSUPPORT, as on a kernel without the family: AF_VSOCK's ports are
#   the machine's, not the sandbox network namespace's, and a bound port was a bit
#   another sandbox read through EADDRINUSE; i386's socketcall, whose arguments a
#   filter cannot read, fails with ENOSYS (the C library then calls socket itself);
# - x32 system calls fail with EPERM.
#
# What it cannot close is timing: whether a read of a page is quick (the page cache)
# and the load of the machine; the README says so.

_ARG1_OFFSET = 24  # arg1's low 32 bits (little-endian): fcntl's command
_ARG2_OFFSET = 32  # arg2's low 32 bits: madvise's advice
_MADV_DENIED = (3, 9, 20, 21, 22, 23)
"""MADV_WILLNEED, MADV_REMOVE, MADV_COLD, MADV_PAGEOUT, MADV_POPULATE_READ and _WRITE."""
_FAMILIES = (1, 2, 10, 16)
"""AF_UNIX, AF_INET, AF_INET6, AF_NETLINK: the socket families a bot may open (in its
own network namespace, which has nothing but a loopback that is down)."""
_ARG5_OFFSET = 56  # arg5's low 32 bits: preadv2's flags (on every architecture here)
_RWF_NOWAIT = 0x08

_F_GETLKS = (5, 12, 36)  # F_GETLK, F_GETLK64, F_OFD_GETLK
_F_SETLKS = (6, 7, 13, 14, 37, 38)  # F_SETLK(W), F_SETLK(W)64, F_OFD_SETLK(W)
_F_DENIED = (1024, 1026)  # F_SETLEASE, F_NOTIFY


class _Calls(NamedTuple):
    """The system call numbers the channel filter judges on one architecture."""

    arch: int
    flock: int
    fcntl: tuple[int, ...]
    inotify: tuple[int, ...]
    fanotify_init: int
    session: tuple[int, int]
    """setsid and setpgid."""
    preadv2: int
    absent: tuple[int, ...]
    """Denied outright (ENOSYS): mincore, cachestat, io_uring_setup, io_setup, add_key,
    request_key and keyctl (and i386's socketcall)."""
    paging: tuple[int, ...]
    """Denied (EPERM): fadvise64 (and fadvise64_64), readahead, process_madvise."""
    madvise: int
    sockets: tuple[int, ...]
    """socket and socketpair: their family (arg0) judged."""


_CHANNEL_CALLS = {
    "x86_64": [
        _Calls(
            arch=0xC000003E, flock=73, fcntl=(72,), inotify=(253, 254, 294), fanotify_init=300,
            session=(112, 109), preadv2=327, absent=(27, 451, 425, 206, 248, 249, 250),
            paging=(221, 187, 440), madvise=28, sockets=(41, 53),
        ),
        _Calls(  # i386 (int 0x80)
            arch=0x40000003, flock=143, fcntl=(55, 221), inotify=(291, 292, 332),
            fanotify_init=338, session=(66, 57), preadv2=378,
            absent=(218, 451, 425, 245, 286, 287, 288, 102),
            paging=(250, 272, 225, 440), madvise=219, sockets=(359, 360),
        ),
    ],
    "aarch64": [
        _Calls(
            arch=0xC00000B7, flock=32, fcntl=(25,), inotify=(26, 27), fanotify_init=262,
            session=(157, 154), preadv2=286, absent=(232, 451, 425, 0, 217, 218, 219),
            paging=(223, 213, 440), madvise=233, sockets=(198, 199),
        ),
    ],
}  # fmt: skip


def _assemble(program: list[tuple[int, str | None, str | None, int] | str]) -> bytes:
    """Classic BPF from instructions (code, jump-if-true label, jump-if-false label, k)
    and the labels (strings) between them."""
    labels: dict[str, int] = {}
    code: list[tuple[int, str | None, str | None, int]] = []
    for item in program:
        if isinstance(item, str):
            labels[item] = len(code)
        else:
            code.append(item)

    def offset(label: str | None, at: int) -> int:
        return 0 if label is None else labels[label] - at - 1

    return b"".join(
        _insn(op, offset(jt, at), offset(jf, at), k) for at, (op, jt, jf, k) in enumerate(code)
    )


def channels_program(machine: str | None = None) -> bytes | None:
    """The covert-channel filter for this machine's architectures (see above), or None
    on an architecture this module does not know."""
    arches = _CHANNEL_CALLS.get(machine or platform.machine())
    if arches is None:
        return None
    success, no_lock = _ERRNO | 0, _ERRNO | errno.ENOLCK
    deny, nosys = _ERRNO | errno.EPERM, _ERRNO | errno.ENOSYS
    program: list[tuple[int, str | None, str | None, int] | str] = []
    for i, calls in enumerate(arches):
        arch, fcntl, ret = f"arch{i}", f"fcntl{i}", f"ret{i}"
        program += [f"{arch}", (_LD_W_ABS, None, None, _ARCH_OFFSET)]
        program += [(_JEQ_K, None, f"arch{i + 1}", calls.arch), (_LD_W_ABS, None, None, _NR_OFFSET)]
        if calls.arch == 0xC000003E:
            program += [(_JGE_K, f"{ret}-deny", None, _X32_BIT)]
        program += [(_JEQ_K, f"{ret}-success", None, calls.flock)]
        program += [(_JEQ_K, fcntl, None, nr) for nr in calls.fcntl]
        program += [(_JEQ_K, f"{ret}-nosys", None, nr) for nr in calls.inotify]
        program += [(_JEQ_K, f"{ret}-deny", None, calls.fanotify_init)]
        program += [(_JEQ_K, f"{ret}-deny", None, nr) for nr in calls.session]
        program += [(_JEQ_K, f"{ret}-nosys", None, nr) for nr in calls.absent]
        program += [(_JEQ_K, f"{ret}-deny", None, nr) for nr in calls.paging]
        program += [(_JEQ_K, f"madvise{i}", None, calls.madvise)]
        program += [(_JEQ_K, f"socket{i}", None, nr) for nr in calls.sockets]
        program += [(_JEQ_K, f"preadv2{i}", None, calls.preadv2)]
        program += [(_RET_K, None, None, _ALLOW), f"madvise{i}"]
        program += [(_LD_W_ABS, None, None, _ARG2_OFFSET)]
        program += [(_JEQ_K, f"{ret}-deny", None, advice) for advice in _MADV_DENIED]
        program += [(_RET_K, None, None, _ALLOW), f"socket{i}"]
        program += [(_LD_W_ABS, None, None, _ARG0_OFFSET)]
        program += [(_JEQ_K, f"{ret}-allow", None, family) for family in _FAMILIES]
        program += [(_RET_K, None, None, _ERRNO | errno.EAFNOSUPPORT), f"{ret}-allow"]
        program += [(_RET_K, None, None, _ALLOW), f"preadv2{i}"]
        program += [(_LD_W_ABS, None, None, _ARG5_OFFSET)]
        program += [(_JSET_K, f"{ret}-unsupported", None, _RWF_NOWAIT)]
        program += [(_RET_K, None, None, _ALLOW)]
        program += [fcntl, (_LD_W_ABS, None, None, _ARG1_OFFSET)]
        program += [(_JEQ_K, f"{ret}-success", None, cmd) for cmd in _F_SETLKS]
        program += [(_JEQ_K, f"{ret}-nolock", None, cmd) for cmd in _F_GETLKS]
        program += [(_JEQ_K, f"{ret}-deny", None, cmd) for cmd in _F_DENIED]
        program += [(_RET_K, None, None, _ALLOW)]
        for name, value in (("success", success), ("nolock", no_lock), ("deny", deny)):
            program += [f"{ret}-{name}", (_RET_K, None, None, value)]
        program += [f"{ret}-nosys", (_RET_K, None, None, nosys)]
        program += [f"{ret}-unsupported", (_RET_K, None, None, _ERRNO | errno.EOPNOTSUPP)]
    program += [f"arch{len(arches)}", (_RET_K, None, None, _ALLOW)]  # not ours to judge
    return _assemble(program)


def program_pipe(program: bytes) -> int:
    """The read end of a pipe that holds `program` and then ends (for bubblewrap's
    `--seccomp FD`, which reads a program to its end); the caller closes it."""
    read_fd, write_fd = os.pipe()
    try:
        if os.write(write_fd, program) != len(program):  # a pipe takes 4 KiB at once
            raise OSError(f"a seccomp program of {len(program)} bytes did not fit a pipe")
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)
    return read_fd
