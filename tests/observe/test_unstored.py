"""The body's locals held by identity between the observer's trace events
(`fixbot.observe.unstored`), in this process: round 15's hole found by obs23, a local of the body
rewritten through its frame's `f_locals` by code run inside the observer's trace call (there a
signal handler; here the shape reader, which runs at the same point), is `tampered`; a body
whose locals change only through its own instructions (stores, `del`, a loop, a comprehension,
an `except ... as`, a closure's `nonlocal`) streams nothing of the kind."""

from __future__ import annotations

import gc
import sys
import weakref
from types import SimpleNamespace
from typing import Any, Generic, NamedTuple, TypeVar

from fixbot.observe import bodies, classbody, shapes, storing, unstored
from tests.observe.test_decided import _run as _traced

SHAPE = shapes.shape_reader(bodies._code_digest)


def _run(body: Any, shape: Any = SHAPE) -> tuple[Any, list[dict[str, Any]]]:
    """What `body()` answered under a fresh trace function of the observer's reading shapes
    with `shape`, and what it streamed (`test_decided._run`)."""
    return _traced(shape, body)


def _rewritten() -> bool:
    """A body whose `got` holds what a call handed back (4); its first comparison is read."""
    got = 4
    seen = got == 4
    return seen and got == 5


def _rewriting(value: Any, op: str) -> dict[str, Any]:
    """The shape, and the body's `got` written over through its frame's `f_locals`, as the
    round's signal handler does from inside the observer's trace call (the write lands as that
    call ends before 3.13; through the proxy at once on 3.13)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code is not _rewritten.__code__:
        frame = frame.f_back  # type: ignore[assignment]
    if frame is not None and frame.f_locals.get("got") == 4:
        frame.f_locals["got"] = 5
    return SHAPE(value, op)


def test_a_local_rewritten_inside_the_observers_trace_call_is_tampering() -> None:
    answer, sent = _run(_rewritten, _rewriting)
    assert answer is True  # the write landed (3.11.7, 3.12.1 and 3.13.0 alike, in-process)
    assert [r for r in sent if r["k"] == "tampered"] == [
        {"k": "tampered", "id": "t::x", "what": unstored.REWRITTEN}
    ]


def _honest(n: int = 3) -> int:
    """A body whose locals change by its own instructions alone."""
    total = 0
    for i in range(n):
        total += i
    squares = [i * i for i in range(n)]
    gone = 1
    del gone
    try:
        raise ValueError(total)
    except ValueError as error:
        caught = error.args[0]
    count = 0

    def bump() -> None:
        nonlocal count
        count += 1

    bump()
    bump()
    assert squares == [0, 1, 4]
    return total + caught + count


def test_a_body_whose_own_instructions_change_its_locals_is_not_tampering() -> None:
    answer, sent = _run(_honest)
    assert answer == 3 + 3 + 2
    assert [r for r in sent if r["k"] == "tampered"] == []
    assert [r for r in sent if r["k"] == "op"]  # its comparisons were read


def _cell_rewritten() -> bool:
    """`_rewritten` with `got` a cell variable (a lambda closes over it, never run while the
    comparisons pass: round 17's `cell-rewritten-through-f-locals`)."""
    got = 4
    seen = got == 4
    return seen and (got == 5 or (lambda: got)() == 0)


def _cell_rewriting(value: Any, op: str) -> dict[str, Any]:
    """`_rewriting` for `_cell_rewritten`'s cell `got`."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code is not _cell_rewritten.__code__:
        frame = frame.f_back  # type: ignore[assignment]
    if frame is not None and frame.f_locals.get("got") == 4:
        frame.f_locals["got"] = 5
    return SHAPE(value, op)


def test_a_cell_variable_rewritten_inside_the_observers_trace_call_is_tampering() -> None:
    answer, sent = _run(_cell_rewritten, _cell_rewriting)
    assert answer is True  # the write landed in the cell
    assert [r for r in sent if r["k"] == "tampered"] == [
        {"k": "tampered", "id": "t::x", "what": unstored.REWRITTEN}
    ]


def _closure_rewritten() -> bool:
    """`got` a cell of the body's, read by a closure the body runs before its comparison."""
    got = 4
    first = sorted((3, 5, 7), key=lambda n: (n != got, n))[0]
    return first == 5


def _closure_rewriting(value: Any, op: str) -> dict[str, Any]:
    """`_rewriting` for the running closure's frame: `got` (a free variable there) written
    through its `f_locals` at its comparison's event (round 18's
    `cell-rewritten-in-the-bodys-closure-as-it-runs`)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_name != "<lambda>":
        frame = frame.f_back  # type: ignore[assignment]
    if frame is not None and frame.f_locals.get("got") == 4:
        frame.f_locals["got"] = 5
    return SHAPE(value, op)


def test_a_cell_rewritten_through_a_running_closures_frame_is_tampering() -> None:
    """The closure's free variable is held as its cells are (fails where a closure's frame
    leaves its free variables out and the body allows any change once a closure over it
    ran)."""
    answer, sent = _run(_closure_rewritten, _closure_rewriting)
    assert answer is True  # the write landed in the body's cell
    assert [r for r in sent if r["k"] == "tampered"] == [
        {"k": "tampered", "id": "t::x", "what": unstored.REWRITTEN}
    ]


def _closures(n: int = 3) -> int:
    """A body whose cell variables change by its own stores and its closures' `nonlocal`
    rebinding, in a nested function, a generator resumed between the body's stores and a
    comprehension's lambdas."""
    count = 0
    step = 1

    def bump() -> None:
        nonlocal count
        count += step

    def counting() -> Any:
        nonlocal count
        for _ in range(n):
            count += 10
            yield count

    bump()
    walk = counting()
    next(walk)
    step = 2
    bump()
    next(walk)
    late = [lambda: i for i in range(n)]  # noqa: B023 (the cell is the point)
    assert [f() for f in late] == [n - 1] * n
    return count


