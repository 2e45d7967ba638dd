"""The code fixbot's observer inside unittest holds a test's assert methods to
(`unittest_observer.py`: copied beside it as `<module>_unittest_compiled`, imported by it only in a
unittest run and taken out of `sys.modules` once it is loaded): the code each of the work tree's
files was compiled to as it was imported, not the file a function's code names (`_recorder`), and
each write of a test's `__class__` or a test class's `__bases__` (`_retyped`: round 25, the class
swapped to one of app.py's and back before the end; CPython audits these two writes,
`object.__setattr__`, and no other write of a class's attributes or an instance's `__dict__`), and
the file each test class was made in, captured as it is made (`unittest_made._maker`, the
observer's `TestCase.__init_subclass__`: round 27, a class's `__module__` and its module's
`__file__` are the project's to rewrite, with no audit event), where the frame that made it is
running a class statement's call (`_building`, read from its bytecode: app.py's own
`__init_subclass__` put the observer's back and called it, its frame was kept). The assert methods
themselves are its sibling part's, `unittest_asserts.py`.

`unittest_asserts._foreign` names an assert method set on a test's class or instance whose code
is not in the files of the test's classes' modules. A code object's file name is what its
compiler was told (`compile(source, "<root>/test_app.py", "exec")`), so the code under test
could make a function that names the test's file (round 24: put in the test's
`_type_equality_funcs`, it "compared" 2 and 4 and raised nothing). So an assert method whose
code names such a file is held to the code that file was compiled to as it was imported: an
audit hook (`_recorder`, PEP 578: added at load, before any of the project's code runs, and
never removed) keeps, for each file under the work tree's root, the first module code `exec` ran
under its name (the import system runs a module's code through `exec`, which raises the `exec`
audit event with the code object; a test module is imported before the code under test it
imports runs); a second, other module code run under the same name makes neither the file's
(round 26: a package unittest's discovery imports before the test module, `helpers/`, ran module
code compiled under test_app.py's name first, and its function passed); a function is that
file's (`_ours`) where its code object is, by identity, that module code or one nested in its
constants (a function, a class body, a lambda defined in the file). A function whose code names
a file of unittest's own is unittest's only where unittest's module binds it
(`_bound_by_unittest`). What it uses is held as positional defaults; it imports the standard
library and the observer's `unittest_made` and `modulecode` parts alone (`<module>_<part>`, taken
out of `sys.modules` once loaded: which class statement made each test class, `_maker`; the
module code each file ran, `modulecode.kept`, shared with the pytest plugin).

Limits: a file no module code was recorded for (a script run as `__main__`, whose code runs
through no `exec`; a file outside the work tree) is taken at its code's word, as before, and a
script is held to module code other code compiled under its name and ran (its own code runs
through no `exec`): the code under test's functions nested there pass. A file imported twice
(under two module names, or reloaded) has two module codes: an assert method of either
import's classes is named, a false alarm on the safe side, and the file of each class made
there is "?" in each test's `code` record (`_Twice`), in the start's run and the fix's alike.
The files of unittest's own folder imported after the load (`unittest.async_case`:
`UNITTEST_FOLDER`) are recorded too, so that unittest's own function there is its module code's
(`unittest_asserts._kept`, round 27); those imported before it are held to what their modules
bound at the load (`unittest_asserts.BOUND`).
"""

from __future__ import annotations

import importlib
import os
import sys
import unittest
from types import CodeType, FunctionType, MethodType

# nothing more is imported: `typing` for the checker alone
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# the audit event an object's `__class__` or a class's `__bases__` written raises, with
# (object, name, value); a class's other attributes and an instance's `__dict__` raise none
SETATTR = "object.__setattr__"
RETYPED = ("__class__", "__bases__")
# unittest's own folder: its modules imported after the load (`unittest.async_case`) are
# recorded as the work tree's files are, `unittest_asserts._bound_by_unittest` knowing only
# those loaded before (round 27)
UNITTEST_FOLDER = os.path.join(os.path.dirname(unittest.__file__), "")
MAX_CODES = 100_000  # code objects walked in one file's module code, at most


