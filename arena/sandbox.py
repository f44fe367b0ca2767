"""Running untrusted bots under bubblewrap (bwrap).

`bwrap_wrap()` gives a `Wrap` for `start_process`: it rewrites a bot's command line
so that the bot runs in new PID, network, IPC, UTS and cgroup namespaces and sees
only a read-only system runtime, its own submission folder read-only, the Python
that runs arena and the `protocol` package read-only, and a private, size-limited
writable temporary folder (its HOME and TMPDIR, and /tmp).

    bwrap --unshare-pid --unshare-net --unshare-ipc --unshare-uts
          --unshare-cgroup-try --hostname arena --die-with-parent
          [--unshare-user --disable-userns --cap-drop ALL]  (not as root)
          --ro-bind /usr /usr --symlink usr/bin /bin ...    (the runtime)
          --perms 0755 --dir /etc --ro-bind-try /etc/ld.so.cache /etc/ld.so.cache ...
          --proc /proc --dev /dev
          --size BYTES --perms 1777 --tmpfs /tmp
          --size 4096 --perms 0755 --tmpfs /dev/pts          (no ptys)
          --perms 1777 --dir WORKDIR                         (or --symlink /tmp WORKDIR)
          --perms 0755 --dir PARENT ...                      (mount points' parents)
          --ro-bind PREFIX PREFIX ...                        (Python, protocol)
          --ro-bind FOLDER FOLDER                            (the submission)
          --remount-ro / --remount-ro /dev --remount-ro /dev/pts
          --setenv HOME WORKDIR --setenv TMPDIR WORKDIR --chdir FOLDER
          --seccomp FD                                       (the filters, from a memfd)
          -- prlimit --as=N:N --cpu=N:N ...                  (the resource limits)
          -- setpriv --reuid=UID --regid=UID --clear-groups  (as root)
                     --inh-caps=-all --bounding-set=-all --no-new-privs
          -- COMMAND...

When arena runs as root, bwrap runs privileged (it needs no user namespace) and
`setpriv` drops the bot to a uid of its own, drawn at random from a range no real
user has, with no capabilities: RLIMIT_NPROC is not enforced for root, and a uid per
bot process keeps one bot's processes from counting against another's. Run as an
ordinary user, bwrap makes a user namespace and the bot keeps that user's uid.

The resource limits (`arena.bots.Limits`) are set by prlimit (util-linux) inside the
sandbox, before the bot's command runs, so that arena starts bwrap with no code to
run between fork and exec (a vfork, not a copy of arena's memory); without prlimit
they are set in the child before bwrap starts, and hold inside. The bot stays in the
process group arena kills; bwrap's --die-with-parent and the PID namespace take down
whatever is left (a child that left the group too) when bwrap goes.
"""

from __future__ import annotations

import functools
import os
import resource
import secrets
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import protocol
from arena._memgroups import cpu_groups_root, groups_root
from arena._seccomp import (
    allowlist_program,
    chained,
    program_fd,
    userns_filter,
    userns_program,
)
from arena.errors import ConfigError, ManifestError

Wrap = Callable[[list[str], Path, Path | None], list[str]]
"""Rewrites a bot's command line, given the command, its private folder and its
submission folder (None for a bare command line)."""

SANDBOXES = ("bwrap", "none")
"""The values of `--sandbox`."""

TMP_MB = 64
"""Size of a sandboxed bot's private temporary folder, in MiB (a tmpfs, in memory)."""

UID_BASE = 0x70000000
UID_SPAN = 0x0FFE0000
"""Bots in sandboxes started by root get a uid in [UID_BASE, UID_BASE + UID_SPAN): a
range that systemd's uid map (systemd.io/UIDS-GIDS) leaves to no one."""

_SYSTEM_PATH = "/usr/bin:/bin:/usr/sbin:/sbin"

_PRLIMIT_FLAGS = {
    resource.RLIMIT_AS: "--as",
    resource.RLIMIT_CPU: "--cpu",
    resource.RLIMIT_NPROC: "--nproc",
    resource.RLIMIT_FSIZE: "--fsize",
    resource.RLIMIT_NOFILE: "--nofile",
}
"""prlimit's option for each limit a bot gets (`arena.bots.Limits`)."""

