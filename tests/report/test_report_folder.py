"""The folder `arena report -o` writes into: a new or empty one, or a site arena wrote
before (marked by its `.arena-report`), written again as a league goes on. Any other
folder is the user's: arena report deleted its data/games (shutil.rmtree) and replaced
its index.html, and ended with exit 0; a symbolic link there gave an OSError
traceback, and so did a folder that cannot be written (a full disk, a read-only
mount, /proc). Each is now refused in one line, exit code 2, nothing of the user's
changed, and no symbolic link is followed."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.replay import write_replay
from arena.report._export import MARK
from arena.store import Store

from ..sandbox.helpers import needs_bwrap
from .sites import league

pytestmark = pytest.mark.subprocess

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return league(tmp_path_factory.mktemp("league"))


@pytest.fixture(scope="module")
def replay(store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The replay file of one of the league's games."""
    path = tmp_path_factory.mktemp("replay") / "game.jsonl"
    with Store.open(store, readonly=True) as db:
        write_replay(path, db.replay(sorted(db.done_game_ids())[0]))
    return path


def run(*args: str | Path) -> tuple[int, str, BaseException | None]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.stderr, result.exception


def report(
    kind: str, store: Path, replay: Path, out: Path
) -> tuple[int, str, BaseException | None]:
    """`arena report` of the league `store`, or of the `replay` file, into `out`."""
    if kind == "store":
        return run("report", store, "-o", out)
    return run("report", "--replay", replay, "-o", out)


def assert_refused(answer: tuple[int, str, BaseException | None], message: str) -> None:
    code, err, exception = answer
    assert code == 2, (err, exception)
    assert isinstance(exception, SystemExit), exception  # no traceback
    assert err.startswith("arena: error: "), err
    assert len(err.strip().splitlines()) == 1, err
    assert message in err, err


def tree(folder: Path) -> dict[str, bytes | str]:
    """Every file, folder and symbolic link under `folder`: its bytes, or what it is."""
    found: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        name = str(path.relative_to(folder))
        if path.is_symlink():
            found[name] = f"-> {os.readlink(path)}"
        elif path.is_dir():
            found[name] = "folder"
        else:
            found[name] = path.read_bytes()
    return found


KINDS = ["store", "replay"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_folder_of_the_users_is_refused_and_left_as_it_was(
    store: Path, replay: Path, tmp_path: Path, kind: str
) -> None:
    """The audit's case: a project folder with its own index.html and data/games."""
    proj = tmp_path / "proj"
    (proj / "data" / "games").mkdir(parents=True)
    (proj / "data" / "games" / "notes.txt").write_text("mine")
    (proj / "index.html").write_text("<p>my page</p>")
    before = tree(proj)
    assert_refused(
        report(kind, store, replay, proj),
        f"{proj}: a folder that is not empty, with no .arena-report in it",
    )
    assert tree(proj) == before
    (proj / "index.html").unlink()  # any one file of the user's is enough
    (proj / "data" / "games" / "notes.txt").unlink()
    assert_refused(report(kind, store, replay, proj), "with no .arena-report in it")
    assert tree(proj) == {"data": "folder", "data/games": "folder"}


@pytest.mark.parametrize("kind", KINDS)
def test_a_new_or_empty_folder_is_written_and_marked(
    store: Path, replay: Path, tmp_path: Path, kind: str
) -> None:
    (tmp_path / "empty").mkdir()
    for out in (tmp_path / "new" / "site", tmp_path / "empty"):
        assert report(kind, store, replay, out)[0] == 0
        assert (out / "index.html").is_file()
        assert (out / "data" / "games.js").is_file()
        assert (out / MARK).read_text().startswith("arena report\n")


def test_report_writes_its_own_site_again(store: Path, replay: Path, tmp_path: Path) -> None:
    """The normal use: one folder, written again and again as the league goes on. The
    data files of the site before are replaced (a stale one of a bigger league is
    gone), files of anyone else's name kept; a replay's site and a league's can take
    each other's place."""
    site = tmp_path / "site"
    assert run("report", store, "-o", site)[0] == 0
    first = tree(site)
    games = site / "data" / "games"
    (games / "c00099.js").write_text("stale")
    (games / "notes.txt").write_text("mine")
    assert run("report", store, "-o", site)[0] == 0
    assert not (games / "c00099.js").exists()
    assert (games / "notes.txt").read_text() == "mine"
    assert set(tree(site)) == set(first) | {"data/games/notes.txt"}
    assert run("report", "--replay", replay, "-o", site)[0] == 0
    assert sorted(p.name for p in games.iterdir()) == ["game.js", "notes.txt"]
    assert run("report", store, "-o", site)[0] == 0
    assert not (games / "game.js").exists()


def test_no_symbolic_link_is_followed(store: Path, tmp_path: Path) -> None:
    """data/games a link to a folder of the user's: refused, in a folder of the user's
    and in arena's own site alike (rmtree said "Cannot call rmtree on a symbolic
    link", a traceback); a file of the site a link to a file of the user's: the link
    is replaced, and the user's file is not written through it."""
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "c00000.js").write_text("mine")
    (mine / "notes.txt").write_text("mine")
    kept = tree(mine)
    proj = tmp_path / "proj"
    (proj / "data").mkdir(parents=True)
    (proj / "data" / "games").symlink_to(mine)
    assert_refused(run("report", store, "-o", proj), "with no .arena-report in it")
    assert tree(mine) == kept

    site = tmp_path / "site"
    assert run("report", store, "-o", site)[0] == 0
    games = site / "data" / "games"
    for path in games.iterdir():
        path.unlink()
    games.rmdir()
    games.symlink_to(mine)
    assert_refused(run("report", store, "-o", site), f"{games}: not a folder arena report made")
    assert tree(mine) == kept

    games.unlink()
    (site / "index.html").unlink()
    (site / "index.html").symlink_to(mine / "notes.txt")
    (site / "assets" / "app.js").unlink()
    (site / "assets" / "app.js").symlink_to(mine / "c00000.js")
    assert run("report", store, "-o", site)[0] == 0
    assert tree(mine) == kept
    assert not (site / "index.html").is_symlink()
    assert b"<html" in (site / "index.html").read_bytes()


