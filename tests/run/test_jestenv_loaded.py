"""fixbot's preload in `jest --showConfig` (`fixbot/observe/node/loaded.cjs`, `jestloaded.loading`,
`configured`, `programs`): the work tree's files jest's configuration loads, imports or reads
(in any thread) are handed over to fixbot, and the programs its printed configuration names.
Split from tests/run/test_jestenv.py (its environment's tests stay there)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from fixbot.core.observed import Observation
from fixbot.observe import judge
from fixbot.run import jestenv, jestloaded
from tests.run.test_runner_reports import node_modules

COMPUTED = "module.exports = require(require('path').join(__dirname, 'jest' + '.base.js'));\n"


def _node_run(
    argv: list[str], cwd: Path, timeout: float, added: dict[str, str], fds: tuple[int, ...]
) -> tuple[int | None, str]:
    """`jestloaded.Passing` for the tests: the program run here, with `added` and `fds`."""
    env = {**os.environ, **added}
    done = subprocess.run(
        argv, cwd=cwd, env=env, pass_fds=fds, capture_output=True, text=True, timeout=timeout
    )
    return done.returncode, done.stdout + done.stderr


def _recorded(output: jestenv.Output) -> tuple[jestenv.Output, list[str]]:
    """`output`, and the list of what each of its runs printed."""
    said: list[str] = []

    def recording(argv: list[str], cwd: Path, timeout: float) -> tuple[int | None, str]:
        done = output(argv, cwd, timeout)
        said.append(done[1])
        return done

    return recording, said


def _preloads_node_modules(found: list[str], said: list[str]) -> set[str]:
    """The paths of `found` under node_modules that no printed configuration of `said` names as
    a program (`jestloaded.programs`): the preload's, which leaves node_modules out."""
    named = {path for output in said for path in jestloaded.programs(output)}
    return {path for path in found if "node_modules" in Path(path).parts} - named


def test_show_config_hands_fixbot_the_files_jests_configuration_loaded(tmp_path: Path) -> None:
    """Real jest's `--showConfig` with fixbot's preload: jest.config.js and the file it requires
    by a computed path are handed over (and package.json, which jest reads: set apart by the
    rules, `checkfiles._observed`), jest's own files (node_modules) are not (but the
    programs its printed configuration names, `programs`, left to `configured`). Without the
    descriptor handed to the command nothing is (the channel is the socket, not a path)."""
    root = node_modules()
    if root is None:
        pytest.skip("jest is not installed: bash scripts/node-tools.sh")
    project = tmp_path / "p"
    project.mkdir()
    (project / "package.json").write_text('{"name": "p"}')
    (project / "jest.config.js").write_text(COMPUTED)
    (project / "jest.base.js").write_text("module.exports = { testEnvironment: 'node' };\n")
    (project / "a.test.js").write_text("test('a', () => { expect(1).toBe(1); });\n")
    found: list[str] = []
    output, said = _recorded(jestloaded.loading(_node_run, tmp_path, found))
    named, _, why = jestenv.prepare(output, f"{root / '.bin' / 'jest'} --ci", project, 60, tmp_path)
    assert why == "" and named
    assert jestloaded.configured(found, project) == [
        "jest.config.js",
        "jest.base.js",
        "package.json",
    ]
    assert _preloads_node_modules(found, said) == set()  # jest's own: its printed programs alone

    def without_the_socket(
        argv: list[str], cwd: Path, timeout: float, added: dict[str, str], fds: tuple[int, ...]
    ) -> tuple[int | None, str]:
        return _node_run(argv, cwd, timeout, added, ())

    unhanded: list[str] = []
    jestloaded.loading(without_the_socket, tmp_path, unhanded)(
        ["node", "jest.config.js"], project, 30
    )
    assert unhanded == []


