"""The seccomp programs as programs, run by a classic-BPF interpreter over made-up
system calls, without a kernel:

- the allow-list (`arena._seccomp.allowlist_program`, its table `arena._syscalls`)
  gives every number 0 to 1023 of every architecture, and x32's, the verdict its table
  gives (the binary search and its long jumps compiled right);
- the chain of the user-namespace filter and the allow-list (one program, for
  bubblewrap's single `--seccomp`) judges every call as the kernel would judge the two
  filters installed one after the other: the first to deny wins.

The real filters are tried on real processes in test_hostile.py (a user namespace),
test_covert_channels.py (locks, watches, keyrings) and test_spy_pair.py (the page
cache, sockets, and each call refused).
"""

from __future__ import annotations

import errno
import functools
import os
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena import _syscalls
from arena._seccomp import _Range, _search, allowlist_program, chained, program_fd, userns_program

ALLOW = 0x7FFF0000
ERRNO = 0x00050000
MACHINES = ["x86_64", "aarch64"]
ARCHES = {"x86_64": [0xC000003E, 0x40000003], "aarch64": [0xC00000B7]}
NAMES = {0xC000003E: "x86_64", 0x40000003: "i386", 0xC00000B7: "aarch64"}


@functools.cache
def decoded(program: bytes) -> list[tuple[int, int, int, int]]:
    return [struct.unpack_from("HBBI", program, at) for at in range(0, len(program), 8)]


def run(program: bytes, arch: int, nr: int, args: tuple[int, ...]) -> int:
    """What `program` returns for system call `nr` of `arch` with `args` (six u64):
    classic BPF's subset the programs use (ld [k], and k, jeq, jge, jgt, jset, ja, ret k)."""
    data = struct.pack("IIQ6Q", nr, arch, 0, *args)
    code = decoded(program)
    pc, acc = 0, 0
    while True:
        op, jt, jf, k = code[pc]
        pc += 1
        if op == 0x20:  # ld [k]
            (acc,) = struct.unpack_from("I", data, k)
        elif op == 0x06:  # ret k
            return k
        elif op == 0x05:  # ja k
            pc += k
        elif op == 0x54:  # and k
            acc &= k
        elif op in (0x15, 0x35, 0x25, 0x45):  # jeq, jge, jgt, jset
            hit = {0x15: acc == k, 0x35: acc >= k, 0x25: acc > k, 0x45: acc & k != 0}[op]
            pc += jt if hit else jf
        else:
            raise AssertionError(f"instruction {op:#x} at {pc - 1}")


def well_formed(program: bytes) -> None:
    """Whole instructions, at most the kernel's 4096, every jump forward and inside,
    the last one a return."""
    count = len(program) // 8
    assert len(program) == count * 8
    assert 0 < count <= 4096
    for at in range(count):
        op, jt, jf, k = struct.unpack_from("HBBI", program, at * 8)
        if op == 0x05:
            assert at + 1 + k < count
        elif op & 0x07 == 0x05:
            assert at + 1 + max(jt, jf) < count
    assert struct.unpack_from("HBBI", program, (count - 1) * 8)[0] == 0x06


MADV_ALLOWED = {
    "MADV_NORMAL": 0, "MADV_RANDOM": 1, "MADV_SEQUENTIAL": 2, "MADV_DONTNEED": 4,
    "MADV_FREE": 8, "MADV_DONTFORK": 10, "MADV_DOFORK": 11, "MADV_HUGEPAGE": 14,
    "MADV_NOHUGEPAGE": 15, "MADV_DONTDUMP": 16, "MADV_DODUMP": 17, "MADV_WIPEONFORK": 18,
    "MADV_KEEPONFORK": 19, "MADV_DONTNEED_LOCKED": 24, "MADV_GUARD_INSTALL": 102,
    "MADV_GUARD_REMOVE": 103,
}  # fmt: skip
"""Advice on a process's own mapping; every other (WILLNEED, REMOVE, COLD, PAGEOUT,
POPULATE_READ and _WRITE, COLLAPSE, MERGEABLE, ...) is refused."""


