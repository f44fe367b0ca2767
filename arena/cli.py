"""The `arena` command line: thin; parses, calls into the library, prints.

Each command lives in a module of `arena.commands`; this module only assembles them
and turns every `ArenaError` into a one-line message and a non-zero exit.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib
import importlib.util
import os
import signal
import site
import sys
import sysconfig
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click

from arena import __version__
from arena._text import printable
from arena.commands import COMMANDS
from arena.commands._ended import output_lost, stop
from arena.errors import ArenaError

E = TypeVar("E", bound=BaseException)


class _Group(click.Group):
    """A click group that reports arena errors as one line instead of a traceback, and
    imports a command's module only when that command runs (`arena.commands`)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module, attribute, _ = COMMANDS[name]
        command: click.Command = getattr(importlib.import_module(module), attribute)
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """A mistyped command name gets the nearest one suggested (`arena leauge`)."""
        name = args[0] if args else ""
        if args and self.get_command(ctx, name) is None and not name.startswith("-"):
            near = difflib.get_close_matches(name, self.list_commands(ctx), n=1, cutoff=0.6)
            hint = f" Did you mean '{near[0]}'?" if near else ""
            ctx.fail(f"No such command '{printable(name)}'.{hint} (arena --help lists them)")
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """`arena --help` lists the commands from `COMMANDS`, importing none of them."""
        with formatter.section("Commands"):
            formatter.write_dl([(name, COMMANDS[name][2]) for name in self.list_commands(ctx)])

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Where a bot author finds the protocol, the rules and the Python starter kit,
        also when arena came as a wheel and there is no repository to look in."""
        if (where := _for_authors()) is not None:
            formatter.write_paragraph()
            formatter.write_text(f"For bot authors, {where}")

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """The group's own options: `arena --help > /dev/full` says so in one line."""
        try:
            return super().parse_args(ctx, args)
        except OSError as err:
            _os_failure(err)

    def invoke(self, ctx: click.Context) -> Any:
        _standard_streams()
        try:
            result = super().invoke(ctx)
            if sys.stdout is not None:
                sys.stdout.flush()  # a full disk says so here, not at exit
            return result
        except ArenaError as err:
            _fail(err, err.exit_status, _notes(err))
        except KeyboardInterrupt:  # a command with nothing to keep or say (`arena rate`)
            stop(signal.SIGINT)
        except OSError as err:
            _os_failure(err)
        except BaseExceptionGroup as group:
            if group.subgroup(KeyboardInterrupt) is not None:
                stop(signal.SIGINT)
            lost = group.subgroup(lambda err: output_lost(err) is not None)
            if lost is not None:
                stop(output_lost(_first(lost)) or signal.SIGPIPE)
            # Errors from inside trio nurseries arrive grouped: unwrap ours.
            ours, rest = group.split(ArenaError)
            if ours is None or rest is not None:
                raise
            _fail(_first(ours), _first(ours).exit_status, _notes(group, _first(ours)))


def _for_authors() -> str | None:
    """The files a bot author needs, as installed with arena: the protocol package's
    folder (SPEC.md, RULES.md, vectors/) and the Python kit (in the repository,
    example_bots/python; from a wheel, in the environment's share/arena/kits/python).
    Found without importing."""
    spec = importlib.util.find_spec("protocol")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(spec.submodule_search_locations[0])
    text = f"in {folder}: the protocol (SPEC.md), the rules (RULES.md) and test frames (vectors/)."
    shared = [Path(sysconfig.get_path("data")), Path(site.getuserbase())]
    kits = [base / "share" / "arena" / "kits" / "python" for base in shared]
    for kit in (folder.parent / "example_bots" / "python", *kits):
        if kit.is_dir():
            return f"{text} A Python starter kit: {kit}."
    return text


def _os_failure(err: OSError) -> NoReturn:
    """Stop on an OSError that reached the command line: the output gone (`arena
    standings | head`: quietly), or any other (a full disk under stdout, say) said in
    one line, not as a traceback."""
    if (signum := output_lost(err)) is not None:
        stop(signum)  # the rest can reach nobody
    why = err.strerror or str(err)
    _fail(ArenaError(f"{why}: {err.filename}" if err.filename else why), 1, _notes(err))


def _first(group: BaseExceptionGroup[E]) -> E:
    first = group.exceptions[0]
    return _first(first) if isinstance(first, BaseExceptionGroup) else first


def _fail(err: ArenaError, status: int = 2, notes: Sequence[str] = ()) -> NoReturn:
    """Say `err` in one line, then each of `notes` (what was done about it on the way
    out: a store's games saved elsewhere, `arena.store.OpenStore`), and exit.

    An error whose text runs on over lines (a failed build's last lines of output) has
    its first line said as the error and the rest indented under it, as a quotation:
    no line of a program's output reads as one of arena's."""
    first, *quoted = printable(str(err)).split("\n")
    with contextlib.suppress(OSError):
        click.echo(f"arena: error: {first}", err=True)
        for line in quoted:
            click.echo(f"    {line}", err=True)
        for note in notes:
            click.echo(f"arena: {printable(note)}", err=True)
    sys.exit(status)


def _notes(*errors: BaseException) -> list[str]:
    """The notes added to `errors` on their way up (`BaseException.add_note`)."""
    return [note for err in errors for note in getattr(err, "__notes__", ())]


def _standard_streams() -> None:
    """Give a closed stdin or stderr /dev/null, and refuse a closed stdout (or a
    current folder that was removed).

    A closed standard descriptor is the next one any file or pipe gets: bwrap's
    seccomp descriptor landed on 1 or 2 and was overwritten in the bot's process, so
    the sandbox failed, and without --sandbox bwrap arena went on with none at all."""
    closed = []
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            closed.append(fd)
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
    try:
        os.getcwd()
    except FileNotFoundError:
        _fail(ArenaError("the current folder no longer exists (cd to one that does)"))
    if 0 in closed:
        sys.stdin = open(0, closefd=False)  # noqa: SIM115 (for as long as arena runs)
    if 2 in closed:  # Python left sys.stderr None: a league's progress asked it isatty()
        sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
    if 1 in closed:
        _fail(
            ArenaError("standard output is closed (to throw the output away: >/dev/null)"),
            status=1,
        )


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="arena")
def main() -> None:
    """Run tournaments between bots that play ONO 99."""


if __name__ == "__main__":
    main()
