"""Issue 40.5: a build is bounded in memory and in inodes, and cannot write another
bot's files through a hard link they share."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from arena._memgroups import groups_root
from arena.bots import build, load_manifest
from arena.errors import BuildError

from .helpers import needs_bwrap


def bot_folder(root: Path, name: str, build_line: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text("print('a bot')\n")
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nrun = "python3 bot.py"\nbuild = "{build_line}"\n'
    )
    return folder


@needs_bwrap
def test_a_build_cannot_rewrite_a_file_it_shares_by_a_hard_link(tmp_path: Path) -> None:
    """An organiser de-duplicated the submissions (`cp -al`): two bots' bot.py are one
    inode. The second bot's build appends to its bot.py; the first bot's stays as it
    was (before, it was rewritten, and the first bot was disqualified)."""
    os.chmod(tmp_path, 0o755)
    first = bot_folder(tmp_path, "first", "true")
    second = tmp_path / "second"
    second.mkdir()
    os.link(first / "bot.py", second / "bot.py")
    (second / "bot.toml").write_text(
        'name = "second"\nrun = "python3 bot.py"\nbuild = "sh -c \\"echo tampered >> bot.py\\""\n'
    )
    build(load_manifest(second), sandbox="bwrap", timeout=60)
    assert (first / "bot.py").read_text() == "print('a bot')\n"
    assert (second / "bot.py").read_text() == "print('a bot')\ntampered\n"
    assert (first / "bot.py").stat().st_nlink == 1


@needs_bwrap
def test_a_build_that_makes_many_empty_files_passes_the_disk_cap(tmp_path: Path) -> None:
    """Empty files take no blocks, but each takes an inode: 2,000 of them count 31 MiB
    (16 KiB an inode), over a cap of 8 MiB. (Before, 200,000 passed a 4 GiB cap.)"""
    os.chmod(tmp_path, 0o755)
    folder = bot_folder(
        tmp_path,
        "inodes",
        "sh -c 'mkdir d; cd d; i=0; while [ $i -lt 2000 ]; do : > f$i; i=$((i+1)); done; sleep 30'",
    )
    with pytest.raises(BuildError, match="the build wrote more than 8 MiB to the disk"):
        build(load_manifest(folder), sandbox="bwrap", timeout=60, disk_mb=8)


@needs_bwrap
@pytest.mark.skipif(groups_root() is None, reason="no memory groups here (root, cgroup v1)")
def test_a_build_past_its_memory_is_killed(tmp_path: Path) -> None:
    """The build's processes share one memory group (`--build-memory-mb`, 64 MiB
    here): a build that touches 512 MiB is killed by the kernel, and fails."""
    os.chmod(tmp_path, 0o755)
    hog = f"{sys.executable} -c 'x = bytes(1) * (512 << 20)'"
    folder = bot_folder(tmp_path, "hog", hog)
    with pytest.raises(BuildError, match="status 137"):  # SIGKILL, from the kernel
        build(load_manifest(folder), sandbox="bwrap", timeout=60, memory_mb=64)
    build(load_manifest(folder), sandbox="bwrap", timeout=60)  # within 2 GiB: built


@needs_bwrap
def test_a_build_that_fails_reaching_the_network_is_told_why(tmp_path: Path) -> None:
    """Issue 44.3: `npm ci` failed after 82 s with npm's EAI_AGAIN and no word that
    builds have no network; the npm log it named was in a folder already gone."""
    os.chmod(tmp_path, 0o755)
    fetch = (
        f"{sys.executable} -c 'import urllib.request as u;"
        ' u.urlopen(\\"http://pypi.org\\", timeout=5)\''
    )
    folder = bot_folder(tmp_path, "fetcher", fetch)
    with pytest.raises(BuildError) as err:
        build(load_manifest(folder), sandbox="bwrap", timeout=60, log_path=tmp_path / "fetcher.log")
    message = str(err.value)
    assert "build exited with status 1" in message
    assert f"(the whole output: {tmp_path / 'fetcher.log'})" in message
    assert "a sandboxed build has no network" in message
    assert "--build-network" in message
    assert "fetch.sh" in message
    folder = bot_folder(tmp_path, "plain", "false")  # no network word: no hint
    with pytest.raises(BuildError) as err:
        build(load_manifest(folder), sandbox="bwrap", timeout=60)
    assert "no network" not in str(err.value)


def test_every_hard_link_of_a_submission_gets_a_copy_and_nothing_outside_is_touched(
    tmp_path: Path,
) -> None:
    """`own_copies` (before a sandboxed build): hard links anywhere in the folder (a
    `cp -al` copies the whole tree) get copies of their own; a link to a folder outside
    it is not followed, and the files there, hard-linked or not, stay as they are."""
    from arena.bots._sandboxed import own_copies

    other = tmp_path / "other"
    (other / "src").mkdir(parents=True)
    (other / "src" / "lib.py").write_text("the other bot's\n")
    (other / "top.py").write_text("the other bot's top\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "data").write_text("the organiser's\n")
    os.link(outside / "data", outside / "data-link")
    folder = tmp_path / "bot"
    (folder / "src").mkdir(parents=True)
    os.link(other / "src" / "lib.py", folder / "src" / "lib.py")
    os.link(other / "top.py", folder / "top.py")
    (folder / "shared").symlink_to(outside)
    (folder / "loop").symlink_to(".")
    inodes = {p: p.stat().st_ino for p in [other / "src" / "lib.py", outside / "data"]}
    own_copies(folder)
    for copy, original in [(folder / "src" / "lib.py", other / "src" / "lib.py"),
                           (folder / "top.py", other / "top.py")]:  # fmt: skip
        assert copy.read_text() == original.read_text()
        assert copy.stat().st_ino != original.stat().st_ino
        assert copy.stat().st_nlink == original.stat().st_nlink == 1
    assert other.joinpath("src", "lib.py").stat().st_ino == inodes[other / "src" / "lib.py"]
    assert (outside / "data").stat().st_ino == inodes[outside / "data"]
    assert (outside / "data").stat().st_nlink == 2
    assert (folder / "shared").is_symlink()
