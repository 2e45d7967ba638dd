"""A node check's functions ranked from V8's own coverage (NODE_V8_COVERAGE), on a real small
package run by a real node."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from fixbot.agent import context, locate, nodecov, nodelines, nodenear, runnercov, spectrum
from fixbot.core.budget import Deadline
from fixbot.process.launcher import Launcher
from tests.agent.test_locate import write
from tests.run.test_runner_reports import missing, node_modules

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")

# `parse` returns the wrong value only for a key named "__proto__": the branch that handles it
# runs once, under the failing assertion; `unused` never runs.
INDEX = """\
var setKey = require('./lib/set');

module.exports = function parse(args) {
    var out = {};
    for (var i = 0; i < args.length; i++) {
        var parts = args[i].split('=');
        setKey(out, parts[0], parts[1]);
    }
    return out;
};

function unused() {
    return 42;
}
"""
SET = """\
module.exports = function setKey(obj, key, value) {
    if (key === '__proto__') {
        obj.polluted = value;
        return;
    }
    obj[key] = value;
};
"""
TEST = """\
var assert = require('assert');
var parse = require('../');
assert.deepStrictEqual(parse(['a=1']), {a: '1'});
assert.deepStrictEqual(parse(['__proto__=2']), {});
"""
FILES = {
    "package.json": json.dumps({"name": "tiny", "version": "1.0.0", "main": "index.js"}),
    "index.js": INDEX,
    "lib/set.js": SET,
    "test/parse.js": TEST,
}


def _printed(scripts: dict[str, object]) -> str:
    """The command's output for V8's report of `scripts` (path -> functions), one line each."""
    lines = [json.dumps({"path": path, "functions": fns}) for path, fns in scripts.items()]
    return "\n".join([nodecov.MARK, *lines, ""])


def _run(repo: Path, check: str) -> str:
    done = subprocess.run(
        ["sh", "-c", nodecov.command(check)], cwd=repo, capture_output=True, text=True, check=False
    )
    return done.stdout


@needs_node
def test_the_functions_a_failing_node_check_ran_are_ranked_nearest_first(tmp_path: Path) -> None:
    repo = write(tmp_path, FILES)
    coverage = nodecov.parse(_run(repo, "node test/parse.js"))
    assert set(coverage) == {"index.js", "lib/set.js", "test/parse.js"}  # no node_modules
    spans = nodecov.rank(repo, coverage, nodenear.test_files(repo, "node test/parse.js", []))
    assert [(s.path, s.name, s.start, s.end, s.score) for s in spans] == [
        ("index.js", "parse", 3, 10, 0.8),  # the package's main, which the test requires
        ("lib/set.js", "setKey", 1, 7, 0.65),  # required by the main the test requires
    ]
    assert nodenear.nearness("lib/parse.js", ["test/parse.js"], set()) == 1.0  # the same stem
    # `unused` never ran; the test's own top level is no function of the repository's code
    assert all(s.name != "unused" for s in spans)


@needs_node
def test_a_long_function_is_focused_on_its_rarely_run_blocks(tmp_path: Path) -> None:
    body = "".join(f"    if (key === 'k{n}') {{ return {n}; }}\n" for n in range(90))
    long = f"module.exports = function pick(key) {{\n{body}    return -1;\n}};\n"
    test = "var pick = require('../');\nfor (var i = 0; i < 5; i++) pick('k3');\npick('k70');\n"
    repo = write(tmp_path, {**FILES, "index.js": long, "test/pick.js": test})
    spans = nodecov.rank(repo, nodecov.parse(_run(repo, "node test/pick.js")), ["test/pick.js"])
    pick = next(s for s in spans if s.name == "pick")
    assert pick.end - pick.start > 80
    assert 72 in pick.focus  # `return 70`: where the last call returned


def test_a_report_naming_files_outside_the_repository_ranks_none_of_them(tmp_path: Path) -> None:
    """The report crosses back from the project's command: a forged one cannot put a file
    outside the repository (a secret beside it, a link out of it) into the model's request."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (tmp_path / "secret.js").write_text("function token() { return 'hunter2'; }\n")
    (repo / "link.js").symlink_to(tmp_path / "secret.js")
    function = [["token", [[1, 37, 1]]]]
    forged = {path: function for path in ("../secret.js", "link.js", str(tmp_path / "secret.js"))}
    assert nodecov.rank(repo, nodecov.parse(_printed(forged)), []) == []
    mapped = [{"mapped": path, "functions": [["token", 1, 1, 1]], "blocks": []} for path in forged]
    output = "\n".join([nodecov.MARK, *map(json.dumps, mapped)])
    assert set(nodecov.parse_mapped(output)) == set(forged)
    assert nodecov.rank(repo, {}, [], [("link.js", 1)], nodecov.parse_mapped(output)) == []
    # nor its lines into what a quoted phrase is narrowed to (`literals.narrowed`)
    assert (
        nodelines.executed(repo, nodecov.parse(_printed(forged)), [], nodecov.parse_mapped(output))
        == {}
    )
    assert nodecov.parse("no marker") == {}
    assert nodecov.parse(nodecov.MARK + '\n{"path": "index.js", "functions": [["cut') == {}


