"""Submissions as bundles: packed once on the coordinator, unpacked and built once per
worker machine, cached by the digest the store records.

A bundle is a gzipped tar of exactly the files `BotSpec.digest` reads (build outputs,
caches and logs left out), so what a worker unpacks hashes to the digest the
coordinator computed: a worker checks that before it builds. The cache is a folder per
digest under `cache_root()`; a digest whose build succeeded has a `DIGEST.ready` file
beside it, and one lock file per digest keeps two worker processes of one machine
from unpacking or building the same submission at once.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import io
import os
import shutil
import stat
import tarfile
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path

from arena.bots import BotSpec, BuildSettings, build
from arena.bots._manifest import _submission_files
from arena.errors import ArenaError, shown

CACHE_ENV = "ARENA_CLUSTER_CACHE"
"""The environment variable that names a worker machine's cache folder."""


class BundleError(ArenaError):
    """A bundle could not be packed, unpacked or checked."""


@dataclasses.dataclass(frozen=True, slots=True)
class WorkerBuild:
    """How a worker builds the bots: the league's build settings (`arena.bots.
    BuildSettings`, declared once), with what a build shares with the games."""

    build: BuildSettings
    sandbox: str
    """The sandbox's name (`arena.sandbox.SANDBOXES`)."""
    log_dir: Path | None = None
    """Where build output goes as well (NAME.log, a path on the worker), or None."""
    log_kb: int = 1024
    """KiB of each build's output kept in its log."""


def pack(spec: BotSpec) -> bytes:
    """The submission of `spec` as a bundle (raises BotError as `BotSpec.digest` does)."""
    if spec.folder is None:
        raise BundleError(f"{spec.name}: a bot without a folder has nothing to ship")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=6) as tar:
        for rel, path, _ in _submission_files(spec.name, spec.folder):
            info = tar.gettarinfo(str(path), arcname=rel)
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            if info.isreg():
                with open(path, "rb") as f:
                    tar.addfile(info, f)
            else:
                tar.addfile(info)
    return buffer.getvalue()


def cache_root() -> Path:
    """This machine's bundle cache: $ARENA_CLUSTER_CACHE, else a folder of this user's
    in the temporary folder (bots must be able to reach it from their sandbox, so not
    under a home folder that other users cannot enter)."""
    given = os.environ.get(CACHE_ENV)
    root = Path(given) if given else Path(tempfile.gettempdir()) / f"arena-cluster-{os.getuid()}"
    root.mkdir(mode=0o755, parents=True, exist_ok=True)
    info = root.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise BundleError(f"{root}: the bot cache is not a folder of this user's; set ${CACHE_ENV}")
    return root


def bot_folder(digest: str) -> Path:
    """Where the submission with `digest` is (or will be) unpacked on this machine."""
    return cache_root() / digest


def is_ready(digest: str) -> bool:
    """The submission with `digest` is unpacked and built here."""
    return (cache_root() / f"{digest}.ready").exists()


def ensure_built(spec: BotSpec, digest: str, bundle: bytes, settings: WorkerBuild) -> Path:
    """The folder of `spec`'s submission on this machine, unpacked from `bundle` and built
    the first time (raises BuildError if the build fails, BotError if its toolchain is
    missing, BundleError if the bundle does not hash to `digest`)."""
    root = cache_root()
    folder = root / digest
    ready = root / f"{digest}.ready"
    if ready.exists():
        return folder
    with _locked(root / f"{digest}.lock"):
        if ready.exists():  # another process did it while we waited
            return folder
        if folder.exists():  # an earlier try that did not finish
            shutil.rmtree(folder)
        _unpack(bundle, folder)
        here = dataclasses.replace(spec, folder=folder)
        found = here.digest()
        if found != digest:
            shutil.rmtree(folder, ignore_errors=True)
            raise BundleError(
                f"{spec.name}: the unpacked submission hashes to {found}, not {digest}"
            )
        log = settings.log_dir / f"{spec.name}.log" if settings.log_dir is not None else None
        build(  # if it fails, the folder stays for a look; the next try starts afresh
            here,
            sandbox=settings.sandbox,
            network=settings.build.build_network,
            timeout=settings.build.build_timeout,
            disk_mb=settings.build.build_disk_mb,
            memory_mb=settings.build.build_memory_mb,
            log_path=log,
            log_kb=settings.log_kb,
        )
        _readable(folder)
        ready.write_text(spec.name + "\n")
    return folder


def _unpack(bundle: bytes, folder: Path) -> None:
    if not hasattr(tarfile, "data_filter"):
        raise BundleError("unpacking submissions safely needs Python 3.11.4 or later")
    folder.mkdir(mode=0o755)
    try:
        with tarfile.open(fileobj=io.BytesIO(bundle), mode="r:gz") as tar:
            tar.extractall(folder, filter="data")
    except (tarfile.TarError, OSError, EOFError) as err:
        raise BundleError(f"cannot unpack a submission into {folder}: {err}") from None
    _readable(folder)


@dataclasses.dataclass(frozen=True, slots=True)
class UploadCaps:
    """What an upload (a bundle from a stranger) may hold at most."""

    bytes: int = 64 << 20
    """Its files' sizes together, unpacked (the compressed upload is capped before)."""
    files: int = 10_000
    """Its members: files, folders and links."""
    depth: int = 32
    """Folders deep."""


HEADER_LIMIT = 1 << 20
"""The most a long name's or a pax header's data may hold: tarfile reads it into memory
whole, before the member it names is seen (a 0.5 MB upload whose long name declared
512 MiB took 4 GB of memory and 23 s to refuse)."""

