"""A hostile bot attacks once at start-up, then plays legally, against a victim bot.

Each attack is tried under bubblewrap (it fails, and the match results are those of
a harmless bot) and without a sandbox (the test records what the attack achieves:
this is the threat the sandbox answers). The fork bomb and disk filling are bounded
in time and size so that a failing test cannot hurt the machine.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import socket
import sqlite3
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
import trio

import arena.bots._process as process_module
from arena import _memgroups
from arena._memgroups import groups_root
from arena.bots import BotSpec, Limits
from arena.match import run_match
from arena.referee import Clocks, GameResult, RunSettings
from arena.rules import GameConfig
from arena.sandbox import UID_BASE, bwrap_wrap

from .helpers import BOTH, find_instead, gone, make_bot, needs_bwrap, reports

pytestmark = pytest.mark.subprocess

LIMITS = Limits(memory_mb=1024, cpu_seconds=60, processes=32, file_size_mb=4, open_files=200)
CLOCKS = Clocks(decision_ms=2000, startup_ms=15000, exit_grace_ms=1000, kill_grace_ms=200)
TMP_MB = 8
GAMES = 3


class Scene:
    """A submissions folder with a victim bot, a results store beside it, and logs."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.token = f"arena-sandbox-test-{uuid.uuid4().hex}"
        """In every bot's command line, to find strays."""
        self.bots = root / "bots"
        self.logs = root / "logs"
        self.store = root / "league.sqlite"
        self.workdirs: list[Path] = []
        """The bots' private folders, as arena made them on the host, in the last match."""
        self.victim = make_bot(self.bots, "victim", "none", token=self.token)
        self.secret = self.bots / "victim" / "secret.txt"
        self.secret.write_text(f"victim's secret {self.token}")
        db = sqlite3.connect(self.store)
        with db:
            db.execute("CREATE TABLE standings (name TEXT, wins INTEGER)")
            db.execute("INSERT INTO standings VALUES ('victim', 3)")
        db.close()

    def hostile(self, attack: str, *args: object) -> BotSpec:
        return make_bot(self.bots, "hostile", attack, *args, token=self.token)

    def _workdirs(self) -> list[Path]:
        return list((self.root / "work").glob("arena-bot-*"))

    async def play(self, hostile: BotSpec, *, sandboxed: bool) -> list[GameResult]:
        """The victim (seat 0 first, so it runs when the hostile starts) against `hostile`."""
        (self.logs / "hostile.log").unlink(missing_ok=True)
        before = set(self._workdirs())
        settings = RunSettings(
            clocks=CLOCKS,
            limits=LIMITS,
            log_dir=self.logs,
        )
        results, _ = await run_match(
            [self.victim, hostile],
            GameConfig(players=2),
            games=GAMES,
            seed=11,
            settings=settings,
            wrap=bwrap_wrap(tmp_mb=TMP_MB) if sandboxed else None,
        )
        self.workdirs = sorted(set(self._workdirs()) - before)
        assert await gone(self.token), "no process is left running"
        return results

    def report(self) -> dict[str, Any]:
        found = reports(self.logs / "hostile.log")
        assert found, "the hostile bot ran its attack"
        return found[0]

    async def clean_results(self, sandboxed: bool) -> list[tuple[Any, ...]]:
        """What the match gives when the hostile bot attacks nothing (the same every time)."""
        if sandboxed not in _CLEAN:
            _CLEAN[sandboxed] = outcomes(await self.play(self.hostile("none"), sandboxed=sandboxed))
        return _CLEAN[sandboxed]


_CLEAN: dict[bool, list[tuple[Any, ...]]] = {}


def outcomes(results: list[GameResult]) -> list[tuple[Any, ...]]:
    return [
        (r.names, r.outcome.places, [(r.names[f.seat], f.cause) for f in r.faults]) for r in results
    ]


@pytest.fixture
def scene(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Scene:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(work))  # bots' private folders go here
    return Scene(tmp_path)


@needs_bwrap
async def test_a_harmless_bot_gets_the_same_results_in_both_modes(scene: Scene) -> None:
    plain = await scene.clean_results(sandboxed=False)
    assert len(plain) == GAMES
    assert all(faults == [] for _, _, faults in plain)
    assert await scene.clean_results(sandboxed=True) == plain


