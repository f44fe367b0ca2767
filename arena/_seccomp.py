"""A seccomp filter that denies new user namespaces, for bots and builds started by root.

Run as an ordinary user, bubblewrap makes a user namespace for the sandbox and its
`--disable-userns` forbids nesting another. Run by root it needs none, and a bot could
then make one of its own (unshare(CLONE_NEWUSER | CLONE_NEWNS)), mount a tmpfs with
no size limit in it and fill the host's memory. This filter, installed in the child
just before it runs bwrap (root may install one without no_new_privs), is inherited
by bwrap, the bot and everything the bot starts, and makes

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
import platform
import struct
from collections.abc import Callable

_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06

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


def userns_filter() -> Callable[[], None] | None:
    """A function that installs the filter in the calling process (for preexec_fn), or
    None on an architecture this module does not know."""
    arches = _ARCHES.get(platform.machine())
    if arches is None:
        return None
    code = _program(arches)
    buffer = ctypes.create_string_buffer(code, len(code))
    prog = _SockFprog(len(code) // 8, ctypes.addressof(buffer))
    libc = ctypes.CDLL(None, use_errno=True)

    def install() -> None:  # in the child, between fork and exec
        _keep = buffer  # the program must outlive the call
        if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "cannot install the user-namespace filter")
        del _keep

    return install
