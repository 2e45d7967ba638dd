"""Benchmark: the cost ondisk adds to each import of a work-tree module: the source the
loader read hashed at its `compile` event (`modulecode.compiled`), and the file read again and
hashed at its `exec` (`modulecode._ran`, `ran_digest`), both SHA-256.

Run: .venv/bin/python bench/bench_ran_digest.py [--runs 7] [FOLDER]
Every `.py` file under FOLDER (default: fixbot's own package) is read once (the loader's read,
not counted), then digested as the observer does, in this process, once per round; the median
round's CPU seconds (`time.process_time`) over the files, and per file. Results go to
bench/README.md.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from fixbot.observe.modulecode import _ran, compiled

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    """Print the files, their bytes, and the median round's CPU time over them."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("folder", nargs="?", default=str(ROOT / "fixbot"))
    args = parser.parse_args()
    files = sorted(str(p) for p in Path(args.folder).rglob("*.py"))
    sources = [(Path(f).read_bytes(), f) for f in files]
    size = sum(len(data) for data, _ in sources)
    pending: dict[int, tuple[str, str]] = {}
    rounds = []
    for _ in range(args.runs):
        began = time.process_time()
        for data, file in sources:
            compiled((data, file), pending, "/")
            _ran(file, pending)
        rounds.append(time.process_time() - began)
    median = statistics.median(rounds)
    print(
        f"{len(files)} files, {size / 1e6:.2f} MB: median {median * 1e3:.1f} ms CPU a round, "
        f"{median / len(files) * 1e6:.1f} us a file (rounds {min(rounds) * 1e3:.1f} to "
        f"{max(rounds) * 1e3:.1f} ms)"
    )


if __name__ == "__main__":
    main()
