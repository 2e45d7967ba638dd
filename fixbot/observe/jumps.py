"""Which comparisons of a watched body's code the observer follows, and how
(`fixbot.observe.followed`, which judges at the instruction what this part finds at `begin`):
read from the body's code as `bytecode.py` reads it, once per call, before the body runs.

How the instruction's answer is read (`followers`, with no frame's `f_locals` read before 3.13:
on 3.11 and 3.12 that read copies the fast locals over what a tracer wrote into the frame's
dictionary, which changes the program): where a conditional jump pops the result
(`POP_JUMP_IF_TRUE`/`FALSE`, 3.11's `POP_JUMP_FORWARD_IF_*` and `BACKWARD_IF_*`; 3.13's
`COMPARE_OP` with its to-bool flag), maybe stored and loaded again first (pytest's rewritten
`@py_assertN = left == right`, `if not @py_assertN`: `STORE_FAST` then `LOAD_FAST`, 3.13's
`STORE_FAST_LOAD_FAST` and `TO_BOOL`), the way the jump went: the offset of the opcode event
after it (the instruction after the jump: not taken); on 3.13 and later the stored result itself
too (an exact `bool`), and where it is stored alone (`x = a == b`), that (read through the
frame's own `f_locals` proxy). Any other use of the result (returned, passed to a call; stored
alone before 3.13) is not followed.

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
