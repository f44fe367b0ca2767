"""What pairing buys `arena sprt` on real bots: the correlation of NEW's and OLD's
scores on one deal, and the games an unpaired test would need for the same
information, as each test's own `pairing` reports them.

NEW and OLD are two copies of one example bot (random, heuristic, or a noisy
heuristic that plays a uniformly random legal action one time in five), against a
field of copies of the random or the heuristic bot, at tables of 2 (also directly,
no field), 4 and 6. Each test plays --pairs pairs with bounds no test reaches, in
real bot processes (no sandbox), and prints its figures.

Usage: python bench/sprt_pairing.py [--pairs N] [-j N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

NOISE = """
import random as _random
_noise = _random.Random()
_choose = Heuristic.choose


def _noisy(self, act):
    if _noise.random() < 0.2:
        return _noise.randrange(len(act["legal"]))
    return _choose(self, act)


Heuristic.choose = _noisy
"""


def bot(root: Path, kind: str, name: str) -> Path:
    """A copy of example_bots/python/KIND (or the noisy heuristic) that finds
    `protocol` in this repository."""
    source_kind = "heuristic" if kind == "noisy" else kind
    source = (ROOT / "example_bots" / "python" / source_kind / "bot.py").read_text()
    source = source.replace("os.path.join(here, os.pardir, os.pardir, os.pardir)", repr(str(ROOT)))
    if kind == "noisy":
        main = 'if __name__ == "__main__":'
        source = source.replace(main, NOISE + "\n\n" + main)
    folder = root / name
    folder.mkdir()
    (folder / "bot.py").write_text(source)
    (folder / "bot.toml").write_text(f'name = "{name}"\nrun = "python3 bot.py"\n')
    return folder


def test(
    root: Path, kind: str, field: str | None, table: int, pairs: int, jobs: int
) -> dict[str, Any]:
    """One test between two copies of `kind`; its --json result."""
    tag = f"{kind}-{field or 'direct'}-{table}"
    new, old = bot(root, kind, f"{tag}-new"), bot(root, kind, f"{tag}-old")
    fields = [str(bot(root, field, f"{tag}-f{i}")) for i in range(table - 1)] if field else []
    command = [
        sys.executable, "-m", "arena", "sprt", str(new), str(old),
        *(["--field", *fields] if fields else ["--trusted"]),
        "--max-games", str(2 * pairs), "--alpha", "1e-9", "--beta", "1e-9",
        "--store", str(root / f"{tag}.sqlite"), "-j", str(jobs), "--sandbox", "none",
        "--json", "-q",
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{tag}: {done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=300, help="pairs per test")
    parser.add_argument("-j", type=int, default=2, help="games at once")
    args = parser.parse_args()
    print(
        f"arena sprt on real bots: two copies of a bot, {args.pairs} pairs a test; rho: the"
        " correlation of NEW's and OLD's scores on a deal; unpaired: the games an unpaired"
        " test needs for the same information, as a multiple of the paired test's"
    )
    print()
    print(f"{'NEW = OLD':<12}{'field':<11}{'table':>5}{'rho':>8}{'unpaired':>10}{'s':>7}")
    settings: list[tuple[str, str | None, int]]
    settings = [(kind, None, 2) for kind in ("random", "heuristic", "noisy")]
    settings += [
        (kind, field, table)
        for kind in ("random", "heuristic", "noisy")
        for field in ("random", "heuristic")
        for table in (2, 4, 6)
    ]
    with tempfile.TemporaryDirectory() as folder:
        for kind, field, table in settings:
            started = time.perf_counter()
            result = test(Path(folder), kind, field, table, args.pairs, args.j)
            pairing = result["pairing"]
            rho = f"{pairing['correlation']:+.2f}" if pairing else "-"
            factor = (
                f"{1 / pairing['variance_ratio']:.2f}x"
                if pairing and pairing["variance_ratio"] > 0
                else "-"
            )
            print(
                f"{kind:<12}{field or '(direct)':<11}{table:>5}{rho:>8}{factor:>10}"
                f"{time.perf_counter() - started:>7.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