def test_a_runners_report_naming_files_outside_the_repository_ranks_none_of_them(
    tmp_path: Path,
) -> None:
    """jest's or vitest's report crosses back the same way, with the same refusal."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (tmp_path / "secret.js").write_text("function token() { return 'hunter2'; }\n")
    (repo / "link.js").symlink_to(tmp_path / "secret.js")
    lines = {"functions": [["token", 1, 1, 1]], "blocks": []}
    paths = ("../secret.js", "link.js", str(tmp_path / "secret.js"))
    forged = {"provider": True, "files": {path: lines for path in paths}}
    provider, coverage = runnercov.parse_report(nodecov.MARK + "\n" + json.dumps(forged))
    assert provider and set(coverage) == set(paths)
    assert nodecov.rank_lines(repo, coverage, [], [("link.js", 1)]) == []
    assert nodelines.executed(repo, {}, [], coverage) == {}


def test_a_script_the_runner_transformed_before_running_it_is_left_out(tmp_path: Path) -> None:
    """jest runs babel-jest's output (coverage counters, hoisted mocks), not the file: V8's
    offsets then point past the file's end or at other lines, so that script ranks nothing,
    while a script V8 ran as the file reads still does."""
    repo = write(tmp_path, FILES)
    length = len(SET)
    as_read = [["", [[0, length, 1]]], ["setKey", [[15, length - 2, 1]]]]
    grown = [["", [[0, length * 9, 1]]], ["setKey", [[400, length * 8, 1]]]]
    shrunk = [["", [[0, length - 20, 1]]], ["setKey", [[15, 60, 1]]]]
    for report, expected in ((as_read, ["setKey"]), (grown, []), (shrunk, [])):
        output = _printed({"lib/set.js": report})
        spans = nodecov.rank(repo, nodecov.parse(output), ["test/parse.js"])
        assert [s.name for s in spans] == expected
        assert nodecov.transformed(repo, nodecov.parse(output)) == (
            [] if expected else ["lib/set.js"]
        )
    # V8 counts UTF-16 units and node strips a byte-order mark: neither is a transform
    text = "\ufeffvar s = '\U0001f600';\nfunction f() { return s; }\n"
    units = len(text.encode("utf-16-le")) // 2
    assert nodecov.ran_as_on_disk(text, [nodecov.Function("", ((0, units - 1, 1),))])
    assert not nodecov.ran_as_on_disk(text, [nodecov.Function("f", ((20, 40, 1),))])  # no top


@needs_node
@pytest.mark.slow
def test_jests_transformed_scripts_are_mapped_through_the_source_maps_babel_jest_left(
    tmp_path: Path,
) -> None:
    """Real jest under V8's coverage (not its own): it runs babel-jest's output of the files,
    not the files, so V8's offsets name other text; the inline source map babel-jest leaves in
    that output maps them back to the files' lines."""
    root = node_modules()
    if root is None:
        missing("jest is not installed: bash scripts/node-tools.sh")
    test = (
        "const parse = require('../');\n"
        "test('proto', () => expect(parse(['__proto__=2'])).toEqual({}));\n"
    )
    repo = write(tmp_path, {**FILES, "test/parse.test.js": test})
    check = f"{root / '.bin' / 'jest'} --ci test/parse.test.js"
    output = _run(repo, check)
    assert "lib/set.js" not in nodecov.parse(output)  # not as offsets: jest ran other text
    tests = ["test/parse.test.js"]
    spans = nodecov.rank(repo, nodecov.parse(output), tests, (), nodecov.parse_mapped(output))
    assert [(s.path, s.start, s.end, s.name) for s in spans] == [
        ("index.js", 3, 10, "parse"),  # the package's main, which the test requires
        ("lib/set.js", 1, 7, "setKey"),
    ]


