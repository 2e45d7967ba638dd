"""The comparisons of a watched body the observer reads nowhere because an operand is a call's
result left on the stack (`all([add(2, 2) == 5])`, `colour('green') in {Colour.RED}` inside a
list display: pytest's rewrite assigns a display whole, and an unrewritten statement
compares what a call returned directly), and whether a value handed back to the body there
holds an object of a class made at run time (round 16's second and third classes).

Such a comparison has no source the trace function reads its operand from (`reading._values`)
and its result, on the stack for another instruction, is not followed (`jumps.py`): what
decided it is known to nobody. The value handed back is pinned at the hand-off and read again
as the call ends (`classes.pinner`, `swapped`), but a class swapped after the pin and put back
before the end (a signal handler firing inside the observer's own trace call, or a hash run
inside a set's lookup) is seen by neither. So where such a call hands the body an object of a
class made at run time, or an exact container holding one, the comparison it feeds is
unverified: the profile function's `keep` streams `tampered` (`watch.py`), deterministically,
whichever way a race went.

`feeders(code)`: the offsets of the calls whose result is a comparison's operand, found by
walking back from each `COMPARE_OP` or `CONTAINS_OP` over the instructions whose stack effect
this part knows (`PUSHES`; any other, a jump above all, ends the walk with nothing found);
`made_reader`: whether a value is or holds such an object, through `type`'s C accessors and
exact containers' own C iteration alone (no code of the project's runs).

Copied beside the plugin as `<module>_unread` and loaded with it, inside the project's own
Python (3.8 or later). It imports the standard library and the observer's `bytecode` part
alone; what its functions use is held as positional defaults, made once at load.
"""

from __future__ import annotations

import dis
import importlib
from collections.abc import Callable
from itertools import islice
from types import MappingProxyType
from typing import Any


def _sibling(name: str) -> Any:
    """The observer's part `name`, copied beside this one (`<module>_<name>`, this module being
    `<module>_unread`), or `fixbot.observe.<name>` where imported from fixbot's package."""
    package, _, module = __name__.rpartition(".")
    return importlib.import_module(
        f"{package}.{name}" if package else module.rsplit("_", 1)[0] + "_" + name
    )


bytecode = _sibling("bytecode")  # the body's instructions, read without `dis`'s functions

# the instructions whose result is a call's (what a Python function the body called returns)
CALLS = frozenset(
    {"CALL", "CALL_KW", "CALL_FUNCTION", "CALL_FUNCTION_KW", "CALL_METHOD", "CALL_FUNCTION_EX"}
)
# the instructions the walk steps over, each with how many values it pops before it pushes
# its results on top (its pushes are its stack effect plus those): loads pop none, an
# attribute's load its object; a call's set-up (`PRECALL`, `KW_NAMES`) pushes none
POPS = MappingProxyType(
    {
        **dict.fromkeys(
            (
                "LOAD_CONST",
                "LOAD_SMALL_INT",
                "LOAD_FAST",
                "LOAD_FAST_CHECK",
                "LOAD_FAST_BORROW",
                "LOAD_FAST_LOAD_FAST",
                "LOAD_FAST_BORROW_LOAD_FAST_BORROW",
                "LOAD_DEREF",
                "LOAD_CLASSDEREF",
                "LOAD_NAME",
                "LOAD_GLOBAL",
                "PUSH_NULL",
            ),
            0,
        ),
        **dict.fromkeys(("LOAD_ATTR", "LOAD_METHOD"), 1),
    }
)
# those that push no value (their pops are their stack effect, negated)
SILENT = frozenset({"PRECALL", "KW_NAMES", "NOP", "EXTENDED_ARG"})
# those that push one value, whatever they pop (a display, an operator, a comparison)
ONE = frozenset(
    {
        "BUILD_LIST",
        "BUILD_TUPLE",
        "BUILD_SET",
        "BUILD_MAP",
        "BUILD_CONST_KEY_MAP",
        "BUILD_STRING",
        "BUILD_SLICE",
        "BINARY_OP",
        "BINARY_SUBSCR",
        "BINARY_SLICE",
        "COMPARE_OP",
        "CONTAINS_OP",
        "IS_OP",
        "UNARY_NEGATIVE",
        "UNARY_NOT",
        "UNARY_INVERT",
        "FORMAT_VALUE",
        "FORMAT_SIMPLE",
        *CALLS,
    }
)
MAX_WALK = 64  # instructions walked back from a comparison at most


