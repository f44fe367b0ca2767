"""Every error arena raises, in one tree.

    ArenaError                      base of everything below
    ├── ConfigError                 a game, match or league configuration is invalid
    ├── RulesError                  the rules engine refused a request
    │   ├── IllegalActionError      an action that is not legal in this state
    │   └── GameOverError           a request to a game that has ended
    ├── BotError                    a bot could not be used at all
    │   ├── ManifestError           a bot folder or command line is invalid
    │   ├── BuildError              a bot's build command failed
    │   └── StartupError            a bot did not complete its start-up handshake
    ├── BotFault                    a bot broke the contract during a game (has .cause)
    │   ├── BotTimeout              no answer before the deadline          (cause "timeout")
    │   ├── BotCrashed              the process died or closed its pipe    (cause "crash")
    │   ├── BotMalformed            bytes that are not a valid message     (cause "malformed")
    │   └── BotIllegal              a well-formed but illegal choice       (cause "illegal")
    ├── StoreError                  the results store cannot be used
    ├── InputError                  a user-supplied file cannot be read or parsed
    ├── MachineError                the machine cannot start a bot (no memory, file
    │                               descriptors, processes or disk) or write its log:
    │                               no bot's fault
    └── RefereeError                the referee itself failed a game (it made no
                                    progress for longer than its clocks allow): no
                                    bot's fault; the game is played again

The referee is the one place that turns lower errors (trio, msgpack, the protocol
codec, the rules engine) into `BotFault`s. The CLI turns every `ArenaError` into a
one-line message and a non-zero exit.
"""

from __future__ import annotations

SHOWN = 80
"""The most characters of someone else's text an error message quotes."""


def shown(value: object) -> str:
    """`value`'s repr for an error message, cut to `SHOWN` characters: a name in a
    stranger's bot.toml or results file may be megabytes long."""
    text = repr(value)
    return text if len(text) <= SHOWN else f"{text[: SHOWN - 4]}...{text[-1]}"


def clipped(text: str, limit: int = SHOWN) -> str:
    """`text` as it is for an error message, cut to `limit` characters."""
    return text if len(text) <= limit else f"{text[: limit - 3]}..."


class ArenaError(Exception):
    """Base class of every error arena raises on purpose."""

    exit_status = 2
    """The CLI's exit status for it: 2, a usage error, unless a subclass says otherwise."""


class ConfigError(ArenaError, ValueError):
    """A game, match or league configuration is invalid."""


class RulesError(ArenaError):
    """The rules engine refused a request."""


class IllegalActionError(RulesError, ValueError):
    """An action was applied that is not legal in the current state."""


class GameOverError(RulesError):
    """An action or elimination was requested of a game that has ended."""


class BotError(ArenaError):
    """A bot could not be used at all."""


class ManifestError(BotError):
    """A bot folder, manifest or command line is invalid."""


class BuildError(BotError):
    """A bot's build command failed."""


class StartupError(BotError):
    """A bot did not complete its start-up handshake in time or correctly."""


class BotFault(ArenaError):
    """A bot broke the contract during a game; ``cause`` names the fault kind."""

    cause: str = "fault"

    def __init__(self, message: str, *, detail: bytes | None = None) -> None:
        super().__init__(message)
        self.detail = detail
        """The offending bytes, where there are any."""


class BotTimeout(BotFault):
    """The bot did not answer before its deadline."""

    cause = "timeout"


class BotCrashed(BotFault):
    """The bot process died or closed its pipe."""

    cause = "crash"


class BotMalformed(BotFault):
    """The bot sent bytes that are not a valid message (framing, schema, size, request id)."""

    cause = "malformed"


class BotIllegal(BotFault):
    """The bot sent a well-formed answer that chooses no legal action."""

    cause = "illegal"


class StoreError(ArenaError):
    """The results store cannot be opened, read or written."""


class InputError(ArenaError):
    """A user-supplied file cannot be read or parsed."""


class MachineError(ArenaError):
    """The machine cannot start a bot's process (it is out of memory, file descriptors,
    processes or disk) or write a bot's log (`--log-dir` on a full disk). That is no
    fault of the bot's, so a league stops (to be resumed) rather than charge it a crash
    or lose its log without a word."""

    @classmethod
    def charging_no_bot(cls, what: str) -> MachineError:
        """The error for `what` the machine could not do, saying that no bot pays."""
        return cls(
            f"{what}; that is this machine's problem, not the bot's, so nothing is charged to it"
        )


class RefereeError(ArenaError):
    """The referee failed a game of its own accord: the game made no step for longer
    than its clocks allow (a defect of arena, or a machine so loaded that the referee's
    thread did not run). No bot is charged; the game is played again from its start
    (`arena.referee.play_seated`), and a league stops, to be resumed, only when it
    fails again and again."""
