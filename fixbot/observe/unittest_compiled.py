"""The code fixbot's observer inside unittest holds a test's assert methods to
(`unittest_observer.py`: copied beside it as `<module>_unittest_compiled`, imported by it only
in a unittest run and taken out of `sys.modules` once it is loaded): the code each of the work
tree's files was compiled to as it was imported, not the file a function's code names
(`_recorder`), and each write of a test's `__class__` or a test class's `__bases__`
(`_retyped`: round 25, the class swapped to one of app.py's and back before the end; CPython
audits these two writes, `object.__setattr__`, and no other write of a class's attributes or
an instance's `__dict__`), and the file each test class was made in, captured as it is made
(`_maker`, the observer's `TestCase.__init_subclass__`: round 27, a class's `__module__` and
its module's `__file__` are the project's to rewrite, with no audit event), where the frame
that made it is running a class statement's call (`_building`, read from its bytecode: app.py's
own `__init_subclass__` put the observer's back and called it, its frame was kept). The assert
methods
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
library and the observer's `bytecode` part alone (`<module>_bytecode`, taken out of
`sys.modules` once loaded).

Limits: a file no module code was recorded for (a script run as `__main__`, whose code runs
through no `exec`; a file outside the work tree) is taken at its code's word, as before, and a
script is held to module code other code compiled under its name and ran (its own code runs
through no `exec`): the code under test's functions nested there pass. A file imported twice
(under two module names, or reloaded) has two module codes: an assert method of either
import's classes is named, a false alarm on the safe side. The files of unittest's own folder
imported after the load (`unittest.async_case`: `UNITTEST_FOLDER`) are recorded too, so that
unittest's own function there is its module code's (`unittest_asserts._kept`, round 27); those
imported before it are held to what their modules bound at the load (`unittest_asserts.BOUND`).
"""

from __future__ import annotations

import dis
import importlib
import os
import sys
import unittest
from types import CodeType, FunctionType, MethodType

# nothing more is imported: `typing` for the checker alone
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EXEC = "exec"  # the audit event `exec` raises, with the code object it runs
# the audit event an object's `__class__` or a class's `__bases__` written raises, with
# (object, name, value); a class's other attributes and an instance's `__dict__` raise none
SETATTR = "object.__setattr__"
RETYPED = ("__class__", "__bases__")
MODULE = "<module>"  # the name of a module's code object
# unittest's own folder: its modules imported after the load (`unittest.async_case`) are
# recorded as the work tree's files are, `unittest_asserts._bound_by_unittest` knowing only
# those loaded before (round 27)
UNITTEST_FOLDER = os.path.join(os.path.dirname(unittest.__file__), "")
MAX_CODES = 100_000  # code objects walked in one file's module code, at most
MADE = "__init_subclass__"  # what `type.__new__` calls on a class's next base as it is made
NEW = "__new__"  # a metaclass's own (`ABCMeta`'s), between a class statement and `type.__new__`
MAX_NEW = 8  # metaclass `__new__` frames passed, at most


def _part(name: str, _name: str = __name__) -> Any:
    """The observer's part `name` (`bytecode`), copied beside this one (`<module>_<name>`, this
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


# a class statement's call (`_building`), by version: 3.8 to 3.10's, 3.11 and later's
CALLS = frozenset({"CALL_FUNCTION", "CALL_FUNCTION_KW", "CALL_FUNCTION_EX", "CALL", "CALL_KW"})
UNSEEN = frozenset({"EXTENDED_ARG", "PRECALL"})  # passed over: a prefix, 3.11's call's first half
BUILD = "LOAD_BUILD_CLASS"  # what loads `__build_class__`, a class statement's callable
JUMPS = frozenset(
    dis.opname[op] for op in {*dis.hasjrel, *dis.hasjabs, *getattr(dis, "hasjump", ())}
)
OPMAP = dict(dis.opmap)
BYTECODE = _part("bytecode")  # the instructions of a frame's code, read without `dis` at run time
STATIC = staticmethod.__dict__["__func__"].__get__  # a staticmethod's function
CODE = FunctionType.__dict__["__code__"].__get__  # a function's code


def _raw(code: Any, name: str, arg: Any) -> Any:
    """An instruction's argument as it is (`bytecode.instructions`' `_argval`)."""
    return arg


def _building(
    code: Any,
    at: int,
    _instructions: Any = BYTECODE.instructions,
    _raw: Any = _raw,
    _effect: Any = dis.stack_effect,
    _opmap: dict[str, int] = OPMAP,
    _calls: frozenset[str] = CALLS,
    _unseen: frozenset[str] = UNSEEN,
    _jumps: frozenset[str] = JUMPS,
    _build: str = BUILD,
) -> bool:
    """Whether the instruction of `code` at offset `at` (a frame's `f_lasti`) is a class
    statement's call: the call (`CALLS`) that takes the callable `LOAD_BUILD_CLASS` loaded off
    the stack, the stack's depth (`dis.stack_effect`'s, read forward from that load) under it
    after that call and at no instruction between. Fail closed: an instruction between that
    jumps (a conditional expression among the bases) makes it no statement's (False)."""
    depth = -1  # the stack's depth above the one `LOAD_BUILD_CLASS` ran at, -1 in none
    for offset, name, arg in _instructions(code, _argval=_raw):
        if name == _build:
            depth = 1
        elif depth >= 0:
            depth = -1 if name in _jumps else depth + _effect(_opmap[name], arg, jump=False)
            if offset == at:
                return name in _calls and 0 <= depth <= 1
            if depth <= 1 and name not in _unseen:
                depth = -1  # the statement's callable taken: out of it
    return False


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


