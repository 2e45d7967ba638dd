"""The data a shown function reads: its own module's, its class's, and the modules' it imports.

A fix often changes a table a function reads (a lexer's rules, a dispatch dict, a constant), and
such a table's lines run at import, under no test, so no coverage spectrum ranks them.
`fixbot.agent.locate.globals_read` finds the data of the function's own module; `read_by` adds
the data of another module of the repository that the function reads through that module's
name, `keywords.SQL_REGEX` after `from sqlparse import keywords` (or `import pkg.keywords as
keywords`), or imported by its own name, `from sqlparse.keywords import SQL_REGEX`;
`class_data` the class-level data a method reads through `self.NAME` (Markdown's
`AttrListTreeprocessor.HEADER_RE`, built from `BASE_RE` in the class body). Pure reading with
`ast`, like `locate`: nothing is imported or run; test files are never followed.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

from fixbot.agent import locate
from fixbot.agent.locate import TEST_FILE, Span

MAX_IMPORTED = 3  # another module's assignments shown per function, in the order it reads them


def read_by(repo: Path, span: Span) -> list[Span]:
    """The data `span`'s function (or class) reads: its own module's assignments
    (`locate.globals_read`), its class's (`class_data`), then at most `MAX_IMPORTED` of other
    modules' of the repository, each a `Span` of the whole statement, scored half of `span`'s."""
    own = [*locate.globals_read(repo, span), *class_data(repo, span)]
    return [*own, *imported(repo, span)[:MAX_IMPORTED]]


def class_data(repo: Path, span: Span) -> list[Span]:
    """The assignments of the class body that `span`'s method reads as an attribute of its
    first argument or of the class's name (`self.HEADER_RE`, `cls.RULES`, `Lexer.RULES`), with
    the class-body assignments those read by bare name (`HEADER_RE = re.compile(BASE_RE)`), in
    the class's order, each a `Span` named "class level" scored half of `span`'s: a pattern or
    table kept on the class runs once, at import, so no spectrum ranks its lines. [] for a
    function outside a class or a file that is not Python we can parse."""
    tree = locate._parse(repo, span.path)
    found = _method(tree, span.start) if tree is not None else None
    if found is None:
        return []
    owner, method = found
    assigned = _class_assignments(owner)
    names = _attributes_read(owner, method) & set(assigned)
    names |= {m for name in names for m in _bare_names(assigned[name]) if m in assigned}
    return [
        Span(span.path, n.lineno, n.end_lineno or n.lineno, "class level", span.score / 2)
        for n in sorted({assigned[name] for name in names}, key=lambda n: n.lineno)
    ]


Method = ast.FunctionDef | ast.AsyncFunctionDef


def _method(tree: ast.Module, line: int) -> tuple[ast.ClassDef, Method] | None:
    """The class and the method of it defined at `line`, or None."""
    for owner in (n for n in locate.walked(tree) if isinstance(n, ast.ClassDef)):
        for node in owner.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.lineno == line:
                return owner, node
    return None


def _attributes_read(owner: ast.ClassDef, method: Method) -> set[str]:
    """The attributes `method` reads of its first argument or of its class's name."""
    args = method.args.posonlyargs + method.args.args
    holders = {owner.name, *(a.arg for a in args[:1])}
    return {
        n.attr
        for n in ast.walk(method)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
        if n.value.id in holders
    }


def _class_assignments(owner: ast.ClassDef) -> dict[str, ast.stmt]:
    """Name -> the last statement of the class body assigning it (`=`, annotated)."""
    assigned: dict[str, ast.stmt] = {}
    for node in owner.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        assigned |= {target.id: node for target in targets if isinstance(target, ast.Name)}
    return assigned


def _bare_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def imported(repo: Path, span: Span) -> list[Span]:
    """The module-level assignments of other repository modules that `span`'s definition reads
    through an import of its module (`mod.NAME`, `from mod import NAME`), in reading order; []
    when its file is not Python we can parse or it reads none."""
    tree = locate._parse(repo, span.path)
    if tree is None:
        return []
    bound = locate.imports(tree, span.path)
    found: list[Span] = []
    for module, name in _reads(_definition(tree, span.start), bound):
        data = _assignment(repo, module, name, span.path)
        if data is not None and data not in found:
            found.append(data)
    return [replace(s, score=span.score / 2) for s in found]


def _definition(tree: ast.Module, line: int) -> list[ast.AST]:
    kinds = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    return [n for n in locate.walked(tree) if isinstance(n, kinds) and n.lineno == line]


def _reads(nodes: list[ast.AST], bound: dict[str, tuple[str, str | None]]) -> list[tuple[str, str]]:
    """(dotted module, name) of each other module's name `nodes` read (`_read`), in the order
    they are read."""
    reads = []
    for node in (sub for n in nodes for sub in ast.walk(n)):
        found = _read(node, bound)
        if found is not None:
            reads.append((getattr(node, "lineno", 0), getattr(node, "col_offset", 0), *found))
    return list(dict.fromkeys((module, name) for _, _, module, name in sorted(reads)))


def _read(node: ast.AST, bound: dict[str, tuple[str, str | None]]) -> tuple[str, str] | None:
    """(dotted module, name) when `node` reads another module's name: `alias.NAME` where
    `alias` is an imported module (or a package's module, `from pkg import mod`), or a bare
    name imported from a module (`from mod import NAME`); else None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        if node.value.id not in bound:
            return None
        module, attr = bound[node.value.id]
        return (f"{module}.{attr}" if attr else module), node.attr
    if isinstance(node, ast.Name) and node.id in bound:
        module, name = bound[node.id]
        return (module, name) if name is not None else None
    return None


def _assignment(repo: Path, module: str, name: str, near: str) -> Span | None:
    """The module-level statement assigning `name` in the dotted `module` (imported from the
    file `near`), or None: not in the repository, a test file, or no such assignment."""
    for rel in locate._module_files(repo, module, near):
        if TEST_FILE.search(rel) or rel == near:
            continue
        tree = locate._parse(repo, rel)
        node = locate._module_assignments(tree).get(name) if tree is not None else None
        if node is not None:
            return Span(rel, node.lineno, node.end_lineno or node.lineno, "module level", 0.0)
    return None
