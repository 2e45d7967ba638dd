"""The verdict follows the instruction: after a watched body's comparison whose operands the
observer read as built-ins' own (`fixbot.observe.operands`, shapes `c`: their comparison runs no
code of anyone's), the observer learns what the instruction decided, with no code of the
project's running, and holds it against what the values it read decide.

Why: the observer reads a comparison's operands at the `opcode` event before its `COMPARE_OP`
or `CONTAINS_OP` runs, inside its own Python code, where the interpreter runs pending signal
handlers and hands the GIL to other threads. A handler (`signal.setitimer`) or a thread of the
project's can assign an operand another class after the read (one whose `__eq__` is a C
callable, `staticmethod(id)`: no Python frame, so no `call` event for `operands._decider`) and
put it back after the instruction: the read said `4 == 5` of built-ins, the instruction decided
otherwise.

How the instruction's answer is read (`followers`, from the body's code as `bytecode.py` reads
it, with no frame's `f_locals` read before 3.13: on 3.11 and 3.12 that read copies the fast
locals over what a tracer wrote into the frame's dictionary, which changes the program): where
a conditional jump pops the result (`POP_JUMP_IF_TRUE`/`FALSE`, 3.11's `POP_JUMP_FORWARD_IF_*`
and `BACKWARD_IF_*`; 3.13's `COMPARE_OP` with its to-bool flag), maybe stored and loaded again
first (pytest's rewritten `@py_assertN = left == right`, `if not @py_assertN`: `STORE_FAST`
then `LOAD_FAST`, 3.13's `STORE_FAST_LOAD_FAST` and `TO_BOOL`), the way the jump went: the
offset of the opcode event after it (the instruction after the jump: not taken); on 3.13 and
later the stored result itself too (an exact `bool`), and where it is stored alone (`x = a ==
b`), that (read through the frame's own `f_locals` proxy, its type through `type`: C). Any other
use of the result (returned, passed to a call; stored alone before 3.13) is not followed.

What the values read decide (`expected`, at the read, before their shapes are read, with the
collector held off): the comparison itself where both operands are of exact immutable value types
(`VALUES`: an `int`'s or a `str`'s class cannot be assigned nor its value changed, so the answer is
the same at the read and at the instruction), identity where one is of a class whose deciding
dunders (`shapes.DECIDERS`, found through the method resolution order with `type`'s own C accessors)
are `object`'s own, the other of such a class or a value type (`==`, `!=`); no answer otherwise (a
container, a subclass of a value type: their types are still compared). A comparison followed is
`tampered` (once per call) where its stored result is no exact `bool` (a built-in's own comparison
answers one), where the answer it gave differs from the one the values read decide, or where an
operand's type is not the one read (`type`, at both events after the instruction).

Copied beside the plugin as `<module>_followed` and loaded with it, inside the project's own
Python (3.8 or later). It imports the standard library and the observer's `bytecode` and
`shapes` parts alone; what its functions use is held as positional defaults, made once at load.
"""

from __future__ import annotations

import gc
import importlib
import operator
import sys
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any


def _sibling(name: str) -> Any:
    """The observer's part `name`, copied beside this one (`<module>_<name>`, this module being
    `<module>_followed`), or `fixbot.observe.<name>` where imported from fixbot's package."""
    package, _, module = __name__.rpartition(".")
    return importlib.import_module(
        f"{package}.{name}" if package else module.rsplit("_", 1)[0] + "_" + name
    )


bytecode = _sibling("bytecode")  # the body's instructions, read without `dis`
shapes = _sibling("shapes")  # the dunders deciding each comparison

# the exact types whose instances are immutable and whose comparison runs no code: the value
# types `shapes` trusts but `bytearray` (its bytes can change between the read and the
# instruction), held by identity
VALUES = tuple(kind for kind in shapes._value_types() if kind is not bytearray)
VALUE_IDS = frozenset(id(kind) for kind in VALUES)
# `object`'s own dunders, by name; read-only, as every table of the observer's (`shapes.DECIDERS`)
OBJECTS = MappingProxyType(dict(vars(object)))