def _class_file(
    klass: Any,
    made: dict[int, tuple[Any, Any]],
    codes: dict[str, Any],
    walked: dict[str, frozenset[int]],
    _id: Any = id,
    _type: Any = type,
    _str: Any = str,
    _compiled: Any = _compiled,
) -> Any:
    """The file class `klass` was made in: the file its class statement's code names
    (`made`: `_maker`'s), where that code is what the file was compiled to as imported
    (`_compiled`), or where two module codes ran under its name (no function is that file's
    then: each naming it is named `not compiled from it`); None where no statement was seen
    make it (a class made before the observer loaded, by `type(...)`, made twice over, or by
    code compiled under another file's name). A class of no `TestCase` (a mixin): the file
    its module had as the first test class made with it was (`_mixins`), None where none was."""
    kept = made.get(_id(klass))
    if kept is None or kept[0] is not klass or kept[1] is None:
        return None
    if _type(kept[1]) is _str:
        return kept[1]  # a mixin's, as the first test class made with it read it (`_mixins`)
    file = kept[1].co_filename
    known = codes.get(file) is False or _compiled(kept[1], file, codes, walked)
    return file if known else None


def _own(
    klass: Any,
    own: list[Any],
    case: Any,
    _vars: Any = vars,
    _type: Any = type,
    _mro: Any = type.__dict__["__mro__"].__get__,
    _classmethod: Any = classmethod,
    _made: str = MADE,
) -> bool:
    """Whether the `__init_subclass__` `type.__new__` called as `klass` was made is `case`'s, a
    classmethod of the function `own` holds (`_maker`'s, by identity: its `__code__` is not
    read), not one the code under test set on `case` or a base between: called by that,
    `_maker`'s caller is not the class statement."""
    for base in _mro(klass)[1:]:
        held = _vars(base).get(_made)
        if held is None:
            continue
        return base is case and _type(held) is _classmethod and held.__func__ is own[0]
    return False


def _mixins(
    cls: Any,
    made: dict[int, tuple[Any, Any]],
    case: Any,
    _vars: Any = vars,
    _type: Any = type,
    _str: Any = str,
    _id: Any = id,
    _issubclass: Any = issubclass,
    _modules: Any = sys.modules,
    _mro: Any = type.__dict__["__mro__"].__get__,
) -> None:
    """Keep in `made` for each class of `cls`'s MRO that is no `case` subclass nor `object` (a
    mixin: no `__init_subclass__` of the observer's runs as it is made), not kept before, the
    file of the module its `__module__` names now, as the test class `cls` is made (None where
    there is none): the code under test can rewrite both later with no audit event."""
    for klass in _mro(cls)[1:-1]:
        if _issubclass(klass, case) or _id(klass) in made:
            continue
        named = _vars(klass).get("__module__")
        module = _modules.get(named) if _type(named) is _str else None
        file = _vars(module).get("__file__") if module is not None else None
        made[_id(klass)] = (klass, file if _type(file) is _str else None)


def _news(
    kind: Any,
    _vars: Any = vars,
    _type: Any = type,
    _mro: Any = type.__dict__["__mro__"].__get__,
    _static: Any = staticmethod,
    _function: Any = FunctionType,
    _func: Any = STATIC,
    _code: Any = CODE,
    _id: Any = id,
    _new: str = NEW,
) -> list[int]:
    """The identity of the code of each `__new__` a class of metaclass `kind`'s MRO defines
    itself as a Python function (`abc.ABCMeta`'s): the frames between a class statement and
    `type.__new__`."""
    found = []
    for klass in _mro(kind):
        held = _vars(klass).get(_new)
        held = _func(held) if _type(held) is _static else None
        if _type(held) is _function:
            found.append(_id(_code(held)))
    return found


