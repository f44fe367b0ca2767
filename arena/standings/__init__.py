"""Standings: game records in, a ranked table of bots out.

Whoever stores results (the league store, a CSV of finishing orders) hands this
module plain `GameRecord`s; `compute_standings` fits the ratings (`arena.ratings`)
and counts games, wins, places, points and faults; `render` prints the table in any
`tabulate` format or as CSV or JSON. `head_to_head` and `render_head_to_head` give
the table of who finished above whom.

A bot's name can be anyone's (a results file given to `arena rate`, a league store
made elsewhere), and the tables and the CSV are read by people and spreadsheets: they
show a control or format character in a name as an escape (`\\x1b`, which a terminal
does not act on) and write a name that a spreadsheet would run as a formula with a
leading ``'``. JSON is the exact form: it holds every name as it is (what a terminal
would act on written with JSON's own escapes, which decode to the same name).

The package: `_compute` (the ratings and counts), `_render` (the tables), `_places`
(reading finishing orders from CSV).
"""

from __future__ import annotations

from arena.records import FAULT_CAUSES, GameRecord, ResultColumns, SeatRecord
from arena.standings._compute import (
    CONFIDENCE,
    MACHINE_FORMATS,
    Method,
    Standings,
    StandingsRow,
    apart_message,
    compute_standings,
    unlinked_groups,
)
from arena.standings._places import (
    load_places_columns,
    load_places_csv,
    read_places_columns,
    read_places_csv,
)
from arena.standings._render import (
    HeadToHead,
    check_format,
    csv_name,
    head_to_head,
    output_formats,
    render,
    render_head_to_head,
)

__all__ = [
    "CONFIDENCE",
    "FAULT_CAUSES",
    "MACHINE_FORMATS",
    "GameRecord",
    "HeadToHead",
    "Method",
    "ResultColumns",
    "SeatRecord",
    "Standings",
    "StandingsRow",
    "apart_message",
    "check_format",
    "compute_standings",
    "csv_name",
    "head_to_head",
    "load_places_columns",
    "load_places_csv",
    "output_formats",
    "read_places_columns",
    "read_places_csv",
    "render",
    "render_head_to_head",
    "unlinked_groups",
]
