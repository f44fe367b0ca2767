"""The starter kits: their own test suites, and games among all of them."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

import protocol
from arena.bots import build, load_manifest
from arena.cli import main
from arena.match import run_match, summarize
from arena.referee import Clocks, RunSettings
from arena.rules import Edition, Format, GameConfig
from arena.sandbox import bwrap_problem

pytestmark = pytest.mark.subprocess

ROOT = Path(__file__).resolve().parents[2]
KITS = ROOT / "example_bots"
BOTS = [KITS / "python" / "random", KITS / "python" / "heuristic", KITS / "js", KITS / "c"]
NEW_KITS = ["go", "rust", "java"]
"""Kits built and tested by their own fetch.sh, build.sh and test.sh."""

TOOLCHAIN_PATH = os.pathsep.join(
    [os.environ.get("PATH", ""), "/usr/local/go/bin", str(Path.home() / ".cargo" / "bin")]
)


def _missing() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed (make test installs it)"
    if not Path("/usr/include/msgpack.h").exists():
        return "libmsgpack-dev is not installed (make test installs it)"
    return None


def _kit_missing(kit: str) -> str | None:
    tools = {
        "go": ["go"],
        "rust": ["cargo"],
        "yardstick": ["cargo"],
        "java": ["javac", "mvn", "java"],
    }[kit]
    absent = [t for t in tools if shutil.which(t, path=TOOLCHAIN_PATH) is None]
    if absent:
        return f"the {kit} kit needs {', '.join(absent)} (see example_bots/{kit}/README.md)"
    if not (KITS / kit / ("lib" if kit == "java" else "vendor")).exists():
        return f"example_bots/{kit}/fetch.sh has not run (make test runs it)"
    return None


needs_toolchains = pytest.mark.skipif(_missing() is not None, reason=str(_missing()))
needs_bwrap = pytest.mark.skipif(bwrap_problem() is not None, reason=str(bwrap_problem()))

ALL_KITS = BOTS + [KITS / kit for kit in [*NEW_KITS, "yardstick"] if _kit_missing(kit) is None]
"""Every kit whose toolchain is here, and the yardstick: all eight where `make test`
runs."""


@pytest.mark.parametrize("kit", [*NEW_KITS, "yardstick"])
def test_kit_suite_passes(kit: str) -> None:
    """The Go, Rust and Java kits' own suites (go test, cargo test, JUnit via Maven), and
    the yardstick's (cargo test: its rules against the referee's, its deals, its search)."""
    missing = _kit_missing(kit)
    if missing is not None:
        pytest.skip(missing)
    done = subprocess.run(
        ["./test.sh"],
        cwd=KITS / kit,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PATH": TOOLCHAIN_PATH},
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


KIT_MAX_FRAME = {
    "c": ("protocol.h", r"#define PROTO_DEFAULT_MAX_FRAME (.+)"),
    "go": ("protocol.go", r"const DefaultMaxFrame = (.+)"),
    "java": ("src/main/java/ono/Protocol.java", r"int DEFAULT_MAX_FRAME = (.+);"),
    "js": ("protocol.js", r"export const DEFAULT_MAX_FRAME = (.+);"),
    "rust": ("src/protocol.rs", r"pub const DEFAULT_MAX_FRAME: usize = (.+);"),
}
"""Where each compiled or JS kit states the referee's default limit on a bot's frames."""


@pytest.mark.parametrize("kit", sorted(KIT_MAX_FRAME))
def test_every_kit_knows_the_referees_default_max_frame(kit: str) -> None:
    """SPEC §3.3, §8.1: the referee refuses a bot frame above hello.limits.max_frame,
    4096 bytes by default. The kits' tests read their own bot's frames "as the referee
    does" with this constant: at 1 MiB (the limit before 4 KiB) they passed a bot whose
    frames the referee refuses."""
    source, pattern = KIT_MAX_FRAME[kit]
    match = re.search(pattern, (KITS / kit / source).read_text())
    assert match, f"example_bots/{kit}/{source}: no default max_frame"
    expression = match.group(1).strip()
    assert re.fullmatch(r"[\d\s*()u]+", expression), expression
    value = eval(expression.replace("u", ""))  # digits, *, parentheses: checked above
    assert value == protocol.DEFAULT_MAX_FRAME, f"example_bots/{kit}: {expression}"


@needs_toolchains
def test_c_kit_suite_passes() -> None:
    done = subprocess.run(
        ["make", "-s", "test"], cwd=KITS / "c", capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


@needs_toolchains
def test_js_kit_suite_passes() -> None:
    subprocess.run(["./build.sh"], cwd=KITS / "js", check=True, capture_output=True)
    done = subprocess.run(
        ["npm", "test", "--silent"], cwd=KITS / "js", capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def readme_check_bot_commands(kit: str) -> list[tuple[str, Path]]:
    """The `arena check-bot` lines of a kit's README's sh blocks, each with the folder
    it is run from: the kit's own for a bare command line (`-- ./bot`) or a line that
    says "this folder", the repository root otherwise."""
    text = (KITS / kit / "README.md").read_text()
    commands = []
    for block in re.findall(r"^```sh\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL):
        for line in block.splitlines():
            command, _, comment = line.partition("#")
            if "arena check-bot" not in command:
                continue
            here = " -- " in command or "this folder" in comment
            commands.append((command.strip(), KITS / kit if here else ROOT))
    return commands


@needs_toolchains
@needs_bwrap
@pytest.mark.parametrize("kit", ["c", "js", *NEW_KITS])
def test_the_check_bot_commands_of_a_kits_readme_work_as_written(kit: str) -> None:
    """What a bot author copies from a kit's README passes (`arena` is .venv/bin/arena,
    however the README names it). The JS README showed `.venv/bin/arena check-bot --
    node bot.js` "from this folder": no .venv there, and under the sandbox the bare
    command line sees bot.js but not protocol.js and strategy.js (a start-up crash)."""
    if kit in NEW_KITS and (missing := _kit_missing(kit)) is not None:
        pytest.skip(missing)
    commands = readme_check_bot_commands(kit)
    assert commands, f"example_bots/{kit}/README.md shows no arena check-bot command"
    venv = ROOT / ".venv" / "bin"
    env = {**os.environ, "PATH": os.pathsep.join([str(venv), TOOLCHAIN_PATH])}
    for command, cwd in commands:
        if not (cwd / command.split()[0]).exists() and not command.startswith("arena "):
            pytest.fail(f"{command} (in {cwd.relative_to(ROOT)}): no such program")
        done = subprocess.run(
            command, shell=True, cwd=cwd, env=env, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, f"{command} in {cwd}:\n{done.stdout[-2000:]}{done.stderr}"
        assert re.search(r"\nresult: all \d+ checks passed\n", done.stdout), done.stdout


@needs_toolchains
@pytest.mark.parametrize(
    "config",
    [
        GameConfig(players=4),
        GameConfig(players=4, edition=Edition.E1980, ono_on_tens=True),
        GameConfig(players=4, format=Format.POINTS, target=80),
        GameConfig(players=4, edition=Edition.E1980, format=Format.TOKENS, tokens=1),
    ],
    ids=["2022-single", "1980-single-tens", "2022-points", "1980-tokens"],
)
async def test_every_kit_plays_with_every_other_without_a_fault(config: GameConfig) -> None:
    specs = [load_manifest(path) for path in BOTS]
    for spec in specs:
        build(spec)
    settings = RunSettings(clocks=Clocks(decision_ms=2000, startup_ms=20000))
    results, started = await run_match(specs, config, games=8, seed=3, settings=settings)
    assert [f for r in results for f in r.faults] == []
    assert all(count == 1 for count in started.values())  # one process each, reused
    rows = summarize([s.name for s in specs], results)
    assert all(row.games == 8 for row in rows)
    assert {r.names for r in results} >= {tuple(s.name for s in specs)}  # seats rotated


@needs_toolchains
async def test_heuristic_bots_beat_random() -> None:
    """Each kit's heuristic wins more two-player games against the random bot than it loses."""
    random_bot = load_manifest(KITS / "python" / "random")
    for path in ALL_KITS[1:]:
        spec = load_manifest(path)
        build(spec)
        results, _ = await run_match(
            [spec, random_bot], GameConfig(players=2), games=60, seed=11,
            settings=RunSettings(),
        )  # fmt: skip
        wins = sum(r.outcome.places[r.names.index(spec.name)] == 1 for r in results)
        assert wins > 30, f"{spec.name} won only {wins} of 60 against random"


