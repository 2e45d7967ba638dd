"""Kill-and-resume under a seed: how many SIGKILLed runs resume and what they lose.

Measures the duration of a clean run of the three-step project (`tests/fakes/killrun.py`), then
kills `--rounds` runs at moments drawn uniformly from the whole run (0.05 s to its median
duration) and runs the same command again. Counts the rounds killed mid-run, killed after the
outcome was recorded, and finished before the kill, and the torn state files, the lost or
repeated fix attempts and the failed resumptions (the target for the last three is zero).

Usage: .venv/bin/python bench/bench_faults.py [--rounds 60] [--seed 20261123]
(writes bench/RESULTS-faults.md)
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fakes.killrun import STEPS, Round, fixbot_args, kill_round, project  # noqa: E402
from tests.fakes.repo import run_fixbot  # noqa: E402

ENV = {"FIXBOT_RUN_AS": "self"}  # as the tests run it: no user switch on a root machine


def main() -> None:
    """Run the rounds and write the results table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--seed", type=int, default=20261123)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        times = []
        for i in range(3):
            started = time.monotonic()
            clean = run_fixbot(*fixbot_args(project(base / f"clean{i}")), env=ENV)
            times.append(time.monotonic() - started)
            assert clean.json["outcome"] == "fixed", clean.stderr
        duration = statistics.median(times)
        rounds: list[Round] = []
        for i in range(args.rounds):
            delay = rng.uniform(0.05, duration)
            rounds.append(kill_round(project(base / f"r{i}"), delay, env=ENV))
            print(f"round {i + 1}/{args.rounds}: {delay:.2f} s -> {rounds[-1]}", flush=True)
    mid = [r for r in rounds if r.killed and not r.over]
    rows = [
        (f"rounds (seed {args.seed})", len(rounds)),
        ("killed mid-run, then resumed by the same command", len(mid)),
        (
            f"of those, resumed to `fixed` with exactly {STEPS} fix attempts",
            sum(not r.lost for r in mid),
        ),
        (
            "killed after recording the outcome (rerun: a new run, `passed`)",
            sum(r.over for r in rounds),
        ),
        ("finished before the kill came", sum(not r.killed for r in rounds)),
        ("torn state files after a kill", sum(r.torn for r in rounds)),
        ("fix attempts lost or repeated", sum(abs(r.fix_attempts - STEPS) for r in rounds)),
        ("resumptions that failed (non-zero exit)", sum(bool(r.resume_code) for r in rounds)),
        ("rounds not ending `fixed` with the three fixes kept", sum(r.lost for r in rounds)),
    ]
    table = "\n".join(f"| {name} | {value} |" for name, value in rows)
    text = f"""# Kill and resume

`.venv/bin/python bench/bench_faults.py --rounds {args.rounds} --seed {args.seed}` on
{date.today().isoformat()}, Python {platform.python_version()}, {os.cpu_count()} CPUs. A clean
run of the three-step project (`tests/fakes/killrun.py`: three failing checks, three fix
commands, one green check) took {duration:.2f} s (median of 3);
each round SIGKILLs the run's process group at a moment drawn uniformly from
0.05 s to {duration:.2f} s and runs the same command again.

| measure | count |
|---|---|
{table}
"""
    (ROOT / "bench" / "RESULTS-faults.md").write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
