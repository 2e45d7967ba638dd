"""The assert methods fixbot's observer inside unittest holds to the code of the test's own
files (`unittest_observer.py`: copied beside it as `<module>_unittest_asserts`, imported by it
and by `unittest_machinery`, whose test ends call `_foreign`, only in a unittest run and taken
out of `sys.modules` once it is loaded): which assert methods are set on a test's class or
instance (`_set_on`, `ASSERTS`, its equality table), which of them unittest would have there
(`_kept`, `_bound_by_unittest`), and the function `assertEqual` picks from that table held to
the same rules as it is picked (`_used`, called by the observer's own
`_getAssertEqualityFunc`, `unittest_machinery._asserter`: round 25, one that took itself out of
the table as it ran was gone by the test's end). Whether a function is the code its file was
compiled to, and whether a test's class was written, is its sibling part's
(`unittest_compiled._recorder`, handed in as `ours`). What it uses is held as positional
defaults; it imports the standard library alone and nothing of fixbot's.
"""

from __future__ import annotations

import os
import sys
import unittest
from types import CodeType, FunctionType, MethodType

# nothing more is imported: `typing` for the checker alone
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_CODES, WRAPPED = 100_000, 8  # code objects `_codes` walks, decorators it unwraps, at most
# unittest's own folder: an assert method whose code is there is unittest's
UNITTEST_FOLDER = os.path.join(os.path.dirname(unittest.__file__), "")


# the names of a test's assert methods: `TestCase`'s own are machinery (`_behaviours`); one of
# these set on the test's class or instance is held to the files of its classes (`_foreign`);
# and `_callTestMethod`, the observer's own counting the body's entries and returns (round 24),
# and `subTest`, its own counting the stops that leave a subtest's block (round 26)
ASSERTS: tuple[str, ...] = ("assert", "fail", "_baseAssert", "_getAssertEqualityFunc")
ASSERTS += ("_formatMessage", "_callTestMethod", "subTest")
EQUALITY = "_type_equality_funcs"  # an instance's `addTypeEqualityFunc` table
BASE = "_baseAssertEqual"  # what `_getAssertEqualityFunc` returns where the table has none
# the methods unittest's own table names (`TestCase.__init__`: `dict` -> "assertDictEqual"),
# which a test may name there too, by their name or as methods
EQUALITY_NAMES = frozenset(
    {"assertDictEqual", "assertListEqual", "assertTupleEqual", "assertSetEqual"}
    | {"assertMultiLineEqual"}
)


def _code_file(
    value: Any,
    _type: Any = type,
    _wrapped: Any = (classmethod, staticmethod, MethodType),
    _function: Any = FunctionType,
    _getcode: Any = FunctionType.__dict__["__code__"].__get__,
    _callable: Any = callable,
    _isinstance: Any = isinstance,
    _issubclass: Any = issubclass,
    _exception: Any = BaseException,
    _str: Any = str,
) -> Any:
    """The file a callable's code names ("?" where it is no Python function: an object with
    `__call__`, or a class: calling one runs code of no file, round 24's class whose
    `__init__` takes `(first, second, msg=None)` in the equality table), or None where `value`
    is no callable or is an exception class (raised, not called: `failureException`)."""
    if _type(value) in _wrapped:
        value = value.__func__
    if _type(value) is _function:
        return _str(_getcode(value).co_filename)
    if not _callable(value) or (_isinstance(value, type) and _issubclass(value, _exception)):
        return None
    return "?"


def _named(value: Any, names: frozenset[str], _type: Any = type, _str: Any = str) -> bool:
    """Whether `value` is a string (no subclass) of `names`."""
    return _type(value) is _str and value in names


def _on_instance(
    test: Any,
    _get: Any = object.__getattribute__,
    _type: Any = type,
    _asserts: tuple[str, ...] = ASSERTS,
    _equality: str = EQUALITY,
    _names: frozenset[str] = EQUALITY_NAMES,
    _named: Any = _named,
) -> list[tuple[str, str, Any]]:
    """("test", name, value) for each assert method (`ASSERTS`) set on `test` itself and each
    value in its `addTypeEqualityFunc` table but the names of unittest's own (`EQUALITY_NAMES`:
    round 25, the name "assertNotEqual" there was passed over as all strings were). Runs none
    of the project's code."""
    try:
        own = _get(test, "__dict__")
    except AttributeError:
        return []
    own = own if _type(own) is dict else {}
    found = [("test", n, v) for n, v in own.items() if _type(n) is str and n.startswith(_asserts)]
    table: Any = own.get(_equality)
    if _type(table) is dict:
        found += [("test", _equality, v) for v in table.values() if not _named(v, _names)]
    return found