@pytest.mark.parametrize("sandboxed", BOTH)
async def test_reading_another_bots_folder(scene: Scene, sandboxed: bool) -> None:
    expected = await scene.clean_results(sandboxed)
    results = await scene.play(scene.hostile("read_other", scene.secret), sandboxed=sandboxed)
    report = scene.report()
    if sandboxed:
        assert "secret" not in report
        assert report["secret_error"] == "ENOENT"
        assert report["listing"] == ["hostile"]  # its own folder, nothing beside it
        assert outcomes(results) == expected
    else:
        assert report["secret"] == scene.secret.read_text()
        assert report["listing"] == ["hostile", "victim"]


@pytest.mark.parametrize("sandboxed", BOTH)
async def test_reading_and_writing_the_store(scene: Scene, sandboxed: bool) -> None:
    expected = await scene.clean_results(sandboxed)
    before = scene.store.read_bytes()
    results = await scene.play(scene.hostile("store", scene.store), sandboxed=sandboxed)
    report = scene.report()
    if sandboxed:
        assert "rows" not in report
        assert report["error"] == "unable to open database file"
        assert scene.store.read_bytes() == before
        assert outcomes(results) == expected
    else:
        assert report["rows"] == {"standings": 1}
        assert report["wrote"] is True
        with contextlib.closing(sqlite3.connect(scene.store)) as db:
            tables = db.execute("SELECT name FROM sqlite_master").fetchall()
        assert ("pwned",) in tables


@pytest.mark.parametrize("sandboxed", BOTH)
async def test_reading_the_referees_environment_and_memory(scene: Scene, sandboxed: bool) -> None:
    expected = await scene.clean_results(sandboxed)
    secret = f"referee's secret {scene.token}".encode()
    address = id(secret) + bytes.__basicsize__ - 1  # where CPython keeps a bytes' data
    hostile = scene.hostile("proc", os.getpid(), address, len(secret))
    results = await scene.play(hostile, sandboxed=sandboxed)
    report = scene.report()
    if sandboxed:
        assert report["environ_error"] == "ENOENT"
        assert report["memory_error"] == "ENOENT"
        # Its /proc shows its own sandbox only: bwrap's init and the bot.
        assert len(report["visible"]) <= 3
        assert all("pytest" not in cmdline for cmdline in report["visible"].values())
        assert outcomes(results) == expected
    else:
        assert report["environ_sha256"] == _environ_digest()
        if os.geteuid() == 0:  # ptrace rules: root reads any process's memory
            assert bytes.fromhex(report["memory"]) == secret
        assert any("pytest" in cmdline for cmdline in report["visible"].values())


def _environ_digest() -> str:
    return hashlib.sha256(Path("/proc/self/environ").read_bytes()).hexdigest()


@pytest.mark.parametrize("sandboxed", BOTH)
async def test_reaching_the_network(scene: Scene, sandboxed: bool) -> None:
    expected = await scene.clean_results(sandboxed)
    with (
        socket.create_server(("127.0.0.1", 0)) as tcp,
        socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as unix,
    ):
        unix.bind("\0" + scene.token)
        unix.listen()
        port = tcp.getsockname()[1]
        results = await scene.play(scene.hostile("network", port, scene.token), sandboxed=sandboxed)
        received = [_pending(tcp), _pending(unix)]
    report = scene.report()
    if sandboxed:
        # Its own network namespace: a loopback of its own, where nothing listens.
        assert report["tcp_error"] == "ECONNREFUSED"
        assert report["unix_error"] == "ECONNREFUSED"
        assert received == [b"", b""]
        assert outcomes(results) == expected
    else:
        assert report["tcp"] == report["unix"] == "sent"
        assert received == [b"tcp from hostile", b"unix from hostile"]


def _pending(listener: socket.socket) -> bytes:
    """What a client that already connected to `listener` sent, or b"" if none did."""
    listener.setblocking(False)
    try:
        conn, _ = listener.accept()
    except BlockingIOError:
        return b""
    with conn:
        conn.settimeout(2)
        return conn.recv(100)