_RUNTIME_DIRS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
"""Top-level folders of the system runtime besides /usr (symlinks into it on usrmerge)."""

_ETC = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "alternatives",
    "localtime",
)
"""What of /etc the dynamic loader and interpreters read; nothing else of /etc is seen
(but the JDK's /etc/java-*, which Debian's Java links its settings into)."""

_ETC_NETWORK = ("resolv.conf", "hosts", "nsswitch.conf", "ssl", "ca-certificates")
"""What of /etc a build with network access needs: name resolution and TLS roots."""


def is_root() -> bool:
    return os.geteuid() == 0


def runtime_paths() -> list[Path]:
    """Read-only folders a bot needs besides the system runtime: arena's Python and
    the `protocol` package (never the whole repository around them)."""
    paths = [Path(sys.base_prefix), Path(sys.prefix), Path(protocol.__file__).parent]
    real = Path(os.path.realpath(sys.executable)).parent
    paths.append(real.parent if real.name == "bin" else real)
    return _outermost(p for p in paths if not _under(p, [Path("/usr")]))


def _under(path: Path, roots: Iterable[Path]) -> bool:
    """Whether `path` is one of `roots` or inside one (all absolute and normalised).
    By their parts: walking `path.parents` made a Path per parent, a third of the
    referee's CPU for starting a sandboxed bot."""
    parts = path.parts
    return any(parts[: len(root.parts)] == root.parts for root in roots)


def _outermost(paths: Iterable[Path]) -> list[Path]:
    """Absolute `paths` without duplicates or paths inside another one, parents first."""
    out: list[Path] = []
    for path in sorted({Path(os.path.abspath(p)) for p in paths}, key=lambda p: len(p.parts)):
        if not _under(path, out):
            out.append(path)
    return out


def _named_paths(command: Sequence[str], cwd: Path) -> list[Path]:
    """The files and folders a bare command line names (relative to `cwd`), except /."""
    out = []
    for word in command:
        if word.startswith("-") or not os.path.lexists(cwd / word):
            continue
        path = Path(os.path.abspath(cwd / word))
        if path != Path("/"):
            out.append(path)
    return out


def _runtime_args(*, network: bool = False) -> tuple[list[str], list[Path]]:
    """bwrap arguments for the system runtime, and the paths they make visible."""
    args = ["--ro-bind", "/usr", "/usr"]
    visible = [Path("/usr")]
    for name in _RUNTIME_DIRS:
        path = Path("/") / name
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
            visible.append(path)
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
            visible.append(path)
    args += ["--perms", "0755", "--dir", "/etc"]
    names = [*_ETC, *(p.name for p in Path("/etc").glob("java-*"))]  # the JDK's config
    if network:
        names += _ETC_NETWORK
    for name in names:
        path = Path("/etc") / name
        args += ["--ro-bind-try", str(path), str(path)]
        visible.append(path)
    return args, visible


class _Dirs:
    """Folders made in the sandbox, 0755 (bwrap makes a mount point's parents 0700 as
    root, which the bot's uid could not cross)."""

    def __init__(self, existing: Iterable[Path]) -> None:
        self._made = {Path("/"), *existing}

    def make(self, path: Path) -> list[str]:
        """Arguments that make `path` and its parents, unless they are made already."""
        args = []
        for folder in [*reversed(path.parents), path]:
            if folder not in self._made:
                args += ["--perms", "0755", "--dir", str(folder)]
                self._made.add(folder)
        return args

    def parents_of(self, path: Path) -> list[str]:
        """Arguments that make the parents of `path`, which a mount will then make."""
        args = self.make(path.parent)
        self._made.add(path)
        return args


def _drop_privileges(uid: int) -> list[str]:
    setpriv = shutil.which("setpriv", path=_SYSTEM_PATH) or "setpriv"
    return [
        setpriv,
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--",
    ]


