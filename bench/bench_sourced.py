"""Benchmark: the cost of the observer's refusal of bytecode caches (`fixbot/observe/sourced.py`).

Run: .venv/bin/python bench/bench_sourced.py [--runs 5] [--python PY]
A real project: fixbot's own tree is copied to a temporary folder (its caches warmed by one
plain run), then two Python processes are timed `--runs` times each, plain and with the hook
added first, alternating: (imports) every module of the `fixbot` package imported (342 files,
~49k lines: each compiled from source under the hook), and (collect) `pytest --collect-only`
of tests/tamper and tests/observe (pytest's rewritten test modules recompiled as well).
Printed: the CPU seconds (user and system) of each process, medians, and the difference.
Results go to docs/SECURITY.md (the control's row).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INSTALL = (
    "import importlib.util as u, sys\n"
    "s = u.spec_from_file_location('sourced', sys.argv[1]); m = u.module_from_spec(s)\n"
    "s.loader.exec_module(m); m.install()\n"
)
IMPORTS = (
    "import importlib, pathlib\n"
    "for p in sorted(pathlib.Path('fixbot').rglob('*.py')):\n"
    "    name = '.'.join(p.with_suffix('').parts).removesuffix('.__init__')\n"
    "    try:\n        importlib.import_module(name)\n    except Exception:\n        pass\n"
)
COLLECT = (
    "import pytest\n"
    "pytest.main(['-q', '--collect-only', '-p', 'no:cacheprovider', '-o', 'addopts=',"
    " 'tests/tamper', 'tests/observe'])\n"
)


def cpu() -> float:
    """The CPU seconds (user and system) of the children waited for so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def once(where: Path, python: str, code: str, hooked: bool) -> float:
    """The CPU seconds of one process running `code` in `where`, the hook added first or not."""
    sourced = str(ROOT / "fixbot" / "observe" / "sourced.py")
    text = (INSTALL if hooked else "") + code
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(where)
    before = cpu()
    subprocess.run(
        [python, "-c", text, sourced], cwd=where, env=env, check=True, capture_output=True
    )
    return cpu() - before


def main() -> None:
    """Time both workloads plain and hooked, alternating, and print the medians."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp) / "tree"
        ignore = shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.pyc", "bench")
        shutil.copytree(ROOT, where, ignore=ignore)
        for name, code in (("imports", IMPORTS), ("collect", COLLECT)):
            once(where, args.python, code, hooked=False)  # warm the caches
            plain, hooked = [], []
            for _ in range(args.runs):
                plain.append(once(where, args.python, code, hooked=False))
                hooked.append(once(where, args.python, code, hooked=True))
            a, b = statistics.median(plain), statistics.median(hooked)
            print(f"{name}: plain {a:.2f} s CPU, hooked {b:.2f} s CPU, +{b - a:.2f} s (median)")


if __name__ == "__main__":
    main()
