"""The comparison `assertEqual` is about to make, judged as the pytest observer judges the
comparison dunders a watched test's call ran (`calls._probe`): each operand's `__eq__` (the
dunder `first == second` asks, `unittest.case.TestCase._baseAssertEqual`'s `if not first ==
second`) that a class made at run time stands first in its MRO, whatever it is (a Python
function, a `functools.partial`, a C function, another slot's wrapper such as `int.__le__`, a
descriptor), is asked through the comparison itself (`value == question`, Python's own
dispatch, as the test's `==` asks it): first the neighbours of the test's other operand (an
int, a float or a str: a question like the test's, asked of a value of any type), then the
value's own neighbours, then a stranger, each only where the built-in base's own `==` says it
differs; and streamed as an `eq` record
(`{"k": "eq", "id": test.id(), "type": ..., "dunder": "__eq__", "file": ..., "line": n,
"always": bool, "built": bool}`, or `"aliased"`: `UNSURE` where a class's dictionary holds a key
that is no str before a built-in's own `__eq__`, which a lookup could run: not judged, a
finding), which fixbot judges as pytest's (`fixbot.observe.compared`: `observer-always-equal`
where the type's code is the fix's or built at run time). Round 37: an `int` subclass whose
`__eq__` returns `int(self) == int(self)`, handed back by `add`, passed round 20's
`assertEqual(add(2, 2), 4)` (the text rule reads a literal `True` alone); round 38: a
partial, a slot wrapper, a key that is no str, an `__eq__` answering the probe's stranger and
its next question honestly, one reading its caller's frame, each unprobed.

Copied beside the unittest observer as `<module>_unittest_equal` and imported by its
machinery (`unittest_asserter._asserter`, whose `_getAssertEqualityFunc` is what `assertEqual`
calls with both operands first); the stranger and the record are the pytest plugin's
`calls.py`'s, copied beside it as `<module>_calls` (the standard library alone). Types are read
through `type`'s own C accessors (`__mro__`, `__dict__`, `__flags__`) and their dictionaries
through their C `items` (no key's code run); a library's class (`mock.ANY`, `pytest.approx`)
is not asked: one a loaded module of the interpreter's library folders (sysconfig's) holds by
identity under its qualified name, its `__eq__`'s code naming a library's file too (`_made`,
`_place`: round 40, a code's `co_filename` and a class's `__module__` are the project's to
rewrite); another is named by its module's file, else `UNPLACED` (built, to fixbot's
judge). Every test's `assertEqual` is probed (the unittest observer watches none: fixbot keeps
the watched tests' records), once per test, type and what stands as `__eq__`, `MAX_PROBED` at
most a process.

Where both operands share a numeric built-in base (`SCALARS`: int, float) whose own
`==` says they differ, which `assertEqual` is about to hold equal, the record is `always` with
no question asked, a library's class too (`_bent`, `aliased`: `BENT`): an `__eq__` that
reads its caller's frame (`sys._getframe(1)`, unaudited) to answer the observer's questions
honestly is still named (round 38 [told by its frame]).

Limits: the questions are asked before the test's comparison, from the observer's own
function: where the operands share no numeric base (a plain class, a str subclass), an
`__eq__` that reads its caller's frame or counts its questions past the probe's answers them
as its base's; a plain class the project plants in a library module's namespace, under its
name and with its code's file renamed, is taken as the library's (`_made` reads the modules
as they stand at the check); `assertNotEqual` (`if not first != second`, no dispatch the
observer holds), a type's own `assertEqual` kin (`assertListEqual`'s items), `assertTrue(x ==
y)`, `assertIn`, `assertAlmostEqual`'s own `==` and `==` written elsewhere (a helper's `first
!= second`) are not probed here: a value the code hands back to the test's code is, by
`unittest_seen.py` (its `__eq__` and `__ne__` asked through this module's `_comparer`, whatever
then compares it).
"""

from __future__ import annotations

import importlib
import operator
import os
import sys
import sysconfig
from types import FunctionType, MappingProxyType, ModuleType

# nothing more is imported: `typing` for the checker alone
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _sibling(name: str) -> Any:
    """The observer's part `name`, copied beside this one (`<module>_<name>`, this module being
    `<module>_unittest_equal`), or `fixbot.observe.<name>` where imported from fixbot's
    package."""
    package, _, module = __name__.rpartition(".")
    return importlib.import_module(
        f"{package}.{name}" if package else module[: -len("unittest_equal")] + name
    )