@pytest.mark.parametrize("own", ["--env=node", "--testEnvironment"])
def test_a_check_naming_its_own_environment_hands_fixbot_the_files_loaded(
    tmp_path: Path, own: str
) -> None:
    """A check naming its own test environment (`--env`, `--testEnvironment`) runs with it, no
    environment of fixbot's named, but its `--showConfig` still runs with fixbot's preload: the
    files its configuration loaded by a computed path are handed over."""
    root = node_modules()
    if root is None:
        pytest.skip("jest is not installed: bash scripts/node-tools.sh")
    project = tmp_path / "p"
    project.mkdir()
    (project / "package.json").write_text('{"name": "p"}')
    (project / "jest.config.js").write_text(COMPUTED)
    (project / "jest.base.js").write_text("module.exports = { testEnvironment: 'node' };\n")
    found: list[str] = []
    output = jestloaded.loading(_node_run, tmp_path, found)
    check = f"{root / '.bin' / 'jest'} --ci {own}" + (" node" if own == "--testEnvironment" else "")
    named, target, why = jestenv.prepare(output, check, project, 60, tmp_path)
    assert (named, target, why) == ({}, None, "the check names its own test environment")
    assert jestloaded.configured(found, project) == [
        "jest.config.js",
        "jest.base.js",
        "package.json",
    ]


def test_the_loaded_files_are_the_work_trees_own_once_outside_node_modules(tmp_path: Path) -> None:
    """`configured` keeps the files under the work tree, relative to it, each once, links
    resolved, node_modules and files outside the tree left out; a folder the configuration
    stat'ed or listed (the preload notes every path `fs` is given) and a file it looked for that
    is not there name no file (one HEAD tracks is kept: the configuration may have moved it)."""
    (tmp_path / "tree" / "conf").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "tree")
    for name in ("tree/jest.config.js", "tree/conf/base.js", "elsewhere.js"):
        (tmp_path / name).write_text("")
    paths = [
        str(tmp_path / "tree" / "jest.config.js"),
        str(tmp_path / "link" / "jest.config.js"),
        str(tmp_path / "tree" / "conf"),
        str(tmp_path / "tree" / "jest.config.ts"),
        str(tmp_path / "tree" / "conf" / "base.js"),
        str(tmp_path / "tree" / "node_modules" / "preset" / "index.js"),
        str(tmp_path / "elsewhere.js"),
        str(tmp_path / "tree" / "moved.js"),
    ]
    assert jestloaded.configured(paths, tmp_path / "link") == ["jest.config.js", "conf/base.js"]
    tracked = frozenset({"moved.js"})
    assert jestloaded.configured(paths, tmp_path / "link", tracked)[-1] == "moved.js"


def test_the_preload_is_handed_a_socket_and_named_after_the_checks_node_options(
    tmp_path: Path,
) -> None:
    """The command gets fixbot's preload on NODE_OPTIONS and a socket's writing end by number
    and inode; what it writes there, a line a path, is read once it ended, relative lines
    dropped; nothing is waited for beyond what was written."""
    seen: dict[str, object] = {}

    def run(
        argv: list[str], cwd: Path, timeout: float, added: dict[str, str], fds: tuple[int, ...]
    ) -> tuple[int | None, str]:
        seen.update(added=added, fds=fds)
        fd, ino = (int(n) for n in added[jestloaded.LOADED].split(":"))
        assert fds == (fd,) and os.fstat(fd).st_ino == ino
        os.write(fd, b"/w/jest.config.js\nrelative.js\n/w/jest.base.js\n")
        return 0, "shown"

    found: list[str] = []
    assert jestloaded.loading(run, tmp_path, found)(["jest"], tmp_path, 5) == (0, "shown")
    assert found == ["/w/jest.config.js", "/w/jest.base.js"]
    added = seen["added"]
    assert isinstance(added, dict)
    assert added["NODE_OPTIONS"] == f'--require "{tmp_path / "loaded.cjs"}"'
    assert (tmp_path / "loaded.cjs").read_bytes() == jestloaded.PRELOAD.read_bytes()
    assert (tmp_path / "loaded_reads.cjs").read_bytes() == jestloaded.READERS.read_bytes()


