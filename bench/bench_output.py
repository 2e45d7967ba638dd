"""Benchmark: a command that writes 400 MB of output, through fixbot's runner.

Run: .venv/bin/python bench/bench_output.py [--megabytes 400] [--single-line]
Targets: 400 MB of output handled in at most 60 s, with at most 128 MB on disk (the log) and at
most 300 MB of memory (peak RSS of the process running the command through the runner, with
the real redactor holding secrets). `--single-line` writes the output as one line (the 1 GB
single line that once took 3 GB of memory). Results are written down in bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import json, resource, sys, time
from pathlib import Path
from fixbot.security.redact import Redactor
from fixbot.process.spawn import run_command

command, folder = sys.argv[1], Path(sys.argv[2])
env = {"OPENAI_API_KEY": "sk-bench-0123456789abcdefghij", "GITHUB_TOKEN": "ghs_" + "b" * 36}
redactor = Redactor.from_env(env)
start = time.monotonic()
result = run_command(command, folder, folder / "check.log", 600, redact=redactor.redact)
seconds = time.monotonic() - start
peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": seconds, "peak_rss_mb": peak_kb / 1024,
                  "output_bytes": result.output_bytes,
                  "log_bytes": (folder / "check.log").stat().st_size,
                  "exit_code": result.exit_code}))
"""


def measure(megabytes: int, single_line: bool) -> dict[str, float]:
    """Run the probe in a fresh interpreter (so peak RSS is this run's) and return its figures."""
    size = megabytes * 1_000_000
    if single_line:
        command = f"head -c {size} /dev/zero | tr '\\0' 'x'; echo; exit 1"
    else:
        command = f"yes 'E   assert ghs_{'b' * 36} == expected value' | head -c {size}; exit 1"
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            [sys.executable, "-c", PROBE, command, tmp],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        figures: dict[str, float] = json.loads(done.stdout)
        disk = sum(p.stat().st_size for p in Path(tmp).rglob("*") if p.is_file())
        figures["disk_mb"] = disk / 1_000_000
    return figures


def main() -> None:
    """Print the figures of one run as JSON and check them against the targets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=400)
    parser.add_argument("--single-line", action="store_true")
    args = parser.parse_args()
    started = time.monotonic()
    figures = measure(args.megabytes, args.single_line)
    figures["wall_s"] = time.monotonic() - started
    print(json.dumps(figures, indent=2))
    ok = figures["seconds"] <= 60 and figures["disk_mb"] <= 128 and figures["peak_rss_mb"] <= 300
    print("targets met" if ok else "TARGETS MISSED")


if __name__ == "__main__":
    main()
