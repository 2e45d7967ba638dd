"""The observer's own `TestCase._getAssertEqualityFunc` inside unittest (`_asserter`), which
judges the function `assertEqual` is about to call as it is picked (`_used`, by the assert
methods' part `unittest_asserts`'s rules; a verdict kept by `_key`) and streams each name once;
moved out of `unittest_machinery.py`. An observer part: copied beside `unittest_observer.py` as
`<module>_unittest_asserter`, imported by it only in a unittest run (its `PARTS`) and taken out
of `sys.modules` once it is loaded (its inner function's code is among the sender's callers,
`unittest_machinery.CALLERS`). What each uses is held as positional defaults; it imports the
standard library alone and nothing of fixbot's.
"""

from __future__ import annotations

import importlib
from types import FunctionType, MethodType

# nothing more is imported: `typing` for the checker alone
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _sibling(name: str) -> Any:
    """The observer's part `name`, copied beside this one (`<module>_<name>`, this module being
    `<module>_unittest_asserter`), or `fixbot.observe.<name>` where imported from fixbot's
    package."""
    package, _, module = __name__.rpartition(".")
    return importlib.import_module(
        f"{package}.{name}" if package else module[: -len("unittest_asserter")] + name
    )


asserts = _sibling("unittest_asserts")  # `_foreign`'s rules: the assert methods set on a test
equal = _sibling("unittest_equal")  # `_comparer`: the `__eq__` `assertEqual` is about to ask


def _used(
    test: Any,
    value: Any,
    root: str,
    ours: Any = asserts._word,
    _set_on: Any = asserts._set_on,
    _judged: Any = asserts._judged,
    _kept: Any = asserts._kept,
    _code_file: Any = asserts._code_file,
    _base: str = asserts.BASE,
    _equality: str = asserts.EQUALITY,
) -> list[str]:
    """`_foreign`'s names for `value`, the function `TestCase._getAssertEqualityFunc` returned
    for `test` as `assertEqual` is about to call it (`unittest: _type_equality_funcs of test,
    as used, set by <file>`), held to the files of the test's classes as `_foreign` holds its
    equality table; unittest's own `_baseAssertEqual` (what it returns by default) is kept.
    Round 25: a function of app.py's in the table that deleted its own entry as it ran was
    gone by the test's end, where `_foreign` looks."""
    file = _code_file(value)
    if file is not None and _kept(value, _base, file, ours):
        return []
    files = _set_on(test, ours)[1]
    names: list[str] = _judged([("test, as used,", _equality, value)], files, root, ours)
    return names


MAX_KNOWN = 10_000  # verdicts `_asserter` keeps, at most


def _key(
    test: Any,
    value: Any,
    _type: Any = type,
    _id: Any = id,
    _method: Any = MethodType,
    _function: Any = FunctionType,
    _getfunc: Any = MethodType.__dict__["__func__"].__get__,
    _getcode: Any = FunctionType.__dict__["__code__"].__get__,
    _mro: Any = type.__dict__["__mro__"].__get__,
) -> Any:
    """What `_used`'s verdict on `value` for `test` rests on: the identities
    of the test's type, its MRO, the function `value` is (or is bound to) and its code, and
    those objects (kept alive with the verdict: no identity reused); None where `value` is no
    function or bound method (judged each time)."""
    func = _getfunc(value) if _type(value) is _method else value
    if _type(func) is not _function:
        return None
    kind = _type(test)
    held = (kind, _mro(kind), func, _getcode(func))
    return tuple(_id(part) for part in held), held


def _asserter(orig: Any, send: Any, state: list[Any], held: tuple[Any, ...]) -> Any:
    """The observer's `TestCase._getAssertEqualityFunc` around `orig` (the one captured at
    load), which `assertEqual` calls to pick the function it then calls: what `orig` returns is
    judged as it is returned, by `_foreign`'s rules (`_used`: the files of the
    test's classes, the code each was compiled to as imported, `held[4]`; a verdict kept by
    `_key`, `MAX_KNOWN` at most: 200,000 `assertEqual` calls took 0.25 s more, 1.6 s judged
    each time), and each name not streamed before is streamed (`machinery`) while a run
    of the observer's goes on (`state`). Round 25: a function of app.py's in the equality
    table that deleted its own entry as it ran was gone by the test's end, where `_foreign`
    looks."""
    said: set[str] = set()
    known: dict[Any, Any] = {}
    compared = equal._comparer(held[3])  # the operands' `__eq__` probed (`unittest_equal`)

    def _getAssertEqualityFunc(  # unittest's own name
        self: Any,
        first: Any,
        second: Any,
        _orig: Any = orig,
        _send: Any = send,
        _state: list[Any] = state,
        _held: tuple[Any, ...] = held,
        _said: set[str] = said,
        _known: dict[Any, Any] = known,
        _key: Any = _key,
        _used: Any = _used,
        _len: Any = len,
        _most: int = MAX_KNOWN,
        _compared: Any = compared,
    ) -> Any:
        asserter = _orig(self, first, second)
        if not _state[0]:
            return asserter
        for record in _compared(self, first, second):
            _send(record)
        key = _key(self, asserter)
        verdict = _known.get(key[0]) if key is not None else None
        names = verdict[1] if verdict is not None else _used(self, asserter, _held[3], _held[4])
        if key is not None and verdict is None and _len(_known) < _most:
            _known[key[0]] = (key[1], names)
        names = [n for n in names if n not in _said]
        if names:
            _said.update(names)
            _send({"k": "machinery", "changed": names})
        return asserter

    return _getAssertEqualityFunc
