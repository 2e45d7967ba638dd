"""Benchmark: the cost of fixbot's observer inside pytest on a real suite.

Run: .venv/bin/python bench/bench_observer.py [--runs 5] [--watch 20] [SUITE ...]
The suite (default: fixbot's own `tests/logs tests/tamper tests/policy`, about two thousand
fast tests, the worst case for a cost paid per test) runs `--runs` times plain and `--runs`
times under the observer (`fixbot.observe.channel`: the plugin loaded by `-p`, every outcome
streamed, the machinery compared at each report), alternating, and with `--watch` of its tests
watched as a verifying run watches the tests that failed at the start (their bodies profiled).
Measured in CPU seconds of the pytest process (user and system, medians), which a loaded shared
machine does not blur as it does wall time. Target: the observer adds under 10 % to the check's
time. The stream's size (bytes the channel read, median) is printed too, in all and per test:
the observer streams each fact when it learns it (a watched body's exit, the machinery's
fingerprints at each teardown) for fixbot to compare. Results go to bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fixbot.observe.channel import Channel  # noqa: E402

DEFAULT_SUITE = ["tests/logs", "tests/tamper", "tests/policy"]


def command(suite: list[str]) -> list[str]:
    """The suite's pytest command line. Hypothesis's examples are drawn from one fixed seed:
    with a random one each run draws other examples, and the default suite's CPU time moved by
    seconds between runs of the same tree (most of the noise of the earlier figures)."""
    return [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-n0",
        "-p",
        "no:cacheprovider",
        "--hypothesis-seed=0",
        *suite,
    ]


def cpu() -> float:
    """The CPU seconds (user and system) of the children waited for so far: on a shared,
    loaded machine the wall time is mostly other people's work, the CPU time is the suite's."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def plain(suite: list[str], env: dict[str, str]) -> float:
    start = cpu()
    subprocess.run(command(suite), cwd=ROOT, env=env, capture_output=True, check=False)
    return cpu() - start


def observed(
    suite: list[str], env: dict[str, str], watch: list[str]
) -> tuple[float, list[str], int]:
    """The CPU seconds of one observed run, its tests' ids, and the bytes it streamed."""
    channel = Channel.open(watch)
    start = cpu()
    try:
        subprocess.run(
            command(suite),
            cwd=ROOT,
            env={**env, **channel.env(env)},
            pass_fds=channel.fds,
            capture_output=True,
            check=False,
        )
    finally:
        seconds = cpu() - start
        seen = channel.close()
    assert seen.ended == 1 and not seen.forged, seen
    return seconds, sorted(seen.tests), sum(channel._size)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("suite", nargs="*", default=DEFAULT_SUITE)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--watch", type=int, default=20)
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    # the ids the observer streams are the ones it watches: the first `--watch` of them
    watch = observed(args.suite, env, [])[1][: args.watch]
    bare: list[float] = []
    seen: list[float] = []
    watched: list[float] = []
    tests: list[str] = []
    sizes: list[int] = []
    watched_sizes: list[int] = []
    for _ in range(args.runs):
        bare.append(plain(args.suite, env))
        seconds, tests, size = observed(args.suite, env, [])
        seen.append(seconds)
        sizes.append(size)
        seconds, _, size = observed(args.suite, env, watch)
        watched.append(seconds)
        watched_sizes.append(size)
    base = statistics.median(bare)
    result = {
        "tests": len(tests),
        "runs": args.runs,
        "plain_s": round(base, 2),
        "observed_s": round(statistics.median(seen), 2),
        "observed_overhead_pct": round(100 * (statistics.median(seen) / base - 1), 1),
        "watched": len(watch),
        "watched_s": round(statistics.median(watched), 2),
        "watched_overhead_pct": round(100 * (statistics.median(watched) / base - 1), 1),
        "stream_bytes": int(statistics.median(sizes)),
        "stream_bytes_per_test": round(statistics.median(sizes) / max(1, len(tests))),
        "watched_stream_bytes": int(statistics.median(watched_sizes)),
        "load_average": os.getloadavg()[0],
        # every run's CPU seconds, in order: the spread the medians hide
        "plain_runs": [round(s, 2) for s in bare],
        "observed_runs": [round(s, 2) for s in seen],
        "watched_runs": [round(s, 2) for s in watched],
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