def _effect(
    op: int,
    arg: Any,
    _effect: Any = dis.stack_effect,
    _has: int = dis.HAVE_ARGUMENT,
    _int: Any = int,
    _error: Any = ValueError,
) -> int:
    """The stack effect of the opcode `op` with its raw argument `arg` (`dis.stack_effect`, the
    interpreter's C function, held at load; 0 where it refuses)."""
    try:
        effect: int = _int(_effect(op, arg if arg is not None and op >= _has else None))
    except _error:
        return 0
    return effect


def _pushes(
    name: str,
    effect: int,
    _silent: frozenset[str] = SILENT,
    _one: frozenset[str] = ONE,
    _pops: Any = POPS,
) -> int | None:
    """How many values the instruction `name` with the stack effect `effect` pushes, or None
    where the walk does not know it."""
    if name in _silent:
        return 0
    if name in _one:
        return 1
    pops = _pops.get(name)
    return None if pops is None else effect + pops


def _operands_by_call(
    raw: list[tuple[int, str, Any, int]],
    at: int,
    _effect: Any = _effect,
    _pushes: Any = _pushes,
    _calls: frozenset[str] = CALLS,
    _walk: int = MAX_WALK,
    _range: Any = range,
) -> list[int]:
    """The offsets of the calls among `raw` (`(offset, name, raw argument, opcode)`) whose
    results are the two operands of the comparison `raw[at]` (the right one at depth 0, the
    left one at depth 1, walked back until each is pushed or an instruction is unknown), each
    with its inline caches' (where a caller's `f_lasti` may stand while the call runs: 3.11's
    last cache entry)."""
    found: list[int] = []
    wanted = [0, 1]
    k = at - 1
    while wanted and k >= 0 and at - k <= _walk:
        offset, name, arg, op = raw[k]
        effect = _effect(op, arg)
        pushes = _pushes(name, effect)
        if pushes is None:  # a jump, a store, anything unknown: nothing further is known
            break
        left = []
        for depth in wanted:
            if depth < pushes:  # pushed here
                if name in _calls:
                    found += _range(offset, raw[k + 1][0], 2)
            else:
                left.append(depth - effect)
        wanted = left
        k -= 1
    return found


def _raw(
    code: Any,
    _opnames: tuple[str, ...] = bytecode.OPNAMES,
    _caches: tuple[int, ...] = bytecode.CACHES,
    _arguments: tuple[bool, ...] = bytecode.ARGUMENTS,
    _prefix: int = bytecode.EXTENDED_ARG,
    _len: Any = len,
    _range: Any = range,
) -> list[tuple[int, str, Any, int]]:
    """`code`'s instructions as `(offset, name, raw argument, opcode)` (`bytecode.instructions`
    with the raw argument, which `dis.stack_effect` takes), inline caches left out."""
    raw = code.co_code
    found: list[tuple[int, str, Any, int]] = []
    extended = 0
    skip = 0
    for at in _range(0, _len(raw), 2):
        if skip:
            skip -= 1
            continue
        op = raw[at]
        skip = _caches[op]
        arg = raw[at + 1] | extended if _arguments[op] else None
        extended = (arg << 8) if op == _prefix and arg is not None else 0
        found.append((at, _opnames[op], arg, op))
    return found


def feeders(
    code: Any,
    _raw: Any = _raw,
    _by_call: Any = _operands_by_call,
    _frozenset: Any = frozenset,
    _range: Any = range,
    _len: Any = len,
) -> frozenset[int]:
    """The offsets of the call instructions of `code` whose result is an operand of a
    `COMPARE_OP` or `CONTAINS_OP` of the same code, left on the stack for it, and of their
    inline caches: the offsets a frame's `f_lasti` reads while such a call runs. Read once per
    watched call (`watch.py`'s `begin`), from the code's own bytes."""
    raw = _raw(code)
    found: list[int] = []
    for k in _range(_len(raw)):
        name = raw[k][1]
        if name == "COMPARE_OP" or name == "CONTAINS_OP":
            found += _by_call(raw, k)
    offsets: frozenset[int] = _frozenset(found)
    return offsets


