"""What a submission's folder may hold, before and after its build, and how its build is
bounded: special files anywhere (a FIFO carried a bot's hand from one of its processes
to the next in a duplicate group), folders nested past any walk (a crash of the whole
league), a build's disk and output, a build whose leftover process holds its output.

Found by attacking the sandbox as a bot author would (SPEC §14, docs/fair-play.md "Fair play").
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from arena.bots import MAX_DEPTH, build, load_manifest
from arena.bots._manifest import check_tree
from arena.bots._running import (
    BUILD_STOP,
    OUTPUT_HEAD,
    OUTPUT_TAIL,
    BuildsStopped,
    BuildStop,
    run_build,
)
from arena.errors import BuildError, ManifestError
from arena.league import discover_bots

from .helpers import BOTH, gone_sync, needs_bwrap, random_bots

pytestmark = pytest.mark.subprocess

ROOT = Path(__file__).resolve().parents[2]


def bot_folder(root: Path, name: str = "fifo", build: str | None = None) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text("print('a bot')\n")
    line = f'build = "{build}"\n' if build else ""
    (folder / "bot.toml").write_text(f'name = "{name}"\nrun = "python3 bot.py"\n{line}')
    return folder


def league(bots: Path, store: Path, sandbox: str) -> tuple[int, str]:
    """`arena league` of tables of 2, a game each: (exit status, all it said)."""
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "league", "--bots", str(bots), "--store",
         str(store), "--table-size", "2", "--games-per-table", "1", "--sandbox", sandbox],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    return done.returncode, done.stdout + done.stderr


def nest(folder: Path, levels: int) -> Path:
    """`folder`/d/d/... `levels` deep, made with paths relative to each parent (a full
    path would pass PATH_MAX long before)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(levels):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
    finally:
        os.close(fd)
    return folder / "d"


def remove(path: Path) -> None:
    subprocess.run(["rm", "-rf", "--", str(path)], check=True)


@pytest.mark.parametrize("where", ["chan", ".cache/chan", "target/deep/chan", "node_modules/chan"])
def test_a_fifo_anywhere_in_a_submission_is_refused(tmp_path: Path, where: str) -> None:
    """A FIFO shipped in a folder the digest skips (.cache, target, node_modules) was
    never looked at: each process of the bot kept it open, wrote its hand into it, and
    the next process of the bot in a duplicate group read the deal it was about to play
    (the pipe's data lives while any process holds it, on a read-only mount too)."""
    folder = bot_folder(tmp_path)
    fifo = folder / where
    fifo.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(fifo, 0o666)
    spec = load_manifest(folder)
    with pytest.raises(ManifestError, match=f"fifo: {where} is a special file"):
        spec.digest()
    with pytest.raises(ManifestError, match=f"fifo: {where} is a special file"):
        check_tree("fifo", folder)


@pytest.mark.parametrize("sandboxed", BOTH)
def test_a_build_that_makes_a_fifo_fails(tmp_path: Path, sandboxed: bool) -> None:
    """The special-file check looked at the submission before its build only, and the
    digest after it (which does see one) was not allowed to leave a bot out: a FIFO
    made by `mkfifo` in the build carried what one process saw to the next."""
    folder = bot_folder(tmp_path, build="sh -c 'mkdir -p .cache && mkfifo -m 666 .cache/chan'")
    os.chmod(tmp_path, 0o755)
    spec = load_manifest(folder)
    spec.digest()  # the submission as given is fine
    with pytest.raises(BuildError, match=r"\.cache/chan is a special file .* \(after its build\)"):
        build(spec, sandbox="bwrap" if sandboxed else "none")


