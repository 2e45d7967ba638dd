"""The observer's hook around a test's call (`pytest_runtest_call`): the body's digest and the
tracer as the call begins, and for a watched test its profile function set for the call, how
its body left it (`exit`) and the comparisons it ran, judged as the call ends (`eq`); a
watched test whose function runs with builtins not the builtins module's is tampered with
(`_builtins_replaced`, round 26).

Copied beside the plugin as `<module>_hooks` and loaded with it, inside the project's own
Python (3.8 or later). It imports the standard library and pytest alone; the observer's other
parts it uses are given to it (`call_hooks`' `parts`).
"""

from __future__ import annotations

import builtins
import sys
from collections.abc import Callable
from types import FunctionType, MethodType, ModuleType
from typing import Any

import pytest


def _builtins_replaced(
    function: Any,
    _real: Any = builtins.__dict__,  # captured at load: what a test's code runs with
    _getattr: Any = getattr,
    _type: Any = type,
    _dict: Any = dict,
    _module: Any = ModuleType,
    _vars: Any = vars,
) -> bool:
    """Whether Python function `function` runs with builtins other than the builtins module's
    own dictionary: its own (3.10 and later: `__builtins__`, taken from its module's globals
    as it was made) or its module's (`__globals__["__builtins__"]`, a module or a dictionary:
    what functions made later and, before 3.10, its frames take). Round 26: app.py, imported
    by the test module, set that module's `__builtins__` to a copy whose `__build_class__`
    made the test's class anew (every function defined after the import ran with it); the
    real `builtins.__build_class__`, fingerprinted machinery, was untouched. False where
    `function` has no globals (no Python function)."""
    space = _getattr(function, "__globals__", None)
    if _type(space) is not _dict:
        return False
    held = [_getattr(function, "__builtins__", _real), space.get("__builtins__", _real)]
    for value in held:
        if _type(value) is _module:
            value = _vars(value)
        if value is not _real:
            return True
    return False


def _compare(
    test: str, function: Any, found: Any, calls: Any, tampered: Callable[[str, str], None]
) -> None:
    """Streams what changed of watched test `test`'s Python `function` since collection found
    it (`found`: its identities, or None): the function itself, or the builtins its code runs
    with (`_builtins_replaced`)."""
    if found is not None and calls._identity(function) != found[:2]:
        tampered(test, "the test function pytest collected was replaced")
    if _builtins_replaced(calls._innermost(function)):
        tampered(test, "the test function's builtins are not the builtins module's")


