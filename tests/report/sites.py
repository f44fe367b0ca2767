"""Leagues to report on, for the report's tests: real games of real bot processes."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from arena.testing import script

ROOT = Path(__file__).resolve().parents[2]


def random_bot(bots: Path, name: str) -> None:
    folder = bots / name
    folder.mkdir(parents=True)
    source = (ROOT / "example_bots" / "python" / "random" / "bot.py").read_text()
    fallback = "os.path.join(here, os.pardir, os.pardir, os.pardir)"  # this repository
    assert fallback in source
    source = source.replace(fallback, repr(str(ROOT)))
    (folder / "bot.py").write_text(source)
    (folder / "bot.toml").write_text(f'name = "{name}"\nrun = "python3 bot.py"\n')


def scripted_bot(bots: Path, name: str, behaviour: str) -> None:
    folder = bots / name
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(script(behaviour))
    (folder / "bot.toml").write_text(f'name = "{name}"\nrun = "python3 bot.py pids.txt"\n')


def league(root: Path, *, games_per_table: int = 3, extra: dict[str, object] | None = None) -> Path:
    """A finished league of three random bots and one that crashes now and then, in
    `root`; returns its store."""
    bots = root / "bots"
    for name in ("ann", "bob", "cat"):
        random_bot(bots, name)
    scripted_bot(bots, "crashy", "crash_mid_game")
    settings = {
        "bots": "bots", "store": "league.sqlite", "table_size": 3,
        "games_per_table": games_per_table, "duplicate": True, "concurrency": 1,
        "fault_limit": 0, "log_dir": "logs",
    } | (extra or {})  # fmt: skip
    lines = ["[league]"] + [f"{k} = {json.dumps(v)}" for k, v in settings.items()]
    lines += ["[clocks]", "decision_ms = 2000"]
    (root / "league.toml").write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(
        main, ["league", str(root / "league.toml"), "--progress", "quiet", "--sandbox", "none"]
    )
    assert result.exit_code == 0, result.output
    return root / "league.sqlite"