@needs_node
@pytest.mark.slow
def test_a_node_projects_check_runs_under_v8_coverage_through_the_launcher(
    tmp_path: Path,
) -> None:
    repo = write(tmp_path / "repo", FILES)
    node = str(Path(shutil.which("node") or "node").parent)
    launcher = Launcher(
        repo, {"PATH": f"{node}:/usr/bin:/bin"}, namespace=False, deadline=Deadline.start(None)
    )
    found, why = spectrum.suspects(launcher, repo, "node test/parse.js", [], 60)
    assert why is None
    assert [s.name for s in found] == ["parse", "setKey"]
    assert not list(repo.glob("coverage*"))  # V8's files stayed out of the work tree
    # a linter's check names no test file: not re-run (its output points at the lines)
    lint = spectrum.suspects(launcher, repo, "eslint .", [], 60, ["index.js"])
    assert lint == ([], "no failing test file named by the check or its output")
    plain = write(tmp_path / "plain", {"t.js": TEST})  # no package.json: not a node project
    assert spectrum.suspects(launcher, plain, "node t.js", [], 60) == (
        [],
        "neither a Python, node nor Go project (no .py file, package.json or go.mod)",
    )


@needs_node
@pytest.mark.slow
def test_a_monorepo_packages_check_is_mapped_to_the_repository_and_covered(
    tmp_path: Path,
) -> None:
    """A check run in a package's folder (`cd packages/tiny`, `npm test --prefix`) prints paths
    relative to that folder: they are mapped to the repository's files, and the package.json
    above them makes it a node project whose spectrum runs."""
    files = {f"packages/tiny/{rel}": text for rel, text in FILES.items()}
    repo = write(tmp_path / "repo", {"README.md": "# a monorepo\n", **files})
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    located = [context.relative_to_repo("test/parse.js", repo)]
    assert located == ["packages/tiny/test/parse.js"]
    node = str(Path(shutil.which("node") or "node").parent)
    launcher = Launcher(
        repo, {"PATH": f"{node}:/usr/bin:/bin"}, namespace=False, deadline=Deadline.start(None)
    )
    check = "cd packages/tiny && node test/parse.js"
    found, why = spectrum.suspects(launcher, repo, check, [], 60, located)
    assert why is None
    assert [(s.path, s.name) for s in found] == [
        ("packages/tiny/index.js", "parse"),
        ("packages/tiny/lib/set.js", "setKey"),
    ]


def test_a_jest_or_vitest_check_is_found_with_where_its_coverage_options_go() -> None:
    """The runner's own word (or the word after `npx`), past vitest's `run`; a word that only
    names a folder or a file is not a runner."""
    assert runnercov.runner("jest src/a.test.js") == ("jest", 4, "")
    assert runnercov.runner("cd pkg && npx vitest run a.test.ts") == ("vitest", 24, "")
    assert runnercov.runner("FOO=1 node_modules/.bin/jest --ci") == ("jest", 28, "")
    assert runnercov.runner("cd jest && node test/parse.js") is None
    assert runnercov.runner("tape test/jest.js") is None
    command = runnercov.runner_command("vitest run a.test.ts", ("vitest", 10, ""))
    assert "(vitest run --coverage.enabled=true --coverage.provider=v8 " in command


def test_a_runners_report_ranks_its_run_functions_focused_on_their_rare_blocks(
    tmp_path: Path,
) -> None:
    repo = write(tmp_path, {**FILES, "test/parse.test.js": "var parse = require('../');\n"})
    report = {
        "provider": True,
        "files": {
            "index.js": {"functions": [["parse", 3, 10, 2], ["unused", 12, 14, 0]], "blocks": []},
            "lib/set.js": {
                "functions": [["setKey", 1, 7, 2]],
                "blocks": [[1, 7, 2], [2, 5, 1], [6, 6, 1]],
            },
            "test/parse.test.js": {"functions": [["(anonymous)", 2, 2, 1]], "blocks": []},
        },
    }
    provider, coverage = runnercov.parse_report(f"noise\n{nodecov.MARK}\n{json.dumps(report)}\n")
    assert provider
    found = nodecov.rank_lines(repo, coverage, ["test/parse.test.js"])
    assert [(s.path, s.start, s.end, s.name, s.score) for s in found] == [
        ("index.js", 3, 10, "parse", 0.8),  # the package's main, which the test requires
        ("lib/set.js", 1, 7, "setKey", 0.65),  # required by that main
    ]
    assert found[1].focus == (2, 5, 6)
    assert runnercov.parse_report(f"{nodecov.MARK}\n{{cut") == (True, {})


