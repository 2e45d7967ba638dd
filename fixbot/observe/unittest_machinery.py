"""The machinery fixbot's observer inside unittest fingerprints (`unittest_observer.py`: copied
beside it as `<module>_unittest_machinery`, imported by it only in a unittest run and taken out
of `sys.modules` once it is loaded): the places (`MACHINERY`, and the observer's own result
class's methods), captured at load with the object each is looked up in (`_places`), a
fingerprint of what is at each (`_prints`), and what streams them after load: each test's start
(`_began`), its end (`_test_ended`: `check`, and `failed` where `TestCase.run` reported no
outcome) and the run's end (`_run_ended`: `check`, then `end`); the assert methods set on the
test are its part `unittest_asserts`'s (`_foreign`); the observer's own
`TestCase._getAssertEqualityFunc` (`_asserter`, which streams the function it returns where
`_foreign`'s rules name it) is its own part, `unittest_asserter.py`. What each uses is held as
positional defaults; it imports the standard library alone and nothing of fixbot's. Records:
the observer's docstring.
"""

from __future__ import annotations

import hashlib
import importlib
import sys
from types import CodeType, FunctionType, MethodType

# nothing more is imported: `typing` for the checker alone
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

RUNNER = "unittest"  # the observer's `RUNNER`


def _sibling(name: str) -> Any:
    """The observer's part `name`, copied beside this one (`<module>_<name>`, this module being
    `<module>_unittest_machinery`), or `fixbot.observe.<name>` where imported from fixbot's
    package."""
    package, _, module = __name__.rpartition(".")
    return importlib.import_module(
        f"{package}.{name}" if package else module[: -len("unittest_machinery")] + name
    )


asserts = _sibling("unittest_asserts")  # `_foreign`, `_used`: the assert methods set on a test
watch = _sibling("unittest_watch")  # `_watcher`: the calls the test files' code makes
# `_asserter`: the observer's own `TestCase._getAssertEqualityFunc`
asserter = _sibling("unittest_asserter")
seen = _sibling("unittest_seen")  # `_seer`: what the code hands the test's code, probed
# the runner's machinery: (module, attribute path), fingerprinted at load and compared later
MACHINERY = (
    ("unittest.case", "TestCase.run"),
    ("unittest.case", "TestCase.__call__"),
    ("unittest.case", "TestCase.id"),
    ("unittest.case", "TestCase._callSetUp"),
    ("unittest.case", "TestCase._callTestMethod"),
    ("unittest.case", "TestCase.subTest"),  # the observer's own, round 26 (`_subtester`)
    # the observer's own since round 25's hole: it judges the function it returns (`_asserter`)
    ("unittest.case", "TestCase._getAssertEqualityFunc"),
    ("unittest.case", "TestCase._callTearDown"),
    ("unittest.case", "TestCase.doCleanups"),
    ("unittest.case", "TestCase._addSkip"),
    ("unittest.case", "TestCase._feedErrorsToResult"),
    ("unittest.case", "_Outcome"),
    ("unittest.case", "_Outcome.testPartExecutor"),
    # the class that runs `testPartExecutor` (a `@contextmanager`): round 24, its `__exit__`
    # replaced so that an `AssertionError` resumed the generator as if none was raised
    ("contextlib", "_GeneratorContextManager.__enter__"),
    ("contextlib", "_GeneratorContextManager.__exit__"),
    # what `testPartExecutor` looks up as it runs: round 24, `unittest.case._ShouldStop` rebound
    # to `AssertionError` (which it passes over: the failure a success)
    ("unittest.case", "SkipTest"),
    ("unittest.case", "_ShouldStop"),
    ("unittest.case", "sys"),
    ("sys", "exc_info"),
    ("unittest.case", "TestCase.__init_subclass__"),
    ("unittest.case", "_addSkip"),
    ("unittest.case", "_addError"),
    ("unittest.result", "TestResult.startTest"),
    ("unittest.result", "TestResult.stopTest"),
    ("unittest.result", "TestResult.addError"),
    ("unittest.result", "TestResult.addFailure"),
    ("unittest.result", "TestResult.addSuccess"),
    ("unittest.result", "TestResult.addSkip"),
    ("unittest.result", "TestResult.addSubTest"),
    ("unittest.result", "TestResult.addExpectedFailure"),
    ("unittest.result", "TestResult.addUnexpectedSuccess"),
    ("unittest.result", "TestResult.wasSuccessful"),
    ("unittest.suite", "TestSuite.run"),
    ("unittest.suite", "BaseTestSuite.__call__"),
    ("unittest.runner", "TextTestRunner.run"),
    ("unittest.main", "TestProgram.runTests"),
    ("os", "_exit"),
    ("sys", "exit"),
    ("atexit", "register"),
    ("builtins", "__build_class__"),
)
OWN = ("_Watched.addSuccess", "_Watched.addFailure", "_Watched.addError", "_Watched.addSkip")
OWN_MORE = ("_Watched.addSubTest", "_Watched.addExpectedFailure")
OWN_LAST = ("_Watched.addUnexpectedSuccess", "_Watched._decide", "_Watched.__getattr__")
OWN_START = ("_Watched.startTest",)
# `TestCase`'s own attributes beside `MACHINERY`'s that are its behaviour (its functions,
# class and static methods, and classes: the assert and fail methods, `_getAssertEqualityFunc`,
# `_baseAssertEqual`, `failureException`), all fingerprinted; not its data (`maxDiff`,
# `longMessage`), which a project's tests set for themselves
CASE = "TestCase"
# a place's path: its module's own global names (round 44: app.py set `unittest.case.round`,
# which `assertAlmostEqual` looks up before the builtin, to answer 0); dunder names aside
# (`__warningregistry__`, written by a warning raised there); named `<module>:globals`
GLOBALS = ":globals"