def toolchain_paths() -> list[Path]:
    """Exactly the folders of the build toolchains a sandboxed build sees (read-only):
    each folder on the PATH itself (~/.cargo/bin, never ~/.cargo and its credentials),
    and the roots the toolchains found there run from: rustup's home, pyenv's root,
    Go's root, a JDK, Node's modules (`_toolchain_roots`). Never / , the home folder
    or a folder around it: a build must not read the organiser's files (SSH keys,
    tokens), whoever runs arena."""
    paths = [
        Path(entry)
        for entry in os.environ.get("PATH", "").split(os.pathsep)
        if entry and os.path.isabs(entry) and os.path.isdir(entry)
    ]
    paths += _toolchain_roots()
    home = Path(os.path.realpath(os.path.expanduser("~")))
    out = []
    for path in paths:
        path = Path(os.path.abspath(path))
        real = Path(os.path.realpath(path))
        if any(p in (Path("/"), home) or _under(home, [p]) for p in (path, real)):
            continue  # (a home of "/" leaves nothing out but "/" itself)
        out.append(path)
    return out


def check_apart(bots: Sequence[tuple[str, Path | None, bool]]) -> None:
    """Refuse (ConfigError) a bot folder inside a folder the sandbox shows other bots
    read-only (arena's Python or `protocol`: `runtime_paths`) or other bots' builds
    (the toolchains' folders: `toolchain_paths`, a folder on the PATH among them),
    where one of those bots sits outside it: it, or its build, could read the files.
    (A bot inside such a folder does not see it: `bwrap_wrap` leaves it out.) `bots`:
    each bot's name, its folder (None for a bare command line) and whether it is
    built."""
    bot_reads = "every sandboxed bot reads (arena's Python or protocol)"
    build_reads = "every sandboxed build reads (a toolchain's, on the PATH)"
    shared = [(p, bot_reads, False) for p in runtime_paths()]
    if any(built for _, _, built in bots):
        shared += [(p, build_reads, True) for p in toolchain_paths()]

    def forms(path: Path | None) -> list[Path]:
        return [] if path is None else [Path(os.path.abspath(path)), Path(os.path.realpath(path))]

    placed = [(name, forms(folder), built) for name, folder, built in bots]
    for root, who, builds in shared:
        roots = forms(root)
        inside = {name for name, where, _ in placed if any(_under(f, roots) for f in where)}
        readers = [n for n, _, built in placed if n not in inside and (built or not builds)]
        for name, folder, _ in bots:
            if name in inside and readers:
                raise ConfigError(
                    f"the folder of the bot {name} ({folder}) is inside {root}, which"
                    f" {who}: {readers[0]} could read it; put the submissions elsewhere"
                )


_TOOLS = ("go", "java", "javac", "node", "npm", "python3", "cargo", "rustc")
"""The programs whose roots a build needs besides their folder on the PATH."""


def _toolchain_roots() -> list[Path]:
    """The folders the toolchains on the PATH run from, where they are not /usr."""
    roots = []
    rustup = os.environ.get("RUSTUP_HOME") or os.path.expanduser("~/.rustup")
    if os.path.isdir(rustup):
        roots.append(Path(rustup))
    for name in ("GOROOT", "JAVA_HOME"):
        if os.path.isdir(value := os.environ.get(name, "")):
            roots.append(Path(value))
    for tool in _TOOLS:
        found = shutil.which(tool)
        if found is None:
            continue
        shim = Path(found).parent
        if shim.name == "shims" and (shim.parent / "libexec" / "pyenv").exists():
            roots.append(shim.parent)  # pyenv's root: its shims run its libexec
        real = Path(os.path.realpath(found))
        top = real.parent.parent
        if (top / "src").is_dir() and (top / "pkg").is_dir() and (top / "bin" / "go").exists():
            roots.append(top)  # Go's root
        elif (top / "release").is_file() and (top / "lib").is_dir():
            roots.append(top)  # a JDK
        elif "node_modules" in real.parts:
            roots.append(Path(*real.parts[: real.parts.index("node_modules") + 1]))
        elif tool == "node" and (top / "lib" / "node_modules").is_dir():
            roots.append(top / "lib" / "node_modules")
        roots.append(real.parent)
    return [root for root in roots if not _under(root, [Path("/usr")])]