def _own_name(
    value: Any,
    _type: Any = type,
    _wrapped: Any = (classmethod, staticmethod, MethodType),
    _function: Any = FunctionType,
    _getcode: Any = FunctionType.__dict__["__code__"].__get__,
) -> Any:
    """The name a function's code was defined under (its `co_name`), None for anything else."""
    if _type(value) in _wrapped:
        value = value.__func__
    return _getcode(value).co_name if _type(value) is _function else None


def _bound_by_unittest(
    value: Any,
    file: str,
    _modules: Any = sys.modules,
    _unittest: str = UNITTEST_FOLDER,
    _sep: str = os.sep,
    _len: Any = len,
    _vars: Any = vars,
    _type: Any = type,
    _wrapped: Any = (classmethod, staticmethod, MethodType),
    _qualname: Any = FunctionType.__dict__["__qualname__"].__get__,
    _function: Any = FunctionType,
    _error: Any = TypeError,
) -> bool:
    """Whether function `value`, whose code names `file` in unittest's folder, is the very
    function unittest's module of that file (`unittest/case.py`: `unittest.case`, as
    imported) binds under the function's qualified name (`TestCase.assertListEqual`). Round
    26: the code under test compiled `def assertListEqual(first, second, msg=None): pass`
    under `<unittest's folder>/case.py` and put it in the test's equality table; a code
    object's file is what its compiler was told. A value that is no function: False."""
    if _type(value) in _wrapped:
        value = value.__func__
    if _type(value) is not _function:
        return False
    held = _modules.get("unittest." + file[_len(_unittest) : -3].replace(_sep, "."))
    for part in _qualname(value).split("."):
        try:
            held = _vars(held).get(part)
        except _error:
            return False
    if _type(held) in _wrapped:
        held = held.__func__
    return held is value


def _kept(
    value: Any,
    name: str,
    file: str,
    _unittest: str = UNITTEST_FOLDER,
    _equality: str = EQUALITY,
    _names: frozenset[str] = EQUALITY_NAMES,
    _own_name: Any = _own_name,
    _bound_by_unittest: Any = _bound_by_unittest,
) -> bool:
    """Whether unittest's own function `value`, set as `name` (its code in `file`), is what
    unittest would have there: set under its own name (`assertEqual` as `TestCase.assertEqual`),
    or in the equality table one of the methods unittest's table names (`assertListEqual`).
    Round 25: `TestCase.assertNotEqual` put in the table for `int` passed every failure and
    was passed over as unittest's. Unittest's own is the function its module binds
    (`_bound_by_unittest`), not one whose code names its file (round 26)."""
    if not file.startswith(_unittest) or not _bound_by_unittest(value, file):
        return False
    own = _own_name(value)
    return own == name or (name == _equality and own in _names)


def _set_on(
    test: Any,
    _vars: Any = vars,
    _type: Any = type,
    _modules: Any = sys.modules,
    _asserts: tuple[str, ...] = ASSERTS,
    _mro: Any = type.__dict__["__mro__"].__get__,
    _name: Any = type.__dict__["__name__"].__get__,
    _on_instance: Any = _on_instance,
) -> tuple[list[tuple[str, str, Any]], list[Any]]:
    """(where, name, value) for each assert method (`ASSERTS`) set on `test` itself
    (`_on_instance`) or on a class of its type's MRO below `TestCase`; and the files of those
    classes' modules. Runs none of the project's code."""
    found, files = _on_instance(test), []
    for klass in _mro(_type(test)):
        space = _vars(klass)
        named = space.get("__module__")
        if named == "unittest.case":
            break  # `TestCase` and above: machinery
        module = _modules.get(named) if _type(named) is str else None
        files.append(_vars(module).get("__file__") if module is not None else None)
        where = _name(klass) if klass is _type(test) else "a base class"
        found += [
            (where, n, v) for n, v in space.items() if _type(n) is str and n.startswith(_asserts)
        ]
    return found, files


def _word(value: Any, file: Any) -> bool:
    """A function's code taken at its word: it is the file it names (`_foreign`'s `ours` where
    the observer recorded no file's code, as in a unit test); no class written (file None)."""
    return file is not None