def _contains(item: Any, box: Any, _in: Any = operator.contains) -> bool:
    """`item in box`, through `operator.contains` (C: it answers a `bool`)."""
    found: bool = _in(box, item)
    return found


def _excludes(item: Any, box: Any, _in: Any = operator.contains) -> bool:
    """`item not in box`, through `operator.contains` (C)."""
    return not _in(box, item)


# each comparison the observer reads, as a function of the two operands (left, right) in C
OPERATORS: Mapping[str, Callable[[Any, Any], Any]] = MappingProxyType(
    {
        "==": operator.eq,
        "!=": operator.ne,
        "<": operator.lt,
        ">": operator.gt,
        "<=": operator.le,
        ">=": operator.ge,
        "in": _contains,
        "not in": _excludes,
    }
)
# the conditional jumps that pop a comparison's result, each with whether it jumps on True
JUMPS = MappingProxyType(
    {
        "POP_JUMP_IF_TRUE": True,
        "POP_JUMP_IF_FALSE": False,
        "POP_JUMP_FORWARD_IF_TRUE": True,
        "POP_JUMP_FORWARD_IF_FALSE": False,
        "POP_JUMP_BACKWARD_IF_TRUE": True,
        "POP_JUMP_BACKWARD_IF_FALSE": False,
    }
)
# the loads of a local that push a stored result again (3.11 to 3.13)
LOADS = frozenset({"LOAD_FAST", "LOAD_FAST_CHECK"})
# whether a frame's `f_locals` is read with no effect on the frame (3.13, PEP 667: a proxy
# writing through; before, reading it copies the fast locals over what a tracer wrote there)
PROXY = sys.version_info >= (3, 13)
TAMPERED = "a comparison read as built-ins' own decided otherwise than the values read"


def _run(
    listed: list[tuple[int, str, Any]],
    n: int,
    _len: Any = len,
    _range: Any = range,
    _frozenset: Any = frozenset,
) -> tuple[frozenset[int], int]:
    """The offsets at which the instruction `listed[n]` (`bytecode.instructions`) may get its
    `opcode` event (its `EXTENDED_ARG` prefixes' and its own), and its index past them."""
    at = n
    while at < _len(listed) - 1 and listed[at][1] == "EXTENDED_ARG":
        at += 1
    return _frozenset(listed[k][0] for k in _range(n, at + 1)), at


def _store(
    code: Any,
    listed: list[tuple[int, str, Any]],
    at: int,
    _local: Any = bytecode._local,
    _loads: frozenset[str] = LOADS,
    _none: frozenset[int] = frozenset(),
    _len: Any = len,
    _run: Any = _run,
) -> tuple[str | None, bool, frozenset[int], int]:
    """What the instruction `listed[at]` after a comparison does with its result: `(stored,
    loaded, steps, at)`, the local it stores (None: none), whether the result is loaded again at
    once (`STORE_FAST` then `LOAD_FAST` of that local, 3.13's `STORE_FAST_LOAD_FAST` of one
    local), and that load's offsets and index (none, `at`, where it is not loaded)."""
    _, after, arg = listed[at]
    if after == "STORE_FAST_LOAD_FAST":
        return arg[0], arg[0] == arg[1], _none, at
    if after != "STORE_FAST":
        return None, False, _none, at
    stored = _local(code, "LOAD_FAST", arg)
    if at < _len(listed) - 1:
        more, ahead = _run(listed, at + 1)
        if listed[ahead][1] in _loads and listed[ahead][2] == stored:
            return stored, True, more, ahead
    return stored, False, _none, at


