"""`arena check-bot -- COMMAND...`: tell a bot author exactly what their bot does wrong."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from arena._text import printable
from arena.bots import (
    BotSpec,
    Limits,
    check_log_dir,
    load_bot,
    resolve_run,
    run_builds,
    shell_words,
)
from arena.checker import HELLO_WAIT_MS, Check, check_bot, conforms, report
from arena.commands._options import (
    build_bot,
    build_clocks,
    build_limits,
    build_options,
    build_wrap,
    check_tc_option,
    ms,
    sandbox_mode,
    sandbox_option,
    setting_option,
    size,
)
from arena.commands._stopping import run_stoppable
from arena.referee import Clocks

BARE_COMMAND_NOTE = """\
note: in the sandbox a bare command line sees only the files its words name: a bot
      that loads other files beside them (its modules, its data) cannot start. Give
      its folder with a bot.toml (arena check-bot FOLDER), or try --sandbox none to
      tell whether that is the cause."""
"""Said when a bare command line fails its start-up in the sandbox."""


def _missing_files(first: Check) -> bool:
    """Whether the start-up failed as a bot missing its files would: it could not be
    started or it exited (not a hello that is wrong, or late)."""
    return not first.ok and first.detail.startswith(("crash:", "cannot start"))


def _shell_warning(words: list[str]) -> Check:
    """The warning for a command line with words only a shell understands: the bot may
    pass, but not as its author meant (`2>/dev/null` and `| cat` reach it as arguments)."""
    shown = " ".join(repr(word) for word in words)
    return Check(
        "run",
        True,
        f"{shown}: shell syntax, but the command line is not given to a shell: the"
        " program gets these words as arguments. Drop them, or write a script with a #!"
        ' line, make it executable and name it (run = "./run.sh")',
        "§14.2",
        warning=True,
    )


@click.command("check-bot", context_settings={"ignore_unknown_options": False})
@click.argument("command", nargs=-1, required=True)
@check_tc_option
@setting_option(Clocks, "--decision-ms", type=ms(1))
@setting_option(Clocks, "--startup-ms", type=ms(1))
@setting_option(Clocks, "--exit-grace-ms", type=ms(0))
@setting_option(Limits, "--memory-mb", type=size(16))
@sandbox_option
@build_options[0]
@build_options[1]
@build_options[2]
@build_options[4]
@click.option(
    "--log-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for the bot's log, NAME.log: its build's output and its stderr (without it,"
    " a failed check shows the stderr's last lines only).",
)
@click.option(
    "--rounds",
    type=click.IntRange(1),
    default=1,
    show_default=True,
    help="Games per configuration (there are eleven configurations; then games at a"
    " table of 2 until the bot has answered a request id past 300).",
)
@click.option(
    "--hello-wait-ms",
    type=click.IntRange(0, 60_000),
    default=HELLO_WAIT_MS,
    show_default=True,
    help="Wait this long (at most a quarter of the start-up time) before writing the"
    " referee's hello, to see whether the bot writes first (SPEC §4.2); 0: at once.",
)
def check_bot_command(
    command: tuple[str, ...], rounds: int, hello_wait_ms: int, **opts: Any
) -> None:
    """Check that the bot run by COMMAND speaks protocol v1 correctly.

    COMMAND is the bot's command line after `--` (arena check-bot -- python3 bot.py),
    or a bot folder with a bot.toml. Exit status 0 only for a conforming bot.
    """
    check_log_dir(opts.get("log_dir"))
    clocks = build_clocks({}, opts)  # the options' mistakes first, then the bot's
    limits = build_limits({}, opts)
    if len(command) == 1:  # a folder, or one word: a folder's file or a typo is said so
        spec = load_bot(command[0])
        if spec.folder is None:
            spec = BotSpec(name="bot-under-test", command=spec.command, folder=None)
    else:
        spec = BotSpec(name="bot-under-test", command=command, folder=None)

    wrap = build_wrap(opts)

    built: list[str] = []

    def prepare() -> None:
        # A folder's build, as match and league do.
        built.append(build_bot(spec, opts, sandbox_mode(opts)))
        resolve_run(spec)  # a missing program is a usage error

    async def run() -> list[Check]:
        # The build runs inside the stoppable run, as a league's do: a stop kills it,
        # and a sandboxed build gives its folder back to its owner.
        await run_builds([spec], prepare)
        return await check_bot(
            spec,
            clocks=clocks,
            limits=limits,
            rounds=rounds,
            wrap=wrap,
            hello_wait_ms=hello_wait_ms,
            log_dir=opts.get("log_dir"),
        )

    checks = run_stoppable(run, lambda: " before the checks were done", resumable=False)
    missing_files = bool(checks) and _missing_files(checks[0])
    if shell := shell_words(spec.command[1:]):
        checks = [_shell_warning(shell), *checks]
    sandboxed = "bubblewrap" if sandbox_mode(opts) == "bwrap" else "none: the bot ran unconfined"
    notes = [f"  build: {built[0]}"] if built else []
    notes.append(f"  sandbox: {sandboxed}")
    lines = report(spec.command, checks)
    for line in [lines[0], *notes, *lines[1:]]:
        click.echo(printable(line))
    if wrap is not None and spec.folder is None and missing_files:
        click.echo(BARE_COMMAND_NOTE)
    sys.exit(0 if conforms(checks) else 1)
