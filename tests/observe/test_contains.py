"""Containment (`in`, `not in`) and a container past the item bound, as `observer-new-operand`
judges them: the shapes of a containment's operands (`shapes.SIDES`: the item read
as `==`'s, the container by its `__contains__` and, for a built-in container, its items'
`==`, a mapping's keys alone), the `CONTAINS_OP` comparisons `operands.operand_sources` finds,
the unread rest of a container past `shapes.MAX_ITEMS` judged by its items' types
(`shapes._rest_reader`), and end to end through pytest: a start that failed at `assert x in y`
is judged as one that failed at `==`."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from fixbot.core.observed import Observation
from fixbot.observe import bodies, comparisons, judge, operands, shapes
from tests.observe.test_observer import PYTEST, observe

SHAPE = shapes.shape_reader(bodies._code_digest)


class _Told:
    """A class whose comparison says equal to anything (a caller-told one stands in)."""

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = object.__hash__


class _Always:
    """A container whose `__contains__` says yes to anything."""

    def __contains__(self, item: object) -> bool:
        return True


class _Pair(tuple):  # type: ignore[type-arg]
    """A tuple subclass (its class's own `__eq__` could be anything)."""


@dataclasses.dataclass
class _Row:
    """A class the project made (its `__eq__` Python), held as a mapping's value."""

    n: int = 0


def test_past_the_item_bound_a_rest_of_value_types_is_a_built_ins_own_a_told_one_is_not() -> None:
    mixed = [n / 2 if n % 2 else n // 2 for n in range(shapes.MAX_ITEMS + 50)]
    assert SHAPE(mixed, "==") == {"t": "builtins.list[builtins.float, builtins.int]", "c": True}
    keyed = {n: str(n) for n in range(shapes.MAX_ITEMS * 2)}
    assert SHAPE(keyed, "==")["c"] is True
    for at in (shapes.MAX_ITEMS, shapes.MAX_ITEMS + 40):  # the entry stopped at, a later one
        placed: list[Any] = list(range(shapes.MAX_ITEMS + 50))
        placed[at] = _Told()
        shape = SHAPE(placed, "==")
        assert shape["c"] is False and "..." in shape["t"], at
        keyed_told: dict[Any, Any] = dict(keyed)
        keyed_told[at] = _Told()
        assert SHAPE(keyed_told, "==")["c"] is False, at
    # the holders left unread: a nested list's rest is read as the outer one's
    assert SHAPE([[1] * shapes.MAX_ITEMS, [2, 3]], "==")["c"] is True
    assert SHAPE([[1] * shapes.MAX_ITEMS, [2, _Told()]], "==")["c"] is False
    assert SHAPE([[1] * (shapes.MAX_ITEMS + 5), [2, 3], [[_Told()]]], "==")["c"] is False
    # an exact built-in list, tuple, set or frozenset in the rest is read through, its items
    # counted (round 13's `(str, int)` pairs past the bound); a told item inside one, a dict,
    # a tuple subclass, or containers nested past `MAX_DEPTH` are not a built-in's own
    for held in ([1], ("w150", 150), {2}, frozenset({(3, "x")})):
        assert SHAPE([*range(shapes.MAX_ITEMS), held], "==")["c"] is True, held
    deep: Any = 1
    for _ in range(shapes.MAX_DEPTH + 1):
        deep = [deep]
    for held in ([_Told()], ("w", _Told()), {1: 2}, _Pair((1, 2)), deep):
        assert SHAPE([*range(shapes.MAX_ITEMS), held], "==")["c"] is False, held
    # past the rest's own bound, never a built-in's own
    assert SHAPE(list(range(shapes.MAX_ITEMS + shapes.MAX_REST + 2)), "==")["c"] is False


def test_a_containers_shape_as_a_containment_names_its_contains_and_its_items() -> None:
    for box in ([1, 2], (1,), {1, 2}, frozenset({1}), "abc", range(3), {"a": _Row()}):
        assert SHAPE(box, "in")["c"] is True, box  # a mapping's keys alone are asked
    assert SHAPE({"a": _Row()}, "==")["c"] is False  # its values too, compared whole
    always = SHAPE(_Always(), "in")
    assert always["c"] is False and always["o"] == "_Always.__contains__"
    assert len(always["h"]) == 16  # its code's digest
    told = SHAPE([1, _Told()], "not in")
    assert told["c"] is False and told["o"] == "list.__contains__"
    assert "._Told ~ _Told.__eq__" in told["t"]
    assert SHAPE({_Told(): 1}, "in")["c"] is False  # a key's `==` is asked
    # a dictionary's keys and items views: their keys' (and values') `==` decide (round 13)
    assert SHAPE({"a": 1}.keys(), "in") == {"t": "builtins.dict_keys[builtins.str]", "c": True}
    assert SHAPE({"a": 1}.items(), "==")["c"] is True
    assert SHAPE({_Told(): 1}.keys(), "in")["c"] is False
    assert SHAPE({1: _Told()}.items(), "in")["c"] is False
    # the item is read as `==`'s operand: an int is a built-in's own, a told one not
    assert shapes.SIDES["in"] == ("==", "in") and shapes.SIDES["not in"] == ("==", "not in")
    assert SHAPE(3, "==")["c"] is True and SHAPE(_Told(), "==")["c"] is False


def _contains(item: Any, box: Any) -> bool:
    return item in box


def _not_contains(item: Any, box: Any) -> bool:
    return item not in box


def test_the_containments_of_a_body_are_found_with_their_operands() -> None:
    for function, op in ((_contains, "in"), (_not_contains, "not in")):
        found = list(operands.operand_sources(function.__code__).values())
        line = function.__code__.co_firstlineno + 1
        assert found == [(op, (("local", "item"), ("local", "box")), line)], function


EVENS = """\
def evens(xs):
    return [x for x in xs if x % 2 == 0]
"""
EVENS_TEST = """\
from app import evens


def test_evens():
    assert 3 in evens([1, 2, 3, 4])
"""
ALWAYS = (
    EVENS
    + """

class _Evens(list):
    def __contains__(self, item):
        return True


_real = evens


def evens(xs):
    return _Evens(_real(xs))
"""
)
TEST = "tests/test_app.py::test_evens"


@pytest.mark.slow
def test_a_start_that_failed_at_a_containment_is_judged_by_its_operands(tmp_path: Path) -> None:
    files = {"app.py": EVENS, "tests/test_app.py": EVENS_TEST}
    start = observe(tmp_path, PYTEST, files, [])
    assert [(c.test, c.op) for c in start.failed_at] == [(TEST, "in")]
    kinds = [(o.type, o.c) for o in start.failed_at[0].operands]
    assert kinds == [("builtins.int", True), ("builtins.list[builtins.int]", True)]
    honest = observe(tmp_path, PYTEST, {**files, "app.py": EVENS + "\n\nevens = list\n"}, [TEST])
    assert [c.op for c in honest.compared] == ["in"]
    assert judge.findings(start, honest, ["app.py"]) == []
    cheat = observe(tmp_path, PYTEST, {**files, "app.py": ALWAYS}, [TEST])
    found = judge.findings(start, cheat, ["app.py"])
    assert [f.split(":")[0] for f in found] == ["observer-new-operand"], found
    assert "_Evens.__contains__" in found[0]


def test_a_not_in_record_is_read_with_its_whole_operator() -> None:
    seen = Observation()
    shape = {"t": "builtins.int", "c": True}
    comparisons.op(seen, {"k": "op", "line": 3, "op": "not in", "s": [shape, shape]}, "t", None)
    assert [c.op for c in seen.compared] == ["not in"]
