"""Benchmarks for the engine: `fixbot --help` start-up and the loop's own overhead per iteration.

Run: .venv/bin/python bench/bench_engine.py
Targets: `fixbot --help` under 0.3 s; overhead per loop iteration, excluding the check
and the fixer, under 50 ms. Results are written down in bench/README.md.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fixbot.core.settings import Settings
from fixbot.run import engine
from fixbot.run.engine import Agents
from tests.fakes.fixer import ScriptedFixer
from tests.fakes.repo import make_repo

ITERATIONS = 19


def bench_help(runs: int = 10) -> list[float]:
    """Wall seconds of `python -m fixbot --help`, `runs` times (after one warm-up)."""
    times = []
    for i in range(runs + 1):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "fixbot", "--help"], capture_output=True, check=True)
        if i:
            times.append(time.perf_counter() - started)
    return times


def bench_loop() -> tuple[float, int]:
    """Mean seconds of engine overhead per iteration over ITERATIONS failing attempts."""
    with tempfile.TemporaryDirectory() as tmp:
        repo = make_repo(Path(tmp) / "repo", {"value.txt": "0\n", "src.py": "x = 1\n" * 200})
        check = "echo 'FAILED test_v.py::test_v - AssertionError: value'; echo '1 failed'; exit 1"
        counter = iter(range(10**6))
        fixer = ScriptedFixer().enqueue(lambda root: {"value.txt": f"{next(counter)}\n"})
        settings = Settings(
            check=check, max_attempts=ITERATIONS, circuit_breaker=ITERATIONS + 1, run_as="self"
        )
        started = time.perf_counter()
        _, state = engine.run(settings, repo, env=dict(os.environ), agents=Agents(fixer))
        wall = time.perf_counter() - started
    spent = sum(a.check_duration_s + a.fix_duration_s for a in state.attempts)
    iterations = len(state.attempts)
    return (wall - spent) / iterations, iterations


def main() -> None:
    """Print the figures as a markdown table."""
    helps = bench_help()
    overhead, iterations = bench_loop()
    print("| measure | result | target |")
    print("|---|---|---|")
    print(
        f"| `fixbot --help` (median of {len(helps)}) | {statistics.median(helps) * 1000:.0f} ms "
        f"(max {max(helps) * 1000:.0f} ms) | < 300 ms |"
    )
    print(
        f"| loop overhead per iteration ({iterations} iterations) "
        f"| {overhead * 1000:.1f} ms | < 50 ms |"
    )


if __name__ == "__main__":
    main()
