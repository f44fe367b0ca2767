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
     "arena._syscalls", "arena._declared", "arena._locks"],
    ["arena.rules", "arena.ratings", "arena._seccomp"],
    ["arena.records", "arena.schedule", "arena.sandbox", "arena.seeds"],
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


def _module_imports() -> dict[str, set[str]]:
    """For every module of arena, the modules of arena it imports (at the top or inside
    a function), as full names; a package is its __init__."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    modules = {}
    for path in sorted((root / "arena").rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    edges: dict[str, set[str]] = {}
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        found = edges.setdefault(module, set())
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - max(0, node.level - 1)]
                source = ".".join([*base, node.module or ""]).strip(".") if node.level else ""
                source = source or node.module or ""
                # `from arena.bots import _manifest` imports the module; `from
                # arena.bots._manifest import BotSpec`, the module holding the name.
                names = [
                    f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules else source
                    for alias in node.names
                ]
            else:
                continue
            found.update(n for n in names if n in modules and n != module)
    return edges


def test_no_modules_import_each_other_in_a_circle() -> None:
    """Issue 43.2, inside the packages too: the manifest, the processes and the
    sandboxed build imported each other (the build code lived in the manifest's
    module), and so did the cluster's plugin and its tasks."""
    edges = _module_imports()
    circles = []
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for other in sorted(edges.get(module, ())):
            if other.rsplit(".", 1)[0] == module or module.startswith(other + "."):
                continue  # a package's face and its own modules
            if state.get(other) == 1:
                circles.append([*path[path.index(other) :], other])
            elif other not in state:
                visit(other)
        path.pop()
        state[module] = 2

    for module in sorted(edges):
        if module not in state:
            visit(module)
    assert circles == []
