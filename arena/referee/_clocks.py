"""Clocks: how long a bot may take, measured by the referee."""

from __future__ import annotations

import dataclasses

from arena._declared import about
from arena.errors import ConfigError

BANK_CAP_MS = 2**31 - 1
"""The most a bank ever holds: increments stop adding there (SPEC §8.3), so that
`bank_ms` always fits the 32-bit ints of the starter kits. It is over 24 days, more
than any decision may take."""


@dataclasses.dataclass(frozen=True, slots=True)
class Clocks:
    """Every deadline the referee enforces, in milliseconds."""

    decision_ms: int = dataclasses.field(default=1000, metadata=about("Time per decision."))
    """Time for one decision, from the act written to the action read."""
    bank_ms: int | None = dataclasses.field(default=None, metadata=about("Time bank per game."))
    """An optional time bank per game; a decision may use min(decision_ms, bank left)."""
    increment_ms: int = dataclasses.field(default=0, metadata=about("Bank increment."))
    """Added to the bank after each decision (Fischer increment)."""
    startup_ms: int = dataclasses.field(default=10000, metadata=about("Start-up time."))
    """Time from the process start to the bot's hello."""
    grace_ms: int = dataclasses.field(default=50, metadata=about("Deadline margin."))
    """Margin added to every deadline before a bot is out for a timeout."""
    exit_grace_ms: int = dataclasses.field(default=2000, metadata=about("Exit time."))
    """Time a bot has to exit after bye."""
    kill_grace_ms: int = dataclasses.field(
        default=500, metadata=about("Time between SIGTERM and SIGKILL.")
    )
    """Time between SIGTERM and SIGKILL when a bot is killed."""

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value is not None and (not isinstance(value, int) or value < 0):
                raise ConfigError(f"{field.name} must be a whole number of ms >= 0, not {value!r}")
        if self.decision_ms < 1:
            raise ConfigError("decision_ms must be at least 1")
        if self.bank_ms is not None and self.bank_ms > BANK_CAP_MS:
            raise ConfigError(f"bank_ms must be at most {BANK_CAP_MS:,}, not {self.bank_ms:,}")

    def to_dict(self) -> dict[str, int | None]:
        """A JSON-ready dict (built by hand: `dataclasses.asdict` costs ten times as much,
        once a game)."""
        return {
            "decision_ms": self.decision_ms,
            "bank_ms": self.bank_ms,
            "increment_ms": self.increment_ms,
            "startup_ms": self.startup_ms,
            "grace_ms": self.grace_ms,
            "exit_grace_ms": self.exit_grace_ms,
            "kill_grace_ms": self.kill_grace_ms,
        }
