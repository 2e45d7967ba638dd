"""The machinery fixbot's observer inside unittest fingerprints (`unittest_observer.py`: copied
beside it as `<module>_unittest_machinery`, imported by it only in a unittest run and taken out
of `sys.modules` once it is loaded): the places (`MACHINERY`, and the observer's own result
class's methods), captured at load with the object each is looked up in (`_places`), a
fingerprint of what is at each (`_prints`), and what streams them after load: each test's end
(`_test_ended`: `check`, and `failed` where `TestCase.run` reported no outcome) and the run's
end (`_run_ended`: `check`, then `end`). What each uses is held as positional defaults; it
imports the standard library alone and nothing of fixbot's. Records: the observer's docstring.
"""

from __future__ import annotations

import sys

# nothing more is imported: `typing` for the checker alone
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

RUNNER = "unittest"  # the observer's `RUNNER`
# the runner's machinery: (module, attribute path), fingerprinted at load and compared later
MACHINERY = (
    ("unittest.case", "TestCase.run"),
    ("unittest.case", "TestCase.__call__"),
    ("unittest.case", "TestCase.id"),
    ("unittest.case", "TestCase._callSetUp"),
    ("unittest.case", "TestCase._callTestMethod"),
    ("unittest.case", "TestCase._callTearDown"),
    ("unittest.case", "TestCase.doCleanups"),
    ("unittest.case", "TestCase._addSkip"),
    ("unittest.case", "TestCase._feedErrorsToResult"),
    ("unittest.case", "_Outcome"),
    ("unittest.case", "_Outcome.testPartExecutor"),
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


def _places(observer: Any) -> list[tuple[str, str, Any]]:
    """Each piece of `MACHINERY` (and the observer's result class's methods, looked up in the
    module `observer`) with the object it is looked up in, captured now: what is compared later
    is looked up there, not in `sys.modules`."""
    places: list[tuple[str, str, Any]] = []
    for module, path in MACHINERY:
        try:  # noqa: SIM105
            __import__(module)
        except ImportError:
            pass
        places.append((module, path, sys.modules.get(module)))
    places += [("observer", path, observer) for path in (*OWN, *OWN_MORE, *OWN_LAST, *OWN_START)]
    return places


def _lookup(owner: Any, path: str) -> Any:
    """The raw attribute at `path` in `owner` (a class attribute as its class's `__dict__`
    holds it), or None."""
    parts = path.split(".")
    for part in parts[:-1]:
        owner = getattr(owner, part, None)
    if owner is None:
        return None
    if isinstance(owner, type):
        for klass in owner.__mro__:
            if parts[-1] in vars(klass):
                return vars(klass)[parts[-1]]
        return None
    return getattr(owner, parts[-1], None)


def _prints(
    places: list[tuple[str, str, Any]],
    _pointer: Any = object.__hash__,
    _lookup: Any = _lookup,
    _getattr: Any = getattr,
    _format: Any = format,
    _hash: Any = hash,
) -> list[str]:
    """One short text per place: a hash of the identities of what is there now, of its code
    object and defaults, and of the object it is looked up in ("-": nothing there)."""
    prints = []
    for _, path, owner in places:
        value = _lookup(owner, path)
        if value is None:
            prints.append("-")
            continue
        inner = _getattr(value, "__func__", None) or value
        code, defaults = _getattr(inner, "__code__", None), _getattr(inner, "__defaults__", None)
        key = (_pointer(value), _pointer(code), _pointer(defaults), _pointer(owner))
        prints.append(_format(_hash(key) & 0xFFFFFFFFFFFF, "012x"))
    return prints


def _test_ended(
    watched: Any,
    send: Any,
    state: list[Any],
    _get: Any = object.__getattribute__,
    _prints: Any = _prints,
) -> None:
    """A test's end: `failed` where `TestCase.run` reported no outcome to `watched` (the
    observer's result, `_Watched`), and the fingerprints."""
    if not _get(watched, "_said"):
        state[2] = True
        send({"k": "r", "id": _get(watched, "_test"), "w": "call", "o": "failed"})
    send({"k": "check", "p": state[4], "at": "end", "m": _prints(state[5])})


def _run_ended(send: Any, state: list[Any], _runner: str = RUNNER, _prints: Any = _prints) -> None:
    """The run's end: the fingerprints, then `end` with what was seen."""
    send({"k": "check", "p": state[4], "at": "end", "m": _prints(state[5])})
    send({"k": "end", "status": 1 if state[2] else 0, "runner": _runner, "ran": state[1]})
    state[0] = False


# the functions that call the sender (its `callers`)
CALLERS = (_test_ended.__code__, _run_ended.__code__)