def expected(arch: int, nr: int, args: tuple[int, ...]) -> int:
    """What the table says of a call, the arguments judged as `arena._syscalls` says."""
    if arch not in NAMES:
        return ERRNO | errno.ENOSYS
    name = NAMES[arch]
    verdict = _syscalls.verdicts(name).get(nr)
    low = [a & 0xFFFFFFFF for a in args]
    if verdict is None:
        x32 = name == "x86_64" and nr >= 0x40000000
        return ERRNO | (errno.EPERM if x32 else errno.ENOSYS)
    refused = {
        _syscalls.ALLOW: ALLOW,
        _syscalls.ENOSYS: ERRNO | errno.ENOSYS,
        _syscalls.EPERM: ERRNO | errno.EPERM,
        "lock": ERRNO | 0,
        "times": ERRNO | 0,
    }
    if verdict in refused:
        return refused[verdict]
    if verdict == "fcntl":
        command = low[1]
        if command in (6, 7, 13, 14, 37, 38):  # F_SETLK(W), 64, OFD
            return ERRNO | 0
        if command in (5, 12, 36):  # F_GETLK, 64, OFD
            return ERRNO | errno.ENOLCK
        return ERRNO | errno.EPERM if command in (1024, 1026, 10) else ALLOW  # +F_SETSIG
    if verdict == "madvise":
        return ALLOW if low[2] in MADV_ALLOWED.values() else ERRNO | errno.EPERM
    if verdict == "socket":
        return ALLOW if low[0] in (1, 2, 10, 16) else ERRNO | errno.EAFNOSUPPORT
    if verdict == "preadv2":
        return ERRNO | errno.EOPNOTSUPP if low[5] & 0x08 else ALLOW
    if verdict == "prctl":  # PR_SET_PDEATHSIG with SIGCONT
        return ERRNO | errno.EPERM if (low[0], low[1]) == (1, 18) else ALLOW
    assert verdict == "clone", verdict
    return ERRNO | errno.EPERM if low[0] & 0x7E020000 or low[0] & 0xFF == 18 else ALLOW


@pytest.mark.parametrize("machine", MACHINES)
def test_the_filters_and_their_chain_are_well_formed(machine: str) -> None:
    first, then = userns_program(machine), allowlist_program(machine)
    assert first is not None
    assert then is not None
    well_formed(first)
    well_formed(then)
    well_formed(chained(first, then) or b"")


def test_a_missing_program_leaves_the_other() -> None:
    program = allowlist_program("x86_64")
    assert chained(None, program) == program
    assert chained(program, None) == program
    assert chained(None, None) is None
    assert allowlist_program("riscv64") is None


ARGS = [
    (0, 0, 0, 0, 0, 0),
    (1, 6, 4, 0, 0, 0),  # AF_UNIX; F_SETLK; MADV_DONTNEED
    (40, 5, 3, 0, 0, 8),  # AF_VSOCK; F_GETLK; MADV_WILLNEED; RWF_NOWAIT
    (0x10000011, 1026, 21, 0, 0, 0),  # CLONE_NEWUSER; F_NOTIFY; MADV_PAGEOUT
    (2 | 0xFFFFFFFF00000000, 1024 | 1 << 40, 8, 0, 0, 0),  # high halves unread
    (1, 18, 0, 0, 0, 0),  # PR_SET_PDEATHSIG, SIGCONT; clone's exit signal SIGHUP
    (0x01200012, 17, 0, 0, 0, 0),  # clone's exit signal SIGCONT; PR_SET_PDEATHSIG's SIGCHLD
]


@pytest.mark.parametrize("machine", MACHINES)
@pytest.mark.parametrize("args", ARGS, ids=range(len(ARGS)))
def test_the_allowlist_gives_every_number_the_verdict_of_its_table(
    machine: str, args: tuple[int, ...]
) -> None:
    program = allowlist_program(machine)
    assert program is not None
    for arch in [*ARCHES[machine], 0x12345678]:
        numbers = [*range(1024), 0x3FFFFFFF, 0x40000000, 0x40000000 + 1, 0x4000013F, 0xFFFFFFFF]
        for nr in numbers:
            got = run(program, arch, nr, args)
            assert got == expected(arch, nr, args), (NAMES.get(arch), nr, hex(got))


