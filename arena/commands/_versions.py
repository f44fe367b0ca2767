"""A ladder's store read as a league's: its active versions by default (`--all-versions`
for every one). A ladder marks its store with the setting "ladder" and each retired or
failed version with a status other than "ok" (`Store.active_versions`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import click

from arena.records import ResultColumns
from arena.store import Store

F = TypeVar("F", bound=Callable[..., object])


def all_versions_option(command: F) -> F:
    return versions_option_saying(
        "Of a ladder's store: rate every version of every bot, not only the active ones."
    )(command)


def versions_option_saying(help: str) -> Callable[[F], F]:
    """`--all-versions` with `help` (what the command does with every version)."""
    return click.option("--all-versions", is_flag=True, help=help)


def active_versions(store: Store, all_versions: bool) -> frozenset[str] | None:
    """The bots to read of `store`: its active versions if it is a ladder's and not
    `all_versions`; None for every bot."""
    return None if all_versions else store.active_versions()


def versions_read(store: Store, results: ResultColumns, all_versions: bool) -> ResultColumns:
    """`results`, of the active versions only if `store` is a ladder's and not
    `all_versions` (the other versions' seats left out: `ResultColumns.only`)."""
    active = active_versions(store, all_versions)
    return results if active is None else results.only(active)