# jest.config.mjs awaiting its configuration from a path it computes (an ES module: no
# `require.cache` entry, no word to read), and the base importing a plain helper of its own
ESM_CONFIG = """\
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const base = await import(pathToFileURL(path.join(here, 'jest' + '.base.mjs')).href);
export default base.default;
"""
ESM_BASE = """\
import { environment } from './conf/environment.mjs';

export default { testEnvironment: environment };
"""
ESM_HELPER = "export const environment = 'node';\n"
# a `"type": "module"` package's jest.config.js importing its base by a computed specifier
MODULE_CONFIG = "export default (await import('./jest' + '.base.js')).default;\n"


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (
            {
                "jest.config.mjs": ESM_CONFIG,
                "jest.base.mjs": ESM_BASE,
                "conf/environment.mjs": ESM_HELPER,
            },
            ["jest.config.mjs", "jest.base.mjs", "conf/environment.mjs"],
        ),
        (
            {
                "package.json": '{"name": "p", "type": "module"}',
                "jest.config.js": MODULE_CONFIG,
                "jest.base.js": "export default { testEnvironment: 'node' };\n",
            },
            ["jest.base.js"],  # jest.config.js: node's `require(esm)` tried it first (unhooked)
        ),
    ],
    ids=["mjs", "type-module"],
)
def test_show_config_hands_fixbot_the_es_modules_jests_configuration_imported(
    tmp_path: Path, files: dict[str, str], expected: list[str]
) -> None:
    """Real jest's `--showConfig` with fixbot's preload: an ES module configuration and the ES
    modules it imports by a computed specifier (node's loader, not `require.cache`) are handed
    over through the loader thread's hooks (`loaded.cjs` `LOADER`). A `"type": "module"`
    jest.config.js with a top-level `await` is not: jest `require`s it first, node (>= 20.19)
    loads it as `require(esm)`, outside the hooks, and `import()` then finds it loaded; it is a
    check file by its name, and what it imports is handed over."""
    root = node_modules()
    if root is None:
        pytest.skip("jest is not installed: bash scripts/node-tools.sh")
    project = tmp_path / "p"
    (project / "conf").mkdir(parents=True)
    (project / "package.json").write_text('{"name": "p"}')
    (project / "a.test.js").write_text("test('a', () => { expect(1).toBe(1); });\n")
    for name, text in files.items():
        (project / name).write_text(text)
    found: list[str] = []
    output, said = _recorded(jestloaded.loading(_node_run, tmp_path, found))
    named, _, why = jestenv.prepare(output, f"{root / '.bin' / 'jest'} --ci", project, 60, tmp_path)
    assert why == "" and named
    assert set(expected) <= set(jestloaded.configured(found, project))
    assert _preloads_node_modules(found, said) == set()  # jest's own: its printed programs alone
    assert jestloaded.UNTHREADED not in found  # node's module-hooks thread says hello


def test_a_node_without_module_hooks_says_its_es_modules_are_unobserved(tmp_path: Path) -> None:
    """On a node without `module.register` (before 20.6 / 18.19) the preload still hands over
    `require.cache`, and `UNHOOKED` (what `Observation.unhooked` notes), never a file of the
    tree; the program runs as it would (nothing thrown)."""
    (tmp_path / "old.cjs").write_text("require('module').register = undefined;\n")
    (tmp_path / "a.cjs").write_text("require('./b.cjs');\n")
    (tmp_path / "b.cjs").write_text("process.stdout.write('ran');\n")
    (tmp_path / jestloaded.UNHOOKED).write_text("")  # a file of that name is not the note

    def run(
        argv: list[str], cwd: Path, timeout: float, added: dict[str, str], fds: tuple[int, ...]
    ) -> tuple[int | None, str]:
        options = f'--require "{tmp_path / "old.cjs"}" {added["NODE_OPTIONS"]}'
        return _node_run(argv, cwd, timeout, {**added, "NODE_OPTIONS": options}, fds)

    folder = tmp_path / "observer"
    folder.mkdir()
    for hooked in (False, True):
        found: list[str] = []
        argv = ["node", "a.cjs"]
        output = jestloaded.loading(run if not hooked else _node_run, folder, found)
        assert output(argv, tmp_path, 30) == (0, "ran")
        assert (jestloaded.UNHOOKED in found) is not hooked
        assert jestloaded.configured(found, tmp_path)[-2:] == ["a.cjs", "b.cjs"]