def _node_launcher(repo: Path) -> Launcher:
    node = str(Path(shutil.which("node") or "node").parent)
    return Launcher(
        repo, {"PATH": f"{node}:/usr/bin:/bin"}, namespace=False, deadline=Deadline.start(None)
    )


@needs_node
@pytest.mark.slow
def test_a_jest_checks_spectrum_comes_from_jests_own_coverage_in_the_files_lines(
    tmp_path: Path,
) -> None:
    """Real jest: V8's coverage of babel-jest's output is mapped back by jest itself, so the
    functions are named at their lines on disk, and the report stays out of the work tree."""
    root = node_modules()
    if root is None:
        missing("jest is not installed: bash scripts/node-tools.sh")
    test = (
        "const parse = require('../');\n"
        "test('plain', () => expect(parse(['a=1'])).toEqual({a: '1'}));\n"
        "test('proto', () => expect(parse(['__proto__=2'])).toEqual({}));\n"
    )
    repo = write(tmp_path / "repo", {**FILES, "test/parse.test.js": test})
    check = f"{root / '.bin' / 'jest'} --ci test/parse.test.js"
    found, why = spectrum.suspects(_node_launcher(repo), repo, check, [], 120)
    assert why is None
    assert [(s.path, s.start, s.end, s.name) for s in found] == [
        ("index.js", 3, 10, "parse"),
        ("lib/set.js", 1, 7, "setKey"),
    ]
    assert 2 in found[1].focus  # the `if` block only the `__proto__` key enters
    assert {2, 3, 6} <= locate.executed(found)["lib/set.js"]  # the run's lines handed on
    assert 12 not in locate.executed(found)["index.js"]  # `unused`'s body never ran
    assert not list(repo.glob("coverage*"))
    # a stack trace through `lib/set.js:3` puts the function holding that line first
    launcher, pointed = _node_launcher(repo), [("lib/set.js", 3)]
    traced, _ = spectrum.suspects(launcher, repo, check, [], 120, pointed=pointed)
    assert (traced[0].name, traced[0].score) == ("setKey", nodecov.POINTED)


TS_SET = """\
export interface Bag { [key: string]: string }

export function setKey(obj: Bag, key: string, value: string): void {
  if (key === "__proto__") {
    obj.polluted = value;
    return;
  }
  obj[key] = value;
}
"""
TS_PARSE = """\
import { setKey, type Bag } from "./set";

export function parse(args: string[]): Bag {
  const out: Bag = {};
  for (const arg of args) {
    const [key, value] = arg.split("=");
    setKey(out, key, value);
  }
  return out;
}

export function unused(): number {
  return 42;
}
"""
TS_TEST = """\
import { expect, test } from "vitest";
import { parse } from "../src/parse";

test("plain", () => expect(parse(["a=1"])).toEqual({ a: "1" }));
test("proto", () => expect(parse(["__proto__=2"])).toEqual({}));
"""


