"""The layers import downwards only: rules and protocol pull in no trio, click or arena."""

from __future__ import annotations

import subprocess
import sys

import pytest


def imported_after(module: str) -> set[str]:
    code = f"import sys; import {module}; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    return set(out.split())


@pytest.mark.parametrize("forbidden", ["trio", "click", "msgpack", "tabulate", "sqlite3"])
def test_rules_engine_imports_no_io_library(forbidden: str) -> None:
    assert forbidden not in imported_after("arena.rules")


@pytest.mark.parametrize("forbidden", ["trio", "click", "arena", "tabulate"])
def test_protocol_imports_nothing_of_arena_or_trio(forbidden: str) -> None:
    assert forbidden not in imported_after("protocol")


def test_rules_public_names_are_exported() -> None:
    import arena.rules

    for name in arena.rules.__all__:
        assert hasattr(arena.rules, name), name
    public = {n for n in dir(arena.rules) if not n.startswith("_")}
    assert public - set(arena.rules.__all__) <= {"annotations"}


@pytest.mark.parametrize("module", ["arena.store", "arena.records"])
@pytest.mark.parametrize("forbidden", ["numpy", "tabulate", "trio", "click"])
def test_the_store_and_its_records_import_no_ratings(module: str, forbidden: str) -> None:
    """Issue 16.4: anything (a web server) can read a store without the ratings' weight."""
    assert forbidden not in imported_after(module)


def test_arena_help_imports_no_command() -> None:
    """Issue 14.4: `arena --help` lists the commands without importing them (nor trio,
    numpy, or pytest through trio.testing)."""
    code = (
        "import sys\n"
        "from arena.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('MODULES', ' '.join(sorted(sys.modules)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    modules = set(out.split("MODULES", 1)[1].split())
    assert not modules & {"trio", "numpy", "pytest", "arena.checker", "arena.referee"}
    assert "check-bot" in out


def test_every_listed_command_exists() -> None:
    import importlib

    import click

    from arena.commands import COMMANDS

    for name, (module, attribute, short) in COMMANDS.items():
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command)
        assert command.name == name
        assert short.endswith(".")


def test_the_python_bot_helper_imports_little() -> None:
    """Issue 14.4: every Python bot on the helper pays for its imports at each start (a
    league with --fresh-process, every match); `dataclasses` alone (with `inspect`, `ast`
    and `dis`) was 40% of them, and `typing` (with `re`) another third."""
    modules = imported_after("protocol.bot")
    assert not modules & {"dataclasses", "inspect", "ast", "trio", "arena", "asyncio"}
    assert not modules & {"typing", "re", "threading", "contextlib"}
