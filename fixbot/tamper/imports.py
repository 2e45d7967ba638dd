"""What a Python module's text imports and binds at its top level, read from the text, not run:
the names a file refers to through its imports (`imported_references`, a call or any other
load, a star import's), and what a module defines and hands on (`module_level`), for following
a name to the file that defines it (`fixbot.run.integrity`: the assertion functions a failing
test's files reach). Pure functions over text.
"""

from __future__ import annotations

import ast
import posixpath
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

__all__ = [
    "Imported",
    "ModuleLevel",
    "aliases",
    "expected_to_raise",
    "imported_modules",
    "imported_references",
    "module_level",
    "names",
    "plugins_named",
    "shadows",
]


def _parsed(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


# a function imported by `from <module> import <name>` (`level` dots), or named through a module
# imported (`import checks`, `from pkg import checks`: `checks.assert_alike(...)`)
Imported = tuple[int, str, str]


def imported_references(text: str) -> frozenset[Imported]:
    """What the Python source `text` refers to by a name it imported: `(level, module, name)` of
    each load (a call, an argument, `staticmethod(checks.assert_alike)`, a default) of a name
    bound by `from <module> import <name> [as ...]` (`level` the import's leading dots), of
    `<name>` of a module bound by `import <module> [as ...]` or `from <package> import
    <module>` (its module `<package>.<module>`), and of a name no import binds where a star
    import (`from <module> import *`) may have bound it: one not beginning with `_`, once per
    star import (the module's `__all__` is not read: what it does not define is found nowhere
    there). Empty where `text` does not parse. Read from the text, not run: a name rebound
    later is read as imported."""
    return _references(text, ast.walk)


def _references(
    text: str, picked: Callable[[ast.Module], Iterable[ast.AST]]
) -> frozenset[Imported]:
    """The imported names the nodes `picked` from `text`'s tree refer to (`_referred`, through
    the names its imports bind: `_bind`); empty where `text` does not parse."""
    tree = _parsed(text)
    if tree is None:
        return frozenset()
    names: dict[str, Imported] = {}
    modules: dict[str, tuple[int, str]] = {}
    stars: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        _bind(node, names, modules, stars)
    return frozenset(
        found for node in picked(tree) for found in _referred(node, names, modules, stars)
    )


# the assertions of an expected exception: unittest's `assertRaises(E, f, ...)` and its context
# manager (`assertRaisesRegex` alike), pytest's `raises(E, f, ...)` and `with raises(E):`
RAISES = frozenset({"assertRaises", "assertRaisesRegex", "raises"})


def expected_to_raise(text: str) -> frozenset[Imported]:
    """The imported names (as `imported_references` gives them) that the Python source `text`
    expects to raise: a callable handed to `assertRaises(E, f, ...)`/`raises(E, f, ...)`, or
    called in the body of `with self.assertRaises(E):`/`with pytest.raises(E):`, and handed
    no other call's result outside one. A function the tests assert raises is what they test
    (validate.py's `check_even`, also called as `check_even(4)`: round 38's false alarm), not
    an assertion they make; one they also hand another call's result outside any expectation
    is their assertion too (round 39: `assert_alike(add(2, 2), 4)` beside `with
    self.assertRaises(AssertionError): assert_alike(1, 2)`). Read from the text: a function
    under test handed a call's result (`check_even(double(2))`) is read as an assertion (pinned:
    a false alarm on the safe side). Empty where `text` does not parse."""
    expected = _references(text, lambda tree: _subjects_in(tree))
    return expected - _references(text, _called_elsewhere)


def _subjects_in(tree: ast.Module) -> list[ast.expr]:
    """Every node of `tree` an expectation expects to raise (`_subjects`)."""
    return [s for node in ast.walk(tree) for s in _subjects(node)]


def _called_elsewhere(tree: ast.Module) -> list[ast.expr]:
    """The callee of each call of `tree` that no expectation expects to raise (`_subjects`) and
    that is handed another call's result (`assert_alike(add(2, 2), 4)`)."""
    inside = {id(s) for s in _subjects_in(tree)}
    calls = (n for n in ast.walk(tree) if isinstance(n, ast.Call) and id(n.func) not in inside)
    return [c.func for c in calls if any(isinstance(a, ast.Call) for a in _arguments(c))]


def _arguments(call: ast.Call) -> list[ast.expr]:
    """The values a call hands on, positional and by keyword."""
    return [*call.args, *(keyword.value for keyword in call.keywords)]


def _subjects(node: ast.AST) -> list[ast.expr]:
    """What `node` expects to raise (`expected_to_raise`): the callable an `assertRaises(E, f,
    ...)` call hands on, or the functions called in the body of a `with` of one."""
    if isinstance(node, ast.Call) and _raises(node) and len(node.args) > 1:
        return [node.args[1]]
    if not isinstance(node, ast.With | ast.AsyncWith):
        return []
    if not any(_raises(item.context_expr) for item in node.items):
        return []
    return [c.func for s in node.body for c in ast.walk(s) if isinstance(c, ast.Call)]


def _raises(node: ast.expr) -> bool:
    """Whether `node` is a call asserting an expected exception (`RAISES`, by its last name)."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in RAISES


def _bind(
    node: ast.AST,
    names: dict[str, Imported],
    modules: dict[str, tuple[int, str]],
    stars: list[tuple[int, str]],
) -> None:
    """Note the names an import statement `node` binds (`imported_references`)."""
    if isinstance(node, ast.ImportFrom):
        _bind_from(node, names, modules, stars)
    elif isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname or "." not in alias.name:
                modules[alias.asname or alias.name] = (0, alias.name)


def _bind_from(
    node: ast.ImportFrom,
    names: dict[str, Imported],
    modules: dict[str, tuple[int, str]],
    stars: list[tuple[int, str]],
) -> None:
    """Note the names `from <module> import ...` binds: each name (maybe a module), or the
    star's module."""
    module = node.module or ""
    for alias in node.names:
        if alias.name == "*":
            stars.append((node.level, module))
            continue
        bound = alias.asname or alias.name
        names[bound] = (node.level, module, alias.name)
        modules[bound] = (node.level, f"{module}.{alias.name}".lstrip("."))


def _referred(
    node: ast.AST,
    names: dict[str, Imported],
    modules: dict[str, tuple[int, str]],
    stars: list[tuple[int, str]],
) -> list[Imported]:
    """The imported names a load `node` refers to (`imported_references`): none for a node that
    loads nothing imported."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        owner = modules.get(node.value.id)
        return [(owner[0], owner[1], node.attr)] if owner else []
    if not isinstance(node, ast.Name) or not isinstance(node.ctx, ast.Load):
        return []
    if node.id in names:
        return [names[node.id]]
    if node.id.startswith("_") or node.id in modules:
        return []
    return [(level, module, node.id) for level, module in stars]


@dataclass(frozen=True)
class ModuleLevel:
    """A module's top level: the names it `defined` (`def`, `class`, an assignment's target),
    the names its imports bind (`imports`: bound name to `(level, module, name)`, a star
    import's under "*" with name "*"), and whether it holds only imports, a docstring and
    assignments (`only_imports`: a module that hands names on, `__init__.py`'s re-exports)."""

    defined: frozenset[str] = frozenset()
    imports: dict[str, list[Imported]] = field(default_factory=dict)
    only_imports: bool = False

    def sources(self, name: str) -> list[Imported]:
        """Where an import of the module may have bound `name` from: its own import of it,
        then each star import's module (the same name there)."""
        stars = [(level, module, name) for level, module, _ in self.imports.get("*", [])]
        return [*self.imports.get(name, []), *stars]


def module_level(text: str) -> ModuleLevel:
    """The top level of the Python source `text` (`ModuleLevel`); empty where it does not
    parse. Statements under an `if` or `try` at the top level are not read."""
    tree = _parsed(text)
    if tree is None:
        return ModuleLevel()
    defined: set[str] = set()
    imports: dict[str, list[Imported]] = {}
    for node in tree.body:
        defined.update(_defines(node))
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                bound = alias.asname or alias.name
                imports.setdefault(bound, []).append((node.level, node.module or "", alias.name))
    return ModuleLevel(frozenset(defined), imports, all(map(_hands_on, tree.body)))


def _defines(node: ast.stmt) -> list[str]:
    """The names a top-level statement defines: a `def`'s, a `class`'s, a plain assignment's."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.Assign | ast.AnnAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return [t.id for t in targets if isinstance(t, ast.Name)]
    return []


def _hands_on(node: ast.stmt) -> bool:
    """Whether a top-level statement is one of a module that only hands names on: an import,
    an assignment, a docstring (`ModuleLevel.only_imports`)."""
    if isinstance(node, ast.Expr):
        return isinstance(node.value, ast.Constant)
    return isinstance(node, ast.Import | ast.ImportFrom | ast.Assign | ast.AnnAssign)


def imported_modules(text: str) -> frozenset[tuple[int, str]]:
    """The modules the import statements of the Python source `text` name, anywhere in it (a
    function's too): `(level, module)`, `level` the leading dots; `from <package> import
    <name>` names both `<package>` and `<package>.<name>` (a name there may be a submodule).
    Empty where `text` does not parse. `importlib.import_module` and `__import__` are not
    read."""
    tree = _parsed(text)
    if tree is None:
        return frozenset()
    found: set[tuple[int, str]] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update((0, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            found.add((node.level, module))
            found.update((node.level, f"{module}.{a.name}".lstrip(".")) for a in node.names)
    return frozenset(found)


def plugins_named(text: str) -> list[str]:
    """The dotted module names a top-level `pytest_plugins = "x"` (or a list or tuple of
    strings, annotated or not) of the Python source `text` names: pytest imports each as a
    plugin of the session (its fixtures and hooks). Empty where `text` does not parse; a value
    that is no literal (`pytest_plugins = names()`) names none."""
    tree = _parsed(text)
    if tree is None:
        return []
    found: list[str] = []
    for node in tree.body:
        if not isinstance(node, ast.Assign | ast.AnnAssign) or node.value is None:
            continue
        if "pytest_plugins" in _defines(node):
            found.extend(_strings(node.value))
    return found


def _strings(value: ast.expr) -> list[str]:
    """The strings a literal `value` holds: itself, or a list's or tuple's string items."""
    items = value.elts if isinstance(value, ast.List | ast.Tuple) else [value]
    return [i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)]


def names(text: str) -> frozenset[str]:
    """Every name the Python source `text` spells: a name's, an attribute's, a string
    constant's that is an identifier (`importlib.import_module("checks")`, `getattr(m,
    "assert_alike")`); empty where it does not parse."""
    tree = _parsed(text)
    if tree is None:
        return frozenset()
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.Constant) and str(node.value).isidentifier():
            found.add(str(node.value))
    return frozenset(found)


def aliases(text: str, defined: Iterable[str]) -> frozenset[str]:
    """`defined` (names of the Python source `text`'s functions) with the module-level names
    bound to one of them by a plain assignment (`assert_alike = _alike`, chains followed in
    order); `defined` alone where it does not parse."""
    found = set(defined)
    tree = _parsed(text)
    for node in tree.body if tree is not None else []:
        value = node.value if isinstance(node, ast.Assign) else None
        if isinstance(value, ast.Name) and value.id in found:
            found.update(t.id for t in getattr(node, "targets", []) if isinstance(t, ast.Name))
    return frozenset(found)


# the suffixes of an extension module, which the import system tries before `.py` in a folder
EXTENSIONS = (".so", ".pyd")


def shadows(path: str, modules: Iterable[str]) -> bool:
    """Whether a file at `path` (root-relative), added beside one of `modules` (`.py` files),
    is what `import` finds instead of that module in its folder (the path finder's order: a
    package before a module, an extension module's suffixes before `.py`, a fresh
    `__pycache__` file before the source): for `d/name.py` or `d/name/__init__.py`, any
    `d/name/__init__.*` but the module itself, `d/name.so`, `d/name.<tag>.so` (`.pyd`), and
    `d/__pycache__/name.*.pyc`. A module earlier on `sys.path` (another folder) is not read."""
    return any(_shadows(path, module) for module in modules if module.endswith(".py"))


def _shadows(path: str, module: str) -> bool:
    """Whether `path` shadows the one module file `module` (`shadows`)."""
    stem = module.removesuffix("/__init__.py") if module.endswith("/__init__.py") else module
    stem = stem.removesuffix(".py")
    if path == module:
        return False
    folder, name = posixpath.split(stem)
    cached = posixpath.join(folder, "__pycache__", name + ".")
    return (
        path.startswith(stem + "/__init__.")
        or (path.startswith(stem + ".") and path.endswith(EXTENSIONS))
        or (path.startswith(cached) and path.endswith(".pyc"))
    )
