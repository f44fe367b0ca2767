"""Options shared by the commands that run games (match, league, check-bot)."""

from __future__ import annotations

import json
import math
import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any, TypeVar

import click

from arena._declared import help_of
from arena.bots import (
    BUILD_DISK_MB,
    BUILD_MEMORY_MB,
    BUILD_TIMEOUT,
    BotSpec,
    BuildSettings,
    Limits,
    build,
    build_is_cached,
    resolve_command,
)
from arena.errors import ConfigError, InputError
from arena.referee import Clocks, RunSettings
from arena.rules import FORMAT_OPTIONS, Edition, Ending, Format, GameConfig
from arena.sandbox import SANDBOXES, Wrap, bwrap_wrap, resolve_sandbox
from arena.seeds import seed_key
from protocol import MAX_FRAME_LIMIT

F = TypeVar("F", bound=Callable[..., Any])

MAX_MS = 86_400_000
"""The longest time an option may give, in ms (a day): every deadline stays within what
the referee's clocks and a bot's decoder (a 32-bit integer) can hold."""
MAX_SIZE = 2**30
"""The largest size, count or number of seconds a limit may give: within what
setrlimit and the worker messages hold."""
MAX_RULE_NUMBER = 1_000_000
"""The most tokens, or the highest target, a game may have."""


class SettingOption(click.Option):
    """The option of a declared setting of the same name (`arena._declared.setting`):
    its help is the declaration's (`help_of`), read when the help is shown, so that a
    command need not import the package that declares it (the league's pulls in numpy)
    until it runs."""

    def __init__(
        self,
        decls: Sequence[str],
        *,
        declared_in: Callable[[], Any],
        fill: dict[str, Any] | None = None,
        setting: str | None = None,
        **attrs: Any,
    ) -> None:
        super().__init__(decls, **attrs)
        self.declared_in = declared_in
        self.fill = fill
        self.setting = setting
        """The setting's name where the option's own is another (--format: fmt)."""

    def declared_help(self) -> str:
        """The help of the setting, as its declaration says it."""
        name = self.setting or self.name
        assert name is not None
        return help_of(self.declared_in(), name, self.fill)

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        self.help = self.declared_help()
        return super().get_help_record(ctx)


def setting_option(
    declared_in: Any,
    *decls: str,
    fill: dict[str, Any] | None = None,
    setting: str | None = None,
    **attrs: Any,
) -> Callable[[F], F]:
    """An option (`decls`, click's `attrs`) of the setting of its name that the settings
    dataclass `declared_in` declares, or a function returns (imported when the help is
    shown), its help the declaration's (`SettingOption`, `fill` the values its help
    names). It defaults to None (unless `attrs` say otherwise): not given, the league
    file's value or the declaration's default holds."""
    kind = (lambda: declared_in) if isinstance(declared_in, type) else declared_in
    attrs.setdefault("default", None)
    return click.option(
        *decls, cls=SettingOption, declared_in=kind, fill=fill, setting=setting, **attrs
    )


def league_config_class() -> Any:
    """`arena.league.LeagueConfig`, which declares the league's settings (imported when
    their help is shown: the league pulls in numpy)."""
    from arena.league import LeagueConfig

    return LeagueConfig


def ms(low: int) -> click.IntRange:
    """A time in ms from `low` to `MAX_MS`."""
    return click.IntRange(low, MAX_MS)


def size(low: int) -> click.IntRange:
    """A limit from `low` to `MAX_SIZE`."""
    return click.IntRange(low, MAX_SIZE)


_GAME_OPTIONS = [
    setting_option(GameConfig, "--edition", type=click.Choice([e.value for e in Edition])),
    setting_option(
        GameConfig,
        "--format",
        "fmt",
        setting="format",
        type=click.Choice([f.value for f in Format]),
    ),
    setting_option(GameConfig, "--tokens", type=click.IntRange(0, MAX_RULE_NUMBER)),
    setting_option(GameConfig, "--target", type=click.IntRange(1, MAX_RULE_NUMBER)),
    setting_option(GameConfig, "--ending", type=click.Choice([e.value for e in Ending])),
    setting_option(GameConfig, "--ono-on-tens/--no-ono-on-tens"),
    setting_option(GameConfig, "--play-cap", type=click.IntRange(1)),
]

sandbox_option = setting_option(RunSettings, "--sandbox", type=click.Choice(SANDBOXES))
"""The --sandbox option (part of `run_options`; check-bot adds it alone)."""

pin_cpus_option = setting_option(league_config_class, "--pin-cpus/--no-pin-cpus")
"""The --pin-cpus option of the commands that play in worker processes (league, sprt)."""

TC_FORMS = "DECISION[+GRACE] and/or bank:BANK[+INCREMENT], in ms"
"""The forms of --tc, for its help and its errors."""

