"""Finishing orders from CSV files (`arena rate FILE`): a fast reader of columns for
large files, and a plain one that says exactly what is wrong with a bad file."""

from __future__ import annotations

import csv
import io
import operator
import os
import stat
import sys
from collections.abc import Iterable, Sequence
from itertools import compress
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np

from arena._gc import paused_collector
from arena.errors import InputError, clipped, shown
from arena.records import FAULT_CAUSES as FAULT_CAUSES  # re-exported: the tables' order
from arena.records import GameRecord as GameRecord
from arena.records import ResultColumns as ResultColumns
from arena.records import SeatRecord as SeatRecord
from arena.records import misplaced
from arena.standings._compute import _CONTROL

if TYPE_CHECKING:  # numpy.typing costs a tenth of numpy's import time
    import numpy.typing as npt


_REQUIRED = ("game", "player", "place")
_OPTIONAL = ("points", "cause", "group")


def load_places_csv(path: str | os.PathLike[str]) -> list[GameRecord]:
    """Read a ``game,player,place`` CSV file (see `read_places_csv`); "-" is stdin."""
    return load_places_columns(path).records()


def load_places_columns(path: str | os.PathLike[str]) -> ResultColumns:
    """`load_places_csv` in columns: the fast form for the standings of a large file."""
    name = os.fspath(path)
    try:
        if name == "-":
            return read_places_columns(sys.stdin, "<stdin>")
        with open(name, "rb") as stream:
            kind = os.fstat(stream.fileno()).st_mode
            if stat.S_ISCHR(kind) or stat.S_ISBLK(kind):  # /dev/zero would never end
                raise InputError(f"{name}: a device, not a file of results (for stdin: -)")
            data = stream.read()
        if data.startswith(b"SQLite format 3\0"):  # `arena rate league.sqlite`
            raise InputError(
                f"{name}: an SQLite file (an arena store?), not a CSV file of finishing"
                " orders; arena standings reads a store"
            )
        return _read_places_bytes(data, name)
    except UnicodeDecodeError as err:
        raise InputError(f"{name}: not UTF-8 text ({err.reason} at byte {err.start})") from err
    except OSError as err:
        raise InputError(f"{name}: cannot read: {err.strerror or err}") from err
    except MemoryError:
        raise InputError(f"{name}: too large to read into memory") from None


def read_places_csv(stream: TextIO, name: str = "<input>") -> list[GameRecord]:
    """Read finishing orders: CSV with columns game, player, place; one row per player
    per game. Optional columns: points (an integer), cause (the elimination cause) and
    group (the duplicate-deal group of the game). Column names are case-insensitive;
    other columns are ignored; blank lines are skipped. Games keep the order of their
    first row.

    A place is 1 plus the number of the game's players placed better (as arena places
    its own games): tied players share a place and the places after them are skipped
    (1, 1, 3), and no place is past the game's number of players.

    Raises `InputError` naming the line for every problem: no header or no rows, a
    missing column, a wrong number of fields, an empty game or player, a place that is
    not a whole number >= 1, points that are not a whole number, a number too large
    for 64 bits, a player twice in one game, a game given two groups, a game of one
    player, a place past the game's number of players or one its other places rule
    out (2, 2 or 1, 1, 2).
    """
    return read_places_columns(stream, name).records()


def read_places_columns(stream: TextIO, name: str = "<input>") -> ResultColumns:
    """`read_places_csv` in columns (`ResultColumns`), without an object per row.

    A well-formed file is read column by column: each distinct text of a column is
    checked and converted once, and numpy checks the games (issue 14.6). At anything
    else (a blank line, a bad value, a repeated player...) the file is read again line
    by line, which skips or reports it exactly as `read_places_csv` always has.
    """
    with paused_collector():  # a million rows make millions of objects, in no cycle
        text = stream.read()
        columns = _read_columns(text, name)
        if columns is None:
            columns = ResultColumns.from_records(_read_places_csv(io.StringIO(text), name))
        return columns


