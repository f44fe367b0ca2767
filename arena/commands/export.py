"""`arena export STORE`: every game of a league store as JSON lines or CSV."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

import click

from arena.commands._versions import active_versions, versions_option_saying
from arena.errors import InputError, StoreError


@click.command()
@click.argument("store", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl", "csv"]),
    default="jsonl",
    show_default=True,
    help="jsonl: one game a line (settings, seats, places, causes); csv: one row a seat,"
    " the columns arena rate reads.",
)
@click.option(
    "--replays",
    is_flag=True,
    help="With each game its whole replay (jsonl only; null for a forfeit).",
)
@click.option(
    "-o",
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write to this file (made whole or not at all) instead of standard output.",
)
@versions_option_saying(
    "Of a ladder's store: every game, not only those in which an active version played."
)
def export(store: Path, fmt: str, replays: bool, out: Path | None, all_versions: bool) -> None:
    """Write every game of the league in STORE, in schedule order, as JSON lines (one
    game a line: its settings, seed, seats with bots, places, points, tokens and
    causes, and with --replays its replay) or as CSV (one row a seat).

    Games are read and written one at a time: a store of a million games exports in
    bounded memory, and a league may be writing it meanwhile (what it holds as the
    export starts is written). A store edited by hand is refused, as arena standings
    and arena report refuse it, before anything is written.

    Of a ladder's store (arena ladder serve): the games in which an active version
    played, whole, with every seat (--all-versions: every game)."""
    from arena.export import write_csv, write_jsonl
    from arena.store import SPRT_FORMAT, Store, format_of

    if replays and fmt != "jsonl":
        raise InputError("--replays needs --format jsonl (a CSV row is a seat, not a game)")
    if not store.exists():
        raise InputError(f"{store}: no such league store")
    if out is not None and out.exists() and os.path.samefile(out, store):
        raise InputError(f"-o {out} is the store itself: give another file to write")
    if out is not None and _is_sqlite(out):  # another store: its results would be gone
        raise InputError(
            f"-o {out} is an SQLite file (an arena store?), which an export would replace:"
            " give another file to write (or remove it first)"
        )
    try:
        db = Store.open(store, readonly=True)
    except StoreError:
        if format_of(store) == SPRT_FORMAT:
            raise InputError(
                f"{store} is an SPRT store (arena sprt), not a league store: arena export"
                " reads the store of arena league (arena sprt prints a test's result)"
            ) from None
        raise
    with db, _output(out) as stream:
        only = active_versions(db, all_versions)
        games = db.games(replays=replays)
        shown = games if only is None else (g for g in games if any(s.bot in only for s in g.seats))
        try:
            if fmt == "jsonl":
                count = write_jsonl(shown, stream, replays=replays)
            else:
                count = write_csv(shown, stream)
        finally:
            games.close()  # ends the store's snapshot
    where = "standard output" if out is None else str(out)
    click.echo(f"exported {count} games ({fmt}) to {where}", err=True)


def _is_sqlite(path: Path) -> bool:
    """Whether `path` is a regular file that begins as an SQLite database does."""
    try:
        if not path.is_file():
            return False
        with open(path, "rb") as file:
            return file.read(16) == b"SQLite format 3\0"
    except OSError:
        return False


@contextlib.contextmanager
def _output(out: Path | None) -> Iterator[TextIO]:
    """Standard output, or a file beside `out` that takes its name once it is whole
    (a store refused, or an export stopped, leaves `out` as it was); a device or a
    FIFO (-o /dev/null) is written as it is."""
    if out is None:
        yield sys.stdout
        return
    if out.is_dir():
        raise InputError(f"-o {out} is a folder: give a file to write")
    if out.exists() and not out.is_file():  # /dev/null, a FIFO: written as it is
        try:
            with open(out, "w", encoding="utf-8", newline="") as stream:
                yield stream
        except OSError as err:
            raise InputError(f"-o {out}: cannot write: {err.strerror or err}") from None
        return
    temporary = out.with_name(f".{out.name}.{os.getpid()}.part")
    try:
        stream = open(temporary, "w", encoding="utf-8", newline="")  # noqa: SIM115
    except OSError as err:
        raise InputError(f"-o {out}: cannot write: {err.strerror or err}") from None
    try:
        with stream:
            yield stream
        os.replace(temporary, out)
    except BaseException as err:
        with contextlib.suppress(OSError):
            temporary.unlink()
        if isinstance(err, OSError):  # a full disk: said of the file, not in a word
            raise InputError(f"-o {out}: cannot write: {err.strerror or err}") from None
        raise
