"""What the standard library's value types' comparison reaches (`library.py`'s types: their
classes' dictionaries, the functions found from their comparison dunders and what those read
by name, the classes below an abstract base class among them), held by identity at load,
before any conftest or test module is imported: `_reach`. `library.checker` compares it at
each reading, through the C accessors it shares with this part (`_function_state`,
`_below`).

Copied beside the plugin as `<module>_libreach` and loaded with it, inside the project's own
Python (3.8 or later). It imports the standard library alone.
"""

from __future__ import annotations

import _abc
from types import CellType, FunctionType, ModuleType
from typing import Any

MAX_REACH = 3000  # entries held per type at most: past it the type is not allowlisted
ABSENT = object()  # a name no namespace held at load
# the dunders a comparison may run (`shapes.DECIDERS`'): where what a type reaches starts
COMPARING = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__")


def library_types() -> tuple[Any, ...]:
    """The standard library's value types whose comparison is Python (the module docstring),
    as this process imports them now: the plugin loads this before any of the project's code.
    A type a Python version lacks is left out."""
    import collections
    import fractions
    import ipaddress
    import pathlib
    import uuid

    found = [fractions.Fraction, collections.Counter, uuid.UUID]
    found += [ipaddress.IPv4Address, ipaddress.IPv6Address]
    found += [pathlib.PurePath, pathlib.PurePosixPath, pathlib.PureWindowsPath]
    found += [pathlib.Path, pathlib.PosixPath, pathlib.WindowsPath]
    # the library's own comparison, Python since 3.10: before, `dict`'s (judged in `shapes`)
    return tuple(kind for kind in found if "__eq__" in vars(kind) or kind is not found[1])


def comparison_codes() -> tuple[Any, ...]:
    """The code objects of the comparison dunders (`COMPARING`) the library's types define
    themselves or through their method resolution order, as imported at load (`library_types`):
    the Python frames that may decide a comparison whose operands `shapes.py` read as such a
    type, held here so their identities stay theirs (`operands._decider`)."""
    codes = []
    for kind in library_types():
        for dunder in COMPARING:
            for function in _functions(getattr(kind, dunder, None)):
                codes.append(function.__code__)
    return tuple(codes)


def hash_codes() -> tuple[Any, ...]:
    """The code objects of the standard library's Python `__hash__` that a containment of an
    item whose `==` is `object`'s own runs: `enum.Enum.__hash__` (`hash(self._name_)`; an
    `enum.Flag` member's too), as imported at load, held here so their identities stay theirs.
    Such a hash only says where a set or dict looks: what the containment decides is held
    against what identity decides (`followed._by_identity`), and only there is it excused
    (`operands._decider`)."""
    import enum

    return tuple(f.__code__ for f in _functions(vars(enum.Enum).get("__hash__")))


def _functions(value: Any) -> list[Any]:
    """The Python functions a class dictionary's `value` runs when read or called (a
    function, a classmethod's or staticmethod's, a property's accessors)."""
    inner = [value]
    if isinstance(value, (classmethod, staticmethod)):
        inner = [value.__func__]
    elif isinstance(value, property):
        inner = [value.fget, value.fset, value.fdel]
    return [f for f in inner if type(f) is FunctionType]


def _names(code: Any) -> set[str]:
    """The names `code` and the code objects nested in it read (globals, attributes)."""
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _names(const)
    return names


def _reach(kind: Any) -> tuple[list[tuple[Any, str, Any]], list[Any], list[tuple[Any, ...]]]:
    """What `kind`'s comparison reaches, held at load (the module docstring): the (namespace,
    name, value) entries (a namespace a dict or a class's mappingproxy, `ABSENT` a name it did
    not hold), the functions with (code, defaults, keyword defaults, cell contents), and the
    abstract base classes with what is below them. Every entry of the dictionaries of its
    classes (and their metaclasses') is held; the functions are followed from its comparison
    dunders through the names their code reads (`_read_by`). Raises `OverflowError` past
    `MAX_REACH`."""
    import abc

    classes, entries, work = _start(kind)
    functions: list[Any] = []
    while work:
        function = work.pop()
        if any(function is f for f in functions):
            continue
        functions.append(function)
        read, found = _read_by(function, [vars(c) for c in classes])
        entries += read
        work += found
        if len(entries) > MAX_REACH:
            raise OverflowError(kind)
    towers = [(c, _below(c)) for c in classes if isinstance(c, abc.ABCMeta)]
    return entries, [(f, *_function_state(f)) for f in functions], towers


