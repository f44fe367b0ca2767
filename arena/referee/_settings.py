"""How bot processes run (`RunSettings`), and the settings of a league or an SPRT as
what runs and builds their bots needs (`Settings`)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Protocol

import protocol
from arena._declared import about
from arena.bots import BuildSettings, Limits
from arena.referee._clocks import Clocks


@dataclasses.dataclass(frozen=True, slots=True)
class RunSettings:
    """How bot processes are run: data only, so the same settings cross to a worker
    process or a cluster's machine as they are (`arena.messages.Setup`)."""

    clocks: Clocks = Clocks()
    limits: Limits = Limits()
    max_frame: int = dataclasses.field(
        default=protocol.DEFAULT_MAX_FRAME, metadata=about("Largest frame from a bot.")
    )
    """In bytes."""
    fresh_process: bool = dataclasses.field(
        default=False, metadata=about("New bot processes for every game.", shown="reuse")
    )
    log_dir: Path | None = dataclasses.field(
        default=None,
        metadata=about(
            "Folder for the bots' stderr logs (and their builds' output), one NAME.log a"
            " bot, capped. A log that cannot be written there (a full disk) stops the command"
            " with an error, charging no bot; a league resumes where it stopped.",
            shown="beside the store, STORE-logs (league-logs, sprt-logs); for a match, a new"
            " folder under $TMPDIR, named at its end",
        ),
    )
    """None: stderr is dropped."""
    sandbox: str = dataclasses.field(
        default="none",
        metadata=about(
            "Run every bot under bubblewrap, or unconfined.",
            shown="bwrap where it works, else none with a warning; on a cluster, bwrap",
        ),
    )
    """The sandbox every bot runs in, by name ("bwrap" or "none"): settings are data,
    and each process that opens pools builds its own wrap (`arena.sandbox.wrap_for`)."""
    max_processes: int | None = dataclasses.field(
        default=None,
        metadata=about(
            "Bot processes alive at once per worker; past it the least recently used idle"
            " one is closed (games in play keep theirs).",
            shown="8 per seat of the games a worker plays at once: 32 at tables of 4",
        ),
    )
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