def _places(observer: Any) -> tuple[tuple[str, str, Any], ...]:
    """Each piece of `MACHINERY`, each of `TestCase`'s own behaviours (`_behaviours`), and the
    observer's result class's methods (looked up in the module `observer`, the observer's part
    `<module>_unittest_result`; named `observer.` + path), with the object it
    is looked up in, captured now: what is compared later is looked up there, not in
    `sys.modules`. A tuple of tuples: nothing in it can be rewritten in place (round 22: a
    list among `TestCase.run`'s defaults, whose places the code under test rewrote)."""
    places: list[tuple[str, str, Any]] = []
    for module, path in MACHINERY:
        try:  # noqa: SIM105
            __import__(module)
        except ImportError:
            pass
        places.append((module, path, sys.modules.get(module)))
    case = sys.modules.get("unittest.case")
    known = {path for _, path in MACHINERY}
    places += [("unittest.case", p, case) for p in _behaviours(case) if p not in known]
    places += [("observer", path, observer) for path in (*OWN, *OWN_MORE, *OWN_LAST, *OWN_START)]
    unittests = dict.fromkeys(m for m, _ in MACHINERY if m.split(".")[0] == "unittest")
    places += [(m, m + GLOBALS, sys.modules.get(m)) for m in unittests]
    return tuple(places)


def _names(module: Any, _vars: Any = vars, _pointer: Any = object.__hash__) -> Any:
    """The identities of what each global name of `module` (none a dunder) holds now, by name,
    sorted: a name added or rebound there is seen (() where it has no namespace)."""
    try:
        space = _vars(module)
    except TypeError:
        return ()
    kept = [(n, _pointer(v)) for n, v in space.items() if not n.startswith("__")]
    return tuple(sorted(kept))


