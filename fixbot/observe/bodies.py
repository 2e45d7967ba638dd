"""The observer's view of a test's body as its call begins: a digest of the code the call runs
(`_code_digest`, compared by fixbot with the start's run's: a test module or item swapped
between the file and the call runs other code) and whether a trace function or
`sys.monitoring` tool rides the call (`_tracing`), streamed as the `code` record (`_coded`).

Copied beside the plugin as `<module>_bodies` and loaded with it, inside the project's own
Python (3.8 or later), before any conftest or test module. It imports the standard library
alone; what it uses is bound as positional defaults as it is imported.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable
from types import CodeType, FunctionType, MethodType
from typing import Any

# the constants a code object holds whose `repr` is the interpreter's own (C, exact types only:
# a subclass's `repr` would run the project's code)
_PLAIN: frozenset[Any] = frozenset({str, bytes, int, float, complex, bool, type(None), type(...)})
MAX_CODES = 500  # code objects a body's digest walks at most (its own and those nested in it)
MAX_DEPTH = 20  # nested tuples and frozensets of constants a digest spells out at most


def _constant(
    value: Any,
    nested: list[Any],
    depth: int = 0,
    again: Any = None,
    _type: Any = type,
    _repr: Any = repr,
    _plain: frozenset[Any] = _PLAIN,
    _sorted: Any = sorted,
    _code: Any = CodeType,
    _str: Callable[[object], str] = str,
    _boxes: tuple[Any, ...] = (tuple, frozenset),
    _frozenset: Any = frozenset,
    _most: int = MAX_DEPTH,
) -> str:
    """One constant of a code object spelled with its type, independent of the process: a
    frozenset's members sorted (their order follows string hashes, which `PYTHONHASHSEED`
    changes), a code object named by its place in `nested` (appended, spelled by the caller),
    any other object by nothing but the word `object` (a constant of another type comes from
    `code.replace`: asking it anything runs the project's code). `again` is this function,
    given by its caller for the members of a tuple or frozenset (it looks no name up in its
    module's globals, where the project can put a key whose `__eq__` runs)."""
    kind = _type(value)
    if kind in _plain:
        return _str(kind.__name__ + ":" + _repr(value))
    if kind is _code:
        nested.append(value)
        return "code"
    if depth >= _most or kind not in _boxes:
        return "deep" if depth >= _most else "object"
    spelled = [again(v, nested, depth + 1, again) for v in value]
    if kind is _frozenset:
        return "{" + ",".join(_sorted(spelled)) + "}"
    return "(" + ",".join(spelled) + ")"


def _code_digest(
    function: Any,
    _type: Any = type,
    _function: Any = FunctionType,
    _qualname: Any = FunctionType.__dict__["__qualname__"].__get__,
    _getcode: Any = FunctionType.__dict__["__code__"].__get__,
    _code: Any = CodeType,
    _sha: Any = hashlib.sha256,
    _repr: Any = repr,
    _text: Any = str.encode,
    _constant: Any = _constant,
    _getattr: Any = getattr,
    _len: Any = len,
    _str: Callable[[object], str] = str,
    _most: int = MAX_CODES,
    _lines: bool = True,
) -> str:
    """A hash (16 hex digits) of a test function's body as the interpreter runs it: its
    `__qualname__`, and of its code and every code object nested in it (its comprehensions,
    lambdas, inner functions) the instructions (`co_code`), the names read, the local, free
    and cell variables, the constants (`_constant`), the exception table (3.11 and later) and
    the first line. Not the file name, which differs between work trees, nor `marshal`'s
    bytes, which depend on reference counts: the same for the same source under the same
    Python, in any process (pytest's assertion rewriting is deterministic). Its attributes are
    read through the function and code types' own C accessors, and `hashlib.sha256` as the
    plugin was imported: no code of the project runs. "-" for an object that is no Python
    function. `_lines` False leaves the first lines out (`_comparison_digest`)."""
    if _type(function) is not _function:
        return "-"
    # `__qualname__` may be a str subclass: its bytes, not its `repr`
    hashed = _sha(_text(_qualname(function), "utf-8", "replace"))
    nested = [_getcode(function)]
    walked = 0
    while walked < _len(nested) and walked < _most:
        code = nested[walked]
        walked += 1
        if _type(code) is not _code:
            return "-"
        consts = [_constant(value, nested, 0, _constant) for value in code.co_consts]
        parts = (
            code.co_names,
            code.co_varnames,
            code.co_freevars,
            code.co_cellvars,
            code.co_firstlineno if _lines else 0,
            consts,
        )
        hashed.update(code.co_code + _getattr(code, "co_exceptiontable", b""))
        hashed.update(_repr(parts).encode("utf-8", "replace"))
    return _str(hashed.hexdigest()[:16])


def _comparison_digest(function: Any, _digest: Any = _code_digest) -> str:
    """A digest of a comparison dunder's code (`_code_digest` without the first lines: a fix
    that moves the class down its file, an import added above it, leaves it the same; one
    that rewrites the dunder changes it). "-" for an object that is no Python function."""
    found: str = _digest(function, _lines=False)
    return found


# `sys.monitoring.get_tool` (Python 3.12 and later; None before), as the plugin is imported
_GET_TOOL = getattr(getattr(sys, "monitoring", None), "get_tool", None)


def _tracing(
    _gettrace: Any = sys.gettrace,
    _tool: Any = _GET_TOOL,
    _range: Any = range,
) -> bool:
    """Whether anything follows this thread's instructions: a trace function
    (`sys.gettrace`), or, on Python 3.12 and later, a `sys.monitoring` tool registered (ids 0
    to 5; the legacy profile and trace functions use ids of their own, which `get_tool`
    refuses: the observer's profile function is not one); both captured as the plugin was
    imported."""
    if _gettrace() is not None:
        return True
    # a plain loop, not `any` of a generator: no inner frame holding a cell of this call's
    found = False
    for tool in _range(6 if _tool is not None else 0):
        found = found or _tool(tool) is not None
    return found


def _coded(
    send: Callable[[dict[str, Any]], None],
    item: Any,
    function: Any,
    _innermost: Callable[[Any], Any],
    _digest: Any = _code_digest,
    _type: Any = type,
    _function: Any = FunctionType,
    _callable: tuple[type, ...] = (FunctionType, MethodType),
    _getcode: Any = FunctionType.__dict__["__code__"].__get__,
    _tracing: Any = _tracing,
    _str: Callable[[object], str] = str,
    _getattr: Any = getattr,
    _len: Any = len,
) -> None:
    """Send the `code` record of a test's call about to run `function` (the body is the
    function under its decorators, `_innermost(function)`; nothing where it is no Python
    function or method: a doctest, a callable object, whose attributes are the project's code
    to ask): the digest of
    its code (`_code_digest`), the file its code names relative to pytest's rootdir, and
    whether a trace function or monitoring tool is set as the call starts (`_tracing`)."""
    if _type(function) not in _callable:
        return
    inner = _innermost(function)
    if _type(inner) is not _function:
        return
    config = item.config
    root = _str(_getattr(config, "rootpath", None) or config.rootdir).rstrip("/") + "/"
    file = _getcode(inner).co_filename
    relative = file[_len(root) :] if _type(file) is _str and file.startswith(root) else "/"
    send(
        {
            "k": "code",
            "id": item.nodeid,
            "h": _digest(inner),
            "f": relative,
            "tr": _tracing(),
        }
    )
