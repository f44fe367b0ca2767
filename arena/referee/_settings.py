"""How bot processes run (`RunSettings`), and the settings of a league or an SPRT as
what runs and builds their bots needs (`Settings`)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Protocol

import protocol
from arena.bots import BuildSettings, Limits
from arena.referee._clocks import Clocks


@dataclasses.dataclass(frozen=True, slots=True)
class RunSettings:
    """How bot processes are run: data only, so the same settings cross to a worker
    process or a cluster's machine as they are (`arena.messages.Setup`)."""

    clocks: Clocks = Clocks()
    limits: Limits = Limits()
    max_frame: int = protocol.DEFAULT_MAX_FRAME
    """Largest frame accepted from a bot, in bytes."""
    fresh_process: bool = False
    """Start new processes for every game instead of reusing them."""
    log_dir: Path | None = None
    """Folder for the per-bot stderr logs (NAME.log), or None to drop stderr."""
    sandbox: str = "none"
    """The sandbox every bot runs in, by name ("bwrap" or "none"): settings are data,
    and each process that opens pools builds its own wrap (`arena.sandbox.wrap_for`)."""
    max_processes: int | None = None
    """Most bot processes alive at once among the pools opened together (`open_pools`),
    or None for no limit: to start one more, the least recently used idle process of
    any bot is closed. Processes in games are never closed for it, so the games in
    flight may go past the limit (each needs a process per seat)."""


class Settings(Protocol):
    """A league's or an SPRT's settings, as building and running their bots needs them
    (`arena.league.LeagueConfig`, `arena.sprt.SprtConfig`)."""

    @property
    def run(self) -> RunSettings: ...
    @property
    def build(self) -> BuildSettings: ...
