"""The observer's self-check (`fixbot.observe.integrity.seal`), which runs at every test's
teardown: what it catches, and what it costs in audit events (each one calls every audit hook,
the observer's own Python one among them: an `id` per identity made it thousands per teardown,
most of the observer's cost on a suite of short tests; bench/README.md, 2026-11-30)."""

from __future__ import annotations

import sys
import types

from fixbot.observe import integrity


def _sealed() -> tuple[types.FunctionType, types.ModuleType, list[str], object]:
    def helper(value: int = 1) -> int:
        return value

    module = types.ModuleType("fixbot_observer_0123_calls")
    module.limit = 3  # type: ignore[attr-defined]
    module.table = {}  # type: ignore[attr-defined]
    failed: list[str] = []
    check = integrity.seal([helper], [module], [], lambda: failed.append("ended"))
    return helper, module, failed, check


def test_a_global_rebound_is_named_and_changes_the_hash() -> None:
    _, module, failed, check = _sealed()
    assert callable(check)
    found, first = check()
    assert (found, check()[1]) == ([], first)  # nothing changed: the same hash again
    module.table = {}  # type: ignore[attr-defined]  # an equal dict, another object
    found, changed = check()
    assert found == ["observer: calls.table"] and changed != first
    del module.limit  # type: ignore[attr-defined]
    assert check()[0] == ["observer: calls.limit", "observer: calls.table"]
    assert failed == []


def test_a_default_or_code_written_ends_the_process() -> None:
    helper, _, failed, check = _sealed()
    assert callable(check)
    helper.__defaults__ = (2,)
    check()
    assert failed == ["ended"]
    helper.__defaults__ = (int("1"),)  # an equal tuple made now: another object
    failed.clear()
    check()
    assert failed == ["ended"]
    _, _, failed, check = _sealed()
    assert callable(check)
    helper.__code__ = helper.__code__.replace()  # another helper: this check's is untouched
    check()
    assert failed == []


# what the hook below counts, while `COUNTING` holds an entry (an audit hook cannot be
# removed: it stays, idle, in this process)
COUNTING: list[int] = []
COUNTS: dict[str, int] = {}


def _count(event: str, args: object) -> None:
    if COUNTING:
        COUNTS[event] = COUNTS.get(event, 0) + 1


def test_the_check_reads_each_function_once_and_takes_no_id() -> None:
    """50 functions and 500 globals: no `builtins.id` event, and two reads per function (its
    `__code__` and `__defaults__`), not four (before: 100 reads more and 650 `id` events)."""
    functions: list[types.FunctionType] = []
    for n in range(50):
        space: dict[str, object] = {}
        exec(f"def f(a=({n},)): return a", space)
        functions.append(space["f"])  # type: ignore[arg-type]
    module = types.ModuleType("fixbot_observer_0123_calls")
    vars(module).update({f"g{n}": object() for n in range(500)})
    failed: list[str] = []
    check = integrity.seal(functions, [module], [], lambda: failed.append("ended"))
    sys.addaudithook(_count)
    COUNTS.clear()
    COUNTING.append(1)
    try:
        found, _ = check()
    finally:
        COUNTING.clear()
    assert (found, failed) == ([], [])
    assert COUNTS.get("builtins.id", 0) == 0
    assert COUNTS.get("object.__getattr__", 0) == 100
