"""Issue 10.7: builds run in the sandbox, with a time limit, their output in the log.

A submission's build step used to run as the user running arena, unconfined: it read
/etc/shadow and another bot's folder. Under `--sandbox bwrap` a build now sees what
its bot sees, with its own folder writable, the toolchains read-only and no network
unless the organiser allows it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
import socket
import threading
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.bots import build, check_sandboxed_apart, load_manifest
from arena.cli import main
from arena.errors import BuildError, ConfigError

from .helpers import BOTH, HOSTILE, RANDOM, gone_sync, needs_bwrap

pytestmark = pytest.mark.subprocess

PROBE = Path(__file__).with_name("build_probe.py")


def probe_bot(root: Path, port: int) -> Path:
    (root / "victim").mkdir(parents=True)
    (root / "victim" / "secret.txt").write_text("the victim's secret")
    folder = root / "prober"
    folder.mkdir()
    shutil.copy(PROBE, folder / "build.py")
    shutil.copy(HOSTILE, folder / "bot.py")
    args = f"{root / 'victim' / 'secret.txt'} {root / 'outside.txt'} {port}"
    (folder / "bot.toml").write_text(
        f'name = "prober"\nrun = "python3 bot.py none x"\nbuild = "python3 build.py {args}"\n'
    )
    os.chmod(root, 0o755)
    return folder


@needs_bwrap
@pytest.mark.parametrize("network", [False, True])
def test_a_sandboxed_build_reads_and_reaches_nothing_of_the_host(
    tmp_path: Path, network: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "the organiser's")  # arena's environment
    with socket.create_server(("127.0.0.1", 0)) as server:
        folder = probe_bot(tmp_path, server.getsockname()[1])
        owner = folder.stat().st_uid
        log = tmp_path / "logs" / "prober.log"
        output = build(load_manifest(folder), sandbox="bwrap", network=network, log_path=log)
        server.setblocking(False)
        if not network:  # its own loopback, in a network namespace of its own
            with pytest.raises(BlockingIOError):
                server.accept()
    assert "probe done" in output
    report = json.loads((folder / "report.json").read_text())
    assert report["shadow"] == "ENOENT"
    assert report["other_bot"] == "ENOENT"
    assert report["write_outside"] in {"EACCES", "EROFS", "ENOENT"}
    assert report["network"] == ("ok" if network else "ECONNREFUSED")
    # Of arena's environment, a build sees where its toolchains are, never the rest.
    toolchains = {"RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "JAVA_HOME", "GOROOT"}
    # (PWD: the shell that joins the build to its memory group sets it, to its folder)
    assert set(report["environment"]) <= {"PATH", "LANG", "HOME", "TMPDIR", "PWD", *toolchains}
    assert report["big_file"] == "EFBIG"  # a build's files are 1 GiB at most
    assert report["userns"] in {"EPERM", "ENOSPC", "EINVAL"}  # (a tmpfs of no bound in one)
    assert not (tmp_path / "outside.txt").exists()
    if os.geteuid() == 0:  # root builds as a uid of its own, then gets the folder back
        assert report["uid"] != 0
        assert {p.stat().st_uid for p in [folder, *folder.rglob("*")]} == {owner}
    assert "[arena: build " in log.read_text()
    assert "probe done" in log.read_text()


@pytest.mark.parametrize("sandboxed", BOTH)
def test_a_build_that_runs_too_long_is_killed(tmp_path: Path, sandboxed: bool) -> None:
    token = f"arena-build-{uuid.uuid4().hex}"
    folder = tmp_path / "slow"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        f'name = "slow"\nrun = "python3 bot.py"\nbuild = "sh -c \\"sleep 60; : {token}\\""\n'
    )
    with pytest.raises(BuildError, match="slow: build did not finish in 1 s"):
        build(load_manifest(folder), sandbox="bwrap" if sandboxed else "none", timeout=1)
    assert gone_sync(token)


@pytest.mark.parametrize("sandboxed", BOTH)
def test_a_build_stopped_by_ctrl_c_is_killed(tmp_path: Path, sandboxed: bool) -> None:
    """A build runs in a session of its own, out of reach of the terminal's Ctrl-C, and
    Python's Popen leaves the process it waited for running on KeyboardInterrupt: an
    unsandboxed build went on after arena had stopped."""
    token = f"arena-build-{uuid.uuid4().hex}"
    folder = tmp_path / "slow"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        f'name = "slow"\nrun = "python3 bot.py"\nbuild = "sh -c \\"sleep 60; : {token}\\""\n'
    )
    timer = threading.Timer(1.0, os.kill, [os.getpid(), signal.SIGINT])  # as Ctrl-C does
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            build(load_manifest(folder), sandbox="bwrap" if sandboxed else "none", timeout=30)
    finally:
        timer.cancel()
    assert gone_sync(token)


@pytest.mark.parametrize("sandboxed", BOTH)
def test_check_bot_runs_the_build_of_a_folder(tmp_path: Path, sandboxed: bool) -> None:
    folder = tmp_path / "built"
    folder.mkdir()
    shutil.copy(HOSTILE, folder / "source.py")
    (folder / "bot.toml").write_text(
        'name = "built"\nrun = "python3 bot.py none x"\nbuild = "cp source.py bot.py"\n'
    )
    sandbox = "bwrap" if sandboxed else "none"
    result = CliRunner().invoke(main, ["check-bot", "--sandbox", sandbox, str(folder)])
    assert result.exit_code == 0, result.output
    assert (folder / "bot.py").exists()
    (folder / "bot.toml").write_text(
        'name = "built"\nrun = "python3 bot.py none x"\nbuild = "false"\n'
    )
    result = CliRunner().invoke(main, ["check-bot", "--sandbox", sandbox, str(folder)])
    assert result.exit_code == 2
    assert "built: build exited with status 1" in result.output


def test_a_failed_builds_last_lines_are_quoted_under_the_one_line_error(tmp_path: Path) -> None:
    """A build's output ends the error as a quotation, indented under it: no line of it
    reads as arena's own (it said "arena: error: ... : one", then "two" and "three" on
    lines of their own, as if the error ended there)."""
    folder = tmp_path / "noisy"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        'name = "noisy"\nrun = "python3 bot.py"\n'
        "build = \"sh -c 'echo one; echo two; echo three; exit 1'\"\n"
    )
    result = CliRunner().invoke(main, ["check-bot", "--sandbox", "none", str(folder)])
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert lines[0].startswith("arena: error: noisy: build exited with status 1"), lines
    assert lines[0].endswith(": one"), lines
    assert lines[1:] == ["    two", "    three"], lines


@needs_bwrap
def test_a_build_whose_folder_is_inside_a_folder_on_the_path_sees_its_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The organiser's PATH holds the folder of the submissions (their own tools beside
    them): each build still sees and writes its own folder, and not the others'."""
    bots = tmp_path / "bots"
    folder = bots / "builder"
    folder.mkdir(parents=True)
    (bots / "other").mkdir()
    (bots / "other" / "secret.txt").write_text("the other bot's")
    (folder / "build.py").write_text(
        "import os\n"
        "seen = os.path.exists(os.path.join('..', 'other', 'secret.txt'))\n"
        "open('built.txt', 'w').write(str(seen))\n"
    )
    (folder / "bot.toml").write_text(
        'name = "builder"\nrun = "python3 bot.py"\nbuild = "python3 build.py"\n'
    )
    (folder / "bot.py").write_text("")
    os.chmod(tmp_path, 0o755)
    monkeypatch.setenv("PATH", f"{bots}{os.pathsep}{os.environ['PATH']}")
    build(load_manifest(folder), sandbox="bwrap")
    assert (folder / "built.txt").read_text() == "False"