@pytest.mark.parametrize(
    ("arch", "nr", "args", "verdict"),
    [
        ("x86_64", 0, (), ALLOW),  # read
        ("x86_64", 59, (), ALLOW),  # execve
        ("x86_64", 221, (), errno.EPERM),  # fadvise64
        ("x86_64", 187, (), errno.EPERM),  # readahead
        ("x86_64", 27, (), errno.ENOSYS),  # mincore
        ("x86_64", 451, (), errno.ENOSYS),  # cachestat
        ("x86_64", 1000, (), errno.ENOSYS),  # no such call
        ("x86_64", 335, (), errno.ENOSYS),  # a call the list does not name (uretprobe)
        ("x86_64", 165, (), errno.EPERM),  # mount
        ("x86_64", 101, (), errno.EPERM),  # ptrace
        ("x86_64", 321, (), errno.EPERM),  # bpf
        ("x86_64", 298, (), errno.EPERM),  # perf_event_open
        ("x86_64", 323, (), errno.EPERM),  # userfaultfd
        ("x86_64", 246, (), errno.EPERM),  # kexec_load
        ("x86_64", 175, (), errno.EPERM),  # init_module
        ("x86_64", 167, (), errno.EPERM),  # swapon
        ("x86_64", 169, (), errno.EPERM),  # reboot
        ("x86_64", 250, (), errno.ENOSYS),  # keyctl
        ("x86_64", 435, (), errno.ENOSYS),  # clone3
        ("x86_64", 56, (0x01200011,), ALLOW),  # clone: fork, exit signal SIGCHLD
        ("x86_64", 56, (0x003D0F00,), ALLOW),  # clone: a thread, no exit signal
        ("x86_64", 56, (0x01200012,), errno.EPERM),  # clone: exit signal SIGCONT
        ("x86_64", 157, (1, 9), ALLOW),  # prctl(PR_SET_PDEATHSIG, SIGKILL)
        ("x86_64", 157, (1, 18), errno.EPERM),  # prctl(PR_SET_PDEATHSIG, SIGCONT)
        ("x86_64", 157, (15, 18), ALLOW),  # prctl(PR_SET_NAME, ...)
        ("i386", 120, (0x12,), errno.EPERM),  # clone: exit signal SIGCONT
        ("i386", 172, (1, 18), errno.EPERM),  # prctl(PR_SET_PDEATHSIG, SIGCONT)
        ("aarch64", 220, (0x12,), errno.EPERM),  # clone: exit signal SIGCONT
        ("aarch64", 167, (1, 18), errno.EPERM),  # prctl(PR_SET_PDEATHSIG, SIGCONT)
        ("x86_64", 41, (40,), errno.EAFNOSUPPORT),  # socket(AF_VSOCK)
        ("x86_64", 41, (2,), ALLOW),  # socket(AF_INET)
        ("x86_64", 28, (0, 0, 4), ALLOW),  # madvise(MADV_DONTNEED)
        ("x86_64", 28, (0, 0, 8), ALLOW),  # madvise(MADV_FREE)
        ("x86_64", 28, (0, 0, 3), errno.EPERM),  # madvise(MADV_WILLNEED)
        ("x86_64", 28, (0, 0, 25), errno.EPERM),  # madvise(MADV_COLLAPSE)
        ("x86_64", 0x40000000, (), errno.EPERM),  # x32's read
        ("i386", 20, (), ALLOW),  # getpid
        ("i386", 102, (), errno.ENOSYS),  # socketcall
        ("i386", 272, (), errno.EPERM),  # fadvise64_64
        ("i386", 250, (), errno.EPERM),  # fadvise64
        ("i386", 359, (40,), errno.EAFNOSUPPORT),  # socket(AF_VSOCK)
        ("aarch64", 223, (), errno.EPERM),  # fadvise64
        ("aarch64", 232, (), errno.ENOSYS),  # mincore
        ("aarch64", 40, (), errno.EPERM),  # mount
        ("aarch64", 198, (40,), errno.EAFNOSUPPORT),  # socket(AF_VSOCK)
        ("aarch64", 63, (), ALLOW),  # read
    ],
)
def test_what_the_allowlist_says_of_some_calls(
    arch: str, nr: int, args: tuple[int, ...], verdict: int
) -> None:
    machine = "aarch64" if arch == "aarch64" else "x86_64"
    program = allowlist_program(machine)
    assert program is not None
    audit = _syscalls.AUDIT_ARCH[arch]
    full = (*args, *[0] * (6 - len(args)))
    assert run(program, audit, nr, full) == (ALLOW if verdict == ALLOW else ERRNO | verdict)