def _classes(kind: Any) -> list[Any]:
    """`kind`'s method resolution order but `object`, and their metaclasses but `type`."""
    classes = [c for c in kind.__mro__ if c is not object]
    return classes + [type(c) for c in classes if type(c) is not type]


def _start(kind: Any) -> tuple[list[Any], list[tuple[Any, str, Any]], list[Any]]:
    """`kind`'s classes (`_classes`), every entry of their dictionaries, and the Python
    functions of its comparison dunders there."""
    classes = _classes(kind)
    spaces = [vars(c) for c in classes]
    entries = [(space, name, value) for space in spaces for name, value in space.items()]
    work = [f for space in spaces for d in COMPARING if d in space for f in _functions(space[d])]
    return classes, entries, work


def _read_by(function: Any, spaces: list[Any]) -> tuple[list[tuple[Any, str, Any]], list[Any]]:
    """The (namespace, name, value) entries the names `function`'s code reads resolve to (its
    globals, then builtins; the attributes it names of a module or class it reads there or in
    the type's class dictionaries `spaces`), and the Python functions found among them."""
    import builtins

    names = _names(function.__code__)
    found = [space[n] for space in spaces for n in names if n in space]
    entries: list[tuple[Any, str, Any]] = []
    for name in sorted(names):
        held, value = _global(name, (function.__globals__, vars(builtins)))
        entries += held
        found += value
    work: list[Any] = []
    for value in found:
        if isinstance(value, (ModuleType, type)):
            inner = vars(value)
            attributes = sorted(names & set(inner))
            entries += [(inner, a, inner[a]) for a in attributes]
            work += [f for a in attributes for f in _functions(inner[a])]
        work += _functions(value)
    return entries, work


def _global(name: str, spaces: tuple[Any, ...]) -> tuple[list[Any], list[Any]]:
    """The entries looking `name` up through `spaces` in turn (a function's globals, then
    builtins) reads, and the value found ([]: none)."""
    entries = []
    for space in spaces:
        entries.append((space, name, space.get(name, ABSENT)))
        if name in space:
            return entries, [space[name]]
    return entries, []


def _function_state(
    function: Any,
    _code: Any = FunctionType.__dict__["__code__"].__get__,
    _defaults: Any = FunctionType.__dict__["__defaults__"].__get__,
    _kwdefaults: Any = FunctionType.__dict__["__kwdefaults__"].__get__,
    _closure: Any = FunctionType.__dict__["__closure__"].__get__,
    _contents: Any = CellType.__dict__["cell_contents"].__get__,
    _tuple: Any = tuple,
    _absent: Any = ABSENT,
    _empty: Any = ValueError,
) -> tuple[Any, ...]:
    """A function's code, defaults, keyword defaults and cell contents (`ABSENT` for an empty
    cell), as held now, read through `FunctionType`'s and the cell's own descriptors."""
    cells = []
    for cell in _closure(function) or ():
        try:
            cells.append(_contents(cell))
        except _empty:  # an empty cell
            cells.append(_absent)
    return _code(function), _defaults(function), _kwdefaults(function), _tuple(cells)


def _below(
    klass: Any,
    _type: Any = type,
    _id: Any = id,
    _subclasses: Any = type.__subclasses__,
    _dict: Any = type.__dict__["__dict__"].__get__,
    _dump: Any = _abc._get_dump,
    _frozenset: Any = frozenset,
    _set: Any = set,
) -> frozenset[tuple[int, int]]:
    """The classes below the abstract base class `klass` and those registered with it whose
    `issubclass` may run Python (their metaclass no plain `type`), all the way down
    (`isinstance` asks each), as (class, metaclass) identities: read through `type`'s C
    `__subclasses__` and `_abc._get_dump` (the C registry). A class of a plain `type`
    answers `issubclass` in C and is not followed."""
    seen: set[tuple[int, int]] = _set()
    stack = [klass]
    while stack:
        top = stack.pop()
        meta = _type(top)
        if meta is _type or (_id(top), _id(meta)) in seen:
            continue
        seen.add((_id(top), _id(meta)))
        stack += _subclasses(top)
        if "_abc_impl" in _dict(top):
            stack += [ref() for ref in _dump(top)[0] if ref() is not None]
    below: frozenset[tuple[int, int]] = _frozenset(seen)
    return below
