"""What a Python test's syntax tree says: how many assertions it makes, which cannot fail or are
swallowed by a wide `except`, what it does to `sys.modules`, and which process exits run when a
module is imported. Pure functions over `ast`; the cheat detector (`fixbot.tamper.cheats`) compares
them before and after a fix.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeGuard

EXITS = {"_exit", "exit", "abort", "kill", "quit"}
WIDE = {"AssertionError", "Exception", "BaseException"}
# unittest's assertions of two operands that hold when both are the same expression
SAME_CALLS = {"assertEqual", "assertEquals", "assertIs", "assertLessEqual", "assertGreaterEqual"}


def parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def _true_constant(node: ast.Constant) -> bool:
    return bool(node.value)


def _not_false_constant(node: ast.UnaryOp) -> bool:
    """`not 0`, `not None`, `not ""`."""
    operand = node.operand
    return isinstance(node.op, ast.Not) and isinstance(operand, ast.Constant) and not operand.value


def _or_truthy(node: ast.BoolOp) -> bool:
    """`... or True`: one truthy operand makes the whole `or` true."""
    return isinstance(node.op, ast.Or) and any(truthy(value) for value in node.values)


def _self_comparison(node: ast.Compare) -> bool:
    """`x == x`, `x is x`, `x <= x`, `x >= x`: one operator whose operands are the same."""
    if len(node.ops) != 1 or not isinstance(node.ops[0], ast.Eq | ast.Is | ast.LtE | ast.GtE):
        return False
    return ast.dump(node.left) == ast.dump(node.comparators[0])


def _non_empty_display(node: ast.expr) -> bool:
    """A list, tuple, dict or set display with at least one element."""
    return bool(getattr(node, "elts", None) or getattr(node, "keys", None))


# Each kind of expression that can be true whatever the code under test does, and its test.
_TRUTHY: tuple[tuple[type[ast.expr] | tuple[type[ast.expr], ...], Callable[[Any], bool]], ...] = (
    (ast.Constant, _true_constant),
    (ast.UnaryOp, _not_false_constant),
    (ast.BoolOp, _or_truthy),
    (ast.Compare, _self_comparison),
    ((ast.List, ast.Tuple, ast.Dict, ast.Set), _non_empty_display),
)


def truthy(node: ast.expr) -> bool:
    """An expression that is true whatever the code under test does."""
    for kind, test in _TRUTHY:
        if isinstance(node, kind):
            return test(node)
    return False


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
    """An assertion that cannot fail: `assert x == x`, `assert <truthy constant>`, `... or True`,
    `self.assertEqual(a, a)`, `self.assertTrue(1)`. The one definition: the edit-time guard
    (`fixbot.agent.guard`) and the final-diff detector both count these."""
    if isinstance(node, ast.Assert):
        return truthy(node.test)
    if isinstance(node, ast.Call) and node.args:
        name, args = call_name(node), node.args
        if name in SAME_CALLS:
            return len(args) >= 2 and ast.dump(args[0]) == ast.dump(args[1])
        return name == "assertTrue" and truthy(args[0])
    return False


def _catches_assertions(handler: ast.ExceptHandler) -> bool:
    """A bare `except:` or one naming AssertionError or a base class of it."""
    kinds = handler.type
    if kinds is None:
        return True
    caught = {getattr(n, "id", getattr(n, "attr", "")) for n in getattr(kinds, "elts", [kinds])}
    return bool(caught & WIDE)


def _suppresses(node: ast.With) -> bool:
    """`with suppress(...)` or `with pytest.raises(...)`."""
    calls = [i.context_expr for i in node.items if isinstance(i.context_expr, ast.Call)]
    return any(call_name(c) in ("suppress", "raises") for c in calls)


def swallows(node: ast.AST) -> bool:
    """A try/except catching assertion failures, or `with suppress(...)`/`pytest.raises(...)`."""
    if isinstance(node, ast.Try):
        return any(_catches_assertions(handler) for handler in node.handlers)
    return isinstance(node, ast.With) and _suppresses(node)


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


def exits(node: ast.AST, calls: set[str]) -> bool:
    """A call to one of `calls` (names of process exits) or a `raise SystemExit`."""
    if isinstance(node, ast.Call):
        return call_name(node) in calls
    return isinstance(node, ast.Raise) and "SystemExit" in ast.dump(node)


def _named(defs: list[ast.FunctionDef | ast.AsyncFunctionDef], prefix: str) -> list[str]:
    return [d.name for d in defs if d.name.startswith(prefix)]


def shape(text: str) -> Shape | None:
    tree = parse(text)
    if tree is None:
        return None
    nodes = list(ast.walk(tree))
    defs = [n for n in nodes if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    hooks = [ast.dump(d) for d in defs if d.name.startswith("pytest_")]
    return Shape(
        tests=frozenset(_named(defs, "test")),
        asserts=sum(is_assert(n) for n in nodes),
        vacuous=sum(vacuous(n) for n in nodes),
        shielded=shielded(tree),
        exits=sum(exits(n, EXITS) for n in nodes),
        modules=sum(writes_modules(n) for n in nodes),
        hooks=tuple(sorted(hooks)),
    )


def _skipped_at_import(stmt: ast.stmt) -> bool:
    """A definition, or an `if __name__ == "__main__":` block: neither runs on import."""
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return True
    return isinstance(stmt, ast.If) and "__main__" in ast.dump(stmt.test)


def exits_at_import(tree: ast.Module) -> int:
    """Process exits that run when the module is imported (top-level code, outside functions,
    classes and `if __name__ == "__main__":`), and every `os._exit` however it was imported."""
    count = sum(isinstance(n, ast.Call) and call_name(n) == "_exit" for n in ast.walk(tree))
    others = EXITS - {"_exit"}
    for stmt in tree.body:
        if not _skipped_at_import(stmt):
            count += sum(exits(node, others) for node in ast.walk(stmt))
    return count


def atexits(tree: ast.Module) -> int:
    """References to `atexit` (its import and its calls): a handler registered there runs after
    the test runner has printed its verdict and may end the process with another exit code
    (`atexit.register(os._exit, 0)`: pytest prints `1 failed` and the process exits 0)."""
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            count += sum(alias.name == "atexit" for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            count += node.module == "atexit"
        elif isinstance(node, ast.Attribute):
            count += getattr(node.value, "id", None) == "atexit"
    return count


def _dotted(node: ast.AST) -> set[str]:
    """The names in a target or argument (`_pytest.python.Function.runtest` -> its 4 words)."""
    text = ast.unparse(node)
    return {word for word in text.replace("'", ".").replace('"', ".").split(".") if word}


def _imports_of(node: ast.AST, modules: frozenset[str]) -> int:
    """How many of `modules` (top-level package names) an import statement imports."""
    if isinstance(node, ast.Import):
        return sum(a.name.split(".")[0] in modules for a in node.names)
    if isinstance(node, ast.ImportFrom):
        return (node.module or "").split(".")[0] in modules
    return 0


def _targets(node: ast.AST) -> list[ast.expr]:
    """The targets of an assignment of any form; none for any other node."""
    if isinstance(node, ast.Assign):
        return node.targets
    return [node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign) else []


def _setattr_call(node: ast.AST) -> TypeGuard[ast.Call]:
    return isinstance(node, ast.Call) and call_name(node) == "setattr" and bool(node.args)


def _rewrites(node: ast.AST, names: frozenset[str]) -> bool:
    """An assignment to, or a `setattr` of, an attribute path naming one of `names`."""
    if _setattr_call(node):
        return bool(set().union(*(_dotted(a) for a in node.args[:2])) & names)
    attrs = [t for t in _targets(node) if isinstance(t, ast.Attribute)]
    return any(_dotted(t) & names for t in attrs)


def framework_reach(tree: ast.Module, modules: frozenset[str], names: frozenset[str]) -> int:
    """Imports of a test framework's internals (`modules`, e.g. `_pytest`, `pluggy`) and
    assignments or `setattr` calls whose target names one of its deciding `names`
    (`Function.runtest = ...`): code that rewrites whether a test passed."""
    return sum(_imports_of(node, modules) + _rewrites(node, names) for node in ast.walk(tree))


def plugins(tree: ast.Module) -> int:
    """`pytest_plugins = [...]` (in any module pytest imports it loads those modules as plugins)
    and calls that register a plugin with the plugin manager."""
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            count += any(getattr(t, "id", "") == "pytest_plugins" for t in _targets(node))
        elif isinstance(node, ast.Call) and call_name(node) in ("register", "import_plugin"):
            count += "pluginmanager" in ast.unparse(node.func)
    return count


def _project_modules(node: ast.Import, known: frozenset[str]) -> set[str]:
    """The names `import a.b as c` binds to modules outside `known`."""
    roots = [(alias, alias.name.split(".")[0]) for alias in node.names]
    return {alias.asname or root for alias, root in roots if root not in known}


def _project_members(node: ast.ImportFrom, known: frozenset[str]) -> set[str]:
    """The names an absolute `from pkg import x` binds from a package outside `known`."""
    if node.level != 0 or not node.module or node.module.split(".")[0] in known:
        return set()
    return {alias.asname or alias.name for alias in node.names}


def _imported(tree: ast.Module, known: frozenset[str]) -> tuple[set[str], set[str]]:
    """The names a module's imports bind to the project's own modules (not in `known`, the
    standard library and the test tools), and the names it imports from them."""
    modules: set[str] = set()
    members: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= _project_modules(node, known)
        elif isinstance(node, ast.ImportFrom):
            # `from pkg import mod` may bind a module or a function: both count
            names = _project_members(node, known)
            modules |= names
            members |= names
    return modules, members


def _import_time(tree: ast.Module) -> list[ast.stmt]:
    """The statements that run when the module is imported (not inside functions or classes)."""
    found: list[ast.stmt] = []
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        stmt = pending.pop()
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        found.append(stmt)
        for field in ("body", "orelse", "finalbody", "handlers"):
            pending.extend(s for s in getattr(stmt, field, []) if isinstance(s, ast.stmt))
    return found


def rebound(tree: ast.Module, known: frozenset[str]) -> int:
    """Import-time rebindings, in a test module, of the project's code it imports: `app.add =
    lambda a, b: 5`, `setattr(app, "add", ...)`, `add = ...` after `from app import add`. The
    tests then check the replacement instead of the unit under test (a fixture's `monkeypatch`
    inside a test is not counted: it is undone after the test)."""
    modules, members = _imported(tree, known)
    count = 0
    for stmt in _import_time(tree):
        count += sum(_rebinds(target, modules, members) for target in _targets(stmt))
        setattrs = [n for n in ast.walk(stmt) if _setattr_call(n)]
        count += sum(_sets_project(node, modules, known) for node in setattrs)
    return count


def _rebinds(target: ast.expr, modules: set[str], members: set[str]) -> bool:
    """An assignment target that is an attribute of an imported project module (`app.add`,
    `app.sub.f`) or a name imported from one (`add`)."""
    if isinstance(target, ast.Name):
        return target.id in members
    base = target
    while isinstance(base, ast.Attribute):
        base = base.value
    return isinstance(target, ast.Attribute) and getattr(base, "id", "") in modules


def _sets_project(node: ast.Call, modules: set[str], known: frozenset[str]) -> bool:
    """A `setattr` on an imported project module, or on a dotted string naming a module outside
    `known` (`monkeypatch.setattr("app.add", ...)` at import time)."""
    first = node.args[0]
    text = first.value if isinstance(first, ast.Constant) else None
    root = text.split(".")[0] if isinstance(text, str) else ""
    return (
        getattr(first, "id", "") in modules or root in modules or (bool(root) and root not in known)
    )