@needs_node
@pytest.mark.slow
def test_a_vitest_check_without_its_coverage_package_is_ranked_through_v8_and_source_maps(
    tmp_path: Path,
) -> None:
    """Real vitest, no `@vitest/coverage-v8`: V8's own coverage of the TypeScript vitest
    transformed, mapped through the source maps vitest left in that code, names `parse` and
    `setKey` at their lines in the .ts files; `unused` never ran."""
    root = node_modules()
    if root is None or not (root / ".bin" / "vitest").exists():
        missing("vitest is not installed: bash scripts/node-tools.sh")
    package = json.dumps({"name": "tiny", "version": "1.0.0", "type": "module"})
    files = {"package.json": package, "src/set.ts": TS_SET, "src/parse.ts": TS_PARSE}
    repo = write(tmp_path / "repo", {**files, "test/parse.test.ts": TS_TEST})
    (repo / "node_modules").symlink_to(root)
    check = f"{root / '.bin' / 'vitest'} run test/parse.test.ts"
    found, why = spectrum.suspects(_node_launcher(repo), repo, check, [], 120)
    assert why is None
    assert [(s.path, s.start, s.end, s.name) for s in found] == [
        ("src/parse.ts", 3, 10, "parse"),  # imported by the test
        ("src/set.ts", 3, 9, "setKey"),
    ]
    assert 4 in found[1].focus  # the `if` block only the `__proto__` key enters
    assert {4, 5, 8} <= locate.executed(found)["src/set.ts"]  # the run's lines handed on
    assert 13 not in locate.executed(found)["src/parse.ts"]  # `unused`'s body never ran
    assert not list(repo.glob("coverage*"))
    # with the package installed, vitest's own coverage is asked instead (an ESM-only package,
    # no `require` in its exports, counts as installed all the same)
    exports = {"name": runnercov.VITEST_PROVIDER, "exports": {".": {"import": "./x.mjs"}}}
    (repo / "node_modules").unlink()
    write(repo, {f"node_modules/{runnercov.VITEST_PROVIDER}/package.json": json.dumps(exports)})
    found, why = spectrum.suspects(_node_launcher(repo), repo, check, [], 120)
    assert why is not None and why.startswith("vitest reported no function")


def test_the_run_function_holding_a_line_the_output_points_at_ranks_first(
    tmp_path: Path,
) -> None:
    """A stack trace passing through the repository's code names the function to show: the
    innermost one holding that line, or the short one around it that shows it whole; a long
    one around it keeps its place."""
    lines = "".join(f"line {n}\n" for n in range(1, 301))
    repo = write(tmp_path, {"lib/a.js": lines, "test/a.test.js": "// a test\n"})
    functions = (("outer", 1, 60, 3), ("inner", 10, 20, 3), ("tiny", 30, 31, 9))
    functions += (("long", 100, 250, 1), ("nested", 120, 190, 1))
    coverage = {"lib/a.js": nodecov.Lines(functions, ())}
    plain = nodecov.rank_lines(repo, coverage, ["test/a.test.js"])
    assert [s.name for s in plain] == ["outer", "nested", "long"]  # inner, tiny: in a short one
    found = nodecov.rank_lines(repo, coverage, ["test/a.test.js"], [("lib/a.js", 15)])
    assert (found[0].name, found[0].score, found[0].focus) == ("outer", nodecov.POINTED, (15,))
    deep = nodecov.rank_lines(repo, coverage, ["test/a.test.js"], [("lib/a.js", 155)])
    assert [(s.name, s.score) for s in deep][:2] == [("nested", nodecov.POINTED), ("outer", 0.5)]
    assert [s.name for s in deep][2:] == ["long"]  # 150 lines: not shown whole, not raised
    elsewhere = nodecov.rank_lines(repo, coverage, ["test/a.test.js"], [("lib/b.js", 15)])
    assert elsewhere == plain


def test_npm_test_whose_script_is_one_plain_runner_command_gets_the_options_after_dashes(
    tmp_path: Path,
) -> None:
    scripts = {"test": "jest --ci", "unit": "vitest run", "lint": "eslint . && jest"}
    repo = write(
        tmp_path,
        {
            "package.json": json.dumps({"name": "tiny", "scripts": scripts}),
            "pkg/package.json": json.dumps({"name": "pkg", "scripts": {"test": "mocha"}}),
        },
    )
    assert runnercov.runner("npm test", repo) == ("jest", 8, "-- ")
    assert runnercov.runner("npm run unit", repo) == ("vitest", 12, "-- ")
    assert runnercov.runner("npm run lint", repo) is None  # two programs: where would they go
    assert runnercov.runner("npm test --prefix pkg", repo) is None  # mocha: V8's coverage
    assert runnercov.runner("npm test -- -t name", repo) is None  # arguments of its own
    assert runnercov.runner("npm test") is None  # no repository to read the script from
    command = runnercov.runner_command("npm test", ("jest", 8, "-- "))
    assert "(npm test -- --coverage --coverageProvider=v8 " in command


