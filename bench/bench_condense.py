"""Benchmark the two streamed passes of `fixbot.logs.digest.digest` on a large, realistic log:
`fixbot.logs.condense.condense_file` and `fixbot.logs.facts.collect_file`.

Usage: python bench/bench_condense.py [--mb 100] [--runs 3]

Generates a pytest-like log (verbose test lines, timestamped application logs, warnings, and
failure sections sprinkled through it) of about `--mb` megabytes in a temporary folder, then
condenses it `--runs` times, each in a fresh subprocess that reports wall seconds and its peak
resident memory (ru_maxrss, kilobytes on Linux) before and after the call. Targets: under 2 s
and under 64 MB extra memory for 100 MB.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

FAILURE = """\
___________________________ test_case_{n} ___________________________

    def test_case_{n}():
        value = compute({n})
>       assert value == {expected}
E       assert {value} == {expected}
E        +  where {value} = compute({n})

tests/test_mod_{m}.py:{line}: AssertionError
------------------------------ Captured log call -------------------------------
ERROR    app.worker:worker.py:88 item {n} failed after 3 retries (pid 4242)
"""

MEASURE = """\
import json, resource, sys, time
from pathlib import Path
from fixbot.logs.condense import condense_file
from fixbot.logs.facts import LogFacts, collect_file
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
facts = LogFacts()
start = time.perf_counter()
out = condense_file(Path(sys.argv[1]), on_diagnostic=facts.add_diagnostic)
middle = time.perf_counter()
collect_file(Path(sys.argv[1]), facts)
seconds = time.perf_counter() - start
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": seconds, "condense": middle - start,
                  "facts": seconds - (middle - start), "extra_mb": (after - before) / 1024,
                  "out_bytes": len(out.encode()),
                  "failed": facts.counts().failed, "groups": len(facts.groups)}))
"""


def noise_block(index: int) -> str:
    """About 1 MB of passing-test and log noise; `index` varies the numbers."""
    lines = []
    for i in range(6000):
        n = index * 6000 + i
        lines.append(f"tests/test_mod_{n % 97}.py::test_case_{n} PASSED{' ' * 20}[ {n % 100:2d}%]")
        lines.append(
            f"2024-05-01 12:{n % 60:02d}:{i % 60:02d},{n % 1000:03d} INFO app.worker: "
            f"processed item {n} in {n % 7}.{n % 10}ms (0x7f{n:08x})"
        )
        if i % 500 == 0:
            lines.append(f"  /usr/lib/python3/site-packages/lib.py:{n % 900}: DeprecationWarning")
    return "\n".join(lines) + "\n"


def write_log(path: Path, megabytes: int) -> int:
    """Write the log; return its size in bytes."""
    with path.open("w") as out:
        index = 0
        while out.tell() < megabytes * 1024 * 1024:
            out.write(noise_block(index))
            if index % 10 == 3:
                n = index * 6000
                out.write(FAILURE.format(n=n, m=n % 97, line=10 + index, value=n + 1, expected=n))
            index += 1
        out.write("=========== 9 failed, 1000000 passed in 812.31s (0:13:32) ===========\n")
        return out.tell()


def measure(path: Path) -> dict[str, float]:
    """Run one condense in a fresh interpreter; return its figures."""
    repo = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, str(path)],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    figures: dict[str, float] = json.loads(done.stdout)
    return figures


def main() -> None:
    """Generate the log, measure, print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "check.log"
        size = write_log(log, args.mb)
        print(f"log: {size / 1024 / 1024:.1f} MB")
        print(
            "| run | seconds (both passes) | condense | facts | extra peak RSS (MB)"
            " | condensed bytes | failed (facts) | distinct failures |"
        )
        print("|---|---|---|---|---|---|---|---|")
        for run in range(1, args.runs + 1):
            f = measure(log)
            print(
                f"| {run} | {f['seconds']:.2f} | {f['condense']:.2f} | {f['facts']:.2f}"
                f" | {f['extra_mb']:.1f} | {f['out_bytes']:.0f} | {f['failed']:.0f}"
                f" | {f['groups']:.0f} |"
            )


if __name__ == "__main__":
    main()
