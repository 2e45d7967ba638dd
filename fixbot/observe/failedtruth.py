"""The truth test a test's failing bare assertion made (`assert r`, `assert not r`), streamed
in every run (`failed_truth_hook`: pytest calls no `pytest_assertrepr_compare` for one), the
start's run's among them; fixbot compares the verifying run's with the start's
(`fixbot.observe.turned`). The truth tests themselves, and the shape of their operand's truth,
are `truth.py`'s (the trace function's side, `truth_sources`, `truth_reader`): this part finds,
among them, the one of the conditional jump over a failing assertion's `raise`
(`failed_truths`).

Copied beside the plugin as `<module>_failedtruth` and loaded with it, inside the project's
own Python (3.8 or later). It imports the standard library and the observer's `bytecode` and
`truth` parts alone; what its functions use is held as positional defaults, made once at load
(the code under test shares the process and can reach a closure cell).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def _sibling(name: str) -> Any:
    """The observer's part `name`, copied beside this one (`<module>_<name>`, this module being
    `<module>_failedtruth`), or `fixbot.observe.<name>` where imported from fixbot's package."""
    package, _, module = __name__.rpartition(".")
    return importlib.import_module(
        f"{package}.{name}" if package else module.rsplit("_", 1)[0] + "_" + name
    )


bytecode = _sibling("bytecode")  # the body's instructions, read without `dis`
truth = _sibling("truth")  # the truth tests of a body, and the shape of their operand's truth
VERSION = truth.VERSION
CONDITIONAL = truth.CONDITIONAL  # the conditional jumps
COMPARED = truth.COMPARED  # a comparison's or identity's instructions
NOTS = truth.NOTS  # `UNARY_NOT`
STORES = frozenset({"STORE_FAST", "STORE_FAST_LOAD_FAST"})  # a local's stores
# the inline cache entries after each instruction, by name (none before 3.11)
CACHES = {name: bytecode.CACHES[n] for n, name in enumerate(bytecode.OPNAMES)}


def _target(
    at: int,
    name: str,
    arg: int,
    _version: tuple[int, int] = VERSION,
    _caches: dict[str, int] = CACHES,
) -> int:
    """Where the conditional jump `name` at offset `at` (bytes) with argument `arg` goes, as
    `dis` reads it: absolute before 3.11 (in code units on 3.10), relative to the instruction
    after it and its inline caches from 3.11 (backward where the name says so)."""
    if _version < (3, 10):
        return arg
    if _version < (3, 11):
        return arg * 2
    if "BACKWARD" in name:
        return at + 2 - 2 * arg
    return at + 2 * (1 + _caches.get(name, 0) + arg)


def _failing_test(
    instructions: list[tuple[int, str, Any]],
    truths: dict[int, Any],
    lasti: int,
    _target: Any = _target,
    _enumerate: Any = enumerate,
    _conditional: frozenset[str] = CONDITIONAL,
    _around: Any = bytecode.around,
) -> int:
    """The index in `instructions` of the truth test (an offset of `truths`) of the
    conditional jump over the instruction at `lasti` (a failing assertion's `raise`) nearest
    before it, the jump's own or 3.13's `TO_BOOL` right before it (past the jump's
    `EXTENDED_ARG` prefixes: a long message's), or -1: pytest's `if not r: raise`, whose
    message's own jumps land before the `raise`."""
    jump = -1
    for k, (at, name, arg) in _enumerate(instructions):
        if at >= lasti:
            break
        if name in _conditional and _target(at, name, arg) > lasti:
            jump = k
    found = [k for k in _around(instructions, jump) if instructions[k][0] in truths]
    return found[0] if found else -1


def _last_store(
    code: Any,
    instructions: list[tuple[int, str, Any]],
    before: int,
    what: Any,
    _local: Any = bytecode._local,
    _range: Any = range,
    _stores: frozenset[str] = STORES,
) -> int:
    """The index in `instructions` of the last store of the local `what` before index
    `before`, in code order, or -1."""
    store = -1
    for k in _range(before):
        _, name, arg = instructions[k]
        if name in _stores:
            stored = arg[0] if name != "STORE_FAST" else _local(code, "LOAD_FAST", arg)
            store = k if stored == what else store
    return store