@needs_node
@pytest.mark.slow
def test_a_jest_check_through_npm_test_gets_jests_own_coverage(tmp_path: Path) -> None:
    root = node_modules()
    if root is None or shutil.which("npm") is None:
        missing("jest or npm is not installed: bash scripts/node-tools.sh")
    test = "const parse = require('../');\ntest('p', () => expect(parse(['a=1'])).toEqual({}));\n"
    package = {"name": "tiny", "main": "index.js", "scripts": {"test": f"{root}/.bin/jest --ci"}}
    files = {**FILES, "package.json": json.dumps(package), "test/parse.test.js": test}
    repo = write(tmp_path / "repo", files)
    located = ["test/parse.test.js"]
    found, why = spectrum.suspects(_node_launcher(repo), repo, "npm test", [], 120, located)
    assert why is None
    assert [(s.path, s.start, s.name) for s in found] == [
        ("index.js", 3, "parse"),
        ("lib/set.js", 1, "setKey"),
    ]


# A runner of its own: it runs `lib/set.js` transformed (three lines of its own above the
# file's text, as a wrapper or a compiler's preamble would put there) with an inline source map
# saying so, through `vm` as vitest and ts-node do; V8's offsets then name other lines.
PREAMBLE = "var __runner = 1;\nvar __helper = function () { return __runner; };\n__helper();\n"
RUNNER = """\
var fs = require('fs'), path = require('path'), vm = require('vm');
var file = path.resolve('lib/set.js'), text = fs.readFileSync(file, 'utf8');
var lines = text.split('\\n').length;
var map = {version: 3, sources: [file], names: [],
           mappings: ';;;AAAA' + new Array(lines).join(';AACA')};
var code = PREAMBLE + text + '\\n//# sourceMappingURL=data:application/json;base64,' +
    Buffer.from(JSON.stringify(map)).toString('base64');
var setKey = {};
vm.runInThisContext('(function (module) {' + code + '\\n})', {filename: file})(setKey);
var out = {};
setKey.exports(out, 'a', '1');
setKey.exports(out, '__proto__', '2');
""".replace("PREAMBLE", json.dumps(PREAMBLE))


@needs_node
def test_a_transformed_script_with_a_source_map_is_ranked_at_the_files_own_lines(
    tmp_path: Path,
) -> None:
    """V8's offsets into the code a runner made are mapped through the source map it left in
    that code (kept by the hook each node process preloads) to the file's lines: `setKey` at
    lines 1 to 7 of `lib/set.js`, focused on the block only `__proto__` enters; the runner's own
    preamble (no mapped position inside it) and the module's wrapper are no function of it."""
    repo = write(tmp_path, {**FILES, "test/run.js": RUNNER})
    output = _run(repo, "node test/run.js")
    assert nodecov.parse(output).get("lib/set.js") is None  # not as offsets: it ran transformed
    mapped = nodecov.parse_mapped(output)
    assert [f[:3] for f in mapped["lib/set.js"].functions] == [("setKey", 1, 7)]
    spans = nodecov.rank(repo, nodecov.parse(output), ["test/run.js"], (), mapped)
    assert [(s.path, s.name, s.start, s.end) for s in spans] == [("lib/set.js", "setKey", 1, 7)]
    assert 2 in spans[0].focus  # the `if` block only `__proto__` entered


# A parent that runs the tests in a child process and stops it with SIGTERM once they are done,
# as vitest 3's worker pool does: node writes no coverage file for a process a signal ends.
PARENT = """\
var child = require('child_process').fork('test/child.js');
child.on('message', function () { child.kill('SIGTERM'); });
"""
CHILD = """\
var parse = require('../');
parse(['__proto__=2']);
process.send('done');
setInterval(function () {}, 1000);
"""


@needs_node
def test_a_test_process_its_parent_stops_with_sigterm_still_writes_its_coverage(
    tmp_path: Path,
) -> None:
    repo = write(tmp_path, {**FILES, "test/parent.js": PARENT, "test/child.js": CHILD})
    coverage = nodecov.parse(_run(repo, "node test/parent.js"))
    assert "lib/set.js" in coverage  # only the child ran it
    spans = nodecov.rank(repo, coverage, ["test/child.js"])
    assert [s.name for s in spans] == ["parse", "setKey"]


def test_a_function_several_processes_report_is_counted_once() -> None:
    line = {"mapped": "lib/a.ts", "functions": [["f", 3, 9, 2]], "blocks": [[4, 5, 1]]}
    output = "\n".join([nodecov.MARK, json.dumps(line), json.dumps(line), '{"mapped": "cut'])
    assert nodecov.parse_mapped(output) == {
        "lib/a.ts": nodecov.Lines((("f", 3, 9, 4),), ((4, 5, 2),))
    }


