"""The instant bot of the benchmarks: a raw msgpack bot that answers at once."""

from __future__ import annotations

from pathlib import Path

# An instant bot: decodes each message, answers every act with its first legal action.
SOURCE = r"""
import sys, msgpack
r, w = sys.stdin.buffer, sys.stdout.buffer
while True:
    h = r.read(4)
    if len(h) < 4:
        break
    m = msgpack.unpackb(r.read(int.from_bytes(h, "big")))
    t = m["type"]
    if t == "hello":
        b = msgpack.packb({"type": "hello", "name": "instant", "version": "1", "protocol": 1})
    elif t == "act":
        b = msgpack.packb({"type": "action", "request_id": m["request_id"], "choice": 0})
    elif t == "bye":
        break
    else:
        continue
    w.write(len(b).to_bytes(4, "big") + b)
    w.flush()
"""


def make_bots(root: Path, count: int, starts: Path | None = None) -> Path:
    """`count` instant bots in root/bots (instant0, instant1, ... zero-padded to the width
    of the largest number); returns that folder. With `starts`, each bot process adds a
    line to that file when it starts (to count the processes started)."""
    bots = root / "bots"
    width = len(str(count - 1))
    source = SOURCE
    if starts is not None:
        source = f"open({str(starts)!r}, 'a').write('.\\n')\n" + SOURCE
    for i in range(count):
        name = f"instant{i:0{width}d}"
        folder = bots / name
        folder.mkdir(parents=True)
        (folder / "bot.py").write_text(source)
        (folder / "bot.toml").write_text(f'name = "{name}"\nrun = "python3 bot.py"\n')
    return bots
