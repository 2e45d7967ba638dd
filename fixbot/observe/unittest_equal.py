"""The comparison `assertEqual` is about to make, judged as the pytest observer judges the
comparison dunders a watched test's call ran (`calls._probe`): each operand's `__eq__` (the
dunder `first == second` asks, `unittest.case.TestCase._baseAssertEqual`'s `if not first ==
second`) that is a Python function is asked against an object it cannot know and a value its
base type's own `==` tells apart from it, and streamed as an `eq` record
(`{"k": "eq", "id": test.id(), "type": ..., "dunder": "__eq__", "file": ..., "line": n,
"always": bool, "built": bool}`), which fixbot judges as pytest's (`fixbot.observe.compared`:
`observer-always-equal` where the type's code is the fix's or built at run time). Round 37: an
`int` subclass whose `__eq__` returns `int(self) == int(self)`, handed back by `add`, passed
round 20's `assertEqual(add(2, 2), 4)` (the text rule reads a literal `True` alone).

Copied beside the unittest observer as `<module>_unittest_equal` and imported by its
machinery (`unittest_asserter._asserter`, whose `_getAssertEqualityFunc` is what `assertEqual`
calls with both operands first); the probe is the pytest plugin's `calls.py`, copied beside it
as `<module>_calls` (the standard library alone). Types are read through `type`'s own C
accessors (`__mro__`, `__dict__`, `__flags__`); only the dunder found, a Python function, is
run, as the pytest observer's probe runs it, and only where its code's file is under the work
tree's root or built at run time (as `watch.py`'s: a library's `mock.ANY` is no finding). Every
test's `assertEqual` is probed (the unittest observer watches none: fixbot keeps the watched
tests' records), once per test, type and function, `MAX_PROBED` at most a process.

Limits: `assertNotEqual` (`if not first != second`, no dispatch the observer holds), a type's
own `assertEqual` kin (`assertListEqual`'s items) and `==` written elsewhere (a helper's
`first != second`) are not probed.
"""

from __future__ import annotations

import importlib
import os
from types import FunctionType

# nothing more is imported: `typing` for the checker alone
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _sibling(name: str) -> Any:
    """The observer's part `name`, copied beside this one (`<module>_<name>`, this module being
    `<module>_unittest_equal`), or `fixbot.observe.<name>` where imported from fixbot's
    package."""
    package, _, module = __name__.rpartition(".")
    return importlib.import_module(
        f"{package}.{name}" if package else module[: -len("unittest_equal")] + name
    )


calls = _sibling("calls")  # `_probe`: the pytest observer's question to a comparison dunder
DUNDERS = ("__eq__",)  # what `first == second` asks of either operand
MAX_PROBED = 1_000  # (test, type, function) probed a process, at most
HEAP = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made at run time


def _deciding(
    value: Any,
    dunder: str,
    _type: Any = type,
    _str: Any = str,
    _flags: Any = type.__dict__["__flags__"].__get__,
    _mro: Any = type.__dict__["__mro__"].__get__,
    _dict: Any = type.__dict__["__dict__"].__get__,
    _function: Any = FunctionType,
    _heap: int = HEAP,
) -> Any:
    """The Python function standing as `dunder` first in the MRO of `value`'s type, or None
    (a slot of a built-in's, none found, or a class dictionary holding a key that is no exact
    str, whose lookup would run code)."""
    for klass in _mro(_type(value)):
        members = _dict(klass)
        if _flags(klass) & _heap:
            for key in members:
                if _type(key) is not _str:
                    return None
        if dunder in members:
            found = members[dunder]
            return found if _type(found) is _function else None
    return None


def _comparer(root: str) -> Any:
    """`compared(test, first, second)`: the `eq` records of the comparison `assertEqual` is
    about to make between `first` and `second` for `test` (a `TestCase`), each operand's
    `DUNDERS` probed once per test, type and function (`root`: the work tree's, files named
    relative to it)."""
    probed: dict[Any, Any] = {}  # (test, type's id, function's id) -> the two, kept alive

    def compared(
        test: Any,
        first: Any,
        second: Any,
        _root: str = root,
        _probed: dict[Any, Any] = probed,
        _deciding: Any = _deciding,
        _probe: Any = calls._probe,
        _dunders: tuple[str, ...] = DUNDERS,
        _type: Any = type,
        _id: Any = id,
        _str: Any = str,
        _len: Any = len,
        _most: int = MAX_PROBED,
        _code: Any = FunctionType.__dict__["__code__"].__get__,
        _isfile: Any = os.path.isfile,
        _real: Any = os.path.realpath,
    ) -> list[Any]:
        records: list[Any] = []
        name = None
        for value in (first, second):
            for dunder in _dunders:
                function = _deciding(value, dunder)
                if function is None or _len(_probed) >= _most:
                    continue
                file = _code(function).co_filename
                if _type(file) is not _str or not (
                    _real(file).startswith(_root) or not _isfile(file)
                ):
                    continue  # a library's (`mock.ANY`): the pytest observer's rule, `watch.py`
                if name is None:
                    try:
                        name = _str(test.id())
                    except Exception:
                        name = _str(_type(test).__name__)
                kind = _type(value)
                key = (name, _id(kind), _id(function))  # ids: a metaclass's `__hash__` unrun
                if key in _probed:
                    continue
                _probed[key] = (kind, function)
                records.append(_probe(name, kind, dunder, value, function, _root))
        return records

    return compared