def test_a_folder_that_cannot_be_made_is_refused_in_one_line(store: Path, replay: Path) -> None:
    for kind in KINDS:
        assert_refused(
            report(kind, store, replay, Path("/proc/x/site")),
            "/proc/x/site: cannot write the site: No such file or directory",
        )


def arena(*args: str | Path, limit: int | None = None, prefix: tuple[str, ...] = ()) -> str:
    """Run arena in a process of its own (writing files of at most `limit` bytes, as on
    a disk that fills up: the write then fails with EFBIG, SIGXFSZ ignored); returns
    its stderr, after checking that it refused in one line."""

    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    done = subprocess.run(
        [*prefix, sys.executable, "-m", "arena.cli", *map(str, args)],
        preexec_fn=small_files, capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("arena: error: "), done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    return done.stderr


@pytest.mark.parametrize("kind", KINDS)
def test_a_full_disk_is_refused_in_one_line_and_the_site_written_later(
    store: Path, replay: Path, tmp_path: Path, kind: str
) -> None:
    """A write that fails part way leaves a folder that is arena's (its mark is
    written first): once there is room, arena report writes it."""
    # Room for the mark, and for the store's -shm file (32 KiB, to read it), not for the
    # site's largest file (checked below): a data file of the store's games, or a page's
    # file in the site of one short game.
    limit = 40_000 if kind == "store" else 16_000
    site = tmp_path / "site"
    args: list[str | Path] = (
        ["report", store] if kind == "store" else ["report", "--replay", replay]
    )
    err = arena(*args, "-o", site, limit=limit)
    assert f"{site}: cannot write the site: File too large" in err
    assert (site / MARK).is_file()
    assert report(kind, store, replay, site)[0] == 0
    assert (site / "data" / "games.js").is_file()
    assert max(f.stat().st_size for f in site.rglob("*") if f.is_file()) > limit


@needs_bwrap
def test_a_read_only_folder_is_refused_in_one_line(
    store: Path, replay: Path, tmp_path: Path
) -> None:
    shelf = tmp_path / "shelf"
    (shelf / "site").mkdir(parents=True)
    read_only = ("bwrap", "--bind", "/", "/", "--ro-bind", str(shelf), str(shelf), "--dev",
                 "/dev", "--proc", "/proc")  # fmt: skip
    commands: list[list[str | Path]] = [["report", store], ["report", "--replay", replay]]
    for args in commands:
        for out in (shelf / "site", shelf / "new"):
            err = arena(*args, "-o", out, prefix=read_only)
            assert f"{out}: cannot write the site: Read-only file system" in err
    assert tree(shelf) == {"site": "folder"}