def call_hooks(
    send: Callable[[dict[str, Any]], None],
    watched: frozenset[str],
    collected: dict[str, Any],
    calling: set[str],
    state: dict[str, Any],
    known_answer: Callable[[str], None],
    parts: Any,
) -> list[Callable[..., Any]]:
    """The hook around a watched test's call (`pytest_runtest_call`): how its body left the
    call is streamed as the call ends (`exit`), the moment it is known; the observer's profile
    function (`watch.watcher`, answering this hook's control events alone) notes the call.
    The observer's trace function (`operands.tracer`) follows the watched body's frame, and
    the frames of other code of the test module's while it runs, and streams the operands of
    each comparison they make (`op`); for every test, the
    comparison its body's failing assertion made is streamed by `pytest_assertrepr_compare`
    (`failed.failed_hook`, `fail`), which needs the test being called, and the truth test of
    its failing bare assertion (`assert r`) by `pytest_runtest_makereport`
    (`failedtruth.failed_truth_hook`). `parts` holds the observer's modules this uses
    (`calls`, `watch`, `bodies`, `integrity`, `operands`, `failed`, `shapes`, `truth`,
    `failedtruth`), read once, here."""
    calls, profiler, bodies, integrity = parts.calls, parts.watch, parts.bodies, parts.integrity
    operands, shapes = parts.operands, parts.shapes
    setprofile, getprofile = sys.setprofile, sys.getprofile
    # the profile function answers control events from the call hook's own code alone (not
    # from any of the observer's: one of its hooks the code under test calls by hand, with an
    # object whose hash is that control event, would restart the call's notes)
    hook = [c for c in sys._getframe().f_code.co_consts if _named(c, "pytest_runtest_call")]
    profile = profiler.watcher(send, frozenset(id(c) for c in hook))  # its notes its own
    # an operand's shape; a truth test's (op "bool", `truth.py`) its truth's
    digest, truth = bodies._comparison_digest, parts.truth
    shape = truth.joined(shapes.shape_reader(digest), truth.truth_reader(digest))
    trace = operands.tracer(send, shape, frozenset(id(c) for c in hook))
    current: list[Any] = [None, None]  # the test being called, its body's code
    failed = parts.failed.failed_hook(send, shape, current)
    failed_truth = parts.failedtruth.failed_truth_hook(send, shape, _code_of, calls._innermost)
    tampered = integrity._tampered(send)
    report_comparisons = _comparer(send, calls)
    native = object()  # what `watched_function` gives for a test with no Python function

    def watched_function(item: Any) -> Any:
        """The Python function of a watched test about to be called (None: not watched;
        `native`: nothing to enter, which is said), after the known answer is asked before the
        first one and the function is compared with what collection found."""
        if item.nodeid not in watched:
            return None
        if not state["asked"]:  # what a test that must fail reports, before the first watched
            state["asked"] = True
            known_answer("first")
        function = getattr(item, "obj", None)
        if getattr(getattr(function, "__func__", function), "__code__", None) is None:
            send({"k": "body", "id": item.nodeid, "ran": True, "native": True})
            return native
        _compare(item.nodeid, function, collected.get(item.nodeid), calls, tampered)
        return function

    # what the hook uses, held as positional defaults (pluggy passes `item` alone): a closure
    # cell can be swapped from outside for the length of one call and put back before the next
    # check; a default cannot be written without ending the process (`reach.py`)
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(
        item: Any,
        _profile: Any = profile,
        _watched: Any = watched_function,
        _send: Any = send,
        _tampered: Any = tampered,
        _report: Any = report_comparisons,
        _calling: Any = calling,
        _native: Any = native,
        _get: Any = getprofile,
        _set: Any = setprofile,
        _innermost: Any = calls._innermost,
        _coded: Any = bodies._coded,
        _tracing: Any = bodies._tracing,
        _trace: Any = trace,
        _current: Any = current,
        _gettrace: Any = sys.gettrace,
        _settrace: Any = sys.settrace,
        _code_of: Any = _code_of,
    ) -> Any:
        """Around the call phase of a test: the digest of the body it runs and whether a trace
        function is set as the call begins (`code`) and as it ends, for every test (the start's
        run watches none: fixbot compares a watched test's with the start's run's); for a
        watched test also whether its body (the code of the function pytest collected, under
        its decorators) was entered, how it left, and the Python comparison dunders called."""
        function = _watched(item)
        if function is None:  # not watched
            obj = getattr(item, "obj", None)
            _coded(_send, item, obj, _innermost)
            _current[:] = [item.nodeid, _code_of(obj, _innermost)]
            try:
                yield
            finally:
                _current[:] = [None, None]
            if _tracing():  # rare: said only when set, the start's run compares it
                _send({"k": "traced", "id": item.nodeid})
            return
        _calling.add(item.nodeid)
        if function is _native:  # no Python function to enter (a doctest)
            try:
                yield
            finally:
                _calling.discard(item.nodeid)
                _send({"k": "exit", "id": item.nodeid, "how": "native"})
            return
        root = str(getattr(item.config, "rootpath", None) or item.config.rootdir)
        previous = _get()
        inner = _innermost(function)
        _coded(_send, item, function, _innermost)
        body = (item.nodeid, inner.__code__, getattr(inner, "__globals__", None))
        _profile(None, "begin", (*body, root.rstrip("/") + "/"))
        chained = _gettrace()  # a coverage tool's: the observer's chains it, and puts it back
        _trace(None, "begin", (item.nodeid, body[1], chained))
        _current[:] = [item.nodeid, body[1]]
        _settrace(_trace)
        _set(_profile)
        try:
            yield
        finally:
            blinded = _get() is not _profile
            untraced = _gettrace() is not _trace  # replaced or removed while the call ran
            _settrace(chained)
            traced = _tracing() or untraced  # the observer's own is not the project's
            _set(previous)
            _calling.discard(item.nodeid)
            _current[:] = [None, None]
            notes = _profile(None, "end", None)
            _trace(None, "end", None)
        if notes is None:  # only the observer's code ends a call's notes: no call was noted
            notes = {"ran": False, "returned": False, "raised": False, "types": {}}
            _tampered(item.nodeid, "the observer's notes of the call were closed while it ran")
        _send({"k": "body", "id": item.nodeid, "ran": notes["ran"]})
        # how the body left this call, streamed now: fixbot pairs it with the call's report
        left = ("returned", "raised", "unseen", "unentered")
        how = 3 if not notes["ran"] else 0 if notes["returned"] else 1 if notes["raised"] else 2
        _send({"k": "exit", "id": item.nodeid, "how": left[how], "tr": traced})
        if blinded:
            _tampered(item.nodeid, "the observer's profile function was removed while it ran")
        _report(item, notes, root)

    return [pytest_runtest_call, failed, failed_truth]


