"""The observer's reader of a body's code: its instructions and line starts, read from the code
object's own bytes and C methods, with nothing looked up at run time.

Copied beside the plugin as `<module>_bytecode` and loaded with it, inside the project's own
Python (3.8 or later). It imports the standard library alone, and only as it is loaded.

Why not `dis`: the observer reads each watched body's comparisons as its call begins, and the
code under test has been imported by then; `dis`'s functions and tables are attributes of a
module the project reaches (`import dis; dis.get_instructions = ...`, no audit event), as are
the builtins a function finds by name. So the tables the reading needs are copied at load
(opcode names from `opcode.opname`, the inline cache counts `opcode._inline_cache_entries`: a
list by opcode on 3.11 and 3.12, a dict by name on 3.13; `dis.cmp_op`; which opcodes take an
argument, `opcode.hasarg` on 3.12 and later, else those from `opcode.HAVE_ARGUMENT`), and held
with the builtins used as positional defaults; the code is read through its `co_code` (the
unspecialised bytes), its line table through `co_lines()` (3.10 and later) or `co_lnotab`
(3.8, 3.9), and a local's name through `_varname_from_oparg` (3.11 and later), the code
object's C methods. The argument encodings follow CPython's `dis` of each version: `LOAD_GLOBAL`
names `arg >> 1` on 3.11 and later; `COMPARE_OP` is `cmp_op[arg]` before 3.12, `arg >> 4` on
3.12, `arg >> 5` on 3.13 and later (bit 4 a conversion to bool); `LOAD_FAST_LOAD_FAST` and
`STORE_FAST_LOAD_FAST` (3.13) hold two locals in `arg >> 4` and `arg & 15`. Proven equal to
`dis` on every function of several modules under each Python (`tests/observe/test_bytecode.py`).
"""

from __future__ import annotations

import dis
import opcode
import sys
from typing import Any

VERSION = sys.version_info[:2]
OPNAMES = tuple(opcode.opname) + tuple(f"<{n}>" for n in range(len(opcode.opname), 256))


def _caches() -> tuple[int, ...]:
    """The inline cache entries (code units) after each opcode, by opcode (none before 3.11)."""
    raw = getattr(opcode, "_inline_cache_entries", None)
    if isinstance(raw, dict):  # 3.13 and later: by name
        return tuple(int(raw.get(name, 0)) for name in OPNAMES)
    found = [int(n) for n in raw] if raw is not None else []
    return tuple(found + [0] * (len(OPNAMES) - len(found)))


def _arguments() -> tuple[bool, ...]:
    """Whether each opcode takes an argument, by opcode."""
    has = getattr(opcode, "hasarg", None)
    if has is not None:
        return tuple(n in has for n in range(len(OPNAMES)))
    return tuple(n >= opcode.HAVE_ARGUMENT for n in range(len(OPNAMES)))


CACHES = _caches()
ARGUMENTS = _arguments()
EXTENDED_ARG = int(opcode.opmap["EXTENDED_ARG"])
COMPARISONS = tuple(str(c) for c in dis.cmp_op)
# how `COMPARE_OP`'s argument names its operator (a shift), by version
COMPARE_SHIFT = 5 if VERSION >= (3, 13) else 4 if VERSION >= (3, 12) else 0
GLOBAL_SHIFT = 1 if VERSION >= (3, 11) else 0
LOCAL_NAMES = frozenset({"LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_BORROW", "LOAD_FAST_AND_CLEAR"})
CELL_NAMES = frozenset({"LOAD_DEREF", "LOAD_CLASSDEREF", "LOAD_FROM_DICT_OR_DEREF"})
TWO_LOCALS = frozenset(  # instructions naming two locals (3.13 and later)
    {"LOAD_FAST_LOAD_FAST", "STORE_FAST_LOAD_FAST", "LOAD_FAST_BORROW_LOAD_FAST_BORROW"}
)