def test_the_table_names_each_call_once_and_knows_its_numbers() -> None:
    names = [name for rule in _syscalls.POLICY for name in rule.names]
    assert len(names) == len(set(names))
    assert set(names) == set(_syscalls.NUMBERS)
    for rule in _syscalls.POLICY:
        assert rule.reason
        assert rule.verdict in (_syscalls.ALLOW, _syscalls.ENOSYS, _syscalls.EPERM) or (
            rule.verdict in _syscalls.JUDGED
        )
    for column, arch in enumerate(_syscalls.ARCHES):
        numbers = [n[column] for n in _syscalls.NUMBERS.values() if n[column] is not None]
        assert len(numbers) == len(set(numbers)), arch
        assert all(0 <= n < 1024 for n in numbers)
    assert all(any(n is not None for n in numbers) for numbers in _syscalls.NUMBERS.values())


def test_the_program_reads_back_whole_from_its_descriptor() -> None:
    """More than a pipe holds without a reader where pipes are short (4 KiB)."""
    program = allowlist_program("x86_64")
    assert program is not None
    assert len(program) > 4096
    fd = program_fd(program)
    try:
        read = b""
        while chunk := os.read(fd, 1 << 16):
            read += chunk
    finally:
        os.close(fd)
    assert read == program


CALLS = st.one_of(
    st.integers(0, 1023),  # the numbers in use, the judged ones among them
    st.integers(0x40000000, 0x40000200),  # x32
)
FLAGS = st.sampled_from([0, 0x08, 0x10000000, 0x10000011, 5, 6, 7, 10, 12, 13, 36, 1024, 1026])


@pytest.mark.parametrize("machine", MACHINES)
@given(
    arch=st.integers(0, 2),
    nr=CALLS,
    args=st.tuples(FLAGS, FLAGS, FLAGS, FLAGS, FLAGS, FLAGS),
)
def test_the_chain_judges_as_the_two_filters_do(
    machine: str, arch: int, nr: int, args: tuple[int, ...]
) -> None:
    first, then = userns_program(machine), allowlist_program(machine)
    assert first is not None
    assert then is not None
    audit = [*ARCHES[machine], 0x12345678][min(arch, len(ARCHES[machine]))]
    one, two = run(first, audit, nr, args), run(then, audit, nr, args)
    expected = one if one != ALLOW else two
    assert run(chained(first, then) or b"", audit, nr, args) == expected


@pytest.mark.parametrize(
    ("nr", "arg0", "denied"),
    [
        (272, 0x10000000, True),  # unshare(CLONE_NEWUSER)
        (56, 0x10000011, True),  # clone(CLONE_NEWUSER | SIGCHLD)
        (56, 0x11, False),  # clone(SIGCHLD)
        (73, 0, True),  # flock: "succeeds" without a lock (an errno of 0)
        (253, 0, True),  # inotify_init
        (0, 0, False),  # read
    ],
)
def test_the_chain_denies_what_each_filter_denies(nr: int, arg0: int, denied: bool) -> None:
    program = chained(userns_program("x86_64"), allowlist_program("x86_64"))
    assert program is not None
    assert (run(program, 0xC000003E, nr, (arg0, 0, 0, 0, 0, 0)) != ALLOW) == denied


def test_a_search_past_the_reach_of_a_conditional_jump_goes_through_a_long_one() -> None:
    """A branch longer than 255 instructions (the x86_64 table's are not, yet) is
    jumped over by an unconditional jump."""
    verdicts = [_syscalls.ALLOW, _syscalls.EPERM, "socket"]
    ranges = [_Range(n, n, verdicts[n % 3]) for n in range(999)]
    ranges.append(_Range(999, 0xFFFFFFFF, _syscalls.ENOSYS))
    code = [(0x20, 0, 0, 0), *_search(ranges)]
    assert any(op == 0x05 for op, *_ in code)
    program = b"".join(struct.pack("HBBI", *insn) for insn in code)
    well_formed(program)
    answers = {
        _syscalls.ALLOW: ALLOW,
        _syscalls.EPERM: ERRNO | errno.EPERM,
        "socket": ERRNO | errno.EAFNOSUPPORT,
    }
    for nr in range(999):
        assert run(program, 0, nr, (0,) * 6) == answers[verdicts[nr % 3]], nr
    assert run(program, 0, 5000, (0,) * 6) == ERRNO | errno.ENOSYS


