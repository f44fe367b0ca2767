"""`ArenaPlugin`: arena's state in each Dask worker, as a Dask `WorkerPlugin`.

`DaskRunner.open` registers it on the cluster (every worker, and each that joins
later); it holds a `arena.cluster._tasks.Here` (the bots built, each run's setup and
its worker processes), hears of the game tasks no longer wanted (cancelled, their
client gone) from Dask's transitions, and closes everything when its worker does.
Imported only where Dask is (the coordinator that opens a cluster, its workers).
"""

from __future__ import annotations

from typing import Any

from distributed import Worker, WorkerPlugin

from arena.cluster._tasks import PLUGIN, Here

_UNWANTED = frozenset({"cancelled", "released", "forgotten"})
"""The states a task enters once nobody waits for its result."""


class ArenaPlugin(WorkerPlugin):
    """See the module docstring. Registering it again (a second coordinator) keeps the
    one each worker has, and the runs it holds."""

    idempotent = True
    name = PLUGIN

    def __init__(self) -> None:
        self.here: Here | None = None

    def setup(self, worker: Worker) -> None:
        self.here = Here(worker)

    def teardown(self, worker: Worker) -> None:
        if self.here is not None:
            self.here.shut()

    def transition(self, key: Any, start: str, finish: str, **kwargs: Any) -> None:
        if finish in _UNWANTED and self.here is not None and isinstance(key, str):
            self.here.stop(key)