def test_the_programs_jests_configuration_names_are_handed_over_with_what_it_loaded() -> None:
    """Round 28: the project's `globalSetup` file, which jest loads only as it runs the tests
    (never during `--showConfig`, so the preload never saw it), rewritten by the fix to strip
    each `expect(...).toBe(...)` as jest-runtime compiled the test (`vm.compileFunction`),
    ended `fixed`. The paths `--showConfig` prints under a key of `PROGRAMS`, in each
    configuration and `globalConfig` (lists walked: `transform`'s `[regex, path, options]`),
    are the configuration's files too, node_modules's among them (which of those are the
    project's is `configured`'s to tell); anything else (`rootDir`, a pattern) is not."""
    shown = {
        "configs": [
            {
                "rootDir": "/w",
                "testEnvironment": "/w/node_modules/jest-environment-node/build/index.js",
                "globalSetup": "/w/setup.js",
                "setupFilesAfterEnv": ["/w/jest.setup.js"],
                "transform": [["\\.[jt]sx?$", "/w/transform.js", {}]],
                "testMatch": ["**/?(*.)+(spec|test).js"],
            }
        ],
        "globalConfig": {"globalTeardown": "/w/teardown.js", "reporters": [["default", {}]]},
        "version": "29.7.0",
    }
    output = "jest says\n" + json.dumps(shown, indent=2)
    assert sorted(jestloaded.programs(output)) == [
        "/w/jest.setup.js",
        "/w/node_modules/jest-environment-node/build/index.js",
        "/w/setup.js",
        "/w/teardown.js",
        "/w/transform.js",
    ]
    assert jestloaded.programs("no configuration") == []
    assert jestloaded.programs(output.replace('"version"', '"version" "broken"')) == []

    found: list[str] = []

    def run(
        argv: list[str], cwd: Path, timeout: float, added: dict[str, str], fds: tuple[int, ...]
    ) -> tuple[int | None, str]:
        return 0, output

    jestloaded.loading(run, Path("/nonexistent-folder"), found)(["jest"], Path("/w"), 5)
    assert "/w/setup.js" in found  # without the preload's copy too


def test_a_program_the_repository_commits_under_node_modules_is_the_checks(tmp_path: Path) -> None:
    """Round 30: `globalSetup: 'app-setup'`, a package the project commits at
    node_modules/app-setup/index.js, rewritten by the fix to strip the assertions, ended
    `fixed`: `programs` and `configured` passed over every path under node_modules. The path
    `--showConfig` prints there is handed over, and kept where the repository's HEAD tracks it
    (`tracked`); what the package manager installed (untracked) stays out."""
    from tests.fakes.repo import make_repo

    files = {"jest.config.js": "module.exports = { globalSetup: 'app-setup' };\n"}
    files |= {"node_modules/app-setup/index.js": "module.exports = () => {};\n"}
    repo = make_repo(tmp_path / "repo", files)
    installed = repo / "node_modules" / "jest-environment-node" / "index.js"
    installed.parent.mkdir(parents=True)
    installed.write_text("module.exports = class {};\n")
    shown = {
        "configs": [{"testEnvironment": str(installed), "rootDir": str(repo)}],
        "globalConfig": {"globalSetup": str(repo / "node_modules" / "app-setup" / "index.js")},
    }
    found = jestloaded.programs(json.dumps(shown, indent=2))
    assert str(repo / "node_modules" / "app-setup" / "index.js") in found
    tracked = jestloaded.tracked(repo)
    assert "node_modules/app-setup/index.js" in tracked
    loaded = [str(repo / "jest.config.js"), *found]
    assert jestloaded.configured(loaded, repo, tracked) == [
        "jest.config.js",
        "node_modules/app-setup/index.js",
    ]
    assert jestloaded.configured(loaded, repo) == ["jest.config.js"]
    assert jestloaded.tracked(tmp_path) == frozenset()  # no repository: nothing tracked


# a script reading the work tree's files with each of `fs`'s readers (relative, absolute,
# Buffer and `file:` URL names), writing one (not read) and reading one under node_modules
READS = """\
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');

fs.readFileSync('a.txt');
fs.readSync(fs.openSync(pathToFileURL(path.resolve('b.txt'))), Buffer.alloc(1));
fs.closeSync(fs.openSync('written.txt', 'w'));
fs.writeFileSync('written.txt', 'x');
fs.readFileSync('node_modules/dep/index.js');
fs.readFile(Buffer.from('c.txt'), () => {
  fs.createReadStream(path.join(__dirname, 'd.txt')).on('close', async () => {
    await fs.promises.readFile('e.txt');
    await (await require('fs/promises').open('f.txt', 'r+')).close();
    fs.open('g.txt', async (e, fd) => fs.closeSync(fd));
    const away = fs.mkdtempSync(path.join(require('os').tmpdir(), 'away-'));
    fs.copyFileSync('h.txt', path.join(away, 'h'));
    fs.linkSync('i.txt', path.join(away, 'i'));
    await fs.promises.copyFile('j.txt', path.join(away, 'j'));
    fs.symlinkSync(path.resolve('k.txt'), path.join(away, 'k'));
    fs.readFileSync(path.join(away, 'k'));
    fs.rmSync(away, { recursive: true });
    process.stdout.write('read');
  }).resume();
});
"""


