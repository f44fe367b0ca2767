"""The safety of a store's file, shared by the league store and the SPRT store: made
whole before it takes its name, held by one writer, found again if it is moved or
replaced, refused when it is none of arena's; and the sequence that opens a store to
write (`open_to_write`) or to read (`open_to_read`) with it."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import itertools
import json
import os
import sqlite3
import stat
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import ClassVar, Self, TypeVar

from arena.errors import StoreError
from arena.store._sqlite import StoreConnection, connect, store_error

_T = TypeVar("_T")


FORMAT = "arena-league-store"
"""The value of the meta key "format" in every arena store."""
SPRT_FORMAT = "arena-sprt-store"
"""The same in every SPRT store (`arena.sprt`), here for `hold_store` to name a holder."""


Identity = tuple[int, int]
"""A file's device and inode: the file a name led to when it was looked at."""


def identity(path: Path) -> Identity | None:
    """What `path` leads to now (None if nothing)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def rescue_if_moved(
    db: sqlite3.Connection,
    path: Path,
    hold: int,
    close: Callable[[], None],
    writer: str,
    log: Identity | None = None,
) -> str | None:
    """If `path` no longer leads to the file `hold` holds, the store open to write
    through `db`, or its write-ahead log's name no longer leads to the log SQLite
    writes (`log`, as it was when the store was opened): save its games elsewhere,
    close it, and return the sentence that says what happened and where they are.
    None while all is in place.

    The file was removed, or another moved in its place, while the `writer`
    ("league", "SPRT") ran: SQLite would go on writing the file it has open, which
    nobody can open once this process ends, and every game would be lost. Its log
    removed (a careless clean-up of a "temporary" file): SQLite goes on writing the
    log it has open, and every game since it last copied the log into the store would
    be lost with this process (a kill), while every reader fails meanwhile.

    The games so far are first copied into a file beside it (`_rescue`). The store's
    side files that this process has open are removed once it is closed (`close`):
    its log, left under the store's name, would be applied to the file put there, or
    to the next store made there, and damage it (its games are in the copy)."""
    held = os.fstat(hold)
    try:
        now: os.stat_result | None = os.stat(path)
    except FileNotFoundError:
        now = None
    except OSError:  # cannot tell (a folder that became unreadable): go on
        return None
    wal = path.with_name(path.name + "-wal")
    if now is None:
        what, back = "the store was removed", True
    elif (now.st_dev, now.st_ino) != (held.st_dev, held.st_ino):
        what, back = "the store was replaced by another file (left as it is)", False
    elif log is None or (found := identity(wal)) == log:
        return None
    else:  # the store is in place, without the games of the log: the copy replaces it
        gone = "removed" if found is None else "replaced by another file"
        what, back = f"its write-ahead log {wal.name} was {gone}", True
    what += f" while this {writer} wrote it"
    try:
        count = db.execute("SELECT count(*) FROM games").fetchone()[0]
        rescue = _rescue(db, path)
    except sqlite3.Error as err:
        close()
        return f"{path}: {what}; its games could not be saved elsewhere ({err})"
    games = "1 game is" if count == 1 else f"{count} games are"
    saved = f"its {games} saved in {rescue}"
    side = _open_here([wal, path.with_name(path.name + "-shm")])
    close()
    for file in side:  # this store's own, not another's of the name
        with contextlib.suppress(FileNotFoundError):
            file.unlink()
    if back:
        saved += f": move that to {path} to resume"
    return f"{path}: {what}; {saved}"


def _rescue(db: sqlite3.Connection, path: Path) -> Path:
    """Copy the store open through `db` into a new file named for `path` and this
    process, and return it: beside `path`, or where its folder is gone or cannot be
    written, in the working folder or the temporary one. A name already taken (by an
    earlier rescue of a process of the same number) is never written over: the next
    free one is used. Raises the last `sqlite3.Error` when no place takes the copy."""
    base = f"{path.name}.rescued-{os.getpid()}"
    last: sqlite3.Error | None = None
    folders = [path.parent]
    with contextlib.suppress(OSError):  # a working folder that is gone
        folders.append(Path.cwd())
    folders.append(Path(tempfile.gettempdir()))
    for folder in dict.fromkeys(folders):
        names = (folder / (base if n == 0 else f"{base}-{n}") for n in itertools.count())
        rescue = next(name for name in names if not os.path.lexists(name))
        try:
            db.execute("VACUUM INTO ?", (str(rescue),))
        except sqlite3.Error as err:  # this folder takes no copy: try the next
            last = err
            continue
        return rescue
    assert last is not None
    raise last


def _open_here(paths: Sequence[Path]) -> list[Path]:
    """Those of `paths` that are files this process has open (by /proc/self/fd; none
    where that cannot be read)."""
    try:
        descriptors = os.listdir("/proc/self/fd")
    except OSError:
        return []
    held = set()
    for fd in descriptors:
        with contextlib.suppress(OSError, ValueError):
            info = os.fstat(int(fd))
            held.add((info.st_dev, info.st_ino))
    out = []
    for path in paths:
        with contextlib.suppress(OSError):
            info = os.stat(path)
            if (info.st_dev, info.st_ino) in held:
                out.append(path)
    return out


def _finished_out_of_reach(path: Path) -> bool:
    """Whether the store at `path` lies where SQLite cannot make the write-ahead log's
    side files, and has none: then no process writes it (a league would have made
    them), and SQLite reads it only as an immutable file. A store whose log is left
    (a league killed) is not one of these: read so, it would lack the log's games."""
    side = [path.with_name(path.name + end) for end in ("-wal", "-shm")]
    return not os.access(path.parent, os.W_OK) and not any(map(os.path.lexists, side))


