"""The observer's profile function (`fixbot.observe.watch`), run in this process: it holds no
closure cell, answers control events from the observer's code alone, streams each comparison
as it runs without running the project's code, and fixbot pairs what it streamed with what was
judged (`compared.unjudged`)."""

from __future__ import annotations

import sys
from typing import Any

from fixbot.core.observed import Comparison, Observation, Sighting
from fixbot.observe import compared, judge, watch
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
    profile, sent = _watched()
    root = __file__.rsplit("/", 1)[0] + "/"
    _control(profile, "begin", ("t::x", _body.__code__, _body.__globals__, root))
    _Meta.ran.clear()
    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        _body()
    finally:
        sys.setprofile(previous)
    notes = _control(profile, "end")
    assert _Meta.ran == []  # the metaclass's `__mro__` was never asked
    saw = [r for r in sent if r["k"] == "saw"]
    line = _Odd.__eq__.__code__.co_firstlineno
    [(kind, dunder, instance, function)] = notes["types"].values()
    assert (kind, dunder, function) == (_Odd, "__eq__", _Odd.__eq__)
    assert saw == [
        {"k": "saw", "id": "t::x", "file": "test_watch.py", "line": line}
        | {"type": "_Odd", "dunder": "__eq__", "fn": id(function), "obj": id(instance)}
    ]
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

    profile, sent = _watched()
    _control(profile, "begin", ("t::x", body.__code__, body.__globals__, "/"))
    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        body()
    finally:
        sys.setprofile(previous)
    _control(profile, "end")
    assert watch.__file__ not in ran  # the lookups the interpreter made itself are the body's
    # the key's own `__eq__`, run by the body's lookup, is seen; the lambda's class is not read
    kinds = [(r["k"], str(r.get("type")).rsplit(".", 1)[-1]) for r in sent]
    assert kinds == [("saw", "Key"), ("tampered", "None")]


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

    profile, sent = _watched()
    _control(profile, "begin", ("t::x", body.__code__, body.__globals__, "/"))
    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        body()
    finally:
        sys.setprofile(previous)
    notes = _control(profile, "end")
    assert [r["k"] for r in sent].count("saw") == watch.MAX_SAW
    assert [r for r in sent if r["k"] == "full"] == [{"k": "full", "id": "t::x"}]
    assert notes["full"]
    found = judge.findings(START, _green(full=[ADD]), ["app.py"])
    assert [f for f in found if f.startswith("observer-overflow")] != []
    assert compared.crowded(_green(full=[ADD]), _green(full=[ADD]), {ADD}) == []