_BOM = b"\xef\xbb\xbf"
"""The UTF-8 byte order mark, which a file may begin with (it is read as utf-8-sig)."""


def _read_places_bytes(data: bytes, name: str) -> ResultColumns:
    """`read_places_columns` of a file's bytes: UTF-8 text, with or without a byte order
    mark. A plain file (no quotes, carriage returns or NULs) is read from its bytes,
    never decoded whole unless the line-by-line reader must read it; any other file
    is decoded exactly as ``open(name, encoding="utf-8-sig", newline="")`` decodes it
    (raising its `UnicodeDecodeError`) and read as text."""
    with paused_collector():
        body = data[len(_BOM) :] if data.startswith(_BOM) else data
        if b'"' not in body and b"\r" not in body and b"\0" not in body and _utf8(body):
            columns = _plain_columns(body, name)
            if columns is None:
                text = body.decode()
                columns = ResultColumns.from_records(_read_places_csv(io.StringIO(text), name))
            return columns
        stream = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", newline="")
        return read_places_columns(stream, name)


def _utf8(data: bytes) -> bool:
    """Whether ``data`` is UTF-8 text, checked a megabyte or so at a time (a newline
    never falls inside a character) so as not to hold it all decoded."""
    if data.isascii():
        return True
    view = memoryview(data)
    start = 0
    while start < len(data):
        end = data.find(b"\n", start + (1 << 20)) + 1 or len(data)
        try:
            str(view[start:end], "utf-8")
        except UnicodeDecodeError:
            return False
        start = end
    return True


_LARGEST = 2**63 - 1
"""The largest place or points (they are counted in 64-bit integers, as SQLite does)."""


def _shown_cell(cell: str) -> str:
    """A header cell as a message shows it: quoted, with any control character or
    oddity escaped ("place\\x00"), and cut short."""
    return clipped(repr(cell)[1:-1] if not cell.isprintable() else cell)


def _header(reader: Any, name: str) -> dict[str, int]:
    """Read the header (after any blank lines): the index of each known column."""
    header = next(reader, None)
    while header is not None and not any(cell.strip() for cell in header):
        header = next(reader, None)
    if header is None:
        raise InputError(f"{name}: the file is empty; expected a header game,player,place")
    columns = [cell.strip().lower() for cell in header]
    where = f"{name}, line {reader.line_num}"
    missing = [c for c in _REQUIRED if c not in columns]
    if missing:
        raise InputError(
            f"{where}: missing column{'s' if len(missing) > 1 else ''} "
            f"{', '.join(missing)}; the header must name game, player and place"
            f" (it names {', '.join(_shown_cell(c) for c in columns[:8])}"
            f"{', ...' if len(columns) > 8 else ''})"
        )
    twice = sorted({c for c in columns if c and columns.count(c) > 1})
    if twice:
        raise InputError(f"{where}: column {clipped(twice[0])} appears twice in the header")
    col = {c: columns.index(c) for c in _REQUIRED + _OPTIONAL if c in columns}
    col["width"] = len(columns)
    return col


def _read_columns(text: str, name: str) -> ResultColumns | None:
    """The columns of a well-formed file, or None if the line-by-line reader must
    read it (to skip blank lines, or to report a problem with its line)."""
    if '"' not in text and "\r" not in text and "\0" not in text:
        # No quoting: the fields are the bytes between commas and newlines. (A lone
        # surrogate, as from stdin read with surrogateescape, goes through as it is.)
        return _plain_columns(text.encode("utf-8", "surrogatepass"), name)
    reader = csv.reader(io.StringIO(text), strict=True)
    try:
        col = _header(reader, name)
        cells = _cells(reader, col["width"])
    except csv.Error:
        return None
    if cells is None or not cells[0]:
        return None
    return _assemble(_TextCells(cells), col)


