"""How bots are built, whoever builds them (a league, an SPRT, a cluster's workers):
`BuildSettings`."""

from __future__ import annotations

import dataclasses

from arena._declared import about
from arena.bots._builds import BUILD_DISK_MB, BUILD_MEMORY_MB, BUILD_TIMEOUT


@dataclasses.dataclass(frozen=True, slots=True)
class BuildSettings:
    """How bots are built (`arena.bots.build`): data only. Each field's name is its
    key in a league file's [league] section and its command-line option (build_timeout:
    --build-timeout); the sandbox, the log folder and the stderr cap a build shares
    with the games are `arena.referee.RunSettings`'."""

    build_timeout: float = dataclasses.field(
        default=BUILD_TIMEOUT, metadata=about("Seconds a bot's build may take.")
    )
    build_network: bool = dataclasses.field(
        default=False,
        metadata=about(
            "Let builds use the network (sandboxed builds have none otherwise): the"
            " host's, its loopback services included."
        ),
    )
    build_disk_mb: int = dataclasses.field(
        default=BUILD_DISK_MB,
        metadata=about("MiB a bot's build may add to its folder before it is killed."),
    )
    build_memory_mb: int = dataclasses.field(
        default=BUILD_MEMORY_MB,
        metadata=about(
            "MiB a sandboxed bot's build may use, all its processes together (where arena can"
            " make cgroups; elsewhere per process limits alone)."
        ),
    )
    rebuild: bool = dataclasses.field(
        default=False,
        metadata=about(
            "Build every bot again, even one whose folder is as its last successful build"
            " left it (such a build is skipped otherwise: after a toolchain's upgrade, say)."
        ),
    )