@pytest.mark.parametrize("sandboxed", BOTH)
async def test_writing_outside_the_private_folder(scene: Scene, sandboxed: bool) -> None:
    expected = await scene.clean_results(sandboxed)
    marker = scene.root / "outside.txt"
    results = await scene.play(scene.hostile("write_outside", marker), sandboxed=sandboxed)
    report = scene.report()
    planted = scene.bots / "hostile" / "planted.txt"
    assert report["home"] == "written"  # its private folder is writable in both modes
    if sandboxed:
        assert report["marker"] in ("ENOENT", "EACCES")
        assert report["own_folder"] == "EROFS"
        assert not marker.exists()
        assert not planted.exists()
        assert scene.workdirs == []  # removed with the process
        assert outcomes(results) == expected
    else:
        assert report["marker"] == report["own_folder"] == "written"
        assert marker.exists()
        assert planted.exists()


@pytest.mark.parametrize("sandboxed", BOTH)
async def test_signalling_other_processes(scene: Scene, sandboxed: bool) -> None:
    expected = await scene.clean_results(sandboxed)
    bystander = await trio.lowlevel.open_process(["sleep", "60"])
    try:
        # Every bot's command line ends with the token: the victim's is `... none TOKEN`.
        hostile = scene.hostile("kill", scene.token, bystander.pid)
        results = await scene.play(hostile, sandboxed=sandboxed)
        bystander_alive = bystander.poll() is None
    finally:
        bystander.kill()
        await bystander.wait()
    report = scene.report()
    if sandboxed:
        assert report["killed"] == []
        assert report["errors"] == ["EPERM"]  # bwrap's init in its own sandbox
        assert report["pid"] == "ESRCH"
        assert bystander_alive
        assert outcomes(results) == expected
    else:
        assert report["killed"]
        assert report["pid"] == "killed"
        assert not bystander_alive
        assert ("victim", "crash") in outcomes(results)[0][2]


@pytest.mark.parametrize(
    "sandboxed",
    [
        pytest.param(True, id="bwrap", marks=needs_bwrap),
        pytest.param(
            False,
            id="none",
            marks=pytest.mark.skipif(
                os.geteuid() != 0, reason="RLIMIT_NPROC counts all of this user's processes"
            ),
        ),
    ],
)
@pytest.mark.slow
async def test_fork_bomb(scene: Scene, sandboxed: bool) -> None:
    expected = await scene.clean_results(sandboxed)
    # Two seconds of forking, at most 64 children, each gone 2 s later.
    results = await scene.play(scene.hostile("fork_bomb", 2, 64), sandboxed=sandboxed)
    report = scene.report()
    assert LIMITS.processes == 32
    if sandboxed:
        assert report["made"] < 32
        assert report["failed"] > 0
        assert report["error"] == "EAGAIN"
        assert outcomes(results) == expected
    else:  # root: the kernel does not enforce RLIMIT_NPROC
        assert report["made"] == 64
        assert report["failed"] == 0


@pytest.mark.parametrize("sandboxed", BOTH)
async def test_filling_the_disk(scene: Scene, sandboxed: bool) -> None:
    expected = await scene.clean_results(sandboxed)
    results = await scene.play(scene.hostile("fill_disk", 24), sandboxed=sandboxed)
    report = scene.report()
    assert LIMITS.file_size_mb == 4
    if sandboxed:
        # A 4 MiB file limit (RLIMIT_FSIZE) inside an 8 MiB private folder (tmpfs).
        assert report["written_mb"] <= TMP_MB
        assert report["files"] >= 2
        assert report["error"] == "ENOSPC"
        assert scene.workdirs == []  # removed with the process
        assert outcomes(results) == expected
    else:
        # Only the size of one file is bounded: 24 MiB went to the host's disk.
        assert report["written_mb"] == 24
        assert report["files"] == 6
        assert scene.workdirs == []  # arena removes the folder when the bot is done


