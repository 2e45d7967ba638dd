"""The assert methods fixbot's observer inside unittest holds to the code of the test's own
files (`unittest_observer.py`: copied beside it as `<module>_unittest_asserts`, imported by it
and by `unittest_machinery`, whose test ends call `_foreign`, only in a unittest run and taken
out of `sys.modules` once it is loaded): which assert methods are set on a test's class or
instance (`_set_on`, `ASSERTS`, its equality table), which of them unittest would have there
(`_kept`, `_bound_by_unittest`: a function its module bound at the observer's load, `BOUND`),
and the function `assertEqual` picks from that table held to the same rules as it is picked
(`_used`, called by the observer's own `_getAssertEqualityFunc`, `unittest_asserter._asserter`:
round 25, one that took itself out of the table as it ran was gone by the test's end). Whether
a function is the code its file was compiled to, whether a test's class was written, and the
file a class was made in (round 27: not its `__module__`'s, `_module_file`) is its sibling
part's (`unittest_compiled._recorder`, handed in as `ours`). A class's namespace is read as
`type`'s own `__dict__` descriptor holds it (`_ns`: round 31, a metaclass's `__getattribute__`
answered `vars()` with the namespace as first given). What it uses is held as positional
defaults; it imports the standard library alone and nothing of fixbot's."""

from __future__ import annotations

import os
import sys
import unittest
from types import FunctionType, MethodType

# nothing more is imported: `typing` for the checker alone
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# unittest's own folder: an assert method whose code is there is unittest's
UNITTEST_FOLDER = os.path.join(os.path.dirname(unittest.__file__), "")


# the names of a test's assert methods: `TestCase`'s own are machinery (`_behaviours`); one of
# these set on the test's class or instance is held to the files of its classes (`_foreign`);
# and `_callTestMethod`, the observer's own counting the body's entries and returns (round 24),
# and `subTest`, its own counting the stops that leave a subtest's block (round 26)
ASSERTS: tuple[str, ...] = ("assert", "fail", "_baseAssert", "_getAssertEqualityFunc")
ASSERTS += ("_formatMessage", "_callTestMethod", "subTest")
EQUALITY = "_type_equality_funcs"  # an instance's `addTypeEqualityFunc` table
OWN = unittest.TestCase.__dict__["__dict__"].__get__  # a test's real `__dict__`, no class asked
BASE = "_baseAssertEqual"  # what `_getAssertEqualityFunc` returns where the table has none
# `_bound_by_unittest`'s modules of unittest (by name) loaded as this part is, at the observer's
# load (before any of the project's code runs), and the functions each bound then, module-level
# or in a class's namespace (kept alive: no identity reused)
MAX_BOUND = 10_000  # functions kept, at most


def _functions(value: Any, _wrapped: Any = (classmethod, staticmethod)) -> list[Any]:
    """`value` where it is a function, or a class's functions (class and static methods' own)
    where it is a class (of type `type`)."""
    inner = list(vars(value).values()) if type(value) is type else []
    found = [held.__func__ if type(held) in _wrapped else held for held in (value, *inner)]
    return [held for held in found if type(held) is FunctionType]


def _bound_at_load(modules: Any) -> tuple[frozenset[str], tuple[Any, ...]]:
    """(the names of unittest's modules in `modules`, the functions they bind at their top level
    or in the namespace of a class there, `MAX_BOUND` at most): what unittest's own functions
    are, taken before any of the project's code runs (round 27: `unittest.util`'s namespace,
    which nothing fingerprints, given a no-op `assertListEqual` compiled under its file)."""
    names = [n for n in list(modules) if n == "unittest" or n.startswith("unittest.")]
    found: list[Any] = []
    for name in names:
        for value in list(vars(modules[name]).values()):
            found += _functions(value)
    return frozenset(names), tuple(found[:MAX_BOUND])


LOADED, BOUND = _bound_at_load(sys.modules)
BOUND_IDS = frozenset(id(value) for value in BOUND)

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


def _assert_items(
    space: dict[Any, Any],
    _issubclass: Any = issubclass,
    _type: Any = type,
    _str: Any = str,
    _plain: Any = str.__str__,
    _asserts: tuple[str, ...] = ASSERTS,
    _starts: Any = str.startswith,
) -> list[tuple[str, Any]]:
    """(name, value) for each entry of plain dict `space` whose key is a string of an assert
    method's name (`ASSERTS`), the key as a plain `str` (`str.__str__`: none of a subclass's
    methods asked). Round 28: app.py set `_getAssertEqualityFunc` on the running test under a
    key of a `str` subclass (attribute lookup finds it, equal and of the same hash), passed
    over while only keys of type `str` were read."""
    return [
        (_plain(n), v)
        for n, v in space.items()
        if _issubclass(_type(n), _str) and _starts(n, _asserts)
    ]


def _named(value: Any, names: frozenset[str], _type: Any = type, _str: Any = str) -> bool:
    """Whether `value` is a string (no subclass) of `names`."""
    return _type(value) is _str and value in names


def _plain(
    value: Any,
    _type: Any = type,
    _issubclass: Any = issubclass,
    _dict: Any = dict,
    _copy: Any = dict.copy,
) -> dict[Any, Any]:
    """`value` as a plain `dict` where it is a dict or of a `dict` subclass (`dict.copy`: none
    of the subclass's methods asked), else an empty one."""
    return _copy(value) if _issubclass(_type(value), _dict) else {}


def _on_instance(
    test: Any,
    _own: Any = OWN,
    _type: Any = type,
    _equality: str = EQUALITY,
    _names: frozenset[str] = EQUALITY_NAMES,
    _named: Any = _named,
    _plain: Any = _plain,
    _assert_items: Any = _assert_items,
) -> list[tuple[str, str, Any]]:
    """("test", name, value) for each assert method (`ASSERTS`) set on `test` itself and each
    value in its `addTypeEqualityFunc` table but unittest's own (`EQUALITY_NAMES`, round 25). Its
    real `__dict__` (`OWN`; round 32: a class's `__dict__` property answered `__getattribute__`)
    or table of a `dict` subclass is read as a dict (`_plain`; round 27: one whose
    `_getAssertEqualityFunc` handed back a no-op was read as empty). Runs none of its code."""
    try:
        own = _plain(_own(test))
    except (AttributeError, TypeError):
        return []
    found = [("test", n, v) for n, v in _assert_items(own)]
    table: Any = own.get(_equality)
    found += [("test", _equality, v) for v in _plain(table).values() if not _named(v, _names)]
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
    _loaded: frozenset[str] = LOADED,
    _bound: frozenset[int] = BOUND_IDS,
    _id: Any = id,
) -> bool:
    """Whether function `value`, whose code names `file` in unittest's folder, is the very
    function unittest's module of that file (`unittest/case.py`: `unittest.case`, as
    imported) binds under the function's qualified name (`TestCase.assertListEqual`). Round
    26: the code under test compiled `def assertListEqual(first, second, msg=None): pass`
    under `<unittest's folder>/case.py` and put it in the test's equality table; a code
    object's file is what its compiler was told. A value that is no function: False. Where that
    module was loaded at the observer's load, `value` must be one it bound then too (`BOUND`):
    round 27, a no-op `assertListEqual` compiled under `<unittest's folder>/util.py` and bound
    in `unittest.util` (whose namespace nothing fingerprints), or bound as
    `TestCase.assertListEqual` for the moment `assertEqual` picked it, passed."""
    if _type(value) in _wrapped:
        value = value.__func__
    if _type(value) is not _function:
        return False
    module = "unittest." + file[_len(_unittest) : -3].replace(_sep, ".")
    if module in _loaded and _id(value) not in _bound:
        return False  # not a function that module bound at the observer's load (round 27)
    held = _modules.get(module)
    for part in _qualname(value).split("."):
        try:
            held = _vars(held).get(part)
        except _error:
            return False
    if _type(held) in _wrapped:
        held = held.__func__
    return held is value


def _word(value: Any, file: Any) -> Any:
    """A function's code taken at its word: it is the file it names (`_foreign`'s `ours` where
    the observer recorded no file's code, as in a unit test); no class written (file None); a
    class's file its `__module__`'s (file True: `_module_file`); no `__dict__` named (False)."""
    return [] if file is False else file is not None


