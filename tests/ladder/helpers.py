"""A ladder as a real process on 127.0.0.1, and bundles, good and hostile."""

from __future__ import annotations

import io
import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import time
from pathlib import Path
from typing import Any

from ..processes import dies_with_us

ROOT = Path(__file__).resolve().parents[2]
RANDOM_BOT = ROOT / "example_bots" / "python" / "random"
HEURISTIC_BOT = ROOT / "example_bots" / "python" / "heuristic"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def arena(*args: str, env: dict[str, str] | None = None, check: bool = False) -> Any:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=check,
        timeout=120,
    )


def add_author(store: Path, name: str) -> str:
    done = arena("ladder", "author", "add", name, str(store), check=True)
    return str(done.stdout.strip())


class Server:
    """`arena ladder serve STORE` in a process of its own; its stderr in a file."""

    def __init__(self, store: Path, *extra: str) -> None:
        self.store = store
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = store.with_name(store.name + f".{self.port}.log")
        self._log_file = open(self.log, "w")  # noqa: SIM115 (closed in stop)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "arena", "ladder", "serve", str(store),
             "--port", str(self.port), *extra],
            stdout=subprocess.DEVNULL,
            stderr=self._log_file,
            preexec_fn=dies_with_us(),
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"the ladder ended: {self.log.read_text()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), 1).close()
                return
            except OSError:
                time.sleep(0.1)
        raise AssertionError("the ladder did not listen")

    def logged(self) -> str:
        return self.log.read_text()

    def kill(self) -> None:
        """SIGKILL: nothing of it can clean up."""
        self.process.kill()
        self.process.wait()
        self._log_file.close()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log_file.close()


def bot_folder(tmp: Path, name: str, source: Path = RANDOM_BOT, build: str | None = None) -> Path:
    """A copy of an example bot under `name` (with a build step if given)."""
    folder = tmp / f"{name}-{time.monotonic_ns()}"
    shutil.copytree(source, folder)
    lines = [f'name = "{name}"', 'run = "python3 bot.py"']
    if build:
        lines.append(f'build = "{build}"')
    (folder / "bot.toml").write_text("\n".join(lines) + "\n")
    return folder


def tarball(members: list[tuple[tarfile.TarInfo, bytes | None]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def member(name: str, data: bytes = b"", kind: bytes = tarfile.REGTYPE, **extra: Any) -> Any:
    info = tarfile.TarInfo(name)
    info.type = kind
    if kind == tarfile.REGTYPE:
        info.size = len(data)
    for key, value in extra.items():
        setattr(info, key, value)
    return info, data if kind == tarfile.REGTYPE else None


MANIFEST = b'name = "hostile"\nrun = "python3 bot.py"\n'


def with_manifest(*members: Any) -> bytes:
    return tarball([member("bot.toml", MANIFEST), member("bot.py", b"pass\n"), *members])


def wait_until(check: Any, seconds: float, what: str = "") -> Any:
    """What `check()` returns once it is true, asked every 0.3 s for up to `seconds`
    (then AssertionError, naming `what`)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what or check}")


def stalled_post(path: str, headers: list[tuple[bytes, bytes]], first: bytes) -> Any:
    """A POST to the ladder's `path` (a starlette Request) whose client sends `first`
    of its body and then nothing, its connection held open."""
    import trio
    from starlette.requests import Request

    parts = [{"type": "http.request", "body": first, "more_body": True}]

    async def receive() -> dict[str, object]:
        if parts:
            return parts.pop()
        await trio.sleep_forever()  # the client stalls, its connection open
        raise AssertionError

    scope = {
        "type": "http", "method": "POST", "path": path, "query_string": b"",
        "headers": headers, "scheme": "http", "server": ("127.0.0.1", 8000),
    }  # fmt: skip
    return Request(scope, receive)


ANSWER_S = 60.0
"""How long a test's request waits for the ladder's answer. No test here is about how
fast it answers, and httpx's default (5 s) was once passed on a busy machine (five
sessions' work and a suite on two cores, a load of 18): the settle test failed with a
ReadTimeout while the ladder was well."""


def get(url: str, **options: Any) -> Any:
    """`httpx.get`, waiting up to `ANSWER_S` unless told otherwise."""
    import httpx

    return httpx.get(url, **{"timeout": ANSWER_S, **options})


def post(url: str, **options: Any) -> Any:
    """`httpx.post`, waiting up to `ANSWER_S` unless told otherwise."""
    import httpx

    return httpx.post(url, **{"timeout": ANSWER_S, **options})
