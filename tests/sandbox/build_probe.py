"""A hostile build step: what it can read, write and reach, written to report.json.

python3 build.py OTHER_FILE MARKER PORT
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import socket
import sys
from pathlib import Path


def attempt(action) -> str:  # type: ignore[no-untyped-def]
    try:
        action()
        return "ok"
    except OSError as err:
        return errno.errorcode.get(err.errno or 0, str(err))


def unshare_user() -> None:
    """A user namespace of its own (CLONE_NEWUSER): in it, mounts no limit bounds."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0x10000000) != 0:
        raise OSError(ctypes.get_errno(), "unshare")


def big_file() -> None:
    """A file of more than 1 GiB (a sparse one: one byte written past the end)."""
    try:
        with open("big.bin", "wb") as f:
            f.seek(1 << 30)
            f.write(b"x")
    finally:
        Path("big.bin").unlink(missing_ok=True)


def main() -> None:
    other, marker, port = sys.argv[1:4]
    report = {
        "shadow": attempt(lambda: Path("/etc/shadow").read_bytes()),
        "other_bot": attempt(lambda: Path(other).read_bytes()),
        "write_outside": attempt(lambda: Path(marker).write_text("built by hostile")),
        "network": attempt(lambda: socket.create_connection(("127.0.0.1", int(port)), 2).close()),
        "userns": attempt(unshare_user),
        "big_file": attempt(big_file),
        "uid": os.getuid(),
        "environment": sorted(os.environ),
    }
    Path("report.json").write_text(json.dumps(report))  # its own folder is writable
    print("probe done")


if __name__ == "__main__":
    main()