def _fed(
    instructions: list[tuple[int, str, Any]],
    truths: dict[int, Any],
    store: int,
    tested: Any,
    _compared: frozenset[str] = COMPARED,
    _nots: frozenset[str] = NOTS,
) -> list[Any]:
    """What `failed_truths` gives for the truth test `tested` whose name was last stored at
    index `store` of `instructions` (-1: none)."""
    fed = instructions[store - 1][1] if store > 0 else ""
    if fed in _compared:
        return []
    if fed in _nots:  # the `not` itself, or 3.13's `TO_BOOL` before it
        before = [instructions[k][0] for k in (store - 1, store - 2) if k >= 0]
        return [truths[at] for at in before if at in truths][:1]
    return [tested]


def failed_truths(
    code: Any,
    lasti: int,
    _instructions: Any = bytecode.instructions,
    _sources: Any = truth.truth_sources,
    _failing: Any = _failing_test,
    _last_store: Any = _last_store,
    _fed: Any = _fed,
) -> list[tuple[str, tuple[tuple[str, Any], ...], int]]:
    """The truth tests (`truth_sources`' values) a bare assertion of `code` that failed at
    offset `lasti` (the frame's, at its `raise`) made: the one of the conditional jump over that
    `raise` (`_failing_test`), unless the name it jumps on was stored from a comparison or
    identity (`COMPARED`: pytest's `@py_assertN = x == y`, `failed.py`'s); where that name was
    stored from a `not` of a name (`assert not r`), that `not`'s test instead (`_fed`). Empty
    where the assertion is none of these."""
    instructions = _instructions(code)
    truths = _sources(code, True)
    point = _failing(instructions, truths, lasti)
    if point < 0:
        return []
    tested = truths[instructions[point][0]]
    how, what = tested[1][0]
    store = _last_store(code, instructions, point, what) if how == "local" else -1
    result: list[tuple[str, tuple[tuple[str, Any], ...], int]] = _fed(
        instructions, truths, store, tested
    )
    return result


def failed_truth_hook(
    send: Callable[[dict[str, Any]], None],
    shape: Callable[[Any, str], dict[str, Any]],
    code_of: Callable[[Any, Any], Any],
    innermost: Callable[[Any], Any],
) -> Callable[..., Any]:
    """`pytest_runtest_makereport` (tried first, it returns None: pytest's own report stands):
    where a test's call failed with an `AssertionError` raised by its body's own frame (the
    innermost of the failure's traceback, its code the body's, by identity: `code_of(function,
    innermost)`, `hooks._code_of`, of the item's `obj`),
    at a bare assertion of a value's truth (`failed_truths`), streams `{"k": "fail", "id":
    test, "line": n, "op": "bool", "s": [shape]}` for each truth test it made, the operand's
    value read from that frame as it was left (`shape`: `joined`)."""
    import pytest

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_makereport(
        item: Any,
        call: Any,
        _send: Any = send,
        _shape: Any = shape,
        _code_of: Any = code_of,
        _innermost: Any = innermost,
        _failed: Any = failed_truths,
        _isinstance: Any = isinstance,
        _getattr: Any = getattr,
        _assertion: Any = AssertionError,
        _str: Any = str,
    ) -> None:
        excinfo = _getattr(call, "excinfo", None)
        if call.when != "call" or excinfo is None or not _isinstance(excinfo.value, _assertion):
            return None
        tb = excinfo.tb
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        code = _code_of(_getattr(item, "obj", None), _innermost)
        if tb is None or code is None or tb.tb_frame.f_code is not code:
            return None
        frame = tb.tb_frame
        for _, sources, line in _failed(code, tb.tb_lasti):
            how, what = sources[0]
            place = frame.f_locals if how == "local" else frame.f_globals
            if what in place:
                record = {"k": "fail", "id": _str(item.nodeid), "line": line, "op": "bool"}
                record["s"] = [_shape(place[what], "bool")]
                _send(record)
        return None

    return pytest_runtest_makereport
