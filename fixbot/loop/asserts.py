"""What a Python test's syntax tree says: how many assertions it makes, which cannot fail or are
swallowed by a wide `except`, what it does to `sys.modules`, and which process exits run when a
module is imported. Pure functions over `ast`; the cheat detector (`fixbot.loop.cheats`) compares
them before and after a fix.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

EXITS = {"_exit", "exit", "abort", "kill", "quit"}
WIDE = {"AssertionError", "Exception", "BaseException"}


def parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def truthy(node: ast.expr) -> bool:
    """An expression that is true whatever the code under test does."""
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return isinstance(node.operand, ast.Constant) and not node.operand.value
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
        return any(truthy(value) for value in node.values)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        same = isinstance(node.ops[0], ast.Eq | ast.Is | ast.LtE | ast.GtE)
        return same and ast.dump(node.left) == ast.dump(node.comparators[0])
    return isinstance(node, ast.List | ast.Tuple | ast.Dict | ast.Set) and bool(
        getattr(node, "elts", None) or getattr(node, "keys", None)
    )


def call_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


@dataclass(frozen=True)
class Shape:
    """What a Python test module's syntax tree says about its strength."""

    tests: frozenset[str]
    asserts: int
    vacuous: int
    shielded: int  # assertions inside a try/except or suppress that would swallow their failure
    exits: int
    modules: int  # writes to sys.modules
    hooks: tuple[str, ...]


def is_assert(node: ast.AST) -> bool:
    if isinstance(node, ast.Assert):
        return True
    return isinstance(node, ast.Call) and call_name(node).startswith(("assert", "fail"))


def vacuous(node: ast.AST) -> bool:
    if isinstance(node, ast.Assert):
        return truthy(node.test)
    if isinstance(node, ast.Call) and node.args:
        name, args = call_name(node), node.args
        if name in ("assertEqual", "assertIs", "assertLessEqual", "assertGreaterEqual"):
            return len(args) >= 2 and ast.dump(args[0]) == ast.dump(args[1])
        return name == "assertTrue" and truthy(args[0])
    return False


def swallows(node: ast.AST) -> bool:
    """A try/except catching assertion failures, or `with suppress(...)`/`pytest.raises(...)`."""
    if isinstance(node, ast.Try):
        for handler in node.handlers:
            kinds = handler.type
            names = [] if kinds is None else list(getattr(kinds, "elts", [kinds]))
            caught = {getattr(n, "id", getattr(n, "attr", "")) for n in names}
            if kinds is None or caught & WIDE:
                return True
        return False
    if isinstance(node, ast.With):
        calls = [i.context_expr for i in node.items if isinstance(i.context_expr, ast.Call)]
        return any(call_name(c) in ("suppress", "raises") for c in calls)
    return False


def shielded(tree: ast.Module) -> int:
    count = 0
    for node in ast.walk(tree):
        if swallows(node):
            body = getattr(node, "body", [])
            count += sum(is_assert(n) for stmt in body for n in ast.walk(stmt))
    return count


def writes_modules(node: ast.AST) -> bool:
    """`sys.modules[...] = `, `sys.modules.update(...)`, `setitem(sys.modules, ...)`."""
    text = ast.dump(node)
    if "attr='modules'" not in text:
        return False
    if isinstance(node, ast.Assign | ast.AugAssign | ast.Delete):
        return True
    return isinstance(node, ast.Call) and call_name(node) in ("update", "setitem", "setdefault")


def shape(text: str) -> Shape | None:
    tree = parse(text)
    if tree is None:
        return None
    nodes = list(ast.walk(tree))
    defs = [n for n in nodes if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    return Shape(
        tests=frozenset(d.name for d in defs if d.name.startswith("test")),
        asserts=sum(is_assert(n) for n in nodes),
        vacuous=sum(vacuous(n) for n in nodes),
        shielded=shielded(tree),
        exits=sum(isinstance(n, ast.Call) and call_name(n) in EXITS for n in nodes)
        + sum(isinstance(n, ast.Raise) and "SystemExit" in ast.dump(n) for n in nodes),
        modules=sum(writes_modules(n) for n in nodes),
        hooks=tuple(sorted(ast.dump(d) for d in defs if d.name.startswith("pytest_"))),
    )


def exits_at_import(tree: ast.Module) -> int:
    """Process exits that run when the module is imported (top-level code, outside functions,
    classes and `if __name__ == "__main__":`), and every `os._exit` however it was imported."""
    count = sum(isinstance(n, ast.Call) and call_name(n) == "_exit" for n in ast.walk(tree))
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        stmt = pending.pop()
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if isinstance(stmt, ast.If) and "__main__" in ast.dump(stmt.test):
            continue
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call) and call_name(node) in EXITS - {"_exit"}:
                count += 1
            if isinstance(node, ast.Raise) and "SystemExit" in ast.dump(node):
                count += 1
    return count
