"""The system calls each example bot makes in the sandbox (issue 40.2): the evidence
behind the allow-list of `arena._syscalls`.

Runs `arena check-bot --sandbox bwrap` (every configuration, some fifteen games) on each kit,
with bwrap itself run under `strace -f`, and reads from the trace every system call
made by a process under the seccomp program: bwrap's child from the moment it installs
the program (then prlimit, setpriv as root, and the bot's command: what they exec and
the dynamic loader included), the sandbox's init, and every process they start. It
prints, per kit, the calls made and how many times, and the calls the allow-list
refuses (with what they returned); `--all` prints the union.

Usage: python bench/syscalls.py [--all] [KIT ...]   (as root or not; needs strace)
"""

from __future__ import annotations

import argparse
import collections
import re
import shutil
import sys
import tempfile
from pathlib import Path

from click.testing import CliRunner

import arena.sandbox
from arena._syscalls import ALLOW, verdict
from arena.cli import main

ROOT = Path(__file__).resolve().parents[1]
KITS = ["python/random", "python/heuristic", "c", "js", "go", "rust", "java"]

_LINE = re.compile(r"^(\d+) +(?:<\.\.\. (\w+) resumed>|(\w+)\()(.*)$")
_RESULT = re.compile(r"= (-?\d+|\?|0x[0-9a-f]+)(?: (E[A-Z0-9]+))?")
_INSTALL = re.compile(
    r"prctl\(PR_SET_SECCOMP, SECCOMP_MODE_FILTER|seccomp\(SECCOMP_SET_MODE_FILTER"
)


def trace_calls(trace: Path) -> dict[str, collections.Counter[str]]:
    """Per system call made under the program, how often it returned what ("ok" or
    an errno's name).

    strace names a process by its pid outside the sandbox, and a clone's result by the
    pid inside: so a process is judged by its own lines. The first one (bwrap outside)
    is never filtered; one that installs the program is filtered from then on (bwrap's
    child, the sandbox's init); any other was started by a filtered one."""
    lines = []
    installs: dict[int, int] = {}
    for line in trace.read_text(errors="replace").splitlines():
        if (match := _LINE.match(line)) is None:
            continue
        pid = int(match[1])
        lines.append((pid, match[2] or match[3], match[4]))
        if _INSTALL.search(line) and pid not in installs:
            installs[pid] = len(lines) - 1
    calls: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    first = lines[0][0] if lines else None
    for at, (pid, name, rest) in enumerate(lines):
        if pid == first or at < installs.get(pid, 0):
            continue
        if "<unfinished ...>" in rest:
            continue  # counted where it resumes
        result = _RESULT.match(rest[rest.rfind(" = ") + 1 :])
        calls[name]["ok" if result is None or result[2] is None else result[2]] += 1
    return calls


def run_kit(kit: str, trace_dir: Path) -> dict[str, collections.Counter[str]]:
    strace = shutil.which("strace")
    assert strace is not None, "strace is not installed"
    traces: list[Path] = []
    original = arena.sandbox._Wrapper.with_seccomp

    def traced(self: arena.sandbox._Wrapper, args: list[str]) -> tuple[list[str], tuple[int, ...]]:
        command, fds = original(self, args)
        path = trace_dir / f"{kit.replace('/', '-')}-{len(traces)}.trace"
        traces.append(path)
        return [strace, "-f", "-qq", "-o", str(path), *command], fds

    arena.sandbox._Wrapper.with_seccomp = traced  # type: ignore[method-assign]
    try:
        result = CliRunner().invoke(
            main,
            ["check-bot", "--sandbox", "bwrap", "--startup-ms", "30000", "--decision-ms",
             "5000", "--hello-wait-ms", "0", "--", str(ROOT / "example_bots" / kit)],
        )  # fmt: skip
    finally:
        arena.sandbox._Wrapper.with_seccomp = original  # type: ignore[method-assign]
    if result.exit_code != 0:
        print(f"{kit}: check-bot failed\n{result.output}", file=sys.stderr)
    calls: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for path in traces:
        for name, outcomes in trace_calls(path).items():
            calls[name].update(outcomes)
    return calls


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kits", nargs="*", default=KITS)
    parser.add_argument("--all", action="store_true", help="print the union too")
    options = parser.parse_args()
    union: dict[str, set[str]] = collections.defaultdict(set)
    with tempfile.TemporaryDirectory(prefix="arena-syscalls-") as tmp:
        for kit in options.kits:
            calls = run_kit(kit, Path(tmp))
            names = sorted(calls)
            print(f"{kit}: {len(names)} calls")
            print("  " + " ".join(names))
            judged = {
                name: dict(outcomes) for name, outcomes in calls.items() if verdict(name) != ALLOW
            }
            if judged:
                print(f"  judged or refused by the allow-list (what they returned): {judged}")
            for name in names:
                union[name].add(kit)
    if options.all:
        print(f"union: {len(union)} calls")
        print("  " + " ".join(sorted(union)))


if __name__ == "__main__":
    main_()
