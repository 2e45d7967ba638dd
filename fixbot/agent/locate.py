"""The code a failing test reaches: where a fix most likely goes when the traceback ends in the
test itself (an assertion on a library's wrong result names only the test's own lines).

Pure reading of the repository's Python files with `ast` (nothing is imported or run). For each
failing test (`Failure.failing_tests`, else the test-file `path:line`s of the output) the test
function is found, and every name it calls is followed through the test module's imports
(`from pkg.mod import f`, `import pkg.mod as m` then `m.f()`, relative imports, a package's
`__init__` re-exporting `from .mod import f`) to its definition inside the repository (a class
to its `__init__`, what calling it runs); the functions those call in their own module follow at the
next depth. `spans` ranks them: the functions a failing test calls directly first (the more
failing tests call one, the higher), then their callees, and `fixbot.agent.spantext.render`
shows their numbered source within a character budget. A test is a function named `test*` in a
file under the repository; test files themselves are never ranked (the snippets show them).

Dynamic ranking by coverage (spectrum-based fault localization, Ochiai) is in
`fixbot.agent.spectrum` and merged by `fixbot.agent.context`; what a ranked Python span's failing
run executed in its own module (`ran_callees`, `caught_there`) is in `fixbot.agent.pyrancalls`.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from fixbot.core.repofiles import regular_text

PARSED_KEPT = 16  # texts whose trees `_parsed` keeps: a request reads a handful of modules
MAX_SPAN_LINES = 80  # a longer function shows its first lines, or as many around its focus
REEXPORT_HOPS = 3  # `from .x import f` re-exports followed from an imported module to `f`
# A line number as a coverage report crossing back from the project's command may spell it:
# ASCII digits, at most 9 (`int` refuses other Unicode digits, "²", and more than 4300 digits)
LINE_NUMBER = re.compile(r"[0-9]{1,9}")
TEST_FILE = re.compile(r"(^|/)(test_[^/]*|[^/]*_test|conftest)\.py$|(^|/)tests?/")


@dataclass(frozen=True)
class Span:
    """The lines `start`..`end` (1-based, inclusive) of `path` (repository-relative, posix):
    the definition of `name`; `score` ranks it (higher first); `focus` are the lines inside it
    that matter most (a coverage spectrum's most suspicious), shown with their neighbours when
    the whole definition is too long."""

    path: str
    start: int
    end: int
    name: str
    score: float
    focus: tuple[int, ...] = ()
    limit: int = 0  # lines shown whole at most (0: `MAX_SPAN_LINES`)


class Ranked(list[Span]):
    """A coverage spectrum's spans, best first, with the lines its failing run `executed`
    (repository-relative path -> 1-based line numbers, every covered file's, not only the
    ranked spans'; every spectrum's: Python's, Go's, Rust's and node's): what
    `fixbot.agent.literals` narrows an over-common phrase to."""

    def __init__(
        self, spans: Sequence[Span] = (), executed: dict[str, frozenset[int]] | None = None
    ) -> None:
        super().__init__(spans)
        self.executed: dict[str, frozenset[int]] = executed or {}


def executed(spans: Sequence[Span]) -> dict[str, frozenset[int]]:
    """The lines the failing run executed, by file, that `spans` carry (`Ranked`); {} for
    any other sequence (no spectrum, or one that records no lines)."""
    return spans.executed if isinstance(spans, Ranked) else {}


def _parse(repo: Path, rel: str) -> ast.Module | None:
    text = regular_text(repo, repo / rel)
    return None if text is None else _parsed(text)


@functools.lru_cache(maxsize=PARSED_KEPT)
def _parsed(text: str) -> ast.Module | None:
    """`text` parsed; None when it is not Python we can read. One tree per text, shared: one
    request's readers (`locate`, `tables`, `visitors`, `pyrancalls`) parse the same module of
    the code under test tens of times (click 8.0.0's core.py 88 times, 5 s of CPU), and none
    changes a tree. The file is still read each time: a changed file is another text."""
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, OSError):  # nothing to follow
        return None


@functools.lru_cache(maxsize=PARSED_KEPT)
def walked(tree: ast.AST) -> tuple[ast.AST, ...]:
    """Every node of `tree`, in `ast.walk`'s order (breadth first, `tree` first), listed once
    per tree (kept for the `PARSED_KEPT` trees last asked, keyed by identity): a request's
    readers (`locate`, `tables`, `visitors`, `pyrancalls`, `testsof`, `tracerank`) walk the
    same module's tree again and again (click 8.0.0's core.py: 5 s of CPU in `ast.walk`), and
    none changes a tree. For a whole module's tree from `_parse`; a subtree is walked as is."""
    return tuple(ast.walk(tree))


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in walked(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def _top_level(tree: ast.Module) -> dict[str, ast.stmt]:
    kinds = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    return {n.name: n for n in tree.body if isinstance(n, kinds)}


def _calls(node: ast.AST) -> list[tuple[str | None, str]]:
    """(qualifier, name) of every call in `node`: `f()` -> (None, "f"), `m.f()` -> ("m", "f")."""
    found: list[tuple[str | None, str]] = []
    for sub in ast.walk(node):
        if not isinstance(sub, ast.Call):
            continue
        func = sub.func
        if isinstance(func, ast.Name):
            found.append((None, func.id))
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            found.append((func.value.id, func.attr))
    return found


def _module_files(repo: Path, module: str, near: str) -> list[str]:
    """Repository files that may hold the dotted `module` (imported from the file `near`)."""
    parts = module.split(".")
    bases = ["", "src/", "lib/", str(PurePosixPath(near).parent) + "/"]
    found = []
    for base in dict.fromkeys(bases):
        stem = (base if base != "./" else "") + "/".join(parts)
        for rel in (f"{stem}.py", f"{stem}/__init__.py"):
            if (repo / rel).is_file():
                found.append(rel)
    return found


def _relative_module(near: str, level: int, module: str | None) -> str:
    base = PurePosixPath(near).parent
    for _ in range(level - 1):
        base = base.parent
    prefix = ".".join(p for p in base.parts if p)
    return ".".join(x for x in (prefix, module) if x)


def imports(tree: ast.Module, near: str) -> dict[str, tuple[str, str | None]]:
    """Local name -> (dotted module, attribute or None for a module) for the imports of `tree`."""
    names: dict[str, tuple[str, str | None]] = {}
    for node in walked(tree):
        if isinstance(node, ast.Import):
            names.update(_bound_modules(node))
        elif isinstance(node, ast.ImportFrom):
            names.update(_bound_members(node, near))
    return names


def _bound_modules(node: ast.Import) -> dict[str, tuple[str, str | None]]:
    """`import a.b` binds `a` to module `a`; `import a.b as c` binds `c` to module `a.b`."""
    names: dict[str, tuple[str, str | None]] = {}
    for alias in node.names:
        local = alias.asname or alias.name.split(".")[0]
        names[local] = (alias.name if alias.asname else local, None)
    return names


def _bound_members(node: ast.ImportFrom, near: str) -> dict[str, tuple[str, str | None]]:
    """`from m import x as y` binds `y` to (m, x); a relative `m` is resolved from `near`."""
    module = node.module or ""
    if node.level:
        module = _relative_module(near, node.level, node.module)
    return {alias.asname or alias.name: (module, alias.name) for alias in node.names}


def _define(
    repo: Path, module: str, name: str, near: str, hops: int = REEXPORT_HOPS
) -> tuple[str, ast.stmt] | None:
    """(file, definition) of `name` in the dotted `module` imported from `near`: a function, a
    class's `__init__` (what calling the class runs; the class itself when it has none), or,
    through at most `hops` re-exports, what a package's `__init__` imports under that name
    (`from .map import Map`); None when it is not in the repository."""
    for rel in _module_files(repo, module, near):
        tree = _parse(repo, rel)
        if tree is None:
            continue
        node = _top_level(tree).get(name)
        if node is not None:
            return rel, _constructor(node)
        # `from pkg import mod` then `mod.f()`: name is a module of the package
        sub = _module_files(repo, f"{module}.{name}", near)
        if sub:
            return None
        bound = _reexported(tree, rel).get(name)
        if bound is not None and bound[1] is not None and hops > 0:
            return _define(repo, bound[0], bound[1], rel, hops - 1)
    return None


def _constructor(node: ast.stmt) -> ast.stmt:
    """A class's own `__init__` (the lines a call of the class runs), else `node` itself."""
    if isinstance(node, ast.ClassDef):
        for item in node.body:
            if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                return item
    return node


def _reexported(tree: ast.Module, rel: str) -> dict[str, tuple[str, str | None]]:
    """Name -> (dotted module, attribute) of the module-level `from m import x` of `tree`, the
    file `rel` (a package's `__init__` re-exporting its modules' names)."""
    found: dict[str, tuple[str, str | None]] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            found |= _bound_members(node, rel)
    return found


def _resolve(
    repo: Path, names: dict[str, tuple[str, str | None]], call: tuple[str | None, str], near: str
) -> tuple[str, ast.stmt] | None:
    qualifier, name = call
    if qualifier is None:
        if name not in names:
            return None
        module, attr = names[name]
        return _define(repo, module, attr, near) if attr else None
    if qualifier not in names:
        return None
    module, attr = names[qualifier]
    return _define(repo, f"{module}.{attr}" if attr else module, name, near)


def _tests(failing: list[str], located: list[tuple[str, int]], repo: Path) -> list[tuple[str, str]]:
    """(test file, test function name) of the failing tests; from `path:line`s when no id."""
    found = [test for test in map(_test_of_id, failing) if _python_file(repo, test)]
    if not found:
        found = [(path, fn.name) for path, line in located for fn in _tests_at(repo, path, line)]
    return list(dict.fromkeys(found))


def _test_of_id(test: str) -> tuple[str, str]:
    """(path, function name) of a test id: `tests/t.py::C::test_x[1]` -> (tests/t.py, test_x)."""
    path, _, rest = test.partition("::")
    return path, re.split(r"[\[(]", rest.rsplit("::", 1)[-1])[0]


def _python_file(repo: Path, test: tuple[str, str]) -> bool:
    path, name = test
    return path.endswith(".py") and bool(name) and (repo / path).is_file()


def _tests_at(repo: Path, path: str, line: int) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The test functions of the test file `path` whose lines hold `line`."""
    tree = _parse(repo, path) if TEST_FILE.search(path) else None
    return [
        fn
        for fn in (_functions(tree) if tree else [])
        if fn.name.startswith("test") and fn.lineno <= line <= (fn.end_lineno or fn.lineno)
    ]


def spans(
    repo: Path, failing: list[str], located: list[tuple[str, int]], depth: int = 2
) -> list[Span]:
    """The definitions the failing tests reach, ranked (module docstring); `failing` are test ids
    (`path::name`), `located` the output's (repository-relative path, line) pairs."""
    score: dict[tuple[str, int, int, str], float] = {}
    frontier = _test_functions(repo, failing, located)
    seen: set[tuple[str, int]] = set()
    for level in range(depth):
        following: list[tuple[str, ast.AST, float]] = []
        for near, node, weight in frontier:
            for name, (rel, defined) in _callees(repo, near, node, level > 0):
                key = (rel, defined.lineno, defined.end_lineno or defined.lineno, name)
                score[key] = score.get(key, 0.0) + weight
                if (rel, defined.lineno) not in seen:
                    seen.add((rel, defined.lineno))
                    following.append((rel, defined, weight / 10))
        frontier = following
    ranked = sorted(score.items(), key=lambda item: (-item[1], item[0]))
    return [Span(p, s, e, n, v) for (p, s, e, n), v in ranked]


def _test_functions(
    repo: Path, failing: list[str], located: list[tuple[str, int]]
) -> list[tuple[str, ast.AST, float]]:
    """(file, definition, weight 1.0) of each failing test's function (`_tests`)."""
    frontier: list[tuple[str, ast.AST, float]] = []
    for path, name in _tests(failing, located, repo):
        tree = _parse(repo, path)
        frontier += [
            (path, fn, 1.0) for fn in (_functions(tree) if tree else []) if fn.name == name
        ]
    return frontier


def _callees(
    repo: Path, near: str, node: ast.AST, local: bool
) -> list[tuple[str, tuple[str, ast.stmt]]]:
    """(called name, (file, definition)) for each distinct call in `node`, code in file `near`,
    that resolves through its imports (or, when `local`, to a top-level definition of `near`)
    to a definition outside the test files."""
    module = _parse(repo, near)
    if module is None:
        return []
    names = imports(module, near)
    defined = _top_level(module) if local else {}
    found = []
    for qualifier, name in dict.fromkeys(_calls(node)):
        target = _resolve(repo, names, (qualifier, name), near)
        if target is None and qualifier is None and name in defined:
            target = (near, defined[name])
        if target is not None and not TEST_FILE.search(target[0]):
            found.append((name, target))
    return found


def globals_read(repo: Path, span: Span) -> list[Span]:
    """The module-level assignments of `span`'s module that its definition reads (a constant, a
    table, a default argument's value): a fix often changes the data a function uses, and
    coverage records a module's top level under no test."""
    tree = _parse(repo, span.path)
    if tree is None:
        return []
    assigned = _module_assignments(tree)
    inside = [
        n
        for n in walked(tree)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and n.lineno == span.start
    ]
    found = {assigned[name] for name in _names_in(inside) if name in assigned}
    return [
        Span(span.path, n.lineno, n.end_lineno or n.lineno, "module level", span.score / 2)
        for n in sorted(found, key=lambda n: n.lineno)
    ]


def _module_assignments(tree: ast.Module) -> dict[str, ast.stmt]:
    """Name -> the last module-level statement assigning it (`=`, annotated, augmented)."""
    assigned: dict[str, ast.stmt] = {}
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
        assigned |= {target.id: node for target in targets if isinstance(target, ast.Name)}
    return assigned


def _names_in(nodes: Sequence[ast.AST]) -> set[str]:
    """Every bare name used in `nodes`."""
    return {n.id for node in nodes for n in ast.walk(node) if isinstance(n, ast.Name)}
