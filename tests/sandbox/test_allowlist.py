"""The allow-list on real processes (issue 40.2; SPEC §14.4): a bot's process that
makes a call the list refuses gets its errno (ENOSYS as on a kernel without the
call, EPERM for what a bot has no business doing, EAFNOSUPPORT for a socket family),
and runs on; what its runtime needs works. Every argument here is harmless, so that
a filter that failed would not touch the machine either.

The kits under the sandbox are in test_sandbox_run.py and tests/kits; the locks,
watches and keyrings in test_covert_channels.py; the page cache in test_page_cache.py
and test_spy_pair.py.
"""

from __future__ import annotations

import json
import platform
import textwrap
from pathlib import Path
from typing import Any

import pytest

from arena import _syscalls
from arena.sandbox import bwrap_wrap

from .helpers import needs_bwrap, one_after_another

ARCH = {"x86_64": "x86_64", "aarch64": "aarch64"}.get(platform.machine())
NUMBERS = {
    name: numbers[_syscalls.ARCHES.index(ARCH)]
    for name, numbers in _syscalls.NUMBERS.items()
    if ARCH is not None and numbers[_syscalls.ARCHES.index(ARCH)] is not None
}

CALLS = {
    # The page cache: probed, or moved without a read.
    "mincore": ("mincore", 0, 0, 0),
    "cachestat": ("cachestat", -1, 0, 0, 0),
    "fadvise64": ("fadvise64", -1, 0, 0, 0),
    "readahead": ("readahead", -1, 0, 0),
    "process_madvise": ("process_madvise", -1, 0, 0, 0, 0),
    "io_uring_setup": ("io_uring_setup", 0, 0),
    "io_setup": ("io_setup", 0, 0),
    # Numbers no call has (yet), and calls the list does not name.
    "number 1000": (1000,),
    "number 600": (600,),
    "lsm_list_modules": (461, 0, 0, 0),  # (the list names neither)
    "landlock_create_ruleset": (444, 0, 0, 1),
    # Calls a bot has no business making.
    "mount": ("mount", 0, 0, 0, 0, 0),
    "umount2": ("umount2", 0, 0),
    "pivot_root": ("pivot_root", 0, 0),
    "unshare": ("unshare", 0),
    "setns": ("setns", -1, 0),
    "ptrace": ("ptrace", -1, 0, 0, 0),
    "process_vm_readv": ("process_vm_readv", 0, 0, 0, 0, 0, 0),
    "pidfd_getfd": ("pidfd_getfd", -1, -1, 0),
    "bpf": ("bpf", -1, 0, 0),
    "perf_event_open": ("perf_event_open", 0, 0, -1, -1, 0),
    "userfaultfd": ("userfaultfd", -1),
    "kexec_load": ("kexec_load", 0, 0, 0, -1),
    "init_module": ("init_module", 0, 0, 0),
    "finit_module": ("finit_module", -1, 0, -1),
    "swapon": ("swapon", 0, 0),
    "reboot": ("reboot", 0, 0, 0, 0),
    "settimeofday": ("settimeofday", 0, 0),
    "open_by_handle_at": ("open_by_handle_at", -1, 0, 0),
    "keyctl": ("keyctl", -1, 0, 0, 0, 0),
    "clone3": ("clone3", 0, 0),
    "setsid": ("setsid",),
    "inotify_init1": ("inotify_init1", 0),
    "fanotify_init": ("fanotify_init", 0, 0),
    # What runtimes need.
    "getpid": ("getpid",),
    "getrandom": ("getrandom", 0, 0, 0),
    "sched_yield": ("sched_yield",),
    "membarrier": ("membarrier", 0, 0, 0),
}
"""Each probe: the call's name (or number) and its arguments."""

REFUSED = {
    "mincore": "ENOSYS", "cachestat": "ENOSYS", "fadvise64": "EPERM", "readahead": "EPERM",
    "process_madvise": "EPERM", "io_uring_setup": "ENOSYS", "io_setup": "ENOSYS",
    "number 1000": "ENOSYS", "number 600": "ENOSYS", "lsm_list_modules": "ENOSYS",
    "landlock_create_ruleset": "ENOSYS", "mount": "EPERM", "umount2": "EPERM",
    "pivot_root": "EPERM", "unshare": "EPERM", "setns": "EPERM", "ptrace": "EPERM",
    "process_vm_readv": "EPERM", "pidfd_getfd": "EPERM", "bpf": "EPERM",
    "perf_event_open": "EPERM", "userfaultfd": "EPERM", "kexec_load": "EPERM",
    "init_module": "EPERM", "finit_module": "EPERM", "swapon": "EPERM", "reboot": "EPERM",
    "settimeofday": "EPERM", "open_by_handle_at": "EPERM", "keyctl": "ENOSYS",
    "clone3": "ENOSYS", "setsid": "EPERM", "inotify_init1": "ENOSYS", "fanotify_init": "EPERM",
    "getpid": "ok", "getrandom": "ok", "sched_yield": "ok", "membarrier": "ok",
}  # fmt: skip