_TC_PART = re.compile(r"(bank:)?([0-9]+)(?:\+([0-9]+))?")

_TC_KEYS = {
    "decision_ms": "the time per decision",
    "grace_ms": "the deadline margin",
    "bank_ms": "the time bank",
    "increment_ms": "the bank increment",
}
"""The clock settings --tc may set, and how an error names each."""


@dataclass(frozen=True)
class TimeControl:
    """A --tc as given (`text`) and the clock settings it sets (`values`, by the names
    of their own options: decision_ms, grace_ms, bank_ms, increment_ms)."""

    text: str
    values: dict[str, int]


class TimeControlType(click.ParamType[TimeControl]):
    """--tc: `DECISION[+GRACE]`, `bank:BANK[+INCREMENT]`, or both joined by a comma."""

    name = "tc"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, TimeControl):
            return value
        text = str(value)
        values: dict[str, int] = {}
        parts = text.split(",")
        for part in parts:
            match = _TC_PART.fullmatch(part)
            keys = (
                ("bank_ms", "increment_ms") if match and match[1] else ("decision_ms", "grace_ms")
            )
            if match is None or len(parts) > 2 or keys[0] in values:
                self.fail(
                    f"{text!r} is not a time control: give {TC_FORMS} (1000, 1000+50,"
                    " bank:60000+100 or 1000+50,bank:60000+100)",
                    param,
                    ctx,
                )
            for key, number in zip(keys, (match[2], match[3]), strict=True):
                if number is None:
                    continue
                low = 1 if key == "decision_ms" else 0
                if not low <= int(number) <= MAX_MS:
                    self.fail(
                        f"{text!r}: {_TC_KEYS[key]} must be from {low} to {MAX_MS:,} ms,"
                        f" not {int(number):,}",
                        param,
                        ctx,
                    )
                values[key] = int(number)
        return TimeControl(text, values)


_TC_HELP = (
    "DECISION[+GRACE] (1000+50: 1,000 ms a decision, 50 ms grace), bank:BANK[+INCREMENT]"
    " (bank:60000+100: a 60,000 ms bank per game, 100 ms added after each decision), or"
    " both joined by a comma"
)


def _tc(help_text: str) -> Callable[[F], F]:
    return click.option("--tc", type=TimeControlType(), default=None, metavar="TC", help=help_text)


tc_option = _tc(
    f"Clocks in short, in ms: {_TC_HELP}. An option it sets (--decision-ms, --grace-ms,"
    " --bank-ms, --increment-ms) cannot be given too."
)
"""The --tc option (part of `run_options`; check-bot has `check_tc_option`)."""

check_tc_option = _tc(
    f"Clocks of every game in short, in ms: {_TC_HELP}; --decision-ms cannot be given"
    " with a DECISION. The checks of a time bank play theirs all the same."
)
"""check-bot's --tc: as `tc_option`, whose grace, bank and increment have no options of
their own in check-bot (its help named --grace-ms, --bank-ms and --increment-ms)."""

_RUN_OPTIONS = [
    tc_option,
    setting_option(Clocks, "--decision-ms", type=ms(1)),
    setting_option(Clocks, "--bank-ms", type=ms(0)),
    setting_option(Clocks, "--increment-ms", type=ms(0)),
    setting_option(Clocks, "--startup-ms", type=ms(1)),
    setting_option(Clocks, "--grace-ms", type=ms(0)),
    setting_option(Clocks, "--exit-grace-ms", type=ms(0)),
    setting_option(RunSettings, "--fresh-process/--reuse-process"),
    setting_option(Limits, "--memory-mb", type=size(16)),
    setting_option(Limits, "--cpu-seconds", type=size(1)),
    setting_option(Limits, "--processes", type=size(1)),
    setting_option(Limits, "--file-size-mb", type=size(0)),
    setting_option(Limits, "--open-files", type=size(16)),
    # At least 1 KiB: every hello the protocol allows fits (its name is 64 code points at
    # most); below some 52 bytes none did, and every bot was charged malformed at start-up.
    setting_option(RunSettings, "--max-frame", type=click.IntRange(1024, MAX_FRAME_LIMIT)),
    setting_option(RunSettings, "--log-dir", type=click.Path(file_okay=False, path_type=Path)),
    click.option(
        "--no-logs",
        is_flag=True,
        default=None,
        help="Keep no log of the bots' stderr (a fault then cannot show what the bot said).",
    ),
    sandbox_option,
]