calls = _sibling("calls")  # `_Stranger`, `_eq_record`: the pytest observer's probe's parts
DUNDERS = ("__eq__",)  # what `first == second` asks of either operand
MAX_PROBED = 1_000  # (test, type, function) probed a process, at most
HEAP = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made at run time
UNSURE = "not judged: a class whose dictionary holds a key that is no str"  # `aliased`'s words
# a value of a built-in base its own `==` tells apart from `v` (`calls._BASES`'s, int and float
# first: the test's other operand's neighbours are asked of them, `_questions`)
# numeric built-in bases whose own `==` runs no code of an item's (str and bytes left out: a
# project's case-insensitive str is an honest class its own `==` tells apart)
SCALARS = (int, float)
BENT = "asked of values its built-in base's own == tells apart (%s's)"  # `aliased`'s words
NEIGHBOURS: tuple[tuple[Any, Any], ...] = ((int, lambda v: (int.__sub__(v, 1), int.__add__(v, 1))),)
NEIGHBOURS += ((float, lambda v: (float.__sub__(v, 1.0), float.__add__(v, 1.0))),)
# a str's neighbours ("x": "x\\0" and "y"), through str's own methods (no subclass's code run)
NEIGHBOURS += ((str, lambda v: (str.__add__(v, "\0"), _next(v))),)
LIBRARY_PATHS = ("stdlib", "platstdlib", "purelib", "platlib")  # sysconfig's library folders
UNPLACED = "<unplaced %s>"  # a class no loaded module holds: what its code or module says


def _next(v: str, _len: Any = str.__len__, _item: Any = str.__getitem__) -> str:
    """`v`, its last character the next one (`"x"` -> `"y"`), `"\\1"` for `""`."""
    if not _len(v):
        return "\1"
    return str.__add__(_item(v, slice(0, -1)), chr((ord(_item(v, -1)) + 1) % 0x110000))


def _member(
    members: Any,
    name: str,
    _type: Any = type,
    _str: Any = str,
    _eq: Any = str.__eq__,
    _dict: Any = dict,
    _items: tuple[Any, Any] = (dict.items, MappingProxyType.items),
) -> tuple[bool, Any, bool]:
    """`(found, value, odd)`: whether the class dictionary `members` (a `type.__dict__`
    mappingproxy's dict, read with `dict.items`: no key's `__eq__` or `__hash__` run) holds
    the exact str `name`, what it holds, and whether any key is no exact str (a lookup in it
    may run that key's code, and find what no scan of exact keys finds)."""
    found, value, odd = False, None, False
    for key, held in _items[_type(members) is not _dict](members):
        if _type(key) is not _str:
            odd = True
        elif not found and _eq(key, name):
            found, value = True, held
    return found, value, odd


def _read(members: Any, dunder: str, heap: int, _member: Any = _member) -> tuple[bool, Any, bool]:
    """`_member`'s `(found, value, odd)` for a class's dictionary `members`; a built-in's
    (`heap` 0: exact str keys alone) is read by its key, as it is."""
    if heap:
        found: tuple[bool, Any, bool] = _member(members, dunder)
        return found
    return (True, members[dunder], False) if dunder in members else (False, None, False)


def _deciding(
    value: Any,
    dunder: str,
    _type: Any = type,
    _flags: Any = type.__dict__["__flags__"].__get__,
    _mro: Any = type.__dict__["__mro__"].__get__,
    _dict: Any = type.__dict__["__dict__"].__get__,
    _heap: int = HEAP,
    _read: Any = _read,
) -> tuple[Any, Any] | None:
    """`(owner, found)` for `dunder` of `value`'s type, where a class made at run time (a
    heap type) stands it first in the MRO, whatever it is (a Python function, a partial, a C
    function, another slot's wrapper, a descriptor): `owner` that class, `found` what its
    dictionary holds (the comparison itself is asked: what a key that is no exact str might
    stand before it runs as the comparison would); `(None, None)` where a built-in's own
    stands but a heap class's dictionary holds a key that is no exact str (a lookup in it may
    run that key's code and find another: the class cannot be judged by reading it); None
    where a built-in's own stands and nothing can stand before it (nothing to ask). Types are
    read through `type`'s own C accessors; nothing of the value's is run."""
    odd = False
    kind = _type(value)
    if not _flags(kind) & _heap:
        return None  # a built-in's value: no class made at run time in its MRO
    for klass in _mro(kind):
        heap = _flags(klass) & _heap
        found, held, strange = _read(_dict(klass), dunder, heap)
        odd = odd or (strange and bool(heap))
        if found:
            return (klass, held) if heap else ((None, None) if odd else None)
    return (None, None) if odd else None


