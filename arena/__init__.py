"""arena: a tournament runner for bots that play the card game ONO 99."""

from __future__ import annotations

__version__ = "0.1.0"

REPLAY_FORMAT = 1
"""The shape of the replays this arena writes, files and the store's alike: their game
record says it as "replay_format" (a replay without one is of format 1, written before
replays said it). Raised when a replay written before no longer replays the same (its
records changed, or the rules), so that arena refuses a replay of another format
naming both (`arena.replay.check_format`) rather than calling it damaged."""

REPORT_FORMAT = 1
"""The shape of the report's data (`arena report`, `arena serve`): the league's payload
and each game's say it as "format" (data without one is of format 1). The viewer reads
this format only (FORMAT in arena/report/static/assets/data.js, the same number), and
says which formats when the data is of another."""
