"""Bot folders and a scripted game runner for the SPRT's tests."""

from __future__ import annotations

from pathlib import Path

from arena.bots import BotSpec, load_manifest

ROOT = Path(__file__).resolve().parents[2]


def bot_folder(root: Path, name: str, source: str = "pass\n") -> BotSpec:
    """A bot folder named `name` (with a bot.py of `source`) and its spec."""
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(source)
    (folder / "bot.toml").write_text(f'name = "{name}"\nrun = "python3 bot.py"\n')
    return load_manifest(folder)


def example_bot(root: Path, kind: str, folder_name: str | None = None) -> Path:
    """A copy of example_bots/python/KIND that finds `protocol` in this repository."""
    folder = root / (folder_name or kind)
    folder.mkdir(parents=True)
    source = (ROOT / "example_bots" / "python" / kind / "bot.py").read_text()
    fallback = "os.path.join(here, os.pardir, os.pardir, os.pardir)"  # this repository
    assert fallback in source
    source = source.replace(fallback, repr(str(ROOT)))
    (folder / "bot.py").write_text(source)
    (folder / "bot.toml").write_text(f'name = "{kind}"\nrun = "python3 bot.py"\n')
    return folder


from arena.testing import Rank, ScriptedRunner, by_strength, result  # noqa: E402,F401