def _where(
    kind: Any,
    owner: Any,
    found: Any,
    _type: Any = type,
    _str: Any = str,
    _function: Any = FunctionType,
    _code: Any = FunctionType.__dict__["__code__"].__get__,
    _dict: Any = type.__dict__["__dict__"].__get__,
    _member: Any = _member,
    _modules: Any = sys.modules,
    _module: Any = ModuleType,
    _vars: Any = vars,
) -> tuple[str, int]:
    """`(file, line)` of the `__eq__` `found` in `owner` (`kind`, the operand's type, where
    `owner` is None): a Python function's code's own, else the file of the module the class
    names (`__module__`, read from its dictionary), line 0; `<module>` where it has none."""
    if _type(found) is _function:
        code = _code(found)
        return code.co_filename, code.co_firstlineno
    module = _member(_dict(owner if owner is not None else kind), "__module__")[1]
    if _type(module) is not _str:
        return "<?>", 0
    loaded = _modules.get(module)
    file: Any = _member(_vars(loaded), "__file__")[1] if _type(loaded) is _module else None
    return (file, 0) if _type(file) is _str else ("<" + module + ">", 0)


def _questions(
    value: Any,
    other: Any,
    _type: Any = type,
    _mro: Any = type.__dict__["__mro__"].__get__,
    _neighbours: tuple[Any, ...] = NEIGHBOURS,
    _stranger: Any = calls._Stranger,
) -> list[Any]:
    """What `value`'s comparison is asked, in order: first the neighbours of the test's own
    other operand `other` (an exact int or float: the first question is like the test's, so a
    `__eq__` that tells the probe's questions from the test's has nothing to tell them by),
    then `value`'s own neighbours where its base is int or float, then a stranger; each asked
    only where the base's own `==` says it differs from `value` (a stranger always)."""
    asked: list[Any] = []
    mro = _mro(_type(value))
    for base, near in _neighbours:
        mine = base in mro
        for seed in (other, value):
            if _type(seed) is base or (mine and seed is value):
                asked += [
                    n
                    for n in near(seed)
                    if base.__eq__(seed, n) is False
                    and (not mine or base.__eq__(value, n) is False)
                ]
    return [*asked, _stranger()]


def _made(
    klass: Any,
    _dict: Any = type.__dict__["__dict__"].__get__,
    _qualname: Any = type.__dict__["__qualname__"].__get__,
    _member: Any = _member,
    _modules: Any = sys.modules,
    _module: Any = ModuleType,
    _type: Any = type,
    _str: Any = str,
    _vars: Any = vars,
) -> str | None:
    """The file of the loaded module holding `klass` itself (by identity) under its qualified
    name (`__module__` from its dictionary, `__qualname__` through `type`'s C accessor, each
    level through `_member`), or None: where the class was made, as the modules show."""
    module = _member(_dict(klass), "__module__")[1]
    loaded = _modules.get(module) if _type(module) is _str else None
    if _type(loaded) is not _module:
        return None
    names = _vars(loaded)
    file = _member(names, "__file__")[1]
    held: Any = loaded
    for part in _str.split(_qualname(klass), "."):
        held = _member(names, part)[1]
        if not issubclass(_type(held), _type):  # C's check: no `__class__` of the project's read
            return None
        names = _dict(held)
    return file if held is klass and _type(file) is _str else None


LIBRARY, OURS, ELSEWHERE = "library", "ours", "elsewhere"  # `_kind`'s answers


def _kind(file: Any, root: str, folders: tuple[str, ...], known: dict[str, str]) -> str:
    """`LIBRARY` where `file` (a str) resolves under a library folder of `folders` outside
    the work tree's `root`, `OURS` under `root` or where no such file exists (built at run
    time), else `ELSEWHERE`; kept in `known` for an exact str (no subclass's `__hash__` run)."""
    exact = type(file) is str
    if exact and file in known:
        return known[file]
    real = os.path.realpath(file)
    kind = OURS if real.startswith(root) or not os.path.isfile(real) else ELSEWHERE
    kind = LIBRARY if kind == ELSEWHERE and any(real.startswith(f) for f in folders) else kind
    if exact:
        known[file] = kind
    return kind


def _place(
    kind: Any, owner: Any, found: Any, root: str, folders: tuple[str, ...], known: dict[str, str]
) -> tuple[str, int, bool]:
    """`(file, line, library)` of the `__eq__` `found` in `owner` (`kind`'s where None): a
    library's where the file of the module holding the class (`_made`) and the one its code or
    module names (`_where`) are both a library's; else that named one where it is `OURS`, else
    the holder's, else `UNPLACED` (built to fixbot's judge). `known`: `_kind`'s answers."""
    made = _made(owner if owner is not None else kind)
    said, line = _where(kind, owner, found)
    where = _kind(said, root, folders, known)
    if made is not None and where == LIBRARY == _kind(made, root, folders, known):
        return said, line, True
    if where == OURS:
        return said, line, False
    return (made, 0, False) if made is not None else (UNPLACED % said, 0, False)


