"""The address of a Dask scheduler, checked before anything tries to reach it."""

from __future__ import annotations

import re
import socket

from arena.errors import ConfigError

SCHEMES = ("tcp", "tls")
"""The transports a scheduler address may name (Dask's own, over TCP)."""

DEFAULT_PORT = 8786
"""The port `dask scheduler` listens on unless told otherwise."""

_HOST = re.compile(r"[A-Za-z0-9][A-Za-z0-9.-]{0,252}")


def parse_address(text: str) -> str:
    """`text` as a scheduler address, `SCHEME://HOST:PORT`: the scheme defaults to tcp
    and the port to 8786; an IPv6 host goes in brackets. Raises ConfigError saying what
    is wrong with anything else."""
    if not isinstance(text, str) or not text.strip():
        raise ConfigError("the cluster address must be tcp://HOST:PORT (or tls://HOST:PORT)")
    given = text.strip()
    scheme, sep, rest = given.partition("://")
    if not sep:
        scheme, rest = "tcp", given
    scheme = scheme.lower()
    if scheme not in SCHEMES:
        raise ConfigError(
            f"{given!r}: a Dask scheduler address starts with tcp:// or tls://, not {scheme}://"
        )
    if "/" in rest or "@" in rest or "?" in rest:
        raise ConfigError(f"{given!r}: a scheduler address is {scheme}://HOST:PORT, nothing more")
    host, port_text = _split_host_port(given, rest)
    if port_text is None:
        port = DEFAULT_PORT
    elif not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise ConfigError(f"{given!r}: the port must be a number from 1 to 65535")
    else:
        port = int(port_text)
    return f"{scheme}://{host}:{port}"


def _split_host_port(given: str, rest: str) -> tuple[str, str | None]:
    """(host, port or None) of `HOST[:PORT]` or `[IPV6][:PORT]`."""
    if rest.startswith("["):
        inside, bracket, after = rest[1:].partition("]")
        if not bracket or not inside or not re.fullmatch(r"[0-9A-Fa-f:.]+", inside):
            raise ConfigError(f"{given!r}: not an IPv6 address in brackets")
        if after and not after.startswith(":"):
            raise ConfigError(f"{given!r}: expected :PORT after the IPv6 address")
        return f"[{inside}]", after[1:] if after else None
    host, colon, port = rest.partition(":")
    if not _HOST.fullmatch(host) or host.endswith("-"):
        raise ConfigError(f"{given!r}: {host!r} is not a host name or address")
    return host, port if colon else None


def probe(address: str, seconds: float = 5.0) -> None:
    """Raise ConfigError at once if nothing takes a connection at `address` (a parsed
    one): refused, a host that does not resolve, no route. Before the store is made:
    Dask's own connection retried a refused one for 30 s, and the store it left behind
    held no game. What answers is checked later (`arena.cluster` handshakes)."""
    _, _, rest = address.partition("://")
    host, _, port = rest.rpartition(":")
    host = host.strip("[]")
    try:
        with socket.create_connection((host, int(port)), timeout=seconds):
            pass
    except TimeoutError:
        return  # a slow network: the handshake, with Dask's timeouts, says more
    except OSError as err:
        why = err.strerror or str(err)
        if isinstance(err, ConnectionRefusedError):
            why += f": start `dask scheduler --port {port}` there, or check the address"
        raise ConfigError(f"cannot reach the Dask scheduler at {address}: {why}") from None
