"""How near a node script is to the failing tests, for ranking V8's coverage
(`fixbot.agent.nodecov`): the failing test files (`test_files`), the repository files they
require or import by a relative path (`required`), a file's nearness to them (`nearness`), and
a function whose name a failing test's own name spells (`named`).
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path, PurePosixPath

from fixbot.agent.locate import Span
from fixbot.core.repofiles import regular_text

NAMED = 1.5  # the score of a run function whose name a failing test's name spells (above nearness)
# an identifier's or a sentence's words: `shallowClone`, `shallow_clone`, "shallow clone"
WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
# what separates a test id's file and groups from the test's own name (vitest's `>`, jest's
# U+203A, pytest's and others' `::`)
TEST_PARTS = re.compile(r"\s+[>\u203a]\s+|::")
JS_SUFFIXES = (".js", ".cjs", ".mjs", ".ts", ".jsx", ".tsx")
TS_SUFFIXES = (".ts", ".tsx", ".mts", ".cts")  # a TypeScript importer's own suffixes
# TypeScript's file extension substitution: the TypeScript sources an import spelled with a
# JavaScript output's suffix names, in the order tsc tries them (`./core/index.js` names
# `./core/index.ts`; declaration files left out: they hold no code that runs). The handbook:
# https://www.typescriptlang.org/docs/handbook/modules/reference.html#file-extension-substitution
# (tsc's `tryAddingExtensions`, src/compiler/moduleNameResolver.ts)
TS_SOURCES = {
    ".js": (".ts", ".tsx"),
    ".jsx": (".tsx", ".ts"),
    ".mjs": (".mts",),
    ".cjs": (".cts",),
}
# a test file by its path: in a test folder, named `*.test.js` or `*_spec.ts`, or itself named
# `test.js` (`tests.js`, `spec.js`: a small package's one test file beside its `index.js`, as
# mocha and tape projects keep it)
JS_TEST = re.compile(
    r"(^|/)(tests?|__tests__|spec)/|[._-](test|spec)\.[cm]?[jt]sx?$|(^|/)(tests?|spec)\.[cm]?[jt]sx?$"
)
# a `require`'s, an `import`'s or an `export ... from`'s module specifier
REQUIRE = re.compile(r"""(?:require\s*\(|from\s+|import\s*\(?)\s*['"]([^'"\s]+)['"]""")
MAX_DEPTH = 2  # a test's own requires, and theirs: an `index.js` that re-exports its `lib/`


def test_files(repo: Path, check: str, located: list[str]) -> list[str]:
    """The failing test files: the JavaScript files the check names, else the test files of the
    output's `path:line`s (repository-relative, normalised: the check's `./check-get.js` is
    `check-get.js`, as coverage reports spell it; none outside the repository)."""
    try:
        words = shlex.split(check)
    except ValueError:
        words = []
    named = [
        path
        for w in words
        if w.endswith(JS_SUFFIXES)
        and not (path := normalised(w)).startswith("../")
        and not PurePosixPath(path).is_absolute()
        and (repo / path).is_file()
    ]
    return list(dict.fromkeys(named or [p for p in located if JS_TEST.search(p)]))


def normalised(path: str) -> str:
    """`path` as a repository-relative path is compared: `./a//b/../c.js` is `a/c.js`."""
    return posixpath.normpath(PurePosixPath(path).as_posix())


def required(repo: Path, tests: Sequence[str]) -> dict[str, int]:
    """The repository files the failing `tests` require or import (repository-relative) -> 1,
    and those files' own -> 2 (a package's `index.js` re-exporting its `lib/` folder), by a
    relative path or by the package's own name (`require("tiny")` in the package `tiny`),
    resolved as node does (`resolve`); the tests themselves left out."""
    found: dict[str, int] = {}
    frontier = list(tests)
    for hops in range(1, MAX_DEPTH + 1):
        reached = {
            target
            for near in frontier
            for spec in REQUIRE.findall(regular_text(repo, repo / near) or "")
            if (target := resolve(repo, near, spec)) is not None
        }
        frontier = sorted(reached - set(found) - set(tests))
        found |= {path: hops for path in frontier}
    return found


def resolve(repo: Path, near: str, spec: str) -> str | None:
    """The repository file (relative) the module specifier `spec` names from the file `near`,
    as node resolves it (https://nodejs.org/api/modules.html#all-together): a relative path as
    a file (as spelled, or with a JavaScript suffix) or as a folder (its package.json's `main`
    as a file or a folder, else its `index`); a file spelled with a JavaScript output's suffix
    (`../core/index.js`, TypeScript's ESM spelling) also as the TypeScript source compiled to
    it (`TS_SOURCES`): first when `near` is TypeScript, as tsc resolves it, else only when no
    file is spelled so; a bare name only when it is the name of a package of the repository
    holding `near` (its own name: `tiny` or `tiny/lib/x`, as npm links the package under
    test), whose `exports` or `main` it names; else None (a dependency, node's own modules)."""
    base = _own_package(repo, near, spec) if not spec.startswith(".") else None
    if base is None and spec.startswith("."):
        base = (repo / near).parent / spec
    path = None if base is None else _ts_first(near, base) or _as_folder(repo, base)
    root = repo.resolve()
    if path is None or not path.resolve().is_relative_to(root):
        return None
    return path.resolve().relative_to(root).as_posix()


def _own_package(repo: Path, near: str, spec: str) -> Path | None:
    """The path the bare `spec` names inside the nearest package holding `near` whose name
    it starts with, or None."""
    folder = (repo / near).parent
    while folder.is_relative_to(repo):
        name = _manifest(repo, folder).get("name")
        if isinstance(name, str) and name and (spec == name or spec.startswith(name + "/")):
            rest = spec[len(name) + 1 :]
            return folder / (rest or _exported(_manifest(repo, folder).get("exports")) or ".")
        if folder == repo:
            break
        folder = folder.parent
    return None


def _exported(exports: object) -> str:
    """The path a package's `exports` gives its own name (its "." entry; a condition's, in the
    order `require`, `node`, `default`: https://nodejs.org/api/packages.html#exports), or ''."""
    if isinstance(exports, dict) and "." in exports:
        exports = exports["."]
    while isinstance(exports, dict):
        exports = next((exports[k] for k in ("require", "node", "default") if k in exports), "")
    return exports if isinstance(exports, str) and exports.startswith("./") else ""


def _manifest(repo: Path, folder: Path) -> dict[str, object]:
    """The package.json of `folder` (a regular file of `repo`: `repofiles.regular_text`), {}
    when none or not an object."""
    try:
        value = json.loads(regular_text(repo, folder / "package.json") or "{}")
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def _ts_first(near: str, base: Path) -> Path | None:
    """`base` as a file (`_as_file`), with TypeScript's substitution (`_ts_source`) before it
    when `near` is a TypeScript file, after it otherwise."""
    if near.endswith(TS_SUFFIXES):
        return _ts_source(base) or _as_file(base)
    return _as_file(base) or _ts_source(base)


def _ts_source(base: Path) -> Path | None:
    """The TypeScript source of `base` when its name ends with a JavaScript output's suffix
    (`index.js`: `index.ts`, else `index.tsx`; `TS_SOURCES`), or None."""
    sources = TS_SOURCES.get(base.suffix, ()) if base.stem not in ("", ".") else ()
    return next((p for s in sources if (p := base.with_suffix(s)).is_file()), None)


def _as_file(base: Path) -> Path | None:
    """`base` as a file, as spelled or with a JavaScript suffix, or None."""
    candidates = [base, *(base.with_name(base.name + s) for s in JS_SUFFIXES)]
    return next((p for p in candidates if base.name not in ("", ".", "..") and p.is_file()), None)


def _as_folder(repo: Path, folder: Path) -> Path | None:
    """The file the folder `folder` names: its package's `main` as a file or a folder's index,
    else its own `index` with a JavaScript suffix, or None (a relative `require` of a folder
    reads no `exports`)."""
    manifest = _manifest(repo, folder)
    main = manifest.get("main")
    if isinstance(main, str) and main.strip("./"):
        found = _as_file(folder / main) or _index(folder / main)
        if found is not None:
            return found
    return _index(folder)


def _index(folder: Path) -> Path | None:
    return next((p for s in JS_SUFFIXES if (p := folder / f"index{s}").is_file()), None)


def nearness(path: str, tests: list[str], required: dict[str, int]) -> float:
    """How near `path` is to the failing test files: 1 the same stem, 0.8 required by one, 0.65
    required by a file one requires (`required`'s hops), 0.5 any other file the check ran."""
    stem = PurePosixPath(path).stem
    if any(PurePosixPath(t).stem == stem for t in tests):
        return 1.0
    return {1: 0.8, 2: 0.65}.get(required.get(path, 0), 0.5)


def words(text: str) -> list[str]:
    """The lower-cased words of an identifier or a sentence (`WORD`)."""
    return [w.lower() for w in WORD.findall(text)]


def named(spans: list[Span], failing: Sequence[str]) -> list[Span]:
    """`spans` with those whose function's name a failing test's name spells scored `NAMED`:
    the name's words (two or more: `shallowClone`, `parse_date`; one word says too little)
    in a row in the test's own name, past its file and groups ("returns shallow clone").
    A test is named after the behaviour it checks, and that often after the function doing it
    (test-to-code traceability by naming convention)."""
    names = [words(TEST_PARTS.split(test)[-1]) for test in failing]
    joined = [f" {' '.join(name)} " for name in names if name]

    def spelled(span: Span) -> bool:
        own = words(span.name.rsplit(".", 1)[-1])
        return len(own) >= 2 and any(f" {' '.join(own)} " in name for name in joined)

    return [replace(s, score=max(s.score, NAMED)) if spelled(s) else s for s in spans]
