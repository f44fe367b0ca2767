"""The page cache as a channel between bot processes that never run at the same time
(the table of attacks in docs/fair-play.md; SPEC §14.4, §14.6).

The kernel keeps one page cache per file, for every mount of it and every process.
A process that reads chosen pages of a file in its folder leaves them cached after it
has exited, and a later process of the same bot (another game of one deal) can ask
the kernel which pages are cached without reading them: preadv2 with RWF_NOWAIT
fails on a page that is not, mincore and cachestat report it, and io_uring and
Linux AIO (io_submit) read without waiting too. That is how a hand seen in one game
of a duplicate group would reach the next game of the group, however strictly the
processes are kept apart.

Here a writer reads the pages that spell a number and exits; then a reader, in a
sandbox of its own, asks for them. Without the sandbox the probes read the number
exactly (the control); under the sandbox every one of them fails. What no filter can
close is timing a read (a cached page comes back sooner): that is why duplicate deals
are off by default (`test_a_league_deals_every_game_afresh_by_default`).
"""

from __future__ import annotations

import ctypes
import errno
import mmap
import os
import platform
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from arena.sandbox import bwrap_wrap

from .helpers import needs_bwrap, one_after_another

SECRET = 0b1011_0010_1100_1100  # the first bits 0: a page read ahead by mistake shows
BITS = 16
STRIDE = 256
IO_SETUP = {"x86_64": 206, "aarch64": 0}.get(platform.machine(), 206)
"""Pages between two bits: past any read-ahead of one page's read."""

WRITER = textwrap.dedent(
    f"""
    import os, sys
    fd = os.open("pad", os.O_RDONLY)
    try:  # (refused in the sandbox: STRIDE keeps the bits past any read-ahead anyway)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
    except OSError:
        pass
    for bit in range({BITS}):
        if ({SECRET} >> bit) & 1:
            os.pread(fd, 1, (1 + bit * {STRIDE}) * 4096)
    print("WROTE {{}}", file=sys.stderr, flush=True)
    """
)

READER = textwrap.dedent(
    f"""
    import ctypes, errno, json, mmap, os, sys
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    pages = [1 + bit * {STRIDE} for bit in range({BITS})]
    fd = os.open("pad", os.O_RDONLY)
    out = {{}}

    def number(cached):
        return sum(1 << bit for bit, hit in enumerate(cached) if hit)

    def failed():
        return errno.errorcode.get(ctypes.get_errno(), "?")

    size = os.fstat(fd).st_size
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    mapped = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    vector = (ctypes.c_ubyte * (size // 4096))()
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    if libc.mincore(ctypes.c_void_p(mapped), size, vector) == 0:
        out["mincore"] = number([vector[page] & 1 for page in pages])
    else:
        out["mincore"] = failed()

    class Range(ctypes.Structure):
        _fields_ = [("offset", ctypes.c_uint64), ("length", ctypes.c_uint64)]

    class Stat(ctypes.Structure):
        _fields_ = [(name, ctypes.c_uint64) for name in ("cache", "dirty", "writeback",
                    "evicted", "recently_evicted")]

    hits = []
    for page in pages:
        stat = Stat()
        if libc.syscall(451, fd, ctypes.byref(Range(page * 4096, 4096)),
                        ctypes.byref(stat), 0) != 0:
            hits = failed()
            break
        hits.append(stat.cache > 0)
    out["cachestat"] = hits if isinstance(hits, str) else number(hits)

    # Last: a read without waiting starts reading a page that is not cached.
    try:  # preadv2(RWF_NOWAIT): EAGAIN for a page that is not cached
        hits = []
        for page in pages:
            try:
                os.preadv(fd, [bytearray(1)], page * 4096, os.RWF_NOWAIT)
                hits.append(True)
            except BlockingIOError:
                hits.append(False)
        out["nowait"] = number(hits)
    except OSError as err:
        out["nowait"] = errno.errorcode.get(err.errno, str(err.errno))

    params = (ctypes.c_ubyte * 120)()
    ring = libc.syscall(425, 4, params)
    out["io_uring"] = "opened" if ring >= 0 else failed()
    context = ctypes.c_ulong(0)
    aio = libc.syscall({IO_SETUP}, 4, ctypes.byref(context))
    out["aio"] = "opened" if aio == 0 else failed()
    print("READ " + json.dumps(out), file=sys.stderr, flush=True)
    """
)


