"""The seccomp programs of the sandbox, in classic BPF over `struct seccomp_data`
(written out here because no library for it is part of arena's dependencies):

- the allow-list of every bot process (`allowlist_program`, below; its table is
  `arena._syscalls`), installed by bubblewrap;
- a filter that denies new user namespaces, for bots and builds started by root.

Run as an ordinary user, bubblewrap makes a user namespace for the sandbox and its
`--disable-userns` forbids nesting another. Run by root it needs none, and a bot could
then make one of its own (unshare(CLONE_NEWUSER | CLONE_NEWNS)), mount a tmpfs with
no size limit in it and fill the host's memory. This filter, installed by bwrap in
a bot's process just before it runs the bot's command (chained before the allow-list,
`chained`, which refuses namespaces too), or for a build in the child just before it
runs bwrap (root may install one without no_new_privs; a build gets no allow-list),
is inherited by everything the bot or build starts, and makes

- unshare and clone with CLONE_NEWUSER fail with EPERM,
- setns fail with EPERM (a bot has no business joining namespaces),
- clone3 fail with ENOSYS (its flags are behind a pointer a filter cannot read;
  the C library then falls back to clone, which the filter checks),
- x32 system calls fail with EPERM (another numbering of the same calls).

Everything else it allows.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct
from collections.abc import Callable
from typing import NamedTuple

from arena import _syscalls

_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06
_JA = 0x05
_AND_K = 0x54

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


# -- the allow-list: the filter of every bot process ------------------------------------
#
# Installed by bubblewrap (`--seccomp`) in every bot process of a game, as root or not
# (and so in prlimit and setpriv, which run before the bot's command, and in the
# sandbox's init), the allow-list (`arena._syscalls`, each entry with its reason) lets
# a bot make the calls its runtime needs and refuses the rest: ENOSYS for a call the
# list does not name (as on a kernel without it: a runtime that probes for a new call
# falls back), EPERM for the calls a bot has no business making. It never kills.
#
# It closes the covert channels between processes that run at the same time or one
# after the other through the kernel's state of a file they both see (their read-only
# submission folder, /usr): a bot's processes in two games of one deal could so pass
# on an opponent's hand, and two bots at one table their own. So
#
# - flock, and fcntl's F_SETLK, F_SETLKW (and their 64-bit and open-file-description
#   forms), succeed without locking anything: a lock neither holds nor conflicts,
#   so it carries no signal (and a runtime that locks its own files runs on);
# - fcntl's F_GETLK (and its forms) fail with ENOLCK: there is no lock to report;
# - fcntl's F_NOTIFY (dnotify) and F_SETLEASE fail with EPERM;
# - a signal of a process's choosing sent by the kernel later fails: timer_create and
#   mq_notify with ENOSYS (the signal is behind a pointer), fcntl's F_SETSIG with EPERM:
#   a timer that sent SIGCONT every millisecond ended the stop of a bot's processes
#   while another bot decided (SPEC §8.5), which then computed on its time; and SIGCONT
#   sent when a process exits fails with EPERM, as a child's exit signal (clone) or as
#   a parent-death signal (prctl's PR_SET_PDEATHSIG): a process whose exit began before
#   a stop is not stopped (an exit with 30,000 mappings to unmap takes a tenth of a
#   second), and the SIGCONT its end sent ended the stop of the rest;
# - inotify fails with ENOSYS, fanotify with EPERM;
# - utime, utimes, utimensat and futimesat succeed without setting a file's times: the
#   device nodes bwrap binds into /dev (/dev/null, /dev/zero, ...) are the machine's,
#   0666, on mounts that must stay writable, and any process may set their times to
#   now; a process set two of them a chosen number of milliseconds apart, and a
#   process of another sandbox, started after it had exited, read the number;
# - setsid and setpgid fail with EPERM: every process of a bot stays in its process
#   group, which arena stops while the bot is not deciding (SPEC §8.5), so none can
#   leave it to compute on the others' time;
# - the exact probes of the page cache fail, which would tell a process, without
#   reading anything, whether a page of a file was read lately (by any process, one
#   long gone included): preadv2 with RWF_NOWAIT with EOPNOTSUPP (what a file system
#   without it answers), mincore and cachestat with ENOSYS, and io_uring and Linux AIO
#   with ENOSYS (they read without waiting too; runtimes fall back to threads, as
#   glibc's POSIX AIO always does);
# - the kernel's keyrings (add_key, request_key, keyctl) fail with ENOSYS: they have no
#   namespace of their own when arena runs as root, and a keyring one process named
#   (and opened to all) another process, of another uid and after the first had
#   exited, joined by its name and read;
# - the calls that move pages of a file into or out of the shared page cache without
#   reading them fail with EPERM: fadvise64 (and i386's fadvise64_64), readahead,
#   process_madvise, and madvise with any advice but those that leave the cache alone
#   (`_MADV_ALLOWED`: MADV_DONTNEED and MADV_FREE, which allocators use, drop a
#   process's own mapping): with WILLNEED, PAGEOUT and the like a process set and
#   cleared bits in the cache exactly, for a later process to read by counting its
#   major page faults (issue 40);
# - socket and socketpair of any family but AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK
#   fail with EAFNOSUPPORT, as on a kernel without the family: AF_VSOCK's ports are
#   the machine's, not the sandbox network namespace's, and a bound port was a bit
#   another sandbox read through EADDRINUSE; i386's socketcall, whose arguments a
#   filter cannot read, fails with ENOSYS (the C library then calls socket itself);
# - clone with a flag for a new namespace, unshare and setns fail with EPERM, clone3
#   with ENOSYS (its flags are behind a pointer), x32 calls with EPERM.
#
# What it cannot close is timing: whether a read of a page is quick (the page cache)
# and the load of the machine; docs/fair-play.md says so.
#
# The program: per architecture, a binary search over the numbers (ranges of
# neighbours with one verdict merged), each leaf a return or a short judge of the
# arguments. Classic BPF's conditional jumps reach 255 instructions ahead at most, so a
# jump past a longer branch goes through an unconditional one (32 bits).

_ARG1_OFFSET = 24  # arg1's low 32 bits (little-endian): fcntl's command
_ARG2_OFFSET = 32  # arg2's low 32 bits: madvise's advice
_MADV_ALLOWED = (0, 1, 2, 4, 8, 10, 11, 14, 15, 16, 17, 18, 19, 24, 102, 103)
"""MADV_NORMAL, _RANDOM, _SEQUENTIAL, _DONTNEED, _FREE, _DONTFORK, _DOFORK, _HUGEPAGE,
_NOHUGEPAGE, _DONTDUMP, _DODUMP, _WIPEONFORK, _KEEPONFORK, _DONTNEED_LOCKED,
_GUARD_INSTALL and _GUARD_REMOVE: advice on a process's own mapping. Refused (EPERM):
MADV_WILLNEED, _REMOVE, _COLD, _PAGEOUT, _POPULATE_READ and _WRITE (they move pages of a
file into or out of the page cache), _COLLAPSE (it reads a file's missing pages in),
_MERGEABLE and _UNMERGEABLE (KSM merges equal pages of processes: a timing channel),
_HWPOISON, _SOFT_OFFLINE, and advice this list does not know."""
_FAMILIES = (1, 2, 10, 16)
"""AF_UNIX, AF_INET, AF_INET6, AF_NETLINK: the socket families a bot may open (in its
own network namespace, which has nothing but a loopback that is down)."""
_ARG5_OFFSET = 56  # arg5's low 32 bits: preadv2's flags (on every architecture here)
_RWF_NOWAIT = 0x08
_CLONE_NEW = 0x7E020000
"""CLONE_NEWNS, _NEWCGROUP, _NEWUTS, _NEWIPC, _NEWUSER, _NEWPID and _NEWNET."""
_CSIGNAL = 0xFF
"""The bits of clone's flags that hold the child's exit signal."""
_SIGCONT = 18
"""SIGCONT on every architecture here."""
_PR_SET_PDEATHSIG = 1

_F_GETLKS = (5, 12, 36)  # F_GETLK, F_GETLK64, F_OFD_GETLK
_F_SETLKS = (6, 7, 13, 14, 37, 38)  # F_SETLK(W), F_SETLK(W)64, F_OFD_SETLK(W)
_F_DENIED = (1024, 1026, 10)  # F_SETLEASE, F_NOTIFY, F_SETSIG

_Insn = tuple[int, int, int, int]
_Labelled = list[tuple[int, str | None, str | None, int] | str]


def _assemble(program: _Labelled) -> list[_Insn]:
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

    return [(op, offset(jt, at), offset(jf, at), k) for at, (op, jt, jf, k) in enumerate(code)]


def _returns(value: int) -> list[_Insn]:
    return [(_RET_K, 0, 0, value)]


def _judge(verdict: str) -> list[_Insn]:
    """The instructions that judge a call given its verdict (`arena._syscalls`)."""
    allow, deny = _ALLOW, _ERRNO | errno.EPERM
    if verdict == _syscalls.ALLOW:
        return _returns(allow)
    if verdict in (_syscalls.ENOSYS, _syscalls.EPERM):
        return _returns(_ERRNO | getattr(errno, verdict))
    if verdict in ("lock", "times"):
        return _returns(_ERRNO | 0)  # "succeeds"
    program: _Labelled
    if verdict == "fcntl":
        program = [(_LD_W_ABS, None, None, _ARG1_OFFSET)]
        program += [(_JEQ_K, "success", None, cmd) for cmd in _F_SETLKS]
        program += [(_JEQ_K, "nolock", None, cmd) for cmd in _F_GETLKS]
        program += [(_JEQ_K, "deny", None, cmd) for cmd in _F_DENIED]
        program += [(_RET_K, None, None, allow), "success", (_RET_K, None, None, _ERRNO | 0)]
        program += ["nolock", (_RET_K, None, None, _ERRNO | errno.ENOLCK)]
        program += ["deny", (_RET_K, None, None, deny)]
    elif verdict == "madvise":
        program = [(_LD_W_ABS, None, None, _ARG2_OFFSET)]
        program += [(_JEQ_K, "allow", None, advice) for advice in _MADV_ALLOWED]
        program += [(_RET_K, None, None, deny), "allow", (_RET_K, None, None, allow)]
    elif verdict == "socket":
        program = [(_LD_W_ABS, None, None, _ARG0_OFFSET)]
        program += [(_JEQ_K, "allow", None, family) for family in _FAMILIES]
        program += [(_RET_K, None, None, _ERRNO | errno.EAFNOSUPPORT)]
        program += ["allow", (_RET_K, None, None, allow)]
    elif verdict == "preadv2":
        program = [(_LD_W_ABS, None, None, _ARG5_OFFSET)]
        program += [(_JSET_K, "nowait", None, _RWF_NOWAIT), (_RET_K, None, None, allow)]
        program += ["nowait", (_RET_K, None, None, _ERRNO | errno.EOPNOTSUPP)]
    elif verdict == "clone":
        program = [(_LD_W_ABS, None, None, _ARG0_OFFSET)]
        program += [(_JSET_K, "deny", None, _CLONE_NEW), (_AND_K, None, None, _CSIGNAL)]
        program += [(_JEQ_K, "deny", None, _SIGCONT), (_RET_K, None, None, allow)]
        program += ["deny", (_RET_K, None, None, deny)]
    elif verdict == "prctl":
        program = [(_LD_W_ABS, None, None, _ARG0_OFFSET)]
        program += [
            (_JEQ_K, None, "allow", _PR_SET_PDEATHSIG),
            (_LD_W_ABS, None, None, _ARG1_OFFSET),
        ]
        program += [(_JEQ_K, "deny", None, _SIGCONT), "allow", (_RET_K, None, None, allow)]
        program += ["deny", (_RET_K, None, None, deny)]
    else:
        raise ValueError(f"no judge for the verdict {verdict!r}")
    return _assemble(program)


class _Range(NamedTuple):
    low: int
    high: int  # inclusive
    verdict: str


def _ranges(arch: str) -> list[_Range]:
    """The numbers 0 to 2**32 - 1 of `arch` as ranges of one verdict each, in order."""
    known = _syscalls.verdicts(arch)
    top = _syscalls.X32_BIT if arch == "x86_64" else 1 << 32
    ranges: list[_Range] = []

    def add(low: int, high: int, verdict: str) -> None:
        if ranges and ranges[-1].verdict == verdict and ranges[-1].high == low - 1:
            ranges[-1] = ranges[-1]._replace(high=high)
        else:
            ranges.append(_Range(low, high, verdict))

    at = 0
    for number in sorted(known):
        if number > at:
            add(at, number - 1, _syscalls.ENOSYS)
        add(number, number, known[number])
        at = number + 1
    add(at, top - 1, _syscalls.ENOSYS)
    if top < 1 << 32:
        add(top, (1 << 32) - 1, _syscalls.EPERM)  # x32
    return ranges


def _search(ranges: list[_Range]) -> list[_Insn]:
    """A binary search for the system call number (in the accumulator) among `ranges`,
    its leaves their judges; every jump relative, so the code goes anywhere."""
    if len(ranges) == 1:
        return _judge(ranges[0].verdict)
    middle = len(ranges) // 2
    below, above = _search(ranges[:middle]), _search(ranges[middle:])
    split = ranges[middle].low
    if len(below) <= 255:
        return [(_JGE_K, len(below), 0, split), *below, *above]
    return [(_JGE_K, 0, 1, split), (_JA, 0, 0, len(below)), *below, *above]


def allowlist_program(machine: str | None = None) -> bytes | None:
    """The allow-list filter for this machine's architectures (see above), or None on
    an architecture this module does not know. A call of another architecture fails
    with ENOSYS."""
    arches = _syscalls.MACHINES.get(machine or platform.machine())
    if arches is None:
        return None
    code: list[_Insn] = [(_LD_W_ABS, 0, 0, _ARCH_OFFSET)]
    for arch in arches:
        block = [(_LD_W_ABS, 0, 0, _NR_OFFSET), *_search(_ranges(arch))]
        # Not this architecture: over the block (with a jump of any length).
        code += [(_JEQ_K, 1, 0, _syscalls.AUDIT_ARCH[arch]), (_JA, 0, 0, len(block)), *block]
    code += _returns(_ERRNO | errno.ENOSYS)
    if len(code) > _BPF_MAXINSNS:
        raise ValueError(f"the allow-list takes {len(code)} instructions, past the kernel's 4096")
    return b"".join(_insn(*insn) for insn in code)


_BPF_MAXINSNS = 4096


def program_fd(program: bytes) -> int:
    """A descriptor that reads `program` from its start to its end (for bubblewrap's
    `--seccomp FD`, which reads a program to its end and closes it); the caller closes
    it. A memfd: a pipe takes but 4 KiB without a reader where the user has many pipes
    (fs.pipe-user-pages-soft), and the allow-list is longer."""
    fd = os.memfd_create("arena-seccomp", os.MFD_CLOEXEC)
    try:
        view = memoryview(program)
        while view:
            view = view[os.write(fd, view) :]
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd
