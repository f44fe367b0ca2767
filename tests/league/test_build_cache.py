"""Issue 40.5: a successful build is not run again for a folder it left as it is (a
resume, the next league of the same folder), `--rebuild` forces it, and a build's memory
is bounded by `--build-memory-mb`."""

from __future__ import annotations

import os
import resource
import shutil
import sys
from pathlib import Path

import pytest

from arena._memgroups import groups_root
from arena.bots import build, build_is_cached, load_manifest

from ..sandbox.helpers import needs_bwrap
from .test_league_run import league_file, make_bot, random_bot, results, run_cli

pytestmark = pytest.mark.subprocess

COUNT = "sh -c 'echo built >> builds.txt; mkdir -p target; echo out > target/bot.out'"
"""A build that counts its runs (in the submission) and leaves an output where the
submission's digest does not look (target/)."""


def counting_bot(root: Path, name: str = "ann") -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text("print('a bot')\n")
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nrun = "python3 bot.py"\nbuild = "{COUNT}"\n'
    )
    return folder


def runs(folder: Path) -> int:
    return len((folder / "builds.txt").read_text().splitlines())


def test_a_folder_as_its_build_left_it_is_not_built_again(tmp_path: Path) -> None:
    folder = counting_bot(tmp_path)
    spec = load_manifest(folder)
    assert not build_is_cached(spec)
    build(spec)
    assert build_is_cached(spec)
    build(spec)
    assert runs(folder) == 1
    build(spec, rebuild=True)  # --rebuild
    assert runs(folder) == 2
    build(spec)
    assert runs(folder) == 2


@pytest.mark.parametrize(
    "change",
    [
        "edit",
        "output deleted",
        "output replaced",
        "output's mode",
        "copied",
        "network",
        pytest.param("sandbox", marks=needs_bwrap),
    ],
)
def test_a_changed_folder_or_way_of_building_is_built_again(tmp_path: Path, change: str) -> None:
    folder = counting_bot(tmp_path)
    build(load_manifest(folder))
    sandbox, network = "none", False
    output = folder / "target" / "bot.out"
    if change == "edit":
        (folder / "bot.py").write_text("print('a new version')\n")
    elif change == "output deleted":  # cargo clean: the digest alone would not see it
        shutil.rmtree(folder / "target")
    elif change == "output replaced":  # another file of the same size and times (rsync -a)
        times = output.parent.stat()
        other = output.with_name("other")
        other.write_text("OUT\n")
        shutil.copystat(output, other)
        os.replace(other, output)
        os.utime(output.parent, ns=(times.st_atime_ns, times.st_mtime_ns))
    elif change == "output's mode":  # chmod -x of a built program
        output.chmod(0o600)
    elif change == "copied":  # a fresh copy elsewhere has none of the first's outputs
        folder = Path(shutil.copytree(folder, tmp_path / "copy" / "ann"))
    elif change == "network":
        network = True
    else:  # built outside the sandbox (seeing the organiser's files, the network)
        sandbox = "bwrap"
        os.chmod(tmp_path, 0o755)
    spec = load_manifest(folder)
    assert not build_is_cached(spec, sandbox=sandbox, network=network)
    build(spec, sandbox=sandbox, network=network)
    assert runs(folder) == 2
    assert (folder / "target" / "bot.out").exists()


def test_a_failed_build_is_not_remembered(tmp_path: Path) -> None:
    folder = counting_bot(tmp_path)
    (folder / "bot.toml").write_text('name = "ann"\nrun = "python3 bot.py"\nbuild = "false"\n')
    spec = load_manifest(folder)
    for _ in range(2):
        with pytest.raises(Exception, match="build exited with status 1"):
            build(spec)
    assert not build_is_cached(spec)


def test_a_resumed_league_and_the_next_league_of_the_folder_do_not_build_again(
    tmp_path: Path,
) -> None:
    ann = make_bot(tmp_path, "ann", build="sh build.sh")
    (ann / "build.sh").write_text(COUNT.removeprefix("sh -c '").removesuffix("'") + "\n")
    make_bot(tmp_path, "bob")
    for name in ("cat", "dan"):
        random_bot(tmp_path, name)
    path = league_file(tmp_path, games_per_table=1, duplicate=False)
    code, _, err = run_cli("league", str(path))
    assert code == 0, err
    assert "building ann" in err
    assert runs(ann) == 1
    code, _, err = run_cli("league", str(path))  # finished: nothing to play, nothing to build
    assert code == 0, err
    assert "building ann" not in err
    assert "ann: built already, its folder as that build left it (--rebuild)" in err
    assert runs(ann) == 1
    code, _, err = run_cli("league", str(path), "--store", str(tmp_path / "other.sqlite"))
    assert code == 0, err
    assert runs(ann) == 1
    assert len(results(tmp_path / "other.sqlite")) == 4
    code, _, err = run_cli("league", str(path), "--rebuild")
    assert code == 0, err
    assert "building ann" in err
    assert runs(ann) == 2


@needs_bwrap
@pytest.mark.skipif(groups_root() is None, reason="no memory groups here (root, cgroup v1)")
def test_build_memory_mb_bounds_a_leagues_builds(tmp_path: Path) -> None:
    """`--build-memory-mb 64`: a build that touches 512 MiB is killed, and its bot is
    left out by name; the others play."""
    os.chmod(tmp_path, 0o755)
    ann = make_bot(tmp_path, "ann", build="sh build.sh")
    (ann / "build.sh").write_text(f"{sys.executable} -c 'x = bytes(1) * (512 << 20)'\n")
    for name in ("bob", "cat", "dan"):
        random_bot(tmp_path, name)
    path = league_file(tmp_path, games_per_table=1, duplicate=False)
    code, _, err = run_cli("league", str(path), "--sandbox", "bwrap", "--build-memory-mb", "64")
    assert code == 0, err
    assert "left out: ann: build exited with status 137" in err
    assert {bot for game in results(tmp_path / "league.sqlite").values() for bot, _, _ in game} == {
        "bob",
        "cat",
        "dan",
    }


def test_the_build_settings_default_to_what_the_spec_says() -> None:
    """SPEC §14.3: 600 s, no network, 4 GiB added to the folder, 2 GiB of memory, and a
    folder as its last successful build left it is not built again (`--rebuild` does)."""
    from arena.bots._sandboxed import BUILD_LIMITS, BUILD_TMP_MB
    from arena.bots._settings import BuildSettings

    settings = BuildSettings()
    assert settings.build_timeout == 600
    assert settings.build_network is False
    assert settings.build_disk_mb == 4096
    assert settings.build_memory_mb == 2048
    assert settings.rebuild is False
    assert BUILD_TMP_MB == 512  # its HOME and TMPDIR
    assert dict(BUILD_LIMITS) == {
        resource.RLIMIT_NPROC: 1024,  # processes
        resource.RLIMIT_FSIZE: 1 << 30,  # a file
    }
