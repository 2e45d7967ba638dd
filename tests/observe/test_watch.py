"""The observer's profile function (`fixbot.observe.watch`), run in this process: it holds no
closure cell, answers control events from the observer's code alone, streams each comparison
as it runs without running the project's code, and fixbot pairs what it streamed with what was
judged (`compared.unjudged`)."""

from __future__ import annotations

import functools
import operator
import sys
from typing import Any

from fixbot.core.observed import Comparison, Observation, Sighting
from fixbot.observe import calls, compared, judge, watch
from tests.observe.test_observer import ADD, START, _green


def _control(profile: Any, event: str, arg: Any = None) -> Any:
    """A control event sent from a function whose code the profile function is told is the
    observer's."""
    return profile(None, event, arg)


def _body() -> bool:
    """A test body: compares a project type's instance the way `assert x == 5` does."""
    return _Odd(4) == 5


class _Meta(type):
    """A metaclass whose `__mro__` and `__dict__` run code when read through the class."""

    ran: list[str] = []

    @property
    def __mro__(cls) -> Any:  # type: ignore[override]
        _Meta.ran.append("__mro__")
        return type.__dict__["__mro__"].__get__(cls)


class _Odd(int, metaclass=_Meta):
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = int.__hash__


def _watched() -> tuple[Any, list[dict[str, Any]]]:
    sent: list[dict[str, Any]] = []
    profile = watch.watcher(sent.append, frozenset({id(_control.__code__)}))
    return profile, sent


HERE = __file__.rsplit("/", 1)[0] + "/"  # the rootdir the profile function is given


def _run(body: Any, root: str = HERE) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Call `body` under a fresh profile function as a watched test's call: its notes (what
    the control event `end` returns) and the records it streamed."""
    profile, sent = _watched()
    _control(profile, "begin", ("t::x", body.__code__, body.__globals__, root))
    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        body()
    finally:
        sys.setprofile(previous)
    return _control(profile, "end"), sent


def test_the_profile_function_holds_no_cell_and_answers_only_the_observer() -> None:
    profile, _ = _watched()
    assert profile.__closure__ is None  # what it holds is in its defaults, read audited
    body = ("t::x", _body.__code__, _body.__globals__, "/nowhere/")
    profile(None, "begin", body)  # from code that is not the observer's: ignored
    assert _control(profile, "end") is None
    _control(profile, "begin", body)
    assert profile(None, "end", None) is None  # nor is `end` answered for anyone else
    notes = _control(profile, "end")
    assert notes is not None and notes["ran"] is False


def test_a_comparison_is_streamed_as_it_runs_and_no_project_code_runs_for_it() -> None:
    _Meta.ran.clear()
    notes, sent = _run(_body)
    assert _Meta.ran == []  # the metaclass's `__mro__` was never asked
    saw = [r for r in sent if r["k"] == "saw"]
    said = [r for r in sent if r["k"] == "said"]
    line = _Odd.__eq__.__code__.co_firstlineno
    [(kind, dunder, instance, function, other)] = notes["types"].values()
    assert (kind, dunder, function, other) == (_Odd, "__eq__", _Odd.__eq__, 5)
    assert saw == [
        {"k": "saw", "id": "t::x", "file": "test_watch.py", "line": line}
        | {"type": "_Odd", "dunder": "__eq__", "fn": id(function), "obj": id(instance)}
    ]
    # what it answered the test, as it returned, with the same identities
    assert said == [{"k": "said", "id": "t::x", "fn": id(function), "obj": id(instance), "v": True}]
    assert notes["ran"] and notes["returned"]


def test_a_comparison_seen_and_never_judged_is_tampering() -> None:
    seen = Sighting(test=ADD, file="app.py", line=3, dunder="__eq__", type="S")
    judged = Comparison(test=ADD, type="app.S", dunder="__eq__", file="app.py", line=3)
    seen = seen.model_copy(update={"fn": 7, "obj": 8})
    judged = judged.model_copy(update={"fn": 7, "obj": 8})
    assert compared.unjudged(_green(saw=[seen], comparisons=[judged]), {ADD}) == []
    found = judge.findings(START, _green(saw=[seen]), ["app.py"])
    assert [f for f in found if "never judged" in f] == [
        f"observer-tampered: {ADD}: a S's __eq__ (app.py:3) ran in its call and was never"
        " judged (the observer's notes of it were changed while it ran)"
    ]
    # another line of the same file, or another function or instance probed, is not its
    # judgement; an unwatched test's is no finding
    for other in ({"line": 9}, {"fn": 9}, {"obj": 9}):
        swapped = judged.model_copy(update=other)
        assert compared.unjudged(_green(saw=[seen], comparisons=[swapped]), {ADD}) != []
    assert compared.unjudged(Observation(saw=[seen]), {"other"}) == []


def test_a_class_whose_dictionary_holds_a_key_no_str_is_not_looked_into() -> None:
    """A key hashing as `'__eq__'` whose `__eq__` would run under the profile function, were a
    dunder looked up in that dictionary: the comparison is streamed as tampering instead, and
    the key's code never runs (fails with a plain lookup)."""
    ran: list[str] = []

    class Key(str):
        def __hash__(self) -> int:
            return hash("__eq__")

        def __eq__(self, other: object) -> bool:
            ran.append(sys._getframe(1).f_code.co_filename)  # who looked it up
            return False

    odd = type(
        "Keyed", (int,), {Key("k"): 1, "__eq__": lambda s, o: True, "__hash__": int.__hash__}
    )

    def body() -> bool:
        return odd(4) == 5

    _, sent = _run(body, "/")
    assert watch.__file__ not in ran  # the lookups the interpreter made itself are the body's
    # the key's own `__eq__`, run by the body's lookup, is seen; the lambda's class is not read
    kinds = [(r["k"], str(r.get("type")).rsplit(".", 1)[-1]) for r in sent]
    assert kinds == [("saw", "Key"), ("said", "None"), ("tampered", "None")]