USERNS_CALLS = {  # (clone, unshare, clone3, setns) of each architecture
    0xC000003E: (56, 272, 435, 308),
    0x40000003: (120, 310, 435, 346),
    0xC00000B7: (220, 97, 435, 268),
}


def userns_expected(machine: str, arch: int, nr: int, arg0: int) -> int:
    """What the user-namespace filter alone says (`arena._seccomp`'s docstring): the
    filter a build started by root gets, with no allow-list behind it."""
    if arch not in ARCHES[machine]:
        return ALLOW  # not an architecture of this machine: not its to judge
    if arch == 0xC000003E and nr >= 0x40000000:
        return ERRNO | errno.EPERM  # x32
    clone, unshare, clone3, setns = USERNS_CALLS[arch]
    if nr == clone3:
        return ERRNO | errno.ENOSYS
    if nr == setns or (nr in (clone, unshare) and arg0 & 0x10000000):
        return ERRNO | errno.EPERM
    return ALLOW


@pytest.mark.parametrize("machine", MACHINES)
@pytest.mark.parametrize("arg0", [0, 0x11, 0x10000000, 0x10000011, 0x20000, 0xFFFFFFFF])
def test_the_user_namespace_filter_alone_denies_exactly_its_calls(machine: str, arg0: int) -> None:
    program = userns_program(machine)
    assert program is not None
    numbers = [*range(1024), 0x3FFFFFFF, 0x40000000, 0x40000038, 0x40000110, 0xFFFFFFFF]
    for arch in [*ARCHES[machine], *ARCHES["aarch64" if machine == "x86_64" else "x86_64"]]:
        for nr in numbers:
            got = run(program, arch, nr, (arg0, 0, 0, 0, 0, 0))
            assert got == userns_expected(machine, arch, nr, arg0), (hex(arch), nr, hex(got))


@pytest.mark.parametrize(
    "flag",
    [0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000],
    ids=["NEWNS", "NEWCGROUP", "NEWUTS", "NEWIPC", "NEWUSER", "NEWPID", "NEWNET"],
)
def test_the_allowlist_refuses_a_clone_into_each_new_namespace(flag: int) -> None:
    """Each namespace flag by itself (a fork's flags and SIGCHLD besides it)."""
    for machine, arch, clone in [("x86_64", 0xC000003E, 56), ("x86_64", 0x40000003, 120),
                                 ("aarch64", 0xC00000B7, 220)]:  # fmt: skip
        program = allowlist_program(machine)
        assert program is not None
        assert run(program, arch, clone, (0x01200011,) + (0,) * 5) == ALLOW
        assert run(program, arch, clone, (0x01200011 | flag,) + (0,) * 5) == ERRNO | errno.EPERM


JUDGED_CALLS = {  # name: (x86_64, i386, aarch64), the argument judged
    "fcntl": ((72, 55, 25), 1),
    "madvise": ((28, 219, 233), 2),
    "socket": ((41, 359, 198), 0),
    "preadv2": ((327, 378, 286), 5),
}


@pytest.mark.parametrize("name", sorted(JUDGED_CALLS))
def test_each_value_of_a_judged_argument_gets_the_verdict_of_the_table(name: str) -> None:
    """Every value 0 to 1100 of the argument a judged call is judged by (fcntl's
    command, madvise's advice, socket's family, preadv2's flags), on each architecture:
    the OFD locks (37, 38) "succeed" as the others do, F_SETSIG is refused, and so on."""
    numbers, which = JUDGED_CALLS[name]
    for arch, nr in zip([0xC000003E, 0x40000003, 0xC00000B7], numbers, strict=True):
        program = allowlist_program("aarch64" if arch == 0xC00000B7 else "x86_64")
        assert program is not None
        assert _syscalls.verdicts(NAMES[arch]).get(nr) == name
        for value in [*range(1100), 1 << 31]:
            args = tuple(value if i == which else 0 for i in range(6))
            assert run(program, arch, nr, args) == expected(arch, nr, args), (arch, value)
