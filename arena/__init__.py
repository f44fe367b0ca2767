"""arena: a tournament runner for bots that play the card game ONO 99."""

from __future__ import annotations

__version__ = "0.1.0"
