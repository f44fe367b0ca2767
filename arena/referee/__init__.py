"""The referee: games between bots, clocks and rules enforced, every fault contained."""

from __future__ import annotations

from arena.referee._clocks import Clocks
from arena.referee._connection import Connection, fault_from_protocol
from arena.referee._game import FaultRecord, GameResult, play_game
from arena.referee._pool import BotPool, open_pools, play_seated
from arena.referee._ports import MemoryBuffer, MemoryPort, PipePort, Port, memory_pair
from arena.referee._session import BotSession
from arena.referee._settings import RunSettings, Settings
from arena.sandbox import Wrap

__all__ = [
    "BotPool",
    "BotSession",
    "Clocks",
    "Connection",
    "FaultRecord",
    "GameResult",
    "MemoryBuffer",
    "MemoryPort",
    "PipePort",
    "Port",
    "RunSettings",
    "Settings",
    "Wrap",
    "fault_from_protocol",
    "memory_pair",
    "open_pools",
    "play_game",
    "play_seated",
]
