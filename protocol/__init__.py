"""The arena wire protocol v1: framing, messages and a helper for Python bots.

Depends on msgpack only; never on arena or trio.
"""