def test_a_function_the_failing_tests_name_spells_ranks_above_nearness(tmp_path: Path) -> None:
    """Of the functions the check ran, all equally near the test, the one whose name's words the
    failing test's own name spells in a row comes first; a one-word name (`clone`) or words
    found only in the test's file and groups, or out of order, raise nothing."""
    lines = "".join(f"line {n}\n" for n in range(1, 40))
    repo = write(tmp_path, {"lib/util.js": lines, "test/a.test.js": "// a test\n"})
    functions = (
        ("isObject", 1, 3, 9),
        ("clone", 5, 7, 9),
        ("cloneShallow", 9, 11, 9),
        ("defaultArray", 13, 15, 9),
        ("shallowClone", 17, 22, 9),
    )
    coverage = {"lib/util.js": nodecov.Lines(functions, ())}
    failing = ["test/a.test.ts > default array > returns a shallow clone of the value"]
    plain = nodecov.rank_lines(repo, coverage, ["test/a.test.js"])
    assert plain[-1].name == "shallowClone"  # the longest: last by size alone
    found = nodecov.rank_lines(repo, coverage, ["test/a.test.js"], (), failing)
    assert [(s.name, s.score) for s in found][:2] == [
        ("shallowClone", nodenear.NAMED),
        ("isObject", 0.5),
    ]
    assert nodenear.words("parse_HTTPDate") == ["parse", "http", "date"]


def test_a_script_opening_with_a_function_at_its_first_byte_ran_as_on_disk() -> None:
    """V8 reports the script's top level and a function the file opens with both from offset
    0: the file still ran as it reads (it was taken for transformed, and none of it ranked)."""
    text = "function sign(x) {\n  return 1;\n}\nmodule.exports = {sign};\n"
    functions = [
        nodecov.Function("", ((0, len(text), 1),)),
        nodecov.Function("sign", ((0, 32, 1),)),
    ]
    assert nodecov.ran_as_on_disk(text, functions)
    assert not nodecov.ran_as_on_disk(text, [nodecov.Function("", ((0, 32, 1),))])


@needs_node
def test_the_lines_the_run_executed_leave_out_a_block_it_did_not_enter(tmp_path: Path) -> None:
    """Only the `__proto__` key is set: `setKey`'s `obj[key] = value` (line 6, after the
    block's `return`) never ran, and V8's block of count 0 (kept in the mapped report) says so;
    as offsets, `unused` (lines 12-14) and the top level (line 1) are no executed line."""
    runner = RUNNER.replace("setKey.exports(out, 'a', '1');\n", "")
    repo = write(tmp_path, {**FILES, "test/run.js": runner})
    output = _run(repo, "node test/run.js")
    found = nodelines.executed(repo, nodecov.parse(output), [], nodecov.parse_mapped(output))
    assert {2, 3, 4} <= found["lib/set.js"]
    assert 6 not in found["lib/set.js"]
    coverage = nodecov.parse(_run(repo, "node test/parse.js"))
    on_disk = nodelines.executed(repo, coverage, ["test/parse.js"])
    assert {4, 5, 9} <= on_disk["index.js"]
    assert on_disk["index.js"].isdisjoint({1, 12, 13, 14})
    assert "test/parse.js" not in on_disk  # the failing test's own lines are not the code's


def test_a_line_ran_when_its_innermost_range_ran() -> None:
    """zod 4.3.6's locale: the error map (lines 61-112) ran 15 times, its `invalid_union` case
    (105-106) 6, its `default` (109-110) and one `if` (71-72) never; a line in no function (a
    type, a comment) did not run; a range past the file's end is cut to it."""
    lines = nodecov.Lines(
        (("error", 5, 113, 1), ("", 61, 112, 15)),
        ((63, 68, 5), (70, 72, 4), (71, 72, 0), (105, 106, 6), (109, 110, 0), (7, 9, 0)),
    )
    ran = nodelines.ran_lines(lines, 120)
    assert {5, 6, 10, 61, 67, 70, 106, 111} <= ran
    assert ran.isdisjoint({1, 4, 7, 8, 9, 71, 72, 109, 110, 114, 119})
    huge = nodecov.Lines((("f", 1, 10**9, 1),), ((2, 10**9, 0),))
    assert nodelines.ran_lines(huge, 3) == {1}
    # of two ranges of as many lines, the one that ran decides
    assert nodelines.ran_lines(nodecov.Lines((), ((4, 4, 0), (4, 4, 2))), 9) == {4}