def _kept(
    value: Any,
    name: str,
    file: str,
    ours: Any = _word,
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
    (`_bound_by_unittest`), not one whose code names its file (round 26), and is code that
    file was compiled to as imported (`ours`, `unittest_compiled._recorder`: round 27, a module
    of unittest's imported after the load, `unittest.async_case`, given a no-op of its file)."""
    if not file.startswith(_unittest) or not _bound_by_unittest(value, file):
        return False
    if not ours(value, file):  # a module of unittest's imported after the load (round 27)
        return False
    own = _own_name(value)
    return own == name or (name == _equality and own in _names)


def _module_file(
    klass: Any,
    ours: Any,
    _vars: Any = vars,
    _ns: Any = type.__dict__["__dict__"].__get__,
    _type: Any = type,
    _modules: Any = sys.modules,
) -> Any:
    """The file class `klass` was made in, as `ours(klass, True)` (`unittest_compiled`'s
    recorder) captured it as the class was made; where `ours` takes its word (`_word`: no
    recorder, a unit test), the file of the module its `__module__` (its namespace's, `_ns`)
    names. Round 27: the code under test set a test class's `__module__` to "app", or the test
    module's `__file__` (a plain global) to app.py's: its no-op assert method was the class's."""
    made = ours(klass, True)
    if made is not True:
        return made
    named = _ns(klass).get("__module__")
    module = _modules.get(named) if _type(named) is str else None
    return _vars(module).get("__file__") if module is not None else None


def _class_files(
    test: Any,
    root: str,
    ours: Any = _word,
    _type: Any = type,
    _str: Any = str,
    _len: Any = len,
    _case: Any = unittest.TestCase,
    _mro: Any = type.__dict__["__mro__"].__get__,
    _module_file: Any = _module_file,
) -> list[str]:
    """The files `test`'s classes (MRO below `TestCase`) were made in (`_module_file`), one per
    class, relative to `root` ("?": unknown); fixbot holds them to the start's, counted
    (`alike.rebased`)."""
    files: list[str] = []
    for klass in _mro(_type(test)):
        if klass is _case:
            break
        file = _module_file(klass, ours)
        file = file if _type(file) is _str else "?"
        files.append(file[_len(root) :] if file.startswith(root) else file)
    return files


def _set_on(
    test: Any,
    ours: Any,
    _ns: Any = type.__dict__["__dict__"].__get__,
    _type: Any = type,
    _case: Any = unittest.TestCase,
    _mro: Any = type.__dict__["__mro__"].__get__,
    _name: Any = type.__dict__["__name__"].__get__,
    _on_instance: Any = _on_instance,
    _module_file: Any = _module_file,
    _assert_items: Any = _assert_items,
) -> tuple[list[tuple[str, str, Any]], list[Any]]:
    """(where, name, value) for each assert method (`ASSERTS`) set on `test` itself
    (`_on_instance`) or on a class of its type's MRO below `TestCase` (`_case`, by identity:
    round 27, a class's `__module__` is the project's to write); and the files those classes
    were made in (`_module_file`, `ours`' capture). Runs none of the project's code."""
    found, files = _on_instance(test), []
    for klass in _mro(_type(test)):
        if klass is _case:
            break  # `TestCase` and above: machinery
        files.append(_module_file(klass, ours))
        where = _name(klass) if klass is _type(test) else "a base class"
        found += [(where, n, v) for n, v in _assert_items(_ns(klass))]
    return found, files


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
        if file is None or _kept(value, name, file, ours):
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
    of the files its classes were made in (`_module_file`) nor unittest's own where unittest
    would have it (`_kept`) (round 22: the code under test can set `assertEqual` on the test
    itself rather than on `TestCase`), or names one of those files and is not code that file
    was compiled to as it was imported (`ours(value, file)`: `unittest_compiled._recorder`'s;
    round 24: a function the code under test compiled under the test file's name), as
    `machinery` names:
    `unittest: <name> of <class, "a base class" or "test"> set by <file>` (relative to `root`;
    "?" for a string, a method's name in the table; `, not compiled from it` after a file of
    theirs); and the test's `__class__` or a class's `__bases__` written (`_retyped_names`:
    round 25, the class swapped to one of app.py's and back before the end); fixbot counts a
    name the start's run did not stream; and each `__dict__` set in a class's namespace
    (`ours(test, False)`: `unittest_compiled._dict_names`, round 32)."""
    found, files = _set_on(test, ours)
    return [*_retyped_names(test, ours), *_judged(found, files, root, ours), *ours(test, False)]
