"""The spy pair's bit rate and error rate, without the sandbox and under it (issue
40.3; the Fair play table of docs/fair-play.md).

A writer process sets bits in the page cache (pages of a read-only file in its folder)
and exits; a reader, a later process in a sandbox of its own, reads them by counting
its major page faults (tests/sandbox/test_spy_pair.py). Each run draws a 16-bit number
at random for the writer; this prints, per way of writing, the bits the reader got
wrong, the error rate, and the bits a pair carries: 16 x (1 - H(error rate)), the
capacity of a binary symmetric channel with that error rate, or 0 where the reader
read the same number every time (the pad as the test left it, whatever the writer's
number), and the time one pair took (two process starts and exits).

Usage: python bench/spy_pair.py [--runs N]   (bubblewrap for the sandboxed rows)
"""

from __future__ import annotations

import argparse
import math
import secrets
import sys
import tempfile
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.sandbox import bwrap_works
from tests.sandbox import test_spy_pair as pair
from tests.sandbox.test_page_cache import BITS, SECRET
from tests.sandbox.test_page_cache import WRITER as WRITER_BY_READS

WAYS = [
    ("posix_fadvise WILLNEED/DONTNEED", pair.WRITER, False),
    ("madvise WILLNEED (sets)", pair.SETS, False),
    ("madvise PAGEOUT (clears)", pair.CLEARS, True),
    ("madvise DONTNEED (clears?)", pair.DROPS, True),
    ("reading the pages (sets)", WRITER_BY_READS, False),
]
"""(way of writing, writer's script, whether every page starts cached)."""


def entropy(p: float) -> float:
    return 0.0 if p in (0.0, 1.0) else -p * math.log2(p) - (1 - p) * math.log2(1 - p)


async def measure(runs: int, sandboxed: bool) -> None:
    for way, writer, cached in WAYS:
        wrong, seconds, refused, reads = 0, 0.0, set(), set()
        for _ in range(runs):
            number = secrets.randbits(BITS)
            script = writer.replace(str(SECRET), str(number))
            with tempfile.TemporaryDirectory(prefix="arena-spy-") as tmp:
                start = time.perf_counter()
                wrote, read = await pair.spy(Path(tmp), sandboxed, script, cached=cached)
                seconds += time.perf_counter() - start
            refused |= set(wrote) if isinstance(wrote, list) else set()
            wrong += bin(read ^ number).count("1")
            reads.add(read)
        rate = wrong / (runs * BITS)
        # A reader that read one number whatever the writer's learnt nothing.
        carried = 0.0 if len(reads) == 1 else BITS * (1 - entropy(rate))
        where = "sandbox" if sandboxed else "none"
        calls = ",".join(sorted(refused)) or "ok"
        print(
            f"| {where} | {way} | {calls} | {wrong}/{runs * BITS} | {rate:.1%} |"
            f" {carried:.1f} | {seconds / runs * 1000:.0f} ms |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    print(
        "| sandbox | writer | its calls | bits wrong | error rate | bits a pair carries | a pair |"
    )
    print("|---|---|---|---|---|---|---|")
    trio.run(measure, runs, False)
    if bwrap_works():
        trio.run(measure, runs, True)


if __name__ == "__main__":
    main()
