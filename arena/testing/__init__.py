"""Test doubles for arena and for bot authors, as `trio.testing` is for trio.

- In-memory bots (`FakeBot`, `connect`, `play_policies`): a Python policy plays whole
  games through the referee's own steps, under any clock, with no process.
- Misbehaving bot programs (`script`, `spec`, `BEHAVIOURS`): real processes that hang,
  crash, flood or lie, for testing what runs bots; `alive` and `pids` check that
  nothing of them is left.
- A perfect-information control (`play_seeing`, `SeeingPort`): one seat's acts carry
  every hand (`test_hands`), for measuring what hidden information is worth; only
  reachable from code that imports this module.
- A scripted game runner (`ScriptedRunner`, `by_strength`): what drives games (a
  league, an SPRT) tested in no time, with results of a known shape.
"""

from __future__ import annotations

from arena.testing._memory import FakeBot, Policy, Reply, connect, first_legal, play_policies
from arena.testing._runners import Rank, ScriptedRunner, by_strength, result
from arena.testing._scripts import BEHAVIOURS, alive, pids, script, spec
from arena.testing._seeing import SeeingPort, play_seeing

__all__ = [
    "BEHAVIOURS",
    "FakeBot",
    "Policy",
    "Rank",
    "Reply",
    "ScriptedRunner",
    "SeeingPort",
    "alive",
    "by_strength",
    "connect",
    "first_legal",
    "pids",
    "play_policies",
    "play_seeing",
    "result",
    "script",
    "spec",
]