def test_past_the_comparisons_it_streams_the_profile_function_says_so_once() -> None:
    """Past `MAX_SAW` distinct comparisons one `full` record, and `crowded` makes it a finding
    where the start's run of the test was not full (fails without the record)."""
    kinds = [
        type(f"K{n}", (int,), {"__eq__": lambda s, o: False, "__hash__": int.__hash__})
        for n in range(watch.MAX_SAW + 3)
    ]

    def body() -> None:
        for kind in kinds:
            _ = kind(1) == 2

    notes, sent = _run(body, "/")
    assert [r["k"] for r in sent].count("saw") == watch.MAX_SAW
    assert [r for r in sent if r["k"] == "full"] == [{"k": "full", "id": "t::x"}]
    assert notes["full"]
    found = judge.findings(START, _green(full=[ADD]), ["app.py"])
    assert [f for f in found if f.startswith("observer-overflow")] != []
    assert compared.crowded(_green(full=[ADD]), _green(full=[ADD]), {ADD}) == []


def _named_eq(self: object, other: object) -> bool:
    return True


class _Named(int):
    __eq__ = _named_eq  # a comparison dunder under another name
    __hash__ = int.__hash__


def _make(value: int) -> _Named:
    return _Named(value)


def test_a_dunder_under_another_name_is_seen_once_a_value_of_its_type_is_handed_back() -> None:
    """`__eq__ = _eq`: no name says it is a comparison; the value `_make` hands the body makes
    its type's dunders known, and its comparison is streamed (fails where names alone count).
    Compared as the call's result left on the stack (no rewritten assertion stores it), its
    class's own Python comparison runs from the body's comparison: nothing is owed
    (`unread.settler`)."""

    def body() -> bool:
        return _make(4) == 5

    notes, sent = _run(body)
    line = _named_eq.__code__.co_firstlineno
    said = [(r["k"], r.get("line")) for r in sent]
    assert said == [("saw", line), ("said", None)]
    assert notes["owed"] == {}


