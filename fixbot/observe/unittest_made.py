"""Which class statement made each test class, for fixbot's observer inside unittest
(`unittest_observer.py`: copied beside it as `<module>_unittest_made`, imported by its part
`unittest_compiled.py` and taken out of `sys.modules` once loaded). The observer's own
`TestCase.__init_subclass__` (`_maker`) keeps, as each subclass is made and before any of its
code runs, the code of the frame that made it (`_statement`: past its metaclass chain's own
`__new__`, `_news`), where that frame is running a class statement's call (`_building`, read
from its bytecode with the observer's `bytecode` part: round 27, app.py's own
`__init_subclass__` put the observer's back and called it, and its frame was kept); a class made
by `type(...)`, made twice, or by an `__init_subclass__` not the observer's (`_own`) gets none.
`unittest_compiled._class_file` turns that code into the class's file. A mixin (a class of a test's
MRO that is no `TestCase`: none of the observer's runs as it is made) is kept as one (`_mixins`),
its file read as asked from its own functions' code (`_mixin_file`), not from its `__module__`
(round 30: app.py named its mixin the test module's). A class's namespace is read as `type`'s
own `__dict__` descriptor holds it (`NS`: round 31, a metaclass's `__getattribute__` answered
`vars()` with the namespace as first given, the test method since wrapped). A class made while
`builtins.__build_class__` is not the one loaded gets no statement (`LOADED`; a `__dict__` a
test's class or mixin holds that is no getset of its own is named at the test's end by
`unittest_compiled._dict_names`: round 32, a `__dict__` property hid the instance's real
dict). What it uses is
held as positional defaults; it imports the standard library and the `bytecode` part alone."""

from __future__ import annotations

import builtins
import dis
import importlib
import sys
from types import FunctionType

# nothing more is imported: `typing` for the checker alone
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _part(name: str, _name: str = __name__) -> Any:
    """The observer's part `name` (`bytecode`), copied beside this one (`<module>_<name>`, this
    being `<module>_unittest_made`) and taken out of `sys.modules` as the observer's parts
    are, or `fixbot.observe.<name>` where imported from fixbot's package."""
    package, _, module = _name.rpartition(".")
    if package:
        return importlib.import_module(f"{package}.{name}")
    named = module[: -len("unittest_made")] + name
    try:
        return importlib.import_module(named)
    finally:
        sys.modules.pop(named, None)


MADE = "__init_subclass__"  # what `type.__new__` calls on a class's next base as it is made
NEW = "__new__"  # a metaclass's own (`ABCMeta`'s), between a class statement and `type.__new__`
MAX_NEW = 8  # metaclass `__new__` frames passed, at most
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
NS = type.__dict__["__dict__"].__get__  # a class's own namespace, no metaclass asked
MIXIN = ("mixin",)  # kept for a mixin (`_mixins`): its file read from its functions as asked
# what runs code as a value of a class's namespace is used on its instances (`_descriptor`)
HOOKS = ("__get__", "__set__", "__delete__", "__call__")
# the functions a class or static method or a property holds, read by their own descriptors
INNER: dict[Any, tuple[Any, ...]] = {
    classmethod: (classmethod.__dict__["__func__"].__get__,),
    staticmethod: (STATIC,),
    property: tuple(property.__dict__[name].__get__ for name in ("fget", "fset", "fdel")),
}
# data whose C descriptors run no code of the project's: a `__dict__`, a slot
QUIET = frozenset({type(type.__dict__["__dict__"]), type(FunctionType.__dict__["__globals__"])})
BUILTINS = vars(builtins)  # the interpreter's builtins, read as each test class is made
BUILD_CLASS = "__build_class__"  # what a class statement calls (`LOAD_BUILD_CLASS` loads it)
LOADED = BUILTINS[BUILD_CLASS]  # the one there as this part loaded, before the project's code


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


