"""Leagues on a Dask distributed cluster: games as tasks on other machines.

`arena league FILE --cluster tcp://HOST:8786` keeps the league process as the
coordinator (the schedule, the one SQLite store, progress, disqualifications, resume,
Ctrl-C: all as in a local league) and hands each game to the cluster as one task:

- The bots travel through Dask, not a shared file system: each submission is packed
  once (`_bundles.pack`: the files its digest covers), shipped to the cluster once,
  unpacked on each worker machine the first time it is needed, checked against the
  digest the store records, built there once and cached by that digest. The builds
  run on every worker before the schedule is made; a bot whose build fails on any
  worker is left out with the worker's address and the build's output.
- A game task (`_tasks.play_games`) hands its game (or a few quick games, one after
  the other) to a `python -m arena.worker` process kept on that Dask worker for the
  run: the referee, the sandbox, the clocks and the limits are those of a local
  league; nothing of the referee runs in the coordinator.
- A worker that dies costs only its games in flight: Dask runs their tasks again
  elsewhere, and each game's result reaches the coordinator once (its task key names
  the run, so the tasks of an earlier, killed coordinator never do). So does an arena
  worker process killed on a worker that lives on (the OOM killer, an operator): the
  coordinator sends its task again (`_tasks.WorkerProcessDied`), and no bot is charged.

`DaskRunner` is the game runner (`arena.runners`); `parse_address` checks an address.
Dask itself is imported only when a cluster is used (the `cluster` extra).
"""

from __future__ import annotations

from arena.cluster._address import DEFAULT_PORT, parse_address
from arena.cluster._runner import DaskRunner
from arena.cluster._tasks import ClusterError

__all__ = ["DEFAULT_PORT", "ClusterError", "DaskRunner", "parse_address"]