def _behaviours(case: Any) -> list[str]:
    """The paths (`TestCase.<name>`) of `TestCase`'s own attributes in module `case` that are
    functions, class or static methods or classes, sorted (round 22: `assertEqual` replaced
    through `setattr` and a computed name was no machinery)."""
    klass = getattr(case, CASE, None)
    if not isinstance(klass, type):
        return []
    kinds = (classmethod, staticmethod, type)
    found = [n for n, v in vars(klass).items() if callable(v) or isinstance(v, kinds)]
    return [CASE + "." + name for name in sorted(found)]


def _lookup(owner: Any, path: str) -> Any:
    """The raw attribute at `path` in `owner` (a class attribute as its class's namespace holds
    it, read past a metaclass as `_body` reads it), or None."""
    parts = path.split(".")
    for part in parts[:-1]:
        owner = getattr(owner, part, None)
    if owner is None:
        return None
    if isinstance(owner, type):
        for klass in type.__dict__["__mro__"].__get__(owner):
            if parts[-1] in type.__dict__["__dict__"].__get__(klass):
                return type.__dict__["__dict__"].__get__(klass)[parts[-1]]
        return None
    return getattr(owner, parts[-1], None)


def _cells(
    value: Any,
    _type: Any = type,
    _function: Any = FunctionType,
    _closure: Any = FunctionType.__dict__["__closure__"].__get__,
    _pointer: Any = object.__hash__,
    _tuple: Any = tuple,
) -> Any:
    """The identities of what each closure cell of function `value` holds now (None for an
    empty cell; () for no function or no closure). Round 24: the cell of
    `_Outcome.testPartExecutor` (a `@contextmanager` wrapper) holding the generator function
    was rewritten (`cell.cell_contents = ...`, no audit event), the wrapper's code and
    defaults the same."""
    if _type(value) is not _function:
        return ()
    held = []
    for cell in _closure(value) or ():
        try:
            held.append(_pointer(cell.cell_contents))
        except ValueError:
            held.append(None)
    return _tuple(held)


def _prints(
    places: tuple[tuple[str, str, Any], ...],
    _pointer: Any = object.__hash__,
    _lookup: Any = _lookup,
    _cells: Any = _cells,
    _getattr: Any = getattr,
    _format: Any = format,
    _hash: Any = hash,
    _names: Any = _names,
) -> list[str]:
    """One short text per place: a hash of the identities of what is there now, of its code
    object, defaults and closure cells' contents (`_cells`), and of the object it is looked up
    in ("-": nothing there); for a module's `GLOBALS`, of its names' (`_names`)."""
    prints = []
    for _, path, owner in places:
        if path.endswith(GLOBALS):
            prints.append(_format(_hash(_names(owner)) & 0xFFFFFFFFFFFF, "012x"))
            continue
        value = _lookup(owner, path)
        if value is None:
            prints.append("-")
            continue
        inner = _getattr(value, "__func__", None) or value
        code, defaults = _getattr(inner, "__code__", None), _getattr(inner, "__defaults__", None)
        key = (_pointer(value), _pointer(code), _pointer(defaults), _pointer(owner))
        key += _cells(inner)
        prints.append(_format(_hash(key) & 0xFFFFFFFFFFFF, "012x"))
    return prints


def _test_ended(
    test: Any,
    watched: Any,
    send: Any,
    state: list[Any],
    held: tuple[Any, ...],
    _get: Any = object.__getattribute__,
    _prints: Any = _prints,
    _foreign: Any = asserts._foreign,
) -> None:
    """A test's end: `failed` where `TestCase.run` reported no outcome to `watched` (the
    observer's result, `_Watched`), the assert methods set on `test` by code outside its
    classes' files (`_foreign`: `machinery`), and the fingerprints of `held`'s places
    (`held`: the observer's, `unittest_observer._load`)."""
    if not _get(watched, "_said"):
        state[2] = True
        send({"k": "r", "id": _get(watched, "_test"), "w": "call", "o": "failed"})
    foreign = _foreign(test, held[3], held[4])
    if foreign:
        send({"k": "machinery", "changed": foreign})
    send({"k": "check", "p": held[0], "at": "end", "m": _prints(held[1])})


