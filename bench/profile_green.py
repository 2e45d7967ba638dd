"""Where a green run's CPU goes: `fixbot run` with its re-executed process instrumented.

Run: .venv/bin/python bench/profile_green.py [--runs 3] [--files 10000] [--tree DIR]

The command line of bench_green.py (`python -m fixbot run --check true --fix-command true -C
REPO --json`, fixbot's private folder removed first, so each run clones again), started so that
fixbot's re-execution (`fixbot.startup`) runs a small wrapper before `fixbot`: it times, in CPU
seconds of the process itself (`RUSAGE_SELF`) and of the programs it waited for
(`RUSAGE_CHILDREN`), the imports of a green run, the phases named in `PHASES` and every
`subprocess.run` (git's checkout of fixbot's clone apart; each program and subcommand summed
too). On a shared machine a checkout's CPU (nearly all system time: creating the clone's files)
swings with the load; fixbot's own CPU does not. Since round 5 a green run checks nothing out
(`Worlds.write_files` stays at 0). `--tree` runs another copy of fixbot's package (`git
archive REV fixbot | tar -x -C DIR`) for a before and after on the same repository. Prints
the median of each figure.
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_green import make_repository, private_folder

PHASES = [
    ("fixbot.process.worlds", "", "clone"),
    ("fixbot.process.sync", "Worlds", "differing"),
    ("fixbot.process.sync", "Worlds", "to_workspace"),
    ("fixbot.process.sync", "Worlds", "untracked"),
    ("fixbot.process.sync", "Worlds", "write_files"),
    ("fixbot.process.cleanup", "", "sweep"),
]

# Run by the re-executed interpreter in place of `-m fixbot` (argv: tree, output file, then
# fixbot's own words); writes {"self", "children", "imports", "phases", "programs"} as JSON.
CHILD = r"""
import atexit, functools, importlib, json, resource, runpy, subprocess, sys
tree, out = sys.argv.pop(1), sys.argv.pop(1)
if tree != "-":
    sys.path.insert(0, tree)
sys.argv[0] = "fixbot"
def cpu(who):
    used = resource.getrusage(who)
    return used.ru_utime + used.ru_stime
found = {"phases": {}, "programs": []}
def timed(name, call, *args, **kwargs):
    own, waited = cpu(resource.RUSAGE_SELF), cpu(resource.RUSAGE_CHILDREN)
    try:
        return call(*args, **kwargs)
    finally:
        spent = [cpu(resource.RUSAGE_SELF) - own, cpu(resource.RUSAGE_CHILDREN) - waited]
        if name.startswith("program "):
            found["programs"].append([name[8:], *spent])
        else:
            found["phases"].setdefault(name, [0.0, 0.0])
            found["phases"][name] = [a + b for a, b in zip(found["phases"][name], spent)]
real_run = subprocess.run
def run(args, *rest, **options):
    words = [str(w) for w in (args if isinstance(args, list) else [args])]
    words = [w for i, w in enumerate(words) if w != "-c" and words[i - 1 : i] != ["-c"]]
    return timed("program " + " ".join(words[:3]), real_run, args, *rest, **options)
subprocess.run = run
def done():
    found["self"] = cpu(resource.RUSAGE_SELF)
    found["children"] = cpu(resource.RUSAGE_CHILDREN)
    with open(out, "w") as handle:
        json.dump(found, handle)
atexit.register(done)
before = cpu(resource.RUSAGE_SELF)
import fixbot.cli, fixbot.run.engine
found["imports"] = cpu(resource.RUSAGE_SELF) - before
def wrapped(name, call):
    @functools.wraps(call)
    def wrapper(*args, **kwargs):
        return timed(name, call, *args, **kwargs)
    return wrapper
for module, owner, name in PHASES:
    holder = importlib.import_module(module)
    holder = getattr(holder, owner) if owner else holder
    if hasattr(holder, name):  # an older tree (`--tree`) may lack one
        setattr(holder, name, wrapped(name, getattr(holder, name)))
runpy.run_module("fixbot", run_name="__main__", alter_sys=True)
"""

# The first interpreter: `fixbot` as `python -m fixbot` runs it, its re-execution's
# `-m fixbot` replaced by `-c CHILD TREE OUT`.
PARENT = r"""
import os, runpy, sys
child, tree, out = sys.argv[1], sys.argv[2], sys.argv[3]
if tree != "-":
    sys.path.insert(0, tree)
real = os.execve
def execve(path, argv, env):
    argv = list(argv)
    at = argv.index("-m")
    argv[at : at + 2] = ["-c", child, tree, out]
    real(path, argv, env)
os.execve = execve
sys.argv = ["fixbot", *sys.argv[4:]]
runpy.run_module("fixbot", run_name="__main__")
"""


def one_run(repo: Path, tree: str, out: Path) -> dict[str, float]:
    """The figures of one green run of `repo` with a fresh clone (CPU seconds)."""
    shutil.rmtree(private_folder(repo), ignore_errors=True)
    child = CHILD.replace("PHASES", repr(PHASES))
    command = [sys.executable, "-c", PARENT, child, tree, str(out), "run", "--check", "true"]
    command += ["--fix-command", "true", "-C", str(repo), "--json"]
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd="/")
    if done.returncode != 0:
        raise SystemExit(f"the run did not pass: {done.stdout}{done.stderr}")
    found = json.loads(out.read_text())
    programs = found["programs"]
    checkout = sum(c for name, _, c in programs if " checkout" in f" {name}")
    figures = {
        "fixbot's process": found["self"],
        "  imports (fixbot.cli, fixbot.run.engine)": found["imports"],
    }
    for name, (own, _) in sorted(found["phases"].items()):
        figures[f"  {name}"] = own
    figures["programs it waited for, git's checkout apart"] = found["children"] - checkout
    each: dict[str, float] = {}
    for name, _, spent in programs:
        words = name.split()
        label = " ".join([Path(words[0]).name, *words[1:]][:2])  # the program and its subcommand
        each[f"    {label}"] = each.get(f"    {label}", 0.0) + spent
    figures.update(sorted(each.items(), key=lambda item: -item[1]))
    figures["git's checkout of the clone"] = checkout
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--tree", default="-", help="a copy of fixbot's package to run instead")
    args = parser.parse_args()
    print(f"load average at the start: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        repo = make_repository(Path(tmp), args.files)
        runs = [one_run(repo, args.tree, Path(tmp) / f"run-{n}.json") for n in range(args.runs)]
        shutil.rmtree(private_folder(repo), ignore_errors=True)
    print(f"{args.files} files, CPU seconds, median of {args.runs} (min):")
    for name in runs[0]:
        values = [run.get(name, 0.0) for run in runs]
        print(f"  {name:60s} {statistics.median(values):6.3f} ({min(values):.3f})")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
