"""Bulk work without the cyclic garbage collector.

Reading a large store or file and rating it make millions of small objects, none of
them in a reference cycle; the collector would walk over all of them again and again
as they pile up (a third or more of the time, measured on 100,000 games). Inside
`paused_collector()` it waits; reference counting still frees everything as usual.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused_collector() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block (if it was running)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
