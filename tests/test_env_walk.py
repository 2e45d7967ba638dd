"""The Action's raw environment stops at its edge, read from the code itself (AST).

`fixbot action` is handed the step's environment (`fixbot.github.action.main(env)`): every
variable an earlier step could write, tokens included. The edge reads it once into typed
values (`GitHubEnv`, the inputs, the gates, the settings' variables, the commands' environment,
the secrets to redact); below the edge no function takes it or reads it.

`walk` follows that mapping through the code as a reviewer would: from `main`'s parameter `env`
into each function it is handed to (by position or keyword, directly or as `dict(env)` /
`{**env}`), through a local name it is assigned to, and into a dataclass field it is stored in
(then every read of that field, `ctx.env`, carries it on). A function reached is a stay; the
modules of the stays are the walk's reach, and `ALLOWED` lists them.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache

from tests.test_layers import modules

START = ("fixbot.github.action", "main", "env")  # module, function, parameter

# The modules the Action's raw environment may reach, each for its reason. Adding one needs a
# reason as good; the walk's goal is under 10.
ALLOWED = {
    "fixbot.github.action": "the edge: `main` receives the step's environment",
    "fixbot.github.api.context": "`make_context` reads it once into the typed run context",
    "fixbot.github.stepenv": "what the process forgets of it (the model servers it names)",
    "fixbot.core.github_env": "`GitHubEnv.read`: its `GITHUB_*` variables, typed",
    "fixbot.github.events.inputs": "`read_inputs`: the token and the working directory",
    "fixbot.core.secrets": "`secret_values`: the values to mask and redact",
    "fixbot.core.servers": "`server_variables`: the model server variables `stepenv` forgets",
    "fixbot.process.worlds": "`state_base`: where fixbot's private folders live (HOME, XDG)",
    "fixbot.security.leakscan": "`known_secrets`: the secrets by name, for the leak scan",
}


@dataclass
class Index:
    """The package's functions and dataclass fields, and each module's imported names."""

    functions: dict[tuple[str, str], ast.FunctionDef] = field(default_factory=dict)
    fields: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # dataclass fields
    names: dict[str, dict[str, tuple[str, str]]] = field(default_factory=dict)  # module imports


@cache
def index() -> Index:
    """Every function (`Class.method` for methods) and class of the package by module."""
    found = Index()
    known = modules()
    for module, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names: dict[str, tuple[str, str]] = {}
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                found.functions[(module, node.name)] = node
            elif isinstance(node, ast.ClassDef):
                found.fields[(module, node.name)] = [
                    item.target.id
                    for item in node.body
                    if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
                ]
                for item in node.body:
                    if isinstance(item, ast.FunctionDef):
                        found.functions[(module, f"{node.name}.{item.name}")] = item
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    local = alias.asname or alias.name
                    if f"{node.module}.{alias.name}" in known:  # a module
                        names[local] = (f"{node.module}.{alias.name}", "")
                    else:
                        names[local] = (node.module, alias.name)
        found.names[module] = names
    return found


def resolve(module: str, func: ast.expr, klass: str | None) -> tuple[str, str] | None:
    """The (module, qualified name) a call's function names, when it is the package's."""
    names = index().names[module]
    if isinstance(func, ast.Name):
        target = names.get(func.id, (module, func.id))
        return target if target[1] else None
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        owner = func.value.id
        if owner in ("self", "cls") and klass:
            return (module, f"{klass}.{func.attr}")
        target = names.get(owner, (module, owner))
        if not target[1]:  # `worlds.clone_of(...)`
            return (target[0], func.attr)
        return (target[0], f"{target[1]}.{func.attr}")  # `GitHubEnv.read(...)`
    return None


def parameters(node: ast.FunctionDef, method: bool) -> list[str]:
    """`node`'s positional parameter names, without `self` / `cls` for a method."""
    names = [a.arg for a in [*node.args.posonlyargs, *node.args.args]]
    return names[1:] if method and names and names[0] in ("self", "cls") else names


def carries(expr: ast.expr, tainted: set[str], held: set[str]) -> bool:
    """True when `expr` is the environment itself: a tainted name, `dict(name)`, `{**name}`, or
    a read of a field that holds it (`ctx.env`: "ctx.env" is in `held`)."""
    if isinstance(expr, ast.Name):
        return expr.id in tainted
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        read = f"{expr.value.id}.{expr.attr}"
        return read in held and not isinstance(expr.ctx, ast.Store)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "dict":
        return len(expr.args) == 1 and carries(expr.args[0], tainted, held)
    if isinstance(expr, ast.Dict):
        return any(
            k is None and carries(v, tainted, held)
            for k, v in zip(expr.keys, expr.values, strict=False)
        )
    return False