def _class_made() -> bool:
    """A body defining a class: the class body's frame (code of the test module's, read by the
    trace function) stores its namespace by `STORE_NAME` (attrs' `TestEvolve::test_dicts`)."""

    class Made:
        first = 1
        second = first + 1

    return Made.second == 2


def test_a_class_body_made_in_the_body_is_not_tampering() -> None:
    """A class body's namespace changed by its own `STORE_NAME`s is no rewrite (fails where
    they read as rewrites: an honest fix of attrs 21.1.0 escalated)."""
    answer, sent = _run(_class_made)
    assert answer is True
    assert [r for r in sent if r["k"] == "tampered"] == []


class _Base:
    def size(self) -> int:
        return 1


def _classes_honest() -> int:
    """Class bodies changing their namespaces by their own instructions alone: stores, a
    `del`, annotations, `locals()[k] = v`, `vars().update(...)`, `locals().update(...)`, a
    comprehension (inlined on 3.12 and later), a method calling `super()` (a `__class__` cell:
    not held before 3.13), a decorator, a nested class, a dataclass."""
    import dataclasses

    class Stored:
        first = 1
        gone = 2
        del gone
        typed: int = 3
        locals()["keyed"] = 4
        vars().update(updated=5)
        locals().update({"more": 6})
        squares = [i * i for i in range(3)]

        @staticmethod
        def made() -> int:
            return 7

        class Inner:
            deep = 8

    class Sized(_Base):
        def size(self) -> int:
            return super().size() + 1

    @dataclasses.dataclass
    class Point:
        x: int = 1
        y: int = dataclasses.field(default=2)

    total = Stored.first + Stored.typed + Stored.keyed + Stored.updated + Stored.more  # type: ignore[attr-defined]
    return (
        total + sum(Stored.squares) + Stored.made() + Stored.Inner.deep + Sized().size() + Point().y
    )


def test_class_bodies_whose_own_instructions_change_their_namespaces_are_not_tampering() -> None:
    answer, sent = _run(_classes_honest)
    assert answer == 1 + 3 + 4 + 5 + 6 + 5 + 7 + 8 + 2 + 2
    assert [r for r in sent if r["k"] == "tampered"] == []


def _class_rewritten() -> bool:
    """Round 19's second hole in this process: a class body's `total` (4) compared twice."""

    class Case:
        total = 4
        seen = total == 4
        ok = total == 5

    return Case.seen and Case.ok


