"""A league worker: a process that plays the games it is sent with its own bot processes.

A league with a concurrency above 1 runs its games in worker processes, one game at a
time each, so that the refereeing itself runs on every core. The coordinator (the
league) keeps the schedule and the store; a worker knows nothing of either. They talk
over the worker's stdin and stdout in the framing of the bot protocol (a 4-byte length
and a msgpack map):

    coordinator -> worker   {"type": "setup", "bots": [...], "settings": {...}}
                            {"type": "game", "game_id", "seats", "seed", "group"}
    worker -> coordinator   {"type": "result", "game_id", "result", "replay",
                             "started_at", "finished_at"}

(the replay comes packed for the store, so that the workers do that work in parallel).

End of input (the coordinator closed it, or died), SIGTERM or SIGINT end the worker:
a game in progress is abandoned and every bot process it started is killed.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import time
from pathlib import Path
from typing import Any

import trio

import protocol
from arena.bots import BotSpec, Limits
from arena.referee import BotPool, Clocks, GameResult, RunSettings, open_pools, play_seated
from arena.rules import GameConfig
from arena.store import pack_replay

MAX_MESSAGE = 1 << 30


def spec_to_dict(spec: BotSpec) -> dict[str, Any]:
    """A BotSpec for the setup message."""
    return {
        "name": spec.name,
        "command": list(spec.command),
        "folder": str(spec.folder) if spec.folder is not None else None,
        "build": list(spec.build) if spec.build is not None else None,
    }


def spec_from_dict(data: dict[str, Any]) -> BotSpec:
    """Read back `spec_to_dict`."""
    return BotSpec(
        name=data["name"],
        command=tuple(data["command"]),
        folder=Path(data["folder"]) if data["folder"] is not None else None,
        build=tuple(data["build"]) if data["build"] is not None else None,
    )


def settings_to_dict(settings: RunSettings, sandbox: str | None) -> dict[str, Any]:
    """RunSettings for the setup message; the wrap travels as the sandbox's name."""
    return {
        "clocks": settings.clocks.to_dict(),
        "limits": {
            "memory_mb": settings.limits.memory_mb,
            "cpu_seconds": settings.limits.cpu_seconds,
            "processes": settings.limits.processes,
            "file_size_mb": settings.limits.file_size_mb,
            "stderr_kb": settings.limits.stderr_kb,
        },
        "max_frame": settings.max_frame,
        "fresh_process": settings.fresh_process,
        "log_dir": str(settings.log_dir) if settings.log_dir is not None else None,
        "sandbox": sandbox,
    }


def settings_from_dict(data: dict[str, Any]) -> RunSettings:
    """Read back `settings_to_dict`."""
    wrap = None
    if data["sandbox"] == "bwrap":
        from arena.sandbox import bwrap_wrap

        wrap = bwrap_wrap()
    return RunSettings(
        clocks=Clocks(**data["clocks"]),
        limits=Limits(**data["limits"]),
        max_frame=data["max_frame"],
        fresh_process=data["fresh_process"],
        log_dir=Path(data["log_dir"]) if data["log_dir"] is not None else None,
        wrap=wrap,
    )


async def _messages(
    stream: trio.abc.ReceiveStream,
    send: trio.MemorySendChannel[dict[str, Any]],
    scope: trio.CancelScope,
) -> None:
    """Pass on the coordinator's messages; at the end of its input, stop everything."""
    decoder = protocol.FrameDecoder(MAX_MESSAGE)
    async with send:
        while data := await stream.receive_some(1 << 16):
            decoder.feed(data)
            for message in decoder:
                await send.send(message)
    scope.cancel()


async def serve(stdin: trio.abc.ReceiveStream, stdout: trio.abc.SendStream) -> None:
    """Play the games sent on `stdin` until it ends; results go to `stdout`."""
    send, receive = trio.open_memory_channel[dict[str, Any]](1)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_messages, stdin, send, nursery.cancel_scope)
        setup = await receive.receive()
        specs = {d["name"]: spec_from_dict(d) for d in setup["bots"]}
        settings = settings_from_dict(setup["settings"])
        config = GameConfig.from_dict(setup["config"])
        async with open_pools(list(specs.values()), settings) as pools:
            async for message in receive:
                result, started, finished = await _play(message, pools, config, settings)
                data = result.to_dict()
                replay = pack_replay(data.pop("log"))  # packed here, in parallel
                reply = {
                    "type": "result",
                    "game_id": message["game_id"],
                    "result": data | {"log": []},
                    "replay": replay,
                    "started_at": started,
                    "finished_at": finished,
                }
                await stdout.send_all(protocol.encode_frame(reply))
        nursery.cancel_scope.cancel()


async def _play(
    message: dict[str, Any],
    pools: dict[str, BotPool],
    config: GameConfig,
    settings: RunSettings,
) -> tuple[GameResult, float, float]:
    started = time.time()
    result = await play_seated(
        [pools[name] for name in message["seats"]],
        config,
        message["seed"],
        clocks=settings.clocks,
        game_id=message["game_id"],
        group=message["group"],
    )
    return result, started, time.time()


async def _main() -> None:
    stdin = trio.lowlevel.FdStream(sys.stdin.fileno())
    stdout = trio.lowlevel.FdStream(sys.stdout.fileno())
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async with trio.open_nursery() as nursery:

            async def stop_on_signal() -> None:
                async for _ in signals:
                    nursery.cancel_scope.cancel()
                    return

            nursery.start_soon(stop_on_signal)
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                await serve(stdin, stdout)
            nursery.cancel_scope.cancel()


def main() -> None:
    """Entry point of `python -m arena.worker`."""
    trio.run(_main)


if __name__ == "__main__":
    main()
