"""Finding and building the submissions, and what is refused before a league starts."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import stat
import tempfile
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from arena.bots import (
    MANIFEST,
    MAX_DEPTH,
    BotSpec,
    build,
    build_is_cached,
    check_out_of_reach,
    check_sandboxed_apart,
    load_manifest,
    real_path,
    resolve_command,
    walk_tree,
)
from arena.errors import BotError, ConfigError
from arena.league._config import LeagueConfig
from arena.referee import Settings
from arena.sandbox import wrap_for
from arena.seeds import seed_key
from arena.store import Store


def discover_bots(
    folder: Path, known: Mapping[str, str] | None = None
) -> tuple[list[BotSpec], list[str]]:
    """Every bot folder (with bot.toml) under `folder`, and the problems found.

    A folder with a manifest is a submission; the search does not descend into it.
    A manifest that cannot be read is reported and its bot left out. Links to folders
    are followed, but each folder is searched once (a link back up the tree is not
    followed again).

    Of submissions that claim one name, one keeps it and the others are left out, each
    named with the folder that keeps it: the one whose submission is the stored bot of
    that name (`known`: name -> digest, on a resume), else the one whose bot.toml came
    first (its inode's change time, which unpacking or copying sets and no submitter
    chooses; then the folder's path). Never whose folder sorts first: a stranger's
    "aaa-" folder would take a rival's place, and its games the rival's record. Of a
    stored name that none of them is the stored submission of (its author edited it,
    which makes its bot.toml the later one), none keeps it: the organiser says which.
    """
    if not folder.is_dir():
        raise ConfigError(f"bots folder {folder} does not exist")
    specs: list[BotSpec] = []
    problems: list[str] = []
    seen: set[Path] = set()  # every folder is searched once, links to it or not

    # Depth first in name order, with a stack of its own: a recursion of Python's would
    # end in a RecursionError on a folder nested a thousand deep.
    stack = [(folder, 0)]
    while stack:
        path, depth = stack.pop()
        real = real_path(path)
        if real in seen:  # a link back up the tree would be followed forever
            continue
        seen.add(real)
        try:
            if os.path.lexists(path / MANIFEST):
                try:  # not a file (a FIFO, a folder): load_manifest says so
                    specs.append(load_manifest(path))
                except BotError as err:
                    problems.append(str(err))
                continue
            children = sorted(path.iterdir())
            folders = [
                child for child in children
                if not child.name.startswith(".")
                and child.name not in {"node_modules", "__pycache__"}
                and child.is_dir()
            ]  # fmt: skip
        except OSError as err:  # an unreadable folder (its owner's, /proc's): left out
            problems.append(f"{path}: cannot read the folder: {err.strerror}")
            continue
        if folders and depth >= MAX_DEPTH:
            problems.append(
                f"{path}: not searched further, {MAX_DEPTH} folders deep without a {MANIFEST}"
            )
            continue
        stack.extend((child, depth + 1) for child in reversed(folders))
    return _one_per_name(specs, problems, known or {})


def _one_per_name(
    specs: list[BotSpec], problems: list[str], known: Mapping[str, str]
) -> tuple[list[BotSpec], list[str]]:
    """`discover_bots`'s rule for a name that several submissions claim."""
    claims: defaultdict[str, list[BotSpec]] = defaultdict(list)
    for spec in specs:
        claims[spec.name].append(spec)
    left_out: set[int] = set()
    for name, rivals in claims.items():
        if len(rivals) < 2:
            continue

        def stored(spec: BotSpec, digest: str | None = known.get(name)) -> bool:
            if digest is None:
                return False
            try:
                return spec.digest() == digest
            except BotError:
                return False

        def arrived(spec: BotSpec) -> tuple[int, str]:
            try:
                changed = os.stat(Path(spec.folder or ".") / MANIFEST).st_ctime_ns
            except OSError:
                changed = 2**63
            return changed, str(spec.folder)

        keeper = next((s for s in rivals if stored(s)), None)
        if keeper is None and name in known:
            # A stored bot's name, and none of them is its submission (its author
            # edited it, which makes its bot.toml the later one): whichever kept the
            # name, its games would count with the stored bot's. None plays until the
            # organiser says which by renaming or removing the others.
            for spec in rivals:
                left_out.add(id(spec))
                others = ", ".join(str(s.folder) for s in rivals if s is not spec)
                problems.append(
                    f"{spec.folder}: its bot.toml claims the name {name!r}, as {others} does,"
                    " and none of them is the stored bot of that name (as its games were"
                    " played); rename or remove all but one"
                )
            continue
        keeper = keeper or min(rivals, key=arrived)
        why = "the stored bot of that name" if stored(keeper) else "its bot.toml came first"
        for spec in rivals:
            if spec is not keeper:
                left_out.add(id(spec))
                problems.append(
                    f"{spec.folder}: its bot.toml claims the name {name!r}, which"
                    f" {keeper.folder} has ({why}); rename one of them"
                )
    return [s for s in specs if id(s) not in left_out], problems


def build_and_check(spec: BotSpec, settings: Settings, say: Callable[[str], None]) -> None:
    """Build `spec` as `settings` say (in the sandbox, with its own log) and check that
    the sandbox shows its program; raises BotError with the reason."""
    run, how = settings.run, settings.build
    cached = not how.rebuild and build_is_cached(
        spec, sandbox=run.sandbox, network=how.build_network
    )
    if spec.build is not None:
        if cached:
            say(f"{spec.name}: built already, its folder as that build left it (--rebuild)")
        else:
            say(f"building {spec.name}: {' '.join(spec.build)}")
    if not cached:  # (the cache was just read: the build need not read it again)
        build(
            spec,
            sandbox=run.sandbox,
            network=how.build_network,
            disk_mb=how.build_disk_mb,
            memory_mb=how.build_memory_mb,
            rebuild=True,
            timeout=how.build_timeout,
            log_path=run.log_dir / f"{spec.name}.log" if run.log_dir else None,
            log_kb=run.limits.stderr_kb,
        )
    command = resolve_command(spec.command, spec.folder)
    wrap = wrap_for(run.sandbox)
    if wrap is not None:  # fails if the sandbox would hide the program
        wrap(command, Path(tempfile.gettempdir()) / "arena-check", spec.folder)
        if os.geteuid() == 0 and spec.folder is not None:
            _warn_unreadable(spec.name, spec.folder, command, say)


def _warn_unreadable(
    name: str, folder: Path, command: Sequence[str], say: Callable[[str], None]
) -> None:
    """Warn of files and folders of the submission that the sandbox's anonymous user,
    which runs the bot when arena is root, cannot read: a bot.py of mode 600 was charged
    a crash in every game (the folder itself is refused, by the sandbox's wrap). Build
    outputs are looked at where the command names them (target/release/bot)."""
    named = {os.path.realpath(folder / word) for word in command}
    hidden = []
    for rel, path, entry, ignored in walk_tree(name, folder):
        if ignored and os.path.realpath(path) not in named:
            continue
        mode = entry.stat(follow_symlinks=False).st_mode
        if (stat.S_ISREG(mode) and not mode & stat.S_IROTH) or (
            stat.S_ISDIR(mode) and mode & 0o005 != 0o005 and not ignored
        ):
            hidden.append(rel)
    if hidden:
        more = f" and {len(hidden) - 3} more" if len(hidden) > 3 else ""
        say(
            f"warning: {name}: {', '.join(hidden[:3])}{more} cannot be read by the sandbox's"
            f" anonymous user, which runs the bot (chmod -R a+rX {folder})"
        )


@dataclasses.dataclass
class Prepared:
    """The bots found and built for a league, before anything of them is stored."""

    ready: list[BotSpec]
    """The bots to play."""
    excluded: list[str]
    """The submissions left out (a name, or a folder whose manifest failed)."""
    failed: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    """(name, why) of each bot whose build failed."""
    reasons: list[str] = dataclasses.field(default_factory=list)
    """Why each submission was left out, one line each, as said."""
    digests: dict[str, str] = dataclasses.field(default_factory=dict)
    """Each ready bot's submission digest, taken before its build."""
    built: dict[str, str] = dataclasses.field(default_factory=dict)
    """Each ready bot's digest after its build, as the league leaves its folder: a
    build that writes into its folder (a C bot's ./bot) changes the digest, and the
    next run finds its folder so (`register`). A bot whose folder cannot be read
    again after its build is not in it."""


def prepare(
    config: LeagueConfig,
    say: Callable[[str], None],
    built: Callable[[BotSpec], None] | None = None,
    found: tuple[list[BotSpec], list[str]] | None = None,
) -> Prepared:
    """Find and build the bots; nothing is stored (`register` does that, once the
    store's league is known to be this one).

    `built`, if given, replaces the build here: the bots were built elsewhere, and it
    raises BotError for a bot whose build failed there. `found`: what
    `discover_bots(config.bots)` found, if the caller has it already."""
    specs, problems = found if found is not None else discover_bots(config.bots)
    for problem in problems:
        say(f"left out: {problem}")
    out = Prepared([], [p.split(":")[0] for p in problems], reasons=list(problems))
    for spec in specs:
        try:
            out.digests[spec.name] = spec.digest()  # the submission as given, before its build
            if built is not None:
                built(spec)
            else:
                build_and_check(spec, config, say)
        except BotError as err:
            # Named: "command 'pyhton3' not found on the PATH" does not say whose.
            why = str(err) if str(err).startswith(f"{spec.name}: ") else f"{spec.name}: {err}"
            say(f"left out: {why}")
            out.reasons.append(why)
            out.failed.append((spec.name, str(err)))
            out.excluded.append(spec.name)
            continue
        with contextlib.suppress(BotError):
            out.built[spec.name] = spec.digest()
        out.ready.append(spec)
    return out


BUILT_DIGESTS = "built_digests"
"""The meta key of each bot's digest after its last build in this store's league
(`Prepared.built`) or SPRT, by name."""


def register(
    store: Store, bots: Prepared, warn: Callable[[str], None], *, finished: bool = False
) -> list[str]:
    """Store the bots' commands, digests and build failures; return the names whose
    submission changed since their stored games, each with a warning (said once: the
    new digest is stored).

    A submission is unchanged if its folder is as the last run's build left it: the
    files of a build that writes into its folder (a C bot's ./bot) are not there
    before the first build, and are there before the next.

    A `finished` league (every game stored) plays none: nothing is stored, so its
    bots keep the digests of the versions that played its games, and a changed
    submission is said at every run, as what it is: not played."""
    built = store.get_setting(BUILT_DIGESTS) or {}
    ready = bots.ready
    if finished:
        stored = store.bot_digests()
        changed = [
            s.name
            for s in ready
            if stored.get(s.name) not in (None, bots.digests[s.name])
            and built.get(s.name) != bots.digests[s.name]
        ]
        for name in changed:
            warn(
                f"warning: the submission of {name} changed since its stored games were"
                " played; the league is finished, so its standings are the earlier"
                " version's (give another --store to rate the new version)"
            )
        return changed
    for name, why in bots.failed:
        store.set_bot_status(name, "build_failed", why)
    changed = [
        name
        for name in store.sync_bots(
            [(s.name, " ".join(s.command), bots.digests[s.name]) for s in ready]
        )
        if built.get(name) != bots.digests[name]
    ]
    store.set_meta(BUILT_DIGESTS, built | bots.built)
    played = store.games_by_bot()
    changed = [name for name in changed if played.get(name)]  # none stored: nothing mixes
    for name in changed:
        store.count_version(name)  # the standings say it as long as the store holds both
        warn(
            f"warning: the submission of {name} changed since its stored games were played;"
            " those games count in its standings with the new version's (give another"
            " --store to rate the new version on its own)"
        )
    for spec in ready:
        if store.bot_statuses().get(spec.name) == "build_failed":
            store.set_bot_status(spec.name, "ok", "")
    return changed


def _changed_while_played(store: Store, bots: Prepared, warn: Callable[[str], None]) -> None:
    """Warn of each submission whose folder is not as its build left it once the games
    are played: edited while the league ran, its games of both versions count together.
    Said once: its new digest is stored, and a resume does not say it again. (A league
    stopped before this is told by its resume, `register`.)"""
    edited: dict[str, str] = {}
    for spec in bots.ready:
        if spec.name not in bots.built:
            continue
        try:
            now = spec.digest()
        except BotError as err:
            warn(
                f"warning: the submission of {spec.name} cannot be read again after its games"
                f" ({err}); its games so far count in its standings"
            )
            continue
        if now == bots.built[spec.name]:
            continue
        warn(
            f"warning: the submission of {spec.name} changed while the league played it; its"
            " games before and after the change count together in its standings (give"
            " another --store to rate the new version on its own)"
        )
        store.sync_bots([(spec.name, " ".join(spec.command), now)])
        store.count_version(spec.name)
        edited[spec.name] = now
    if edited:
        store.set_meta(BUILT_DIGESTS, (store.get_setting(BUILT_DIGESTS) or {}) | edited)


def check_before_store(config: LeagueConfig) -> None:
    """What is refused before the store or the log folder is made: a store, log folder
    or league file in a bot's folder (`_out_of_reach`: even an empty store would be
    left there), a seed that is none, and a folder of fewer submissions than a table
    has seats (a mistyped or empty folder would leave an empty store behind)."""
    if config.seed is not None:
        seed_key(config.seed)  # raises for a seed that is no seed
    specs, problems = discover_bots(config.bots)
    _out_of_reach(config, config.store, specs)
    check_sandboxed_apart(specs, config.run.sandbox)
    if len(specs) < config.table_size:
        found = f"{len(specs)} bot submission(s) (folders with {MANIFEST})"
        left = f"; left out: {in_one_line(problems)}" if problems else ""
        raise ConfigError(
            f"{config.bots}: {found}, and tables of {config.table_size} need"
            f" {config.table_size}{_smaller_tables(len(specs))}{left}"
        )


def in_one_line(reasons: Sequence[str]) -> str:
    """Why submissions were left out, for an error said in one line: each reason by its
    first line (a failed build's holds the last lines of its output after the first,
    which names its log)."""
    return "; ".join(reason.strip().split("\n", 1)[0] for reason in reasons)


def _smaller_tables(bots: int) -> str:
    """What to do about too few bots for the tables asked for."""
    if bots >= 2:
        return f" (--table-size {bots} makes tables they fill)"
    return " (a league needs 2 bots at least)"


def _out_of_reach(config: LeagueConfig, store: Path, specs: Sequence[BotSpec]) -> None:
    """Refuse a league whose store, logs or league file lie in a bot's folder
    (`arena.bots.check_out_of_reach`)."""
    check_out_of_reach(
        specs,
        [
            ("the store", store),
            ("the league file", config.source),
            ("the log folder", config.run.log_dir),
        ],
    )