def _local(
    code: Any,
    name: str,
    arg: int,
    _version: tuple[int, int] = VERSION,
    _locals: frozenset[str] = LOCAL_NAMES,
) -> str:
    """The name of local or cell `arg` of `code` that the instruction `name` loads."""
    if _version >= (3, 11):  # locals, cells and free variables in one numbering: its C method
        return code._varname_from_oparg(arg)  # type: ignore[no-any-return]
    if name in _locals:
        return code.co_varnames[arg]  # type: ignore[no-any-return]
    return (code.co_cellvars + code.co_freevars)[arg]  # type: ignore[no-any-return]


def argval(
    code: Any,
    name: str,
    arg: Any,
    _compare: tuple[str, ...] = COMPARISONS,
    _compare_shift: int = COMPARE_SHIFT,
    _global_shift: int = GLOBAL_SHIFT,
    _named: frozenset[str] = LOCAL_NAMES | CELL_NAMES,
    _pairs: frozenset[str] = TWO_LOCALS,
    _local: Any = _local,
) -> Any:
    """The value `dis` gives as `argval` for an instruction `name` of `code` with argument
    `arg`, for the loads (`LOAD_CONST`, `LOAD_SMALL_INT`, `LOAD_GLOBAL`, `LOAD_NAME`, a local
    or cell, two locals) and `COMPARE_OP` (its operator, with no conversion to bool noted);
    the raw `arg` for any other."""
    if arg is None:
        return None
    if name == "COMPARE_OP":
        return _compare[arg >> _compare_shift]
    if name == "LOAD_CONST":
        return code.co_consts[arg]
    if name == "LOAD_GLOBAL" or name == "LOAD_NAME":
        return code.co_names[arg >> _global_shift if name == "LOAD_GLOBAL" else arg]
    if name in _pairs:  # 3.13 and later: two locals (the code object's own C method names them)
        return code._varname_from_oparg(arg >> 4), code._varname_from_oparg(arg & 15)
    if name in _named:
        return _local(code, name, arg)
    return arg


def instructions(
    code: Any,
    _opnames: tuple[str, ...] = OPNAMES,
    _caches: tuple[int, ...] = CACHES,
    _arguments: tuple[bool, ...] = ARGUMENTS,
    _extended: int = EXTENDED_ARG,
    _len: Any = len,
    _range: Any = range,
    _argval: Any = argval,
) -> list[tuple[int, str, Any]]:
    """`[(offset, opname, argval)]`, one per instruction of `code` as `dis.get_instructions`
    gives them (`EXTENDED_ARG` included, inline caches left out; `offset` in bytes, as a frame's
    `f_lasti`), `argval` resolved as `dis` does for the loads and comparisons the observer
    reads (`argval`), else the raw argument (None where the opcode takes none)."""
    raw = code.co_code
    found: list[tuple[int, str, Any]] = []
    extended = 0
    skip = 0
    for at in _range(0, _len(raw), 2):
        if skip:
            skip -= 1
            continue
        op = raw[at]
        skip = _caches[op]
        if _arguments[op]:
            arg = raw[at + 1] | extended
            extended = (arg << 8) if op == _extended else 0
        else:
            arg = None
            extended = 0
        name = _opnames[op]
        found.append((at, name, _argval(code, name, arg)))
    return found


def _lnotab_starts(code: Any, _zip: Any = zip, _len: Any = len) -> list[tuple[int, int]]:
    """`dis.findlinestarts` of Python 3.8 and 3.9, from the code's `co_lnotab`."""
    starts: list[tuple[int, int]] = []
    table = code.co_lnotab
    end = _len(code.co_code)
    last = None
    line = code.co_firstlineno
    at = 0
    for step, moved in _zip(table[0::2], table[1::2]):
        if step:
            if line != last:
                starts.append((at, line))
                last = line
            at += step
            if at >= end:  # the rest lies past the code: its lines were optimised away
                return starts
        line += moved - 0x100 if moved >= 0x80 else moved
    if line != last:
        starts.append((at, line))
    return starts


def line_starts(
    code: Any,
    _version: tuple[int, int] = VERSION,
    _sorted: Any = sorted,
    _lnotab: Any = _lnotab_starts,
) -> Any:
    """`[(offset, line)]`, sorted: where a source line starts in `code`, as
    `dis.findlinestarts` gives them with the None lines left out (3.8 to 3.12; on 3.13 it also
    gives a line again after a stretch of none, which names no other line for any offset: the
    line of an offset is the last start at or before it either way)."""
    if _version < (3, 10):
        return _sorted(_lnotab(code))
    starts: list[tuple[int, int]] = []
    last = None
    for start, _, line in code.co_lines():
        if line is not None and line != last:
            last = line
            starts.append((start, line))
    return _sorted(starts)