def _part(name: str, _name: str = __name__) -> Any:
    """The observer's part `name` (`unittest_made`), copied beside this one (`<module>_<name>`, this
    being `<module>_unittest_compiled`) and taken out of `sys.modules` as the observer's parts
    are, or `fixbot.observe.<name>` where imported from fixbot's package."""
    package, _, module = _name.rpartition(".")
    if package:
        return importlib.import_module(f"{package}.{name}")
    named = module[: -len("unittest_compiled")] + name
    try:
        return importlib.import_module(named)
    finally:
        sys.modules.pop(named, None)


MAKING = _part("unittest_made")  # `_maker`: the class statement each test class is made by
# `kept`, `imported`: the module code each file ran, shared with the pytest plugin
MODULECODE = _part("modulecode")
EXEC = MODULECODE.EXEC  # the audit event `exec` raises, with the code object it runs


def _retyped(
    args: Any,
    written: set[int],
    _type: Any = type,
    _str: Any = str,
    _len: Any = len,
    _issubclass: Any = issubclass,
    _case: Any = unittest.TestCase,
    _retyped: tuple[str, ...] = RETYPED,
    _id: Any = id,
) -> None:
    """Keep in `written` the identity of a test (an instance of a `TestCase` subclass) whose
    `__class__`, or of a `TestCase` subclass whose `__bases__`, the audit event `args` (of
    `object.__setattr__`: object, name, value) writes. Round 25: app.py set the running test's
    `__class__` to a subclass of its own whose `_getAssertEqualityFunc` set it back and handed
    back a function that asserts nothing: at the test's end the class was its own. Runs none of
    the project's code (`issubclass` of exact classes, no `isinstance`: no `__class__` asked)."""
    if _len(args) != 3 or _type(args[1]) is not _str or args[1] not in _retyped:
        return
    target = args[0]
    kind = _type(target)
    if _issubclass(kind, _case) or (_issubclass(kind, _type) and _issubclass(target, _case)):
        written.add(_id(target))


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


def _compiled(
    code: Any,
    file: str,
    codes: dict[str, Any],
    walked: dict[str, frozenset[int]],
    _nested: Any = _nested,
    _pointer: Any = object.__hash__,
) -> bool:
    """Whether code object `code`, which names `file`, is the module code `exec` ran under that
    name (`codes`: the recorder's) or nested in it (`walked`: each file's, kept as first
    asked); True where none was recorded (its code's word), False where two were."""
    module = codes.get(file)
    if module is None:
        return True  # no module code recorded for it: its code's word
    if module is False:
        return False  # two module codes ran under its name: no function is its
    known = walked.get(file)
    if known is None:
        known = walked[file] = _nested(module)
    return _pointer(code) in known


class _Twice(str):
    """A file two module codes ran under, as the file of a class made there (`_class_file`):
    equal to the file, so the assert methods naming it are judged `not compiled from it`
    (`unittest_asserts._judged`), but no `str` itself, so the test's classes' files in its `code`
    record name it "?" (`unittest_asserts._class_files`): round 30, a base class of app.py's made
    by module code compiled under test_app.py's name, its `__getattribute__` wrapping the test's
    body, was test_app.py's there, nothing new for `alike.rebased`."""


