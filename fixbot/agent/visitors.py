"""The visitor methods of the node classes a failing run built: `spans`, for a Python span
whose executed lines construct a class (`nodes.NSRef(...)`, `Assign(...)`), the methods named
`visit_<Class>` in the Python files of that span's folder that the run never executed. A parser
builds a node and a compiler, a checker or a renderer walks it through the visitor pattern
(`ast.NodeVisitor`, Jinja's `NodeVisitor`): when the run stops before the walk (the parse
failed), no spectrum reaches the visitor, though the fix may belong there (Jinja 3.1.5 moved the
namespace check of `{% set ns.a, ns.b = ... %}` from `visit_NSRef` to `visit_Assign`). Read
with `ast`, nothing imported or run; the executed lines are a spectrum's
(`fixbot.agent.locate.Ranked`'s `executed`).

Used by `fixbot.agent.context`, after the ran callees of the spectrum's first functions.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path

from fixbot.agent.locate import Span, _functions, _parse, walked

VISITORS = 4  # visitor methods shown at most
VISITOR_LINES = 20  # lines each shows at most
FOLDER_FILES = 200  # Python files of a span's folder read at most, by name


def spans(repo: Path, built_by: Sequence[Span], ran: dict[str, frozenset[int]]) -> list[Span]:
    """The `visit_<Class>` methods of the classes `built_by`'s Python spans construct on lines
    the failing run executed (`ran`: repository-relative path -> 1-based lines), in the order
    the spans and their calls come, each from the `.py` files of the span's own folder (at most
    `FOLDER_FILES`, sorted by name) and left out where the run executed any line of it; at most
    `VISITORS`, each shown from its start, at most `VISITOR_LINES` lines. [] without executed
    lines or a Python span. A class is a called name starting with a capital letter (`X(...)`,
    `mod.X(...)`): Python's naming convention, not a type check."""
    wanted: list[tuple[str, str]] = []  # (the builder's path, the visitor's name), in order
    for span in built_by:
        lines = ran.get(span.path, frozenset())
        tree = _parse(repo, span.path) if span.path.endswith(".py") and lines else None
        if tree is not None:
            wanted += [(span.path, f"visit_{name}") for name in _built_on(tree, span, lines)]
    defined: dict[Path, dict[str, list[Span]]] = {}  # each folder's files parsed once
    found: list[Span] = []
    for near, method in wanted:
        folder = (repo / near).parent
        if folder not in defined:
            defined[folder] = _visitors(repo, folder, ran)
        found += defined[folder].get(method, [])
    return list(dict.fromkeys(found))[:VISITORS]


def _built_on(tree: ast.Module, span: Span, lines: frozenset[int]) -> list[str]:
    """The capitalised names called (`X(...)`, `a.X(...)`) on the lines `lines` inside `span`, in
    the order they are written."""
    calls = []
    for node in walked(tree):
        line = getattr(node, "lineno", 0)
        if not (isinstance(node, ast.Call) and span.start <= line <= span.end and line in lines):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        if name[:1].isupper():
            calls.append((line, node.col_offset, name))
    return list(dict.fromkeys(name for _, _, name in sorted(calls)))


def _visitors(repo: Path, folder: Path, ran: dict[str, frozenset[int]]) -> dict[str, list[Span]]:
    """The functions named `visit_*` in the `.py` files of `folder` that the run executed no
    line of, by name, each a span from its start."""
    found: dict[str, list[Span]] = {}
    for path in sorted(folder.glob("*.py"))[:FOLDER_FILES]:
        rel = path.relative_to(repo).as_posix()
        tree = _parse(repo, rel)
        if tree is None:
            continue
        executed = ran.get(rel, frozenset())
        for node in _functions(tree):
            end = node.end_lineno or node.lineno
            if node.name.startswith("visit_") and not any(
                node.lineno <= n <= end for n in executed
            ):
                span = Span(rel, node.lineno, end, node.name, 0.0, (), VISITOR_LINES)
                found.setdefault(node.name, []).append(span)
    return found