def _plain_columns(data: bytes, name: str) -> ResultColumns | None:
    """`_read_columns` of UTF-8 text without quotes, carriage returns or NULs, from its
    bytes: numpy finds every field at once, and only the distinct texts of a column
    (and the first of each run of a game's rows) become Python strings."""
    reader = csv.reader(_lines(data), strict=True)
    try:
        col = _header(reader, name)
    except csv.Error:
        return None
    start = 0
    for _ in range(reader.line_num):  # past the header and any blank line before
        start = data.find(b"\n", start) + 1 or len(data)
    cells = _ByteCells.split(data, start, col["width"])
    return None if cells is None else _assemble(cells, col)


def _why(err: csv.Error) -> str:
    """What `csv` found wrong, in the words of this page, not of Python's."""
    text = str(err)
    if text.startswith("field larger than field limit"):
        return f"a cell longer than {csv.field_size_limit():,} characters"
    if text.startswith("new-line character seen in unquoted field"):
        return "a carriage return inside a cell that is not quoted"
    return text


def _lines(data: bytes) -> Iterable[str]:
    """The lines of ``data`` (UTF-8) as `io.StringIO` gives them, one at a time."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start) + 1 or len(data)
        yield data[start:end].decode("utf-8", "surrogatepass")
        start = end


def _assemble(cells: _TextCells | _ByteCells, col: dict[str, int]) -> ResultColumns | None:
    """The columns of the rows of ``cells`` (with the header's ``col``), checked as the
    line-by-line reader checks them; None at anything it would skip or report."""
    count = cells.count
    # Games, numbered in the order of their first row; players, in the order of names.
    # Most files give each game's rows together: then a game starts wherever the cell
    # changes, and only the first cell of each run is read.
    texts, changes = cells.runs(col["game"])
    game_ids = list(map(str.strip, texts))
    if len(set(game_ids)) == len(game_ids):  # no game in two runs of rows
        game = np.zeros(count, dtype=np.intp)
        np.cumsum(changes, out=game[1:])
    else:
        texts, codes = cells.distinct(col["game"], ordered=True)
        names = list(map(str.strip, texts))
        game_ids = list(dict.fromkeys(names))
        game = _renumber(names, game_ids)[codes]
    del texts, changes
    player_texts, player_codes = cells.distinct(col["player"])
    player_names = list(map(str.strip, player_texts))
    if "" in game_ids or "" in player_names:
        return None
    if _CONTROL.search("".join(game_ids)) or _CONTROL.search("".join(player_names)):
        return None
    players = sorted(set(player_names))
    player = _renumber(player_names, players)[player_codes]
    del player_texts, player_codes, player_names

    place = cells.digits(col["place"])
    if place is None:
        texts, codes = cells.distinct(col["place"])
        values = list(map(_number, texts))
        if not all(value is not None and 1 <= value <= _LARGEST for value in values):
            return None
        place = np.array(values, dtype=np.int64)[codes]
    elif place.min() < 1:
        return None
    points: npt.NDArray[np.object_] | None = None
    if "points" in col:
        texts, codes = cells.distinct(col["points"])
        numbers = list(map(_number, texts))
        if any(n is None and t.strip() for t, n in zip(texts, numbers, strict=True)):
            return None
        points = np.array(numbers, dtype=object)[codes]
    causes: list[str] = []
    cause = np.full(count, -1, dtype=np.intp)
    if "cause" in col:
        texts, codes = cells.distinct(col["cause"])
        cause_names = [text.strip() or None for text in texts]
        causes = sorted({c for c in cause_names if c is not None})
        cause_index = {c: k for k, c in enumerate(causes)}
        cause_of = [-1 if c is None else cause_index[c] for c in cause_names]
        cause = np.array(cause_of, dtype=np.intp)[codes]
    group_names: list[str | None] = [None]
    group = np.zeros(count, dtype=np.intp)
    if "group" in col:
        texts, codes = cells.distinct(col["group"])
        group_of = [text.strip() or None for text in texts]
        group_names = [None, *sorted({g for g in group_of if g is not None})]
        group_index = {g: k for k, g in enumerate(group_names)}
        group = np.array([group_index[g] for g in group_of], dtype=np.intp)[codes]
    del cells

    # The seats of each game together, in the order of their rows.
    if np.any(game[1:] < game[:-1]):
        order = np.argsort(game, kind="stable")
        game, player, place, cause, group = (a[order] for a in (game, player, place, cause, group))
        if points is not None:
            points = points[order]
    seats = np.bincount(game, minlength=len(game_ids))
    if seats.min() < 2:
        return None  # a game of one player
    first = np.cumsum(seats) - seats
    if np.any(group != np.repeat(group[first], seats)):
        return None  # a game in two groups
    if _repeats(game * len(players) + player):
        return None  # a player twice in one game
    if misplaced(place, game, seats, first).any():
        return None  # a place past the game's seats, or one its other places rule out
    return ResultColumns(
        game_ids=game_ids,
        groups=[group_names[k] for k in group[first].tolist()],
        players=tuple(players),
        causes=tuple(causes),
        seat_game=game,
        seat_player=player,
        place=place,
        points=[None] * count if points is None else points.tolist(),
        seat_cause=cause,
    )


def _check_places(name: str, game: str, seats: Sequence[SeatRecord], lines: Sequence[int]) -> None:
    """Raise `InputError`, naming the line, unless every place of ``game`` is 1 plus
    the number of its players placed better (places 1 to the number of players; tied
    players share the best of the places they take and the others are skipped:
    1, 1, 3), as arena's own games are placed."""
    count = len(seats)
    over = [
        (line, seat.place) for seat, line in zip(seats, lines, strict=True) if seat.place > count
    ]
    if over:
        line, place = min(over)
        raise InputError(
            f"{name}, line {line}: place {place} in game {clipped(game)}, which has "
            f"{count} players (places 1 to {count})"
        )
    ranked = sorted(zip((seat.place for seat in seats), lines, strict=True))
    better = 0
    for k, (place, line) in enumerate(ranked):
        if k and place != ranked[k - 1][0]:
            better = k
        if place != better + 1:
            who = {0: "no player", 1: "1 player"}.get(better, f"{better} players")
            raise InputError(
                f"{name}, line {line}: place {place} in game {clipped(game)}, but {who} of "
                f"the game placed better, so it is place {better + 1} (a place is 1 plus the "
                "number placed better; tied players share it, as in 1, 1, 3)"
            )


def _renumber(names: Sequence[str], order: Sequence[str]) -> npt.NDArray[np.intp]:
    """The index in ``order`` of each of ``names``."""
    index = {name: k for k, name in enumerate(order)}
    return np.fromiter(map(index.__getitem__, names), dtype=np.intp, count=len(names))


def _cells(reader: Any, width: int) -> list[Sequence[str]] | None:
    """The columns of the rows left in ``reader``; None unless each has ``width`` fields."""
    rows = list(reader)
    if set(map(len, rows)) != {width}:
        return None
    return list(zip(*rows, strict=True))


class _TextCells:
    """The cells of the rows of CSV text, as the csv module reads them: a tuple of
    strings a column. (`_ByteCells` answers the same questions from bytes.)"""

    def __init__(self, columns: list[Sequence[str]]) -> None:
        self.columns = columns
        self.count = len(columns[0])

    def runs(self, k: int) -> tuple[list[str], npt.NDArray[np.bool_]]:
        """The cell of each run of equal cells of column ``k``, and whether each row
        after the first starts a run."""
        cells = self.columns[k]
        changes = np.fromiter(map(operator.ne, cells[1:], cells[:-1]), bool, self.count - 1)
        return [cells[0], *compress(cells[1:], changes)], changes

    def distinct(self, k: int, *, ordered: bool = False) -> tuple[list[str], npt.NDArray[np.intp]]:
        """Each distinct cell of column ``k`` once (in the order of its first row if
        ``ordered``), and the index of each row's cell among them."""
        cells = self.columns[k]
        texts = list(dict.fromkeys(cells))
        return texts, _renumber(cells, texts)

    def digits(self, k: int) -> npt.NDArray[np.int64] | None:
        """The numbers in column ``k`` if numpy can read them all; here, never."""
        return None


_LOW_BYTES = np.array([(1 << 8 * n) - 1 for n in range(9)], dtype="<u8")
"""The mask of the first n bytes of a little-endian word, for n from 0 to 8."""

_MULTIPLIERS = (0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB, 0xD6E8FEB86659FD93)
"""Odd 64-bit constants, for multiplicative hashing."""


# Fields longer than this (in bytes) send a file to the line-by-line reader: the fast
# one reads every row's field to the length of the longest, so one long cell among a
# million rows would cost a million times its length.
_LONGEST_FIELD = 256


class _ByteCells:
    """The cells of the rows of plain CSV bytes (no quotes, carriage returns or NULs):
    where each field starts and ends, found by numpy. A column's cells are compared as
    their bytes padded with zeros to whole 64-bit words (no field holds a zero byte,
    so different texts have different words); only the distinct ones are decoded."""

    def __init__(self, buffer: npt.NDArray[np.uint8], separators: Any, width: int) -> None:
        self.size = len(buffer) - 8
        self.buffer = buffer
        self.separators = separators
        self.width = width
        self.count = len(separators) // width + 1

    @classmethod
    def split(cls, data: bytes, start: int, width: int) -> _ByteCells | None:
        """The fields of the lines of ``data`` from ``start`` on (what `csv.reader`
        reads from them); None unless every line has ``width`` fields."""
        size = len(data) - start
        if size and data.endswith(b"\n"):
            size -= 1
        if not size:
            return None
        buffer = np.zeros(size + 8, dtype=np.uint8)  # a word can be read at every byte
        buffer[:size] = np.frombuffer(data, dtype=np.uint8, count=size, offset=start)
        body = buffer[:size]
        newline = body == ord("\n")
        lines = int(np.count_nonzero(newline)) + 1
        separators = np.flatnonzero(newline | (body == ord(",")))
        del newline
        if len(separators) != lines * width - 1 or np.any(
            body[separators[width - 1 :: width]] != ord("\n")
        ):
            return None  # a blank line, or one with another number of fields
        bounds = np.concatenate(([-1], separators, [size]))
        if int(np.diff(bounds).max()) > _LONGEST_FIELD + 1:
            return None  # each row's words would span the longest: the line reader
        return cls(buffer, separators, width)

    def _field(self, k: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
        """Where each row's field of column ``k`` starts, and its length in bytes."""
        separators, width = self.separators, self.width
        line_ends = separators[width - 1 :: width]
        starts = separators[k - 1 :: width] + 1 if k else np.concatenate(([0], line_ends + 1))
        last = k == width - 1
        ends = np.concatenate((line_ends, [self.size])) if last else separators[k::width]
        return starts, ends - starts

    def _words(self, starts: npt.NDArray[np.intp], lengths: npt.NDArray[np.intp]) -> Any:
        """Each row's field as little-endian 64-bit words (one row each), zero-padded."""
        count = max(1, -(-int(lengths.max()) // 8))
        # A word at every byte of the buffer, read unaligned.
        loads = np.ndarray((self.size + 1,), dtype="<u8", buffer=self.buffer, strides=(1,))
        words = np.empty((self.count, count), dtype="<u8")
        for i in range(count):
            at = np.minimum(starts + 8 * i, self.size) if i else starts
            words[:, i] = loads[at] & _LOW_BYTES[np.clip(lengths - 8 * i, 0, 8)]
        return words

    @staticmethod
    def _texts(words: Any) -> list[str]:
        """The text of each row of ``words``."""
        rows, count = words.shape
        padded = np.zeros((rows, 8 * count + 1), dtype=np.uint8)
        padded[:, :-1] = np.ascontiguousarray(words).view(np.uint8)
        padded[:, -1] = ord("\n")
        flat = padded.ravel()
        text: str = flat[flat != 0].tobytes().decode("utf-8", "surrogatepass")
        return text.split("\n")[:-1]

    def runs(self, k: int) -> tuple[list[str], npt.NDArray[np.bool_]]:
        """As `_TextCells.runs`."""
        words = self._words(*self._field(k))
        if words.shape[1] == 1:
            changes = words[1:, 0] != words[:-1, 0]
        else:
            changes = np.any(words[1:] != words[:-1], axis=1)
        firsts = np.concatenate(([0], np.flatnonzero(changes) + 1))
        return self._texts(words[firsts]), changes

    def distinct(self, k: int, *, ordered: bool = False) -> tuple[list[str], npt.NDArray[np.intp]]:
        """As `_TextCells.distinct`."""
        words = self._words(*self._field(k))
        key = words[:, 0] if words.shape[1] == 1 else _mix(words)
        if ordered:
            _, rows, codes = np.unique(key, return_index=True, return_inverse=True)
        else:
            unique = np.unique(key)
            codes = _lookup(unique, key)
            rows = np.empty(len(unique), dtype=np.intp)
            rows[codes] = np.arange(self.count)  # a row of each
        if words.shape[1] > 1 and not np.array_equal(words[rows][codes], words):
            # Two texts with one key: number them by their words themselves.
            _, rows, codes = np.unique(words, axis=0, return_index=True, return_inverse=True)
        codes = codes.reshape(-1)
        if ordered:
            by_row = np.argsort(rows)
            rank = np.empty_like(by_row)
            rank[by_row] = np.arange(len(rows))
            rows, codes = rows[by_row], rank[codes]
        return self._texts(words[rows]), codes

    def digits(self, k: int) -> npt.NDArray[np.int64] | None:
        """The numbers in column ``k`` if each of its cells is 1 to 18 ASCII digits
        (all that `int` reads alike and 64 bits hold); None otherwise."""
        starts, lengths = self._field(k)
        shortest, longest = int(lengths.min()), int(lengths.max())
        if shortest < 1 or longest > 18:
            return None
        digits = self._words(starts, lengths).view(np.uint8)
        value = np.zeros(self.count, dtype=np.int64)
        for j in range(longest):
            digit = digits[:, j] - np.uint8(ord("0"))
            if j < shortest:
                if digit.max() > 9:
                    return None
                value = value * 10 + digit
            else:
                inside = lengths > j
                if np.any(digit[inside] > 9):
                    return None
                value = np.where(inside, value * 10 + digit, value)
        return value


def _mix(words: Any) -> Any:
    """One 64-bit key for each row of ``words`` (rows of two words or more)."""
    key = words[:, 0].copy()
    for i in range(1, words.shape[1]):
        key *= np.uint64(_MULTIPLIERS[0])
        key ^= key >> np.uint64(29)
        key ^= words[:, i]
    return key


def _lookup(unique: Any, keys: Any) -> npt.NDArray[np.intp]:
    """The index of each of ``keys`` in ``unique`` (sorted, holding every key): by a
    table of a multiplicative hash that gives each of a few hundred keys its own slot,
    a few times faster than a binary search."""
    bits = (2 * len(unique) ** 2).bit_length()
    if bits <= 20:
        shift = np.uint64(64 - bits)
        for multiplier in map(np.uint64, _MULTIPLIERS):
            slots = (unique * multiplier) >> shift
            if len(np.unique(slots)) == len(unique):
                table = np.zeros(1 << bits, dtype=np.intp)
                table[slots] = np.arange(len(unique))
                codes: npt.NDArray[np.intp] = table[(keys * multiplier) >> shift]
                return codes
    found: npt.NDArray[np.intp] = np.searchsorted(unique, keys)
    return found


def _number(text: str) -> int | None:
    """The whole number in ``text`` as `_whole` reads it; None if blank, not one or
    too large for 64 bits."""
    if text.isdecimal() and len(text) <= 18:
        return int(text)
    try:
        return _whole(text, "", "")
    except InputError:
        return None


def _repeats(keys: npt.NDArray[np.intp]) -> bool:
    """Whether a value occurs twice."""
    ordered = np.sort(keys)
    return bool(np.any(ordered[1:] == ordered[:-1]))


def _read_places_csv(stream: TextIO, name: str) -> list[GameRecord]:
    reader = csv.reader(stream, strict=True)
    seat = SeatRecord.checked  # every value is checked below, once
    try:
        col = _header(reader, name)
        width = col["width"]
        seats: dict[str, list[SeatRecord]] = {}
        groups: dict[str, str | None] = {}
        first_line: dict[tuple[str, str], int] = {}
        game_at, player_at, place_at = col["game"], col["player"], col["place"]
        points_at, cause_at, group_at = col.get("points"), col.get("cause"), col.get("group")
        for fields in reader:
            # The hot path of a million rows: the line's name is made only for a message.
            if len(fields) != width:
                if not "".join(fields).strip():
                    continue
                where = f"{name}, line {reader.line_num}"
                raise InputError(
                    f"{where}: expected {width} fields like the header, found {len(fields)}"
                )
            line = reader.line_num
            game = fields[game_at].strip()
            player = fields[player_at].strip()
            if not game or not player or _CONTROL.search(game + player):
                if not "".join(fields).strip():
                    continue
                _bad_name(game, player, f"{name}, line {line}")
            text = fields[place_at]
            place = (
                int(text)
                if text.isdecimal() and len(text) <= 18
                else _whole(text, "place", f"{name}, line {line}")
            )
            if place is None or place < 1:
                raise InputError(
                    f"{name}, line {line}: place {shown(text.strip())} is not a whole number >= 1"
                )
            if place > _LARGEST:
                raise InputError(f"{name}, line {line}: place {shown(text.strip())} is too large")
            points = (
                _whole(fields[points_at], "points", f"{name}, line {line}")
                if points_at is not None
                else None
            )
            cause = (fields[cause_at].strip() or None) if cause_at is not None else None
            group = (fields[group_at].strip() or None) if group_at is not None else None
            if (game, player) in first_line:
                where = f"{name}, line {line}"
                raise InputError(
                    f"{where}: {clipped(player)} appears twice in game {clipped(game)} "
                    f"(first on line {first_line[game, player]})"
                )
            first_line[game, player] = line
            if game in groups and groups[game] != group:
                where = f"{name}, line {line}"
                raise InputError(
                    f"{where}: game {clipped(game)} is in group {clipped(group or '(none)')} here"
                    f" but in group {clipped(groups[game] or '(none)')} on an earlier line"
                )
            groups[game] = group
            seats.setdefault(game, []).append(seat(player, place, points, cause))
    except csv.Error as err:
        raise InputError(f"{name}, line {reader.line_num}: not valid CSV ({_why(err)})") from err
    if not seats:
        raise InputError(f"{name}: no results, only a header")
    for game, players in seats.items():
        if len(players) < 2:
            raise InputError(
                f"{name}: game {clipped(game)} has one player ({clipped(players[0].player)});"
                " a game needs at least 2"
            )
    for game, players in seats.items():
        _check_places(name, game, players, [first_line[game, s.player] for s in players])
    return [GameRecord.checked(game, groups[game], tuple(s)) for game, s in seats.items()]


def _bad_name(game: str, player: str, where: str) -> None:
    """Raise the InputError for an empty game or player, or one with a control character."""
    if not game:
        raise InputError(f"{where}: the game is empty")
    if not player:
        raise InputError(f"{where}: the player is empty")
    for what, text in (("game", game), ("player", player)):
        if _CONTROL.search(text):
            raise InputError(f"{where}: the {what} {shown(text)} holds a control character")


def _whole(text: str, what: str, where: str) -> int | None:
    """The whole number in ``text``, None if it is blank; `InputError` if it is not one
    or does not fit in 64 bits."""
    text = text.strip()
    if not text:
        return None
    digits = text.lstrip("+-")
    if digits.isdecimal() and len(digits.lstrip("0")) > 19:  # int() refuses 4,300 digits
        raise InputError(f"{where}: {what} {shown(text)} is too large")
    try:
        value = int(text)
    except ValueError:
        raise InputError(f"{where}: {what} {shown(text)} is not a whole number") from None
    if abs(value) > _LARGEST:
        raise InputError(f"{where}: {what} {shown(text)} is too large")
    return value
