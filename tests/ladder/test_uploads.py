"""Issue 45.6: an upload is a stranger's archive. Each kind of hostile one is refused
with a clear reason before anything of it is written, and a good one unpacks whole."""

from __future__ import annotations

import gzip
import io
import tarfile
from pathlib import Path

import pytest

from arena.cluster._bundles import BundleError, UploadCaps, unpack_upload

from .helpers import member, tarball, with_manifest

CAPS = UploadCaps(bytes=1 << 20, files=20, depth=4)


def test_a_good_upload_unpacks_whole(tmp_path: Path) -> None:
    unpack_upload(with_manifest(member("src/util.py", b"x = 1\n")), tmp_path / "out", CAPS)
    assert (tmp_path / "out" / "bot.toml").is_file()
    assert (tmp_path / "out" / "src" / "util.py").read_text() == "x = 1\n"


def _zeros(size: int) -> bytes:
    """A tar.gz of one file of `size` zero bytes, made without holding it in memory."""
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb") as gz, tarfile.open(fileobj=gz, mode="w|") as tar:
        info = tarfile.TarInfo("bomb")
        info.size = size

        class Zeros(io.RawIOBase):
            left = size

            def readinto(self, b: bytearray) -> int:  # type: ignore[override]
                n = min(len(b), self.left)
                b[:n] = bytes(n)
                self.left -= n
                return n

        tar.addfile(info, Zeros())
    return buffer.getvalue()


HOSTILE = {
    "tar bomb": (lambda: _zeros(1 << 26), "MiB of files once unpacked"),
    "many files": (
        lambda: tarball([member(f"f{i}", b"x") for i in range(50)]),
        "more than 20 files",
    ),
    "deep": (lambda: with_manifest(member("a/b/c/d/e/f.py", b"")), "folders deep"),
    "dot dot": (lambda: with_manifest(member("../x", b"evil")), "leads out of the folder"),
    "absolute": (lambda: with_manifest(member("/tmp/x", b"evil")), "leads out of the folder"),
    "symlink out": (
        lambda: with_manifest(member("x", kind=tarfile.SYMTYPE, linkname="/etc/passwd")),
        "is a link",
    ),
    "hard link": (
        lambda: with_manifest(member("x", kind=tarfile.LNKTYPE, linkname="bot.py")),
        "is a link",
    ),
    "device": (
        lambda: with_manifest(member("dev", kind=tarfile.CHRTYPE, devmajor=1, devminor=3)),
        "special file",
    ),
    "fifo": (lambda: with_manifest(member("pipe", kind=tarfile.FIFOTYPE)), "special file"),
    "not a tar": (lambda: b"this is not an archive", "not a gzipped tar"),
    "empty": (lambda: tarball([]), "empty archive"),
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_hostile_upload_is_refused_and_nothing_is_written(kind: str, tmp_path: Path) -> None:
    make, reason = HOSTILE[kind]
    out = tmp_path / "out"
    with pytest.raises(BundleError, match=reason):
        unpack_upload(make(), out, CAPS)
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []
