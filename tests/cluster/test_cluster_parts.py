"""The parts of `arena.cluster` without a cluster: addresses, bundles and their cache,
the build reports' verdicts, and a game task run in this process (no Dask worker)."""

from __future__ import annotations

import io
import tarfile
import threading
import time
from pathlib import Path

import pytest

from arena.bots import BotSpec, BuildSettings, load_manifest
from arena.cluster import ClusterError, parse_address
from arena.cluster._bundles import BundleError, WorkerBuild, ensure_built, is_ready, pack
from arena.cluster._runner import _judge
from arena.cluster._tasks import BuildReport, Here, RunInfo, close_run, play_games, prepare_bot
from arena.errors import ConfigError
from arena.messages import FromWorker, Play, Played, Reader, Setup, encode
from arena.referee import Clocks, RunSettings
from arena.rules import GameConfig
from arena.testing import alive

from .helpers import witness_bot, witness_lines

SETTINGS = WorkerBuild(BuildSettings(build_timeout=60), sandbox="none", log_kb=64)


@pytest.mark.parametrize(
    ("given", "address"),
    [
        ("tcp://10.0.0.5:8786", "tcp://10.0.0.5:8786"),
        ("scheduler.example", "tcp://scheduler.example:8786"),
        ("TLS://sched:9000", "tls://sched:9000"),
        ("  127.0.0.1:1234 ", "tcp://127.0.0.1:1234"),
        ("tcp://[::1]:8786", "tcp://[::1]:8786"),
        ("[fe80::1]", "tcp://[fe80::1]:8786"),
    ],
)
def test_scheduler_addresses(given: str, address: str) -> None:
    assert parse_address(given) == address


@pytest.mark.parametrize(
    "given",
    ["", "udp://host:1", "tcp://:8786", "tcp://host:0", "tcp://host:x", "tcp://a b", "tcp://[zz]:1",
     "tcp://user@host:1", "tcp://host:1/x", "tcp://-host:1"],
)  # fmt: skip
def test_bad_scheduler_addresses(given: str) -> None:
    with pytest.raises(ConfigError):
        parse_address(given)


def built_bot(root: Path, name: str = "ann") -> BotSpec:
    """A bot whose build appends a line to builds.txt beside its folder's parent."""
    folder = witness_bot(root, name, build=f"sh -c 'echo built >> {root}/builds.txt'")
    (folder / "data").mkdir()
    (folder / "data" / "table.txt").write_text("x" * 1000)
    (folder / "link").symlink_to("data/table.txt")
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "junk.pyc").write_bytes(b"\0" * 100)  # not shipped
    return load_manifest(folder)


def test_a_bundle_unpacks_to_its_digest_and_builds_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_CLUSTER_CACHE", str(tmp_path / "cache"))
    spec = built_bot(tmp_path)
    digest = spec.digest()
    bundle = pack(spec)
    with tarfile.open(fileobj=io.BytesIO(bundle)) as tar:
        assert sorted(tar.getnames()) == ["bot.py", "bot.toml", "data/table.txt", "link"]
    assert not is_ready(digest)
    folder = ensure_built(spec, digest, bundle, SETTINGS)
    assert folder == tmp_path / "cache" / digest
    assert (folder / "link").resolve() == folder / "data" / "table.txt"
    assert BotSpec(spec.name, spec.command, folder, spec.build).digest() == digest
    assert is_ready(digest)
    assert ensure_built(spec, digest, bundle, SETTINGS) == folder  # cached: not built again
    assert (tmp_path / "builds.txt").read_text() == "built\n"
    # A bundle that is not the submission it claims to be is refused.
    with pytest.raises(BundleError, match="hashes to"):
        ensure_built(spec, "0" * 16, bundle, SETTINGS)


def test_a_bundle_with_a_path_out_of_its_folder_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_CLUSTER_CACHE", str(tmp_path / "cache"))
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        info = tarfile.TarInfo("../escaped.txt")
        info.size = 2
        tar.addfile(info, io.BytesIO(b"hi"))
    spec = BotSpec("evil", ("python3", "bot.py"), tmp_path / "evil")
    with pytest.raises(BundleError, match="cannot unpack"):
        ensure_built(spec, "1" * 16, buffer.getvalue(), SETTINGS)
    assert not (tmp_path / "cache" / "escaped.txt").exists()


def test_prepare_reports_a_failed_build_and_a_missing_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_CLUSTER_CACHE", str(tmp_path / "cache"))
    folder = witness_bot(tmp_path, "broken", build="sh -c 'echo oops; exit 3'")
    spec = load_manifest(folder)
    report = prepare_bot(spec, spec.digest(), pack(spec), SETTINGS)
    assert report.kind == "build"
    assert report.problem == "build exited with status 3: oops"
    assert report.worker.startswith("process ")
    folder = witness_bot(tmp_path, "toolless")
    (folder / "bot.toml").write_text('name = "toolless"\nrun = "no-such-tool bot.py"\n')
    spec = load_manifest(folder)
    report = prepare_bot(spec, spec.digest(), pack(spec), SETTINGS)
    assert (report.kind, report.problem) == (
        "missing",
        "command 'no-such-tool' not found on the PATH",
    )


def report(worker: str, name: str, kind: str, problem: str | None = None) -> BuildReport:
    return BuildReport(worker, name, problem, kind)