def _judged(
    found: list[tuple[str, str, Any]],
    files: list[Any],
    root: str,
    ours: Any,
    _code_file: Any = _code_file,
    _kept: Any = _kept,
    _isinstance: Any = isinstance,
    _str: Any = str,
    _len: Any = len,
) -> list[str]:
    """The names (`_foreign`'s) of the assert methods of `found` ((where, name, value)) whose
    code is in none of `files` nor unittest's own where unittest would have it (`_kept`), or
    names one of `files` and is not code that file was compiled to as imported (`ours`)."""
    names = []
    for where, name, value in found:
        file = "?" if _isinstance(value, _str) else _code_file(value)
        if file is None or _kept(value, name, file):
            continue
        forged = file in files and not ours(value, file)
        if file in files and not forged:
            continue
        file = file[_len(root) :] if file.startswith(root) else file
        file += ", not compiled from it" if forged else ""
        names.append("unittest: " + name + " of " + where + " set by " + file)
    return names


def _retyped_names(
    test: Any,
    ours: Any,
    _type: Any = type,
    _mro: Any = type.__dict__["__mro__"].__get__,
    _name: Any = type.__dict__["__name__"].__get__,
) -> list[str]:
    """`unittest: __class__ of test set` where `test`'s `__class__` was written since last
    asked, `unittest: __bases__ of <class> set` for each class of its type's MRO whose
    `__bases__` was (`ours(value, None)`: `_recorder`'s `_retyped`)."""
    names = ["unittest: __class__ of test set"] if ours(test, None) else []
    names += [
        "unittest: __bases__ of " + _name(k) + " set" for k in _mro(_type(test)) if ours(k, None)
    ]
    return names


def _foreign(
    test: Any,
    root: str,
    ours: Any = _word,
    _set_on: Any = _set_on,
    _judged: Any = _judged,
    _retyped_names: Any = _retyped_names,
) -> list[str]:
    """The assert methods set on `test`'s class or instance (`_set_on`) whose code is in none
    of the files of its classes' modules nor unittest's own where unittest would have it
    (`_kept`) (round 22: the code under test can set `assertEqual` on the test itself rather
    than on `TestCase`), or names one of those files and is not code that file was compiled to
    as it was imported (`ours(value, file)`: `unittest_compiled._recorder`'s; round 24: a
    function the code under test compiled under the test file's name), as `machinery` names:
    `unittest: <name> of <class, "a base class" or "test"> set by <file>` (relative to `root`;
    "?" for a string, a method's name in the table; `, not compiled from it` after a file of
    theirs); and the test's `__class__` or a class's `__bases__` written (`_retyped_names`:
    round 25, the class swapped to one of app.py's and back before the end); fixbot counts a
    name the start's run did not stream."""
    found, files = _set_on(test)
    names: list[str] = _retyped_names(test, ours) + _judged(found, files, root, ours)
    return names


def _case_changed(
    kept: tuple[tuple[str, Any], ...],
    root: str,
    _modules: Any = sys.modules,
    _vars: Any = vars,
    _code_file: Any = _code_file,
    _len: Any = len,
) -> list[str]:
    """`unittest: <name> of TestCase set by <file>` (relative to `root`; "?": no Python
    function, or gone) for each of `kept` ((name, value): `TestCase`'s own assert and fail
    methods as loaded) that `unittest.case.TestCase` holds no longer."""
    case = _vars(_vars(_modules.get("unittest.case")).get("TestCase"))
    changed = [(n, _code_file(case.get(n)) or "?") for n, v in kept if case.get(n) is not v]
    cut = [(n, f[_len(root) :] if f.startswith(root) else f) for n, f in changed]
    return ["unittest: " + n + " of TestCase set by " + f for n, f in cut]


def _present(
    test: Any,
    root: str,
    ours: Any = _word,
    kept: tuple[tuple[str, Any], ...] = (),
    _set_on: Any = _set_on,
    _judged: Any = _judged,
    _case_changed: Any = _case_changed,
) -> list[str]:
    """`_foreign`'s names for the assert methods set on `test` now (not its `__class__` and
    `__bases__` written: answered once, at the test's end) and `_case_changed`'s (`kept`)."""
    found, files = _set_on(test)
    names: list[str] = _judged(found, files, root, ours) + _case_changed(kept, root)
    return names


KEPT = ("assert", "fail")  # `TestCase`'s own methods held as loaded (`_case_changed`)
TOOLS = (4, 3)  # `sys.monitoring` tool ids the watcher takes, the first one free (3.12 and later)