def log_folder(opts: dict[str, Any], beside: Path | None) -> Path | None:
    """Where the bots' logs go: `--log-dir`, else none with `--no-logs`, else a folder
    beside the store `beside` (league.sqlite: league-logs), or without one (a match) a
    new folder under $TMPDIR."""
    if opts.get("log_dir") is not None:
        if opts.get("no_logs"):
            raise ConfigError("--log-dir and --no-logs: give one of them")
        return Path(opts["log_dir"])
    if opts.get("no_logs"):
        return None
    if beside is None:  # a match keeps no store: a folder of its own under $TMPDIR
        return Path(tempfile.mkdtemp(prefix="arena-match-logs-"))
    if not beside.name:  # '' (the folder .) or /: no store, nor a name to put -logs after
        raise InputError(f"{beside} is a folder, not a store: give the store's file")
    return beside.with_name(f"{beside.stem}-logs")


class _Seconds(click.FloatRange):
    """Seconds from 1 to a day: FloatRange alone lets NaN and infinity through (they
    compare false with both ends), and a build's deadline cannot be either."""

    name = "seconds"

    def __init__(self) -> None:
        super().__init__(1, 86400)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value} is not a finite number of seconds", param, ctx)
        return number


build_options = [
    setting_option(BuildSettings, "--build-timeout", type=_Seconds()),
    setting_option(BuildSettings, "--build-disk-mb", type=click.IntRange(1, 1 << 20)),
    setting_option(BuildSettings, "--build-memory-mb", type=click.IntRange(16, 1 << 20)),
    setting_option(BuildSettings, "--build-network/--no-build-network"),
    setting_option(BuildSettings, "--rebuild", is_flag=True),
]
"""How bots are built (part of `run_options`; check-bot adds them alone)."""

_RUN_OPTIONS += build_options


_FILE_ONLY = {"kill_grace_ms": ms(0), "stderr_kb": size(0)}
"""Settings a league file may hold that have no command-line option, and their types."""

_FILE_NAMES = {"format": "fmt"}
"""League-file keys whose option has another parameter name."""


def check_file_values(path: Path, data: dict[str, Any], command: click.Command) -> None:
    """Give every value of a league file the checks of its command-line option.

    A value of the wrong kind (a string for a number, "yes" for true) or out of the
    option's range raises InputError naming the file, the section, the key and what
    is allowed, exactly as the option would have refused it.
    """
    params = {p.name: p for p in command.params if isinstance(p, click.Option)}
    for section, values in data.items():
        for key, value in values.items():
            param = params.get(_FILE_NAMES.get(key, key))
            kind = _FILE_ONLY.get(key) or (param.type if param is not None else None)
            if key == "seed":
                try:
                    seed_key(value)
                except ConfigError as err:
                    raise InputError(f"{path}: [{section}] {key} = {_toml(value)}: {err}") from None
            if kind is None or key == "seed":
                continue  # paths are checked when read, the seed by arena.seeds
            problem = _problem(value, kind, param)
            if problem is not None:
                raise InputError(f"{path}: [{section}] {key} = {_toml(value)}: {problem}")


def _problem(value: Any, kind: click.ParamType[Any], param: click.Option | None) -> str | None:
    """Why `value` is no value for an option of type `kind`, or None if it is one."""
    if isinstance(kind, click.types.BoolParamType) or (param is not None and param.is_flag):
        return None if isinstance(value, bool) else "must be true or false"
    if isinstance(kind, click.IntRange | click.types.IntParamType):
        if isinstance(value, bool) or not isinstance(value, int):
            return f"must be a whole number{_range(kind)}"
    elif isinstance(kind, click.types.FloatParamType):
        # float() would take "600" and true (then kept as they are, a build's deadline
        # failed with a traceback on "600"), and raise TypeError on an array or a date.
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"must be a number{_range(kind)}"
    elif isinstance(kind, click.Choice) and not isinstance(value, str):
        return f"must be one of {', '.join(map(_toml, kind.choices))}"
    try:
        kind.convert(value, param, None)
    except click.BadParameter as err:
        return err.message.rstrip(".")
    return None


def _range(kind: click.ParamType[Any]) -> str:
    if not isinstance(kind, click.IntRange | click.FloatRange):
        return ""
    if kind.max is None:
        return f" >= {kind.min}"
    return f" from {kind.min} to {kind.max}"


def _toml(value: Any) -> str:
    if isinstance(value, PurePath):  # a path, made relative to the file already
        value = str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value) if isinstance(value, str) else repr(value)


def _apply(options: list[Any], func: F) -> F:
    for option in reversed(options):
        func = option(func)
    return func


def game_options(func: F) -> F:
    """Add the game rule options (edition, format, ...)."""
    return _apply(_GAME_OPTIONS, func)


def run_options(func: F) -> F:
    """Add the clock, process and limit options."""
    return _apply(_RUN_OPTIONS, func)


