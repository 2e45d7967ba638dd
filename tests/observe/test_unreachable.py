"""What the code under test can reach of the observer without an audit event, and what runs
when it does (round 13's class): the functions the interpreter hands it (`sys.gettrace()`,
a body frame's `f_trace`, `sys.getprofile()`) lead through `__globals__` to the observer's
modules. So nothing those functions run looks a name up in a module's globals (a key whose
hash is the name's, put there by the project, would run its `__eq__` inside the observer's
reading), no table they read is a mutable object a module global names (the project would
rewrite it: `DECIDERS["=="] = ()`), and a namespace the observer looks an operand's name up in
that holds a key of the project's is itself the finding."""

from __future__ import annotations

import dis
import fractions
import importlib
import sys
import types
from collections.abc import Iterator
from types import CodeType
from typing import Any, ClassVar

import pytest

from fixbot.observe import (
    bodies,
    channel,
    failed,
    library,
    operands,
    shapes,
    truth,
    unstored,
    watch,
)
from tests.observe.test_decided import _run

OURS = "fixbot.observe."
# the shape reader as the plugin makes it (`hooks.call_hooks`): an operand's, a truth test's
SHAPE = truth.joined(
    shapes.shape_reader(bodies._comparison_digest), truth.truth_reader(bodies._comparison_digest)
)
MUTABLE = (dict, list, set, bytearray)
LOOKUPS = ("LOAD_GLOBAL", "LOAD_NAME")  # a name looked up in a module's globals or builtins


def _handed_out() -> list[Any]:
    """The observer's functions the code under test can get without an audit event, as the
    plugin makes them: its trace function (its local trace function is made by one of its
    defaults), its profile function, and its assertion hook (pluggy hands its functions out)."""
    trace = operands.tracer(lambda record: None, SHAPE, frozenset())
    profile = watch.watcher(lambda record: None, frozenset())
    hook = failed.failed_hook(lambda record: None, SHAPE, [None, None])
    return [trace, profile, hook]  # (the truth hook runs as pytest reports, after the body)


def _cells(function: types.FunctionType) -> Iterator[Any]:
    for cell in function.__closure__ or ():
        try:
            yield cell.cell_contents
        except ValueError:  # an empty cell
            continue


def _reached(roots: list[Any]) -> tuple[list[types.FunctionType], list[Any]]:
    """The observer's functions reachable from `roots` through defaults and closure cells (and
    the containers those hold), and every object met on the way."""
    seen: set[int] = set()
    functions: list[types.FunctionType] = []
    met: list[Any] = []
    stack = list(roots)
    while stack:
        one = stack.pop()
        if id(one) in seen:
            continue
        seen.add(id(one))
        met.append(one)
        if isinstance(one, types.FunctionType):
            if not (one.__module__ or "").startswith(OURS):
                continue  # a library's function the observer holds to compare, never runs
            functions.append(one)
            stack += [*(one.__defaults__ or ()), *(one.__kwdefaults__ or {}).values()]
            stack += list(_cells(one))
        elif isinstance(one, types.MappingProxyType | dict):
            stack += list(one.values())
        elif isinstance(one, list | tuple | set | frozenset):
            stack += list(one)
    return functions, met


def _codes(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield from _codes(constant)


def test_nothing_the_observers_handed_out_functions_run_looks_a_name_up_in_a_module() -> None:
    functions, _ = _reached(_handed_out())
    assert len(functions) > 20  # the walk follows the observer's defaults (a sanity floor)
    looked_up = {
        f"{function.__module__}.{code.co_name}": sorted(
            {i.argval for i in dis.get_instructions(code) if i.opname in LOOKUPS}
        )
        for function in functions
        for code in _codes(function.__code__)
    }
    assert {name: names for name, names in looked_up.items() if names} == {}


def test_no_table_the_observer_reads_is_a_mutable_object_a_module_global_names() -> None:
    _, met = _reached(_handed_out())
    reached = {id(one) for one in met}
    # every part of the observer's (`channel.PARTS`), each a module of fixbot's here; a dunder
    # (`__builtins__`) is the interpreter's, held by `library` to compare with, not a table
    modules = [importlib.import_module(f"fixbot.observe.{part.stem}") for part in channel.PARTS]
    named = {
        f"{module.__name__}.{name}"
        for module in modules
        for name, value in vars(module).items()
        if isinstance(value, MUTABLE) and id(value) in reached and not name.startswith("__")
    }
    assert named == set()
    # the tables themselves refuse a write
    with pytest.raises(TypeError):
        shapes.DECIDERS["=="] = ()  # type: ignore[index]


class _Named:
    """A key whose hash is a name's: a lookup of that name in a dictionary holding it asks
    its `__eq__` (which counts, and keeps the code of the frame that asked in `by`)."""

    asked = 0
    by: ClassVar[list[CodeType]] = []

    def __init__(self, name: str) -> None:
        self.name = name

    def __hash__(self) -> int:
        return hash(self.name)

    def __eq__(self, other: object) -> bool:
        type(self).asked += 1
        type(self).by.append(sys._getframe(1).f_code)
        return False


def _keyed_body() -> bool:
    """A test body whose locals dictionary gets a key of the project's, hashing as `left`."""
    left = 4
    right = 5
    frame = sys._getframe()
    frame.f_locals[_Named("left")] = 0
    return left == right


@pytest.mark.skipif(sys.version_info >= (3, 13), reason="3.13's f_locals writes through (PEP 667)")
def test_a_key_no_str_in_the_locals_an_operand_is_read_from_is_tampering() -> None:
    _Named.asked, _Named.by = 0, []
    answer, sent = _run(SHAPE, _keyed_body)  # the tracer around the body, as test_decided's
    assert answer is False
    assert [r["what"] for r in sent if r["k"] == "tampered"] == [
        unstored.REWRITTEN,  # the locals held between events: a key no str, not copied
        "a namespace a comparison's operand was read from held a key no str",
    ]
    assert [r for r in sent if r["k"] == "op"] == []  # nothing read past the key
    # asked by the body's own insert alone, the observer never asked it: once, or twice under
    # about one hash seed in eight (PYTHONHASHSEED=7: the insert's own lookups ask twice with no
    # trace function set at all, CPython 3.11), so the frames that asked are counted, not asks
    assert _Named.by and set(_Named.by) == {_keyed_body.__code__}


def test_a_library_namespace_holding_a_key_no_str_is_not_the_librarys_own() -> None:
    kinds, unchanged = library.checker()
    assert kinds.get(id(fractions.Fraction)) is fractions.Fraction
    assert unchanged(fractions.Fraction)
    key = _Named("Fraction")
    vars(fractions)[key] = None  # type: ignore[index]
    _Named.asked = 0
    try:
        assert not unchanged(fractions.Fraction)
        assert _Named.asked == 0  # found before any lookup could ask it
    finally:
        del vars(fractions)[key]  # type: ignore[arg-type]
    assert unchanged(fractions.Fraction)
