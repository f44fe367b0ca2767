"""Bot submissions and bot processes: manifests, spawning, limits, killing."""

from __future__ import annotations

from arena.bots._builds import run_builds
from arena.bots._manifest import (
    BUILD_DISK_MB,
    BUILD_STOP,
    BUILD_TIMEOUT,
    MANIFEST,
    MAX_DEPTH,
    MAX_SUBMISSION_MB,
    BotSpec,
    BuildsStopped,
    BuildStop,
    build,
    check_name,
    check_out_of_reach,
    load_bot,
    load_manifest,
    real_path,
    resolve_command,
    shell_words,
    unique_names,
    walk_tree,
)
from arena.bots._process import BotProcess, Limits, check_log_dir, clean_env, start_process

__all__ = [
    "BUILD_DISK_MB",
    "BUILD_STOP",
    "BUILD_TIMEOUT",
    "MANIFEST",
    "MAX_DEPTH",
    "MAX_SUBMISSION_MB",
    "BotProcess",
    "BotSpec",
    "BuildStop",
    "BuildsStopped",
    "Limits",
    "build",
    "check_log_dir",
    "check_name",
    "check_out_of_reach",
    "clean_env",
    "load_bot",
    "load_manifest",
    "real_path",
    "resolve_command",
    "run_builds",
    "shell_words",
    "start_process",
    "unique_names",
    "walk_tree",
]
