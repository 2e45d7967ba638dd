"""Benchmark: the time the boundary adds to one project command, and the cost of the
two worlds (fixbot's clone and the workspace, `fixbot.process.worlds`).

Run: .venv/bin/python bench/bench_boundary.py [--runs 100]
     .venv/bin/python bench/bench_boundary.py --sync [--files 10000 --megabytes 200 --runs 20]
     .venv/bin/python bench/bench_boundary.py --demo TREE [--runs 3]
`--sync` builds a repository of `--files` tracked files totalling `--megabytes` MB, clones it as
a run does (`worlds.clone`) and times `Worlds.to_workspace` with nothing to copy (the cost added
before every command), then with one file changed, and the first full comparison
(`Worlds.differing`). `--demo TREE` times `demo/run.py` of the fixbot source tree TREE (a
checkout of another commit, for the before/after comparison) with this venv's Python.

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


def percentiles(samples: list[float]) -> dict[str, float]:
    """Median and 90th percentile (ms) of `samples` (ms)."""
    samples = sorted(samples)
    return {
        "median_ms": round(statistics.median(samples), 2),
        "p90_ms": round(samples[int(len(samples) * 0.9)], 2),
    }


def bench_sync(files: int, megabytes: int, runs: int) -> dict[str, object]:
    """Time the sync of a repository of `files` tracked files and `megabytes` MB (see above)."""
    from fixbot.process import sync, worlds

    folder = Path(tempfile.mkdtemp(prefix="fixbot-bench-sync-"))
    try:
        repo = folder / "w"
        size = megabytes * 1024 * 1024 // files
        for n in range(files):
            path = repo / f"d{n % 100:02d}" / f"f{n:05d}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(os.urandom(size // 2).hex().encode()[:size])
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
        subprocess.run(["git", "-C", str(repo), "commit", "-qm", "bench"], check=True)
        # one pack, as a workspace actions/checkout fetched is: upload-pack then sends the
        # packed objects as they are (loose random objects would be compressed again, minutes)
        subprocess.run(["git", "-C", str(repo), "repack", "-adq"], check=True)
        private = worlds.private_folder(repo, folder / "state")
        worlds.write_gitconfig(private, {"name": "bench", "email": "bench@example.invalid"})
        with worlds.entered(private):
            start = time.perf_counter()
            worlds.clone(repo, private / worlds.REPO)
            clone_ms = (time.perf_counter() - start) * 1000
            pair = sync.Worlds(private / worlds.REPO, repo)
            start = time.perf_counter()
            pair.differing()
            first_ms = (time.perf_counter() - start) * 1000
            pair.to_workspace()
            noop = []
            for _ in range(runs):
                start = time.perf_counter()
                assert pair.to_workspace() == 0
                noop.append((time.perf_counter() - start) * 1000)
            one = []
            for n in range(runs):
                (pair.fixbot / "d00" / "f00000.txt").write_text(f"changed {n}\n")
                start = time.perf_counter()
                assert pair.to_workspace() == 1
                one.append((time.perf_counter() - start) * 1000)
        return {
            "files": files,
            "megabytes": megabytes,
            "clone (git clone --no-local), ms": round(clone_ms, 1),
            "first comparison (differing), ms": round(first_ms, 1),
            "sync, nothing to copy": percentiles(noop),
            "sync, one file changed": percentiles(one),
        }
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def bench_demo(tree: Path, runs: int) -> dict[str, object]:
    """Time `demo/run.py` of the fixbot source `tree`, `runs` times, with this venv's Python."""
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "demo/run.py"], cwd=tree, capture_output=True, text=True, check=False
        )
        samples.append((time.perf_counter() - start) * 1000)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return {"tree": str(tree), "runs": runs, **percentiles(samples)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--sync", action="store_true")
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--megabytes", type=int, default=200)
    parser.add_argument("--demo", type=Path)
    args = parser.parse_args()
    if args.sync:
        print(json.dumps(bench_sync(args.files, args.megabytes, args.runs), indent=2))
        return
    if args.demo:
        print(json.dumps(bench_demo(args.demo.resolve(), args.runs), indent=2))
        return
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
            with sandbox.handed_over(repo, nobody) as who:
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
