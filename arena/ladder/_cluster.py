"""`ClusterLink`: a ladder's Dask cluster, opened again when it fails.

A ladder serves for weeks; its cluster may lose its scheduler (restarted, its machine
rebooted) or fail a game in a way no retry inside `arena.cluster.DaskRunner` mends.
The league stops then, saying so; a ladder's server must not: its web pages and its
submission API keep serving, its table drivers stop, say why, and the link opens a new
connection (a new `DaskRunner`, its bots shipped and built again) every
`LadderSettings.cluster_retry` seconds until one works, when the games go on.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import trio

from arena.cluster import ClusterError, DaskRunner


class ClusterLink:
    """The ladder's open `DaskRunner` (`get`), and the task that opens another when a
    user of it reports it `lost` (`keep`)."""

    def __init__(
        self, address: str, concurrency: int | None, retry: float, say: Callable[[str], None]
    ) -> None:
        self.address = address
        self.concurrency = concurrency
        self.retry = retry
        self.say = say
        self.runner: DaskRunner | None = None
        self._stack: contextlib.AsyncExitStack | None = None
        self._ready = trio.Event()
        self._lost = trio.Event()

    async def connect(self) -> None:
        """Open a runner on the cluster; ClusterError, saying why, if it cannot be."""
        stack = contextlib.AsyncExitStack()
        runner = await stack.enter_async_context(
            DaskRunner.open(self.address, concurrency=self.concurrency, say=self.say)
        )
        self._stack, self.runner = stack, runner
        self._ready.set()

    async def disconnect(self) -> None:
        stack, self._stack, self.runner = self._stack, None, None
        if self._ready.is_set():
            self._ready = trio.Event()
        if stack is not None:
            with trio.CancelScope(shield=True):
                await stack.aclose()

    async def get(self) -> DaskRunner:
        """The runner open now (waiting while the link opens a new one)."""
        while self.runner is None:
            await self._ready.wait()
        return self.runner

    def healthy(self, runner: object) -> bool:
        """Whether `runner` is the one open now and still speaks to its scheduler."""
        client = getattr(runner, "client", None)
        return runner is self.runner and getattr(client, "status", "") == "running"

    def lost(self, runner: object) -> None:
        """`runner` failed: open another (once, however many of its users say so)."""
        if runner is self.runner:
            self._lost.set()

    async def keep(self) -> None:
        """Forever: once the runner is lost, close it and open another every `retry`
        seconds until one opens (after `connect` succeeded once). Closes it on the way
        out."""
        try:
            while True:
                await self._lost.wait()
                self._lost = trio.Event()
                await self.disconnect()
                while True:
                    self.say(
                        f"cluster {self.address}: the games stop; connecting again in"
                        f" {self.retry:g} s (the web pages and submissions go on)"
                    )
                    await trio.sleep(self.retry)
                    try:
                        await self.connect()
                    except ClusterError as err:
                        self.say(f"cluster: {err}")
                        continue
                    self.say(f"cluster {self.address}: connected again; the games go on")
                    break
        finally:
            await self.disconnect()
