"""Which names each instruction of a code binds or unbinds (a part of `unstored`, which holds
a frame's locals, and a class body's namespace, from one event to the next, and allows a change
of a name only where the instruction that ran stores it): `stores(code)`, `{offset: names}`, read
from the code's own instructions (`bytecode.instructions`) and keyed too by the offsets of their
`EXTENDED_ARG` prefixes. For a function's code (`CO_OPTIMIZED`) the locals and cell variables
its `STORE_FAST`, `DELETE_FAST`, `LOAD_FAST_AND_CLEAR`, 3.13's paired stores, the cell
instructions and `COPY_FREE_VARS` bind (`_names`); for a class body's, the keys of its namespace
its `STORE_NAME`/`DELETE_NAME` and `SETUP_ANNOTATIONS` bind, and `EVERY` (any key) at a
subscript's store or delete, an `import *`, and a call only in a body that spells `locals`,
`vars` or `f_locals`, the outermost call of a line reading one (`_spaced`, `_spelling_calls`).
`readable(code)`: whether a class body's frame hands back its namespace as its `f_locals` with
nothing run (no cell and no fast variable before 3.13; always on 3.13 and later, PEP 667).

Copied beside the plugin as `<module>_storing` and loaded with it, inside the project's own
Python (3.8 or later). It imports the standard library and the observer's `bytecode` and
`closures` parts alone; what its functions use is held as positional defaults, made once at
load (the code under test shares the process and can reach a closure cell).
"""

from __future__ import annotations

import importlib
import sys
from typing import Any


def _sibling(name: str) -> Any:
    """The observer's part `name`, copied beside this one (`<module>_<name>`, this module being
    `<module>_storing`), or `fixbot.observe.<name>` where imported from fixbot's package."""
    package, _, module = __name__.rpartition(".")
    return importlib.import_module(
        f"{package}.{name}" if package else module.rsplit("_", 1)[0] + "_" + name
    )


bytecode = _sibling("bytecode")  # the code's instructions, read without `dis`
closures = _sibling("closures")  # `REBINDING`: the cell instructions; `GONE`, in `EVERY`

# the instructions that bind or unbind a local of their frame (3.8 to 3.13; 3.12's inlined
# comprehensions clear theirs with `LOAD_FAST_AND_CLEAR`; 3.13 pairs two in one), or a cell
# variable (`MAKE_CELL`, 3.11 and later, makes a local's cell, empty or holding its value)
ONE = frozenset({"STORE_FAST", "DELETE_FAST", "LOAD_FAST_AND_CLEAR"})
CELLS = closures.REBINDING | {"MAKE_CELL"}
TWO = frozenset({"STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST"})
# a code whose locals are fast locals (`CO_OPTIMIZED`): a function's; a class body's (or a
# module's, an `exec`'s) are its namespace, stored by `STORE_NAME` and readable only through that
# mapping's own methods (a metaclass's `__prepare__` may make it the project's): not held
OPTIMIZED = 0x0001
# where a class body's `f_locals` is its namespace at any read, with no refresh (PEP 667)
MAPPING_ITSELF = sys.version_info >= (3, 13)
# the instructions of a class body that bind or unbind a key of its namespace, beyond
# `STORE_NAME`/`DELETE_NAME` (their name) and `SETUP_ANNOTATIONS` (`__annotations__`): a
# subscript's store or delete (`locals()[k] = v`; its target unread: any name), an `import *`
SUBSCRIPTS = frozenset({"STORE_SUBSCR", "DELETE_SUBSCR", "IMPORT_STAR"})
# the instructions that make a call (3.8 to 3.13), each allowing any change in a class body that
# spells one of `SPELLED` (its namespace reached by name: `locals().update(...)`) where it is the
# outermost of a line reading one (`_spelling_calls`), none elsewhere
CALLS = frozenset(
    {
        "CALL",
        "CALL_KW",
        "PRECALL",
        "CALL_FUNCTION",
        "CALL_FUNCTION_KW",
        "CALL_FUNCTION_EX",
        "CALL_METHOD",
    }
)
SPELLED = frozenset({"locals", "vars", "f_locals"})
# what `_spaced` allows at an instruction that may bind any key (held by identity)
EVERY: frozenset[Any] = frozenset({closures.GONE})


def _names(
    code: Any,
    name: str,
    arg: Any,
    _local: Any = bytecode._local,
    _one: frozenset[str] = ONE,
    _cells: frozenset[str] = CELLS,
    _two: frozenset[str] = TWO,
) -> tuple[str, ...]:
    """The locals or cell variables the instruction `name` (its `argval` as
    `bytecode.instructions` gives it: the name for `LOAD_FAST_AND_CLEAR`, both for
    `STORE_FAST_LOAD_FAST`, else the raw argument) of `code` binds or unbinds; every free
    variable for `COPY_FREE_VARS` (3.11 and later: the closure's cells copied in); none for an
    instruction of neither `ONE`, `CELLS` nor `TWO`."""
    if name in _cells:
        return (_local(code, name, arg),)
    if name == "COPY_FREE_VARS":
        return code.co_freevars  # type: ignore[no-any-return]
    if name in _one:
        return (arg,) if name == "LOAD_FAST_AND_CLEAR" else (_local(code, "LOAD_FAST", arg),)
    if name not in _two:
        return ()
    if name == "STORE_FAST_LOAD_FAST":  # the first is stored, the second loaded
        return (arg[0],)
    return (code._varname_from_oparg(arg >> 4), code._varname_from_oparg(arg & 15))


