"""The code a failing Rust test reaches: `fixbot.agent.locate`'s following of calls, for a crate's
`.rs` files. A panic in a Rust test names the test's own assertion line; the function under test
(and the one it delegates to) is what a fix changes.

Read with regular expressions and brace matching over the code's tokens
(`fixbot.ecosystems.rust`: comments and literals blanked, the test regions; nothing is built or
run): each failing test (`Failure.failing_tests`, `tests::name` or `name`) is the `fn name` of a
`.rs` file of the repository; every `name(` and `.name(` it calls that some `fn name` of the
crate defines is followed (a name defined in k places, such as `new`, is each of them with a
k-th of the weight), and their own calls at the next depth. Definitions in test code (the
`tests/`, `benches/` and `examples/` folders, a `#[cfg(test)]` module, a `#[test]` function)
are followed but never ranked: a test helper leads to the code it calls. Ranked as
`locate.spans` ranks: called by more failing tests first, then their callees.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from fixbot.agent.locate import Span
from fixbot.core.repofiles import regular_text
from fixbot.ecosystems import registry, rust

MAX_FILES = 500  # .rs files read at most (a crate's own code)
SKIPPED_DIRS = registry.generated()  # `target` and every other ecosystem's build output
TEST_DIRS = ("tests/", "benches/", "examples/")
FN = re.compile(r"\bfn\s+([A-Za-z_]\w*)\s*(?:<[^{;]*?>)?\s*\(")
CALL = re.compile(r"(?<![\w!])([a-z_][a-z0-9_]*)\s*(?:::<[^()]*?>)?\s*\(")
NOT_CALLS = frozenset(("fn", "if", "while", "for", "match", "return", "in", "as", "move", "loop"))


def rust_files(repo: Path) -> list[str]:
    """The repository's `.rs` files (relative, posix), hidden and build folders left out."""
    found: list[str] = []
    for folder, dirs, files in os.walk(repo):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS)
        for name in sorted(files):
            if name.endswith(".rs") and len(found) < MAX_FILES:
                found.append((Path(folder) / name).relative_to(repo).as_posix())
    return found


def _block_end(code: str, opening: int) -> int:
    """The offset of the `}` closing the `{` at `opening` (the text's end when unbalanced)."""
    depth = 0
    for k in range(opening, len(code)):
        if code[k] == "{":
            depth += 1
        elif code[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return len(code) - 1


class _File:
    """One `.rs` file: its functions (name, first line, last line, body) and whether each is
    test code."""

    def __init__(self, rel: str, text: str) -> None:
        self.rel = rel
        code = rust.blank(text)
        lines = [0, *(k + 1 for k, ch in enumerate(code) if ch == "\n")]

        def line_of(offset: int) -> int:
            lo, hi = 0, len(lines) - 1
            while lo < hi:
                mid = (lo + hi + 1) // 2
                lo, hi = (mid, hi) if lines[mid] <= offset else (lo, mid - 1)
            return lo + 1

        tests = rust.unit_test_regions(text)
        in_tests = rel.startswith(TEST_DIRS) or "/tests/" in rel
        self.functions: list[tuple[str, int, int, str, bool]] = []
        for match in FN.finditer(code):
            opening = code.find("{", match.end())
            if opening < 0 or ";" in code[match.end() : opening]:
                continue  # a declaration without a body (a trait's)
            end = _block_end(code, opening)
            test = in_tests or any(a <= match.start() < b for a, b in tests)
            body = code[opening : end + 1]
            self.functions.append(
                (match.group(1), line_of(match.start()), line_of(end), body, test)
            )


def _read(repo: Path) -> list[_File]:
    files = []
    for rel in rust_files(repo):
        text = regular_text(repo, repo / rel)
        if text is not None:
            files.append(_File(rel, text))
    return files


def functions(repo: Path, rel: str) -> list[tuple[str, int, int, bool]]:
    """(name, first line, last line, whether it is test code) of each function with a body in
    the `.rs` file `rel`; [] when it is unreadable, over `repofiles.MAX_TEXT_BYTES` or not a
    regular file of the repository (`repofiles.regular_text`)."""
    text = regular_text(repo, repo / rel)
    if text is None:
        return []
    return [(name, start, end, test) for name, start, end, _, test in _File(rel, text).functions]


# a function where it is defined: (file, first line, last line, body, whether it is a test's)
Function = tuple[str, int, int, str, bool]


def _step(
    frontier: list[tuple[Function, float]],
    defined: dict[str, list[Function]],
    score: dict[tuple[str, int, int, str], float],
    seen: set[tuple[str, int]],
) -> list[tuple[Function, float]]:
    """One call deeper: each function the `frontier`'s bodies call adds its share of their
    weight to `score` (a test's own functions score nothing); those not `seen` yet are the
    next frontier."""
    following: list[tuple[Function, float]] = []
    for (_rel, _start, _end, body, _test), weight in frontier:
        for called in dict.fromkeys(CALL.findall(body)):
            targets = [] if called in NOT_CALLS else defined.get(called, [])
            for target in targets:
                # a name defined in k places (`new`) is each of them with a k-th of the weight
                share = weight / len(targets)
                rel, start, end, _, test = target
                if not test:
                    key = (rel, start, end, called)
                    score[key] = score.get(key, 0.0) + share
                if (rel, start) not in seen:
                    seen.add((rel, start))
                    # a test helper passes its callers' weight on whole
                    following.append((target, share if test else share / 10))
    return following


def _defined(files: list[_File]) -> dict[str, list[Function]]:
    """Every function of the crate's `files`, by its name (a name may be defined in several
    places: `new`)."""
    defined: dict[str, list[Function]] = {}
    for file in files:
        for fn in file.functions:
            defined.setdefault(fn[0], []).append((file.rel, *fn[1:]))
    return defined


def spans(repo: Path, failing: list[str], depth: int = 3) -> list[Span]:
    """The crate's functions the failing tests (`failing`: cargo's `path::name` ids) reach,
    ranked (module docstring); empty for a repository without `.rs` files."""
    names = {test.rsplit("::", 1)[-1] for test in failing}
    defined = _defined(_read(repo)) if names else {}
    if not defined:
        return []
    frontier = [(fn, 1.0) for name in names for fn in defined.get(name, [])]
    score: dict[tuple[str, int, int, str], float] = {}
    seen = {(fn[0], fn[1]) for fn, _ in frontier}
    for _ in range(depth):
        frontier = _step(frontier, defined, score, seen)
    ranked = sorted(score.items(), key=lambda item: (-item[1], item[0]))
    return [Span(p, s, e, n, v) for (p, s, e, n), v in ranked]