def _class_rewriting(value: Any, op: str) -> dict[str, Any]:
    """The shape, and the class body's `total` written over in its namespace (its frame's
    `f_locals`, the namespace itself: the write lands at once)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_name != "Case":
        frame = frame.f_back  # type: ignore[assignment]
    if frame is not None and frame.f_locals.get("total") == 4:
        frame.f_locals["total"] = 5
    return SHAPE(value, op)


def test_a_class_bodys_namespace_rewritten_inside_the_observers_trace_call_is_tampering() -> None:
    """Fails without the control (`unstored` skipping class bodies): the write passes."""
    answer, sent = _run(_class_rewritten, _class_rewriting)
    assert answer is True  # the write landed in the namespace
    assert [r for r in sent if r["k"] == "tampered"] == [
        {"k": "tampered", "id": "t::x", "what": unstored.REWRITTEN}
    ]


def _noop() -> None:
    """A call of the project's a class body makes: writes 5 over its caller's `total`."""
    space = sys._getframe(1).f_locals
    if space.get("total") == 4:
        space["total"] = 5


def _class_called() -> bool:
    """A class body whose comparison reads `total` after a call that writes it (round 19's
    call-spelled cheat: `ok = [5] == [noop() or total]`); the body spells no `locals`."""

    class Case:
        total = 4
        ok = [5] == [_noop() or total]  # noqa: SIM300 (the cheat as spelled)

    return Case.ok


def test_a_class_bodys_namespace_rewritten_by_a_call_it_makes_is_tampering() -> None:
    """A call allows no change of the namespace in a body that spells no `locals`, `vars` or
    `f_locals`."""
    answer, sent = _run(_class_called)
    assert answer is True
    assert [r for r in sent if r["k"] == "tampered"] == [
        {"k": "tampered", "id": "t::x", "what": unstored.REWRITTEN}
    ]


def _class_called_spelling() -> bool:
    """`_class_called` in a body that spells `locals()` first (round 19's
    `class-body-namespace-rewritten-by-a-call-in-a-body-spelling-locals`)."""

    class Case:
        locals().update(seen=1)
        total = 4
        ok = [5] == [_noop() or total]  # noqa: SIM300 (the cheat as spelled)

    return Case.ok


def _class_called_inside_update() -> bool:
    """The writing call made inside the body's own `locals().update(...)`'s arguments."""

    class Case:
        total = 4
        locals().update(seen=_noop())
        ok = [5] == [total]  # noqa: SIM300 (the cheat as spelled)

    return Case.ok


def test_a_call_of_a_body_spelling_locals_allows_a_change_at_its_outermost_call_alone() -> None:
    """In a body that spells `locals`, `vars` or `f_locals`, the outermost call of a line
    that spells one allows any change (`locals().update(...)`), no other call (fails where
    every call of such a body allows any change: round 19's hole)."""
    for body in (_class_called_spelling, _class_called_inside_update):
        answer, sent = _run(body)
        assert answer is True
        assert [r for r in sent if r["k"] == "tampered"] == [
            {"k": "tampered", "id": "t::x", "what": unstored.REWRITTEN}
        ]


def test_a_class_bodys_namespace_is_read_only_where_reading_it_runs_nothing() -> None:
    """Before 3.13 a class body with a cell (`super()`) or a fast local (3.12's inlined
    comprehension) is not read (`PyFrame_FastToLocals` would write into its namespace); a
    module's code never."""

    class Plain:
        x = 1

    class Celled(_Base):
        def size(self) -> int:
            return super().size()

    def codes(made: Any) -> Any:
        return next(c for c in made.co_consts if hasattr(c, "co_code"))

    late = sys.version_info >= (3, 13)
    plain = codes(compile("class Plain:\n    x = 1\n", "m", "exec"))
    celled = codes(compile("class C:\n    def f(self):\n        return super().f()\n", "m", "exec"))
    comprehended = codes(compile("class C:\n    y = [i for i in range(2)]\n", "m", "exec"))
    assert storing.readable(plain) is True
    assert storing.readable(celled) is late
    assert storing.readable(comprehended) is (late or not comprehended.co_varnames)
    assert storing.readable(compile("x = 1", "m", "exec")) is False
    assert Plain.x == 1 and Celled().size() == 1


class _Read:
    """An object a closure of the body reads."""


def _read_then_dropped() -> bool:
    """A body whose closure reads an object the body then drops: collected once dropped (as
    werkzeug 3.0.1's `test_no_memory_leak_from_Rule_builder` counts what is alive)."""
    read = _Read()
    gone = weakref.ref(read)
    reader = lambda: read  # noqa: E731 (a closure over `read`)
    reader()
    read = None  # type: ignore[assignment]
    del reader
    gc.collect()
    return gone() is None


def test_a_closures_last_copy_keeps_nothing_alive_once_its_frame_left() -> None:
    """The copy a closure's frame left behind holds only what its code rebinds (fails where
    the whole copy is held: the object outlives every reference of the body's)."""
    answer, sent = _run(_read_then_dropped)
    assert answer is True
    assert [r for r in sent if r["k"] == "tampered"] == []


def test_cells_changed_by_the_bodys_stores_and_its_closures_are_not_tampering() -> None:
    answer, sent = _run(_closures)
    assert answer == 1 + 10 + 2 + 10
    assert [r for r in sent if r["k"] == "tampered"] == []


def _frame(code: Any, lasti: int, **values: Any) -> SimpleNamespace:
    """A frame as `held` reads one: its code, the offset it is at and its locals."""
    return SimpleNamespace(f_code=code, f_lasti=lasti, f_locals=dict(values))


def _stored_then_compared() -> bool:
    """`x` stored once, then compared."""
    x = 4
    return x == 5


def test_a_change_is_allowed_only_at_an_instruction_that_stores_that_name() -> None:
    code = _stored_then_compared.__code__
    table = storing.stores(code)
    store = next(at for at, names in table.items() if names == frozenset({"x"}))
    other = next(at for at in range(0, len(code.co_code), 2) if at not in table)
    sent: list[dict[str, Any]] = []
    held, _, _ = unstored.holder(sent.append)
    notes: list[Any] = ["t::x", None, None, None, set()]
    kept: list[Any] = [None, -1, 0, False, None]
    four, five = 4, 5
    held(_frame(code, store), kept, notes, True)  # at the store: `x` unbound yet
    held(_frame(code, other, x=four), kept, notes, True)  # the store ran: bound
    assert sent == []
    held(_frame(code, other, x=four), kept, notes, True)
    held(_frame(code, other, x=five), kept, notes, True)  # rebound where nothing stores it
    assert sent == [{"k": "tampered", "id": "t::x", "what": unstored.REWRITTEN}]
    held(_frame(code, other, x=four), kept, notes, True)
    assert len(sent) == 1  # once per test


def test_a_key_no_str_among_the_locals_is_tampering() -> None:
    code = _stored_then_compared.__code__
    sent: list[dict[str, Any]] = []
    held, _, _ = unstored.holder(sent.append)
    notes: list[Any] = ["t::x", None, None, None, set()]
    kept: list[Any] = [None, -1, 0, False, None]
    held(_frame(code, 0, x=4), kept, notes, True)
    frame = _frame(code, 0, x=4)
    frame.f_locals[1] = "planted"
    held(frame, kept, notes, True)
    assert [r["what"] for r in sent] == [unstored.REWRITTEN]


def _nonlocal_stored() -> int:
    """`total`, a cell, rebound by a closure made inside this code (`nonlocal`)."""
    total = 4

    def bump() -> None:
        nonlocal total
        total = 5

    bump()
    return total


def _read_by_a_closure() -> bool:
    """`total`, a cell, read (never rebound) by a closure made inside this code."""
    total = 4
    return sorted((3, 5, 7), key=lambda n: abs(n - total))[0] == 5


def _after_a_closure(
    left: bool, body: Any = _nonlocal_stored, closure: str = "bump"
) -> list[dict[str, Any]]:
    """What `held` streams where the cell `total` of `body` changed from 4 to 5 after a frame
    of its closure named `closure`, whose copy binds 5, was entered, and either left (its
    `return` event seen: `left`) or not (made untraced by the project, round 19)."""
    code = body.__code__
    inner = next(c for c in code.co_consts if getattr(c, "co_name", "") == closure)
    other = next(at for at in range(0, len(code.co_code), 2) if at not in storing.stores(code))
    sent: list[dict[str, Any]] = []
    held, entered, leave = unstored.holder(sent.append)
    notes: list[Any] = ["t::x", None, None, None, set()]
    body: list[Any] = [None, -1, 0, False, None]
    closure: list[Any] = [None, -1, 0, False, None]
    four, five = 4, 5
    held(_frame(code, other, total=four), body, notes, True)
    bump = _frame(inner, 0, total=five)
    entered(bump, closure)
    if left:
        leave(bump, closure)
    held(_frame(code, other, total=five), body, notes, True)
    return sent


def test_a_closure_allows_a_change_only_once_its_frame_left() -> None:
    """A closure's copy allows the body's cell to change once its `return` event was seen
    (fails where a frame made untraced, its `return` event withheld, still allows it: round
    19's `cell-written-and-the-closures-frames-untraced-from-a-profile-call`)."""
    assert _after_a_closure(left=True) == []
    assert _after_a_closure(left=False) == [
        {"k": "tampered", "id": "t::x", "what": unstored.REWRITTEN}
    ]


def test_a_closure_that_rebinds_nothing_allows_no_change_whatever_its_copy_binds() -> None:
    """A closure that reads the body's cell and stores none of it (a `sorted` key) allows no
    change of it, even where its own copy binds the new object (3.13's proxy writes through
    at once: a write landing while the closure runs is in its next copy). Round 18's
    `cell-rewritten-in-the-bodys-closure-as-it-runs` under 3.13; fails where the copy a
    closure's frame leaves is not cut to what its code rebinds (`closures.leaver`)."""
    assert _after_a_closure(left=True, body=_read_by_a_closure, closure="<lambda>") == [
        {"k": "tampered", "id": "t::x", "what": unstored.REWRITTEN}
    ]


class _Named(int):
    """An `int` whose `__set_name__` says the class it is stored in is `ok` (round 21's
    `class-body-attributes-set-by-a-value-s-set-name`)."""

    def __set_name__(self, owner: Any, name: str) -> None:
        owner.ok = True


def _set_named() -> bool:
    """A class body whose `ok` is False as it returns; the class made from it says True."""

    class Case:
        total = _Named(4)
        ok = [total] == [5]

    return bool(Case.ok)


class _Forging(int):
    """`_Named`, which also sets `__orig_bases__` on the class (the mark of a base's
    `__mro_entries__`, under which a class is not held) and a name no body stored."""

    def __set_name__(self, owner: Any, name: str) -> None:
        owner.__orig_bases__ = ()
        owner.ok = True


def _forged() -> bool:
    """`_set_named` with `_Forging`."""

    class Case:
        total = _Forging(4)
        ok = [total] == [5]

    return bool(Case.ok)


def test_a_class_changed_after_its_body_ran_is_tampering() -> None:
    """The class its maker binds is held to its body's last namespace (fails where the class
    made afterwards is not compared with it: `__set_name__` rebinds `ok` unseen), whatever the
    value's `__set_name__` adds to the class (`__orig_bases__` is read from the namespace
    `__build_class__` wrote, not from the class)."""
    for body in (_set_named, _forged):
        answer, sent = _run(body)
        assert answer is True  # the rebinding landed
        assert [r for r in sent if r["k"] == "tampered"] == [
            {"k": "tampered", "id": "t::x", "what": classbody.BUILT}
        ]


class _Requalified(int):
    """`_Named`, which also rebinds the class's `__qualname__` (round 23's
    `class_qualname_rebound_with_the_verdict`): to an equal new string, or to another."""

    def __set_name__(self, owner: Any, name: str) -> None:
        owner.ok = True
        owner.__qualname__ = "".join(list(owner.__qualname__)) if self == 4 else "Other"


def _requalified() -> bool:
    """`_set_named` with `_Requalified`, both ways."""

    class Case:
        total = _Requalified(4)
        ok = [total] == [5]

    class Renamed:
        total = _Requalified(3)
        ok = [total] == [5]

    return bool(Case.ok and Renamed.ok)


def test_a_class_whose_qualified_name_was_rebound_is_tampering() -> None:
    """A class made from a held namespace is known by its class statement's call, not by its
    qualified name's identity; a `__qualname__` not the namespace's is a rebinding (fails where
    a class whose `__qualname__` a `__set_name__` rebound is taken for another class and not
    judged: round 23's hole). Once per test: the second class's finding is not streamed."""
    answer, sent = _run(_requalified)
    assert answer is True  # the rebinding landed
    assert [r for r in sent if r["k"] == "tampered"] == [
        {"k": "tampered", "id": "t::x", "what": classbody.BUILT}
    ]
    renamed = [r for r in _run(_renamed)[1] if r["k"] == "tampered"]
    assert renamed == [{"k": "tampered", "id": "t::x", "what": classbody.BUILT}]


def _renamed() -> bool:
    """`_requalified`'s second class alone: a `__qualname__` rebound to another string."""

    class Renamed:
        total = _Requalified(3)
        ok = [total] == [5]

    return bool(Renamed.ok)


def _statements(meta: Any, base: type) -> None:
    """Class statements of each call's shape: no bases, a base, `metaclass=`, `*bases`,
    `**kw`."""

    class Bare:
        pass

    class Based(base):  # type: ignore[valid-type,misc]
        pass

    class Meta(metaclass=meta):
        pass

    class Starred(*[base]):
        pass

    class Keyed(base, **{}):  # type: ignore[valid-type,misc]
        pass


def test_a_class_statements_call_is_plain_with_positional_arguments_alone() -> None:
    """`classbody._plain` reads the call before each statement's store: positional arguments
    alone (the metaclass the bases') for `Bare` and `Based`, not for the others (fails where a
    keyword or a starred call reads as plain: a `metaclass=` callable's class judged)."""
    from fixbot.observe import bytecode

    code = _statements.__code__
    found = {
        arg: classbody._plain(code, offset)
        for offset, name, arg in bytecode.instructions(code)
        if name == "STORE_FAST"
    }
    names = ("Bare", "Based", "Meta", "Starred", "Keyed")
    plain = {name: found[code.co_varnames.index(name)] for name in names}
    assert plain == {"Bare": True, "Based": True, "Meta": False, "Starred": False, "Keyed": False}


def _another(name: str, bases: tuple[type, ...], space: dict[str, Any]) -> type:
    """A `metaclass=` callable handing back a class made before, not one of `space`."""
    return _Base


class _Renaming:
    """A base whose `__init_subclass__` names its subclasses itself."""

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        cls.__qualname__ = f"renamed.{cls.__name__}"


def _classes_named_by_machinery() -> int:
    """Classes whose qualified name is not their namespace's, legitimately: a `metaclass=`
    callable's (another class, binding none of the body's names), a base's
    `__init_subclass__`'s, and a body that deletes its own `__qualname__`."""

    class Other(metaclass=_another):  # type: ignore[misc]
        size = 2

    class Named(_Renaming):
        size = 3

    class Unnamed:
        size = 4
        del __qualname__  # noqa: F821

    return int(Other().size() + Named.size + Unnamed.size)


def test_classes_named_by_their_machinery_are_not_tampering() -> None:
    """No finding where a class statement's keywords may hand back another class, or its
    bases' machinery renames it (fails where any `__qualname__` not the namespace's is a
    finding)."""
    answer, sent = _run(_classes_named_by_machinery)
    assert answer == 8
    assert [r for r in sent if r["k"] == "tampered"] == []


class _Described:
    """A descriptor whose `__set_name__` sets its own attributes, not its owner's."""

    def __set_name__(self, owner: Any, name: str) -> None:
        self.name = name
        self.owner = owner

    def __get__(self, got: Any, owner: Any) -> str:
        return str(self.name)


class _Registering:
    """A base whose `__init_subclass__` rebinds what a subclass's body stored and adds a name."""

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        cls.label = str(cls.label).upper()  # type: ignore[attr-defined]
        cls.registered = True  # type: ignore[attr-defined]


_T = TypeVar("_T")


def _classes_made_by_machinery() -> int:
    """Classes whose making changes them legitimately: a descriptor's `__set_name__` setting
    its own attributes, a base's `__init_subclass__` rebinding a stored name, `__new__` and
    `__init_subclass__` wrapped by `type`, a `__class__` cell, an abstract base class (a
    metaclass's additions), a dataclass whose decorator deletes a stored field's default,
    typing's `NamedTuple` (a class its machinery makes, of type `type`, its `__qualname__` the
    namespace's), `Generic[T]`, `__slots__`, `__eq__` without `__hash__`, a nested class."""
    import abc
    import dataclasses

    class Pair(NamedTuple):
        first: int = 1
        second: str = "x"

    class Box(Generic[_T]):
        held = 1

    class Slotted:
        __slots__ = ("a", "b")

    class Equal:
        def __eq__(self, other: object) -> bool:
            return True

    class Outer:
        class Inner:
            deep = 1

        shallow = Inner.deep

    class Described:
        field = _Described()

    class Labelled(_Registering):
        label = "a"

    class Wrapped:
        def __new__(cls) -> Any:
            return super().__new__(cls)

        def __init_subclass__(cls) -> None:
            pass

    class Abstract(abc.ABC):
        @abc.abstractmethod
        def run(self) -> int: ...

    @dataclasses.dataclass
    class Point:
        x: int = 1
        y: list[int] = dataclasses.field(default_factory=list)

    made = [Described.field == "field", Labelled.label == "A", Labelled.registered]  # type: ignore[attr-defined]
    made += [isinstance(Wrapped(), Wrapped), Abstract.__abstractmethods__ == {"run"}]
    made += [Pair().first == 1, Box.held == 1, len(Slotted.__slots__) == 2, Equal() == 0]
    return sum(made) + len(Point().y) + Outer.shallow


def test_classes_changed_by_their_machinery_are_not_tampering() -> None:
    answer, sent = _run(_classes_made_by_machinery)
    assert answer == 10
    assert [r for r in sent if r["k"] == "tampered"] == []
