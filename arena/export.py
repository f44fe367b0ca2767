"""`arena export`: every game of a league store as JSON lines or CSV, streamed.

JSON lines: one game a line, a JSON object::

    {"game_id": "g000003", "index": 3, "group": null, "status": "done",
     "reason": "last_standing", "seed": 123, "settings": {...GameConfig...},
     "started_at": ..., "finished_at": ..., "seconds": ..., "decisions": ...,
     "plays": ..., "rounds": ...,
     "seats": [{"seat": 0, "bot": "ann", "place": 1, "points": null, "tokens": 2,
                "cause": null}, ...]}

and with ``--replays`` a "replay" key: the game's replay records (the lines of an
`arena match --replays` file), null for a forfeit. The text is ASCII (every other
character as a JSON escape), so it is safe to print and holds every name exactly.

CSV: one row a seat (`CSV_COLUMNS`), games in schedule order; its game, player,
place, points, cause and group columns are those `arena rate` reads, so the standings
of an export are the store's. As in the standings' CSV, text that a spreadsheet would
run as a formula is written with a leading ``'``, and a control character as an
escape (JSON lines keep every name exact).

Games are read one at a time (`arena.store.Store.games`): a store of a million games
exports in bounded memory.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from typing import Any, TextIO

from arena.standings import csv_name
from arena.store import GameRow, unpack_replay

FORMATS = ("jsonl", "csv")
"""The output formats."""

CSV_COLUMNS = (
    "game", "index", "group", "status", "reason", "seed",
    "seat", "player", "place", "points", "tokens", "cause",
)  # fmt: skip
"""The columns of the CSV, one row a seat."""


def game_document(game: GameRow, *, replays: bool = False) -> dict[str, Any]:
    """A game as its JSON line holds it (`replays`: with its replay records)."""
    doc: dict[str, Any] = {
        "game_id": game.game_id,
        "index": game.index,
        "group": game.group,
        "status": game.status,
        "reason": game.reason,
        "seed": game.seed,
        "settings": game.config,
        "started_at": game.started_at,
        "finished_at": game.finished_at,
        "seconds": game.seconds,
        "decisions": game.decisions,
        "plays": game.plays,
        "rounds": game.rounds,
        "seats": [
            {
                "seat": s.seat,
                "bot": s.bot,
                "place": s.place,
                "points": s.points,
                "tokens": s.tokens,
                "cause": s.cause,
            }
            for s in game.seats
        ],
    }
    if replays:
        doc["replay"] = None if game.replay is None else unpack_replay(game.replay)
    return doc


def write_jsonl(games: Iterable[GameRow], out: TextIO, *, replays: bool = False) -> int:
    """Write each game as a JSON line; return how many."""
    count = 0
    encode = json.JSONEncoder(separators=(",", ":")).encode
    for game in games:
        out.write(encode(game_document(game, replays=replays)))
        out.write("\n")
        count += 1
    return count


def write_csv(games: Iterable[GameRow], out: TextIO) -> int:
    """Write a row for each seat of each game (`CSV_COLUMNS`); return how many games."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    count = 0
    for game in games:
        head = [
            _text(game.game_id), game.index, _text(game.group), _text(game.status),
            _text(game.reason), game.seed,
        ]  # fmt: skip
        writer.writerows(
            [
                *head,
                s.seat,
                _text(s.bot),
                s.place,
                _blank(s.points),
                _blank(s.tokens),
                _text(s.cause),
            ]
            for s in game.seats
        )
        count += 1
    return count


def _blank(value: Any) -> Any:
    return "" if value is None else value


def _text(value: str | None) -> str:
    """A text cell: empty for None, else as `csv_name` writes a name (escapes for
    control characters, a ``'`` before what a spreadsheet would run)."""
    return "" if value is None else csv_name(value)