def _popped(
    listed: list[tuple[int, str, Any]],
    at: int,
    _jumps: Mapping[str, bool] = JUMPS,
    _none: frozenset[int] = frozenset(),
    _len: Any = len,
    _run: Any = _run,
) -> tuple[frozenset[int], int] | None:
    """The conditional jump that pops the result `listed[at]` pushed, maybe after 3.13's
    `TO_BOOL`, with an instruction after it: `(offsets, index)` of what runs up to it and of
    it; None where none does."""
    steps = _none
    for _ in (1, 2):
        if at >= _len(listed) - 2:
            return None
        more, at = _run(listed, at + 1)
        steps |= more
        if listed[at][1] in _jumps:
            return steps, at
        if listed[at][1] != "TO_BOOL":
            return None
    return None


def followers(
    code: Any,
    _instructions: Any = bytecode.instructions,
    _run: Any = _run,
    _store: Any = _store,
    _popped: Any = _popped,
    _jumps: Mapping[str, bool] = JUMPS,
    _proxy: bool = PROXY,
    _len: Any = len,
    _range: Any = range,
) -> dict[int, tuple[frozenset[int], str, Any]]:
    """`{offset: (steps, kind, what)}` for each `COMPARE_OP` and `CONTAINS_OP` of `code` whose
    result the instructions after it pop, each at one of `steps` (their offsets and their
    `EXTENDED_ARG` prefixes'): "jump" where a conditional jump pops it, maybe stored and loaded
    again first (`STORE_FAST` then `LOAD_FAST` of the same local, 3.13's `STORE_FAST_LOAD_FAST`
    of one local, then `TO_BOOL`: pytest's rewritten assertion), `what` the offsets of the
    instruction after the jump (reached where it is not taken), whether it jumps on True, and
    the local stored (None: none); "store" where it is stored and not jumped on (3.13 and
    later alone, `PROXY`), `what` the local. Others are left out."""
    found: dict[int, tuple[frozenset[int], str, Any]] = {}
    listed = _instructions(code)
    for n in _range(_len(listed) - 1):
        offset, name, _ = listed[n]
        if name != "COMPARE_OP" and name != "CONTAINS_OP":
            continue
        popped = _popped(listed, n)  # a jump right after it (3.13: the to-bool flag set)
        stored = None
        if popped is None:
            steps, at = _run(listed, n + 1)
            stored, loaded, more, at = _store(code, listed, at)
            popped = _popped(listed, at) if loaded else None
            popped = (steps | more | popped[0], popped[1]) if popped is not None else None
        if popped is not None:
            steps, at = popped
            way_on = _run(listed, at + 1)[0]  # the instruction after the jump: not taken
            found[offset] = (steps, "jump", (way_on, _jumps[listed[at][1]], stored))
        elif stored is not None and _proxy:
            found[offset] = (_run(listed, n + 1)[0], "store", stored)
    return found


def _object_own(
    kind: Any,
    dunders: tuple[str, ...],
    _mro: Any = type.__dict__["__mro__"].__get__,
    _dict: Any = type.__dict__["__dict__"].__get__,
    _flags: Any = type.__dict__["__flags__"].__get__,
    _type: Any = type,
    _str: Any = str,
    _own: Mapping[str, Any] = OBJECTS,
    _heap: int = 1 << 9,
) -> bool:
    """Whether each of `dunders` is `object`'s own for instances of `kind` (found through its
    method resolution order, read with `type`'s own C accessors; a class's key that is no exact
    `str` answers False: its lookup would run code)."""
    for dunder in dunders:
        for klass in _mro(kind):
            members = _dict(klass)
            if _flags(klass) & _heap:
                for key in members:
                    if _type(key) is not _str:
                        return False
            if dunder in members:
                if members[dunder] is not _own.get(dunder):
                    return False
                break
    return True


