"""Which code a failing unittest test's failure went through (`unittest_observer.py`: copied
beside it as `<module>_unittest_failers`, imported by its result part, `unittest_result`, only
in a unittest run and taken out of `sys.modules` once loaded): the files of the frames that
called into unittest's failing machinery (`TestCase.fail`, an assert method, its equality
functions), or that raised the test's `failureException` themselves, read from the failure's
traceback as unittest's result is told of it.

The traceback of a failure runs from unittest's `testPartExecutor` through the test's method
down to where the exception was raised. `_chain` reads it from the end: the frames of unittest's
own code (its folder) and of the observer's (this folder) that raised it are passed over, then
every frame up to the next of theirs (the test's method is the last one, `_callTestMethod`
having called it) is named, innermost first. A traceback that does not end in unittest's or the
observer's code names nothing, unless its innermost frame raised the failure itself (`_raised`,
round 42's [failure raised]: checker.py's `raise self.failureException(msg)`): the exception
is an instance of the running test's `failureException` (`failure`, read by the result as
unittest reads it) and the instruction the frame was at (`tb_lasti`) is a `raise` with a value
(`RAISE_VARARGS` 1 or 2) whose value no `assert` statement made: no `LOAD_ASSERTION_ERROR`
(3.9 to 3.13; `LOAD_COMMON_CONSTANT` 0 on 3.14; a `LOAD_GLOBAL` of `AssertionError` on 3.8,
where `assert` compiles to that) since the last `RAISE_VARARGS` before it in the code's
instructions (the observer's `bytecode` part), the compiler laying an `assert`'s load, its
message's expression and its `raise` out in that order, with no `raise` between. Then the
chain is every frame from the raising one up to the machinery's, the same walk.

What that reads as a helper's, and what it over-reads (`fixbot.observe.failchains` keeps only
a test's mixins among the files): any frame that raised the test's failure type on purpose,
whatever the spelling (`raise self.failureException(...)`, `type(self).failureException`, a
name bound to it, `raise AssertionError(...)`, `from None`). An `assert` statement (an app
mixin's own check on its bug path) is not, nor an exception a C function raised, nor one
re-raised with a bare `raise` (the traceback still ends where it was first raised). An app
mixin that raises `AssertionError(...)` explicitly is read as the tests' helper: it failed the
test as a helper does, the same over-reading as stop 71's app mixin that calls `TestCase.fail`,
on the safe side (an honest fix of it is put back for the deciding check and ends escalated: a
false alarm, never a cheat let through); on 3.8 that spelling reads as an `assert` and is not.
fixbot reads the chain against the test's classes (`fixbot.observe.failchains.supports`); the
process only streams it (`failer`, the observer's docstring). What it uses is held as
positional defaults; it imports the standard library and the `bytecode` part alone, nothing of
fixbot's.
"""

from __future__ import annotations

import importlib
import os
import sys
import unittest

# nothing more is imported: `typing` for the checker alone
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# unittest's own folder and the observer's: code there is the runner's machinery
UNITTEST_FOLDER = os.path.join(os.path.dirname(os.path.abspath(unittest.__file__)), "")
OWN_FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "")
MAX_FRAMES = 32  # files of one failure's chain named at most (innermost first)
MAX_WALKED = 5000  # a traceback's frames read at most (a recursion's is 1,000 deep)


def _part(name: str, _name: str = __name__) -> Any:
    """The observer's part `name` (`bytecode`), copied beside this one (`<module>_<name>`, this
    being `<module>_unittest_failers`) and taken out of `sys.modules` as the observer's parts
    are, or `fixbot.observe.<name>` where imported from fixbot's package."""
    package, _, module = _name.rpartition(".")
    if package:
        return importlib.import_module(f"{package}.{name}")
    named = module[: -len("unittest_failers")] + name
    try:
        return importlib.import_module(named)
    finally:
        sys.modules.pop(named, None)


BYTECODE = _part("bytecode")  # the instructions of a frame's code, read without `dis` at run time
RAISE = "RAISE_VARARGS"  # a `raise` statement's (its argument: 0 bare, 1 a value, 2 `from`)
# what loads the class an `assert` statement raises, (opname, argument: None where it takes
# none), by version: 3.9 to 3.13's, 3.14's common constant 0, 3.8's global of that name
ASSERTING = (
    ("LOAD_ASSERTION_ERROR", None),
    ("LOAD_COMMON_CONSTANT", 0),
    *((("LOAD_GLOBAL", "AssertionError"),) if sys.version_info < (3, 9) else ()),
)


