"""`ArenaPlugin`: arena's state in each Dask worker, as a Dask `WorkerPlugin`.

`DaskRunner.open` registers it on the cluster (every worker, and each that joins
later); it holds a `arena.cluster._tasks.Here` (the bots built, each run's setup and
its worker processes), hears of the tasks no longer wanted (cancelled, their client
gone) from Dask's transitions, and closes everything when its worker does.

On setup it checks the sandboxes this worker can run bots in (`Here.sandbox_problem`,
the check the coordinator makes of its own machine) and declares a `gate` resource for
each, named by this worker's arena version: game tasks require the one of their
coordinator's version and sandbox, so a worker that cannot sandbox, or runs another
arena (whose own code knows nothing of this, or names another version), is given no
game. Imported only where Dask is (the coordinator that opens a cluster, its workers).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from distributed import Worker, WorkerPlugin
from distributed.core import Status

from arena.cluster._tasks import PLUGIN, Here, fit_gates

_UNWANTED = frozenset({"cancelled", "released", "forgotten"})
"""The states a task enters once nobody waits for its result."""

logger = logging.getLogger("distributed.worker")


class ArenaPlugin(WorkerPlugin):
    """See the module docstring. Registering it again (a second coordinator) keeps the
    one each worker has, and the runs it holds."""

    idempotent = True
    name = PLUGIN

    def __init__(self) -> None:
        self.here: Here | None = None

    async def setup(self, worker: Worker) -> None:
        here = self.here = Here(worker)
        try:
            gates = await asyncio.get_running_loop().run_in_executor(None, fit_gates, here)
            unfit = here.sandbox_problem("bwrap")
            if unfit is not None:
                logger.warning(
                    "arena: this worker cannot run bots in the sandbox bwrap (%s): it is"
                    " given no game that needs it",
                    unfit,
                )
            await worker.set_resources(**gates)
        except Exception as err:  # never fails the worker: it is then given no game
            logger.warning("arena: cannot declare what this worker can run: %s", err)
            return
        # Tasks that waited for a worker with these resources ("no-worker") are looked
        # at again only when a worker starts running: tell the scheduler once more.
        with contextlib.suppress(Exception):
            if worker.status == Status.running:
                worker.status = Status.paused
                worker.status = Status.running

    def teardown(self, worker: Worker) -> None:
        if self.here is not None:
            self.here.shut()

    def transition(self, key: Any, start: str, finish: str, **kwargs: Any) -> None:
        if self.here is None or not isinstance(key, str):
            return
        if finish in _UNWANTED:
            self.here.stop(key)
        elif finish == "waiting":  # (every task given to a worker starts there)
            self.here.want(key)
