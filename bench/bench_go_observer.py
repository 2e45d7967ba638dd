"""Benchmark: the cost of fixbot's observer inside go test binaries (`fixbot/observe/go/`).

Run: .venv/bin/python bench/bench_go_observer.py [--runs 5] [--packages 4] [--tests 25]
A go module of `--packages` packages, each with `--tests` passing tests, runs `go test -json
./...` (go on PATH, a GOCACHE of its own, warmed by one run of each way first) `--runs` times
in each way, alternating:

- `plain`: `go test -json -count=1 ./...`, as fixbot runs go unobserved (`-count=1`: go's test
  result cache off, so each run runs the binaries, as a check after a fix does);
- `plain-novet`: `plain` with `-vet=off`, as the observed runs add (go 1.19's vet cannot read
  an overlay's files): the observer's own cost is `observed-*` against this;
- `plain-cached`: `go test -json ./...`, go's result cache on (an unchanged tree: "(cached)");
- `observed-per-run`: with fixbot's observer as `fixbot.observe.golang.prepare` writes it, in a
  fresh observer folder and under a fresh module name each run, as fixbot runs each check
  (`Channel.module`; a new overlaid file name and, since the records' MAC, a new key each run:
  go's build cache misses the test packages, and no result is cached);
- `observed-stable`: the observer prepared once, in one folder, for every run (the same copies
  and key: the cost of the TestMain and the records alone, the build cache warm), `-count=1`.
  (fixbot's copies are named by the run's module and hold the run's key, so each check's test
  packages compile again: `observed-per-run`.)

Measured in wall seconds and CPU seconds (user and system of go and its children, medians) of
the whole `go test`. Results go to bench/README.md ("The
observer inside go test").
"""

from __future__ import annotations

import argparse
import os
import resource
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fixbot.observe import golang  # noqa: E402

WAYS = ("plain", "plain-novet", "plain-cached", "observed-per-run", "observed-stable")
PREPARED: dict[Path, dict[str, str]] = {}  # observed-stable's environment, its folder's


def module(root: Path, packages: int, tests: int) -> None:
    """A go module at `root` of `packages` packages of `tests` passing tests each."""
    (root / "go.mod").write_text("module example.com/bench\n\ngo 1.19\n")
    for p in range(packages):
        folder = root / f"p{p}"
        folder.mkdir()
        (folder / "p.go").write_text(f"package p{p}\n\nfunc Add(a, b int) int {{ return a + b }}\n")
        body = "".join(
            f"\nfunc TestAdd{t}(t *testing.T) {{\n\tif Add({t}, 1) != {t + 1} {{\n"
            '\t\tt.Fatal("no")\n\t}\n}\n'
            for t in range(tests)
        )
        (folder / "p_test.go").write_text(f'package p{p}\n\nimport "testing"\n{body}')


def run(root: Path, env: dict[str, str], way: str, stable: Path) -> tuple[float, float]:
    """One `go test` of `root` in `way`: its wall seconds and its processes' CPU seconds."""
    added: dict[str, str] = {}
    folder = None
    if way == "observed-per-run":
        folder = Path(tempfile.mkdtemp(prefix="gobench-"))
        added = golang.prepare(
            folder, f"fixbot_observer_{secrets.token_hex(8)}", [root], root, {}
        ).env
    elif way == "observed-stable":
        folder = stable
        if folder not in PREPARED:
            PREPARED[folder] = golang.prepare(folder, "fixbot_observer_bench", [root], root, {}).env
        shutil.rmtree(folder / golang.RECORDS, ignore_errors=True)
        (folder / golang.RECORDS).mkdir(mode=0o700)
        added = PREPARED[folder]
    flags = [
        *([] if way == "plain-cached" else ["-count=1"]),
        *(["-vet=off"] if way == "plain-novet" else []),
    ]
    argv = ["go", "test", "-json", *flags, "./..."]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=root, env={**env, **added}, capture_output=True, check=False)
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if done.returncode != 0:
        raise SystemExit(done.stdout.decode()[-2000:] + done.stderr.decode()[-2000:])
    if folder is not None and folder != stable:
        shutil.rmtree(folder, ignore_errors=True)
    return took, cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--packages", type=int, default=4)
    parser.add_argument("--tests", type=int, default=25)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gobench-") as tmp:
        root = Path(tmp) / "mod"
        root.mkdir()
        module(root, args.packages, args.tests)
        stable = Path(tmp) / "stable"
        stable.mkdir()
        env = {**os.environ, "GOCACHE": str(Path(tmp) / "gocache"), "GOFLAGS": ""}
        for way in WAYS:  # warm the build cache (and go's result cache) each way
            run(root, env, way, stable)
        times: dict[str, list[tuple[float, float]]] = {way: [] for way in WAYS}
        for _ in range(args.runs):
            for way in WAYS:
                times[way].append(run(root, env, way, stable))
    base = statistics.median(t[0] for t in times["plain"])
    print(f"{args.packages} packages x {args.tests} tests, {args.runs} runs, medians:")
    for way in WAYS:
        wall = statistics.median(t[0] for t in times[way])
        cpu = statistics.median(t[1] for t in times[way])
        print(f"  {way:18} wall {wall:6.3f} s ({wall / base - 1:+.0%} vs plain)  CPU {cpu:6.3f} s")


if __name__ == "__main__":
    main()