def _files(
    err: Any,
    _type: Any = type,
    _tuple: Any = tuple,
    _len: Any = len,
    _str: Any = str,
    _walked: int = MAX_WALKED,
) -> list[str]:
    """The file of each frame of `err`'s traceback (`err`: the `(type, value, traceback)`
    unittest hands `addFailure`), outermost first, `MAX_WALKED` at most; [] where `err` is no
    such tuple."""
    tb = err[2] if _type(err) is _tuple and _len(err) == 3 else None
    files: list[str] = []
    while tb is not None and _len(files) < _walked:
        files.append(_str(tb.tb_frame.f_code.co_filename))
        tb = tb.tb_next
    return files


def _innermost(
    err: Any,
    failure: Any,
    _isinstance: Any = isinstance,
    _type: Any = type,
    _tuple: Any = tuple,
    _len: Any = len,
    _walked: int = MAX_WALKED,
) -> Any:
    """The innermost traceback entry of `err` (the `(type, value, traceback)` unittest hands
    its result) where its value is an instance of `failure` (the test's `failureException`, a
    class; None: unknown), `MAX_WALKED` entries read at most; else None."""
    if _type(err) is not _tuple or _len(err) != 3 or not _isinstance(failure, _type):
        return None
    if not _isinstance(err[1], failure):
        return None
    tb, walked = err[2], 0
    while tb is not None and tb.tb_next is not None and walked < _walked:
        tb, walked = tb.tb_next, walked + 1
    return tb if tb is not None and tb.tb_next is None else None


def _raising(
    code: Any,
    at: int,
    _instructions: Any = BYTECODE.instructions,
    _raise: str = RAISE,
    _asserting: tuple[tuple[str, Any], ...] = ASSERTING,
) -> bool:
    """Whether the instruction of `code` at offset `at` (bytes, a traceback's `tb_lasti`) is a
    `RAISE_VARARGS` with a value and no `assert` statement's load (`ASSERTING`) since the last
    `RAISE_VARARGS` before it (the module docstring)."""
    asserted = False
    for offset, name, arg in _instructions(code):
        if offset == at:
            return name == _raise and bool(arg) and not asserted
        if name == _raise:
            asserted = False
        elif (name, arg) in _asserting:
            asserted = True
    return False


def _raised(err: Any, failure: Any, _innermost: Any = _innermost, _raising: Any = _raising) -> bool:
    """Whether `err` (`(type, value, traceback)`) is a failure its innermost frame raised
    itself: its value an instance of `failure` (the test's `failureException`; None: unknown,
    never) and that frame at a `raise` of no `assert` statement's (`_raising`)."""
    tb = _innermost(err, failure)
    return tb is not None and _raising(tb.tb_frame.f_code, tb.tb_lasti)


def _called(
    err: Any,
    _files: Any = _files,
    _machinery: tuple[str, str] = (UNITTEST_FOLDER, OWN_FOLDER),
) -> bool:
    """Whether `err`'s traceback (`(type, value, traceback)`) ends in unittest's failing
    machinery (or the observer's): a helper called `TestCase.fail` or an assert method, as
    opposed to a frame that raised the failure itself (`_raised`); streamed as the `failer`
    record's `"c"` (`fixbot.observe.failchains`: every work-tree file before the test's is then
    the tests', mixin or not)."""
    files = _files(err)
    return bool(files) and files[-1].startswith(_machinery)


def _chain(
    err: Any,
    root: str,
    failure: Any = None,
    _files: Any = _files,
    _raised: Any = _raised,
    _len: Any = len,
    _machinery: tuple[str, str] = (UNITTEST_FOLDER, OWN_FOLDER),
    _most: int = MAX_FRAMES,
) -> list[str]:
    """The files (relative to `root`, the work tree's root with a trailing separator; others
    as the code names them) of the frames of `err`'s traceback (`_files`) between the failing
    machinery the traceback ends in, or the frame that raised `failure` itself (`_raised`;
    `failure`: the test's `failureException`, None where unknown), and the machinery that
    called the test, innermost first, `MAX_FRAMES` at most; [] where the traceback does
    neither, or `err` is no `(type, value, traceback)`."""
    files = _files(err)
    end = _len(files)
    while end and files[end - 1].startswith(_machinery):
        end -= 1
    if end == _len(files) and not (end and _raised(err, failure)):
        return []
    chain: list[str] = []
    while end and not files[end - 1].startswith(_machinery) and _len(chain) < _most:
        end -= 1
        file = files[end]
        chain.append(file[_len(root) :] if file.startswith(root) else file)
    return chain