def _statement(
    frame: Any,
    cls: Any,
    _range: Any = range,
    _type: Any = type,
    _most: int = MAX_NEW,
    _news: Any = _news,
    _building: Any = _building,
    _id: Any = id,
    _error: Any = Exception,
) -> Any:
    """The code of the frame class `cls` is made in, from `frame`, the caller of its
    `__init_subclass__`: past each frame of a `__new__` of its metaclass's MRO (`_news`:
    `abc.ABCMeta`'s, calling `type.__new__`; `MAX_NEW` at most), where that frame is running a
    class statement's call (`_building`); else None (`type(...)`, `types.new_class`, a
    function of the code under test's calling the observer's, as its own
    `TestCase.__init_subclass__` put it back, from a class statement's metaclass or not)."""
    try:  # an instruction `dis` has no stack effect for: no statement's
        news = _news(_type(cls))
        for _ in _range(_most):
            if _id(frame.f_code) not in news or frame.f_back is None:
                break
            frame = frame.f_back
        return frame.f_code if _building(frame.f_code, frame.f_lasti) else None
    except _error:
        return None


def _above(case: Any) -> Any:
    """The `__init_subclass__` `case` inherits, as a function of the class made: Python 3.8 and
    3.9's `TestCase` defines none of its own (3.10 added one)."""

    def inherited(cls: Any, _case: Any = case, _super: Any = super, **kwargs: Any) -> None:
        _super(_case, cls).__init_subclass__(**kwargs)

    return inherited


def _maker(made: dict[int, tuple[Any, Any]], case: Any) -> Any:
    """The function of the observer's `TestCase.__init_subclass__` (`case`'s own called
    inside): it keeps in `made`, by each subclass's identity, (the class, the code of the class
    statement's frame, its caller's past a metaclass's `__new__`: the module, function or class
    body that made it, `_statement`) as
    `type.__new__` calls it, before any of the class's code can run, and its mixins' files
    (`_mixins`). Kept as None: a class it
    is called for twice (the code under test calling it on a made class), or where it is not
    the `__init_subclass__` `type.__new__` calls for it (`_own`: the code under test's set on
    `TestCase`, or a base's own). Runs none of the project's code but `case`'s own."""
    original = vars(case)[MADE].__func__ if MADE in vars(case) else _above(case)
    itself: list[Any] = []

    def init_subclass(
        cls: Any,
        _made: dict[int, tuple[Any, Any]] = made,
        _case: Any = case,
        _original: Any = original,
        _itself: list[Any] = itself,
        _frame: Any = sys._getframe,
        _id: Any = id,
        _own: Any = _own,
        _mixins: Any = _mixins,
        _statement: Any = _statement,
        **kwargs: Any,
    ) -> None:
        known = _id(cls) not in _made and _own(cls, _itself, _case)
        _made[_id(cls)] = (cls, _statement(_frame(1), cls) if known else None)
        _mixins(cls, _made, _case)
        _original(cls, **kwargs)

    itself.append(init_subclass)
    return init_subclass


def _recorder(root: str, _case: Any = unittest.TestCase) -> tuple[Any, Any, Any]:
    """(the audit hook, `_ours` over what it records, the observer's `TestCase.__init_subclass__`):
    the hook keeps, for each file under `root` (the work tree's root, with a trailing
    separator) or unittest's folder (`UNITTEST_FOLDER`: a module of unittest's imported after
    the load), the module code `exec` runs under its name (False once another module code ran
    under it: no function is its), and which test's `__class__` or test class's `__bases__` was
    written (`_retyped`); the classmethod, installed in `_case` by the observer, keeps the code
    of each subclass's class statement as it is made (`_maker`). `ours(value, file)` says
    whether function `value`, whose code names `file`, is that file's (`_ours`),
    `ours(value, None)` whether `value`'s `__class__` or `__bases__` was written since it was
    last asked (each write answered once), and `ours(klass, True)` the file class `klass` was
    made in, None where unknown (`_class_file`)."""
    codes: dict[str, Any] = {}
    written: set[int] = set()
    walked: dict[str, frozenset[int]] = {}
    made: dict[int, tuple[Any, Any]] = {}

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
        _setattr: str = SETATTR,
        _retyped: Any = _retyped,
        _written: set[int] = written,
        _unittest: str = UNITTEST_FOLDER,
    ) -> None:
        if event == _setattr:
            _retyped(args, _written)
        if event != _exec or not args or _type(args[0]) is not _code:
            return
        code = args[0]
        file = code.co_filename
        mine = code.co_name == _module and _type(file) is _str
        mine = mine and (file.startswith(_root) or file.startswith(_unittest))
        if mine:
            # a second, other module code under the file's name: neither is the file's
            _codes[file] = _codes.get(file, code) is code and code

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
    ) -> Any:
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

    return hook, ours, classmethod(_maker(made, _case))
