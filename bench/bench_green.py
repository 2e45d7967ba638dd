"""A green pull request's overhead: what `fixbot run` costs beyond the check when the check passes.

Run: .venv/bin/python bench/bench_green.py [--runs 5] [--files 10 10000]
Goal: <= 1.5 s beyond the check, fixbot's own clone included, on a 10,000-file repository too.

Each run is the real command line (`python -m fixbot run --check true --fix-command true -C
REPO --json`: the hardened start, the isolated re-execution, the preflight, the clone, the
check, the report), with fixbot's private folder of the repository removed first, so every
run makes its clone again. The overhead is the run's wall time minus the check's own duration
(`check_duration_s` of attempt 0 in the state); its CPU seconds (user + system of fixbot and
every process it started, from `getrusage(RUSAGE_CHILDREN)`) are what the run costs on an idle
machine whatever the load, since a green run does one thing at a time. Also measured: the
imports of a green run in a fresh interpreter (`python -I -c "import fixbot.cli,
fixbot.run.engine"`), and the clone alone (`git clone --no-local --no-checkout`, as fixbot
makes it: a green run writes none of its files). Results are written down
in bench/README.md, with the load average the machine had.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fixbot.process import worlds

IDENTITY = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.invalid"}
IDENTITY |= {"GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.invalid"}


def make_repository(root: Path, files: int) -> Path:
    """A packed repository of `files` small Python files in folders of 100."""
    repo = root / f"repo-{files}"
    for n in range(files):
        path = repo / f"pkg{n // 100:03d}" / f"mod{n:05d}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"VALUE_{n} = {n}\n\n\ndef f_{n}(x):\n    return x + {n}\n")
    env = {**os.environ, **IDENTITY}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "i"], ["repack", "-adq"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    return repo


def private_folder(repo: Path) -> Path:
    """fixbot's private folder of `repo` (as the subprocess will compute it)."""
    return worlds.state_base(os.geteuid(), os.environ) / worlds.repo_key(repo)


def cpu() -> float:
    """CPU seconds (user + system) of the finished child processes so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def one_run(repo: Path) -> tuple[float, float, float]:
    """(wall seconds of a green `fixbot run`, the check's own seconds, CPU seconds of the run
    and its processes) with a fresh clone."""
    shutil.rmtree(private_folder(repo), ignore_errors=True)
    command = [sys.executable, "-m", "fixbot", "run", "--check", "true"]
    command += ["--fix-command", "true", "-C", str(repo), "--json"]
    started, cpu_before = time.perf_counter(), cpu()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall, spent = time.perf_counter() - started, cpu() - cpu_before
    if done.returncode != 0 or json.loads(done.stdout)["outcome"] != "passed":
        raise SystemExit(f"the run did not pass: {done.stdout}{done.stderr}")
    state = private_folder(repo) / worlds.REPO / ".fixbot" / "state.json"
    check = json.loads(state.read_text())["attempts"][0]["check_duration_s"]
    return wall, float(check), spent


def imports(runs: int) -> list[float]:
    """CPU seconds of a fresh interpreter importing what a green run imports."""
    times = []
    for _ in range(runs):
        before = cpu()
        subprocess.run(
            [sys.executable, "-I", "-c", "import fixbot.cli, fixbot.run.engine"], check=True
        )
        times.append(cpu() - before)
    return times


def clone(repo: Path, runs: int) -> list[float]:
    """CPU seconds of `git clone --no-local --no-checkout` of `repo` (what fixbot's clone
    costs)."""
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(runs):
            before = cpu()
            subprocess.run(
                ["git", "clone", "-q", "--no-local", "--no-checkout", str(repo), f"{tmp}/{n}"],
                check=True,
            )
            times.append(cpu() - before)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--files", type=int, nargs="+", default=[10, 10_000])
    args = parser.parse_args()
    print(f"load average at the start: {os.getloadavg()[0]:.2f}")
    got = imports(args.runs)
    print(f"imports of a green run: CPU median {statistics.median(got):.2f} s")
    with tempfile.TemporaryDirectory() as tmp:
        for files in args.files:
            repo = make_repository(Path(tmp), files)
            cloned = clone(repo, args.runs)
            runs = [one_run(repo) for _ in range(args.runs)]
            over = [wall - check for wall, check, _ in runs]
            spent = [used for _, _, used in runs]
            print(
                f"{files} files: wall beyond the check median {statistics.median(over):.2f} s "
                f"(min {min(over):.2f}); CPU of the run median {statistics.median(spent):.2f} s "
                f"(min {min(spent):.2f}); the clone alone CPU median "
                f"{statistics.median(cloned):.2f} s; load {os.getloadavg()[0]:.2f}"
            )
            shutil.rmtree(private_folder(repo), ignore_errors=True)


if __name__ == "__main__":
    main()