def _code_of(
    function: Any,
    innermost: Callable[[Any], Any],
    _type: Any = type,
    _function: Any = FunctionType,
    _callable: tuple[type, ...] = (FunctionType, MethodType),
    _getcode: Any = FunctionType.__dict__["__code__"].__get__,
) -> Any:
    """The code of a test's body (`function` under its decorators, `innermost(function)`), or
    None where it is no Python function or method (a doctest, a callable object)."""
    if _type(function) not in _callable:
        return None
    inner = innermost(function)
    return _getcode(inner) if _type(inner) is _function else None


def _swapped(then: type, now: type, _name: Any = type.__dict__["__qualname__"].__get__) -> str:
    """The words of a value handed back to the body whose class changed before the call ended
    (`classes.swapped`), its classes named through `type`'s own accessor."""
    return (
        f"a value handed back to its body changed class while its call ran (a {_name(then)}"
        f" as it was handed back, a {_name(now)} as the call ended)"
    )


def _named(code: Any, name: str) -> bool:
    """Whether `code` is a code object named `name`."""
    return getattr(code, "co_name", None) == name and hasattr(code, "co_code")


def _tampered(send: Callable[[dict[str, Any]], None], test: str, notes: dict[str, Any]) -> None:
    """Stream what the profile function's notes hold as tampering, read as the call ended:
    the objects pinned at a hand-off whose class changed (`classes.swapped`), and an object
    handed back at a comparison whose class's own comparison never ran for it there
    (`unread.settler`: compared where the observer reads no operand)."""
    for then, now in notes.get("swapped", ())[:3]:
        send({"k": "tampered", "id": test, "what": _swapped(then, now)})
    if notes.get("owed"):
        send({"k": "tampered", "id": test, "what": notes["unsettled"]})


def _comparer(
    send: Callable[[dict[str, Any]], None], calls: Any
) -> Callable[[Any, dict[str, Any], str], None]:
    """The function streaming the comparison dunders a watched test ran (`notes`, from the
    profile function's `end`) that the project's code defines (`eq`: one for each `saw` the
    profile function streamed), or whose values the project's code handed back to the test's
    body (`via`: the file of the code that returned one, wherever its type is defined); such a
    value's `__eq__` is also asked whether it is a tolerance (`calls._tolerates`, about the int
    or float it was compared with); a slot no frame runs of a class pinned at a hand-off
    (`classes.pinner`) is judged as the walk's (`calls.made`) are, handed back by the code that
    returned it; an object pinned there whose class changed by the call's end is tampering,
    streamed first. The notes are copied into tuples first: asking a project's
    `__eq__` runs its code, which finds this frame but no container the rest is read from.
    `calls` is the observer's part of that name."""

    def report_comparisons(item: Any, notes: dict[str, Any], where: str) -> None:
        _tampered(send, item.nodeid, notes)
        noted = tuple(notes["types"].values())
        near = tuple(notes.get("against", {}).items())
        handed = tuple(notes.get("handed", ()))
        slots = tuple(notes.get("aliased", {}).values())  # counted at the hand-off
        types = {
            (kind, dunder): (instance, function) for kind, dunder, instance, function, _ in noted
        }
        asked = {(kind, dunder): other for kind, dunder, _, _, other in noted}
        kinds = {id(kind): kind for kind, _, _, _, _ in noted}
        against = {(kinds[k], d): v for (k, d), v in near if k in kinds}
        handed_from = calls.settle(list(handed), types, where)
        for kind, dunder, slot, code in slots:
            types.setdefault((kind, dunder), (calls._SLOT, slot))  # gone by now, maybe
            if calls._in_project(code.co_filename, where):  # counted, as the walk counts it
                handed_from.setdefault((kind, dunder), code.co_filename)
        made, full = calls.made(types, where)  # what C made and no frame handed back
        if full:  # more classes than are walked: those past them went unseen
            send({"k": "full", "id": item.nodeid})
        for key, (instance, function) in tuple(types.items()):
            kind, dunder = key
            if instance is calls._SLOT:
                record = calls._slot(item.nodeid, kind, dunder, function, where)
                record["made"] = key in made
            else:
                record = calls._probe(item.nodeid, kind, dunder, instance, function, where)
                # what was probed, by identity: paired with what the profile function saw run
                record.update(fn=id(function), obj=id(instance))
                if key in asked and dunder != "__bool__":  # asked again: paired with the answer
                    record["again"] = calls._again(instance, function, asked[key])
            via = calls._relative(handed_from.get(key, "/"), where)
            if not via.startswith("/"):  # returned by the project's code
                record["via"] = via
                if instance is not calls._SLOT and key in against:
                    record["tolerant"] = calls._tolerates(instance, function, against[key])
            if not record["file"].startswith("/") or "via" in record:
                send(record)

    return report_comparisons
