"""How bots are built, whoever builds them (a league, an SPRT, a cluster's workers):
`BuildSettings`."""

from __future__ import annotations

import dataclasses

from arena.bots._manifest import BUILD_DISK_MB, BUILD_MEMORY_MB, BUILD_TIMEOUT


@dataclasses.dataclass(frozen=True, slots=True)
class BuildSettings:
    """How bots are built (`arena.bots.build`): data only. Each field's name is its
    key in a league file's [league] section and its command-line option (build_timeout:
    --build-timeout); the sandbox, the log folder and the stderr cap a build shares
    with the games are `arena.referee.RunSettings`'."""

    build_timeout: float = BUILD_TIMEOUT
    """Seconds a bot's build may take."""
    build_network: bool = False
    """Builds may use the network (in the sandbox they have none otherwise)."""
    build_disk_mb: int = BUILD_DISK_MB
    """MiB a bot's build may add to its folder."""
    build_memory_mb: int = BUILD_MEMORY_MB
    """MiB a sandboxed bot's build may use, its processes together."""
    rebuild: bool = False
    """Build every bot, also one whose folder is as its last successful build left it."""
