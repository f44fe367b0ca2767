"""The commands of the `arena` CLI, one module each, imported only when run.

`COMMANDS` maps each command's name to its module, its function and the line `arena
--help` shows for it, so that `arena --help` imports no command (nor trio, numpy or the
checker's test helpers). A test checks that each line is the first line of the
command's own help.
"""

from __future__ import annotations

COMMANDS: dict[str, tuple[str, str, str]] = {
    "match": ("arena.commands.match", "match", "Play games between 2 to 6 bots."),
    "league": ("arena.commands.league", "league", "Run a league from a file or a bots folder."),
    "standings": ("arena.commands.standings", "standings", "Print a league store's standings."),
    "export": ("arena.commands.export", "export", "Write a league store's games as JSONL or CSV."),
    "replay": ("arena.commands.replay", "replay", "Print a game play by play."),
    "report": ("arena.commands.report", "report", "Write a league's web report."),
    "serve": ("arena.commands.report", "serve", "Serve a league's web report live."),
    "sprt": ("arena.commands.sprt", "sprt", "Test whether bot NEW is stronger than bot OLD."),
    "rate": ("arena.commands.rate", "rate", "Print standings for finishing orders in a CSV."),
    "ladder": ("arena.commands.ladder", "ladder", "Run a ladder: bots submitted over HTTP."),
    "submit": ("arena.commands.submit", "submit", "Send a bot folder to a ladder."),
    "check-bot": (
        "arena.commands.check_bot",
        "check_bot_command",
        "Check that a bot speaks protocol v1.",
    ),
}
