"""What a sandboxed bot can learn of the machine it runs on: nothing of the host's name,
its control groups, its /dev or its users (docs/fair-play.md). Each is one flag of the
bubblewrap command line (`arena.sandbox`); a test per flag that a bot could tell apart."""

from __future__ import annotations

import os
import shutil
import subprocess
import textwrap
import uuid
from pathlib import Path

import pytest

from arena.sandbox import UID_BASE, UID_SPAN, bwrap_problem, bwrap_wrap

from .helpers import needs_bwrap, one_after_another

LOOKER = textwrap.dedent(
    """
    import errno, json, os, sys
    out = {"host": os.uname().nodename, "uid": os.getuid(), "gid": os.getgid()}
    out["cgroup"] = open("/proc/self/cgroup").read().splitlines()
    out["dev"] = sorted(os.listdir("/dev"))
    out["etc"] = sorted(os.listdir("/etc"))
    out["pts"] = sorted(os.listdir("/dev/pts"))
    try:
        out["shm"] = sorted(os.listdir("/dev/shm"))
    except OSError as err:
        out["shm"] = errno.errorcode.get(err.errno, str(err.errno))
    try:
        open(sys.argv[-1], "w").close()
        out["shm_write"] = "written"
    except OSError as err:
        out["shm_write"] = errno.errorcode.get(err.errno, str(err.errno))
    print("SEEN " + json.dumps(out), file=sys.stderr, flush=True)
    """
)


def _bot_folder(tmp_path: Path) -> Path:
    tmp_path.chmod(0o755)  # the bot's uid, as root, must reach its folder
    folder = tmp_path / "bot"
    folder.mkdir(mode=0o755)
    return folder


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed")
def test_bubblewrap_works_wherever_bubblewrap_itself_does() -> None:
    """Every test of the sandbox skips where `bwrap_problem` says bwrap fails: a change
    to the command line that broke it (a flag that needs another one dropped) would
    skip them all, and leagues would run without a sandbox, with a warning. Where
    bubblewrap can make the namespaces at all, arena's command line must work."""
    command = ["bwrap", "--unshare-pid", "--unshare-net", "--ro-bind", "/", "/"]
    if os.geteuid() != 0:
        command.append("--unshare-user")
    true = shutil.which("true") or "/bin/true"
    if subprocess.run([*command, true], capture_output=True, check=False).returncode != 0:
        pytest.skip("bubblewrap cannot make namespaces here")
    bwrap_problem.cache_clear()
    try:
        assert bwrap_problem() is None
    finally:
        bwrap_problem.cache_clear()


@needs_bwrap
async def test_a_bot_learns_nothing_of_the_host_from_its_name_groups_or_dev(
    tmp_path: Path,
) -> None:
    """A hostile bot looks around: the machine's name (the organiser's host), its
    control groups (where arena and its other bots sit), /etc (its users and
    network), and /dev, where the host's
    /dev/shm would be a folder every bot of every game could write and read."""
    planted = Path("/dev/shm") / f"arena-test-{uuid.uuid4().hex}"
    left = planted.with_name(f"{planted.name}-left-by-the-bot")
    planted.write_text("the host's")
    try:
        folder = _bot_folder(tmp_path)
        script = LOOKER.replace("sys.argv[-1]", repr(str(left)))
        (seen,) = await one_after_another(
            tmp_path, folder, [("looker", script, "SEEN ")], bwrap_wrap()
        )
    finally:
        planted.unlink()
        left_behind = left.exists()
        left.unlink(missing_ok=True)
    assert seen["host"] == "arena" != os.uname().nodename
    # Of /etc, what the loader needs: not the host's users, names, network or keys.
    hidden = {"passwd", "shadow", "group", "hosts", "hostname", "resolv.conf", "ssl", "ssh"}
    assert not hidden & set(seen["etc"]), seen["etc"]
    # Its own cgroup namespace: every hierarchy shows the bot's group as its root.
    assert seen["cgroup"]
    assert all(line.endswith(":/") for line in seen["cgroup"]), seen["cgroup"]
    # A /dev of its own: the few nodes a program needs, no pty, nothing of the host's shm.
    assert planted.name not in seen["shm"]
    assert seen["shm_write"] in ("EROFS", "EACCES", "ENOENT")
    assert not left_behind  # for the bot of the next game to read
    assert seen["pts"] == []
    assert {"null", "zero", "urandom"} <= set(seen["dev"])
    assert not {"sda", "vda", "mem", "kmsg", "loop0", "fuse", "net"} & set(seen["dev"])


@needs_bwrap
@pytest.mark.skipif(os.geteuid() != 0, reason="arena drops root only when it runs as root")
async def test_as_root_a_bot_runs_as_an_anonymous_uid_whoever_owns_its_folder(
    tmp_path: Path,
) -> None:
    """The bot's uid is drawn for each process, never its folder's owner: the organiser's
    user (who owns every submission it unpacked) would be one uid for all the bots, and
    then one process limit for all (one bot's fork bomb made another's fork fail)."""
    folder = _bot_folder(tmp_path)
    owner = 4321
    os.chown(folder, owner, owner)
    (seen,) = await one_after_another(tmp_path, folder, [("looker", LOOKER, "SEEN ")], bwrap_wrap())
    assert UID_BASE <= seen["uid"] < UID_BASE + UID_SPAN
    assert seen["uid"] == seen["gid"] != owner