def _class_file(
    klass: Any,
    made: dict[int, tuple[Any, Any]],
    codes: dict[str, Any],
    walked: dict[str, frozenset[int]],
    _id: Any = id,
    _compiled: Any = _compiled,
    _mixin: Any = MAKING.MIXIN,
    _mixin_file: Any = MAKING._mixin_file,
    _twice: Any = _Twice,
) -> Any:
    """The file class `klass` was made in: the file its class statement's code names
    (`made`: `_maker`'s), where that code is what the file was compiled to as imported
    (`_compiled`), or, as a `_Twice`, where two module codes ran under its name (no function is
    that file's then: each naming it is named `not compiled from it`; the class's file "?" in
    the `code` record); None where no statement was seen
    make it (a class made before the observer loaded, by `type(...)`, made twice over, or by
    code compiled under another file's name). A class of no `TestCase` (a mixin, kept as
    `MIXIN`): the one file its own functions were compiled from, read now (`_mixin_file`)."""
    kept = made.get(_id(klass))
    if kept is None or kept[0] is not klass or kept[1] is None:
        return None
    if kept[1] is _mixin:
        return _mixin_file(klass, codes, walked, _compiled)
    file = kept[1].co_filename
    if codes.get(file) is False:  # two module codes: which one made it is unknown
        return _twice(file)
    return file if _compiled(kept[1], file, codes, walked) else None


DICT = "__dict__"  # an instance's namespace, a getset of its class's own (`GETSET`) or none
GETSET = type(type.__dict__["__dict__"])  # `types.GetSetDescriptorType`
OBJCLASS = GETSET.__dict__["__objclass__"].__get__  # the class a getset descriptor is of


def _dicts_set(
    klass: Any,
    _ns: Any = MAKING.NS,
    _type: Any = type,
    _issubclass: Any = issubclass,
    _str: Any = str,
    _plain: Any = str.__str__,
    _getset: Any = GETSET,
    _objclass: Any = OBJCLASS,
    _dict: str = DICT,
) -> list[Any]:
    """The values of class `klass`'s own namespace under `__dict__` (a key of a `str` subclass
    too: round 28's) that are not the getset descriptor `type` gives a class of its own
    (`GETSET`, of `klass`: a mixin's); none of the project's code run."""
    found = []
    for key, value in _ns(klass).items():
        if not _issubclass(_type(key), _str) or _plain(key) != _dict:
            continue
        if _type(value) is not _getset or _objclass(value) is not klass:
            found.append(value)
    return found


def _runs_file(
    value: Any,
    root: str,
    _type: Any = type,
    _str: Any = str,
    _len: Any = len,
    _code: Any = MAKING.CODE,
    _own_functions: Any = MAKING._own_functions,
) -> str:
    """The file the code value `value` of a class's namespace runs names (`_own_functions`, its
    first: a property's getter), relative to `root`; "?" where it runs no Python function."""
    functions = _own_functions(value) or []
    file = _code(functions[0]).co_filename if functions else "?"
    file = file if _type(file) is _str else "?"
    return file[_len(root) :] if file.startswith(root) else file


def _dict_names(
    test: Any,
    root: str,
    case: Any,
    _type: Any = type,
    _mro: Any = type.__dict__["__mro__"].__get__,
    _name: Any = type.__dict__["__name__"].__get__,
    _dicts_set: Any = _dicts_set,
    _runs_file: Any = _runs_file,
) -> list[str]:
    """`unittest: __dict__ of <class> set by <file>` for each class of `test`'s type's MRO
    below `case` (`TestCase`: a test class or a mixin) whose own namespace holds a `__dict__`
    that is no getset descriptor of its own (`_dicts_set`), the file the code its value runs
    names (`_runs_file`: a property's getter's). Nothing honest sets one. Round 32: a
    metaclass's `__prepare__` handed test_app.py's class statement a namespace holding a
    `__dict__` property, which `object.__getattribute__(test, "__dict__")` found before the
    instance's real dict, the wrapped test method set there. Runs none of the project's code."""
    names = []
    for klass in _mro(_type(test)):
        if klass is case:
            break
        for value in _dicts_set(klass):
            names.append(
                "unittest: __dict__ of " + _name(klass) + " set by " + _runs_file(value, root)
            )
    return names