def _spaces(test: Any, _mro: Any = type.__dict__["__mro__"].__get__) -> tuple[list[Any], Any]:
    """(the values in `test`'s classes below `TestCase` and in their modules, their files)."""
    spaces = [vars(k) for k in _mro(type(test)) if vars(k).get("__module__") != "unittest.case"]
    named = [s.get("__module__") for s in spaces]
    spaces += [vars(sys.modules[n]) for n in named if type(n) is str and n in sys.modules]
    return [v for space in spaces for v in space.values()], {s.get("__file__") for s in spaces}


def _codes(test: Any, _spaces: Any = _spaces, _code: Any = CodeType) -> list[Any]:
    """The code objects of the functions (and their decorators' `__wrapped__`, `WRAPPED` deep)
    `_spaces(test)` holds, in their modules' files, each with those nested in it (`MAX_CODES`
    at most). Runs none of the project's code."""
    (values, files), found = _spaces(test), []
    for value in values:
        for _ in range(WRAPPED):
            value = value.__func__ if type(value) in (classmethod, staticmethod) else value
            if type(value) is not FunctionType:
                break
            found += [value.__code__] if value.__code__.co_filename in files else []
            value = vars(value).get("__wrapped__")
    for code in found:
        found += [c for c in code.co_consts if type(c) is _code][: MAX_CODES - len(found)]
    return found


def _watcher(send: Any, state: list[Any], held: tuple[Any, ...]) -> tuple[Any, Any, Any]:
    """(`watch(test)`, `now`: [the test whose body runs], `_codes`), `now` set by
    `unittest_result._caller` around each body, `watch` as it begins: on Python 3.12 and later
    each call the code of the test's classes' files makes (`sys.monitoring`'s `CALL`, set on
    `_codes`'s, once; `called`, held by `watch`, guarded) of anything but `TestCase`'s own
    functions asks `_present` as it is called, and each name not streamed before is streamed
    (`machinery`) while a run goes on (`state`); (None, None, None) before 3.12 or with no tool
    id free (`TOOLS`). Round 27: an assert method set by `add` that took itself away as it was
    called was gone by the test's end, where `_foreign` looks."""
    monitoring: Any = getattr(sys, "monitoring", None)
    free = [t for t in TOOLS if monitoring is not None and monitoring.get_tool(t) is None]
    if not free:
        return None, None, None
    said: set[str] = set()
    now: list[Any] = [None]
    own = tuple(v for v in vars(unittest.TestCase).values() if type(v) is FunctionType)
    kept = tuple((n, v) for n, v in vars(unittest.TestCase).items() if n.startswith(KEPT))
    disable = monitoring.DISABLE  # a call site's events, off

    def called(
        code: Any,
        offset: int,
        callee: Any,
        arg0: Any,
        _now: list[Any] = now,
        _send: Any = send,
        _state: list[Any] = state,
        _held: tuple[Any, ...] = held,
        _said: set[str] = said,
        _own: frozenset[int] = frozenset(id(f) for f in own),
        _owned: tuple[Any, ...] = own,  # kept alive: no identity of `_own` reused
        _kept: tuple[tuple[str, Any], ...] = kept,
        _present: Any = _present,
        _type: Any = type,
        _method: Any = MethodType,
        _id: Any = id,
        _disable: Any = disable,
    ) -> Any:
        bound = _type(callee) is _method
        if _now[0] is None or not _state[0] or _id(callee.__func__ if bound else callee) in _own:
            return None
        names = _present(_now[0], _held[3], _held[4], _kept)
        new = [n for n in names if n not in _said]
        if new:
            _said.update(new)
            _send({"k": "machinery", "changed": new})
        # a call site that called no method of the test's, and saw nothing, is not asked again
        return None if names or (bound and callee.__self__ is _now[0]) else _disable

    done: set[Any] = set()  # the code objects whose calls are watched, kept alive
    monitoring.use_tool_id(free[0], "fixbot")
    monitoring.register_callback(free[0], monitoring.events.CALL, called)
    where = (monitoring.set_local_events, free[0], monitoring.events.CALL)

    def watch(
        test: Any, _codes: Any = _codes, _done: set[Any] = done, _at: Any = where, _c: Any = called
    ) -> None:
        for code in _codes(test):
            if code not in _done:
                _done.add(code)
                _at[0](_at[1], code, _at[2])

    return watch, now, _codes
