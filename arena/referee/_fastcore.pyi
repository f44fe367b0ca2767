"""The referee's game in C (arena/referee/_fastcore.c): `arena.rules.Game`'s rules and
the act frames of `arena.referee._wire`, byte for byte. Same API as `_core.PyCore`."""

from arena.referee._core import CoreAPI

Core: type[CoreAPI]
"""One game as `arena.rules.Game` plays it, with the referee's act frames and log
records: the methods of `CoreAPI`."""

def canonical_action(request_id: int) -> bytes: ...