def _recorder(root: str, _case: Any = unittest.TestCase) -> tuple[Any, Any, Any]:
    """(the audit hook, `_ours` over what it records, the observer's `TestCase.__init_subclass__`):
    the hook keeps, for each file under `root` (the work tree's root, with a trailing
    separator) or unittest's folder (`UNITTEST_FOLDER`: a module of unittest's imported after
    the load), the module code `exec` runs under its name (False once another module code ran
    under it: no function is its; `modulecode.kept`, the pytest plugin's too), and which
    test's `__class__` or test class's `__bases__` was written (`_retyped`); the classmethod,
    installed in `_case` by the observer, keeps the code of each subclass's class statement as
    it is made (`_maker`). `ours(value, file)` says whether function `value`, whose code names
    `file`, is that file's (`_ours`), `ours(value, None)` whether `value`'s `__class__` or
    `__bases__` was written since it was last asked (each write answered once),
    `ours(None, ...)` the files under `root` the import system loaded so far whose names
    still hold, relative to it (`modulecode.loaded`, `modulecode.held`; `ours(True, ...)`
    the whole `imported` record's fields, `modulecode.record_of`), `ours(klass, True)`
    the file class `klass` was made in, None where unknown (`_class_file`), and `ours(test,
    False)` the names of the `__dict__`s set in `test`'s classes' namespaces (`_dict_names`)."""
    codes: dict[str, Any] = {}
    found: dict[str, tuple[Any, Any, str, str]] = {}  # the files the import system ran: `loaded`
    pending: dict[int, tuple[str, str]] = {}  # each thread's last source compiled: `compiled`
    machine = MODULECODE.rewriter()
    written: set[int] = set()
    walked: dict[str, frozenset[int]] = {}
    made: dict[int, tuple[Any, Any]] = {}

    def hook(
        event: str,
        args: tuple[Any, ...],
        _codes: dict[str, Any] = codes,
        _exec: str = EXEC,
        _setattr: str = SETATTR,
        _retyped: Any = _retyped,
        _written: set[int] = written,
        _roots: tuple[str, ...] = (root, UNITTEST_FOLDER),
        _kept: Any = MODULECODE.kept,
        _loaded: Any = MODULECODE.loaded,
        _found: dict[str, Any] = found,
        _root: str = root,
        _machine: tuple[Any, Any, Any] = machine,
        _pending: dict[int, Any] = pending,
        _compile: str = MODULECODE.COMPILE,
        _compiled: Any = MODULECODE.compiled,
    ) -> None:
        if event == _setattr:
            _retyped(args, _written)
        if event == _exec:
            _kept(args, _codes, _roots)
            _loaded(args, _found, _root, 2, _machine, _pending)
        elif event == _compile:
            _compiled(args, _pending, _root)

    def ours(
        value: Any,
        file: Any,
        _codes: dict[str, Any] = codes,
        _written: set[int] = written,
        _id: Any = id,
        _walked: dict[str, frozenset[int]] = walked,
        _made: dict[int, tuple[Any, Any]] = made,
        _compiled: Any = _compiled,
        _class_file: Any = _class_file,
        _type: Any = type,
        _wrapped: Any = (classmethod, staticmethod, MethodType),
        _function: Any = FunctionType,
        _getcode: Any = FunctionType.__dict__["__code__"].__get__,
        _root: str = root,
        _case: Any = _case,
        _dict_names: Any = _dict_names,
        _held: Any = MODULECODE.held,
        _record: Any = MODULECODE.record_of,
        _found: dict[str, Any] = found,
        _modules: dict[str, Any] = sys.modules,
    ) -> Any:
        if file is ...:  # the work tree's files the import system ran, their names held
            return (_record if value is True else _held)(_found, _root, _modules)
        if file is False:  # the `__dict__`s set in test `value`'s classes' namespaces
            return _dict_names(value, _root, _case)
        if file is None:  # was `value`'s class or bases written? each write answered once
            said = _id(value) in _written
            _written.discard(_id(value))
            return said
        if file is True:  # the file the class was made in
            return _class_file(value, _made, _codes, _walked)
        if _type(value) in _wrapped:
            value = value.__func__
        if _type(value) is not _function:
            return True  # no Python function: `_code_file` names it "?"
        return _compiled(_getcode(value), file, _codes, _walked)

    return hook, ours, classmethod(MAKING._maker(made, _case))