def made_reader(most: int, deep: int) -> Callable[[Any], bool]:
    """`made(value)`: whether `value` is an object of a class made at run time (`HEAPTYPE`) or an
    exact list, tuple, set, frozenset or dict (keys and values) holding one, `most` items in
    all and `deep` containers deep (as `classes.pinner` walks a value handed back). Read
    through `type`'s `__flags__` and the exact containers' own C iteration: no code of the
    project's runs; a class itself (a `type`) is not such an object."""
    boxes = frozenset(id(kind) for kind in (list, tuple, set, frozenset, dict))

    def made(
        value: Any,
        _type: Any = type,
        _id: Any = id,
        _len: Any = len,
        _list: Any = list,
        _islice: Any = islice,
        _dict_t: type = dict,
        _values: Any = dict.values,
        _flags: Any = type.__dict__["__flags__"].__get__,
        _boxes: frozenset[int] = boxes,
        _heap: int = 1 << 9,  # Py_TPFLAGS_HEAPTYPE
        _most: int = most,
        _deep: int = deep,
    ) -> bool:
        stack, count = [(value, 0)], 1
        while stack:
            one, depth = stack.pop()
            kind = _type(one)
            if _id(kind) not in _boxes:
                if _flags(kind) & _heap:
                    return True
                continue
            if depth >= _deep or count >= _most:
                continue
            inner = _list(_islice(one, _most - count))
            if kind is _dict_t:
                inner += _list(_islice(_values(one), _most - count - _len(inner)))
            count += _len(inner)
            stack += [(item, depth + 1) for item in inner]
        return False

    return made


def comparisons(
    code: Any,
    _instructions: Any = bytecode.instructions,
    _names: frozenset[str] = frozenset({"COMPARE_OP", "CONTAINS_OP"}),
    _frozenset: Any = frozenset,
) -> frozenset[int]:
    """The offsets of `code`'s comparisons (`COMPARE_OP`, `CONTAINS_OP`; containment is a
    `COMPARE_OP` before 3.9): where the body's frame stands while a comparison dunder it
    calls runs (3.8 to 3.13 alike, measured)."""
    return _frozenset(at for at, name, _ in _instructions(code) if name in _names)  # type: ignore[no-any-return]


def settler(
    instance_of: Callable[[Any, Any], tuple[Any, Any] | None],
) -> Callable[[Any, Any, dict[str, Any]], None]:
    """`settle(frame, code, notes)`, at the `call` event of a comparison dunder's
    frame (`code`, a Python function; `instance_of` reads its first two arguments,
    `classes.instance_reader`): an object handed back to the body at a call feeding a
    comparison (`notes["owed"]`, `{id: (object, its class then)}`, `watch.py`'s `keep`) is
    settled where this dunder runs for it (its first or second argument) with its class
    still the one it was handed back with, called by the body's frame (`notes["body"]`'s) at
    one of its comparisons (`notes["compares"]`): the comparison was decided by the class's own
    Python, which the profile function sees and the judgement reads (`saw`), not by a class
    swapped in for it (whose C `__eq__` runs no frame). A handler's or a callback's frame is
    never the body's; nothing is settled at another offset."""

    def settle(
        frame: Any,
        code: Any,
        notes: dict[str, Any],
        _instance: Any = instance_of,
        _type: Any = type,
        _id: Any = id,
    ) -> None:
        if not notes["owed"]:
            return
        back = frame.f_back
        if back is None or back.f_code is not notes["body"]:
            return
        if back.f_lasti not in notes["compares"]:
            return
        found = _instance(frame, code)
        owed = notes["owed"]
        for one in found or ():
            entry = owed.get(_id(one))
            if entry is not None and entry[0] is one and _type(one) is entry[1]:
                del owed[_id(one)]

    return settle


# what `tampered` says of such a comparison (`watch.py`'s `keep`, `hooks.py`)
UNREAD = (
    "a value handed back to its body (an object of a class made at run time) was compared where"
    " the observer reads no operand (a call's result left on the stack): what decided it is"
    " unverified"
)
