"""Leagues to report on, for the report's tests: real games of real bot processes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from arena import REPLAY_FORMAT, __version__
from arena.cli import main
from arena.rules import CODES, Game, GameConfig, event_to_dict
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


def replay_with_late_faults() -> list[dict[str, Any]]:
    """A game of three played by the rules engine (the first legal action each time),
    with a crash of the seat first out, recorded after it was out, and a timeout of
    the winner after the end: faults a replay records (a process that ends after its
    seat is out, a bot that does not answer game_over) and that change nothing."""
    for seed in range(100):
        log = _played(seed)
        if log is not None:
            return log
    raise AssertionError("no game of three with a seat out before the end")


def _played(seed: int) -> list[dict[str, Any]] | None:
    config = GameConfig(players=3)
    game = Game(config, seed)
    log: list[dict[str, Any]] = [
        {"type": "game", "game_id": "late", "seed": seed, "config": config.to_dict(),
         "names": ["ann", "bob", "cat"], "replay_format": REPLAY_FORMAT, "arena": __version__},
    ]  # fmt: skip
    log += [{"type": "event", "event": event_to_dict(e)} for e in game.events]
    seen = len(game.events)
    crashed = False
    while not game.is_over:
        action = game.legal_actions()[0]
        card = None if action.card is None else CODES[action.card]
        log.append({"type": "decision", "seat": game.to_move, "request_id": len(log),
                    "choice": 0, "action": {"kind": action.kind.value, "card": card},
                    "ms": 1.0})  # fmt: skip
        game.apply(action)
        events = [event_to_dict(e) for e in game.events[seen:]]
        seen = len(game.events)
        log += [{"type": "event", "event": e} for e in events]
        out = [e["seat"] for e in events if e["type"] == "eliminated"]
        if out and not crashed:
            if game.to_move is None:  # (over: no seat out before the end)
                return None
            crashed = True
            log.append({"type": "fault", "seat": out[0], "cause": "crash",
                        "message": "exited after it was out"})  # fmt: skip
    outcome = game.outcome()
    winner = outcome.places.index(1)
    log.append({"type": "fault", "seat": winner, "cause": "timeout", "message": "no game_over"})
    log.append({"type": "result", "places": list(outcome.places), "points": None,
                "tokens": None, "eliminations": [], "reason": outcome.reason.value,
                "plays": outcome.plays, "rounds": outcome.rounds})  # fmt: skip
    return log


def engine_replay(config: GameConfig, seed: int, game_id: str) -> list[dict[str, Any]]:
    """A replay of a game the rules engine plays with the first legal action each time
    (as `arena match --replays` writes one, with made-up bots ann, bob, ...)."""
    game = Game(config, seed)
    names = ["ann", "bob", "cat", "dan", "eve", "fay"][: config.players]
    log: list[dict[str, Any]] = [
        {"type": "game", "game_id": game_id, "seed": seed, "config": config.to_dict(),
         "names": names, "replay_format": REPLAY_FORMAT, "arena": __version__},
    ]  # fmt: skip
    log += [{"type": "event", "event": event_to_dict(e)} for e in game.events]
    seen = len(game.events)
    while not game.is_over:
        action = game.legal_actions()[0]
        card = None if action.card is None else CODES[action.card]
        log.append({"type": "decision", "seat": game.to_move, "request_id": len(log),
                    "choice": 0, "action": {"kind": action.kind.value, "card": card},
                    "ms": 1.0})  # fmt: skip
        game.apply(action)
        log += [{"type": "event", "event": event_to_dict(e)} for e in game.events[seen:]]
        seen = len(game.events)
    outcome = game.outcome()
    log.append({"type": "result", "places": list(outcome.places), "points": None,
                "tokens": None, "eliminations": [], "reason": outcome.reason.value,
                "plays": outcome.plays, "rounds": outcome.rounds})  # fmt: skip
    return log