@needs_toolchains
@needs_bwrap
def test_a_league_of_every_kit_in_the_sandbox_has_no_fault(tmp_path: Path) -> None:
    """Every kit against every other, at tables of 4 with duplicate deals, two games at
    once, builds and bots under bwrap: not one fault (issue 10.3: sandboxed bots used to
    be killed 10 s after they started; issue 11.3: all kits play each other)."""
    store = tmp_path / "league.sqlite"
    result = CliRunner().invoke(
        main,
        ["league", "--bots", str(KITS), "--store", str(store), "--table-size", "4",
         "--games-per-table", "4", "--max-tables", "12", "--seed", "1", "-j", "2",
         "--sandbox", "bwrap",
         "--startup-ms", "20000", "--decision-ms", "2000", "--log-dir", str(tmp_path / "logs"),
         "--progress", "quiet"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    with contextlib.closing(sqlite3.connect(store)) as db:
        bots = {b for (b,) in db.execute("SELECT DISTINCT bot FROM seats")}
        causes = [c for (c,) in db.execute("SELECT cause FROM seats WHERE cause IS NOT NULL")]
        games = db.execute("SELECT count(*) FROM games").fetchone()[0]
    assert bots == {load_manifest(path).name for path in ALL_KITS}
    assert games >= 40
    assert not set(causes) & {"timeout", "crash", "malformed", "illegal", "forfeit"}, causes


def _classes_loaded(command: tuple[str, ...], frames: bytes) -> set[str]:
    """The classes the Java kit's JVM loads for a session of `frames` (hidden classes,
    whose names carry an address, left out)."""
    logged = (command[0], "-Xlog:class+load=info:stderr", *command[1:])
    done = subprocess.run(
        logged, cwd=KITS / "java", input=frames, capture_output=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    names = re.findall(rb"\[class,load\] (\S+)", done.stderr)
    return {n.decode() for n in names if b"/0x" not in n}


@pytest.mark.skipif(_kit_missing("java") is not None, reason=str(_kit_missing("java")))
def test_a_fresh_java_kit_has_loaded_all_an_act_needs_before_its_hello() -> None:
    """A fresh JVM answered its first act in about 25 ms (against under 5 for every other
    kit): it loaded some 270 classes there (lambdas, records, Formatter). At a 20 ms clock
    with no grace, or 10 ms with 5 (SPEC §8.1, §8.3), that was a timeout in every game a
    fresh process played: after each timeout, and with --fresh-process. The kit plays a
    made-up session before its hello (start-up has 10 s, SPEC §8.4), so a golden session
    (every edition and format, a quad, a bust) loads nothing the start-up has not."""
    spec = load_manifest(KITS / "java")
    build(spec)
    vectors = ROOT / "protocol" / "vectors"

    def frames(*names: str) -> bytes:
        return b"".join((vectors / f"{n}.bin").read_bytes() for n in names)

    at_hello = _classes_loaded(spec.command, frames("referee_hello"))
    session = frames(
        "referee_hello",
        "game_start_1980_points", "act_1980_points_bust", "game_over_1980_points_ties",
        "game_start_2022_tokens", "act_2022_tokens_quad", "game_over_2022_tokens",
        "game_start_2022_single", "act_2022_single", "act_2022_single_owes_two",
        "game_over_2022_single", "bye",
    )  # fmt: skip
    assert sorted(_classes_loaded(spec.command, session) - at_hello) == []


@pytest.mark.skipif(_kit_missing("java") is not None, reason=str(_kit_missing("java")))
def test_a_java_kit_short_of_memory_says_so_on_stderr_and_crashes() -> None:
    """Found in an audit: a JVM that cannot reserve its heap (here under a 300 MiB address
    space) printed its error to stdout, so the bot was charged malformed for "text on
    stdout", and a JVM crash wrote an hs_err file into the bot's folder. The kit sends the
    JVM's own messages to stderr: a crash, whose message holds the JVM's words."""
    java = KITS / "java"
    before = set(java.iterdir())
    result = CliRunner().invoke(main, [
        "match", str(java), str(KITS / "python" / "random"), "-n", "1", "--memory-mb", "300",
        "--sandbox", "none", "--no-logs",
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "[java-heuristic: crash]" in result.stderr, result.stderr
    assert "Could not reserve enough space" in result.stderr
    assert set(java.iterdir()) == before  # no hs_err file
