"""Benchmark: the cost of fixbot's observer inside jest (its reporter and its test environment).

Run: .venv/bin/python bench/bench_jest_observer.py [--runs 7] [--modules 0 40] [--files 1]
    [--ways plain reporter env-stable]
A project of one test file with 6 tests, importing `--modules` modules of its own (each
transformed by babel-jest, whose cache key holds the project's configuration), runs with the
real jest of the tests (~/.cache/fixbot/node) `--runs` times in each way (`--ways`: all of
them unless named), alternating. With `--files` N above 1 the project has N such test files
and jest runs them in its workers (`--maxWorkers=2`; above 20 files: jest's cached timings of
fast tests would run 20 or fewer in band), where fixbot's environment streams through the
reporter with the run's worker key:

- `plain`: `jest --ci --json --outputFile=...`, as fixbot runs jest unobserved;
- `reporter`: and fixbot's reporter (`--reporters=default --reporters=<copy>`, its channel);
- `env-per-run`: and fixbot's test environment copied into the run's folder (the first
  version, w-jestenv: a new path each run, so a new transform cache key each run);
- `env-stable`: and the environment at its one content-addressed path
  (`fixbot.run.jestenv.environment_file`), as fixbot runs it now;
- `showConfig`: `jest --showConfig`, which fixbot ran once per check before it
  (`fixbot.run.jestenv.prepare`) to learn the project's environment;
- `showConfig-cjs`: the same with fixbot's preload (`fixbot.run.jestloaded.loading`:
  `NODE_OPTIONS=--require loaded.cjs` and its socket) handing over `require.cache` alone (its
  module hooks off: `module.register` taken away before it, as on a node before 20.6), to
  learn also the files jest's configuration loads (the project has a jest.config.js
  requiring jest.base.js by a computed path: both must be handed over);
- `showConfig-loaded`: and the preload's module hooks on node's ES module loader thread
  (`loaded.cjs` `LOADER`), as fixbot runs it now (ES module configurations observed).

Measured in CPU seconds of jest's processes (user and system, medians) and wall seconds
(medians). Target: the observer (reporter, environment, showConfig) adds under 10 % to the
check's time. Results go to bench/README.md ("The observer inside jest").
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fixbot.observe.channel import Channel  # noqa: E402
from fixbot.run import jestenv, jestloaded  # noqa: E402

JEST = Path.home() / ".cache" / "fixbot" / "node" / "node_modules" / ".bin" / "jest"
NODE_ENV = Path.home() / ".cache/fixbot/node/node_modules/jest-environment-node/build/index.js"
WAYS = (
    "plain",
    "reporter",
    "env-per-run",
    "env-stable",
    "showConfig",
    "showConfig-cjs",
    "showConfig-loaded",
)
SHOWN = ("showConfig", "showConfig-cjs", "showConfig-loaded")
# run before the preload: node's `module.register` taken away, so the preload hooks no ES module
# loader (its first version, `require.cache` alone, as on a node before 20.6)
UNHOOKED = "require('module').register = undefined;\n"


def project(folder: Path, modules: int, files: int = 1) -> None:
    """`files` test files (`app.test.js`, `app1.test.js`...), 6 tests each, importing `modules`
    modules of the project's."""
    (folder / "package.json").write_text('{"name": "bench"}')
    config = "module.exports = require(require('path').join(__dirname, 'jest' + '.base.js'));\n"
    (folder / "jest.config.js").write_text(config)
    (folder / "jest.base.js").write_text("module.exports = { testEnvironment: 'node' };\n")
    lines = []
    for i in range(modules):
        body = "".join(f"exports.f{j} = (a) => a + {j};\n" for j in range(40))
        (folder / f"m{i}.js").write_text(body)
        lines.append(f"require('./m{i}');\n")
    (folder / "app.js").write_text("exports.add = (a, b) => a + b;\n")
    test = "test('t{0}', () => {{ expect(add({0}, 1)).toBe({1}); }});\n"
    tests = "".join(test.format(i, i + 1) for i in range(6))
    for k in range(files):
        (folder / f"app{k or ''}.test.js").write_text(
            "const { add } = require('./app');\n" + "".join(lines) + tests
        )


def cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def once(way: str, folder: Path, report: Path, files: int = 1) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one jest run `way` of a project of `files` test files
    (more than one: in jest's workers)."""
    argv = [str(JEST), "--ci"] + (["--maxWorkers=2"] if files > 1 else [])
    env = dict(os.environ)
    fds: tuple[int, ...] = ()
    channel = None
    if way in ("showConfig-cjs", "showConfig-loaded"):
        return loaded(argv, folder, hooked=way == "showConfig-loaded")
    if way == "showConfig":
        argv.append("--showConfig")
    else:
        argv += ["--json", f"--outputFile={report}"]
    if way not in ("plain", *SHOWN):
        channel = Channel.open()
        env.update(channel.env({}))
        fds = channel.fds
        argv += ["--reporters=default", f"--reporters={channel.reporter}"]
        env[jestenv.VARIABLE] = str(NODE_ENV)
        if way == "env-per-run":
            copy = channel.folder / f"{channel.module}_environment.cjs"
            shutil.copyfile(jestenv.ENVIRONMENT, copy)
            argv.append(f"--testEnvironment={copy}")
        elif way == "env-stable":
            argv.append(f"--testEnvironment={jestenv.environment_file()}")
    start, wall = cpu(), time.monotonic()
    done = subprocess.run(argv, cwd=folder, env=env, pass_fds=fds, capture_output=True)
    took = (cpu() - start, time.monotonic() - wall)
    if channel is not None:
        seen = channel.close()
        assert seen.ended, (way, seen, done.stderr[-2000:])
        assert way != "env-stable" or len(seen.functions) == 6 * files, seen.functions
    assert done.returncode == 0, (way, done.stderr[-2000:])
    return took


def loaded(argv: list[str], folder: Path, hooked: bool) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of `jest --showConfig` with fixbot's preload, as
    `fixbot.run.jestloaded.loading` runs it (the copy, the socket, the read included), its module
    hooks on (`hooked`) or off."""
    found: list[str] = []
    took: list[tuple[float, float]] = []

    def run(
        words: list[str], cwd: Path, timeout: float, added: dict[str, str], fds: tuple[int, ...]
    ) -> tuple[int | None, str]:
        start, wall = cpu(), time.monotonic()
        env = {**os.environ, **added}
        if not hooked:
            env["NODE_OPTIONS"] = f'--require "{unhooked}" {added["NODE_OPTIONS"]}'
        done = subprocess.run(words, cwd=cwd, env=env, pass_fds=fds, capture_output=True)
        took.append((cpu() - start, time.monotonic() - wall))
        return done.returncode, done.stdout.decode()

    with tempfile.TemporaryDirectory(prefix="bench-preload-") as spare:
        unhooked = Path(spare) / "unhooked.cjs"  # outside the project: never one of its files
        unhooked.write_text(UNHOOKED)
        wall = time.monotonic()
        code, _ = jestloaded.loading(run, Path(spare), found)([*argv, "--showConfig"], folder, 60)
        whole = time.monotonic() - wall
    files = ["jest.config.js", "jest.base.js", "package.json"]  # package.json: read by jest
    assert code == 0 and jestloaded.configured(found, folder) == files
    return took[0][0], whole


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--modules", type=int, nargs="+", default=[0, 40])
    parser.add_argument("--files", type=int, default=1)
    parser.add_argument("--ways", nargs="+", choices=WAYS, default=list(WAYS))
    args = parser.parse_args()
    ways = ["plain", *(w for w in args.ways if w != "plain")]
    for modules in args.modules:
        with tempfile.TemporaryDirectory(prefix="bench-jest-") as tmp:
            folder = Path(tmp)
            project(folder, modules, args.files)
            once("plain", folder, folder / "r.json", args.files)  # the transform cache warmed
            got: dict[str, list[tuple[float, float]]] = {w: [] for w in ways}
            for _ in range(args.runs):
                for way in ways:
                    got[way].append(once(way, folder, folder / "r.json", args.files))
            base = statistics.median(c for c, _ in got["plain"])
            print(f"modules={modules} files={args.files} runs={args.runs}")
            for way in ways:
                c = statistics.median(c for c, _ in got[way])
                w = statistics.median(w for _, w in got[way])
                print(f"  {way:17} cpu {c:.3f} s ({(c - base) / base:+.1%})  wall {w:.3f} s")


if __name__ == "__main__":
    main()