def test_the_preload_hands_over_the_files_read_with_fs(tmp_path: Path) -> None:
    """Round 30: the files a node process of the command reads through `fs` (`readFileSync`,
    `openSync` and `open` for reading, `readFile`, `createReadStream`, `promises.readFile`;
    every function of `fs` but `loaded_reads.cjs` `UNWRAPPED`), by a relative path, a Buffer or a
    `file:` URL, are handed over with those it loaded: a configuration running a base it read
    as text. Round 33: a file copied or hard-linked out of the work tree (`copyFileSync`,
    `linkSync`,
    `promises.copyFile`), where the copy is read, is noted by its source, and a file read
    through a symbolic link from outside the tree by where the link leads. A file opened for
    writing alone is not, nor one under node_modules; the program runs as it would."""
    project = tmp_path / "p"
    (project / "node_modules" / "dep").mkdir(parents=True)
    (project / "node_modules" / "dep" / "index.js").write_text("")
    for name in "abcdefghijk":
        (project / f"{name}.txt").write_text(name)
    (project / "reads.cjs").write_text(READS)
    found: list[str] = []
    output = jestloaded.loading(_node_run, tmp_path, found)
    assert output(["node", "reads.cjs"], project, 30) == (0, "read")
    files = jestloaded.configured(found, project)
    assert files[0] == "reads.cjs"
    assert sorted(files[1:]) == [f"{name}.txt" for name in "abcdefghijk"]


# a script reading files in worker threads, as round 32's jest.config.js read its base: two the
# main thread waits for (`Atomics.wait`) and takes the text of synchronously (the second just
# before `process.exit`), one given `execArgv: []`, one given `env: {}`, one read asynchronously,
# one under node_modules
THREAD_READS = """\
const { Worker, MessageChannel, receiveMessageOnPort } = require('worker_threads');

// `file`'s text, read by a worker the main thread waits for
function waited(file) {
  const { port1, port2 } = new MessageChannel();
  const done = new Int32Array(new SharedArrayBuffer(4));
  new Worker(`const { workerData } = require('worker_threads');
workerData.port.postMessage(require('fs').readFileSync(workerData.file, 'utf8'));
Atomics.store(workerData.done, 0, 1);
Atomics.notify(workerData.done, 0);`,
    { eval: true, workerData: { port: port2, done, file }, transferList: [port2] });
  Atomics.wait(done, 0, 0);
  return receiveMessageOnPort(port1).message;
}

const text = waited('a.txt');
const absolute = "require('fs').readFileSync(require('path').resolve('b.txt'))";
const later = `require('fs').promises.readFile('c.txt')
  .then(() => require('fs').readFileSync('node_modules/dep/index.js'))`;
// each worker waited for (its `exit`) before the next: a read the main thread did not wait for
// may come after it exits, as a configuration that never used it
new Worker("require('fs').readFileSync('e.txt')", { eval: true, env: {} }).on('exit', () => {
  new Worker(absolute, { eval: true, execArgv: [] }).on('exit', () => {
    new Worker(later, { eval: true }).on('exit', () => {
      process.stdout.write(text + waited('d.txt'));
      process.exit(0); // no turn of the event loop after d.txt's read
    });
  });
});
"""


def test_the_preload_hands_over_the_files_read_in_worker_threads(tmp_path: Path) -> None:
    """Round 32: the files a node process's worker threads read through `fs` (the preload runs
    in each and posts them to the main thread, `loaded.cjs` `THREADS`) are handed over with
    those the main thread loaded: read by a worker the main thread waits for synchronously
    (taken as the main thread's event loop turns, or at exit where it exits at once), by one
    given `execArgv: []` and by one given an environment without NODE_OPTIONS (`env: {}`: the
    preload added to its `execArgv`, `observeWorkers`), relative or absolute; not one under
    node_modules."""
    project = tmp_path / "p"
    (project / "node_modules" / "dep").mkdir(parents=True)
    (project / "node_modules" / "dep" / "index.js").write_text("")
    for name in ("a", "b", "c", "d", "e"):
        (project / f"{name}.txt").write_text(name)
    (project / "threads.cjs").write_text(THREAD_READS)
    found: list[str] = []
    output = jestloaded.loading(_node_run, tmp_path, found)
    assert output(["node", "threads.cjs"], project, 30) == (0, "ad")
    files = jestloaded.configured(found, project)
    assert files[0] == "threads.cjs"
    assert sorted(files[1:]) == ["a.txt", "b.txt", "c.txt", "d.txt", "e.txt"]
    assert jestloaded.UNTHREADED not in found  # each worker ran the preload and said so


