"""Every command's `--help` says what each of its options does: a user reads `--help`
first, and an option shown with only its type and default (`arena match -n`, `arena
serve --port`) leaves them guessing."""

from __future__ import annotations

import re
from collections.abc import Iterator

import click
from click.testing import CliRunner

from arena.cli import main


def commands(
    group: click.Group, ctx: click.Context, path: str
) -> Iterator[tuple[str, click.Command]]:
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        where = f"{path} {name}"
        if isinstance(command, click.Group):
            yield from commands(command, click.Context(command, parent=ctx), where)
        else:
            yield where, command


def said(command: click.Command, param: click.Option, ctx: click.Context) -> str:
    """What `--help` says of `param`, without the bracketed default and range."""
    record = param.get_help_record(click.Context(command, parent=ctx))
    text = record[1] if record else ""
    return re.sub(r"\s*\[[^\]]*\]\s*$", "", text).strip()


def test_every_option_of_every_command_has_a_help_text() -> None:
    ctx = click.Context(main)
    silent = [
        f"{where} {param.opts[-1]}"
        for where, command in commands(main, ctx, "arena")
        for param in command.params
        if isinstance(param, click.Option) and not param.hidden and not said(command, param, ctx)
    ]
    assert silent == []


def test_export_says_all_versions_exports_every_game_rather_than_rating_them() -> None:
    from arena.commands.export import export

    (option,) = [p for p in export.params if p.name == "all_versions"]
    assert isinstance(option, click.Option)
    text = said(export, option, click.Context(main))
    assert "every game" in text
    assert "rate" not in text


def groups(
    group: click.Group, ctx: click.Context, path: tuple[str, ...]
) -> Iterator[tuple[str, ...]]:
    yield path
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            yield from groups(command, click.Context(command, parent=ctx), (*path, name))


def test_no_command_listed_in_a_help_has_its_summary_cut_short() -> None:
    """`arena ladder --help` listed "serve  Run the ladder in STORE (made if there is
    none): the web server..." (click cuts a long first sentence)."""
    cut = []
    for path in groups(main, click.Context(main), ()):
        shown = CliRunner().invoke(main, [*path, "--help"], terminal_width=80)
        assert shown.exit_code == 0, shown.output
        listing = shown.output.split("Commands:", 1)[1]
        cut += [
            f"{' '.join(path)}: {line.strip()}"
            for line in listing.splitlines()
            if line.endswith("...")
        ]
    assert cut == []


def test_every_option_a_help_names_is_one_of_its_command() -> None:
    """An option named in a command's help is one it has, or is named with its own
    command (`arena match --replays`): check-bot's --tc said that --grace-ms, --bank-ms
    and --increment-ms could not be given with it, options check-bot does not have."""
    ctx = click.Context(main)
    strangers = []
    for where, command in commands(main, ctx, "arena"):
        own = {"--help"}
        texts = [command.help or ""]
        for param in command.params:
            if isinstance(param, click.Option):
                own.update(param.opts + param.secondary_opts)
                texts.append(param.help or "")
        for text in texts:
            for found in re.finditer(r"(arena [a-z-]+ )?(--[a-z][a-z0-9-]*)", text):
                if found[1] is None and found[2] not in own:
                    strangers.append(f"{where}: {found[2]}")
    assert strangers == []