def test_the_verdicts_on_build_reports() -> None:
    ok = [report("w1", "ann", "ok"), report("w2", "ann", "ok")]
    assert _judge(ok) == {}
    failed = _judge([*ok, report("w1", "bob", "ok"), report("w2", "bob", "build", "exit 1: no")])
    assert failed == {"bob": "bob: build failed on worker w2: exit 1: no"}
    nowhere = [report("w1", "cat", "missing", "no go"), report("w2", "cat", "missing", "no go")]
    assert _judge(nowhere) == {"cat": "cat: no go (on every worker)"}
    with pytest.raises(ClusterError, match="worker w2 lacks what cat needs"):
        _judge([report("w1", "cat", "ok"), report("w2", "cat", "missing", "no go")])
    with pytest.raises(ClusterError, match="worker w1 cannot run bots: no bwrap"):
        _judge([report("w1", "cat", "worker", "no bwrap")])


def test_a_game_task_plays_in_an_arena_worker_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The task's own code path, in this process: bundles unpacked into the cache, the
    game refereed by a `python -m arena.worker` process, its Played frame returned."""
    monkeypatch.setenv("ARENA_CLUSTER_CACHE", str(tmp_path / "cache"))
    specs = [load_manifest(witness_bot(tmp_path, name)) for name in ("ann", "bob")]
    digests = {s.name: s.digest() for s in specs}
    bundles = {digests[s.name]: pack(s) for s in specs}
    settings = RunSettings(clocks=Clocks(decision_ms=3000))
    setup = Setup(bots=tuple(specs), settings=settings, config=GameConfig(players=2))
    info = RunInfo("t1", encode(setup), digests, SETTINGS)
    try:
        for game_id in ("g1", "g2"):
            (frame,) = play_games(info, bundles, [encode(Play(game_id, ("ann", "bob"), 5, None))])
            reader = Reader(FromWorker, "test")
            reader.feed(frame)
            played = reader.next()
            assert isinstance(played, Played)
            assert played.game_id == game_id
            assert played.result.names == ("ann", "bob")
    finally:
        assert close_run("t1", abandon=False) == 1  # one worker process, reused
    notes = witness_lines(tmp_path)
    assert {n[3] for n in notes} == {"arena.worker"}
    assert len({n[1] for n in notes}) == 1  # the same worker process for both games


def test_a_game_task_no_longer_wanted_stops_its_worker_process(tmp_path: Path) -> None:
    """Told that a task is no longer wanted (as `ArenaPlugin` hears from Dask: its
    client cancelled it, or is gone), a Dask worker's arena state stops the task's
    worker process in the middle of its game: the task ends as abandoned, and the
    game's bots and worker process are gone."""
    specs = [load_manifest(witness_bot(tmp_path, name, delay=0.2)) for name in ("ann", "bob")]
    settings = RunSettings(clocks=Clocks(decision_ms=3000))
    setup = Setup(bots=tuple(specs), settings=settings, config=GameConfig(players=2))
    here = Here(None)
    key = "arena-games-t2-g1-1-0"
    ended: list[BaseException] = []

    def task() -> None:
        try:
            here.play("t2", setup, [Play("g1", ("ann", "bob"), 5, None)], key)
        except BaseException as err:
            ended.append(err)

    thread = threading.Thread(target=task)
    thread.start()
    try:
        deadline = time.monotonic() + 60
        while len([n for n in witness_lines(tmp_path) if n[4] == "start"]) < 2:
            assert time.monotonic() < deadline, "the game never started"
            time.sleep(0.02)
        here.stop(key)
        thread.join(60)
        assert len(ended) == 1
        assert isinstance(ended[0], ClusterError)
        assert "g1 abandoned: its task was cancelled" in str(ended[0])
        notes = witness_lines(tmp_path)
        assert "over" not in {n[4] for n in notes}
        deadline = time.monotonic() + 30
        while [p for n in notes for p in (n[0], n[1]) if alive(p)]:
            assert time.monotonic() < deadline, "bots or the worker process still run"
            time.sleep(0.05)
    finally:
        here.shut()
        thread.join(10)


def test_a_game_task_given_back_to_a_worker_after_a_stop_is_played(tmp_path: Path) -> None:
    """Found in a clean-clone run: Dask took a queued game task away from a worker (to
    steal it for a new worker), that worker was killed, and Dask gave the task back with
    the same key. The worker still held the key as no longer wanted, so the game stopped
    at its start and the league stopped with "game g000010 abandoned". Given back (its
    transition to "waiting", as `ArenaPlugin` hears it), the task's games are played."""
    from arena.cluster._plugin import ArenaPlugin

    specs = [load_manifest(witness_bot(tmp_path, name)) for name in ("ann", "bob")]
    settings = RunSettings(clocks=Clocks(decision_ms=3000))
    setup = Setup(bots=tuple(specs), settings=settings, config=GameConfig(players=2))
    plugin = ArenaPlugin()
    here = plugin.here = Here(None)
    key = "arena-games-t3-g1-1-0"
    try:
        plugin.transition(key, "ready", "released")  # taken away to be stolen
        plugin.transition(key, "released", "waiting")  # and given back
        (played,) = here.play("t3", setup, [Play("g1", ("ann", "bob"), 5, None)], key)
        assert played.game_id == "g1"
        assert played.result.names == ("ann", "bob")
        # A task taken away and not given back is still stopped at its start.
        plugin.transition(key, "executing", "cancelled")
        with pytest.raises(ClusterError, match="g2 abandoned: its task was cancelled"):
            here.play("t3", setup, [Play("g2", ("ann", "bob"), 6, None)], key)
    finally:
        here.shut()