_HEADERS = frozenset(
    {tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK, tarfile.XHDTYPE, tarfile.XGLTYPE,
     tarfile.SOLARIS_XHDTYPE}
)  # fmt: skip


HEADERS_IN_A_ROW = 8
"""The most long names and pax headers before one member: tarfile reads each by calling
itself for the next, holding every one read so far (a chain of 300 pax headers of 1 MiB,
a 1 MB upload, took 500 MB of memory, and a longer one raised RecursionError)."""


class _BoundedInfo(tarfile.TarInfo):
    """A member header whose long name or pax header is refused past `HEADER_LIMIT`
    before tarfile reads it, and past `HEADERS_IN_A_ROW` of them before one member."""

    def _proc_member(self, archive: tarfile.TarFile) -> tarfile.TarInfo:
        if self.type not in _HEADERS:
            return super()._proc_member(archive)  # type: ignore[misc, no-any-return]
        if self.size > HEADER_LIMIT:
            raise BundleError(
                f"refused: a header of {self.size:,} bytes (a long name or pax header holds"
                f" at most {HEADER_LIMIT // 2**20} MiB)"
            )
        run = getattr(archive, "_headers_in_a_row", 0) + 1
        if run > HEADERS_IN_A_ROW:
            raise BundleError(
                f"refused: more than {HEADERS_IN_A_ROW} long names or pax headers before a member"
            )
        setattr(archive, "_headers_in_a_row", run)  # noqa: B010 (no such attribute in tarfile)
        try:
            return super()._proc_member(archive)  # type: ignore[misc, no-any-return]
        finally:
            setattr(archive, "_headers_in_a_row", run - 1)  # noqa: B010


def unpack_upload(bundle: bytes, folder: Path, caps: UploadCaps = UploadCaps()) -> None:
    """Unpack a stranger's bundle into `folder`, which must not exist yet (it is made).

    Every member is read and judged before anything is written: more members, more
    bytes or deeper paths than `caps` allow (a tar bomb stops at the first member past
    the cap, never decompressed whole), an absolute path or one with "..", a link of
    any kind (a symbolic or hard link could point out, and no bot needs one to ship),
    a device, FIFO or any other special file, a long name or pax header past
    `HEADER_LIMIT` each raise BundleError, and `folder` is then left out (removed).
    What passes is extracted with tarfile's data filter."""
    if not hasattr(tarfile, "data_filter"):
        raise BundleError("unpacking submissions safely needs Python 3.11.4 or later")
    try:
        with tarfile.open(fileobj=io.BytesIO(bundle), mode="r:gz", tarinfo=_BoundedInfo) as tar:
            members = _judged(tar, caps)
            folder.mkdir(mode=0o755, parents=False)
            try:
                tar.extractall(folder, members=members, filter="data")
            except BaseException:
                shutil.rmtree(folder, ignore_errors=True)
                raise
    except tarfile.FilterError as err:
        raise BundleError(f"refused: {err}") from None
    except (ValueError, OverflowError) as err:  # a pax header's mtime of inf, NaN or 1e30
        raise BundleError(f"refused: a member that cannot be unpacked ({err})") from None
    except (tarfile.TarError, EOFError, zlib.error) as err:
        raise BundleError(f"not a gzipped tar archive ({err})") from None
    except OSError as err:
        raise BundleError(f"cannot unpack: {err.strerror or err}") from None
    _readable(folder)


def _judged(tar: tarfile.TarFile, caps: UploadCaps) -> list[tarfile.TarInfo]:
    """`tar`'s members, each checked against `caps` as it is read (see `unpack_upload`)."""
    members: list[tarfile.TarInfo] = []
    total = 0
    while (member := tar.next()) is not None:
        members.append(member)
        if len(members) > caps.files:
            raise BundleError(f"refused: more than {caps.files} files")
        name = member.name
        parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".")]
        if "\0" in name:  # (a pax header's path can hold one; no file name can)
            raise BundleError(f"refused: the path {shown(name)} holds a NUL byte")
        if name.startswith("/") or ".." in parts:
            raise BundleError(f"refused: the path {shown(name)} leads out of the folder")
        if len(parts) > caps.depth:
            raise BundleError(f"refused: {shown(name)} is more than {caps.depth} folders deep")
        if member.issym() or member.islnk():
            raise BundleError(f"refused: {shown(name)} is a link (a submission holds none)")
        if not (member.isreg() or member.isdir()):
            raise BundleError(f"refused: {shown(name)} is a device, FIFO or special file")
        total += member.size
        if total > caps.bytes:
            raise BundleError(
                f"refused: more than {caps.bytes / 2**20:g} MiB of files once unpacked"
            )
    if not members:
        raise BundleError("refused: an empty archive")
    return members


def _readable(folder: Path) -> None:
    """`chmod -R a+rX`: the bots' own uids (as root, under the sandbox) read their folder."""
    for top, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            path = os.path.join(top, name)
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                continue
            extra = stat.S_IRGRP | stat.S_IROTH
            if stat.S_ISDIR(info.st_mode) or info.st_mode & stat.S_IXUSR:
                extra |= stat.S_IXGRP | stat.S_IXOTH
            if info.st_mode & extra != extra:
                os.chmod(path, info.st_mode | extra)
    os.chmod(folder, 0o755)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path` (between processes and threads alike: each
    holder opens the file anew)."""
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
