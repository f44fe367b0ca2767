"""A league's identity in its store: the settings a resume must match, the schedule, the seed."""

from __future__ import annotations

import dataclasses
import json
import math
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import msgspec

from arena.errors import ConfigError, StoreError, shown
from arena.league._config import LeagueConfig
from arena.league._prepare import _smaller_tables, in_one_line
from arena.referee import RunSettings
from arena.rules import POINTS_RULES, Format, rules_in_play
from arena.schedule import MAX_GAMES, Schedule, is_schedule_of, make_schedule
from arena.seeds import new_secret, seed_key
from arena.store import Store, inflate


def _schedule(
    config: LeagueConfig,
    names: list[str],
    store: Store,
    warn: Callable[[str], None],
    left_out: Sequence[str] = (),
) -> Schedule:
    """The league's schedule; its settings are stored, and a resume must match them (but
    the clocks and the sandbox, which it may change with a warning). `left_out`: why
    each submission left out was, for the refusal of too few bots (said even with -q)."""
    if len(names) < config.table_size:
        left = f"; left out: {in_one_line(left_out)}" if left_out else ""
        raise ConfigError(
            f"{len(names)} playable bot(s) for tables of {config.table_size}: not enough"
            f"{_smaller_tables(len(names))}{left}"
        )
    stored = store.get_setting("league")
    seed = _league_seed(config, stored, store.path)
    identity = {
        "bots": sorted(names),
        "seed": seed,
        "deals": DEALS,
        "table_size": config.table_size,
        "games_per_table": config.games_per_table,
        "duplicate": config.duplicate,
        "max_tables": config.max_tables,
        "game": dataclasses.replace(config.game, players=config.table_size).to_dict(),
    }
    if config.game.format is Format.POINTS:  # the only format whose legal actions changed
        identity["points_rules"] = POINTS_RULES
    if stored is not None:
        was, now = settings_in_play(stored), settings_in_play(identity)
        if was != now:
            raise _other_settings(store.path, was, now, names)
        identity = stored  # the same rules (an option its format ignores kept as stored)
    # After the checks above, which name the damage they find, and before the settings
    # are written again: settings edited by hand (the secret, whose deals every game of
    # the league was dealt from) are refused; a store made before proofs gets them now.
    store.verify_rows(settings=True)
    store.adopt_proofs()
    # The schedule is kept in the store: a resume reads it instead of computing it again
    # (a balanced sample of thousands of tables takes seconds to find).
    key = json.dumps(identity, sort_keys=True)
    schedule = _stored_schedule(store.load_schedule(key), config, names, seed)
    if schedule is None:
        schedule = make_schedule(
            names,
            table_size=config.table_size,
            games_per_table=config.games_per_table,
            seed=seed,
            duplicate=config.duplicate,
            max_tables=config.max_tables,
        )
        store.save_schedule(key, zlib.compress(msgspec.msgpack.encode(schedule), 6))
    store.set_meta("league", identity)
    store.set_meta("schedule_note", schedule.note)
    store.set_meta("total_games", len(schedule.games))
    stored_games = store.games_count()
    before = store.get_setting("settings") or {}
    played_under = before.get("fault_limit")
    if stored_games and type(played_under) is int and played_under != config.fault_limit:
        # The games stored so far count under the limit they were played under: the new
        # one applies to faults to come (a played game is kept, a disqualified bot stays
        # so), also in a finished league run again.
        store.keep_fault_limit(played_under)
    if stored_games >= len(schedule.games):
        # Finished: nothing is played with these settings, and the report shows the
        # stored ones, under which the games were played (not the clocks of a run
        # that played none).
        return schedule
    settings = _resumable_settings(config)
    # A store of an older arena kept fewer of them: only those it kept are compared.
    changed = any(before[key] != settings[key] for key in before.keys() & settings.keys())
    if changed and stored_games:
        out = sorted(n for n, status in store.bot_statuses().items() if status == "disqualified")
        warn(_settings_changed(before, settings, out))
    store.set_meta("settings", settings)
    return schedule


