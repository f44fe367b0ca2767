"""Every package that arena/ and protocol/ import is declared in pyproject.toml.

A package installed in the development environment only because something else needs
it (`outcome`, which trio pulls in) works there and in a user's install, until that
other package stops needing it: each import names a dependency of its own.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def declared(requirements: list[str]) -> set[str]:
    """The distributions `requirements` name: `dask[distributed]` names dask and, through
    dask's extra of that name, distributed."""
    names = set()
    for requirement in requirements:
        found = re.fullmatch(r"([\w.-]+)(?:\[([\w.,-]+)\])?.*", requirement)
        assert found is not None, requirement
        name, extras = found.groups()
        names |= {name, *(extras.split(",") if extras else ())}
    return {name.lower().replace("_", "-") for name in names}


def imported(folder: Path) -> dict[str, set[str]]:
    """The top-level modules `folder`'s code imports (neither the standard library's nor
    arena's own), each with the files that import it."""
    found: dict[str, set[str]] = {}
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.partition(".")[0]
                if top not in sys.stdlib_module_names and top not in {"arena", "protocol"}:
                    found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


def test_every_imported_package_is_a_declared_dependency() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runtime = declared(project["dependencies"])
    cluster = declared(project["optional-dependencies"]["cluster"])
    providers = importlib.metadata.packages_distributions()
    undeclared = []
    for folder in ("arena", "protocol"):
        for module, files in sorted(imported(ROOT / folder).items()):
            dists = {d.lower().replace("_", "-") for d in providers.get(module, [module])}
            # The cluster's modules may use the cluster extra (`pip install '.[cluster]'`).
            allowed = (
                runtime | cluster if all(f.startswith("arena/cluster/") for f in files) else runtime
            )
            if not dists & allowed:
                undeclared.append(f"{module} ({', '.join(sorted(files))})")
    assert undeclared == []
