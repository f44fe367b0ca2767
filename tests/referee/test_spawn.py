"""Starting bot processes (arena.bots._spawn): what a started bot's pipes leave behind."""

from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path

import trio
import trio.testing

import arena.bots._spawn as spawn_module


def pipe_ends() -> set[tuple[str, int]]:
    """This process's pipe descriptors: (the pipe, O_RDONLY or O_WRONLY) for each."""
    ends = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            link = os.readlink(f"/proc/self/fd/{fd}")
            info = Path(f"/proc/self/fdinfo/{fd}").read_text()
        except OSError:  # the listing's own descriptor, gone by now
            continue
        if link.startswith("pipe:"):
            flags = next(line for line in info.splitlines() if line.startswith("flags:"))
            ends.add((link, int(flags.split()[1], 8) & os.O_ACCMODE))
    return ends


async def test_a_bots_ends_of_its_pipes_are_gone_from_arena_before_the_next_fork(
    tmp_path: Path,
) -> None:
    """A child forked while arena still held another bot's ends of its pipes (its
    stdin's read end, its stdout's write end) held them too: with a preexec_fn, from the
    fork until its exec, milliseconds and longer on a busy machine. A bot that closed
    its stdin then had its next act taken whole by that child (a timeout, not the crash
    it earned), and the end of a crashed bot's output went unseen. The spawner thread
    closes them before its next job: here a probe queued behind the spawn, run while
    trio's thread (where the ends were closed before) is held up."""
    spawner = spawn_module._spawner()
    gate = threading.Event()
    spawner.submit(gate.wait)  # the spawn queues behind this
    seen: set[tuple[str, int]] = set()
    probed = threading.Event()

    def probe() -> None:  # what the next fork would copy
        seen.update(pipe_ends())
        probed.set()

    children: list[spawn_module.Child] = []

    async def start() -> None:
        command = [sys.executable, "-c", "import time; time.sleep(60)"]
        env = {"PATH": os.environ.get("PATH", os.defpath)}
        children.append(
            await spawn_module.spawn(command, cwd=str(tmp_path), env=env, preexec_fn=None)
        )

    async with trio.open_nursery() as nursery:
        nursery.start_soon(start)
        await trio.testing.wait_all_tasks_blocked()  # its fork is queued
        spawner.submit(probe)
        gate.set()
        assert probed.wait(120)  # trio's thread waits here: its side of spawn cannot run
    [child] = children
    try:
        stdin = os.readlink(f"/proc/{child.pid}/fd/0")
        stdout = os.readlink(f"/proc/{child.pid}/fd/1")
        assert (stdin, os.O_RDONLY) not in seen
        assert (stdout, os.O_WRONLY) not in seen
        assert (stdin, os.O_WRONLY) in seen  # (the probe saw arena's own ends)
    finally:
        child.send_signal(signal.SIGKILL)
        await child.wait()
        for stream in (child.stdin, child.stdout, child.stderr):
            await stream.aclose()