@needs_bwrap
@pytest.mark.parametrize("prlimit", [True, False], ids=["prlimit", "no-prlimit"])
async def test_the_limits_hold_inside_the_sandbox(
    scene: Scene, prlimit: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With prlimit (util-linux) the sandbox's command line sets the limits, so arena
    starts bwrap with no code to run between fork and exec (a vfork); without it, that
    code sets them."""
    if not prlimit:
        find_instead(monkeypatch, "prlimit", None)
    preexecs: list[object] = []
    spawn = process_module.spawn

    async def spy(command: list[str], **kwargs: Any) -> object:
        preexecs.append(kwargs["preexec_fn"])
        return await spawn(command, **kwargs)

    monkeypatch.setattr(process_module, "spawn", spy)
    results = await scene.play(scene.hostile("limits"), sandboxed=True)
    assert len(preexecs) == 2  # the victim and the hostile bot
    assert all((p is None) == prlimit for p in preexecs)
    report = scene.report()
    mib = 1024 * 1024
    assert report["limits"]["Max address space"] == str(LIMITS.memory_mb * mib)
    assert report["limits"]["Max processes"] == str(LIMITS.processes)
    assert report["limits"]["Max file size"] == str(LIMITS.file_size_mb * mib)
    assert report["limits"]["Max open files"] == str(LIMITS.open_files)
    assert report["limits"]["Max cpu time"] == str(2 * LIMITS.cpu_seconds)  # per game: 10.3
    assert report["caps"] == "0000000000000000"
    if os.geteuid() == 0:
        assert report["uid"] >= UID_BASE
    assert report["home"].startswith(str(scene.root / "work" / "arena-bot-"))
    assert scene.workdirs == []  # removed with the process
    assert report["cwd"] == str(scene.bots / "hostile")
    assert all(faults == [] for _, _, faults in outcomes(results))


@needs_bwrap
async def test_a_memory_hog_fails_inside_the_sandbox(scene: Scene) -> None:
    assert LIMITS.memory_mb == 1024
    results = await scene.play(scene.hostile("memory", 2048), sandboxed=True)
    assert scene.report()["error"] == "MemoryError"
    assert all(faults == [] for _, _, faults in outcomes(results))


needs_memory_groups = pytest.mark.skipif(
    groups_root() is None, reason="no memory cgroup for bots here (root on cgroup v1 only)"
)


@needs_bwrap
@needs_memory_groups
async def test_a_bots_processes_share_one_memory_limit(scene: Scene) -> None:
    """Found in an audit: the memory limit held for each process alone, so a bot that
    forked could hold its process limit times --memory-mb (1.6 GiB against 256 MiB
    measured), until the machine's OOM killer took any process (another bot, the
    referee). As root on cgroup v1 each bot process and its children share one limit:
    here four children of 400 MiB each, under a limit of 1024 MiB in all, cannot all
    hold their memory; the kernel kills some of them (the bot's own processes)."""
    assert LIMITS.memory_mb == 1024
    results = await scene.play(scene.hostile("memory_children", 4, 400), sandboxed=True)
    report = scene.report()
    assert "signal 9" in report["ends"], report["ends"]  # killed: 1600 MiB in all
    root = groups_root()
    assert root is not None
    _memgroups._remove_pending(5.0)  # a group whose last process was still going at its close
    assert [p.name for p in root.iterdir() if p.name.startswith(f"arena-{os.getpid()}-")] == []
    assert all(faults == [] for _, _, faults in outcomes(results))


@needs_bwrap
@needs_memory_groups
@pytest.mark.parametrize("kind", ["memfd", "sysv"])
async def test_memory_outside_the_address_space_counts_in_the_memory_group(
    tmp_path: Path, kind: str
) -> None:
    """Found in an audit: memfds written and never mapped, and System V segments
    attached, touched and detached, are outside a process's address space: without a
    memory group a process of --memory-mb 256 held 1.5 GiB so (docs/fair-play.md). In
    its memory group the kernel counts them, and past it kills one of the bot's own
    processes (a child, whose end the bot reports, or the bot, whose crash says why):
    here two children of 160 MiB each, under 256 MiB in all."""
    token = f"arena-outside-{uuid.uuid4().hex}"
    hog = make_bot(tmp_path / "bots", "hog", "memory_outside", kind, 2, 160, token=token)
    other = make_bot(tmp_path / "bots", "other", "none", token=token)
    settings = RunSettings(
        clocks=CLOCKS,
        limits=Limits(memory_mb=256, cpu_seconds=60, processes=32, file_size_mb=4),
        log_dir=tmp_path / "logs",
    )
    results, _ = await run_match(
        [hog, other], GameConfig(players=2), games=1, seed=2, settings=settings, wrap=bwrap_wrap()
    )
    found = reports(tmp_path / "logs" / "hog.log")
    if found:  # a child was killed, and the bot played on
        assert "signal 9" in found[0]["ends"], found
        assert results[0].faults == []
    else:  # the bot itself was killed
        (fault,) = results[0].faults
        assert results[0].names[fault.seat] == "hog"
        assert "passing its memory limit (--memory-mb" in fault.message, fault.message
    assert await gone(token)


@needs_bwrap
async def test_a_user_namespace_of_its_own_is_denied(scene: Scene) -> None:
    """Issue 10.4: as root, a sandboxed bot could unshare a user and mount namespace,
    mount a tmpfs with no size limit and fill the host's memory past its 8 MiB /tmp and
    its address-space limit. New user namespaces are denied inside the sandbox (a
    seccomp filter as root, bubblewrap's --disable-userns otherwise)."""
    results = await scene.play(scene.hostile("userns_tmpfs", 3 * TMP_MB), sandboxed=True)
    report = scene.report()
    assert report["unshare"] in {"EPERM", "ENOSPC", "EINVAL"}, report
    assert "written_mb" not in report
    assert all(faults == [] for _, _, faults in outcomes(results))


@needs_memory_groups
def test_a_memory_group_still_busy_at_release_is_removed_later() -> None:
    """A group is released as its bot closes, without waiting: when the kernel has not
    quite let its last process go, it is removed at the next group made (or at exit)."""
    import subprocess

    root = groups_root()
    assert root is not None
    group = _memgroups.new_group(root, 64 * 1024 * 1024)
    sleeper = subprocess.Popen(_memgroups.joined(["sleep", "30"], group))
    try:
        for _ in range(100):  # the shell joins the group, then becomes sleep
            if (group / "cgroup.procs").read_text().split():
                break
            time.sleep(0.01)
        _memgroups.release_group(group)  # busy: left pending
        assert group.is_dir()
        assert group in _memgroups._pending
    finally:
        sleeper.kill()
        sleeper.wait()
    for _ in range(100):  # the kernel lets the killed process go
        _memgroups.new_group(root, 64 * 1024 * 1024).rmdir()
        if not group.exists():
            break
        time.sleep(0.01)
    assert not group.exists()
    assert group not in _memgroups._pending


@needs_bwrap
@needs_memory_groups
async def test_a_bot_whose_memory_group_cannot_be_joined_still_plays(
    scene: Scene, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A join that fails (the machine's cgroups changed under arena) leaves the bot its
    per-process limits; failing its start would charge it a crash for the machine."""
    monkeypatch.setattr(process_module, "new_group", lambda root, limit: tmp_path / "gone")
    results = await scene.play(scene.hostile("none"), sandboxed=True)
    assert all(faults == [] for _, _, faults in outcomes(results))
    assert len(results) == GAMES


def test_a_containers_memory_mount_is_read_below_its_root() -> None:
    """Found in a review: a container's cgroup mount may show its own group as its root
    (mountinfo's fourth field), while /proc/self/cgroup names the group from the host's
    root; the group's folder is the part below the mount's root."""
    assert _memgroups.below("/docker/a/b", "/docker/a") == "/b"
    assert _memgroups.below("/docker/a", "/docker/a") == "/"
    assert _memgroups.below("/process_api/x", "/") == "/process_api/x"
    assert _memgroups.below("/other", "/docker/a") == "/other"
    assert _memgroups.below("/docker/ab", "/docker/a") == "/docker/ab"  # no mere prefix


@needs_bwrap
@needs_memory_groups
@pytest.mark.parametrize("when", ["fill_at_act", "fill_tmp"])
async def test_a_bot_its_memory_group_killed_is_told_why(tmp_path: Path, when: str) -> None:
    """Found in a review: a bot killed by its memory group showed only "closed its
    output"; its crash now says that the kernel killed it for passing --memory-mb. So
    does a start-up crash (`fill_tmp`, before its hello), though the group goes with
    the process before that fault is written."""
    token = f"arena-oom-{uuid.uuid4().hex}"
    hog = make_bot(tmp_path / "bots", "hog", when, 120, token=token)
    other = make_bot(tmp_path / "bots", "other", "none", token=token)
    settings = RunSettings(
        clocks=CLOCKS,
        limits=Limits(memory_mb=64, cpu_seconds=60, processes=32, file_size_mb=256),
    )
    results, _ = await run_match(
        [hog, other],
        GameConfig(players=2),
        games=1,
        seed=2,
        settings=settings,
        wrap=bwrap_wrap(tmp_mb=256),
    )
    (fault,) = results[0].faults
    assert results[0].names[fault.seat] == "hog"
    assert fault.cause == "crash"
    assert ("waited for hello" in fault.message) == (when == "fill_tmp"), fault.message
    assert "passing its memory limit (--memory-mb" in fault.message, fault.message
    assert await gone(token)
