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

Which comparisons of the body's code are followed, and how the instruction's answer is read
(the way its jump went, through the stores and copies of its result before it; the stored result
on 3.13 and later; a result stored and not jumped on, from its local at the next event, on every
version since round 15), is `jumps.py`'s (`followers`, read from the body's code at `begin`);
this part judges at the instruction.

Why reading a stored local on 3.11 and 3.12 is safe (`_stored`, `jumps.py`): the read
refreshes the frame's dictionary from its fast locals, which the trampoline writes back, the
values just read, at the end of that trace call (`tests/run/test_observer_attacks_round15.py`).

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
Python (3.8 or later). It imports the standard library and the observer's `jumps` and `shapes`
parts alone; what its functions use is held as positional defaults, made once at load.
"""

from __future__ import annotations

import gc
import importlib
import operator
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


jumps = _sibling("jumps")  # which comparisons of the body's code are followed, and how
shapes = _sibling("shapes")  # the dunders deciding each comparison

# the exact types whose instances are immutable and whose comparison runs no code: the value
# types `shapes` trusts but `bytearray` (its bytes can change between the read and the
# instruction), held by identity
VALUES = tuple(kind for kind in shapes._value_types() if kind is not bytearray)
VALUE_IDS = frozenset(id(kind) for kind in VALUES)
# `object`'s own dunders, by name; read-only, as every table of the observer's (`shapes.DECIDERS`)
OBJECTS = MappingProxyType(dict(vars(object)))
# whether a frame's `f_locals` is read with no effect on the frame (3.13 and later, `jumps.py`)
PROXY = jumps.PROXY
followers = jumps.followers  # the body's comparisons followed (`jumps.py`), read at `begin`
_stored = jumps._stored  # a stored result read from its local (`jumps.py`)


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
TAMPERED = "a comparison read as built-ins' own decided otherwise than the values read"


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


# the exact containers that hash the item a containment looks up (`_by_identity`)
HASHED = frozenset(id(kind) for kind in (set, frozenset, dict))


def _by_identity_alone(
    kind: Any,
    _id: Any = id,
    _values: frozenset[int] = VALUE_IDS,
    _object_own: Any = _object_own,
    _identity: tuple[str, ...] = ("__eq__", "__ne__"),
) -> bool | None:
    """True where `kind`'s `==` and `!=` are `object`'s own, False for a value type (which
    answers `NotImplemented` for such an instance), None for any other class."""
    if _id(kind) in _values:
        return False
    return True if _object_own(kind, _identity) else None


def _by_identity(
    op: str,
    item: Any,
    box: Any,
    _type: Any = type,
    _id: Any = id,
    _hashed: frozenset[int] = HASHED,
    _alone: Any = _by_identity_alone,
    _most: int = shapes.MAX_ITEMS,
    _len: Any = len,
    _iter: Any = iter,
    _ops: tuple[str, ...] = ("in", "not in"),
) -> bool | None:
    """What `op` ("in", "not in") decides of `item` in `box` by identity, whatever the item's
    hash (which only says where to look): `item` of a class whose `==` and `!=` are `object`'s
    own (an `enum.Enum` member, hashed by the standard library's Python `Enum.__hash__`), `box`
    an exact `set`, `frozenset` or `dict` (its keys) of `MAX_ITEMS` at most, each of a value
    type or of such a class; read through its own C iteration, classes through `type`. None for
    any other `op` or where it cannot be told so. A member whose hash is no longer the one it
    was stored under (its `_name_` written) is missed by the instruction, found here: the hash
    is excused only where this answer is followed (`operands._decider`)."""
    if op not in _ops or _id(_type(box)) not in _hashed or _len(box) > _most:
        return None
    if _alone(_type(item)) is not True:
        return None
    found = False
    for key in _iter(box):  # an exact set's, frozenset's or dict's own iteration: C
        if _alone(_type(key)) is None:
            return None
        found = found or key is item
    return found is (op == "in")


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
    _by_identity: Any = _by_identity,
) -> bool | None:
    """What `op` decides of `values` (left, right) read as built-ins' own, whose exact types
    are `kinds`: the comparison run on them where both types are `VALUES`, or both are exact
    containers of value types and of classes whose comparison and hash are `object`'s own
    (`_flat`: no code of anyone's runs), identity for `==` and `!=` where one class's deciding
    dunders are `object`'s own and the other's too or the other is a value type (its own
    answers `NotImplemented`), and for a containment of such an item in an exact set, frozenset
    or dict, whatever its hash (`_by_identity`); None where it cannot be told so or it raises
    (the instruction raises too)."""
    left, right = values
    if _computable(values, kinds):
        try:
            answer: bool = _bool(_operators[op](left, right))
            return answer
        except _error:  # an ordering of two kinds that have none: the instruction raises
            return None
    if op not in ("==", "!="):  # a containment of an item `==` compares by identity, or none
        held: bool | None = _by_identity(op, left, right)
        return held
    # `object`'s own on one side, `object`'s own or a value type's on the other (which answers
    # `NotImplemented` for an instance of a class of no value type): identity decides
    own = [_id(kind) in _values or _object_own(kind, _deciders[op]) for kind in kinds]
    if own[0] and own[1]:
        return (left is right) if op == "==" else (left is not right)
    return None


def announcer(
    send: Callable[[dict[str, Any]], None],
) -> Callable[[str, Any], Mapping[int, tuple[frozenset[int], str, Any]]]:
    """`begun(test, code)`, at a watched call's `begin`: the body's comparisons to follow
    (`jumps.followers`), streamed first as `{"k": "follows", "id": test, "at": [offset, ...]}`
    (none for the priming, whose test is none), then handed back read-only to be kept
    (`notes[8]`): what is in the channel cannot be taken back, and fixbot pairs each `op`
    record at one of these offsets, read as built-ins' own, with its `fol` (`follower`)."""

    def begun(
        test: str,
        code: Any,
        _send: Any = send,
        _followers: Any = jumps.followers,
        _sorted: Any = sorted,
        _proxy: Any = MappingProxyType,
    ) -> Mapping[int, tuple[frozenset[int], str, Any]]:
        found = _followers(code)
        if test:
            _send({"k": "follows", "id": test, "at": _sorted(found)})
        kept: Mapping[int, tuple[frozenset[int], str, Any]] = _proxy(found)
        return kept

    return begun


def follower(
    notes: list[Any], send: Callable[[dict[str, Any]], None]
) -> tuple[Callable[..., None], Callable[[Any], None]]:
    """`(plan, follow)` over the observer's trace function's `notes` (`operands.tracer`: the
    test, ..., `notes[7]` the comparison being followed, `notes[8]` the body's `followers`).
    `plan(frame, decided, values, kinds, follows, owed)`, at the read of a comparison whose
    operands are built-ins' own (`kinds` their types and `decided` what they decide, `expected`,
    both read before their shapes; `follows` the `followers` of the frame's code: `notes[8]`
    for the body's, other code of the test module's its own; `owed` where its `op` record goes
    out at this read and fixbot pairs it: the body's own), notes it to be followed;
    `follow(frame)`, at each later `opcode` event of the frame that read it while one is noted
    (with the collector held off, `operands._local_tracer`), reads what the instruction decided,
    streams `{"k": "tampered", "id": test, "what": TAMPERED}` once per call where it is not what
    was read, and, where owed, `{"k": "fol", "id": test, "at": offset, "ok": told}`: the
    follow's outcome, which fixbot pairs with the `op` record (`comparisons.py`): a note of the
    comparison cleared or changed by project code run inside the observer (a signal handler
    reaching its frames' `f_locals`) leaves an `op` with no `fol` (`observer-tampered`)."""

    def plan(
        frame: Any,
        decided: bool | None,
        values: list[Any],
        kinds: tuple[Any, Any],
        follows: Any,
        owed: bool,
        _notes: list[Any] = notes,
    ) -> None:
        found = follows.get(frame.f_lasti)
        if found is None:
            _notes[7] = None
            return
        step, kind, what = found
        _notes[7] = [step, kind, what, decided, values, kinds, 0, frame.f_lasti if owed else -1]

    def follow(
        frame: Any,
        _notes: list[Any] = notes,
        _send: Any = send,
        _type: Any = type,
        _proxy: bool = PROXY,
        _stored: Any = _stored,
        _tampered: str = TAMPERED,
    ) -> None:
        step, kind, what, decided, values, kinds, stage, at = _notes[7]
        if _type(values[0]) is not kinds[0] or _type(values[1]) is not kinds[1]:
            told = False  # a class changed under the comparison
        elif frame.f_lasti in step:  # the instruction after the comparison (or its prefix's)
            _notes[7][6] = 1
            return
        elif stage == 0:  # another's: the comparison raised, nothing to follow
            told = True
        elif kind == "jump":  # the jump ran: where it went says the result's truth
            jumped = frame.f_lasti not in what[0]
            told = decided is None or decided == (jumped if what[1] else not jumped)
            # the result stored on the way, read where the read changes nothing (3.13 and later)
            told = told and (what[2] is None or not _proxy or _stored(frame, what[2], None))
        else:  # the result stored and not jumped on: read at the next event (round 15)
            told = _stored(frame, what, decided)
        # streamed first, then the note let go
        if not told and _notes[0] and "followed" not in _notes[4]:
            _notes[4].add("followed")
            _send({"k": "tampered", "id": _notes[0], "what": _tampered})
        if at >= 0 and _notes[0]:
            _send({"k": "fol", "id": _notes[0], "at": at, "ok": told})
        _notes[7] = None

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
