"""Framed messages over a byte stream, and the one place where lower errors become faults.

Everything the referee does with a bot goes through `Connection`: trio's stream errors,
the codec's `ProtocolError`s and deadlines are turned here, and only here, into the
arena's `BotFault`s (timeout, crash, malformed, illegal).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

import trio

import protocol
from arena.errors import BotCrashed, BotFault, BotIllegal, BotMalformed, BotTimeout

_READ = 65536


def fault_from_protocol(err: protocol.ProtocolError, what: str) -> BotFault:
    """The fault for a codec error: `IllegalChoice` is illegal, the rest malformed."""
    if isinstance(err, protocol.IllegalChoice):
        return BotIllegal(f"{what}: {err}")
    return BotMalformed(f"{what}: {err}")


class Connection:
    """One bot's end of the wire: send a message, receive a message, with deadlines."""

    def __init__(self, stream: trio.abc.Stream, *, max_frame: int = protocol.DEFAULT_MAX_FRAME):
        self._stream = stream
        self._decoder = protocol.FrameDecoder(max_frame)
        self._eof = False
        self.last_bytes = b""
        """The last bytes received (up to 64), for fault reports."""

    async def _send(self, message: Mapping[str, Any]) -> None:
        try:
            frame = protocol.encode_frame(message if isinstance(message, dict) else dict(message))
            await self._stream.send_all(frame)
        except (trio.BrokenResourceError, trio.ClosedResourceError) as err:
            raise BotCrashed(f"pipe closed while sending {message.get('type')}") from err

    async def send(self, message: Mapping[str, Any], deadline: float) -> None:
        """Send one message by the trio time `deadline`; raises BotTimeout or BotCrashed."""
        with trio.move_on_at(deadline) as scope:
            await self._send(message)
        if scope.cancelled_caught:
            raise BotTimeout(f"did not read its {message.get('type')} message in time")

    async def receive(self, deadline: float, what: str) -> dict[str, Any]:
        """Receive one message by the trio time `deadline`.

        Raises BotTimeout, BotCrashed (end of stream) or BotMalformed (bad bytes).
        `what` names the expected message in fault reports.
        """
        with trio.move_on_at(deadline):
            return await self._receive(what)
        raise BotTimeout(f"no {what} in time")

    async def exchange(self, message: dict[str, Any], what: str) -> dict[str, Any]:
        """Send `message` and receive the answer, under the caller's cancel scope."""
        await self._send(message)
        return await self._receive(what)

    async def _receive(self, what: str) -> dict[str, Any]:
        decoder = self._decoder
        while True:
            try:
                message = decoder.next_message()
            except protocol.ProtocolError as err:
                raise BotMalformed(f"{what}: {err}", detail=self.last_bytes) from err
            if message is not None:
                return message
            if self._eof:
                partial = " (in the middle of a frame)" if decoder.partial else ""
                raise BotCrashed(f"closed its output while the referee waited for {what}{partial}")
            try:
                data = await self._stream.receive_some(_READ)
            except (trio.BrokenResourceError, trio.ClosedResourceError) as err:
                raise BotCrashed(f"pipe broken while waiting for {what}") from err
            if not data:
                self._eof = True
            else:
                self.last_bytes = bytes(data[:64])
                decoder.feed(data)

    async def aclose(self) -> None:
        """Close the stream (never raises)."""
        with (
            trio.CancelScope(shield=True),
            contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError),
        ):
            await self._stream.aclose()
