"""The observer's call phase: what a watched test's call did, seen from a profile function
set for that call alone (`fixbot.observe.pytest_plugin`): whether its body was entered and how
each entry left it, the Python comparison dunders that ran and the values the project's code
handed back to the body, each asked about an object it cannot know.

Copied beside the plugin as `<module>_calls` and loaded with it, inside the project's own
Python (3.8 or later). It imports the standard library alone.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from types import (
    BuiltinFunctionType,
    ClassMethodDescriptorType,
    FunctionType,
    MethodDescriptorType,
    MethodType,
    MethodWrapperType,
    ModuleType,
    WrapperDescriptorType,
)
from typing import Any

COMPARISONS = ("__eq__", "__ne__")
# the project instances whose holder is looked for, and the items of a container handed back
# that are asked, per watched test (the values themselves are bounded by `watch.MAX_HANDED`,
# which the profile function keeps and says when it is reached: nothing here is a silent cap
# on what is judged)
MAX_WATCH_TYPES = 20


def settle(handed: list[Any], types: dict[Any, Any], root: str) -> dict[Any, str]:
    """Ask about the values the project's code handed back to a watched test's body, kept by
    the profile function (`watch.watcher`) as `(code that returned, value, its first argument,
    the body's globals)` and asked now, after the call, when no profile function runs (asking
    may run the project's code: a dict subclass's `values`): their comparison slots go into
    `types` (`{(type, dunder): (instance or _SLOT, function)}`); returns, per such key, the
    file of the code that handed the value back (`root`: pytest's rootdir)."""
    given: dict[Any, str] = {}
    seen = {"types": types, "handed": given, "root": root}
    for code, value, callee, namespace in handed:
        _aliased(type(value), types)
        _handed(value, _giver(code, callee, namespace, seen), seen)
    return given


def _giver(code: Any, callee: Any, namespace: Any, seen: dict[str, Any]) -> str:
    """The file of the code `code` that handed a value back to the body (whose globals are
    `namespace`; `callee` the code's first argument): its own,
    but for a method of a library's class (a file outside `seen["root"]`, or an installed
    package's) called on an instance the project made, which counts as the project's where a
    module of the project other than the test module holds it (an `add = MagicMock(...)` of
    `app.py`): the project's object, not the library, answered the body. A matcher the test
    builds itself (a library's class or function it calls) is no such instance."""
    file: str = code.co_filename
    root = seen.get("root", "")
    if not root or _in_project(file, root) or not code.co_argcount:
        return file
    if not _bound_here(callee, code):
        return file
    owners = seen.setdefault("owners", {})
    if id(callee) not in owners and len(owners) < MAX_WATCH_TYPES:  # held: its id is not reused
        owners[id(callee)] = (callee, _holder(callee, root, namespace))
    return owners.get(id(callee), (None, None))[1] or file


def _bound_here(callee: Any, code: Any) -> bool:
    """Whether `code` runs as a method of `callee`, an instance made at run time (not a class,
    function or module a library defines): the method its type finds under the code's name."""
    if isinstance(callee, _NOT_MADE):
        return False
    method = next((vars(k)[code.co_name] for k in _mro(callee) if code.co_name in vars(k)), None)
    return getattr(method, "__code__", None) is code


# what a library defines rather than makes at run time: a class, a function, a module
_NOT_MADE = (type, FunctionType, BuiltinFunctionType, MethodType, ModuleType)


def _mro(value: Any) -> tuple[type, ...]:
    """The classes `type(value)`'s attributes are looked up in, in order."""
    return type(value).__mro__


def _in_project(file: str, root: str) -> bool:
    """Whether `file` is the project's: under `root` and not an installed package's."""
    return file.startswith(root.rstrip("/") + "/") and "-packages/" not in file


def _holder(value: Any, root: str, mine: Any) -> str | None:
    """The file of the first module of the project (`_in_project`), other than the globals
    the test's body runs in (`mine`), whose globals hold `value` itself; None where none does."""
    for module in list(sys.modules.values()):
        namespace = getattr(module, "__dict__", None)
        file = getattr(module, "__file__", None)
        if namespace is mine or not isinstance(file, str) or not _in_project(file, root):
            continue
        if isinstance(namespace, dict) and any(v is value for v in list(namespace.values())):
            return file
    return None


def _handed(value: Any, file: str, seen: dict[str, Any]) -> None:
    """Note the Python `__eq__` of `value`, handed back to a watched test's body by code in
    `file`, and of the items of a list, tuple, set or dict's values it is (one level): the
    comparison may run where no profile function sees it (a C container's `__eq__`)."""
    items = value.values() if isinstance(value, dict) else value
    values = [value, *items][:MAX_WATCH_TYPES] if isinstance(value, _CONTAINERS) else [value]
    types = seen["types"]
    for one in values:
        kind = type(one)
        function = next((vars(k)["__eq__"] for k in kind.__mro__ if "__eq__" in vars(k)), None)
        key = (kind, "__eq__")
        if getattr(function, "__code__", None) is None:
            continue
        types.setdefault(key, (one, function))
        seen["handed"].setdefault(key, file)


_CONTAINERS = (list, tuple, set, frozenset, dict)


def _identity(function: Any) -> tuple[int, int]:
    """The identities of the function a test item calls (unbound) and of the code under its
    decorators, which can be swapped in place (`f.__code__ = ...`)."""
    return id(_outer(function)), id(getattr(_innermost(function), "__code__", None))


def _innermost(function: Any) -> Any:
    """The function under `function`'s decorators (their `__wrapped__`), a method's function."""
    function = getattr(function, "__func__", function)
    for _ in range(100):
        inner = getattr(function, "__wrapped__", None)
        if inner is None or getattr(inner, "__code__", None) is None:
            break
        function = inner
    return function


def _outer(function: Any) -> Any:
    """The function a test item calls, unbound (a method's `__func__`), as it stands."""
    return getattr(function, "__func__", function)


def _globals_read(function: Any) -> dict[str, int]:
    """The identities of the module globals that `function`'s code, and the code nested in it
    (comprehensions, lambdas), reads, by name ({} for what has no Python code)."""
    namespace = getattr(function, "__globals__", None)
    code = getattr(function, "__code__", None)
    if not isinstance(namespace, dict) or code is None:
        return {}
    names: set[str] = set()
    stack = [code]
    while stack and len(names) < 200:
        current = stack.pop()
        names.update(current.co_names)
        stack.extend(c for c in current.co_consts if hasattr(c, "co_names"))
    return {name: id(namespace[name]) for name in names if name in namespace}


_SLOT = object()  # marks a comparison slot noted by `_aliased` (no instance was seen)


_MRO = type.__dict__["__mro__"].__get__  # a class's method resolution order, as C keeps it
_DICT = type.__dict__["__dict__"].__get__  # a class's own dictionary, as C keeps it


def _aliased(kind: type, types: dict[Any, Any]) -> None:
    """Note a comparison slot of `kind` that is neither a Python function (which the profile
    function sees run) nor a method implemented in C under its own name: a C method of another
    name (`__eq__ = int.__le__`), a `functools.partial`, a `staticmethod` (whose function is
    called without the instance the profile function looks for). The value handed to a
    watched test's body is asked instead."""
    for dunder in COMPARISONS:
        for klass in _MRO(kind):  # `type`'s own accessors: no metaclass property answers
            if dunder in _DICT(klass):
                slot = _DICT(klass)[dunder]
                named = getattr(slot, "__name__", dunder)
                native = getattr(slot, "__code__", None) is None and slot is not None
                other = named != dunder or not isinstance(slot, _C_METHODS)
                if native and other:
                    types.setdefault((kind, dunder), (_SLOT, slot))
                break


MAX_MADE = 20000  # classes walked at most at the end of a watched call


def made(types: dict[Any, Any], root: str) -> tuple[set[Any], bool]:
    """Note, as `_aliased` does, the comparison slots no profile function sees run of every
    class the project's code made (its module's file under `root`, pytest's rootdir, and not an
    installed package's), walked from `object`'s subclasses at the end of a watched call: a
    value made by C (a `complex` subclass the test calls as `add`) is handed back by no Python
    frame, and its `functools.partial` `__eq__` runs none. Returns the keys it added to `types`
    (their records say `made`: fixbot counts them for the fix's files alone), and whether it
    stopped at `MAX_MADE` classes (the rest unseen: said, as a table full is)."""
    added: set[Any] = set()
    stack = list(type.__subclasses__(object))
    walked: set[int] = set()
    while stack and len(walked) < MAX_MADE:
        kind = stack.pop()
        if id(kind) in walked:
            continue
        walked.add(id(kind))
        try:
            stack += type.__subclasses__(kind)
        except TypeError:  # a class whose subclasses `type` cannot list
            continue
        name = _DICT(kind).get("__module__")
        module = sys.modules.get(name) if isinstance(name, str) else None
        file = getattr(module, "__file__", None)
        if isinstance(file, str) and _in_project(file, root):
            before = set(types)
            _aliased(kind, types)
            added |= set(types) - before
    return added, bool(stack)


# a method implemented in C, as a class's dictionary holds it (`int.__eq__`, `str.lower`)
_C_METHODS = (
    WrapperDescriptorType,
    MethodDescriptorType,
    BuiltinFunctionType,
    MethodWrapperType,
    ClassMethodDescriptorType,
)


def _slot(test: str, kind: type, dunder: str, slot: Any, root: str) -> dict[str, Any]:
    """The record of a comparison slot that is another method (`_aliased`): where its class is
    defined, and which method stands as it."""
    module = sys.modules.get(getattr(kind, "__module__", ""))
    file = getattr(module, "__file__", None) or "<" + str(getattr(kind, "__module__", "?")) + ">"
    record = _eq_record(test, kind, dunder, file, 0, None, root)
    record["aliased"] = (
        getattr(slot, "__qualname__", "?")
        if isinstance(slot, _C_METHODS)
        else " ".join(["a", type(slot).__qualname__, *_qualname(slot)])
    )
    return record


def _eq_record(
    test: str, kind: type, dunder: str, file: str, line: int, always: Any, root: str
) -> dict[str, Any]:
    """The `eq` record of a comparison dunder of `kind` a watched test ran, its code in `file`
    at `line`; `built` where no such file exists (code compiled from a string: `<string>`, or a
    made-up name)."""
    name = getattr(kind, "__module__", "?") + "." + getattr(kind, "__qualname__", "?")
    return {
        "k": "eq",
        "id": test,
        "type": name,
        "dunder": dunder,
        "file": _relative(file, root),
        "line": line,
        "always": always,
        "built": not os.path.isfile(file),
    }


def _qualname(value: Any) -> list[str]:
    """`value`'s own qualified name, as a one-item list, or [] where it has none."""
    name = getattr(value, "__qualname__", None)
    return [name] if isinstance(name, str) else []


def _relative(name: str, root: str) -> str:
    """A plugin's name with the rootdir taken off (a conftest is named by its path)."""
    prefix = root.rstrip("/") + "/"
    return name[len(prefix) :] if name.startswith(prefix) else name


class _Stranger:
    """An object no project type can know: equal to nothing but itself."""

    __hash__ = object.__hash__


def _probe(
    test: str, kind: type, dunder: str, instance: Any, function: Any, root: str
) -> dict[str, Any]:
    """The record of one comparison dunder a watched test ran: where it is defined and whether
    it holds against a stranger (`__eq__` true, `__ne__` false: it cannot tell anything apart)."""
    code = function.__code__
    always: bool | None = None
    if dunder in COMPARISONS:
        try:
            said = function(instance, _Stranger())
            if said is not NotImplemented:
                always = bool(said) if dunder == "__eq__" else not bool(said)
            always = always or _bends(instance, function, dunder)
        except Exception:  # the probe is a question; a dunder that raises answered it
            always = False
    return _eq_record(test, kind, dunder, code.co_filename, code.co_firstlineno, always, root)


# A built-in base type, and a value of it that its own `==` says differs from an instance
# (made with the base's own C methods, which a subclass's dunders do not reach).
_BASES: tuple[tuple[type, Callable[[Any], Any]], ...] = (
    (bool, lambda v: None),
    (int, lambda v: int.__add__(v, 1)),
    (float, lambda v: float.__add__(v, 1.0)),
    (str, lambda v: str.__add__(v, "\x00")),
    (bytes, lambda v: bytes.__add__(v, b"\x00")),
    (tuple, lambda v: tuple.__add__(v, (_Stranger(),))),
    (list, lambda v: list.__add__(v, [_Stranger()])),
    (frozenset, lambda v: frozenset.__or__(v, {_Stranger()})),
    (set, lambda v: set.__or__(v, {_Stranger()})),
    (dict, lambda v: {**dict.copy(v), _Stranger(): 0}),
)


def _bends(instance: Any, function: Any, dunder: str) -> bool:
    """Whether a comparison dunder of a subclass of a built-in type says equal (`__ne__`: not
    unequal) to a value of that base type which the base's own `==` says differs from the
    instance: equal to every int, not only to the one the test expects. Raises what the
    dunder raises."""
    for base, make in _BASES:
        if isinstance(instance, base):
            other = make(instance)
            if other is None or base.__eq__(instance, other) is not False:  # type: ignore[call-arg]
                return False
            said = function(instance, other)
            if said is NotImplemented:
                return False
            return bool(said) if dunder == "__eq__" else not bool(said)
    return False


# A value of a type and two of its neighbours that its own `==` tells apart from it.
_NEIGHBOURS: dict[type, Callable[[Any], tuple[Any, ...]]] = {
    int: lambda v: (v - 1, v + 1),
    float: lambda v: (v - abs(v) * 1e-3 - 1e-3, v + abs(v) * 1e-3 + 1e-3),
}


def _tolerates(instance: Any, function: Any, other: Any) -> bool:
    """Whether the `__eq__` `function` of `instance` says equal to `other` (an int or a float
    the test compared it with) and to one of its neighbours too (`n` and `n + 1`; `x` and
    `x` moved by a thousandth of itself and a thousandth): a tolerance, no single value
    (`pytest.approx(4, abs=1)`). False for what it raises or answers NotImplemented."""
    near = _NEIGHBOURS.get(type(other))
    if near is None:
        return False
    try:
        if not _says_equal(function(instance, other)):
            return False
        return any(_says_equal(function(instance, v)) for v in near(other))
    except Exception:  # the probe is a question; a dunder that raises answered it
        return False


def _again(instance: Any, function: Any, other: Any) -> bool | None:
    """What the comparison dunder `function` of `instance` answers about `other` now, after
    the call, where a bool (None: anything else, or it raised)."""
    try:
        said = function(instance, other)
    except Exception:  # the question is the observer's; a dunder that raises answered it
        return None
    return said if type(said) is bool else None


def _says_equal(said: Any) -> bool:
    """Whether a comparison's answer says equal (NotImplemented does not)."""
    return said is not NotImplemented and bool(said)
