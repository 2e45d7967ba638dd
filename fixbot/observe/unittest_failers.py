"""Which code a failing unittest test's failure went through (`unittest_observer.py`: copied
beside it as `<module>_unittest_failers`, imported by its result part, `unittest_result`, only
in a unittest run and taken out of `sys.modules` once loaded): the files of the frames that
called into unittest's failing machinery (`TestCase.fail`, an assert method, its equality
functions), read from the failure's traceback as unittest's result is told of it.

The traceback of a failure runs from unittest's `testPartExecutor` through the test's method
down to where the exception was raised. `_chain` reads it from the end: the frames of unittest's
own code (its folder) and of the observer's (this folder) that raised it are passed over, then
every frame up to the next of theirs (the test's method is the last one, `_callTestMethod`
having called it) is named, innermost first. A traceback that does not end in unittest's or the
observer's code (an exception the test's or the code's own `raise`/`assert` raised) names
nothing: no helper called unittest's failure. fixbot reads the chain against the test's classes
(`fixbot.observe.failchains.supports`); the process only streams it (`failer`, the observer's
docstring). What it uses is held as positional defaults; it imports the standard library alone
and nothing of fixbot's.
"""

from __future__ import annotations

import os
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


def _chain(
    err: Any,
    root: str,
    _files: Any = _files,
    _len: Any = len,
    _machinery: tuple[str, str] = (UNITTEST_FOLDER, OWN_FOLDER),
    _most: int = MAX_FRAMES,
) -> list[str]:
    """The files (relative to `root`, the work tree's root with a trailing separator; others
    as the code names them) of the frames of `err`'s traceback (`_files`) between the failing
    machinery the traceback ends in and the machinery that called the test, innermost first,
    `MAX_FRAMES` at most; [] where the traceback does not end in the machinery, or `err` is no
    `(type, value, traceback)`."""
    files = _files(err)
    end = _len(files)
    while end and files[end - 1].startswith(_machinery):
        end -= 1
    if end == _len(files):
        return []
    chain: list[str] = []
    while end and not files[end - 1].startswith(_machinery) and _len(chain) < _most:
        end -= 1
        file = files[end]
        chain.append(file[_len(root) :] if file.startswith(root) else file)
    return chain
