"""What building a bot needs to know, whoever builds it (a league, an SPRT, a cluster's
workers): `BuildSettings`."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from arena.bots._process import Limits


class BuildSettings(Protocol):
    """What building a bot needs to know (a league's or an SPRT's settings)."""

    @property
    def sandbox(self) -> str: ...
    @property
    def build_network(self) -> bool: ...
    @property
    def build_disk_mb(self) -> int: ...
    @property
    def build_memory_mb(self) -> int: ...
    @property
    def rebuild(self) -> bool: ...
    @property
    def build_timeout(self) -> float: ...
    @property
    def log_dir(self) -> Path | None: ...
    @property
    def limits(self) -> Limits: ...
