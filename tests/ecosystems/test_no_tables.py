"""Every fact about an ecosystem lives in its module: no module of fixbot outside
`fixbot/ecosystems/` keeps a table keyed by ecosystem names or branches on one (read from the
syntax tree, so a new table cannot hide behind formatting)."""

from __future__ import annotations

import ast

from fixbot.ecosystems import registry
from tests.fakes.paths import ROOT

# The registry's names and the names fixbot used for two of them before the registry.
NAMES = frozenset(registry.names()) | {"npm", "cargo"}
# `bench/` rebuilds its cases from the package indexes (PyPI, npm): a corpus family, not an
# ecosystem of the checked project.
OUTSIDE = ("ecosystems", "bench")


def _name(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and node.value in NAMES else None


def _says_ecosystem(node: ast.AST) -> bool:
    """`x.ecosystem`, `ecosystem`: an expression that holds an ecosystem's name."""
    return (isinstance(node, ast.Attribute) and node.attr == "ecosystem") or (
        isinstance(node, ast.Name) and node.id == "ecosystem"
    )


def tables(tree: ast.AST) -> list[int]:
    """The lines of dict literals keyed by two or more ecosystem names, tuples or lists of
    rows keyed by them, and comparisons of an ecosystem's name with a literal."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            keyed = {_name(k) for k in node.keys if k is not None} - {None}
            if len(keyed) >= 2:
                found.append(node.lineno)
        elif isinstance(node, ast.Tuple | ast.List):
            rows = {
                _name(row.elts[0])
                for row in node.elts
                if isinstance(row, ast.Tuple | ast.List) and row.elts
            }
            if len(rows - {None}) >= 2:
                found.append(node.lineno)
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_says_ecosystem(s) for s in sides) and any(_name(s) for s in sides):
                found.append(node.lineno)
    return found


def test_no_module_outside_the_registry_keys_a_table_by_ecosystem() -> None:
    package = ROOT / "fixbot"
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted(package.rglob("*.py"))
        if path.relative_to(package).parts[0] not in OUTSIDE
        for line in tables(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert found == []


def test_the_tables_the_registry_replaced_would_be_found() -> None:
    """The shapes the ecosystem facts had before (`logs/missing.py`, `policy/recovery.py`)."""
    before = (
        'LOADERS = (("python", a), ("npm", b))\n'
        'MANIFESTS = {"python": ("pyproject.toml",), "go": ("go.mod",)}\n'
        'if missing.ecosystem == "cargo":\n    pass\n'
        'DIALECT = Dialect(name="go")\n'  # a dialect's own name is no table
    )
    assert tables(ast.parse(before)) == [1, 2, 3]