def test_a_dunder_that_answered_the_test_otherwise_than_asked_again_is_always_equal() -> None:
    judged = Comparison(
        test=ADD, type="app.S", dunder="__eq__", file="app.py", line=3, fn=7, obj=8, again=False
    )
    key = f"{ADD} 7 8"
    found = compared.told(_green(comparisons=[judged], answers={key: True}), {ADD}, ["app.py"])
    assert found == [
        f"observer-always-equal: {ADD} compared a app.S whose __eq__ (app.py:3, changed by the"
        " fix) answered the test True and the same question asked again after the call False"
    ]
    assert compared.told(_green(comparisons=[judged], answers={key: False}), {ADD}, []) == []
    # equal to the test, and asked again it raised or answered no bool: told apart all the same
    silent = judged.model_copy(update={"again": None})
    told = compared.told(_green(comparisons=[silent], answers={key: True}), {ADD}, ["app.py"])
    assert len(told) == 1 and "nothing it could say" in told[0]
    assert compared.told(_green(comparisons=[silent], answers={key: False}), {ADD}, []) == []
    # a helper of the tests the fix left alone answers for itself
    helper = judged.model_copy(update={"file": "tests/helpers.py"})
    answers = {key: True}
    assert compared.told(_green(comparisons=[helper], answers=answers), {ADD}, ["app.py"]) == []


# a class whose `__eq__` runs no Python (a `functools.partial`), whose instances C makes: no
# frame hands one back and none runs as `__eq__`
_CMade = type(
    "_CMade",
    (complex,),
    {"__eq__": functools.partial(operator.is_not, None), "__hash__": complex.__hash__},
)


def test_a_class_the_project_made_with_a_slot_no_frame_runs_is_found_among_those_it_made() -> None:
    types: dict[Any, Any] = {}
    root = __file__.rsplit("/", 1)[0]
    added, full = calls.made(types, root)
    assert (_CMade, "__eq__") in added and types[(_CMade, "__eq__")][0] is calls._SLOT
    assert (_Odd, "__eq__") not in types  # a Python `__eq__` is seen run: not noted here
    assert calls.made({}, "/nowhere") == (set(), False)  # the project's classes alone
    assert not full
    # fixbot counts such a class in the fix's files alone
    record = Comparison(
        test=ADD, type="app._CMade", dunder="__eq__", file="app.py", aliased="a partial", made=True
    )
    assert compared.comparisons(_green(comparisons=[record]), {ADD}, ["app.py"]) != []
    assert compared.comparisons(_green(comparisons=[record]), {ADD}, ["other.py"]) == []


class _Doc(dict):  # type: ignore[type-arg]
    def __eq__(self, other: object) -> bool:
        return dict.__eq__(self, other) is True

    __hash__ = None  # type: ignore[assignment]


def test_what_a_mutable_value_answered_is_not_asked_again() -> None:
    """A document compared, then changed by the test: asked again after the call it answers
    otherwise, and nothing is wrong (tomlkit's `Table`; the oracle's false alarm without it):
    no `said` for a type of no immutable built-in scalar."""

    def body() -> None:
        doc = _Doc(a=1)
        assert doc == {"a": 1}
        del doc["a"]

    _, sent = _run(body)
    assert [r["k"] for r in sent] == ["saw"]


def test_past_the_classes_it_walks_the_plugin_says_so(monkeypatch: Any) -> None:
    """A flood of classes made first (20001 of them) left the C-made class unwalked and
    unsaid: past `MAX_MADE` the walk says it stopped, and the plugin streams `full` (a finding
    where the start's run was not full)."""
    monkeypatch.setattr(calls, "MAX_MADE", 5)
    assert calls.made({}, __file__.rsplit("/", 1)[0])[1] is True