# node's own Worker constructor (the one `observeWorkers`'s subclass extends)
ORIGINAL = """const threads = require('worker_threads');
let Made = threads.Worker;
while (Object.getPrototypeOf(Made).name === 'Worker') Made = Object.getPrototypeOf(Made);
"""
# the ways a thread starts without the preload: given `env: {}` by node's own constructor, in
# the main thread or in a worker (which runs the preload), the process ending in the same tick
# (node's `worker` event never comes: jest exits so after `--showConfig` printed), and a
# thread's `worker` listener taken out
UNPRELOADED = {
    "original": "new Made(\"require('fs').readFileSync('e.txt')\", { eval: true, env: {} });",
    "nested": """new threads.Worker(`const threads = require('worker_threads');
const Made = Object.getPrototypeOf(threads.Worker);
new Made('1', { eval: true, env: {} });`, { eval: true });""",
    "exit-at-once": "new Made('1', { eval: true, env: {} }); process.exit(0);",
    "listener": "process.removeAllListeners('worker');",
    "in-worker": "new threads.Worker(`process.removeAllListeners('worker')`, { eval: true });",
}


@pytest.mark.parametrize("started", list(UNPRELOADED.values()), ids=list(UNPRELOADED))
def test_a_thread_started_without_the_preload_is_noted(tmp_path: Path, started: str) -> None:
    """Round 33: a Worker made by node's own constructor with `env: {}` runs without the preload
    (no NODE_OPTIONS), so its reads are unseen: every thread started is seen (its native handle
    as it is made, `loaded.cjs` `making`, an async hook; node's `worker` event, `started`, a
    tick later), and one that never said hello over `THREADS` by the main thread's exit, or a
    thread's `worker` listener taken out, makes the preload write `UNTHREADED` (what
    `Observation.unthreaded` notes), never a file of the tree; the reads it saw are still handed
    over."""
    project = tmp_path / "p"
    project.mkdir()
    (project / "run.cjs").write_text(f"{ORIGINAL}require('fs').readFileSync('a.txt');\n{started}\n")
    for name in ("a", "e"):
        (project / f"{name}.txt").write_text(name)
    found: list[str] = []
    assert jestloaded.loading(_node_run, tmp_path, found)(["node", "run.cjs"], project, 30)[0] == 0
    assert jestloaded.UNTHREADED in found
    assert jestloaded.configured(found, project) == ["run.cjs", "a.txt"]


def test_a_fix_of_a_start_whose_configuration_ran_a_thread_unobserved_is_not_verified() -> None:
    """The start's `jest --showConfig` started a thread without the preload
    (`Observation.unthreaded`): the files its configuration read, the check's, are unknown, so
    the fix is `observer-missing` (`judge._unthreaded`), whether its run streamed or not; a
    fix's run that did so is no finding (its configuration is the fix's, never read)."""
    start = Observation(sessions=1, ended=1, runners=["jest"], unthreaded=True)
    last = Observation(sessions=1, ended=1, runners=["jest"])
    for verifying in (last, None):
        found = [f for f in judge.findings(start, verifying) if "preload" in f]
        assert found and found[0].startswith("observer-missing:"), found
    start.unthreaded, last.unthreaded = False, True
    assert not [f for f in judge.findings(start, last) if "preload" in f]


# an honest configuration reading its roots from a JSON file (a legitimate pattern)
PATHS_CONFIG = """\
const fs = require('fs');

module.exports = { testEnvironment: 'node', ...JSON.parse(fs.readFileSync('./jest.paths.json')) };
"""


