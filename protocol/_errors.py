"""Every error the protocol package raises, in one tree.

    ProtocolError                   bytes or a message that break wire protocol v1
    ├── FrameError                  the framing or the msgpack body is broken     (malformed)
    │   └── FrameTooLarge           a length prefix exceeds the receiver's limit  (malformed)
    ├── MessageError                a decoded map is not the message expected     (malformed)
    │   └── ProtocolMismatch        a hello names a protocol version other than 1 (malformed)
    └── IllegalChoice               an action's choice is no index into the legal list (illegal)

``cause`` on each class names the fault the referee records when the error happens
during a game (SPEC.md §9); during start-up every one of them is a start-up failure.
Decoding random bytes raises nothing but ``ProtocolError`` subclasses.
"""

from __future__ import annotations

from protocol._typing import ClassVar


class ProtocolError(Exception):
    """Bytes or a message that break wire protocol v1."""

    cause: ClassVar[str] = "malformed"
    """The fault cause the referee records for this error (SPEC.md §9.1)."""


class FrameError(ProtocolError):
    """The framing or the msgpack body of a frame is broken."""


class FrameTooLarge(FrameError):
    """A length prefix announces a frame larger than the receiver accepts."""

    def __init__(self, length: int, limit: int) -> None:
        super().__init__(f"frame of {length} bytes exceeds the limit of {limit} bytes")
        self.length = length
        """The length the prefix announced."""
        self.limit = limit
        """The largest body the receiver accepts."""


class MessageError(ProtocolError):
    """A decoded map is not the message expected: type, field, value or request id."""


class ProtocolMismatch(MessageError):
    """A hello names a protocol version this package does not speak."""


class IllegalChoice(ProtocolError):
    """A well-formed action whose choice is not an index into the legal list."""

    cause: ClassVar[str] = "illegal"
