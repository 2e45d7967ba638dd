"""Benchmark: the time the boundary adds to one project command (issue 21).

Run: .venv/bin/python bench/bench_boundary.py [--runs 100]
Runs `true` through fixbot's launcher (`fixbot.process.launcher.Launcher`, the one way a check,
set-up or fix command runs) in a fresh git repository: first through `spawn.run_command` alone
(the baseline, no boundary), then without the PID namespace
(the marked sweep after the command), with it (`unshare --pid --fork --kill-child
--mount-proc`), and, as root, both again as the unprivileged user `nobody` (the container's
boundary: the work tree's files handed over before each command; the PID namespace inside a
user namespace). Prints the median and the 90th percentile of each, in milliseconds, as JSON.
Target: the namespace adds under 20 ms per command. Results are written down in bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fixbot.core.models import CheckResult  # noqa: E402
from fixbot.process import sandbox, spawn  # noqa: E402
from fixbot.process.launcher import Launcher  # noqa: E402


class Bare:
    """The baseline: `spawn.run_command` alone (process group, no namespace, no sweep)."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env

    def run(self, command: str, cwd: Path, log: Path, timeout: float) -> CheckResult:
        return spawn.run_command(command, cwd, log, timeout, env=self.env)


def timed(launcher: Launcher | Bare, repo: Path, runs: int) -> dict[str, float]:
    """Median and 90th percentile (ms) of `runs` runs of `true` through `launcher`."""
    samples = []
    for n in range(runs):
        start = time.perf_counter()
        result = launcher.run("true", repo, repo.parent / f"log{n % 2}", 30)
        samples.append((time.perf_counter() - start) * 1000)
        assert result.exit_code == 0, (repo.parent / f"log{n % 2}").read_text()
    samples.sort()
    return {
        "median_ms": round(statistics.median(samples), 2),
        "p90_ms": round(samples[int(len(samples) * 0.9)], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=100)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="fixbot-bench-boundary-"))
    folder.chmod(0o755)
    try:
        repo = folder / "repo"
        repo.mkdir()
        (repo / "a.txt").write_text("a\n")
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        results: dict[str, object] = {"pid_namespace": bool(sandbox.namespace_argv(None))}
        results["bare spawn (no boundary)"] = timed(Bare(env), repo, args.runs)
        results["self, no namespace (sweep)"] = timed(
            Launcher(repo, env, namespace=False), repo, args.runs
        )
        results["self, PID namespace"] = timed(Launcher(repo, env), repo, args.runs)
        if os.geteuid() == 0:
            nobody = sandbox.Identity(65534, 65534, "nobody")
            with sandbox.confine(repo, nobody, ".fixbot", folder / "record") as who:
                results["nobody, no namespace (sweep)"] = timed(
                    Launcher(repo, env, who, namespace=False), repo, args.runs
                )
                results["nobody, user+PID namespace"] = timed(
                    Launcher(repo, env, who), repo, args.runs
                )
        print(json.dumps(results, indent=2))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
