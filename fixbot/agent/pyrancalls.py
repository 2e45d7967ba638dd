"""What a ranked Python span's failing run executed in its own module: `ran_callees`, the
functions of the span's module that its executed lines call and that ran too (a predicate
deciding the branch taken), and `caught_there`, whether the run executed an `except` body inside
the span (what it called was the handling). Read with `ast`, nothing imported or run; the
executed lines are a spectrum's (`fixbot.agent.locate.Ranked`'s `executed`).

Used by `fixbot.agent.context` (a `.py` span; any other goes to `fixbot.agent.rancalls`, which
shares the caps below). Moved out of `fixbot.agent.locate`, whose parsing it reuses.
"""

from __future__ import annotations

import ast
from pathlib import Path

from fixbot.agent.locate import Span, _functions, _parse, walked

RAN_CALLEES = 3  # the callees a ranked function's executed lines call that `ran_callees` gives
RAN_CALLEE_LINES = 20  # lines each of them shows at most
RAN_CALLEE_FOCUS = 6


def ran_callees(repo: Path, span: Span, ran: dict[str, frozenset[int]]) -> list[Span]:
    """The functions of `span`'s own Python module that a line of it the failing run executed
    calls by name (`f(...)`, `self.f(...)`, `cls.f(...)`) and whose own lines the run executed
    too (`ran`: path -> lines, `Ranked.executed`), in the order of their calls, each focused on
    its executed lines and shown at most `RAN_CALLEE_LINES` lines; at most `RAN_CALLEES`, the
    span itself and a file that is not Python left out. A function the spectrum ranks low
    because every test runs it (`_start_of_option` deciding whether a completion starts an
    option) is often what decided the branch the ranked function's failing run took."""
    lines = ran.get(span.path, frozenset())
    tree = _parse(repo, span.path) if span.path.endswith(".py") and lines else None
    if tree is None:
        return []
    defined: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    for node in _functions(tree):
        defined.setdefault(node.name, []).append(node)
    found: list[Span] = []
    for name in _called_on(tree, span, lines):
        for node in defined.get(name, []):
            found += _ran_span(span, node, lines)
    return list(dict.fromkeys(found))[:RAN_CALLEES]


def caught_there(repo: Path, span: Span, ran: dict[str, frozenset[int]]) -> bool:
    """Whether the failing run executed a line of an `except` clause's body inside `span`'s
    Python function (`ran`: path -> lines): the function caught what a callee raised and
    handled or re-raised it (Jinja's `compile` handing a `TemplateSyntaxError` to
    `handle_exception`), so what it called was the handling, not what decided the failure.
    False for a file that is not Python or has no executed line."""
    lines = ran.get(span.path, frozenset())
    tree = _parse(repo, span.path) if span.path.endswith(".py") and lines else None
    if tree is None:
        return False
    handlers = (n for n in walked(tree) if isinstance(n, ast.ExceptHandler))
    return any(_handler_lines(h) & lines for h in handlers if span.start <= h.lineno <= span.end)


def _handler_lines(handler: ast.ExceptHandler) -> set[int]:
    """The lines of the statements and expressions of `handler`'s body."""
    return {n.lineno for b in handler.body for n in ast.walk(b) if hasattr(n, "lineno")}


def _called_on(tree: ast.Module, span: Span, lines: frozenset[int]) -> list[str]:
    """The names called (`f()`, `self.f()`, `cls.f()`) on the lines `lines` inside `span`, in
    the order they are written."""
    calls = []
    for node in walked(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Call) and span.start <= line <= span.end and line in lines:
            func = node.func
            if isinstance(func, ast.Name):
                calls.append((line, node.col_offset, func.id))
            elif (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.value.id in ("self", "cls")
            ):
                calls.append((line, node.col_offset, func.attr))
    return list(dict.fromkeys(name for _, _, name in sorted(calls)))


def _ran_span(
    span: Span, node: ast.FunctionDef | ast.AsyncFunctionDef, lines: frozenset[int]
) -> list[Span]:
    """`node` as a span of `span`'s file focused on its lines among `lines`, [] when none ran or
    when it is `span`'s own function."""
    end = node.end_lineno or node.lineno
    inside = sorted(n for n in lines if node.lineno < n <= end)
    if not inside or node.lineno == span.start:
        return []
    focus = tuple(inside[:RAN_CALLEE_FOCUS])
    return [Span(span.path, node.lineno, end, node.name, 0.0, focus, RAN_CALLEE_LINES)]