def cached(path: Path) -> list[int]:
    """The pages of `path` in the page cache, asked of mincore (which, unlike a read
    without waiting, starts no read)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]  # fmt: skip
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    size = path.stat().st_size
    vector = (ctypes.c_ubyte * (size // 4096))()
    fd = os.open(path, os.O_RDONLY)
    try:
        mapped = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if mapped in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), f"mmap {path}")
        try:
            if libc.mincore(ctypes.c_void_p(mapped), size, vector) != 0:
                raise OSError(ctypes.get_errno(), f"mincore {path}")
        finally:
            libc.munmap(ctypes.c_void_p(mapped), size)
    finally:
        os.close(fd)
    return [page for page, state in enumerate(vector) if state & 1]


def evict(path: Path) -> bool:
    """Drop every page of `path` from the page cache; False where no page can be (a
    file system in memory, such as tmpfs, is its own page cache).

    One DONTNEED can leave pages behind on a busy machine (a page the kernel holds for
    a moment, as reclaim does, is skipped), so it is asked again until mincore finds
    none: a page left cached would read as a bit the writer never set."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        pages = os.fstat(fd).st_size // 4096
        for attempt in range(1000):
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            left = cached(path)
            if not left:
                return True
            if len(left) == pages and attempt >= 2:
                return False  # not one page ever leaves
            time.sleep(0.01)
        raise AssertionError(f"{len(left)} pages of {path} stay cached after 1000 tries")
    finally:
        os.close(fd)


def pad_folder(tmp_path: Path) -> Path:
    """A bot folder holding "pad": a page a bit at every STRIDE pages, none of it cached
    (the test is skipped where that cannot be)."""
    folder = tmp_path / "bot"
    folder.mkdir(mode=0o755)
    pad = folder / "pad"
    pad.write_bytes(os.urandom((2 + BITS * STRIDE) * 4096))
    pad.chmod(0o644)
    if not evict(pad):
        pytest.skip(f"{tmp_path} is in memory: its pages cannot be evicted")
    return folder


async def relay(tmp_path: Path, sandboxed: bool) -> dict[str, Any]:
    """What a reader learns of the pages a writer read before it (both exited)."""
    folder = pad_folder(tmp_path)
    scripts = [("writer", WRITER, "WROTE "), ("reader", READER, "READ ")]
    wrap = bwrap_wrap() if sandboxed else None
    return (await one_after_another(tmp_path, folder, scripts, wrap))[1]


async def test_without_the_sandbox_the_page_cache_carries_a_number_across_processes(
    tmp_path: Path,
) -> None:
    """The control: a reader that starts after the writer has exited reads its number."""
    seen = await relay(tmp_path, sandboxed=False)
    exact = {"nowait": SECRET, "cachestat": SECRET}
    if os.geteuid() == 0 or os.stat(tmp_path / "bot" / "pad").st_uid == os.geteuid():
        exact["mincore"] = SECRET  # the kernel answers a file's owner (or root)
    assert {probe: seen[probe] for probe in exact} == exact, seen


@needs_bwrap
async def test_under_the_sandbox_the_page_cache_cannot_be_asked(tmp_path: Path) -> None:
    """Every exact probe fails as a kernel without it would: RWF_NOWAIT as on a file
    system without it, mincore, cachestat and io_uring as if absent."""
    seen = await relay(tmp_path, sandboxed=True)
    assert seen == {
        "nowait": errno.errorcode[errno.EOPNOTSUPP],  # ENOTSUP: the same number
        "mincore": "ENOSYS",
        "cachestat": "ENOSYS",
        "io_uring": "ENOSYS",
        "aio": "ENOSYS",
    }
