"""Pseudo-terminals: the machine's, not the sandbox's (docs/fair-play.md; SPEC §14.4).

bubblewrap's /dev holds a devpts of the sandbox's own, but the kernel counts every
pty of every devpts instance against one limit (kernel.pty.max, less the ptys it keeps
for the host's own instance) and shows the count to all (/proc/sys/kernel/pty/nr). A
bot that opened ptys took them from every container of the machine (3,071 by one bot
of 1,024 files a process and a few children: `docker exec -t` and the other bots then
got ENOSPC), and one that opened N told N to any other process, of another sandbox
and another bot: an exact channel. Under the sandbox a bot opens no pty.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from arena.sandbox import bwrap_wrap

from .helpers import needs_bwrap, one_after_another

OPENER = textwrap.dedent(
    """
    import errno, json, os, sys
    out = {}
    try:
        os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY)
        out["ptmx"] = "opened"
    except OSError as err:
        out["ptmx"] = errno.errorcode.get(err.errno, str(err.errno))
    try:
        os.openpty()
        out["openpty"] = "opened"
    except OSError as err:
        out["openpty"] = errno.errorcode.get(err.errno, str(err.errno))
    try:
        open("/dev/pts/x", "w")
        out["write"] = "written"
    except OSError as err:
        out["write"] = errno.errorcode.get(err.errno, str(err.errno))
    print("PTY " + json.dumps(out), file=sys.stderr, flush=True)
    """
)


@needs_bwrap
async def test_under_the_sandbox_a_bot_opens_no_pty(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    folder.mkdir(mode=0o755)
    (found,) = await one_after_another(tmp_path, folder, [("pty", OPENER, "PTY ")], bwrap_wrap())
    assert found["ptmx"] != "opened"
    assert found["openpty"] != "opened"
    assert found["write"] in ("EROFS", "EACCES")  # nor is /dev/pts a place to write
