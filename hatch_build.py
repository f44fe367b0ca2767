"""Build hook: compiles the referee's C core (arena/referee/_fastcore.c) into the wheel.

The core is optional: where no C compiler is found, or the compile fails, the wheel is
pure Python and the referee plays on the rules engine (`arena.referee._core.PyCore`),
slower but the same. An editable install (make setup) compiles it into the source tree,
where `python hatch_build.py` compiles it again after an edit of the C file (make does
this); until then the referee does not use a core older than its source.

Run as a script: compile into the source tree; exit status 1 if that failed.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
SOURCE = ROOT / "arena" / "referee" / "_fastcore.c"
NAME = "arena/referee/_fastcore" + (sysconfig.get_config_var("EXT_SUFFIX") or ".so")


def compile_core(out: Path) -> str | None:
    """Compile the C core to `out`; None if it worked, otherwise why not."""
    compiler = shlex.split(sysconfig.get_config_var("CC") or "") or ["cc"]
    if shutil.which(compiler[0]) is None:
        return f"no C compiler ({compiler[0]}) found"
    include = sysconfig.get_paths()["include"]
    partial = out.with_name(out.name + ".part")  # then renamed: never a half-written core
    command = [
        *compiler,
        "-O2",
        "-std=c99",
        "-Wall",
        "-shared",
        "-fPIC",
        f"-I{include}",
        str(SOURCE),
        "-o",
        str(partial),
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as err:
        return f"{compiler[0]} could not run: {err}"
    if done.returncode != 0:
        partial.unlink(missing_ok=True)
        return f"{shlex.join(command)} failed:\n{done.stderr.strip()}"
    os.replace(partial, out)
    return None


try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # run as a script, without hatchling
    BuildHookInterface = object  # type: ignore[assignment,misc]


class CustomBuildHook(BuildHookInterface):  # type: ignore[misc,valid-type]
    """Compile the core into the wheel (into the source tree for an editable one)."""

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        if version == "editable":
            out = ROOT / NAME
        else:
            out = Path(tempfile.mkdtemp(prefix="arena-core-")) / Path(NAME).name
        failed = compile_core(out)
        if failed is not None:
            print(
                f"arena: the referee's C core is not built ({failed}); the referee uses"
                " the Python rules engine instead, slower but the same",
                file=sys.stderr,
            )
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        if version != "editable":
            build_data["force_include"][str(out)] = NAME


if __name__ == "__main__":
    problem = compile_core(ROOT / NAME)
    if problem is not None:
        print(f"arena: the referee's C core is not built ({problem})", file=sys.stderr)
        sys.exit(1)