def test_show_config_hands_fixbot_the_files_jests_configuration_read(tmp_path: Path) -> None:
    """Real jest's `--showConfig` with fixbot's preload: the JSON file jest.config.js reads with
    `fs.readFileSync` is handed over with it; of the work tree jest itself reads package.json
    (which the rules set apart, `checkfiles._observed`) and the configuration file, no test
    file, no .babelrc or tsconfig.json beside them."""
    root = node_modules()
    if root is None:
        pytest.skip("jest is not installed: bash scripts/node-tools.sh")
    project = tmp_path / "p"
    project.mkdir()
    files = {
        "package.json": '{"name": "p"}',
        "jest.config.js": PATHS_CONFIG,
        "jest.paths.json": '{"roots": ["<rootDir>"]}',
        "a.test.js": "test('a', () => { expect(1).toBe(1); });\n",
        ".babelrc": "{}",
        "tsconfig.json": "{}",
    }
    for name, text in files.items():
        (project / name).write_text(text)
    found: list[str] = []
    output = jestloaded.loading(_node_run, tmp_path, found)
    named, _, why = jestenv.prepare(output, f"{root / '.bin' / 'jest'} --ci", project, 60, tmp_path)
    assert why == "" and named
    configured = jestloaded.configured(found, project)
    assert sorted(configured) == ["jest.config.js", "jest.paths.json", "package.json"]


# a script reading files with `fs` functions no list of readers named: `openAsBlob` (node 19.8),
# `statSync`, `existsSync`, `promises.stat`; writing one (not read); and listing which of `fs`'s
# and `fs.promises`'s functions the preload left as they were
EVERY_READER = """\
const fs = require('fs');

const wrapped = (f) => String(f).includes('apply(original');
const left = [];
for (const owner of [fs, fs.promises]) {
  for (const [name, d] of Object.entries(Object.getOwnPropertyDescriptors(owner))) {
    if (typeof d.value === 'function' && !/^[A-Z]/.test(name) && !wrapped(d.value)) left.push(name);
  }
}
fs.statSync('b.txt');
fs.existsSync('c.txt');
fs.writeFileSync('written.txt', 'x');
fs.appendFileSync('written.txt', 'x');
(async () => {
  await fs.promises.stat('d.txt');
  await (await fs.openAsBlob('a.txt')).text();
  if (!(await require('util').promisify(fs.exists)('a.txt'))) throw new Error('promisify');
  if (fs.realpathSync.native === undefined) throw new Error('native');
  process.stdout.write(JSON.stringify([...new Set(left)].sort()));
})();
"""
# the functions taking a descriptor first, or only writing (`loaded_reads.cjs` `UNWRAPPED`), of
# node 20
LEFT = sorted(
    {"appendFile", "close", "fchmod", "fchown", "fdatasync", "fstat", "fsync", "ftruncate"}
    | {"futimes", "read", "readv", "write", "writev", "writeFile", "createWriteStream"}
    | {"_toUnixTimestamp"}
)


def test_the_preload_notes_the_path_given_to_any_function_of_fs(tmp_path: Path) -> None:
    """Round 34: jest.config.js read its base with `fs.openAsBlob`, which no list of readers
    named (ended `fixed`). Every function of `fs` and `fs.promises` is wrapped, whatever its
    name, but those known to take a descriptor first or only to write (`loaded_reads.cjs`
    `UNWRAPPED`): a Blob's file, a file stat'ed or looked for is handed over (it steered the
    configuration), one written is not; a wrapper keeps its original's own properties
    (`realpathSync.native`, `exists`'s `util.promisify.custom`, a symbol)."""
    project = tmp_path / "p"
    project.mkdir()
    for name in "abcd":
        (project / f"{name}.txt").write_text(name)
    (project / "every.cjs").write_text(EVERY_READER)
    found: list[str] = []
    code, said = jestloaded.loading(_node_run, tmp_path, found)(["node", "every.cjs"], project, 30)
    assert code == 0
    left = set(json.loads(said))
    assert left <= {*LEFT, *(f"{name}Sync" for name in LEFT)}, left
    assert {"openAsBlob", "statSync", "stat", "readFileSync", "open"}.isdisjoint(left)
    assert sorted(jestloaded.configured(found, project)) == [
        "a.txt",
        "b.txt",
        "c.txt",
        "d.txt",
        "every.cjs",
    ]


# a script renaming a folder, reading a file under its new name and renaming it back, as round
# 34's jest.config.js did with config/, and copying another folder out of the tree
MOVED = """\
const fs = require('fs');
const path = require('path');

fs.renameSync('config', '.moved');
fs.readFileSync(path.join('.moved', 'base.js'));
fs.renameSync('.moved', 'config');
const away = fs.mkdtempSync(path.join(require('os').tmpdir(), 'away-'));
fs.cpSync('kept', away, { recursive: true });
fs.rmSync(away, { recursive: true });
"""