def _bots_on_the_path(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Submissions `bots/copier` and `bots/tools/victim`, the folder `bots/tools` on
    the organiser's PATH; the copier's build copies whatever of the victim it reads."""
    bots = root / "bots"
    for folder in (bots / "copier", bots / "tools" / "victim"):
        folder.mkdir(parents=True)
        (folder / "bot.py").write_text("")
        (folder / "bot.toml").write_text(f'name = "{folder.name}"\nrun = "python3 bot.py"\n')
    (bots / "tools" / "victim" / "secret.txt").write_text("the victim's")
    (bots / "copier" / "build.py").write_text(
        "import shutil\nshutil.copytree('../tools/victim', 'stolen')\n"
    )
    (bots / "copier" / "bot.toml").write_text(
        'name = "copier"\nrun = "python3 bot.py"\nbuild = "python3 build.py"\n'
    )
    os.chmod(root, 0o755)
    monkeypatch.setenv("PATH", f"{bots / 'tools'}{os.pathsep}{os.environ['PATH']}")
    return bots


@needs_bwrap
@pytest.mark.parametrize("command", ["league", "match", "sprt"])
def test_a_submission_in_a_folder_another_bots_build_reads_is_refused_before_any_build(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A submission inside a folder on the PATH: a sandboxed build sees the toolchains'
    folders, so another bot's build, outside that folder, could copy its files (it did:
    the copier's build copied the victim's folder). The league, match or SPRT is
    refused at once (exit 2, naming the folder), before anything is built."""
    bots = _bots_on_the_path(tmp_path, monkeypatch)
    copier, victim = bots / "copier", bots / "tools" / "victim"
    store = str(tmp_path / "s.sqlite")
    args = {
        "league": ["league", str(bots), "--table-size", "2", "--store", store],
        "match": ["match", str(copier), str(victim), "--games", "1"],
        "sprt": ["sprt", str(copier), str(victim), "--store", store, "--max-games", "2"],
    }[command]
    result = CliRunner().invoke(main, [*args, "--sandbox", "bwrap"])
    assert result.exit_code == 2, result.output
    assert f"the folder of the bot victim ({victim}) is inside {bots / 'tools'}" in result.stderr
    assert "every sandboxed build reads" in result.stderr
    assert "copier could read it" in result.stderr
    assert not (copier / "stolen").exists()


@needs_bwrap
def test_submissions_that_only_their_own_builds_could_see_play(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What is not refused: bots all inside a folder on the PATH (a bot's sandbox leaves
    out a folder around its own), bots in a folder on the PATH when none is built (only
    builds see the toolchains), and unconfined bots (which read every folder anyway)."""
    bots = tmp_path / "bots"
    for name in ("a", "b"):
        shutil.copytree(RANDOM, bots / name)
    os.chmod(tmp_path, 0o755)
    monkeypatch.setenv("PATH", f"{bots}{os.pathsep}{os.environ['PATH']}")
    (bots / "a" / "bot.toml").write_text(
        (bots / "a" / "bot.toml").read_text() + 'build = "python3 -c pass"\n'
    )
    result = CliRunner().invoke(
        main, ["match", str(bots / "a"), str(bots / "b"), "-n", "1", "--sandbox", "bwrap"]
    )
    assert result.exit_code == 0, result.output
    layout = _bots_on_the_path(tmp_path / "x", monkeypatch)
    specs = [load_manifest(layout / "copier"), load_manifest(layout / "tools" / "victim")]
    check_sandboxed_apart(specs, "none")
    check_sandboxed_apart([specs[0], dataclasses.replace(specs[0], name="c", build=None)], "bwrap")
    check_sandboxed_apart([dataclasses.replace(specs[0], build=None), specs[1]], "bwrap")
    with pytest.raises(ConfigError, match="every sandboxed build reads"):
        check_sandboxed_apart(specs, "bwrap")


def test_a_failed_builds_error_quotes_its_last_five_lines(tmp_path: Path) -> None:
    """The end of a build's output says why it failed, its start seldom does."""
    folder = tmp_path / "noisy"
    folder.mkdir()
    words = ["one", "two", "three", "four", "five", "six", "seven"]
    echoes = "; ".join(f"echo {word}" for word in words)
    (folder / "bot.toml").write_text(
        f'name = "noisy"\nrun = "python3 bot.py"\nbuild = "sh -c \'{echoes}; exit 1\'"\n'
    )
    with pytest.raises(BuildError) as err:
        build(load_manifest(folder))
    message = str(err.value)
    assert message.endswith("three\nfour\nfive\nsix\nseven"), message
    assert "two" not in message


@needs_bwrap
def test_a_build_that_times_out_waiting_for_the_network_is_told_why(tmp_path: Path) -> None:
    """A toolchain that retries a host it cannot resolve until the build's time is up:
    the timeout says, as a failure does, that a sandboxed build has no network."""
    os.chmod(tmp_path, 0o755)
    folder = tmp_path / "retrier"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        'name = "retrier"\nrun = "python3 bot.py"\n'
        "build = \"sh -c 'echo Could not resolve host: example.org; exec sleep 60'\"\n"
    )
    with pytest.raises(BuildError) as err:  # (5 s: time for the sandbox to start and say it)
        build(load_manifest(folder), sandbox="bwrap", timeout=5)
    assert "build did not finish in 5 s" in str(err.value)
    assert "a sandboxed build has no network" in str(err.value)