def test_a_league_leaves_out_a_bot_whose_build_makes_a_fifo(tmp_path: Path) -> None:
    """The same through `arena league`: the bot is left out with the reason, the other
    bots play."""
    bots = tmp_path / "bots"
    bot_folder(bots, "sneaky", build="mkfifo -m 666 chan")
    random_bots(bots, "ann", "bob")
    code, said = league(bots, tmp_path / "l.sqlite", "none")
    assert code == 0, said
    assert "left out: sneaky: chan is a special file" in said
    assert "(after its build)" in said
    assert "Traceback" not in said
    table = subprocess.run(
        [sys.executable, "-m", "arena.cli", "standings", str(tmp_path / "l.sqlite"), "-f", "csv"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    assert "ann" in table
    assert "sneaky" not in table


def test_a_submission_nested_past_the_limit_is_refused_not_crashed_on(tmp_path: Path) -> None:
    """A tree some 1,200 folders deep made Python's recursive walk raise RecursionError,
    which no one caught: the league ended with a traceback before any game, for as long
    as the submission was in its folder. Now the digest refuses it by name, in an
    ignored folder too."""
    for where in ("", "target"):
        folder = bot_folder(tmp_path / (where or "plain"), "deep")
        top = folder / where if where else folder
        top.mkdir(exist_ok=True)
        nest(top, 1200)
        with pytest.raises(ManifestError, match=f"deep: .* nested more than {MAX_DEPTH} folders"):
            load_manifest(folder).digest()
        remove(folder)
    ok = bot_folder(tmp_path / "ok", "fine")
    nest(ok, MAX_DEPTH - 1)
    load_manifest(ok).digest()  # as deep as allowed


def test_the_depth_limit_is_exact(tmp_path: Path) -> None:
    """`MAX_DEPTH` folders nested in a submission are taken, one more is refused (by
    the digest and by the check of a build's tree alike)."""
    ok = bot_folder(tmp_path / "ok", "fine")
    nest(ok, MAX_DEPTH)
    load_manifest(ok).digest()
    check_tree("fine", ok)
    deep = bot_folder(tmp_path / "deep", "deep")
    nest(deep, MAX_DEPTH + 1)
    with pytest.raises(ManifestError, match=f"nested more than {MAX_DEPTH} folders"):
        load_manifest(deep).digest()
    with pytest.raises(ManifestError, match=f"nested more than {MAX_DEPTH} folders"):
        check_tree("deep", deep)


def test_a_link_to_a_folder_whose_name_begins_as_the_submissions_leads_out(
    tmp_path: Path,
) -> None:
    """bots/alice2 is not inside bots/alice, whatever their names share: a link of
    alice's to a file of alice2's (another bot's submission) leads out of alice's."""
    alice = bot_folder(tmp_path, "alice")
    bot_folder(tmp_path, "alice2")
    (alice / "peek").symlink_to("../alice2/bot.py")
    with pytest.raises(ManifestError, match="peek is a link out of the submission"):
        load_manifest(alice).digest()


def test_a_bots_folder_nested_deep_without_manifests_is_searched_without_a_crash(
    tmp_path: Path,
) -> None:
    """The search for submissions recursed once per level too."""
    bots = tmp_path / "bots"
    bots.mkdir()
    bot_folder(bots, "ann")
    nest(bots / "ann", 0)
    os.mkdir(bots / "zz")
    nest(bots / "zz", 1200)
    specs, problems = discover_bots(bots)
    assert [s.name for s in specs] == ["ann"]
    assert len(problems) == 1
    assert "not searched further" in problems[0]
    remove(bots / "zz")


@pytest.mark.parametrize("sandboxed", BOTH)
def test_a_build_that_nests_its_folder_past_any_walk_fails_and_gives_the_folder_back(
    tmp_path: Path, sandboxed: bool
) -> None:
    """As root the sandboxed build runs as a uid of its own and the folder is given back
    afterwards; that walk recursed too (a RecursionError, the folder left to the
    sandbox's uid). Now GNU chown gives it all back, and the bot is refused."""
    script = tmp_path / "nest.py"
    script.write_text(
        "import os\n"
        "fd = os.open('target', os.O_RDONLY)\n"
        "for _ in range(3000):\n"
        "    os.mkdir('d', dir_fd=fd)\n"
        "    fd = os.open('d', os.O_RDONLY, dir_fd=fd)\n"
    )
    folder = bot_folder(tmp_path, "nester", build="python3 nest.py")
    os.rename(script, folder / "nest.py")
    (folder / "target").mkdir()
    os.chmod(tmp_path, 0o755)
    owner = folder.stat().st_uid
    with pytest.raises(BuildError, match=r"nester: target/d/.* nested more than"):
        build(load_manifest(folder), sandbox="bwrap" if sandboxed else "none")
    found = subprocess.run(
        ["find", str(folder), "!", "-uid", str(owner)], capture_output=True, check=True
    )
    assert found.stdout == b""  # every level given back
    remove(folder)


@pytest.mark.parametrize("sandboxed", BOTH)
def test_a_build_that_fills_the_disk_is_killed(tmp_path: Path, sandboxed: bool) -> None:
    """The sandbox bounded each file a build writes (1 GiB), not their sum: a build
    wrote 3 x 700 MiB into its folder, and could have filled the disk under the store.
    Now a build that adds more than the limit to its folder is killed."""
    token = f"arena-fill-{uuid.uuid4().hex}"
    folder = bot_folder(
        tmp_path,
        "filler",
        build=f"sh -c 'for i in 1 2 3 4 5 6 7 8 9; do head -c 4000000 /dev/zero > f$i; done;"
        f" sleep 60; : {token}'",
    )
    os.chmod(tmp_path, 0o755)
    started = time.monotonic()
    with pytest.raises(BuildError, match="filler: the build wrote more than 8 MiB to the disk"):
        build(
            load_manifest(folder), sandbox="bwrap" if sandboxed else "none", timeout=60, disk_mb=8
        )
    assert time.monotonic() - started < 30
    assert gone_sync(token)


def test_a_build_that_writes_without_end_keeps_its_output_bounded(tmp_path: Path) -> None:
    """A build's whole output was kept in memory: one that wrote for ten minutes could
    fill arena's. Now its first MiB and its last 64 KiB are kept, with the count of the
    bytes between."""
    code, data = run_build(
        ["sh", "-c", "echo first; head -c 20000000 /dev/zero | tr '\\0' x; echo; echo last"],
        tmp_path,
        timeout=60,
    )
    assert code == 0
    assert data.startswith(b"first\n")
    assert data.endswith(b"last\n")
    assert len(data) < OUTPUT_HEAD + OUTPUT_TAIL + 200
    assert b"bytes of the build's output left out]" in data


def test_a_build_whose_leftover_process_holds_its_output_ends_with_the_build(
    tmp_path: Path,
) -> None:
    """A process that left the build's process group (setsid) kept its output pipe open,
    and the build was waited for until that process ended: up to the build's timeout,
    after which it was waited for without one."""
    token = f"sleep 30.{uuid.uuid4().int % 10**9:09d}"  # its own command line, for pkill
    started = time.monotonic()
    code, data = run_build(
        ["sh", "-c", f"echo built; setsid {token} & exit 0"],
        tmp_path,
        timeout=60,
    )
    assert code == 0
    assert data == b"built\n"
    assert time.monotonic() - started < 15
    subprocess.run(["pkill", "-f", token], check=False)


def test_a_stop_ends_a_build_whose_leftover_process_holds_its_output(tmp_path: Path) -> None:
    """A stop (SIGTERM, a hang-up, Ctrl-C during a league's builds) killed the build's
    group, and the wait went on until the process that had left the group let go of
    the pipe: with `setsid sleep 1000`, no signal short of SIGKILL stopped arena."""
    token = f"sleep 30.{uuid.uuid4().int % 10**9:09d}"  # its own command line, for pkill
    stop = BuildStop()
    (tmp_path / "started").unlink(missing_ok=True)
    timer = threading.Timer(1.0, stop.stop)
    reset = BUILD_STOP.set(stop)
    timer.start()
    started = time.monotonic()
    try:
        with pytest.raises(BuildsStopped):
            run_build(
                ["sh", "-c", f"setsid {token} & sleep 60"],
                tmp_path,
                timeout=60,
            )
    finally:
        timer.cancel()
        BUILD_STOP.reset(reset)
        subprocess.run(["pkill", "-f", token], check=False)
    assert time.monotonic() - started < 15
    reset = BUILD_STOP.set(stop)
    try:
        with pytest.raises(BuildsStopped):  # and no later build starts
            run_build(["true"], tmp_path, timeout=5)
    finally:
        BUILD_STOP.reset(reset)


def test_a_signal_free_build_reports_its_status(tmp_path: Path) -> None:
    """The plain case still reads the whole output and the status."""
    code, data = run_build(["sh", "-c", "echo out; echo err >&2; exit 3"], tmp_path, timeout=30)
    assert code == 3
    assert data == b"out\nerr\n"


@needs_bwrap
@pytest.mark.skipif(os.geteuid() != 0, reason="the sandbox runs bots as another user as root")
def test_a_league_warns_of_files_the_sandboxed_bot_cannot_read(tmp_path: Path) -> None:
    """A bot.py of mode 600 (as root, the sandbox runs the bot as an anonymous user)
    was charged a crash in every game, without a word before them."""
    bots = tmp_path / "bots"
    random_bots(bots, "ann", "bob")
    (bots / "bob" / "bot.py").chmod(0o600)
    for path in (tmp_path, bots):
        os.chmod(path, 0o755)
    _, said = league(bots, tmp_path / "l.sqlite", "bwrap")
    assert (
        f"warning: bob: bot.py cannot be read by the sandbox's anonymous user, which runs"
        f" the bot (chmod -R a+rX {bots / 'bob'})"
    ) in said
    assert "warning: ann" not in said


def test_a_build_waits_for_a_job_of_its_own_group_and_kills_what_it_left(
    tmp_path: Path,
) -> None:
    """A job the build left in its own group, still writing its output, is part of the
    build: it was declared done 2 s after its command exited, and the job wrote into
    the folder after the checks. A job that closed its output and runs on is killed
    when the build ends (found in review)."""
    token = f"sleep 60.{uuid.uuid4().int % 10**9:09d}"
    code, data = run_build(
        ["sh", "-c", f"(sleep 3; echo late > made.txt; echo done) & ({token} >/dev/null 2>&1 &);"
         " echo started"],
        tmp_path,
        timeout=30,
    )  # fmt: skip
    assert code == 0
    assert (tmp_path / "made.txt").exists()
    assert data == b"started\ndone\n"
    assert gone_sync(token)


@pytest.mark.parametrize("write", ["head -c 30000000 /dev/zero > big", "fallocate -l 30M big"])
def test_the_disk_limit_holds_for_a_build_that_writes_fast(tmp_path: Path, write: str) -> None:
    """The disk was first measured a second into the build and never after it: a build
    that wrote its excess at once passed (found in review)."""
    with pytest.raises(BuildError, match="the build wrote more than 10 MiB to the disk"):
        run_build(["sh", "-c", write], tmp_path, timeout=30, disk=([tmp_path], 10))


def test_a_link_named_as_a_cache_folder_is_left_out_of_the_digest(tmp_path: Path) -> None:
    """A node_modules or target that is a link to a folder (shared between
    submissions) was left out, as Python's walk lists it among the folders; the walk
    that replaced it hashed it, or refused it as a link out (found in review)."""
    folder = bot_folder(tmp_path, "linked")
    (folder / "inside").mkdir()
    (folder / "inside" / "x").write_text("x")
    before = load_manifest(folder).digest()
    shared = tmp_path / "shared"
    shared.mkdir()
    os.symlink(shared, folder / "node_modules")  # out of the folder
    os.symlink(folder / "inside", folder / "target")  # within it
    assert load_manifest(folder).digest() == before


@pytest.mark.skipif(os.geteuid() != 0, reason="handing a folder to another uid needs root")
def test_ctrl_c_does_not_cut_the_hand_back_of_a_folder_short(tmp_path: Path) -> None:
    """The sandbox gives a built folder back to its owner with chown, which ran in
    arena's process group: the terminal's Ctrl-C killed it, and the folder stayed the
    sandbox uid's (found in review)."""
    tree = tmp_path / "tree"
    for i in range(200):
        (tree / f"p{i}").mkdir(parents=True)
        for j in range(100):
            (tree / f"p{i}" / f"f{j}").write_text("")
    subprocess.run(["chown", "-R", "4321:4321", str(tree)], check=True)
    script = (
        "import os, signal, sys, threading, time\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from pathlib import Path\n"
        "from arena.bots._sandboxed import _chown_tree\n"
        "os.setpgid(0, 0)\n"
        "signal.signal(signal.SIGINT, lambda *a: None)\n"
        f"t = threading.Thread(target=_chown_tree, args=(Path({str(tree)!r}), 0, 0))\n"
        "t.start(); time.sleep(0.02); os.killpg(0, signal.SIGINT); t.join()\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert "Error" not in done.stderr, done.stderr
    left = subprocess.run(["find", str(tree), "-uid", "4321"], capture_output=True, text=True)
    assert left.stdout == ""


def test_the_build_disk_limit_is_an_option_of_every_command_that_builds(tmp_path: Path) -> None:
    """`--build-disk-mb` (and `build_disk_mb =` in a league file) sets the limit that
    a build which fills its folder meets."""
    bots = tmp_path / "bots"
    filler = bot_folder(bots, "filler", build="fallocate -l 30M big")
    random_bots(bots, "ann")
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "match", "-n", "1", str(filler), str(bots / "ann"),
         "--sandbox", "none", "--build-disk-mb", "8"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert "filler: the build wrote more than 8 MiB to the disk" in done.stderr
    (filler / "big").unlink()
    league_toml = tmp_path / "league.toml"
    league_toml.write_text(
        f'[league]\nbots = "{bots}"\nstore = "{tmp_path / "l.sqlite"}"\ntable_size = 2\n'
        "games_per_table = 1\nbuild_disk_mb = 8\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "league", str(league_toml), "--sandbox", "none"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert "left out: filler: the build wrote more than 8 MiB to the disk" in (
        done.stdout + done.stderr
    )
    league_toml.write_text(league_toml.read_text().replace("= 8", "= 0"))
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "league", str(league_toml), "--sandbox", "none"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert "build_disk_mb" in done.stderr
