"""Malformed copies of records, for tests of what arena reads from files that can be
anyone's (replay files, stores)."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence


def mutated(record: object, rng: random.Random) -> object:
    """`record` with one value somewhere in it removed, retyped or made absurd."""
    if isinstance(record, dict) and record:
        key = rng.choice(list(record))
        out = dict(record)
        roll = rng.random()
        if roll < 0.3:
            del out[key]
        elif roll < 0.8:
            out[key] = rng.choice([None, -1, 10**30, "x", [], {}, 1.5, True, [None]])
        else:
            out[key] = mutated(record[key], rng)
        return out
    if isinstance(record, list) and record:
        out_list = list(record)
        at = rng.randrange(len(out_list))
        out_list[at] = mutated(out_list[at], rng)
        return out_list
    return rng.choice([None, -1, 10**30, "x", [], {}, 1.5])


def mutants(
    records: Sequence[object], seed: int, count: int
) -> Iterator[tuple[list[object], object]]:
    """`count` copies of `records`, each with one record `mutated`, and that record."""
    rng = random.Random(seed)
    for _ in range(count):
        at = rng.randrange(len(records))
        bad = list(records)
        bad[at] = mutated(bad[at], rng)
        yield bad, bad[at]