def refuse_no_file(path: Path, what: str) -> None:
    """Raise `StoreError` if `path` can hold no store (`what`, "a league store"): a
    folder, a FIFO or a device (whose size of 0 said "an empty file: remove it"), or a
    link that leads nowhere (where a new store could not be made, with only SQLite's
    "No such file or directory" to say why)."""
    if path.is_dir():
        raise StoreError(f"{path} is a folder, not {what}")
    if os.path.lexists(path) and not path.exists():
        try:
            os.stat(path)
        except OSError as err:
            if err.errno == errno.ELOOP:  # a loop of links leads nowhere too, but not so
                raise StoreError(f"{path}: cannot open: {err.strerror}") from None
        try:
            target = os.readlink(path)
        except OSError:  # a folder on its path that is no folder, or a link gone since
            target = None
        if target is not None:
            raise StoreError(
                f"{path} is a link to {target!r}, which does not exist, not {what}:"
                " remove the link, or make it lead to the store"
            )
    if path.exists() and not path.is_file():
        raise StoreError(f"{path} is not a regular file (a FIFO, a device...), not {what}")


def make_whole(path: Path, fill: Callable[[sqlite3.Connection], None]) -> None:
    """Make the SQLite file `path`, if there is none, whole or not at all.

    `fill` writes its tables into a file of its own beside it, which is switched to
    the write-ahead log, closed, and then takes the name `path` (a hard link: unless
    another process made `path` meanwhile, whose file is then kept). A process killed
    at any moment so leaves no file at `path`, or a whole one; never the empty file
    that connecting makes first, which is refused as not a store. At most a stray
    ``.NAME.PID.new`` stays beside it. A write-ahead log or journal left under the
    name (``NAME-wal``, of a store removed without it) is refused, as SQLite would
    apply it to the new store; an empty one, which holds nothing to apply (the log a
    reader such as `arena standings` leaves), is removed. Raises `StoreError`, naming
    `path`.
    """
    if path.exists():
        return
    for end in ("-wal", "-journal"):
        orphan = path.with_name(path.name + end)
        with contextlib.suppress(OSError):
            if stat.S_ISREG((info := os.lstat(orphan)).st_mode) and info.st_size == 0:
                orphan.unlink()
        if os.path.lexists(orphan):
            # SQLite takes a log or journal by its name: it would apply this one, of a
            # store that is gone, to the new store, and damage it (or bring back part of
            # the old one).
            raise StoreError(
                f"{path}: no store, but {orphan.name} is left beside it (its store was"
                " removed, or moved without it): put the store back, or move"
                f" {orphan.name} away to start a new store there"
            )
    new = path.with_name(f".{path.name}.{os.getpid()}.new")
    side = [new, *(new.with_name(new.name + end) for end in ("-journal", "-wal", "-shm"))]

    def remove_new() -> None:
        for file in side:
            with contextlib.suppress(FileNotFoundError):
                file.unlink()

    try:
        remove_new()  # left by a process killed here with the same pid
        db = sqlite3.connect(new, isolation_level=None, timeout=30)
        try:
            fill(db)
            db.execute("PRAGMA journal_mode=WAL")
        finally:
            db.close()
        try:
            os.link(new, path)
        except FileExistsError:
            pass  # made by another process since we looked: theirs is opened
        except OSError:  # a file system without hard links
            if not path.exists():
                os.replace(new, path)
    except sqlite3.Error as err:
        raise store_error(path, "cannot create", err) from None
    except OSError as err:
        raise StoreError(f"{path}: cannot create: {err.strerror or err}") from None
    finally:
        with contextlib.suppress(OSError):
            remove_new()


