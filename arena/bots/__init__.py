"""Bot submissions and bot processes: manifests, spawning, limits, killing."""

from __future__ import annotations

from arena.bots._builds import (
    BUILD_DISK_MB,
    BUILD_MEMORY_MB,
    BUILD_TIMEOUT,
    build,
    build_cache_dir,
    build_is_cached,
    run_builds,
)
from arena.bots._manifest import (
    MANIFEST,
    MAX_DEPTH,
    MAX_SUBMISSION_MB,
    BotSpec,
    check_name,
    check_out_of_reach,
    load_bot,
    load_manifest,
    real_path,
    resolve_command,
    resolve_run,
    shell_words,
    unique_names,
    walk_tree,
)
from arena.bots._process import BotProcess, Limits, check_log_dir, clean_env, start_process
from arena.bots._running import BUILD_STOP, BuildsStopped, BuildStop
from arena.bots._sandboxed import check_sandboxed_apart
from arena.bots._settings import BuildSettings

__all__ = [
    "BUILD_DISK_MB",
    "BUILD_MEMORY_MB",
    "BUILD_STOP",
    "BUILD_TIMEOUT",
    "MANIFEST",
    "MAX_DEPTH",
    "MAX_SUBMISSION_MB",
    "BotProcess",
    "BotSpec",
    "BuildSettings",
    "BuildStop",
    "BuildsStopped",
    "Limits",
    "build",
    "build_cache_dir",
    "build_is_cached",
    "check_log_dir",
    "check_name",
    "check_out_of_reach",
    "check_sandboxed_apart",
    "clean_env",
    "load_bot",
    "load_manifest",
    "real_path",
    "resolve_command",
    "resolve_run",
    "run_builds",
    "shell_words",
    "start_process",
    "unique_names",
    "walk_tree",
]