# the exact containers whose comparison asks their items' (`expected` computes it where every
# item's is a value type's or `object`'s own: `_flat`), held by identity
BOXES = frozenset(id(kind) for kind in (list, tuple, set, frozenset, dict))
# what a container's comparison asks of its items: their `==` (`!=` asks it too) and, for a set
# or a dict's keys, their hash
ASKED = ("__eq__", "__ne__", "__hash__")


def _leaf(
    kind: Any,
    _id: Any = id,
    _values: frozenset[int] = VALUE_IDS,
    _boxes: frozenset[int] = BOXES,
    _object_own: Any = _object_own,
    _asked: tuple[str, ...] = ASKED,
) -> bool:
    """Whether an instance of `kind` compares and hashes with no code of anyone's and holds
    nothing compared: an exact value type (`VALUES`), or a class (no container of `BOXES`)
    whose `==`, `!=` and hash are `object`'s own."""
    return _id(kind) in _values or (_id(kind) not in _boxes and _object_own(kind, _asked))


def _flat(
    value: Any,
    _type: Any = type,
    _id: Any = id,
    _leaf: Any = _leaf,
    _boxes: frozenset[int] = BOXES,
    _most: int = shapes.MAX_ITEMS,
    _deep: int = shapes.MAX_DEPTH,
    _dict: Any = dict,
    _items: Any = dict.items,
    _len: Any = len,
) -> bool:
    """Whether comparing `value` runs no code of anyone's: a `_leaf`, or an exact `list`,
    `tuple`, `set`, `frozenset` or `dict` of leaves and such containers, `MAX_ITEMS` items and
    `MAX_DEPTH` deep at most (read through their own C iteration, types through `type`).
    Round 14: an item of a container read as built-ins' own, its class swapped after the read
    and back: what the containers compare, computed at the read, differs from what the
    instruction decided."""
    stack = [(value, 0)]
    while stack:
        one, depth = stack.pop()
        kind = _type(one)
        if _leaf(kind):
            continue
        if _id(kind) not in _boxes or depth >= _deep or _len(one) > _most:
            return False
        stack += [(item, depth + 1) for item in (_items(one) if kind is _dict else one)]
        if _len(stack) > _most:
            return False
    return True


def _computable(
    values: list[Any],
    kinds: tuple[Any, Any],
    _id: Any = id,
    _values: frozenset[int] = VALUE_IDS,
    _flat: Any = _flat,
) -> bool:
    """Whether the comparison of `values` (of the exact types `kinds`) runs no code of
    anyone's: both of `VALUES`, or both `_flat`."""
    if _id(kinds[0]) in _values and _id(kinds[1]) in _values:
        return True
    both: bool = _flat(values[0]) and _flat(values[1])
    return both


def expected(
    op: str,
    values: list[Any],
    kinds: tuple[Any, Any],
    _values: frozenset[int] = VALUE_IDS,
    _held: tuple[Any, ...] = VALUES,  # the value types alive while their ids are held
    _operators: Mapping[str, Any] = OPERATORS,
    _deciders: Mapping[str, tuple[str, ...]] = shapes.DECIDERS,
    _object_own: Any = _object_own,
    _id: Any = id,
    _bool: Any = bool,
    _error: Any = Exception,
    _computable: Any = _computable,
) -> bool | None:
    """What `op` decides of `values` (left, right) read as built-ins' own, whose exact types
    are `kinds`: the comparison run on them where both types are `VALUES`, or both are exact
    containers of value types and of classes whose comparison and hash are `object`'s own
    (`_flat`: no code of anyone's runs), identity for `==` and `!=` where one class's deciding
    dunders are `object`'s own and the other's too or the other is a value type (its own
    answers `NotImplemented`); None where it cannot be told so or it raises (the instruction
    raises too)."""
    left, right = values
    if _computable(values, kinds):
        try:
            answer: bool = _bool(_operators[op](left, right))
            return answer
        except _error:  # an ordering of two kinds that have none: the instruction raises
            return None
    if op not in ("==", "!="):
        return None
    # `object`'s own on one side, `object`'s own or a value type's on the other (which answers
    # `NotImplemented` for an instance of a class of no value type): identity decides
    own = [_id(kind) in _values or _object_own(kind, _deciders[op]) for kind in kinds]
    if own[0] and own[1]:
        return (left is right) if op == "==" else (left is not right)
    return None


