"""The bwrap command line and the choice of sandbox, without running bwrap."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import arena.sandbox
import protocol
from arena.errors import ConfigError, ManifestError
from arena.sandbox import UID_BASE, UID_SPAN, bwrap_wrap, resolve_sandbox

from .helpers import find_instead, needs_bwrap

needs_binary = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed")

REPO = Path(protocol.__file__).parent.parent


def binds(args: list[str]) -> list[str]:
    """The read-only bind sources of a bwrap command line (what the bot can read)."""
    return [args[i + 1] for i, a in enumerate(args) if a in ("--ro-bind", "--ro-bind-try")]


def bwrap_part(args: list[str]) -> list[str]:
    return args[: args.index("--")]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    bot = tmp_path / "bots" / "alice"
    bot.mkdir(parents=True)
    (bot / "bot.py").write_text("")
    return bot


@needs_binary
def test_namespaces_and_the_submission_folder(folder: Path) -> None:
    args = bwrap_wrap()([sys.executable, "bot.py"], Path("/tmp/arena-alice-1"), folder)
    head = bwrap_part(args)
    for flag in ("--unshare-pid", "--unshare-net", "--unshare-ipc", "--die-with-parent"):
        assert flag in head
    # The bot stays in arena's process group, which is what arena kills.
    assert "--new-session" not in head
    assert args[-2:] == [sys.executable, "bot.py"]
    assert head[head.index("--chdir") + 1] == str(folder)
    assert str(folder) in binds(head)
    assert "--bind" not in head  # nothing of the host is writable


@needs_binary
def test_only_the_protocol_package_of_the_repository_is_seen(folder: Path) -> None:
    args = bwrap_wrap()([sys.executable, "bot.py"], Path("/tmp/arena-alice-1"), folder)
    seen = binds(bwrap_part(args))
    assert str(Path(protocol.__file__).parent) in seen
    assert str(Path(sys.base_prefix)) in seen or sys.base_prefix.startswith("/usr")
    # Not the repository, not the folder holding the submissions, not the home.
    for hidden in (REPO, folder.parent, Path.home(), Path("/")):
        assert str(hidden) not in seen
    assert not {"/etc", "/etc/passwd", "/etc/shadow", "/home", "/root", "/run"} & set(seen)


@needs_binary
def test_the_private_folder_is_a_sized_tmpfs_mounted_before_the_binds(folder: Path) -> None:
    head = bwrap_part(bwrap_wrap(tmp_mb=8)([sys.executable], Path("/tmp/arena-a-1"), folder))
    tmpfs = head.index("--tmpfs")
    assert head[tmpfs + 1] == "/tmp"
    assert head[head.index("--size") + 1] == str(8 * 1024 * 1024)
    # Bound after the tmpfs, a submission under /tmp shows through it.
    assert head.index(str(folder)) > tmpfs
    assert head[head.index("--dir", tmpfs) + 1] == "/tmp/arena-a-1"
    setenv = [head[i + 1 : i + 3] for i, a in enumerate(head) if a == "--setenv"]
    assert setenv == [["HOME", "/tmp/arena-a-1"], ["TMPDIR", "/tmp/arena-a-1"]]


@needs_binary
def test_a_private_folder_outside_tmp_leads_to_it(folder: Path) -> None:
    head = bwrap_part(bwrap_wrap()([sys.executable], Path("/var/lib/arena/w-1"), folder))
    i = head.index("--symlink", head.index("--tmpfs"))
    assert head[i + 1 : i + 3] == ["/tmp", "/var/lib/arena/w-1"]


@needs_binary
def test_the_rest_of_the_sandbox_is_read_only(folder: Path) -> None:
    head = bwrap_part(bwrap_wrap()([sys.executable], Path("/tmp/w"), folder))
    remounts = [head[i + 1] for i, a in enumerate(head) if a == "--remount-ro"]
    assert remounts == ["/", "/dev", "/dev/pts"]


@needs_binary
@pytest.mark.skipif(os.geteuid() != 0, reason="arena drops root only when it runs as root")
def test_as_root_each_bot_process_gets_an_unprivileged_uid_of_its_own(folder: Path) -> None:
    wrap = bwrap_wrap()
    uids = set()
    for _ in range(2):
        args = wrap([sys.executable, "bot.py"], Path("/tmp/w"), folder)
        drop = args[args.index("--") + 1 : args.index("--", args.index("--") + 1)]
        assert Path(drop[0]).name == "setpriv"
        assert {"--clear-groups", "--inh-caps=-all", "--bounding-set=-all"} <= set(drop)
        uid = int(drop[1].removeprefix("--reuid="))
        assert drop[2] == f"--regid={uid}"
        assert UID_BASE <= uid < UID_BASE + UID_SPAN
        uids.add(uid)
    assert len(uids) == 2


@needs_binary
@pytest.mark.skipif(os.geteuid() != 0, reason="only the anonymous uid needs it")
def test_as_root_a_folder_others_cannot_read_is_refused(folder: Path) -> None:
    folder.chmod(0o700)
    with pytest.raises(ManifestError, match="readable by all"):
        bwrap_wrap()([sys.executable, "bot.py"], Path("/tmp/w"), folder)


@needs_binary
def test_a_program_the_sandbox_would_not_see_is_refused(folder: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere" / "prog"
    with pytest.raises(ManifestError, match="outside the sandbox"):
        bwrap_wrap()([str(elsewhere)], Path("/tmp/w"), folder)
    # extra_ro makes it visible.
    bwrap_wrap([elsewhere.parent])([str(elsewhere)], Path("/tmp/w"), folder)


@needs_binary
def test_a_bare_command_line_sees_the_files_it_names_not_the_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "mybot.py").write_text("")
    (tmp_path / "other-bot.py").write_text("")
    monkeypatch.chdir(tmp_path)
    command = [sys.executable, "mybot.py", "--level", "3", "not-a-file"]
    head = bwrap_part(bwrap_wrap()(command, Path("/tmp/w"), None))
    seen = binds(head)
    assert str(tmp_path / "mybot.py") in seen
    assert str(tmp_path) not in seen
    assert head[head.index("--chdir") + 1] == str(tmp_path)


def test_resolve_sandbox_where_bwrap_works(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(arena.sandbox, "bwrap_problem", lambda: None)
    assert resolve_sandbox(None) == ("bwrap", None)
    assert resolve_sandbox("bwrap") == ("bwrap", None)
    assert resolve_sandbox("none") == ("none", None)


def test_resolve_sandbox_where_bwrap_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(arena.sandbox, "bwrap_problem", lambda: "bwrap failed: no namespaces")
    mode, warning = resolve_sandbox(None)
    assert mode == "none"
    assert warning is not None
    assert "WITHOUT a sandbox" in warning
    assert "no namespaces" in warning
    assert resolve_sandbox("none") == ("none", None)
    with pytest.raises(ConfigError, match="--sandbox bwrap: bwrap failed: no namespaces"):
        resolve_sandbox("bwrap")
    with pytest.raises(ConfigError, match="unknown sandbox"):
        resolve_sandbox("docker")


@given(
    st.lists(st.sampled_from(["usr", "us", "usrx", "lib", "a", "a.b", ".venv"]), max_size=4),
    st.lists(
        st.lists(st.sampled_from(["usr", "us", "usrx", "lib", "a", "a.b"]), max_size=3),
        max_size=4,
    ),
)
def test_a_path_is_under_a_root_exactly_when_it_is_one_or_inside_one(
    parts: list[str], roots: list[list[str]]
) -> None:
    """What the sandbox shows and refuses rests on `_under`: `/usrx` is not under `/usr`,
    `/usr/lib` is, and so is `/usr` itself."""
    path = Path("/", *parts)
    bases = [Path("/", *r) for r in roots]
    expected = any(path == base or base in path.parents for base in bases)
    assert arena.sandbox._under(path, bases) is expected


@needs_bwrap
def test_the_check_of_bubblewrap_tries_the_limits_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """A prlimit that cannot run in the sandbox would fail every bot's start: the
    check that picks the default sandbox runs it, and says bwrap fails."""
    find_instead(monkeypatch, "prlimit", "/usr/bin/false")
    arena.sandbox.bwrap_problem.cache_clear()
    try:
        problem = arena.sandbox.bwrap_problem()
    finally:
        arena.sandbox.bwrap_problem.cache_clear()
    assert problem == "bwrap failed: exit status 1"


@needs_binary
@pytest.mark.skipif(os.geteuid() != 0, reason="only the anonymous uid needs it")
def test_as_root_a_folder_others_can_read_but_not_enter_is_refused(folder: Path) -> None:
    """o+r without o+x: the bot could list its folder and open nothing in it (it would
    crash at its start, charged to the bot, where the organiser's chmod is at fault)."""
    folder.chmod(0o754)
    with pytest.raises(ManifestError, match="readable by all"):
        bwrap_wrap()([sys.executable, "bot.py"], Path("/tmp/w"), folder)


@needs_binary
def test_a_program_linked_to_a_file_the_sandbox_would_not_see_is_refused(
    folder: Path, tmp_path: Path
) -> None:
    """The link is in the bot's folder, what it names is not: bwrap could not run it."""
    elsewhere = tmp_path / "elsewhere" / "prog"
    elsewhere.parent.mkdir()
    elsewhere.write_text("")
    (folder / "prog").symlink_to(elsewhere)
    with pytest.raises(ManifestError, match="outside the sandbox"):
        bwrap_wrap()([str(folder / "prog")], Path("/tmp/w"), folder)


@needs_binary
def test_a_bare_command_line_naming_the_root_does_not_show_the_whole_host(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "mybot.py").write_text("")
    monkeypatch.chdir(tmp_path)
    head = bwrap_part(
        bwrap_wrap()([sys.executable, "mybot.py", "--root", "/"], Path("/tmp/w"), None)
    )
    assert "/" not in binds(head)
    assert str(tmp_path / "mybot.py") in binds(head)


@needs_binary
def test_a_builds_folder_inside_a_toolchain_folder_is_its_own_writable_bind(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A submission under a folder on the PATH: the toolchain folder around it is left
    out (it holds the other submissions), and the folder is still bound, by itself,
    writable. It was left out with the folder around it: the build ran in an empty
    folder and failed, and its bot was left out of the league."""
    monkeypatch.setenv("PATH", f"{folder.parent}{os.pathsep}{os.environ['PATH']}")
    head = bwrap_part(bwrap_wrap(build=True)([sys.executable], Path("/tmp/w"), folder))
    assert str(folder.parent) not in binds(head)
    at = head.index(str(folder))
    assert head[at - 1 : at + 2] == ["--bind", str(folder), str(folder)]
