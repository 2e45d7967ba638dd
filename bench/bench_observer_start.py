"""Benchmark: the observer's fixed cost per process, paid by every Python process of a check.

Run: .venv/bin/python bench/bench_observer_start.py [--runs 9] [TREE ...]
A project of ten tests (one parametrized test, made in a temporary folder) is collected,
`pytest --co -q`, plain and under the observer of each TREE (a checkout of fixbot: its
`fixbot.observe.channel` opens the channel, so its observer's files are the ones copied; this
tree where none is given), and a bare `python -c pass` is started plain and with each
channel's environment (the observer's `sitecustomize`, which every Python process of a check
runs). The ways alternate within each round (plain, then each tree observed), so a shared
machine's load falls on all of them alike. Every run is a child of its own (`--one`), measured
in CPU seconds (user and system) of that child: the interpreter is this one throughout. The
per-process cost is the median of each round's observed minus that round's plain run, with
the spread of those differences. Results go to bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT = (
    'import pytest\n\n\n@pytest.mark.parametrize("n", range(10))\n'
    "def test_n(n):\n    assert n == n\n"
)
# hypothesis's plugin, installed in fixbot's venv, is left out: pytest rewrites its 113 modules
# at each start (seconds of CPU under load), the same plain and observed, and blurs the difference
COLLECT = ["-m", "pytest", "--co", "-q", "-p", "no:cacheprovider", "-p", "no:hypothesispytest"]
WAYS = {"collect": COLLECT, "bare": ["-c", "pass"]}


def cpu() -> float:
    """The CPU seconds (user and system) of the children waited for so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def one(way: str, tree: str | None, project: str) -> float:
    """The CPU seconds of one run of `way` in `project`, observed by `tree`'s observer (None:
    plain)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    command = [sys.executable, *WAYS[way]]
    if tree is None:
        start = cpu()
        subprocess.run(command, cwd=project, env=env, capture_output=True, check=True)
        return cpu() - start
    sys.path.insert(0, tree)
    from fixbot.observe.channel import Channel

    channel = Channel.open([])
    start = cpu()
    try:
        subprocess.run(
            command,
            cwd=project,
            env={**env, **channel.env(env)},
            pass_fds=channel.fds,
            capture_output=True,
            check=True,
        )
    finally:
        seconds = cpu() - start
        seen = channel.close()
    assert way == "bare" or (seen.ended == 1 and not seen.forged), seen
    return seconds


def timed(way: str, tree: str | None, project: str) -> float:
    """`one` in a child of its own (each tree's `fixbot` is imported by its own process)."""
    args = [sys.executable, __file__, "--one", way, "--project", project]
    done = subprocess.run([*args, *(["--tree", tree] if tree else [])], capture_output=True)
    if done.returncode:
        raise RuntimeError(done.stderr.decode(errors="replace")[-2000:])
    return float(done.stdout)


def summary(plain: list[float], seen: list[float]) -> dict[str, object]:
    """The medians (ms), the median of the rounds' differences and their range."""
    extra = [s - p for p, s in zip(plain, seen, strict=True)]
    return {
        "plain_ms": round(1000 * statistics.median(plain), 1),
        "observed_ms": round(1000 * statistics.median(seen), 1),
        "cost_ms": round(1000 * statistics.median(extra), 1),
        "cost_range_ms": [round(1000 * min(extra), 1), round(1000 * max(extra), 1)],
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("trees", nargs="*")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--one", choices=sorted(WAYS))
    parser.add_argument("--tree")
    parser.add_argument("--project")
    args = parser.parse_args()
    if args.one:
        print(one(args.one, args.tree, args.project))
        return
    trees = [str(Path(t).resolve()) for t in args.trees] or [str(ROOT)]
    loads = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory() as project:
        Path(project, "test_ten.py").write_text(PROJECT)
        runs: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.runs):
            for way in WAYS:
                for tree in [None, *trees]:
                    runs.setdefault((way, tree or "plain"), []).append(timed(way, tree, project))
            loads.append(os.getloadavg()[0])
    result = {
        way: {tree: summary(runs[way, "plain"], runs[way, tree]) for tree in trees} for way in WAYS
    }
    every = {f"{w} {t}": [round(1000 * s, 1) for s in v] for (w, t), v in runs.items()}
    print(json.dumps({"runs": args.runs, "load_average": [min(loads), max(loads)], **result}))
    print(json.dumps(every))


if __name__ == "__main__":
    main()