def _stored(
    frame: Any, name: str, decided: bool | None, _type: Any = type, _bool: Any = bool
) -> bool:
    """Whether the local `name` of `frame` holds what a built-in's own comparison answers: an
    exact `bool`, `decided` where that is known. Read through the frame's `f_locals` (3.13 and
    later: a proxy, whose read changes nothing; not called before, `PROXY`)."""
    place = frame.f_locals
    result = place[name] if name in place else None  # noqa: SIM401 (a proxy)
    answer: bool = _type(result) is _bool and (decided is None or result is decided)
    return answer


def follower(
    notes: list[Any], send: Callable[[dict[str, Any]], None]
) -> tuple[Callable[..., None], Callable[[Any], None]]:
    """`(plan, follow)` over the observer's trace function's `notes` (`operands.tracer`: the
    test, ..., `notes[7]` the comparison being followed, `notes[8]` the body's `followers`).
    `plan(frame, decided, values, kinds, follows)`, at the read of a comparison whose operands
    are built-ins' own (`kinds` their types and `decided` what they decide, `expected`, both
    read before their shapes; `follows` the `followers` of the frame's code: `notes[8]` for the
    body's, other code of the test module's its own), notes it to be followed; `follow(frame)`,
    at each later `opcode` event of the frame that read it while one is noted (with the
    collector held off, `operands._local_tracer`), reads what the
    instruction decided and streams `{"k": "tampered", "id": test, "what":
    TAMPERED}` once per call where it is not what was read."""

    def plan(
        frame: Any,
        decided: bool | None,
        values: list[Any],
        kinds: tuple[Any, Any],
        follows: Any,
        _notes: list[Any] = notes,
    ) -> None:
        found = follows.get(frame.f_lasti)
        if found is None:
            _notes[7] = None
            return
        step, kind, what = found
        _notes[7] = [step, kind, what, decided, values, kinds, 0]

    def follow(
        frame: Any,
        _notes: list[Any] = notes,
        _send: Any = send,
        _type: Any = type,
        _proxy: bool = PROXY,
        _stored: Any = _stored,
        _tampered: str = TAMPERED,
    ) -> None:
        step, kind, what, decided, values, kinds, stage = _notes[7]
        if _type(values[0]) is not kinds[0] or _type(values[1]) is not kinds[1]:
            told = False  # a class changed under the comparison
        elif frame.f_lasti in step:  # the instruction after the comparison (or its prefix's)
            _notes[7][6] = 1
            return
        elif stage == 0:  # another's: the comparison raised, nothing to follow
            _notes[7] = None
            return
        elif kind == "jump":  # the jump ran: where it went says the result's truth
            jumped = frame.f_lasti not in what[0]
            told = decided is None or decided == (jumped if what[1] else not jumped)
            # the result stored on the way, read where the read changes nothing (3.13 and later)
            told = told and (what[2] is None or not _proxy or _stored(frame, what[2], None))
        else:  # the result stored (3.13 and later)
            told = _stored(frame, what, decided)
        _notes[7] = None
        if not told and _notes[0] and "followed" not in _notes[4]:
            _notes[4].add("followed")
            _send({"k": "tampered", "id": _notes[0], "what": _tampered})

    def held(
        frame: Any,
        _follow: Any = follow,
        _isenabled: Any = gc.isenabled,
        _disable: Any = gc.disable,
        _enable: Any = gc.enable,
    ) -> None:
        """`follow` with the collector held off (its state put back after)."""
        enabled = _isenabled()
        _disable()
        try:
            _follow(frame)
        finally:
            if enabled:
                _enable()

    return plan, held
