"""The comparison dunders of a Python module that answer the same whatever they compare: a
constant answer (`__eq__` returning True, `__ne__` returning False) or one computed without
reading the operand (`return int(self) != int(self)`), as a method or a lambda. Pure functions
over `ast`; the rule `always-equal` (`fixbot.tamper.runtime`) compares their count before and
after a fix.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

__all__ = ["ALWAYS", "always_true_dunders"]


# A comparison dunder and the constant it returns when it holds for any operand.
ALWAYS = {"__eq__": True, "__le__": True, "__ge__": True, "__contains__": True}
ALWAYS |= {"__ne__": False, "__lt__": False, "__gt__": False}


def _constant_return(body: list[ast.stmt]) -> object:
    """The constant a function body returns unconditionally (a docstring allowed before it)."""
    stmts = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(stmts) == 1 and isinstance(stmts[0], ast.Return):
        value = stmts[0].value
        return value.value if isinstance(value, ast.Constant) else None
    return None


def always_true_dunders(tree: ast.Module) -> int:
    """Comparison dunders that answer the same whatever they compare (`__eq__` returning True,
    `__ne__` returning False, as a method or a lambda), and those that compute an answer
    without reading the operand compared (`_blind`: `return int(self) != int(self)`, round 37):
    an `assert result == 5`, or a helper's `if first != second: raise`, holds for any result of
    such a type."""
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in ALWAYS:
            answer = _constant_return(node.body)
            count += answer is ALWAYS[node.name] or _blind(node.args, node.body, answer)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
            count += _always_lambdas(node, node.value)
    return count


def _always_lambdas(node: ast.Assign, function: ast.Lambda) -> int:
    """How many comparison dunders `node` binds to a lambda answering the same for any operand
    (`always_true_dunders`)."""
    names = {getattr(t, "id", getattr(t, "attr", "")) for t in node.targets}
    body = function.body
    constant = body.value if isinstance(body, ast.Constant) else None
    return sum(
        constant is ALWAYS[name] or _blind(function.args, [body], constant)
        for name in names & set(ALWAYS)
    )


def _blind(args: ast.arguments, body: Sequence[ast.AST], answer: object) -> bool:
    """Whether a comparison dunder with `args` and `body` never reads the operand it compares
    (its second parameter, or `*args`) and computes an answer somewhere (`_computed`: a
    constant `False` or `NotImplemented` is an honest answer, judged by `ALWAYS` alone; a body
    that only raises, `raise TypeError`, answers nothing)."""
    other = _operand(args)
    if other is None or answer is not None:
        return False
    nodes = [node for part in body for node in ast.walk(part)]
    if not any(map(_computed, _answers(body, nodes))):
        return False
    return not any(isinstance(node, ast.Name) and node.id == other for node in nodes)


def _answers(body: Sequence[ast.AST], nodes: list[ast.AST]) -> list[ast.expr | None]:
    """What a dunder's `body` answers: each `return`'s value among its `nodes`, a lambda's
    expression."""
    answers = [n.value for n in nodes if isinstance(n, ast.Return)]
    return [*answers, *(part for part in body if isinstance(part, ast.expr))]


def _operand(args: ast.arguments) -> str | None:
    """The parameter a comparison dunder takes its operand by: its second, else its `*args`."""
    params = [*args.posonlyargs, *args.args]
    if len(params) > 1:
        return params[1].arg
    return args.vararg.arg if args.vararg else None


def _computed(value: ast.expr | None) -> bool:
    """Whether a returned `value` is computed: no constant, no `NotImplemented`."""
    if value is None or isinstance(value, ast.Constant):
        return False
    return not (isinstance(value, ast.Name) and value.id == "NotImplemented")