def hold_store(path: Path) -> int:
    """Hold the store at `path` for this process to write: an open descriptor of the
    file with an exclusive `flock` (SQLite's own locks are of another kind, and do not
    see it), to be closed after the store's connection (closing it first would drop
    SQLite's locks on the file). Two leagues (or SPRTs) on one store would play the
    same games, and the second to record one would stop with an error: another
    process holding the store raises `StoreError` instead, before anything is played,
    naming what holds it (a league, an SPRT) by the store's format. Where the file
    system has no `flock`, nothing is checked."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as err:
        raise StoreError(f"{path}: cannot open: {err.strerror or err}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        holder = _HOLDERS.get(format_of(path) or "", "a league or an SPRT")
        raise StoreError(
            f"{path}: the store is in use by another arena process ({holder} still running"
            " on it): wait for it to finish or stop it, or give another store"
        ) from None
    except OSError:
        pass  # no flock here
    return fd


_HOLDERS = {FORMAT: "a league", SPRT_FORMAT: "an SPRT"}
"""Who holds a store of each format (`hold_store`)."""


def format_of(path: Path) -> str | None:
    """The meta "format" of the SQLite file at `path`, read-only (another process is
    writing it), or None if it cannot be read (or is no regular file: SQLite would wait
    for ever on a FIFO for a writer)."""
    if not os.path.isfile(path):
        return None
    uri = Path(os.path.realpath(path)).as_uri() + "?mode=ro"
    try:
        with contextlib.closing(sqlite3.connect(uri, uri=True, timeout=1)) as db:
            row = db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        value = json.loads(row[0]) if row is not None else None
    except (sqlite3.Error, ValueError, TypeError, RecursionError):
        return None
    return value if isinstance(value, str) else None


def open_to_write(
    path: Path,
    what: str,
    remedy: str,
    fill: Callable[[StoreConnection], None],
    init: Callable[[StoreConnection], _T],
) -> tuple[StoreConnection, int, _T]:
    """Open the store at `path` to write: what a league store and an SPRT store share.

    A file that can hold no store, or an empty one, is refused as not `what` ("an
    arena league store"; `remedy` says what to do with an empty file). With no store
    there, its folder is made and the store made whole (`make_whole`, `fill` writing
    its tables); it is then held (`hold_store`), connected to, and `init` checks and
    sets up the connection under its guard. Whatever fails, nothing is left open.
    Returns the connection, the hold (to close after the connection) and what `init`
    returned."""
    refuse_no_file(path, what)
    with contextlib.suppress(OSError):
        if path.stat().st_size == 0:
            raise StoreError(f"{path} is an empty file, not {what} ({remedy})")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise StoreError(f"{path}: cannot create its folder: {err}") from None
    make_whole(path, lambda db: fill(StoreConnection(db, path, what)))
    hold = hold_store(path)
    try:
        conn, made = connect(path, what, init)
    except BaseException:
        os.close(hold)
        raise
    return conn, hold, made


def open_to_read(
    path: Path, what: str, init: Callable[[StoreConnection], _T]
) -> tuple[StoreConnection, _T]:
    """Open an existing store at `path` for reading only: nothing in it is written,
    and any thread may read it, one at a time (`arena serve` reads in worker threads).
    A file that is missing or empty is refused as not `what`; `init` checks the
    connection under its guard, which is closed if that fails. Where SQLite cannot make
    the write-ahead log's side files and there are none, the store is read as a file
    nobody writes (`_finished_out_of_reach`)."""
    refuse_no_file(path, what)
    if not path.is_file():
        raise StoreError(f"{path}: no such {what.removeprefix('an arena ')}")
    if path.stat().st_size == 0:  # SQLite would read it as a database of no tables
        raise StoreError(f"{path} is an empty file, not {what}")
    uri = Path(os.path.realpath(path)).as_uri() + "?mode=ro"
    if _finished_out_of_reach(path):
        uri += "&immutable=1"
    return connect(path, what, init, target=uri, any_thread=True)


class OpenStore:
    """A store open through `conn` (a league's or an SPRT's), held while it is open to
    write (`hold`, of `hold_store`): closed once, best used as a context manager, and
    checked in its place after each game (`check_in_place`)."""

    writer: ClassVar[str] = "league"
    """Who writes the store, for `rescue_if_moved`'s words ("league", "SPRT")."""

    def __init__(self, conn: StoreConnection, hold: int | None) -> None:
        self._conn = conn
        self._hold = hold
        self.path = conn.path
        """The store's file."""
        self._log = None if hold is None else identity(self.path.with_name(self.path.name + "-wal"))
        """The write-ahead log SQLite writes (it is open from the first read on)."""

    def close(self) -> None:
        """Close the store; it cannot be used afterwards (closing twice is fine)."""
        self._conn.db.close()
        if self._hold is not None:  # after the connection: see `hold_store`
            os.close(self._hold)
            self._hold = None

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Close the store; if it was moved meanwhile (`moved`), its games are saved
        first. That is raised as `StoreError`, or noted on the exception that ends the
        block (an error, a stop), which the command line prints after it."""
        try:
            said = self.moved()
        finally:
            self.close()
        if said is None:
            return
        if value is None:
            raise StoreError(said)
        value.add_note(said)

    def moved(self) -> str | None:
        """If this store, open to write, was removed or replaced, or its write-ahead
        log was, since it was opened: its games are saved elsewhere and it is closed
        (`rescue_if_moved`); the sentence that says where, once. Otherwise None."""
        if self._hold is None:
            return None
        return rescue_if_moved(
            self._conn.db, self.path, self._hold, self.close, self.writer, self._log
        )

    def check_in_place(self) -> None:
        """Raise `StoreError` if the store was moved (`moved`): a store removed or
        replaced while it is written stops its writer, its games saved."""
        if (said := self.moved()) is not None:
            raise StoreError(said)
