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


# Issue 43.2: every import of arena's own modules (at the top of a module or inside a
# function alike) points down this list of floors, or stays in its own package.
FLOORS = [
    ["protocol", "arena", "arena.errors", "arena._text", "arena._gc", "arena._memgroups",
     "arena._syscalls", "arena._declared"],
    ["arena.rules", "arena.seeds", "arena.ratings", "arena._seccomp"],
    ["arena.records", "arena.schedule", "arena.sandbox"],
    ["arena.bots"],
    ["arena.referee"],
    ["arena.replay", "arena.checker", "arena.messages", "arena.store"],
    ["arena.worker"],
    ["arena.standings", "arena.runners"],
    ["arena.export", "arena.match", "arena.report", "arena.league", "arena.cluster"],
    ["arena.sprt", "arena.testing", "arena.ladder"],
    ["arena.commands"],
    ["arena.cli"],
    ["arena._entry"],
    ["arena.__main__"],
]  # fmt: skip
FLOOR = {unit: level for level, units in enumerate(FLOORS) for unit in units}


def _unit(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] == "protocol":
        return "protocol"
    if parts[0] != "arena":
        return None
    return "arena" if len(parts) == 1 else f"arena.{parts[1]}"


def _imports() -> list[tuple[str, str, str]]:
    """(importing unit, imported unit, where) for every import of arena's modules."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    found = []
    for path in sorted((root / "arena").rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - max(0, node.level - 1)]
                prefix = ".".join(base) if node.level else ""
                name = node.module or ""
                source = f"{prefix}.{name}".strip(".") if node.level else name
                # `from arena import _syscalls` imports the module arena._syscalls.
                folder = root.joinpath(*source.split("."))
                targets = [
                    f"{source}.{alias.name}"
                    if (folder / f"{alias.name}.py").exists() or (folder / alias.name).is_dir()
                    else source
                    for alias in node.names
                ]
            else:
                continue
            for target in targets:
                here, there = _unit(module), _unit(target)
                if here and there and here != there:
                    found.append((here, there, f"{module}:{node.lineno}"))
    return found


def test_every_unit_of_arena_is_on_a_floor() -> None:
    units = {unit for here, there, _ in _imports() for unit in (here, there)}
    assert units - set(FLOOR) == set()


def test_no_import_points_upward_or_sideways() -> None:
    """Upward imports (standings and the report importing the command line's text
    helpers, the sandbox importing the builds, the league opening the cluster) made
    cycles; an import to a unit on the same floor is refused too, so none can return."""
    wrong = [
        f"{where}: {here} (floor {FLOOR[here]}) imports {there} (floor {FLOOR[there]})"
        for here, there, where in _imports()
        if FLOOR[there] >= FLOOR[here]
    ]
    assert wrong == []