def _bent(
    value: Any,
    other: Any,
    _type: Any = type,
    _mro: Any = type.__dict__["__mro__"].__get__,
    _bases: tuple[Any, ...] = SCALARS,
) -> str | None:
    """The name of the built-in base (`SCALARS`: compared in C, no item's code run) both
    `value`'s and `other`'s types hold whose own `==` says they differ, or None: the test is
    about to assert them equal, and only `value`'s own `__eq__` can make it pass. Runs none of
    the project's code (no frame of the project's sees it asked)."""
    for base in _bases:
        if base in _mro(_type(value)) and base in _mro(_type(other)):
            return (
                _type.__getattribute__(base, "__name__")
                if base.__eq__(value, other) is False
                else None
            )
    return None


ASK = {"__eq__": (operator.eq, True), "__ne__": (operator.ne, False)}  # the op, its "equal"


def _asked(
    value: Any,
    other: Any,
    dunder: str = "__eq__",
    _ask: dict[str, Any] = ASK,
    _bool: Any = bool,
    _questions: Any = _questions,
) -> bool:
    """Whether the comparison itself (`value == q`, or `value != q` for `__ne__`: Python's own
    dispatch, the slot calls the dunder as `first == second` does, bound or not) says equal
    (`__ne__`: not unequal) to any of `_questions`; a question it raises at is answered (no)."""
    op, equal = _ask[dunder]
    for question in _questions(value, other):
        try:
            if _bool(op(value, question)) is equal:
                return True
        except Exception:  # the probe is a question; a comparison that raises answered it
            continue
    return False


def _comparer(root: str, dunders: tuple[str, ...] = DUNDERS) -> Any:
    """`compared(test, first, second)`: the `eq` records of the comparison `assertEqual` is
    about to make between `first` and `second` for `test` (a `TestCase`), each operand's
    `dunders` (`DUNDERS`; `unittest_seen`'s: `__ne__` too) asked once per test, type and what
    stands as it (`root`: the work tree's, files named relative to it). A record is `always`
    where the comparison said equal to a value its built-in base tells apart or to a stranger
    (`_asked`), `aliased` (`UNSURE`: a finding) where the class could not be read
    (`_deciding`)."""
    probed: dict[Any, Any] = {}  # (test, type's id, function's id) -> the two, kept alive
    paths = sysconfig.get_paths()  # the interpreter's library folders, resolved
    folders = tuple(os.path.join(os.path.realpath(paths[k]), "") for k in LIBRARY_PATHS)
    known: dict[str, str] = {}  # `_kind`'s answers, by file: each resolved once

    def compared(
        test: Any,
        first: Any,
        second: Any,
        _root: str = root,
        _probed: dict[Any, Any] = probed,
        _deciding: Any = _deciding,
        _place: Any = _place,
        _folders: tuple[str, ...] = folders,
        _known: dict[str, str] = known,
        _asked: Any = _asked,
        _bent: Any = _bent,
        _bent_words: str = BENT,
        _record: Any = calls._eq_record,
        _dunders: tuple[str, ...] = dunders,
        _unsure: str = UNSURE,
        _type: Any = type,
        _id: Any = id,
        _str: Any = str,
        _len: Any = len,
        _most: int = MAX_PROBED,
    ) -> list[Any]:
        records: list[Any] = []
        name = None
        for value, other in ((first, second), (second, first)):
            for dunder in _dunders:
                standing = _deciding(value, dunder)
                if standing is None or _len(_probed) >= _most:
                    continue
                owner, found = standing
                kind = _type(value)
                file, line, library = _place(kind, owner, found, _root, _folders, _known)
                bent = _bent(value, other) if owner is not None else None
                if library and bent is None:
                    continue  # a library's (`mock.ANY`), by where its class was made
                if name is None:
                    try:
                        name = _str(test.id())
                    except Exception:
                        name = _str(_type(test).__name__)
                key = (name, _id(kind), _id(found), bent is None)  # ids: no `__hash__` run
                if key in _probed:
                    continue
                _probed[key] = (kind, found)
                record = _record(name, kind, dunder, file, line, None, _root)
                if owner is None:
                    record["aliased"] = _unsure
                elif bent is not None:
                    record["aliased"], record["always"] = _bent_words % bent, True
                else:
                    record["always"] = _asked(value, other, dunder)
                records.append(record)
        return records

    return compared
