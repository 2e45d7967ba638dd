"""A bare assertion of a value's truth (`assert r`, `assert not r`), read as a comparison is:
the truth tests of a body whose operand is a plain load (`truth_sources`, which the trace
function, `operands.tracer`, reads at their `opcode` events as it reads a comparison, op
"bool") and the shape of such an operand's truth (`truth_reader`); the truth test a test's
failing bare assertion made is found from them by `failedtruth.py` and streamed in every run;
fixbot compares the verifying run's with the start's (`fixbot.observe.turned`).

A truth test: a conditional jump (`POP_JUMP_IF_TRUE`/`_FALSE` on 3.8 to 3.10 and 3.12,
`POP_JUMP_FORWARD_IF_*` and `POP_JUMP_BACKWARD_IF_*` on 3.11, `JUMP_IF_*_OR_POP` before 3.12),
a `UNARY_NOT` (before 3.13), or a `TO_BOOL` (3.13 and later, where the jump and `not` take a
bool) whose operand the instruction right before pushes, a plain load (`bytecode.pushed`'s:
a name; a constant is left out). pytest's rewritten `assert r` is `if not r: raise`, a jump on
`r`; `assert not r` stores `not r` in a name of its own (`@py_assertN`) and jumps on that.

Copied beside the plugin as `<module>_truth` and loaded with it, inside the project's own
Python (3.8 or later). It imports the standard library and the observer's `bytecode` part
alone; what its functions use is held as positional defaults, made once at load (the code
under test shares the process and can reach a closure cell).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import FunctionType, WrapperDescriptorType
from typing import Any


def _sibling(name: str) -> Any:
    """The observer's part `name`, copied beside this one (`<module>_<name>`, this module being
    `<module>_truth`), or `fixbot.observe.<name>` where imported from fixbot's package."""
    package, _, module = __name__.rpartition(".")
    return importlib.import_module(
        f"{package}.{name}" if package else module.rsplit("_", 1)[0] + "_" + name
    )


bytecode = _sibling("bytecode")  # the body's instructions and line starts, read without `dis`
VERSION = bytecode.VERSION
# the conditional jumps (one over a failing assertion's `raise` is the assertion's test)
CONDITIONAL = frozenset(n for n in bytecode.OPNAMES if n.startswith(("POP_JUMP", "JUMP_IF")))
# the instructions that ask their operand's truth: the jumps on true or false (not those on
# `None`) pop it, `UNARY_NOT` and `TO_BOOL` push a bool
TESTS = frozenset(n for n in CONDITIONAL if n.endswith(("_TRUE", "_FALSE", "_OR_POP")))
TESTS |= {"UNARY_NOT", "TO_BOOL"}
NOTS = frozenset({"UNARY_NOT"})
# what a name's store that a bare assertion could jump on was fed by, where the assertion is a
# comparison's or an identity's (`failed.py`'s, or outside the rule)
COMPARED = frozenset({"COMPARE_OP", "CONTAINS_OP", "IS_OP"})


def _stored_from(
    code: Any,
    window: list[Any],
    _local: Any = bytecode._local,
    _fed: frozenset[str] = COMPARED | NOTS,
    _bool: Callable[[object], bool] = bool,
) -> bool:
    """Whether the name a truth test's operand load (`window[-1]`, the three instructions
    before the test) pushes was stored by the instruction right before it from a comparison,
    an identity or a `not` (pytest's `@py_assertN = x == y; if not @py_assertN`: a bool the
    comparison or the `not`'s own test decided; 3.13 stores and loads it in one instruction)."""
    fed, store, load = window
    if load is not None and load[1] == "STORE_FAST_LOAD_FAST":  # the store is the load
        return store is not None and store[1] in _fed and load[2][0] == load[2][1]
    if store is None or store[1] != "STORE_FAST" or fed is None or fed[1] not in _fed:
        return False
    return _bool(_local(code, "LOAD_FAST", store[2]) == load[2])


def _tested(
    last: Any,
    _loads: frozenset[str] = bytecode.LOADS | bytecode.STORE_LOADS,
    _pairs: frozenset[str] = bytecode.OPERAND_PAIRS,
    _source: Any = bytecode._source,
) -> tuple[str, Any] | None:
    """Where the value the instruction `last` pushes for a truth test is read from (`(how,
    what)`, as `bytecode.pushed` gives an operand), or None where it is no name (a constant,
    or no plain load)."""
    source = None
    if last is not None and last[1] in _pairs:  # two locals pushed: the second is tested
        source = ("local", last[2][1])
    elif last is not None and last[1] in _loads:
        source = _source(last)
    return None if source is None or source[0] == "const" else source


def truth_sources(
    code: Any,
    every: bool = False,
    _instructions: Any = bytecode.instructions,
    _line_starts: Any = bytecode.line_starts,
    _tests: frozenset[str] = TESTS,
    _tested: Any = _tested,
    _stored_from: Any = _stored_from,
    _dict: Any = dict,
    _len: Any = len,
    _unprefixed: Any = bytecode.unprefixed,
    _fromkeys: Any = dict.fromkeys,
) -> dict[int, tuple[str, tuple[tuple[str, Any], ...], int]]:
    """The truth tests (`TESTS`) of `code` whose operand the instruction right before pushes
    from a name (`_tested`): `{offset: ("bool", ((how, what),), line)}`, as
    `operands.operand_sources` gives a comparison (`how` "local" or "global", `line` the last
    line start at or before the test). But for `every`, a name's stored right before from a
    comparison or a `not` is left out (`_stored_from`: what decided it is read there). A test
    with `EXTENDED_ARG` prefixes (a jump over a long assertion message) is keyed by its own
    offset and its first prefix's (where its `opcode` event comes, before 3.12), its window the
    instructions before them."""
    found: dict[int, tuple[str, tuple[tuple[str, Any], ...], int]] = _dict()
    starts = _line_starts(code)
    line, at = 0, 0
    window: list[Any] = [None, None, None]  # the three instructions before
    for instruction, offsets in _unprefixed(_instructions(code)):
        while at < _len(starts) and starts[at][0] <= instruction[0]:
            line, at = starts[at][1], at + 1
        source = _tested(window[2]) if instruction[1] in _tests else None
        if source is not None and (every or not _stored_from(code, window)):
            found.update(_fromkeys(offsets, ("bool", (source,), line)))
        window = [window[1], window[2], instruction]
    return found