def build_env() -> dict[str, str]:
    """What of arena's environment a build sees besides PATH, HOME and TMPDIR: where the
    toolchains are (rustup's home, Java's and Go's roots), never secrets."""
    env = {}
    for name in ("RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "JAVA_HOME", "GOROOT"):
        if name in os.environ:
            env[name] = os.environ[name]
    rustup = os.path.expanduser("~/.rustup")
    if "RUSTUP_HOME" not in env and os.path.isdir(rustup):
        env["RUSTUP_HOME"] = rustup
    return env


def bwrap_wrap(
    extra_ro: Sequence[Path] = (),
    *,
    tmp_mb: int = TMP_MB,
    build: bool = False,
    network: bool = False,
) -> _Wrapper:
    """A `Wrap` that runs each bot under bubblewrap (see the module docstring).

    `extra_ro` are more folders the bots may read (an interpreter installed outside
    /usr, say); `tmp_mb` bounds the private temporary folder. The wrap raises
    ManifestError for a program the sandbox would not see.

    With `build`, the wrap is for a bot's build command: its folder is writable and
    the toolchains (`toolchain_paths`) are visible read-only; `network` keeps the
    host's network (for a build that downloads), with what name resolution and TLS
    need of /etc.
    """
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise ConfigError("bubblewrap (bwrap) is not installed")
    if tmp_mb < 1:
        raise ConfigError(f"the sandbox's temporary folder needs at least 1 MiB, not {tmp_mb}")
    runtime, visible = _runtime_args(network=network)
    shared = _outermost([*runtime_paths(), *extra_ro, *(toolchain_paths() if build else [])])
    root = is_root()
    # Under /usr, which every sandbox sees (a /bin outside /usr it may not).
    prlimit = None if build else shutil.which("prlimit", path="/usr/bin:/usr/sbin")

    def wrap(
        command: list[str],
        workdir: Path,
        folder: Path | None,
        rlimits: Sequence[tuple[int, int]] = (),
    ) -> list[str]:
        cwd = folder if folder is not None else Path.cwd()
        # A submission sees its folder; a bare command line sees what its words name.
        own = [folder] if folder is not None else _named_paths(command, cwd)
        # A toolchain folder around the bot's own is left out: the folder is its own
        # bind (writable for its build), not a part of one that others see too.
        around = [p for p in shared if folder is not None and _under(folder, [p])]
        binds = _outermost(
            [
                *(p for p in shared if not _under(p, [*visible, *around])),
                *(p for p in own if not _under(p, visible)),
            ]
        )
        program = command[0]
        seen = [*visible, *binds]
        for path in (Path(program), Path(os.path.realpath(program))):
            if not _under(path, seen):
                raise ManifestError(
                    f"program {program} is outside the sandbox (it sees /usr, arena's Python"
                    " and the bot's folder); install it under /usr or use --sandbox none"
                )
        if root and not build and folder is not None and folder.stat().st_mode & 0o005 != 0o005:
            raise ManifestError(
                f"{folder}: the sandbox runs bots as an anonymous user, so a submission"
                f" folder must be readable by all (chmod -R a+rX {folder})"
            )
        args = [
            bwrap,
            "--unshare-pid",
            *([] if network else ["--unshare-net"]),
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--hostname",
            "arena",
            "--die-with-parent",
        ]
        if not root:
            args += ["--unshare-user", "--disable-userns", "--cap-drop", "ALL"]
        args += runtime
        args += ["--proc", "/proc", "--dev", "/dev"]
        args += ["--size", str(tmp_mb * 1024 * 1024), "--perms", "1777", "--tmpfs", "/tmp"]
        # No ptys: the kernel counts every devpts's against one limit of the machine's
        # (kernel.pty.max), shown to all (kernel.pty.nr): one bot took every container's,
        # and told a number to another. An empty tmpfs over /dev/pts, read-only below.
        args += ["--size", "4096", "--perms", "0755", "--tmpfs", "/dev/pts"]
        dirs = _Dirs([Path("/etc"), Path("/tmp")])
        # HOME and TMPDIR name `workdir`: inside, it is (or leads to) the private /tmp.
        args += dirs.parents_of(workdir)
        if Path("/tmp") in workdir.parents:
            args += ["--perms", "1777", "--dir", str(workdir)]
        else:
            args += ["--symlink", "/tmp", str(workdir)]
        # After /tmp, so that folders under /tmp show through it.
        for path in binds:
            args += dirs.parents_of(path)
            writable = build and folder is not None and path == folder
            args += ["--bind" if writable else "--ro-bind", str(path), str(path)]
        if not _under(cwd, seen):
            args += dirs.make(cwd)
        # Nothing else is writable: not the root, /etc or /dev (tmpfs without a size).
        args += ["--remount-ro", "/", "--remount-ro", "/dev", "--remount-ro", "/dev/pts"]
        args += ["--setenv", "HOME", str(workdir), "--setenv", "TMPDIR", str(workdir)]
        args += ["--chdir", str(cwd), "--"]
        if rlimits:
            assert prlimit is not None  # only `with_rlimits` passes them, and only with it
            args += [prlimit, *(f"{_PRLIMIT_FLAGS[which]}={v}:{v}" for which, v in rlimits), "--"]
        if root:
            uid = folder.stat().st_uid if build and folder is not None else None
            args += _drop_privileges(uid if uid else UID_BASE + secrets.randbelow(UID_SPAN))
        return args + command

    # A bot's processes in its games get the allow-list (`arena._syscalls`); a build
    # gets none (its tools lock their files, and it plays no game). As root, bwrap
    # installs the user-namespace filter in a bot with it, and a build's child
    # installs it itself.
    if build:
        return _Wrapper(wrap, userns_filter() if root else None, None, rlimits=False)
    allowlist = allowlist_program()
    program = chained(userns_program() if root else None, allowlist)
    return _Wrapper(
        wrap,
        None,
        program,
        rlimits=prlimit is not None,
        contained=allowlist is not None,
        memory_root=groups_root(),
        cpu_root=cpu_groups_root(),
    )


class _Wrapper:
    """A `Wrap` with what the child process must do before it runs bwrap (for a build
    as root: install the filter that denies new user namespaces, `arena._seccomp`) and
    the seccomp program bwrap installs in the bot (the allow-list, and as root the
    user-namespace filter chained before it)."""

    def __init__(
        self,
        wrap: Callable[..., list[str]],
        preexec: Callable[[], None] | None,
        seccomp: bytes | None = None,
        *,
        rlimits: bool,
        contained: bool = False,
        memory_root: Path | None = None,
        cpu_root: Path | None = None,
    ) -> None:
        self._wrap = wrap
        self.memory_root = memory_root
        """Where each bot process gets a memory group of its own, all its processes
        sharing the memory limit (`arena._memgroups`); None where arena cannot."""
        self.cpu_root = cpu_root
        """Where each bot process gets a cpu group of its own, all its processes sharing
        one bot's share of the CPU (`arena._memgroups`); None where arena cannot."""
        self.contained = contained
        """Its bots may be stopped between their turns (SPEC §8.5): bubblewrap kills
        every process of the sandbox, stopped or not, if arena dies, and the
        allow-list keeps them in their process group."""
        self.preexec = preexec
        self.seccomp = seccomp
        """For `--seccomp FD`: whoever starts the command passes it a descriptor that
        reads this program (`with_seccomp`)."""
        self.with_rlimits = self._with_rlimits if rlimits else None
        """None, or the command line (as `__call__`) that also sets the bot's resource
        limits ((RLIMIT_*, value) pairs), by prlimit in the sandbox: then the process
        that runs bwrap needs no code between fork and exec, and starts without a copy
        of arena's memory (vfork)."""

    def __call__(self, command: list[str], workdir: Path, folder: Path | None) -> list[str]:
        return self._wrap(command, workdir, folder)

    def _with_rlimits(
        self,
        command: list[str],
        workdir: Path,
        folder: Path | None,
        rlimits: Sequence[tuple[int, int]],
    ) -> list[str]:
        return self._wrap(command, workdir, folder, rlimits)

    def with_seccomp(self, args: list[str]) -> tuple[list[str], tuple[int, ...]]:
        """`args`, a command line of this wrap, with bwrap reading the bot's seccomp
        program from a descriptor, and the descriptor, for the process to inherit (the
        caller closes it once the process has started); without a program, `args` and
        no descriptor."""
        if self.seccomp is None:
            return args, ()
        fd = program_fd(self.seccomp)
        return [args[0], "--seccomp", str(fd), *args[1:]], (fd,)


@functools.cache
def bwrap_problem() -> str | None:
    """Why bubblewrap cannot sandbox bots here, or None when it works.

    bwrap can be installed and still fail (in a container without the privileges to
    make namespaces), so this runs `true` once under the same flags the bots get.
    """
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed"
    if is_root() and shutil.which("setpriv", path=_SYSTEM_PATH) is None:
        return "setpriv (util-linux) is needed to run bots as another user"
    true = shutil.which("true") or "/bin/true"
    with tempfile.TemporaryDirectory(prefix="arena-bwrap-check-") as tmp:
        folder = Path(tmp) / "bot"
        workdir = Path(tmp) / "home"
        folder.mkdir()
        workdir.mkdir()
        try:
            wrap = bwrap_wrap()
            # bwrap must take the bots' seccomp program too, and prlimit set a limit.
            if wrap.with_rlimits is None:
                command = wrap([true], workdir, folder)
            else:
                fsize = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
                limit = 1 << 40 if fsize == resource.RLIM_INFINITY else fsize
                command = wrap.with_rlimits(
                    [true], workdir, folder, [(resource.RLIMIT_FSIZE, limit)]
                )
            command, fds = wrap.with_seccomp(command)
            try:
                done = subprocess.run(
                    command, capture_output=True, timeout=30, check=False, pass_fds=fds
                )
            finally:
                for fd in fds:
                    os.close(fd)
        except (OSError, subprocess.TimeoutExpired, ManifestError, ConfigError) as err:
            return f"bwrap failed: {err}"
    if done.returncode != 0:
        reason = done.stderr.decode(errors="replace").strip().splitlines()
        return f"bwrap failed: {reason[-1] if reason else f'exit status {done.returncode}'}"
    return None


def bwrap_works() -> bool:
    """True if bubblewrap can sandbox bots on this machine (checked once)."""
    return bwrap_problem() is None


def resolve_sandbox(requested: str | None) -> tuple[str, str | None]:
    """The sandbox to use for `--sandbox requested`, and a warning to show, if any.

    None (not given) means bwrap where it works, otherwise none with a warning;
    an explicit "bwrap" that does not work is a ConfigError.
    """
    if requested == "none":
        return "none", None
    if requested not in (None, "bwrap"):
        raise ConfigError(f"unknown sandbox {requested!r}: choose one of {', '.join(SANDBOXES)}")
    problem = bwrap_problem()
    if problem is None:
        return "bwrap", None
    if requested == "bwrap":
        raise ConfigError(f"--sandbox bwrap: {problem}")
    return "none", (
        f"warning: bots run WITHOUT a sandbox ({problem}); they can read and write"
        " whatever arena can. Install bubblewrap or pass --sandbox none to silence this."
    )


def wrap_for(sandbox: str) -> Wrap | None:
    """The wrap of the sandbox named `sandbox` (one of `SANDBOXES`): `bwrap_wrap()` for
    "bwrap", None for "none"; raises ConfigError for another name. Settings that cross
    between processes name their sandbox, and each process builds its wrap here."""
    if sandbox not in SANDBOXES:
        raise ConfigError(f"unknown sandbox {sandbox!r}")
    return bwrap_wrap() if sandbox == "bwrap" else None
