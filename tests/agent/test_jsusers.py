"""Where else a JS module's binding is read that a shown function reads (pure reading)."""

from __future__ import annotations

from pathlib import Path

from fixbot.agent import context, jsusers, locate
from tests.fakes.agent_repo import fix_context, make_repo

# resolve 1.12.2's shape: `isCore` reads the core table as `core[x]`, and so do the two
# resolvers that require the same module under the same name; the test file reads it too
INDEX = (
    "var core = require('./lib/core');\n"  # 1
    "var async = require('./lib/async');\n"  # 2
    "async.core = core;\n"  # 3
    "async.isCore = function isCore(x) { return core[x]; };\n"  # 4
    "module.exports = async;\n"  # 5
)
ASYNC = (
    "var core = require('./core');\n"  # 1
    "var fs = require('fs');\n"
    "module.exports = function resolve(x, cb) {\n"
    + "".join(f"    fs.stat(x + '{k}', function () {{}});\n" for k in range(20))
    + "    if (core[x]) return cb(null, x);\n"  # 24
    "    cb(new Error('missing'));\n"
    "};\n"
)
SYNC = (
    "const { table: cores } = require('./core');\n"  # 1: another name, braced
    "module.exports = function resolveSync(x) {\n"
    "    if (cores[x]) { return x; }\n"  # 3
    "    throw new Error('missing');\n"
    "};\n"
)
CORE = "var data = { fs: true };\nmodule.exports = data;\nmodule.exports.table = data;\n"
UNRELATED = "var core = require('./other');\nmodule.exports = function () { return core[1]; };\n"
TEST = "var core = require('../lib/core');\ntest('isCore', function () { core['toString']; });\n"
FILES = {
    "index.js": INDEX,
    "lib/async.js": ASYNC,
    "lib/sync.js": SYNC,
    "lib/core.js": CORE,
    "lib/other.js": "module.exports = [];\n",
    "lib/unrelated.js": UNRELATED,
    "test/core.js": TEST,
}


def test_the_bindings_of_a_module_in_each_form_are_read() -> None:
    text = (
        "var a = require('./a');\n"
        'const b = require("./b").member;\n'
        "import c from './c';\n"
        "import * as d from '../d';\n"
        "import { e, f as g } from './ef';\n"
        "import type { T } from './types';\n"
        "const { h, i: j } = require('./hi');\n"
        "var fs = require('fs');\n"
    )
    assert jsusers.bindings(text) == {
        "a": "./a",
        "b": "./b",
        "c": "./c",
        "d": "../d",
        "e": "./ef",
        "g": "./ef",
        "T": "./types",
        "h": "./hi",
        "j": "./hi",
        "fs": "fs",
    }


def test_the_other_files_reading_a_shown_functions_module_are_found(tmp_path: Path) -> None:
    """`isCore` reads `core` (lib/core.js): its own file's binding and top-level use (and those
    of `async`, which it reads too), then the two resolvers' lines reading the same module
    under their own names; not `unrelated.js`, whose `core` is another module, nor the test
    file; `fs`, node's own, leads nowhere."""
    repo = make_repo(tmp_path, FILES)
    is_core = locate.Span("index.js", 4, 4, "isCore", 0.8)
    found = jsusers.users(repo, [is_core])
    assert [(s.path, s.focus, s.score) for s in found] == [
        ("index.js", (1, 3), 0.4),
        ("index.js", (2, 3, 5), 0.4),  # `async.isCore` reads lib/async.js's binding too
        ("lib/async.js", (1, 24), 0.4),
        ("lib/sync.js", (1, 3), 0.4),
    ]
    assert found[0].name == "reads core: lib/core.js"
    assert jsusers.users(repo, [locate.Span("lib/core.js", 1, 1, "data", 1)]) == []
    assert jsusers.users(repo, [locate.Span("x.py", 1, 1, "f", 1)]) == []


def test_the_first_request_shows_the_other_readers_of_the_shown_functions_module(
    tmp_path: Path,
) -> None:
    """The first request's code shows resolve's two resolvers at the lines the fix changes,
    though no failing test runs them: without `jsusers` only `isCore` is shown."""
    repo = make_repo(tmp_path, FILES)
    is_core = locate.Span("index.js", 4, 4, "isCore", 0.8)
    shown = context.gather(fix_context(repo), 6_000, [is_core]).reached
    assert "if (core[x]) return cb(null, x);" in shown
    assert "if (cores[x]) { return x; }" in shown
    assert "async.core = core;" in shown
    assert "core[1]" not in shown and "core['toString']" not in shown
    assert "x + '10'" not in shown  # the lines far from a reading line are left out
    assert "x + '19'" in shown  # `spantext.FOCUS_RADIUS` lines around one