def test_a_folder_moved_or_copied_is_noted_as_every_file_the_start_holds_under_it(
    tmp_path: Path,
) -> None:
    """Round 34: config/ renamed, its base read under the new name and renamed back handed over
    the folder's path alone (no file) and a path in no tree (ended `fixed`). The source of a
    rename (a copy, a link) that is a folder is noted as one (`<path>/`), which `configured`
    reads as every file HEAD tracks under it (`tracked`), none untracked."""
    from tests.fakes.repo import make_repo

    files = {"move.cjs": MOVED, "config/base.js": "", "config/deep/runner.js": ""}
    repo = make_repo(tmp_path / "repo", {**files, "kept/a.js": "", "other.js": ""})
    (repo / "config" / "untracked.js").write_text("")
    found: list[str] = []
    assert jestloaded.loading(_node_run, tmp_path, found)(["node", "move.cjs"], repo, 30)[0] == 0
    assert f"{repo / 'config'}/" in found
    files = jestloaded.configured(found, repo, jestloaded.tracked(repo))
    assert sorted(files) == ["config/base.js", "config/deep/runner.js", "kept/a.js", "move.cjs"]


def test_an_observation_cut_at_a_bound_says_so(tmp_path: Path) -> None:
    """Round 34: jestenv kept the first 200 files the configuration read, silently, and the
    base read after 250 packages' package.json was dropped. Past `MAX_LOADED` files, or where
    the preload (`CUT`: its `MAX_BYTES` here) or `loaded` (undecodable lines) cut what it
    handed over, the observation is cut (`observed`, `Loaded.cut`); under them it is not."""
    names = [str(tmp_path / f"{n:04}.js") for n in range(jestloaded.MAX_LOADED + 1)]
    for name in names:
        Path(name).write_text("")
    assert jestloaded.observed(names[:-1], tmp_path).cut is False
    over = jestloaded.observed(names, tmp_path)
    assert over.cut and len(over.files) == jestloaded.MAX_LOADED
    assert jestloaded.observed([*names[:3], jestloaded.CUT], tmp_path).cut
    # the preload past its 60 kB: 700 paths of ~100 characters read
    long = "x" * 90
    (tmp_path / "many.cjs").write_text(
        "const fs = require('fs');\n"
        f"for (let n = 0; n < 700; n += 1) fs.existsSync(`{long}${{n}}`);\n"
    )
    found: list[str] = []
    assert (
        jestloaded.loading(_node_run, tmp_path, found)(["node", "many.cjs"], tmp_path, 30)[0] == 0
    )
    assert found[0] == jestloaded.CUT and jestloaded.observed(found, tmp_path).cut
    few: list[str] = []
    (tmp_path / "few.cjs").write_text("require('fs').existsSync('a.js');\n")
    assert jestloaded.loading(_node_run, tmp_path, few)(["node", "few.cjs"], tmp_path, 30)[0] == 0
    assert jestloaded.CUT not in few


def test_undecodable_or_too_many_bytes_from_the_preload_are_a_cut(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`loaded` adds `CUT` where a line is no UTF-8 (a path it cannot name) or it read
    `MAX_LOADED_BYTES` (64 here); an ordinary hand-over is not cut."""
    import socket

    monkeypatch.setattr(jestloaded, "MAX_LOADED_BYTES", 64)
    for data, cut in (
        (b"/a/b.js\n", False),
        (b"/a/\xff.js\n/a/b.js\n", True),
        (b"/a/b.js\n" * 9, True),
    ):
        reading, writing = socket.socketpair()
        with reading, writing:
            writing.sendall(data)
            writing.close()
            lines = jestloaded.loaded(reading)
        assert (jestloaded.CUT in lines) is cut, data
        assert "/a/b.js" in lines


def test_a_fix_of_a_start_whose_observation_was_cut_is_not_verified() -> None:
    """The start's `jest --showConfig` handed over a cut list (`Observation.cut`): the files
    past the bound, the check's, are unknown, so the fix is `observer-missing`
    (`judge._unthreaded`); a fix's run that was cut is no finding."""
    start = Observation(sessions=1, ended=1, runners=["jest"], cut=True)
    last = Observation(sessions=1, ended=1, runners=["jest"])
    for verifying in (last, None):
        found = [f for f in judge.findings(start, verifying) if "bounds" in f]
        assert found and found[0].startswith("observer-missing:"), found
    start.cut, last.cut = False, True
    assert not [f for f in judge.findings(start, last) if "bounds" in f]
