"""Benchmark: the cost of fixbot's observer inside unittest on a generated suite.

Run: .venv/bin/python bench/bench_unittest_observer.py [--runs 7] [--tests 2000] [--python PY]
    [--calls N] [--watch N] [--compares N]
A project of `--tests` passing tests (`self.assertEqual(i, i)`, 100 to a class; with `--calls`,
`self.assertEqual(work(N), N)`, app.py's `work` making N calls of a Python function: the cost of
the profile function over each body, `unittest_seen`, paid per call, in the `--watch` first tests
alone, as a verifying run watches the tests that failed at the start; with `--compares`, each
body's own `Value(1) == Value(1)` N times, the comparisons `unittest_seen._follow` follows) is
written to a temporary folder and `python -m unittest` runs it `--runs` times plain and `--runs`
times under the observer (`fixbot.observe.channel`: `sitecustomize` loads
`unittest_observer.py`, each test's outcome and fingerprints streamed), alternating. Printed:
wall seconds and CPU seconds of the unittest process (user and system), medians, and the
stream's bytes. The observer's cost is per test (a test's start and end each fingerprint about
130 places), so a suite of many fast tests is its worst case. Results go to bench/README.md.
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
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fixbot.observe.channel import Channel  # noqa: E402

PER_CLASS = 100  # tests to a class


WORK = """\
def _leaf(x):
    return x + 1


def work(n):
    total = 0
    for _ in range(n):
        total = _leaf(total)
    return total


class Value:
    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, Value) and self.value == other.value

    __hash__ = None
"""


def project(where: Path, tests: int, calls: int = 0, compares: int = 0) -> None:
    """`tests` passing tests in test_many.py under `where`, `PER_CLASS` to a class; with
    `calls`, each asserts `work(calls)` (app.py's, `WORK`); with `compares`, each body's own
    `==` of two app.py `Value`s `compares` times (the comparisons `unittest_seen._follow`
    follows in a watched body)."""
    lines = ["import unittest", "", "from app import Value, work", ""]
    (where / "app.py").write_text(WORK, encoding="utf-8")
    for first in range(0, tests, PER_CLASS):
        lines += ["", f"class Many{first}(unittest.TestCase):"]
        for i in range(first, min(first + PER_CLASS, tests)):
            asserted = f"work({calls}), {calls}" if calls else f"{i}, {i}"
            own = f"sum(Value(1) == Value(1) for _ in range({compares}))"
            asserted = f"{own}, {compares}" if compares else asserted
            lines += [f"    def test_{i}(self):", f"        self.assertEqual({asserted})", ""]
    (where / "test_many.py").write_text("\n".join(lines), encoding="utf-8")


def cpu() -> float:
    """The CPU seconds (user and system) of the children waited for so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def once(
    where: Path, python: str, env: dict[str, str], watched: bool, watch: int = 0
) -> tuple[float, float, int]:
    """One run of the suite: (wall seconds, CPU seconds, bytes streamed; 0 unobserved), its
    `watch` first tests watched."""
    ids = [f"test_many.Many{i - i % PER_CLASS}.test_{i}" for i in range(watch)]
    channel = Channel.open(ids) if watched else None
    given = {**env, **channel.env(env)} if channel is not None else env
    start, started = time.perf_counter(), cpu()
    done = subprocess.run(
        [python, "-m", "unittest", "-q"],
        cwd=where,
        env=given,
        pass_fds=channel.fds if channel is not None else (),
        capture_output=True,
        check=False,
    )
    wall, used = time.perf_counter() - start, cpu() - started
    assert done.returncode == 0, done.stderr[-2000:]
    if channel is None:
        return wall, used, 0
    seen = channel.close()
    assert seen.ended == 1 and not seen.forged, seen
    return wall, used, sum(channel._size)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--tests", type=int, default=2000)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--calls", type=int, default=0)
    parser.add_argument("--watch", type=int, default=0)
    parser.add_argument("--compares", type=int, default=0)
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FIXBOT_", "PYTHON"))}
    with tempfile.TemporaryDirectory() as folder:
        where = Path(folder)
        project(where, args.tests, args.calls, args.compares)
        plain, seen = [], []
        for _ in range(args.runs):
            plain.append(once(where, args.python, env, False))
            seen.append(once(where, args.python, env, True, args.watch))
    median = statistics.median
    result = {
        "tests": args.tests,
        "calls": args.calls,
        "watch": args.watch,
        "compares": args.compares,
        "runs": args.runs,
        "plain_wall_s": round(median(w for w, _, _ in plain), 2),
        "observed_wall_s": round(median(w for w, _, _ in seen), 2),
        "plain_cpu_s": round(median(c for _, c, _ in plain), 2),
        "observed_cpu_s": round(median(c for _, c, _ in seen), 2),
        "stream_bytes": int(median(b for _, _, b in seen)),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
