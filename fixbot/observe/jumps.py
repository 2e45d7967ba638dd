"""Which comparisons of a watched body's code the observer follows, and how
(`fixbot.observe.followed`, which judges at the instruction what this part finds at `begin`):
read from the body's code as `bytecode.py` reads it, once per call, before the body runs.

How the instruction's answer is read (`followers`): where a conditional jump pops the result
(`POP_JUMP_IF_TRUE`/`FALSE`, 3.11's `POP_JUMP_FORWARD_IF_*` and `BACKWARD_IF_*`; 3.13's
`COMPARE_OP` with its to-bool flag), maybe stored, copied and loaded again first (pytest's
rewritten `@py_assertN = left == right`, `if not @py_assertN`: `STORE_FAST` then `LOAD_FAST`,
3.13's `STORE_FAST_LOAD_FAST` and `TO_BOOL`; a `BoolOp`'s operand, `@py_assert9` copied to
`@py_assert0` and loaded again, `_store`), the way the jump went: the offset of the opcode event
after it (the instruction after the jump: not taken); on 3.13 and later the stored result itself
too (an exact `bool`). Where it is stored and not jumped on (`x = a == b`), the stored local,
read at the next event (`followed._stored`, through the frame's `f_locals`: on 3.13 a proxy;
on 3.11 and 3.12 a dictionary the read refreshes from the fast locals, which the observer's
`reading._values` reads for every local operand already: `followed.py` says why that is safe).
Round 15: a result stored and copied before its jump was followed by no shape of the list, so
its comparison owed no `fol`; every comparison whose result is stored is followed now. Any other
use of the result (left on the stack for a call, a return, a display) is not followed: what is
held of those is `followed.py`'s.

Copied beside the plugin as `<module>_jumps` and loaded with it, inside the project's own Python
(3.8 or later). It imports the standard library and the observer's `bytecode` part alone; what
its functions use is held as positional defaults, made once at load.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any


def _sibling(name: str) -> Any:
    """The observer's part `name`, copied beside this one (`<module>_<name>`, this module being
    `<module>_jumps`), or `fixbot.observe.<name>` where imported from fixbot's package."""
    package, _, module = __name__.rpartition(".")
    return importlib.import_module(
        f"{package}.{name}" if package else module.rsplit("_", 1)[0] + "_" + name
    )


bytecode = _sibling("bytecode")  # the body's instructions, read without `dis`

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
# the stores of a comparison's result (the first, and its copies) walked at most (`_store`)
MAX_COPIES = 8


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


def _carried(
    code: Any,
    instruction: tuple[int, str, Any],
    names: list[str],
    loaded: bool,
    _local: Any = bytecode._local,
    _loads: frozenset[str] = LOADS,
) -> bool | None:
    """Whether a comparison's result is on the stack after `instruction` where that carries it
    (`_store`'s walk): a store of it (its local added to `names`, those holding it), a load of
    one of `names`, 3.13's `STORE_FAST_LOAD_FAST` (both); None where it does not carry it."""
    _, name, arg = instruction
    if loaded and name == "STORE_FAST":
        names.append(_local(code, "LOAD_FAST", arg))
        return False
    if loaded and name == "STORE_FAST_LOAD_FAST":
        names.append(arg[0])
        return arg[1] in names
    if not loaded and name in _loads and arg in names:
        return True
    return None


def _store(
    code: Any,
    listed: list[tuple[int, str, Any]],
    at: int,
    _carried: Any = _carried,
    _none: frozenset[int] = frozenset(),
    _len: Any = len,
    _run: Any = _run,
    _most: int = MAX_COPIES,
) -> tuple[str | None, bool, frozenset[int], int]:
    """What the instructions from `listed[at]` on (the one after a comparison) do with its
    result: `(stored, loaded, steps, at)`, the local it is first stored in (None: none),
    whether it is on the stack again after the walk (loaded back from that local or from a
    copy of it), the offsets walked past `listed[at]` and the index of the last instruction
    walked (`at` where none is past it). Walked while they carry the result (`_carried`): a
    store of it (`STORE_FAST`), a load of a local holding it (`LOAD_FAST`), 3.13's
    `STORE_FAST_LOAD_FAST` (both), `MAX_COPIES` stores at most: pytest's rewrite stores each
    comparison's result (`@py_assert9`), and in a `BoolOp` copies it to the assertion's own
    (`@py_assert0`) and loads it again before its jump (round 15)."""
    names: list[str] = []
    loaded, steps, last, more = True, _none, at, _none
    while _len(names) < _most:
        carried = _carried(code, listed[at], names, loaded)
        if carried is None:
            break
        steps, last, loaded = (steps | more) if at != last else steps, at, carried
        if at >= _len(listed) - 1 or (not loaded and listed[at][1] == "STORE_FAST_LOAD_FAST"):
            break
        more, at = _run(listed, at + 1)
    return (names[0], loaded, steps, last) if names else (None, False, _none, last)


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
    _len: Any = len,
    _range: Any = range,
) -> dict[int, tuple[frozenset[int], str, Any]]:
    """`{offset: (steps, kind, what)}` for each `COMPARE_OP` and `CONTAINS_OP` of `code` whose
    result the instructions after it pop, each at one of `steps` (their offsets and their
    `EXTENDED_ARG` prefixes'): "jump" where a conditional jump pops it, maybe stored, copied and
    loaded again first (`_store`: `STORE_FAST` then `LOAD_FAST` of a local holding it, 3.13's
    `STORE_FAST_LOAD_FAST`, then `TO_BOOL`: pytest's rewritten assertion, a `BoolOp`'s
    operand's too), `what` the offsets of the instruction after the jump (reached where it is
    not taken), whether it jumps on True, and the local first stored (None: none); "store"
    where it is stored and not jumped on (every version since round 15), `what` the local.
    Others (the result passed on the stack to another instruction: a call, a return, a
    display, an operator) are left out."""
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
        elif stored is not None:  # read at the next event (`followed._stored`)
            found[offset] = (_run(listed, n + 1)[0], "store", stored)
    return found


def _stored(
    frame: Any,
    name: str,
    decided: bool | None,
    _type: Any = type,
    _bool: Any = bool,
    _str: Any = str,
) -> bool:
    """Whether the local `name` of `frame` holds what a built-in's own comparison answers: an
    exact `bool`, `decided` where that is known. Read through the frame's `f_locals`: on 3.13
    and later a proxy, whose read changes nothing; on 3.11 and 3.12 the frame's dictionary,
    which the read refreshes from the fast locals (`PyFrame_FastToLocalsWithError`, as
    `reading._values` does for every local operand). False where that dictionary holds a key
    no exact `str` (looked for through its own iteration and `type`, before the lookup): only
    project code plants one, and its `__eq__` would run in the lookup (round 13). Used by
    `followed.py`'s follow (as `followed._stored`)."""
    place = frame.f_locals
    for key in place:
        if _type(key) is not _str:
            return False
    result = place[name] if name in place else None  # noqa: SIM401 (a proxy)
    answer: bool = _type(result) is _bool and (decided is None or result is decided)
    return answer