def with_truths(
    comparisons: Callable[[Any], dict[int, tuple[str, tuple[tuple[str, Any], ...], int]]],
) -> Callable[[Any], dict[int, tuple[str, tuple[tuple[str, Any], ...], int]]]:
    """`sources(code)`: what the trace function reads of `code`, by offset: its comparisons
    (`comparisons`, `operands.operand_sources`) and its truth tests (`truth_sources`: op
    "bool", one operand)."""

    def sources(
        code: Any, _comparisons: Any = comparisons, _truths: Any = truth_sources
    ) -> dict[int, tuple[str, tuple[tuple[str, Any], ...], int]]:
        found: dict[int, tuple[str, tuple[tuple[str, Any], ...], int]] = _truths(code)
        found.update(_comparisons(code))
        return found

    return sources


def _own_types() -> tuple[Any, ...]:
    """The C types whose own `__bool__` or `__len__` asks no one's code (a number's, a string's,
    a built-in container's length, `None`'s), as this process holds them at load (by identity:
    a type of the same names made later is none of them). A type with neither (an `object`,
    a dataclass's instance) is true by its identity alone: no code runs either."""
    import collections
    import datetime
    import decimal

    return (
        int,
        float,
        complex,
        str,
        bytes,
        bytearray,
        type(None),
        range,
        list,
        tuple,
        dict,
        set,
        frozenset,
        collections.deque,
        decimal.Decimal,
        datetime.timedelta,
    )


def truth_reader(digest: Callable[[Any], str]) -> Callable[[Any], dict[str, Any]]:
    """`truth(value)`: the shape of `value`'s truth, as `shapes.shape_reader` gives an
    operand's (`{"t": "module.Qualname", "c": bool, "o": owner, "h": digest}`): `c` True where
    asking it runs no code of anyone's (the `__bool__` found first through the type's method
    resolution order, else its `__len__`, is the own slot of a type of `_own_types`, or the type
    has neither); else `o` names the class holding it and the dunder, `h` a digest of its code
    where it is a Python function (`digest`, `bodies._comparison_digest`), "-" otherwise (a
    method-wrapper, a `staticmethod`: C that answers whatever it was made to). Read through
    `type`'s own C accessors, as `shapes` reads a type; runs none of the project's code."""
    owns = _own_types()

    def truth(
        value: Any,
        _type: Any = type,
        _id: Any = id,
        _str: Any = str,
        _add: Any = str.__add__,
        _flags: Any = type.__dict__["__flags__"].__get__,
        _mro: Any = type.__dict__["__mro__"].__get__,
        _dict: Any = type.__dict__["__dict__"].__get__,
        _qualname: Any = type.__dict__["__qualname__"].__get__,
        _module: Any = type.__dict__["__module__"].__get__,
        _wrapper: Any = WrapperDescriptorType,
        _objclass: Any = WrapperDescriptorType.__dict__["__objclass__"].__get__,
        _wname: Any = WrapperDescriptorType.__dict__["__name__"].__get__,
        _function: Any = FunctionType,
        _digest: Any = digest,
        _owns: frozenset[int] = frozenset(id(kind) for kind in owns),
        _held: tuple[Any, ...] = owns,  # the types alive while their ids are held
        _heap: int = 1 << 9,  # Py_TPFLAGS_HEAPTYPE: a class made at run time
    ) -> dict[str, Any]:
        kind = _type(value)
        module = _module(kind)
        name = _add(_add(module if _type(module) is _str else "?", "."), _qualname(kind))
        for dunder in ("__bool__", "__len__"):
            for klass in _mro(kind):
                members = _dict(klass)
                if _flags(klass) & _heap:
                    for key in members:  # a key that is no exact str: its lookup runs code
                        if _type(key) is not _str:
                            return {"t": name, "c": False, "o": "?", "h": "-"}
                if dunder not in members:
                    continue
                member = members[dunder]
                if (
                    _type(member) is _wrapper
                    and _objclass(member) is klass
                    and _wname(member) == dunder
                    and _id(klass) in _owns
                ):
                    return {"t": name, "c": True}
                held = _add(_add(_qualname(klass), "."), dunder)
                code = _digest(member) if _type(member) is _function else "-"
                return {"t": name, "c": False, "o": held, "h": code}
        return {"t": name, "c": True}  # neither: true by its identity

    return truth


def joined(
    shape: Callable[[Any, str], dict[str, Any]], truth: Callable[[Any], dict[str, Any]]
) -> Callable[[Any, str], dict[str, Any]]:
    """`shape(value, op)` that reads an operand of a truth test (op "bool") with `truth`
    (`truth_reader`) and any other with `shape` (`shapes.shape_reader`)."""

    def read(
        value: Any,
        op: str,
        _shape: Callable[[Any, str], dict[str, Any]] = shape,
        _truth: Callable[[Any], dict[str, Any]] = truth,
    ) -> dict[str, Any]:
        return _truth(value) if op == "bool" else _shape(value, op)

    return read
