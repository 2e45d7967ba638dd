"""The code fixbot's observer inside unittest holds a test's assert methods to
(`unittest_observer.py`: copied beside it as `<module>_unittest_compiled`, imported by it only
in a unittest run and taken out of `sys.modules` once it is loaded): the code each of the work
tree's files was compiled to as it was imported, not the file a function's code names.

`unittest_machinery._foreign` names an assert method set on a test's class or instance whose
code is not in the files of the test's classes' modules. A code object's file name is what its
compiler was told (`compile(source, "<root>/test_app.py", "exec")`), so the code under test
could make a function that names the test's file (round 24: put in the test's
`_type_equality_funcs`, it "compared" 2 and 4 and raised nothing). So an assert method whose
code names such a file is held to the code that file was compiled to as it was imported: an
audit hook (`_recorder`, PEP 578: added at load, before any of the project's code runs, and
never removed) keeps, for each file under the work tree's root, the first module code `exec`
ran under its name (the import system runs a module's code through `exec`, which raises the
`exec` audit event with the code object; a test module is imported before the code under test
it imports runs); a function is that file's (`_ours`) where its code object is, by identity,
that module code or one nested in its constants (a function, a class body, a lambda defined
in the file). What it uses is held as positional defaults; it imports the standard library
alone and nothing of fixbot's.

Limits: a file no module code was recorded for (a script run as `__main__`, whose code runs
through no `exec`; a file outside the work tree) is taken at its code's word, as before, and a
script is held to module code other code compiled under its name and ran first, as is a test
module imported after the code under test ran (a second test module): the code under test's
functions nested there pass. A file imported twice (under two module names, or reloaded)
keeps its first code: an assert method of the second import's classes is named, a false
alarm on the safe side.
"""

from __future__ import annotations

from types import CodeType, FunctionType, MethodType

# nothing more is imported: `typing` for the checker alone
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EXEC = "exec"  # the audit event `exec` raises, with the code object it runs
MODULE = "<module>"  # the name of a module's code object
MAX_CODES = 100_000  # code objects walked in one file's module code, at most


def _recorder(root: str) -> tuple[Any, Any]:
    """(the audit hook, `_ours` over what it records): the hook keeps, for each file under
    `root` (the work tree's root, with a trailing separator), the first module code `exec`
    runs under its name; `ours(value, file)` says whether function `value`, whose code names
    `file`, is that file's (`_ours`)."""
    codes: dict[str, Any] = {}
    walked: dict[str, frozenset[int]] = {}

    def hook(
        event: str,
        args: tuple[Any, ...],
        _codes: dict[str, Any] = codes,
        _root: str = root,
        _type: Any = type,
        _code: Any = CodeType,
        _str: Any = str,
        _exec: str = EXEC,
        _module: str = MODULE,
    ) -> None:
        if event != _exec or not args or _type(args[0]) is not _code:
            return
        code = args[0]
        file = code.co_filename
        mine = code.co_name == _module and _type(file) is _str and file.startswith(_root)
        if mine and file not in _codes:
            _codes[file] = code

    def ours(
        value: Any,
        file: str,
        _codes: dict[str, Any] = codes,
        _walked: dict[str, frozenset[int]] = walked,
        _nested: Any = _nested,
        _type: Any = type,
        _wrapped: Any = (classmethod, staticmethod, MethodType),
        _function: Any = FunctionType,
        _getcode: Any = FunctionType.__dict__["__code__"].__get__,
        _pointer: Any = object.__hash__,
    ) -> bool:
        module = _codes.get(file)
        if module is None:
            return True  # no module code recorded for it: its code's word
        if _type(value) in _wrapped:
            value = value.__func__
        if _type(value) is not _function:
            return True  # no Python function: `_code_file` names it "?"
        known = _walked.get(file)
        if known is None:
            known = _walked[file] = _nested(module)
        return _pointer(_getcode(value)) in known

    return hook, ours


def _nested(
    module: Any,
    _type: Any = type,
    _code: Any = CodeType,
    _pointer: Any = object.__hash__,
    _len: Any = len,
    _frozenset: Any = frozenset,
    _most: int = MAX_CODES,
) -> frozenset[int]:
    """The identities of code object `module` and of every code object nested in its constants
    (`MAX_CODES` at most), which it keeps alive: the code of every function, class body and
    lambda its source defines."""
    found = [module]
    at = 0
    while at < _len(found) and _len(found) < _most:
        found += [value for value in found[at].co_consts if _type(value) is _code]
        at += 1
    known: frozenset[int] = _frozenset(_pointer(code) for code in found)
    return known
