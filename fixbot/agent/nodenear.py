"""How near a node script is to the failing tests, for ranking V8's coverage
(`fixbot.agent.nodecov`): the failing test files (`test_files`), the repository files they
require or import by a relative path (`required`), a file's nearness to them (`nearness`), and
a function whose name a failing test's own name spells (`named`).
"""

from __future__ import annotations

import json
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
JS_TEST = re.compile(r"(^|/)(tests?|__tests__|spec)/|[._-](test|spec)\.[cm]?[jt]sx?$")
REQUIRE = re.compile(r"""(?:require\s*\(|from\s+|import\s*\(?)\s*['"](\.{1,2}(?:/[^'"]*)?)['"]""")


def test_files(repo: Path, check: str, located: list[str]) -> list[str]:
    """The failing test files: the JavaScript files the check names, else the test files of the
    output's `path:line`s (repository-relative)."""
    try:
        words = shlex.split(check)
    except ValueError:
        words = []
    named = [w for w in words if w.endswith(JS_SUFFIXES) and (repo / w).is_file()]
    return list(dict.fromkeys(named or [p for p in located if JS_TEST.search(p)]))


def required(repo: Path, test: str) -> set[str]:
    """The repository files `test` requires or imports by a relative path."""
    text = regular_text(repo, repo / test)
    if text is None:
        return set()
    found = set()
    for spec in REQUIRE.findall(text):
        base = (repo / test).parent / spec
        candidates = [base, *(base.with_name(base.name + s) for s in JS_SUFFIXES)]
        candidates += [base / f"index{s}" for s in JS_SUFFIXES] + [package_main(repo, base)]
        for path in candidates:
            if path.is_file() and path.resolve().is_relative_to(repo.resolve()):
                found.add(path.resolve().relative_to(repo.resolve()).as_posix())
                break
    return found


def package_main(repo: Path, folder: Path) -> Path:
    """The `main` file of the package in `folder` (its package.json, when a regular file of
    `repo`: `repofiles.regular_text`), else `folder/index.js`."""
    try:
        main = json.loads(regular_text(repo, folder / "package.json") or "{}").get("main")
    except (ValueError, RecursionError, AttributeError):
        main = None
    return folder / (main if isinstance(main, str) and main else "index.js")


def nearness(path: str, tests: list[str], required: set[str]) -> float:
    """How near `path` is to the failing test files: 1 the same stem, 0.8 required by one, 0.5
    any other file the check ran."""
    stem = PurePosixPath(path).stem
    if any(PurePosixPath(t).stem == stem for t in tests):
        return 1.0
    return 0.8 if path in required else 0.5


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