def _run_ended(
    send: Any,
    state: list[Any],
    held: tuple[Any, ...],
    _runner: str = RUNNER,
    _prints: Any = _prints,
) -> None:
    """The run's end: the work tree's files imported (`modulecode.imported`, asked of
    `held`'s recorder), the fingerprints, then `end` with what was seen."""
    send({"k": "imported", **held[4](True, ...)})
    send({"k": "check", "p": held[0], "at": "end", "m": _prints(held[1])})
    send({"k": "end", "status": 1 if state[2] else 0, "runner": _runner, "ran": state[1]})
    state[0] = False


def _body(
    test: Any,
    _get: Any = object.__getattribute__,
    _type: Any = type,
    _ns: Any = type.__dict__["__dict__"].__get__,
    _wrapped: Any = (classmethod, staticmethod, MethodType),
    _mro: Any = type.__dict__["__mro__"].__get__,
    _plain: Any = asserts._plain,
    _own: Any = asserts.OWN,
) -> Any:
    """What `TestCase.run` will call for `test`: the attribute its `_testMethodName` names, in
    its real `__dict__` (`_own`: round 32, a class's `__dict__` property answered `_get`; one of
    a `dict` subclass read as a dict, `_plain`), else in the first class of its type's MRO
    holding it (a bound, class or static method's function); None where there is none. No
    `getattr`: the MRO past a metaclass's `__mro__`, each namespace past it (`_ns`, round 31)."""
    try:
        name = _get(test, "_testMethodName")
        own = _own(test)
    except (AttributeError, TypeError):
        return None
    if _type(name) is not str:
        return None
    found: Any = _plain(own).get(name)
    for klass in _mro(_type(test)) if found is None else ():
        found = _ns(klass).get(name)
        if found is not None:
            break
    return found.__func__ if _type(found) in _wrapped else found


def _began(
    test: Any,
    name: str,
    send: Any,
    held: tuple[Any, ...],
    digest: Any,
    _body: Any = _body,
    _classes: Any = asserts._class_files,
    _getcode: Any = FunctionType.__dict__["__code__"].__get__,
    _function: Any = FunctionType,
    _type: Any = type,
    _str: Any = str,
    _len: Any = len,
    _prints: Any = _prints,
    _join: Any = ",".join,
    _blake: Any = hashlib.blake2b,
) -> None:
    """A test begins: its body's digest (`bodies._code_digest` of `_body`'s), its code's file and
    its classes' files (`c`, `_class_files`), relative to `held[3]`, as the `code` record held to
    the start's run (`alike.swapped`, `rebased`); then one hash of the places' fingerprints
    (`check`, `at` "begin"; each streamed was 4.2 MB more per 2,000 tests) held to the load's
    (`fingerprints.BEGUN`, round 28: `_callTestMethod` swapped at import, put back as called)."""
    body = _body(test)
    file = ""
    if _type(body) is _function:
        file = _str(_getcode(body).co_filename)
    root = held[3]
    if file.startswith(root):
        file = file[_len(root) :]
    classes = _classes(test, root, held[4])
    send({"k": "code", "id": name, "h": digest(body), "f": file, "c": classes})
    prints = _blake(_join(_prints(held[1])).encode(), digest_size=6)
    send({"k": "check", "p": held[0], "at": "begin", "h": prints.hexdigest()})


# the functions that call the sender (its `callers`), `_asserter`'s and `_watcher`'s inner ones
CALLERS: tuple[CodeType, ...] = (_test_ended.__code__, _run_ended.__code__, _began.__code__)
CALLERS += tuple(c for c in asserter._asserter.__code__.co_consts if isinstance(c, CodeType))
CALLERS += tuple(c for c in watch._watcher.__code__.co_consts if isinstance(c, CodeType))
CALLERS += tuple(c for c in seen._seer.__code__.co_consts if isinstance(c, CodeType))