def handed(call: ast.Call, tainted: set[str], held: set[str]) -> Iterator[int | str]:
    """The positions and keywords of `call` that are handed the environment."""
    for position, arg in enumerate(call.args):
        if carries(arg, tainted, held):
            yield position
    for keyword in call.keywords:
        if keyword.arg and carries(keyword.value, tainted, held):
            yield keyword.arg


Field = tuple[str, str, str]  # module, class, field name


def walk() -> dict[tuple[str, str], set[str]]:
    """The stays of the walk from `START`: (module, function) -> the names it holds it by (a
    parameter, or `.field` for a read of a field holding it)."""
    idx = index()
    held: set[Field] = set()  # dataclass fields storing it
    stays: dict[tuple[str, str], set[str]] = {}
    todo = [START]
    while todo:
        module, name, param = todo.pop()
        key = (module, name)
        if param in stays.get(key, set()):
            continue
        stays.setdefault(key, set()).add(param)
        before = set(held)
        todo += list(_steps(idx, module, name, {param}, held))
        for new in held - before:  # a field holds it now: every function reading it is a stay
            todo += [
                (m, n, "." + new[2])
                for (m, n), node in idx.functions.items()
                if _reads(idx, m, n, node, {new})
            ]
    return stays


def _typed(idx: Index, module: str, name: str, node: ast.FunctionDef) -> dict[str, tuple[str, str]]:
    """The local names of `node` whose type is one of the package's classes: its annotated
    parameters, and `self` in a method."""
    names = idx.names[module]
    typed = {}
    if "." in name:
        typed["self"] = (module, name.split(".")[0])
    for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
        note = arg.annotation
        if isinstance(note, ast.Constant) and isinstance(note.value, str):
            note = ast.parse(note.value, mode="eval").body
        if isinstance(note, ast.Name):
            where = names.get(note.id, (module, note.id))
            if where in idx.fields:
                typed[arg.arg] = where
    return typed


def _local(idx: Index, module: str, name: str, node: ast.FunctionDef, held: set[Field]) -> set[str]:
    """The `local.field` reads in `node` that are of a field in `held`."""
    return {
        f"{local}.{attr}"
        for local, klass in _typed(idx, module, name, node).items()
        for (m, c, attr) in held
        if (m, c) == klass
    }


def _reads(idx: Index, module: str, name: str, node: ast.FunctionDef, held: set[Field]) -> bool:
    """True when function `node` reads a field in `held`."""
    local = _local(idx, module, name, node, held)
    return bool(local) and any(
        carries(x, set(), local) for x in ast.walk(node) if isinstance(x, ast.Attribute)
    )


def _steps(
    idx: Index, module: str, name: str, tainted: set[str], held: set[Field]
) -> Iterator[tuple[str, str, str]]:
    """The next stays from function `name` holding the environment as `tainted` (or a read
    of a `held` field); stores into dataclass fields are added to `held`."""
    node = idx.functions[(module, name)]
    klass = name.split(".")[0] if "." in name else None
    tainted = {t for t in tainted if not t.startswith(".")}
    local = _local(idx, module, name, node, held)
    for stmt in ast.walk(node):  # local names assigned the environment itself
        if isinstance(stmt, ast.Assign) and carries(stmt.value, tainted, local):
            tainted |= {t.id for t in stmt.targets if isinstance(t, ast.Name)}
    for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
        target = resolve(module, call.func, klass)
        if target is None:
            continue
        for slot in handed(call, tainted, local):
            init = (target[0], f"{target[1]}.__init__")
            if target in idx.fields and init not in idx.functions:  # a dataclass: its field
                names = idx.fields[target]
                stored = (
                    slot if isinstance(slot, str) else names[slot] if slot < len(names) else None
                )
                if stored:
                    held.add((*target, stored))
                continue
            target = init if target in idx.fields else target
            callee = idx.functions.get(target)
            if callee is None:
                continue
            names = parameters(callee, "." in target[1])
            param = slot if isinstance(slot, str) else names[slot] if slot < len(names) else None
            if param:
                yield (target[0], target[1], param)


def reach() -> set[str]:
    """The modules the walk stays in."""
    return {module for module, _ in walk()}


def test_the_walk_follows_the_environment() -> None:
    """The walk itself: it reaches what `main` does with the environment at the edge."""
    stays = walk()
    assert ("fixbot.github.api.context", "make_context") in stays
    assert ("fixbot.core.github_env", "GitHubEnv.read") in stays


def test_the_actions_environment_stops_at_the_edge() -> None:
    beyond = sorted(reach() - set(ALLOWED))
    assert beyond == [], "the Action's raw environment reaches " + ", ".join(
        f"{m} ({', '.join(sorted(n for (mod, n) in walk() if mod == m))})" for m in beyond
    )
    assert len(ALLOWED) < 10