def build_config(players: int, base: dict[str, Any], opts: dict[str, Any]) -> GameConfig:
    """A GameConfig from a base dict (a league file) overridden by command-line options."""
    data = dict(base)
    for key, name in [
        ("edition", "edition"),
        ("fmt", "format"),
        ("tokens", "tokens"),
        ("target", "target"),
        ("ending", "ending"),
        ("ono_on_tens", "ono_on_tens"),
        ("play_cap", "play_cap"),
    ]:
        if opts.get(key) is not None:
            data[name] = opts[key]
    data["players"] = players
    # An option of another format would be stored and ignored: refused, as ono_on_tens
    # is outside the 1980 edition (a league resumed without it said only "game").
    fmt = data.get("format", Format.SINGLE.value)
    rule = {"tokens": "R9.2", "points": "R9.3"}
    stray = [
        f"{name} (an option of the {home} format, {rule[home]})"
        for name, home in FORMAT_OPTIONS.items()
        if name in data and fmt != home and fmt in {f.value for f in Format}
    ]
    if stray:
        raise ConfigError(
            f"the {fmt} format has no {', '.join(stray)}: leave it out, or set the format"
        )
    return GameConfig.from_dict(data)


def build_clocks(base: dict[str, Any], opts: dict[str, Any]) -> Clocks:
    """Clocks from a base dict overridden by command-line options."""
    data = dict(base)
    for key in ("decision_ms", "bank_ms", "increment_ms", "startup_ms", "grace_ms"):
        if opts.get(key) is not None:
            data[key] = opts[key]
    tc = opts.get("tc")
    if isinstance(tc, TimeControl):
        for key, value in tc.values.items():
            if opts.get(key) is not None:
                option = "--" + key.replace("_", "-")
                raise ConfigError(
                    f"--tc {tc.text} sets {_TC_KEYS[key]} ({value} ms), and {option}"
                    f" {opts[key]} sets it too: give one of them"
                )
            data[key] = value
    if opts.get("exit_grace_ms") is not None:
        data["exit_grace_ms"] = opts["exit_grace_ms"]
    try:
        return Clocks(**data)
    except TypeError as err:
        raise ConfigError(f"clocks: {err}") from None


def build_limits(base: dict[str, Any], opts: dict[str, Any]) -> Limits:
    """Resource limits from a base dict overridden by command-line options."""
    data = dict(base)
    for key in ("memory_mb", "cpu_seconds", "processes", "file_size_mb", "open_files"):
        if opts.get(key) is not None:
            data[key] = opts[key]
    try:
        return Limits(**data)
    except TypeError as err:
        raise ConfigError(f"limits: {err}") from None


def build_wrap(opts: dict[str, Any], extra_ro: Sequence[Path] = ()) -> Wrap | None:
    """The command-line wrap for `--sandbox` (None: bots run unconfined).

    Without --sandbox, bots run under bubblewrap where it works; otherwise a warning
    goes to stderr. An explicit `--sandbox bwrap` that cannot work is a ConfigError.
    """
    return bwrap_wrap(extra_ro) if sandbox_mode(opts) == "bwrap" else None


def sandbox_mode(opts: dict[str, Any]) -> str:
    """The sandbox `--sandbox` asks for ("bwrap" or "none"), resolved once per command:
    a warning that bots run unconfined is shown once."""
    if "_sandbox_mode" not in opts:
        mode, warning = resolve_sandbox(opts.get("sandbox"))
        if warning is not None:
            click.echo(f"arena: {warning}", err=True)
        opts["_sandbox_mode"] = mode
    return str(opts["_sandbox_mode"])


def build_bot(spec: BotSpec, opts: dict[str, Any], sandbox: str) -> str:
    """Build `spec` as the options say (`arena.bots.build`), its output in its log;
    what was done, in words ("no build step", "built: make", "built already ...")."""
    log_dir = opts.get("log_dir")
    network = bool(opts.get("build_network"))
    where = " in the sandbox" if sandbox == "bwrap" else " unconfined"
    if spec.build is None or spec.folder is None:
        return "no build step"
    if not opts.get("rebuild") and build_is_cached(spec, sandbox=sandbox, network=network):
        return "built already, its folder as that build left it (--rebuild builds it again)"
    build(  # (the cache was just read: the build need not read it again)
        spec,
        sandbox=sandbox,
        network=network,
        timeout=opts.get("build_timeout") or BUILD_TIMEOUT,
        log_path=log_dir / f"{spec.name}.log" if log_dir is not None else None,
        disk_mb=opts.get("build_disk_mb") or BUILD_DISK_MB,
        memory_mb=opts.get("build_memory_mb") or BUILD_MEMORY_MB,
        rebuild=True,
    )
    return f"built{where}: {' '.join(spec.build)}"


def check_sandboxed(spec: BotSpec, wrap: Wrap | None) -> None:
    """Fail early (ManifestError) if `spec`'s program would not be seen in the sandbox."""
    if wrap is not None:
        wrap(resolve_command(spec.command, spec.folder), Path("/tmp/arena-check"), spec.folder)
