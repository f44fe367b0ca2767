"""The seccomp programs as programs: run by a classic-BPF interpreter over made-up
system calls, the chain of the user-namespace filter and the covert-channel filter
(one program, for bubblewrap's single `--seccomp`) judges every call as the kernel
would judge the two filters installed one after the other: the first to deny wins.

The real filters are tried on real processes in test_hostile.py (a user namespace)
and test_covert_channels.py (locks, watches, keyrings)."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena._seccomp import chained, channels_program, userns_program

ALLOW = 0x7FFF0000
MACHINES = ["x86_64", "aarch64"]
ARCHES = {"x86_64": [0xC000003E, 0x40000003], "aarch64": [0xC00000B7]}


def run(program: bytes, arch: int, nr: int, args: tuple[int, ...]) -> int:
    """What `program` returns for system call `nr` of `arch` with `args` (six u64)."""
    data = struct.pack("IIQ6Q", nr, arch, 0, *args)
    code = [struct.unpack_from("HBBI", program, at) for at in range(0, len(program), 8)]
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
        elif op in (0x15, 0x35, 0x45):  # jeq, jge, jset
            hit = {0x15: acc == k, 0x35: acc >= k, 0x45: acc & k != 0}[op]
            pc += jt if hit else jf
        else:
            raise AssertionError(f"instruction {op:#x} at {pc - 1}")


def well_formed(program: bytes) -> None:
    """Whole instructions, every jump forward and inside, the last one a return."""
    count = len(program) // 8
    assert len(program) == count * 8
    for at in range(count):
        op, jt, jf, k = struct.unpack_from("HBBI", program, at * 8)
        if op == 0x05:
            assert at + 1 + k < count
        elif op & 0x07 == 0x05:
            assert at + 1 + max(jt, jf) < count
    assert struct.unpack_from("HBBI", program, (count - 1) * 8)[0] == 0x06


@pytest.mark.parametrize("machine", MACHINES)
def test_the_filters_and_their_chain_are_well_formed(machine: str) -> None:
    first, then = userns_program(machine), channels_program(machine)
    assert first is not None
    assert then is not None
    well_formed(first)
    well_formed(then)
    well_formed(chained(first, then) or b"")


def test_a_missing_program_leaves_the_other() -> None:
    program = channels_program("x86_64")
    assert chained(None, program) == program
    assert chained(program, None) == program
    assert chained(None, None) is None


CALLS = st.one_of(
    st.integers(0, 460),  # the numbers in use, the judged ones among them
    st.integers(0x40000000, 0x40000200),  # x32
)
FLAGS = st.sampled_from([0, 0x08, 0x10000000, 0x10000011, 5, 6, 7, 12, 13, 36, 1024, 1026])


@pytest.mark.parametrize("machine", MACHINES)
@given(
    arch=st.integers(0, 2),
    nr=CALLS,
    args=st.tuples(FLAGS, FLAGS, FLAGS, FLAGS, FLAGS, FLAGS),
)
def test_the_chain_judges_as_the_two_filters_do(
    machine: str, arch: int, nr: int, args: tuple[int, ...]
) -> None:
    first, then = userns_program(machine), channels_program(machine)
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
    program = chained(userns_program("x86_64"), channels_program("x86_64"))
    assert program is not None
    assert (run(program, 0xC000003E, nr, (arg0, 0, 0, 0, 0, 0)) != ALLOW) == denied