def _spaced(
    code: Any,
    name: str,
    arg: Any,
    _subscripts: frozenset[str] = SUBSCRIPTS,
    _calls: frozenset[str] = CALLS,
    _spelled: frozenset[str] = SPELLED,
    _every: frozenset[Any] = EVERY,
) -> Any:
    """The keys of a class body's namespace the instruction `name` (raw argument `arg`) of its
    `code` binds or unbinds: a tuple of names, `EVERY` where it may bind any (`SUBSCRIPTS`;
    a call, `CALLS`, where the body spells one of `SPELLED`), `()` for none."""
    if name == "STORE_NAME" or name == "DELETE_NAME":
        return (code.co_names[arg],)
    if name == "SETUP_ANNOTATIONS":
        return ("__annotations__",)
    if name in _subscripts or (name in _calls and not _spelled.isdisjoint(code.co_names)):
        return _every
    return ()


ATTR_SHIFT = 1 if sys.version_info >= (3, 12) else 0
# the instructions that read a name a body may spell (`locals`, `vars`; `f_locals`, an attribute)
READS = frozenset({"LOAD_NAME", "LOAD_GLOBAL", "LOAD_ATTR", "LOAD_METHOD"})


def _read_name(code: Any, name: str, arg: Any, _shift: int = ATTR_SHIFT) -> Any:
    """The name the instruction `name` of `READS` (its argument `arg` as
    `bytecode.instructions` gives it: resolved for the loads of a name, raw for an attribute)
    reads."""
    if name == "LOAD_NAME" or name == "LOAD_GLOBAL":
        return arg
    return code.co_names[arg >> _shift if name == "LOAD_ATTR" else arg]


def _lined(
    code: Any,
    _instructions: Any = bytecode.instructions,
    _starts: Any = bytecode.line_starts,
    _iter: Any = iter,
    _next: Any = next,
) -> list[tuple[int, int, str, Any]]:
    """`[(line, offset, opname, argval)]`: `bytecode.instructions(code)`, each with its line."""
    starts = _iter(_starts(code))
    upcoming = _next(starts, None)
    line = 0
    found: list[tuple[int, int, str, Any]] = []
    for offset, name, arg in _instructions(code):
        while upcoming is not None and upcoming[0] <= offset:
            line, upcoming = upcoming[1], _next(starts, None)
        found.append((line, offset, name, arg))
    return found


def _called(mine: list[int], offset: int, name: str) -> None:
    """A line's last call so far (`mine`, its offsets, -1 after a `PRECALL`'s) made the call
    `name` at `offset` (3.11's `CALL` after its `PRECALL` joins it)."""
    if not (mine and name == "CALL" and mine[-1] == -1):
        mine.clear()
    mine += [offset, -1] if name == "PRECALL" else [offset]


def _spelling_calls(
    code: Any,
    _lined: Any = _lined,
    _calls: frozenset[str] = CALLS,
    _reads: frozenset[str] = READS,
    _spelled: frozenset[str] = SPELLED,
    _read_name: Any = _read_name,
    _called: Any = _called,
    _frozenset: Any = frozenset,
) -> frozenset[int]:
    """The offsets of the last call (and 3.11's `PRECALL` before it) of each line of `code`
    that reads `locals`, `vars` or `f_locals`: the outermost call of `locals().update(...)`,
    after the calls its arguments make."""
    last: dict[int, list[int]] = {}  # line -> the offsets of its last call (-1: a `PRECALL`'s)
    spelling: list[int] = []
    for line, offset, name, arg in _lined(code):
        if name in _calls:
            _called(last.setdefault(line, []), offset, name)
        elif name in _reads and _read_name(code, name, arg) in _spelled:
            spelling.append(line)
    return _frozenset(at for one in spelling for at in last.get(one, ()) if at >= 0)  # type: ignore[no-any-return]


def stores(
    code: Any,
    _instructions: Any = bytecode.instructions,
    _names: Any = _names,
    _spaced: Any = _spaced,
    _frozenset: Any = frozenset,
    _optimized: int = OPTIMIZED,
    _every: frozenset[Any] = EVERY,
    _spelling: Any = _spelling_calls,
    _calls: frozenset[str] = CALLS,
) -> dict[int, frozenset[str]]:
    """`{offset: names}`: the locals the instruction at `offset` of `code` binds or unbinds
    (`_names`; for a code without `CO_OPTIMIZED`, a class body's, the keys of its namespace,
    `_spaced`, `EVERY` where any), keyed too by the offsets of its `EXTENDED_ARG` prefixes
    (where its `opcode` event may come); an instruction that binds none is left out."""
    found: dict[int, frozenset[str]] = {}
    prefixes: list[int] = []
    naming = _names if code.co_flags & _optimized else _spaced
    outer = _spelling(code) if naming is _spaced else _frozenset()
    for offset, name, arg in _instructions(code):
        if name == "EXTENDED_ARG":
            prefixes.append(offset)
            continue
        names = naming(code, name, arg)
        if name in _calls and offset not in outer:  # a call: the outermost of a spelling line
            names = ()
        for at in (*prefixes, offset) if names else ():
            found[at] = names if names is _every else _frozenset(names)
        prefixes = []
    return found


def readable(code: Any, _itself: bool = MAPPING_ITSELF) -> bool:
    """Whether a frame of `code` (no `CO_OPTIMIZED`: a class body's) hands back its namespace
    as its `f_locals` with nothing run: on 3.13 and later always; before, where the code has no
    cell and no fast variable (`co_cellvars`, `co_varnames` empty), so `PyFrame_FastToLocals`
    and `PyFrame_LocalsToFast` have no name to write or read (free variables are skipped both
    ways for such code: CPython 3.11's and 3.12's `Objects/frameobject.c`). Never for a
    module's code (or an `exec`'s, an `eval`'s: named `<module>`): not a class body."""
    if code.co_name == "<module>":  # a module's or an `exec`'s, `eval`'s: not held
        return False
    return _itself or not (code.co_cellvars or code.co_varnames)
