"""The ladder: a contest that never ends. Authors submit bots over HTTP (`arena
submit`); each submission is built and checked in the sandbox, then plays tables chosen
for what they teach about the standings, against the active versions of everyone
else's bots. See docs/ladder.md.

The package: `_db` (the ladder's tables in the store), `_select` (which table next),
`_run` (the intake and the games), `_web` (the HTTP API and pages), `_serve` (`arena
ladder serve`), `_settle` (`arena ladder settle`).
"""

from __future__ import annotations

from arena.ladder._db import STATES, LadderDB, Submission, token_hash, version_name
from arena.ladder._run import Ladder, LadderSettings, admit, judge_upload
from arena.ladder._select import PLACEMENT_TABLES, Rated, choose_table, rate

__all__ = [
    "PLACEMENT_TABLES",
    "STATES",
    "Ladder",
    "LadderDB",
    "LadderSettings",
    "Rated",
    "Submission",
    "admit",
    "choose_table",
    "judge_upload",
    "rate",
    "token_hash",
    "version_name",
]