ADVICE = {
    "MADV_WILLNEED": 3, "MADV_REMOVE": 9, "MADV_COLD": 20, "MADV_PAGEOUT": 21,
    "MADV_POPULATE_READ": 22, "MADV_POPULATE_WRITE": 23, "MADV_COLLAPSE": 25,
    "MADV_MERGEABLE": 12, "MADV_DONTNEED": 4, "MADV_FREE": 8, "MADV_DONTFORK": 10,
    "MADV_NOHUGEPAGE": 15, "MADV_RANDOM": 1,
}  # fmt: skip
ADVICE_ALLOWED = {"MADV_DONTNEED", "MADV_FREE", "MADV_DONTFORK", "MADV_NOHUGEPAGE", "MADV_RANDOM"}

FAMILIES = {"AF_VSOCK": 40, "AF_PACKET": 17, "AF_BLUETOOTH": 31, "AF_ALG": 38, "AF_UNIX": 1}

PROBE = textwrap.dedent(
    """
    import ctypes, errno, json, mmap, os, platform, socket, sys
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    NUMBERS, CALLS, ADVICE, FAMILIES = json.loads(sys.argv[1])
    out = {}

    def result(got):
        if got < 0:
            return errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
        return "ok"

    for probe, (call, *args) in CALLS.items():
        number = NUMBERS[call] if isinstance(call, str) else call
        out[probe] = result(libc.syscall(number, *(ctypes.c_long(a) for a in args)))
    size = 4096 * 4
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    for name, advice in ADVICE.items():
        memory = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        memory.write(b"x" * size)
        address = ctypes.addressof(ctypes.c_char.from_buffer(memory))
        out[name] = result(libc.madvise(address, size, advice))
    for name, family in FAMILIES.items():
        try:
            socket.socket(family, socket.SOCK_DGRAM if family != 1 else socket.SOCK_STREAM).close()
            out[name] = "ok"
        except OSError as err:
            out[name] = errno.errorcode.get(err.errno, str(err.errno))

    # i386's calls through int 0x80, in a child (a kernel without them kills it).
    if platform.machine() == "x86_64":
        read, write = os.pipe()
        child = os.fork()
        if child == 0:
            os.close(read)
            # push rbx; mov eax, edi; xor ebx, ebx; xor ecx, ecx; xor edx, edx;
            # int 0x80; pop rbx; ret
            code = bytes.fromhex("53 89f8 31db 31c9 31d2 cd80 5b c3")
            page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
            page.write(code)
            address = ctypes.addressof(ctypes.c_char.from_buffer(page))
            int80 = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int)(address)
            got = {}
            for name, number in (("getpid", 20), ("socketcall", 102), ("fadvise64_64", 272),
                                 ("mount", 21), ("number 1000", 1000)):
                value = int80(number)
                got[name] = "ok" if value >= 0 else errno.errorcode.get(-value, str(-value))
            os.write(write, json.dumps(got).encode())
            os._exit(0)
        os.close(write)
        data = os.read(read, 4096)
        _, status = os.waitpid(child, 0)
        out["i386"] = json.loads(data) if data else f"status {status}"
    print("PROBED " + json.dumps(out), file=sys.stderr, flush=True)
    """
)


async def probe(tmp_path: Path) -> dict[str, Any]:
    """What each call returned in a bot's process under the sandbox."""
    folder = tmp_path / "bot"
    folder.mkdir(mode=0o755)
    given = json.dumps([NUMBERS, CALLS, ADVICE, FAMILIES])
    script = PROBE.replace("json.loads(sys.argv[1])", f"json.loads({given!r})")
    (seen,) = await one_after_another(
        tmp_path, folder, [("probe", script, "PROBED ")], bwrap_wrap()
    )
    return seen


@needs_bwrap
@pytest.mark.skipif(ARCH is None, reason="the allow-list knows x86_64 and aarch64")
async def test_each_refused_call_gets_its_errno_and_the_process_runs_on(tmp_path: Path) -> None:
    seen = await probe(tmp_path)
    print(json.dumps(seen))  # the table in docs/fair-play.md (pytest -s)
    assert_the_list_holds(seen)


def assert_the_list_holds(seen: dict[str, Any]) -> None:
    """What `probe` found is what the allow-list says: each refused call got its errno,
    each needed one worked."""
    assert {name: seen[name] for name in REFUSED} == REFUSED
    for name in ADVICE:
        assert seen[name] == ("ok" if name in ADVICE_ALLOWED else "EPERM"), (name, seen[name])
    assert seen["AF_UNIX"] == "ok"
    for family in ("AF_VSOCK", "AF_PACKET", "AF_BLUETOOTH", "AF_ALG"):
        assert seen[family] == "EAFNOSUPPORT"
    if ARCH == "x86_64" and isinstance(seen["i386"], dict):  # (a kernel with int 0x80)
        assert seen["i386"] == {
            "getpid": "ok",
            "socketcall": "ENOSYS",
            "fadvise64_64": "EPERM",
            "mount": "EPERM",
            "number 1000": "ENOSYS",
        }