# the instructions that push one operand a comparison reads, and those that push two (3.13)
LOADS = frozenset(
    {
        "LOAD_FAST",
        "LOAD_FAST_CHECK",
        "LOAD_FAST_BORROW",
        "LOAD_DEREF",
        "LOAD_CLASSDEREF",
        "LOAD_NAME",
        "LOAD_GLOBAL",
        "LOAD_CONST",
        "LOAD_SMALL_INT",
    }
)
OPERAND_PAIRS = frozenset({"LOAD_FAST_LOAD_FAST", "LOAD_FAST_BORROW_LOAD_FAST_BORROW"})
# an instruction that stores one name and pushes another (3.13): a load of its second name
STORE_LOADS = frozenset({"STORE_FAST_LOAD_FAST"})


def line_at(starts: list[tuple[int, int]], offset: int) -> int:
    """The line the sorted line starts `starts` (`line_starts`: `(offset, line)` pairs) give
    the instruction at `offset`: the last start at or before it (0 where none is)."""
    line = 0
    for at, n in starts:
        if at > offset:
            break
        line = n
    return line


def _source(
    instruction: tuple[int, str, Any], _store_loads: frozenset[str] = STORE_LOADS
) -> tuple[str, Any]:
    """Where the value a load (`bytecode.instructions`' `(offset, opname, argval)`) pushes is
    read from, as the tracer reads it."""
    name = instruction[1]
    if name in _store_loads:
        return "local", instruction[2][1]
    if name == "LOAD_CONST" or name == "LOAD_SMALL_INT":
        return "const", instruction[2]
    if name == "LOAD_GLOBAL":
        return "global", instruction[2]
    return "local", instruction[2]


def pushed(
    last: tuple[Any, Any],
    _pairs: frozenset[str] = OPERAND_PAIRS,
    _loads: frozenset[str] = LOADS | STORE_LOADS,
    _store_loads: frozenset[str] = STORE_LOADS,
    _source: Any = _source,
) -> tuple[tuple[str, Any], ...] | None:
    """The two operands the instructions `last` (the two before a comparison, None before the
    first; `instructions`' tuples) push, each `(how, what)` as `operands.operand_sources` gives
    them, or None where they are not plain loads."""
    first, second = last
    if second is not None and second[1] in _pairs:
        return ("local", second[2][0]), ("local", second[2][1])
    if first is None or first[1] not in _loads or second[1] not in _loads:
        return None
    if second[1] in _store_loads:  # it pops the value the one before pushed
        return None
    return _source(first), _source(second)


def unprefixed(
    instructions: list[tuple[int, str, Any]],
) -> list[tuple[tuple[int, str, Any], tuple[int, ...]]]:
    """Each of `instructions` but `EXTENDED_ARG`, with the offsets it is known by: its own, and
    its first `EXTENDED_ARG` prefix's where it has one (where its `opcode` event comes before
    3.12)."""
    found: list[tuple[tuple[int, str, Any], tuple[int, ...]]] = []
    prefix: tuple[int, ...] = ()
    for instruction in instructions:
        if instruction[1] == "EXTENDED_ARG":
            prefix = prefix or (instruction[0],)
            continue
        found.append((instruction, (instruction[0], *prefix)))
        prefix = ()
    return found


def around(instructions: list[tuple[int, str, Any]], jump: int) -> list[int]:
    """The indexes a truth test of the jump `instructions[jump]` may be at (none where `jump`
    is -1): the jump's own, the one right before it (its `EXTENDED_ARG` prefix, or 3.13's
    `TO_BOOL`), and the one before its prefixes (3.13's `TO_BOOL` before a prefixed jump)."""
    if jump < 0:
        return []
    before = jump - 1
    while before >= 0 and instructions[before][1] == "EXTENDED_ARG":
        before -= 1
    return [k for k in (jump, jump - 1, before) if k >= 0]
