"""How near a node script is to the failing tests: the files they require, resolved as a real
node resolves them, in the shapes npm packages come in."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from fixbot.agent import nodecov, nodenear, spantext
from tests.agent.test_locate import write

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")

# node's own answer for each specifier, from the test file's folder: the path, or null
RESOLVE = """\
const path = require("path");
for (const spec of JSON.parse(process.argv[process.argv.length - 1])) {
  let found = null;
  try { found = require.resolve(spec); } catch (e) {}
  if (found && path.isAbsolute(found)) found = path.relative(process.cwd(), found);
  else found = null;
  console.log(JSON.stringify(found));
}
"""


def _node_resolves(repo: Path, near: str, specs: list[str]) -> list[str | None]:
    script = repo / Path(near).parent / "resolve-probe.js"
    script.write_text(RESOLVE)
    done = subprocess.run(
        ["node", str(script), json.dumps(specs)], cwd=repo, capture_output=True, text=True
    )
    script.unlink()
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


@needs_node
@pytest.mark.parametrize(
    "manifest",
    [
        {"name": "tiny", "main": "lib/index"},  # a main without its suffix
        {"name": "tiny", "main": "./lib"},  # a main naming a folder: its index
        {
            "name": "tiny",
            "exports": {".": {"require": "./lib/index.js"}, "./lib/util": "./lib/util.js"},
        },
        {"name": "@scope/tiny", "exports": {".": "./lib/index.js", "./lib/*": "./lib/*.js"}},
    ],
)
def test_a_tests_requires_resolve_to_the_files_node_loads(
    tmp_path: Path, manifest: dict[str, object]
) -> None:
    """The specifiers of a test (`..`, `../`, the package's own name and a path inside it, a
    sibling file without its suffix, node's own `fs`, a dependency not installed) name the file
    a real node loads, or none; a `main` spelled without its suffix, or naming a folder, named
    nothing before (the package's code then ranked as far from the test as any file)."""
    repo = write(
        tmp_path,
        {
            "package.json": json.dumps(manifest),
            "lib/index.js": "module.exports = require('./util');\n",
            "lib/util.js": "module.exports = 1;\n",
            "index.js": "module.exports = 'not the main';\n",
            "test/helper.js": "module.exports = 2;\n",
            "test/t.js": "// a test\n",
        },
    )
    name = str(manifest["name"])
    (repo / "node_modules" / name).parent.mkdir(parents=True)
    (repo / "node_modules" / name).symlink_to(repo)  # as npm links the package under test
    specs = ["..", "../", name, f"{name}/lib/util", "./helper", "fs", "tape"]
    expected = _node_resolves(repo, "test/t.js", specs)
    assert expected[2] == "lib/index.js"  # the probe's premise: the own name loads the code
    assert [nodenear.resolve(repo, "test/t.js", spec) for spec in specs] == expected


# The package's main re-exports its `lib/` folder; the bug is in `lib/get.js`, whose functions
# the test reaches only through the main. `lib/other.js` runs in another process of the check.
REEXPORT = {
    "package.json": json.dumps({"name": "tiny", "main": "index"}),
    "index.js": "module.exports = { get: require('./lib/get') };\n",
    "lib/get.js": (
        "module.exports = function get(obj, key) {\n"
        "    if (obj == null) { return undefined; }\n"
        "    return obj[key];\n"
        "};\n"
    ),
    "lib/other.js": "module.exports = function other(x) {\n    return x;\n};\n",
    "run-other.js": "require('./lib/other')(1);\n",
    "test/t.js": "var get = require('tiny').get;\nrequire('assert').equal(get({a: 1}, 'a'), 1);\n",
}


@needs_node
def test_a_file_the_main_re_exports_ranks_nearer_than_one_the_tests_never_reach(
    tmp_path: Path,
) -> None:
    """Through the package's own name and its `main` (spelled without its suffix), then the
    main's `require` of `lib/get.js`: `get` ranks above `other`, which only another process of
    the check ran (both were equally far before: the main named no file)."""
    repo = write(tmp_path, REEXPORT)
    (repo / "node_modules").mkdir()
    (repo / "node_modules" / "tiny").symlink_to(repo)  # as npm links a package under test
    check = "node run-other.js; node test/t.js"
    spans = nodecov.rank(repo, nodecov.parse(_run(repo, check)), ["test/t.js"])
    assert nodenear.required(repo, ["test/t.js"]) == {"index.js": 1, "lib/get.js": 2}
    assert [(s.path, s.name, s.score) for s in spans] == [
        ("lib/get.js", "get", 0.65),
        ("lib/other.js", "other", 0.5),
    ]


def _run(repo: Path, check: str) -> str:
    done = subprocess.run(
        ["sh", "-c", nodecov.command(check)], cwd=repo, capture_output=True, text=True, check=False
    )
    return done.stdout


# A UMD bundle: one factory holds the whole library, 30 small helpers and `getPath`, whose
# `null` branch is wrong; the test calls every helper, then `getPath` last.
HELPERS = "".join(
    f"  function h{n}(x) {{\n    var y = x + {n};\n    if (y > 1000) {{ return 0; }}\n"
    f"    return y;\n  }}\n"
    for n in range(30)
)
UMD = f"""\
(function (root, factory) {{
  if (typeof module === 'object' && module.exports) {{ module.exports = factory(); }}
  else {{ root.tiny = factory(); }}
}})(this, function () {{
{HELPERS}
  function getPath(obj, path) {{
    var parts = path.split('.');
    for (var i = 0; i < parts.length; i++) {{
      if (obj == null) {{ return undefined; }}
      obj = obj[parts[i]];
    }}
    return obj;
  }}
  var api = {{ get: getPath }};
  {" ".join(f"api.h{n} = h{n};" for n in range(30))}
  return api;
}});
"""
UMD_TEST = (
    "var assert = require('assert');\nvar tiny = require('..');\n"
    + "".join(f"assert.equal(tiny.h{n}(1), {n + 1});\n" for n in range(30))
    + "assert.equal(tiny.get({a: null}, 'a.b'), null);\n"
)


@needs_node
def test_every_function_a_bundle_ran_is_ranked_when_its_file_ties_them_all(
    tmp_path: Path,
) -> None:
    """A one-process check gives no per-test spectrum: the 31 functions of the bundle tie on
    their file's nearness (the main the test requires) and go by size, so the cap of 12 left
    out `getPath`, the longest, which the request's budget had room for; a required file's
    functions are kept past it."""
    repo = write(
        tmp_path,
        {
            "package.json": json.dumps({"name": "tiny", "main": "dist/tiny.umd"}),
            "dist/tiny.umd.js": UMD,
            "test/get.js": UMD_TEST,
        },
    )
    spans = nodecov.rank(repo, nodecov.parse(_run(repo, "node test/get.js")), ["test/get.js"])
    assert {s.name for s in spans} >= {"getPath", *(f"h{n}" for n in range(30))}
    assert all(s.score == 0.8 for s in spans)  # the main the test requires, suffix left off
    shown = spantext.render(repo, spans, 12_000)
    assert "function getPath(obj, path)" in shown


# A small package's one test file beside its code, with helpers of its own (as mocha's and
# tape's projects keep it: object-path's `test.js`), and the code's `get` it checks.
BESIDE = {
    "package.json": json.dumps({"name": "tiny", "main": "index.js"}),
    "index.js": (
        "function get(obj, path) {\n  var parts = path.split('.');\n"
        "  for (var i = 0; i < parts.length; i++) {\n    obj = obj[parts[i]];\n  }\n"
        "  return obj;\n}\nmodule.exports = { get: get };\n"
    ),
    "HELPERS": "".join(f"function fixture{n}() {{ return {{ a: {n} }}; }}\n" for n in range(20)),
    "CALLS": "".join(f"assert.equal(get(fixture{n}(), 'a'), {n});\n" for n in range(20)),
}


@needs_node
@pytest.mark.parametrize("test", ["test.js", "check-get.js"])
def test_the_failing_test_file_beside_the_code_is_never_ranked_as_code(
    tmp_path: Path, test: str
) -> None:
    """The failing test file the check names, whether its name says test (`test.js`: no test
    folder, no `.test.js`) or not (`check-get.js`), is the test, not the code to fix: its own
    20 helpers ranked first (the test's stem is its own, 1.0, above the code it requires, 0.8)
    and filled the request before the code's `get` was reached."""
    text = "var assert = require('assert');\nvar get = require('./index.js').get;\n"
    repo = write(
        tmp_path,
        {
            "package.json": BESIDE["package.json"],
            "index.js": BESIDE["index.js"],
            test: text + BESIDE["HELPERS"] + BESIDE["CALLS"],
        },
    )
    spans = nodecov.rank(repo, nodecov.parse(_run(repo, f"node {test}")), [test])
    assert [(s.path, s.name, s.score) for s in spans] == [("index.js", "get", 0.8)]


def test_a_test_js_named_in_the_output_of_npm_test_is_the_failing_test_file(
    tmp_path: Path,
) -> None:
    """`npm test` names no file, so the failing test files are those of the output's paths
    that are test files by their names: a package's root `test.js` (or `tests.js`, `spec.js`)
    is one, its `index.js` and `lib/testing.js` are not; without it the check had no test file
    and no spectrum ran."""
    repo = write(tmp_path, {"test.js": "", "tests.js": "", "index.js": "", "lib/testing.js": ""})
    located = ["index.js", "test.js", "lib/testing.js", "tests.js"]
    assert nodenear.test_files(repo, "npm test", located) == ["test.js", "tests.js"]


@needs_node
@pytest.mark.parametrize("spelled", ["./check-get.js", "lib/../check-get.js"])
def test_the_failing_test_file_the_check_spells_with_a_dot_is_never_ranked_as_code(
    tmp_path: Path, spelled: str
) -> None:
    """`node ./check-get.js` names the failing test as the check spells it, V8's report as
    `check-get.js`: compared as spelled, the test file was ranked as code, its 20 helpers at its
    own stem's nearness (1.0) above the code's `get` (0.8). Both sides are normalised."""
    text = "var assert = require('assert');\nvar get = require('./index.js').get;\n"
    repo = write(
        tmp_path,
        {
            "package.json": BESIDE["package.json"],
            "index.js": BESIDE["index.js"],
            "lib/keep.js": "",
            "check-get.js": text + BESIDE["HELPERS"] + BESIDE["CALLS"],
        },
    )
    check = f"node {spelled}"
    tests = nodenear.test_files(repo, check, [])
    assert tests == ["check-get.js"]
    spans = nodecov.rank(repo, nodecov.parse(_run(repo, check)), tests)
    assert [(s.path, s.name, s.score) for s in spans] == [("index.js", "get", 0.8)]
    # the ranking's own comparison, whatever spelling its caller passes
    spans = nodecov.rank(repo, nodecov.parse(_run(repo, check)), [spelled])
    assert [(s.path, s.name) for s in spans] == [("index.js", "get")]


def test_a_check_naming_a_script_outside_the_repository_names_no_failing_test(
    tmp_path: Path,
) -> None:
    """A path climbing out of the repository is none of its test files, though it exists."""
    repo = write(tmp_path / "repo", {"index.js": ""})
    (tmp_path / "outside.js").write_text("")
    assert nodenear.test_files(repo, "node ../outside.js", []) == []


# A TypeScript package in ESM spelling (zod 4's): its sources import each other by the `.js`
# file tsc will emit, which does not exist beside them; a JavaScript output next to its source
# (`util.js` built from `util.ts`), and a `.mts`/`.cts` pair spelled `.mjs`/`.cjs`.
TS_ESM = {
    "package.json": json.dumps({"name": "tiny", "type": "module"}),
    "src/core/index.ts": "export function clone<T>(x: T): T { return x; }\n",
    "src/core/util.ts": "export const u = 1;\n",
    "src/core/util.js": "export const u = 1;\n",
    "src/core/esm.mts": "export const e = 1;\n",
    "src/core/cjs.cts": "export const c = 1;\n",
    "src/core/view.tsx": "export const v = 1;\n",
    "src/classic/schemas.ts": (
        'import * as core from "../core/index.js";\n'
        'import { u } from "../core/util.js";\n'
        "export const def = core.clone;\n"
    ),
    "src/classic/tests/default.test.ts": (
        'import { def } from "../schemas.js";\nimport { test } from "vitest";\n'
    ),
    "test/plain.js": 'import { u } from "../src/core/util.js";\n',
}


def test_a_typescript_import_spelled_js_names_the_typescript_source(tmp_path: Path) -> None:
    """TypeScript's file extension substitution: `../core/index.js` from a `.ts` file names
    `../core/index.ts` (`.mjs` a `.mts`, `.cjs` a `.cts`, `.jsx` and `.js` a `.tsx`), the TS
    source first even where its JavaScript output lies beside it, as tsc resolves it; from a
    JavaScript file the output spelled is what node loads, the source only when there is
    none. None of these resolved before (no `index.js` exists), so the V8 spectrum's nearness
    and the JS/TS module readers (`jsusers`) never followed a zod-style package's imports."""
    repo = write(tmp_path, TS_ESM)
    near = "src/classic/schemas.ts"
    specs = ["../core/index.js", "../core/util.js", "../core/esm.mjs", "../core/cjs.cjs"]
    specs += ["../core/view.js", "../core/view.jsx", "../core/gone.js", "../core/index.ts"]
    assert [nodenear.resolve(repo, near, spec) for spec in specs] == [
        "src/core/index.ts",
        "src/core/util.ts",
        "src/core/esm.mts",
        "src/core/cjs.cts",
        "src/core/view.tsx",
        "src/core/view.tsx",
        None,
        "src/core/index.ts",
    ]
    assert nodenear.resolve(repo, "test/plain.js", "../src/core/util.js") == "src/core/util.js"
    assert nodenear.resolve(repo, "test/plain.js", "../src/core/index.js") == "src/core/index.ts"
    tests = ["src/classic/tests/default.test.ts"]
    assert nodenear.required(repo, tests) == {
        "src/classic/schemas.ts": 1,
        "src/core/index.ts": 2,
        "src/core/util.ts": 2,
    }