def _own(
    klass: Any,
    own: list[Any],
    case: Any,
    _ns: Any = NS,
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
        held = _ns(base).get(_made)
        if held is None:
            continue
        return base is case and _type(held) is _classmethod and held.__func__ is own[0]
    return False


def _mixins(
    cls: Any,
    made: dict[int, tuple[Any, Any]],
    case: Any,
    _issubclass: Any = issubclass,
    _id: Any = id,
    _mro: Any = type.__dict__["__mro__"].__get__,
    _mixin: tuple[str] = MIXIN,
) -> None:
    """Keep in `made` each class of `cls`'s MRO that is no `case` subclass nor `object` (a
    mixin: no `__init_subclass__` of the observer's runs as it is made), not kept before, as
    `MIXIN`: its file is read from its own functions as asked (`_mixin_file`), not from its
    `__module__` (round 30: set to "test_app" by app.py before the test's class statement)."""
    for klass in _mro(cls)[1:-1]:
        if not _issubclass(klass, case) and _id(klass) not in made:
            made[_id(klass)] = (klass, _mixin)


def _descriptor(
    kind: Any,
    _ns: Any = NS,
    _mro: Any = type.__dict__["__mro__"].__get__,
    _hooks: tuple[str, ...] = HOOKS,
) -> bool:
    """Whether a class of type `kind`'s MRO defines one of `HOOKS` (`__get__`, `__set__`,
    `__delete__`, `__call__`): a value of that type in a class's namespace runs code as the
    class's instances are used."""
    for klass in _mro(kind):
        space = _ns(klass)
        for name in _hooks:
            if name in space:
                return True
    return False


def _own_functions(
    value: Any,
    _type: Any = type,
    _function: Any = FunctionType,
    _inner: dict[Any, tuple[Any, ...]] = INNER,
    _quiet: frozenset[Any] = QUIET,
    _descriptor: Any = _descriptor,
) -> Any:
    """The Python functions value `value` of a class's namespace runs as the class's instances
    are used: itself (a function), a class or static method's, a property's getter, setter and
    deleter; [] for data (no code of its own run: `None`, a string, a number, a container, the
    slots' and `__dict__`'s C descriptors, `QUIET`); None for anything else that runs code as
    it is used (`_descriptor`: a descriptor or callable of another kind, a class, a wrapper
    holding no Python function), whose code is not read."""
    kind = _type(value)
    if kind is _function:
        return [value]
    if kind in _quiet:
        return []
    if kind not in _inner:
        return None if _descriptor(kind) else []
    held = []
    for get in _inner[kind]:
        function = get(value)
        if function is not None and _type(function) is not _function:
            return None
        held += [] if function is None else [function]
    return held


def _mixin_file(
    klass: Any,
    codes: dict[str, Any],
    walked: dict[str, frozenset[int]],
    compiled: Any,
    _ns: Any = NS,
    _list: Any = list,
    _type: Any = type,
    _str: Any = str,
    _len: Any = len,
    _code: Any = CODE,
    _own_functions: Any = _own_functions,
) -> Any:
    """The file mixin `klass` (kept as `MIXIN`) is judged by, read now from the functions of
    its own namespace (`_own_functions`): the one file each one's code names, where each is
    code that file was compiled to as imported (`compiled`: `unittest_compiled._compiled`, with
    the recorder's `codes` and `walked`). None ("?") where it has no function of its own, where
    they name two files, where one is not its file's, or where a value of its namespace runs
    code that is no Python function (`_own_functions` None). Round 30: app.py's mixin, its
    `__module__` set to "test_app", read as test_app.py's; its `__getattribute__` handed the
    test's body back wrapped, the failure swallowed."""
    files = []
    for value in _list(_ns(klass).values()):
        functions = _own_functions(value)
        if functions is None:
            return None
        for function in functions:
            code = _code(function)
            file = code.co_filename
            if _type(file) is not _str or not compiled(code, file, codes, walked):
                return None
            files += [] if file in files else [file]
    return files[0] if _len(files) == 1 else None


def _news(
    kind: Any,
    _ns: Any = NS,
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
        held = _ns(klass).get(_new)
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
    `TestCase`, or a base's own), and where `builtins.__build_class__` is not the one there as
    this part loaded (`LOADED`: round 32, a `functools.partial` of it passing a metaclass of
    app.py's, C calling C, so that the statement still made it; put back before the test began,
    where the machinery's fingerprints look). Runs none of the project's code but `case`'s own."""
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
        _builtins: dict[str, Any] = BUILTINS,
        _build_class: str = BUILD_CLASS,
        _loaded: Any = LOADED,
        **kwargs: Any,
    ) -> None:
        known = _id(cls) not in _made and _own(cls, _itself, _case)
        known = known and _builtins.get(_build_class) is _loaded
        _made[_id(cls)] = (cls, _statement(_frame(1), cls) if known else None)
        _mixins(cls, _made, _case)
        _original(cls, **kwargs)

    itself.append(init_subclass)
    return init_subclass