def run_settings(run: RunSettings) -> dict[str, Any]:
    """The settings of `run` that shape the games but not who plays whom: the sandbox,
    the limits (which decide who crashes), the frame limit and fresh processes. A
    resume of a league or an SPRT may change them, with a warning that names each change
    (`setting_changes`). The stderr cap (`Limits.stderr_kb`) shapes only the logs, and
    is not among them."""
    limits = dataclasses.asdict(run.limits)
    del limits["stderr_kb"]
    return {
        "sandbox": run.sandbox,
        "limits": limits,
        "max_frame": run.max_frame,
        "fresh_process": run.fresh_process,
    }


def _resumable_settings(config: LeagueConfig) -> dict[str, Any]:
    """The settings that shape a league's games but not its schedule: `run_settings`,
    the clocks (a slower machine needs longer clocks) and the fault limit."""
    run = config.run
    return (
        {"clocks": run.clocks.to_dict()} | run_settings(run) | {"fault_limit": config.fault_limit}
    )


def setting_changes(before: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """Each change from `before` (as stored) to `now`, as `key old -> new`: those of the
    sections (clocks, limits) first, then the others, of the keys `before` holds."""
    changes = []
    for section, values in now.items():
        if isinstance(values, dict) and section in before:
            stored = before[section]
            was: dict[str, Any] = stored if isinstance(stored, dict) else {}
            changes += [
                f"{key} {shown(was.get(key))} -> {shown(value)}"
                for key, value in values.items()
                if was.get(key) != value
            ]
    changes += [
        f"{key} {shown(before[key])} -> {shown(value)}"
        for key, value in now.items()
        if not isinstance(value, dict) and key in before and before[key] != value
    ]
    return changes


def _settings_changed(
    before: dict[str, Any], now: dict[str, Any], disqualified: Sequence[str] = ()
) -> str:
    """The warning for a resume whose settings (`_resumable_settings`) are not those of the
    last run: each change (`setting_changes`); with a new fault limit, that the
    `disqualified` bots stay so (their games stay forfeits)."""
    changes = setting_changes(before, now)
    stays = ""
    if disqualified and before.get("fault_limit", now["fault_limit"]) != now["fault_limit"]:
        stays = (
            f"; {', '.join(disqualified)} stay{'s' if len(disqualified) == 1 else ''}"
            " disqualified (the limit applies to faults to come)"
        )
    return (
        f"warning: the games stored so far were played with other settings than these"
        f" ({', '.join(changes) or 'settings'}); they count with the games played now, and"
        f" the report shows the new settings{stays}"
    )


def _other_settings(
    path: Path, stored: dict[str, Any], identity: dict[str, Any], names: list[str]
) -> ConfigError:
    """The refusal of a resume whose settings, as played (`settings_in_play`), are not
    the stored league's: what differs, in words."""
    differ = sorted(k for k in identity if stored.get(k) != identity[k])
    if "bots" in differ:  # name them: a bot left out now is no setting changed
        differ[differ.index("bots")] = _bots_differ(stored.get("bots"), names)
    stored_game = stored.get("game")
    if "points_rules" in differ and not (
        isinstance(stored_game, dict) and stored_game.get("format") == Format.POINTS.value
    ):  # not a points league before: "game" says what changed
        differ.remove("points_rules")
    if "points_rules" in differ:
        differ[differ.index("points_rules")] = (
            "points_rules: the store's league was played under earlier rules of the"
            " points format, without busting on purpose (R4.2)"
        )
    if "game" in differ:  # name the rules that differ, as stored and as given now
        was = stored_game if isinstance(stored_game, dict) else {}
        now = identity["game"]
        assert isinstance(now, dict)
        rules = [
            f"{k} {was.get(k)!r} in the store, {now.get(k)!r} now"
            for k in sorted(set(was) & set(now))  # (one format's own: its format says)
            if was.get(k) != now.get(k)
        ]
        differ[differ.index("game")] = f"game: {'; '.join(rules)}"
    if "duplicate" in differ:  # its default changed (a store made before has them)
        flag = "--duplicate" if stored.get("duplicate") else "--no-duplicate"
        had = "has duplicate deals" if stored.get("duplicate") else "deals every game afresh"
        differ[differ.index("duplicate")] = f"duplicate: the store's league {had}: give {flag}"
    return ConfigError(
        f"{path} holds a league with other settings ({', '.join(differ)});"
        " resume it with the same settings, or give another --store"
    )


def settings_in_play(identity: dict[str, Any]) -> dict[str, Any]:
    """A stored league's (or SPRT's) settings with only the rules its format plays by
    (`arena.rules.rules_in_play`)."""
    return identity | {"game": rules_in_play(identity.get("game"))}


def _bots_differ(stored: Any, names: list[str]) -> str:
    """What differs between the stored league's bots and the playable ones now."""
    before = {str(name) for name in stored} if isinstance(stored, list) else set()
    parts = []
    gone = sorted(before - set(names))
    if gone:
        parts.append(
            f"{', '.join(gone)} {'is' if len(gone) == 1 else 'are'} not playable now (no"
            " longer in the bots folder, or left out: a bot.toml that cannot be read, a"
            " failed build; without -q arena says why)"
        )
    new = sorted(set(names) - before)
    if new:
        parts.append(f"{', '.join(new)} {'is' if len(new) == 1 else 'are'} new")
    return "bots: " + "; ".join(parts) if parts else "bots"


def _stored_schedule(
    blob: bytes | None, config: LeagueConfig, names: list[str], seed: str
) -> Schedule | None:
    """A schedule as `_schedule` keeps it, or None (none kept, or not readable, or not
    one these settings can make: it is computed again, as it is the same for the same
    settings). A store can be anyone's: its schedule is unpacked to no more than the
    largest schedule of these settings takes, and used only if its games are those
    its tables make, each table seating `table_size` of the bots once."""
    if blob is None:
        return None
    k = config.table_size
    tables = math.comb(len(names), k)
    if config.max_tables is not None:
        tables = min(tables, config.max_tables)
    games = min(tables * config.games_per_table, MAX_GAMES)
    limit = (games + tables) * (128 + 72 * k) + 2**16  # a game packs to ~100 + 15k bytes
    try:
        schedule = msgspec.msgpack.decode(inflate(blob, limit), type=Schedule)
    except (zlib.error, ValueError, msgspec.DecodeError, msgspec.ValidationError):
        return None
    made = is_schedule_of(
        schedule,
        names,
        table_size=k,
        games_per_table=config.games_per_table,
        seed=seed,
        duplicate=config.duplicate,
        max_tables=config.max_tables,
    )
    return schedule if made else None


DEALS = "hmac-sha256"
"""How deal seeds derive from the league seed (`arena.rules.keyed_seed`); stores made
before it (with predictable deals) are refused for resuming."""


def _league_seed(config: LeagueConfig, stored: dict[str, Any] | None, path: Path) -> str:
    """The seed to play with: the one given, else the stored one, else a new secret."""
    if stored is not None and not {"deals", "seed"} & set(stored):  # no store ever made
        raise StoreError(f"{path}: the store is damaged (setting 'league' holds no seed)")
    if stored is not None and "deals" not in stored:
        raise ConfigError(
            f"{path} was made by an older arena whose deals a bot could predict; its"
            " results can still be read (arena standings), but start a new store to play on"
        )
    if stored is not None and stored["deals"] != DEALS:
        raise ConfigError(
            f"{path} was made by another arena, which deals its games another way"
            f" ({shown(stored['deals'])}, this one {DEALS}); play on with that arena, or"
            " start a new store"
        )
    if config.seed is not None:
        return seed_key(config.seed)
    if stored is not None:
        if not isinstance(stored.get("seed"), str) or not stored["seed"]:
            raise StoreError(f"{path}: the store is damaged (setting 'league' holds no seed)")
        return str(stored["seed"])
    return new_secret()
