"""Seeing the games: a league (or one replay) as web pages, static or served live."""

from __future__ import annotations

from arena.report._export import (
    LeagueData,
    game_payload,
    script,
    write_replay_site,
    write_site,
)

__all__ = ["LeagueData", "game_payload", "script", "write_replay_site", "write_site"]
