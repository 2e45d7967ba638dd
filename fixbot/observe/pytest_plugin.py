"""fixbot's observer inside pytest: each test's outcome streamed, as pytest decides it, to a
channel fixbot holds, with what it saw of the runner's machinery and of the tests' bodies.

This file runs inside the project's own Python (3.8 or later, whatever its version), loaded by
`-p <name>` from a folder fixbot made (`fixbot.observe.channel`), before any conftest or test
module is imported. It imports the standard library and pytest alone, and none of fixbot.

The channel: `FIXBOT_OBSERVER=<in>:<inode>,<out>:<inode>` names two inherited pipe
descriptors (by number, and by inode so that a process holding other files under those
numbers leaves them alone). From `<in>`
the plugin reads one line (the run's nonce and the test ids to watch) and closes it; `<out>` is
moved to a high, close-on-exec descriptor; the variable leaves `os.environ`. Each record is one
line, `nonce<TAB>json`:

    {"k": "start", "watch": [nodeid, ...]}          a session began, watching these tests
    {"k": "r", "id": nodeid, "w": when, "o": outcome}   one report (setup, call, teardown)
    {"k": "body", "id": nodeid, "ran": bool}        a watched test's body entered or not
    {"k": "tampered", "id": nodeid, "what": text}   a watched test's function (or its code) or
                                                    the globals it reads replaced after
                                                    collection, the observer's profile removed
                                                    while it ran, or its call reported passed
                                                    while its body never returned
    {"k": "known", "at": "first"|"end", "o": outcome}   the known-answer test's report
    {"k": "eq", "id": nodeid, "type": ..., "dunder": ..., "file": ..., "always": bool}
    {"k": "machinery", "changed": [names]}          runner machinery no longer what it was
    {"k": "hooks", "hooks": [[hook, plugin], ...]}  who implements the verdict's hooks
    {"k": "end", "status": exitstatus}              the session finished
    {"k": "reach", "ev": event, "file": f, "by": g} the project's file `f` raised an audit event
                                                    through which code reaches what it has no
                                                    name for (`gc.get_objects`,
                                                    `sys.setprofile`, `ctypes`...; `by` the
                                                    raising code's file): from `reach.py`,
                                                    whose audit hook cannot be removed

The comparisons come from a profile function set for a watched test's call phase alone (the
tests that failed at the start, named by fixbot): it sees the Python `__eq__`/`__ne__`/`__bool__`
that run and the object they run on, which is then asked about an object it cannot know.
pytest's `pytest_assertion_pass` hook gives an assertion's text, not its operands, so it cannot
say which type compared. A comparison implemented in C (`int.__add__` standing as `__eq__`) is
not seen; the body and machinery checks do not depend on it. A value the project's code hands
back to the body (and the items of a list, tuple, set or dict it is) is probed too, whatever
file its type's `__eq__` is in (`unittest.mock.ANY` returned by the code under test).

The body's own verdict: the profile function also sees how each entry of the body's code left
it (the instruction its frame stopped at: a return, a suspension at `await`, else an exception
unwinding it). A watched test whose call is reported passed while no entry of its body
returned was passed by what reported it, however that told the known-answer test apart and
spared it.

The known answer: before the first watched test's call and at the session's end the observer
runs a test of its own that must fail (it raises AssertionError) through pytest's own call and
report machinery (`Function.runtest`, the `pytest_pyfunc_call` implementations, `CallInfo`,
every `pytest_runtest_makereport` implementation and wrapper, registered early or late), and
streams what that machinery reported. Whatever in the process makes a failing test pass makes
this one pass too, however it is spelled: the observer asks the machinery a question whose
answer it knows instead of recognising the objects that give it. The report is not logged (no
terminal line, no JUnit entry, no effect on the exit status).

A record is written when its fact is known, not at exit: a process that ends early leaves a
stream without its `end`, and a report rewritten at exit disagrees with what was streamed.
"""

from __future__ import annotations

import dis
import fcntl
import importlib
import inspect
import json
import os
import sys
from collections.abc import Callable, Iterable
from types import (
    BuiltinFunctionType,
    ClassMethodDescriptorType,
    FrameType,
    MethodDescriptorType,
    MethodWrapperType,
    WrapperDescriptorType,
)
from typing import Any

import pytest

VARIABLE = "FIXBOT_OBSERVER"
HIGH_FD = 700  # the channel's descriptor is moved at or above this number
# What decides a verdict inside pytest and pluggy, and how a process ends: (module, attribute
# path). Captured when the plugin loads, compared at each report and at the session's end.
MACHINERY = (
    ("_pytest.python", "Function.runtest"),
    ("_pytest.python", "Function._getobj"),
    ("_pytest.python", "pytest_pyfunc_call"),
    ("_pytest.unittest", "TestCaseFunction.runtest"),
    ("_pytest.runner", "runtestprotocol"),
    ("_pytest.runner", "call_and_report"),
    ("_pytest.runner", "call_runtest_hook"),
    ("_pytest.runner", "CallInfo.from_call"),
    ("_pytest.reports", "TestReport.from_item_and_call"),
    ("_pytest.reports", "TestReport.__init__"),
    ("_pytest.reports", "BaseReport.passed"),
    ("_pytest.reports", "BaseReport.failed"),
    ("_pytest.main", "pytest_runtestloop"),
    ("_pytest.main", "wrap_session"),
    ("pluggy._callers", "_multicall"),
    ("pluggy._hooks", "HookCaller.__call__"),
    ("pluggy._hooks", "_HookCaller.__call__"),
    ("pluggy._manager", "PluginManager._hookexec"),
    ("os", "_exit"),
    ("sys", "exit"),
    ("atexit", "register"),
    ("builtins", "exit"),
)
# The hooks a plugin shapes a verdict through: a new implementer is reported.
VERDICT_HOOKS = (
    "pytest_runtest_protocol",
    "pytest_runtest_makereport",
    "pytest_runtest_call",
    "pytest_pyfunc_call",
    "pytest_report_teststatus",
    "pytest_runtest_logreport",
    "pytest_collection_modifyitems",
    "pytest_sessionfinish",
)
KNOWN = "fixbot_known_answer"  # the known-answer test's name and the text of its failure
COMPARISONS = ("__eq__", "__ne__")
WATCHED = frozenset((*COMPARISONS, "<lambda>", "__bool__"))
MAX_WATCH_TYPES = 20  # comparison types probed per watched test
# How a frame's code left it, by the instruction it stopped at (a profile function's `return`
# event comes for a return, a suspension at `yield`/`await`, and an exception unwinding it
# alike, with None for the last): a return, a suspension, else an exception raised out of it.
RETURNS = frozenset(dis.opmap[n] for n in ("RETURN_VALUE", "RETURN_CONST") if n in dis.opmap)
SUSPENDS = frozenset(dis.opmap[n] for n in ("YIELD_VALUE", "YIELD_FROM", "SEND") if n in dis.opmap)


def _lookup(module: str, path: str) -> Any:
    """The raw attribute at `path` in `module` (a class attribute as its class's `__dict__`
    holds it: a classmethod stays one object), or None."""
    owner = sys.modules.get(module)
    parts = path.split(".")
    for part in parts[:-1]:
        owner = getattr(owner, part, None)
    if owner is None:
        return None
    name = parts[-1]
    if isinstance(owner, type):
        for klass in owner.__mro__:
            if name in vars(klass):
                return vars(klass)[name]
        return None
    return getattr(owner, name, None)


def _fingerprint(value: Any) -> tuple[int, int, Any]:
    """The identities that make `value` what it is: itself and, for a Python function (or one
    inside a classmethod, staticmethod or property), its code object, which can be swapped in
    place."""
    inner = getattr(value, "__func__", None) or getattr(value, "fget", None) or value
    return (id(value), id(getattr(inner, "__code__", None)), value)


class Observer:
    """The plugin object: its channel, what it captured at load, and what it saw."""

    def __init__(self, out: int, nonce: str, watch: Iterable[str], root: str | None = None) -> None:
        self.watch = frozenset(watch)
        self.root = root  # the work tree's root fixbot named, as this process sees it
        self.setprofile, self.getprofile = sys.setprofile, sys.getprofile
        self.captured: dict[tuple[str, str], tuple[int, int, Any]] = {}
        self.reported_changes: set[str] = set()
        self.send = _sender(out, nonce)
        # each watched test as collected: the identities of its function, of its code and of
        # the module globals its code reads (a plugin may swap any after collection)
        self.collected: dict[str, tuple[int, int, dict[str, int]]] = {}
        # how each watched test's body last left its call: "returned" when it returned at
        # least once, "raised" when every exit was an exception, "unseen"
        self.exits: dict[str, str] = {}
        self.passed: set[str] = set()  # the tests whose call was reported passed
        self.anchor: Any = None  # a test module's node the known-answer test is made under
        self.asked = False  # whether the known answer was asked before the first watched call

    def capture(self) -> None:
        for module, path in MACHINERY:
            try:
                __import__(module)
            except ImportError:  # another pytest or pluggy: what it lacks is not compared
                continue
            value = _lookup(module, path)
            if value is not None:
                self.captured[(module, path)] = _fingerprint(value)

    def changed(self) -> list[str]:
        found = []
        for (module, path), (ident, code, _) in self.captured.items():
            now = _lookup(module, path)
            if now is None or _fingerprint(now)[:2] != (ident, code):
                found.append(module + "." + path)
        return found

    def check_machinery(self, exits: bool = True) -> None:
        """Report what changed since load; `exits` False leaves out the process's exits, which
        a test may patch until a session-wide fixture's end (`monkeypatch.setattr(sys,
        "exit", ...)`)."""
        changed = self.changed()
        if not exits:
            changed = [n for n in changed if n.startswith(("_pytest.", "pluggy."))]
        fresh = [n for n in changed if n not in self.reported_changes]
        if fresh:
            self.reported_changes.update(fresh)
            self.send({"k": "machinery", "changed": fresh})

    # pytest hooks ---------------------------------------------------------------------------

    def pytest_sessionstart(self, session: Any) -> None:
        # under xdist the tests run in workers, which the channel does not reach: the
        # controller streams their reports, not what their bodies did
        distributed = session.config.pluginmanager.has_plugin("dsession")
        self.send({"k": "start", "dist": distributed, "watch": sorted(self.watch)})

    def pytest_collection_finish(self, session: Any) -> None:
        found = []
        for hook in VERDICT_HOOKS:
            caller = getattr(session.config.hook, hook, None)
            for impl in caller.get_hookimpls() if caller is not None else ():
                if impl.plugin is self:
                    continue
                found.append([hook, _plugin_name(impl.plugin)])
        self.send({"k": "hooks", "hooks": found})

    def pytest_itemcollected(self, item: Any) -> None:
        if self.anchor is None and isinstance(item, pytest.Function):
            self.anchor = item.getparent(pytest.Module)
        if item.nodeid not in self.watch:
            return
        function = getattr(item, "obj", None)
        self.collected[item.nodeid] = (
            *_identity(function),
            _globals_read(_innermost(function)),
        )

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtestloop(self, session: Any) -> Any:
        """Before the first test's setup: a watched test whose function, or a global its code
        reads, is no longer what collection found was changed by a plugin in between."""
        for item in getattr(session, "items", ()):
            if item.nodeid in self.collected:
                self._compare_collected(item)
        yield

    def _compare_collected(self, item: Any) -> None:
        ident, code, names = self.collected[item.nodeid]
        function = _outer(getattr(item, "obj", None))
        if _identity(function) != (ident, code):
            self.tampered(item.nodeid, "the test function pytest collected was replaced")
        now = _globals_read(_innermost(function)) if id(function) == ident else names
        rebound = sorted(n for n, i in names.items() if now.get(n) != i)
        if rebound:
            self.tampered(item.nodeid, "globals it reads were rebound: " + ", ".join(rebound[:5]))

    def tampered(self, test: str, what: str) -> None:
        self.send({"k": "tampered", "id": test, "what": what})

    def known_answer(self, at: str) -> None:
        """Run a test that must fail through the machinery a test's call and report go
        through, and stream the outcome that machinery reported (`unavailable` where this
        pytest cannot make such a test, `error: <type>` where its machinery raised)."""
        try:
            make = pytest.Function.from_parent
            runner = sys.modules["_pytest.runner"]
            if self.anchor is None:
                raise LookupError("no test module")
            item = make(self.anchor, name="test_" + KNOWN, callobj=_must_fail)
        except Exception:
            self.send({"k": "known", "at": at, "o": "unavailable"})
            return
        try:
            call = runner.CallInfo.from_call(item.runtest, "call")
            report = item.ihook.pytest_runtest_makereport(item=item, call=call)
            outcome = str(report.outcome)
            if outcome == "failed" and KNOWN not in str(report.longrepr):
                outcome = "failed otherwise"
        except Exception as error:  # the machinery broke on a plain test: say so
            outcome = "error: " + type(error).__name__
        self.send({"k": "known", "at": at, "o": outcome})

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            self.send({"k": "r", "id": report.nodeid or "::", "w": "collect", "o": "failed"})

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: Any) -> Any:
        """Around the call phase of a watched test: whether its body (the code of the function
        pytest collected, under its decorators) was entered, and the Python comparison dunders
        called."""
        function = self.watched_function(item)
        if function is None:  # not watched, or no Python function to enter (a doctest)
            yield
            return
        seen: dict[str, Any] = {"ran": False, "types": {}, "returned": False, "raised": False}
        seen["handed"] = {}  # (type, dunder) -> the file of the code that handed it back
        previous = self.getprofile()
        inner = _innermost(function)
        profile = _watcher(inner.__code__, getattr(inner, "__globals__", None), seen)
        self.setprofile(profile)
        try:
            yield
        finally:
            blinded = self.getprofile() is not profile
            self.setprofile(previous)
        self.send({"k": "body", "id": item.nodeid, "ran": seen["ran"]})
        if seen["ran"]:
            exits = ("returned", "raised", "unseen")
            self.exits[item.nodeid] = exits[0 if seen["returned"] else 1 if seen["raised"] else 2]
        if blinded:
            self.tampered(item.nodeid, "the observer's profile function was removed while it ran")
        self.report_comparisons(item, seen["types"], seen["handed"])

    def watched_function(self, item: Any) -> Any:
        """The Python function of a watched test about to be called (None: not watched, or
        nothing to enter, which is said), after the known answer is asked before the first one
        and the function is compared with what collection found."""
        if item.nodeid not in self.watch:
            return None
        if not self.asked:  # what a test that must fail reports, before the first watched one
            self.asked = True
            self.known_answer("first")
        function = getattr(item, "obj", None)
        if getattr(getattr(function, "__func__", function), "__code__", None) is None:
            self.send({"k": "body", "id": item.nodeid, "ran": True, "native": True})
            return None
        collected = self.collected.get(item.nodeid)
        if collected is not None and _identity(function) != collected[:2]:
            self.tampered(item.nodeid, "the test function pytest collected was replaced")
        return function

    def report_comparisons(
        self, item: Any, types: dict[Any, Any], handed: dict[Any, str] | None = None
    ) -> None:
        """Stream the comparison dunders a watched test ran that the project's code defines,
        or whose values the project's code handed back to the test's body (`handed`: the
        file of the code that returned one, wherever its type is defined)."""
        root = str(getattr(item.config, "rootpath", None) or item.config.rootdir)
        for key, (instance, function) in types.items():
            kind, dunder = key
            if instance is _SLOT:
                record = _slot(item.nodeid, kind, dunder, function, root)
            else:
                record = _probe(item.nodeid, kind, dunder, instance, function, root)
            via = _relative((handed or {}).get(key, "/"), root)
            if not via.startswith("/"):  # returned by the project's code
                record["via"] = via
            if not record["file"].startswith("/") or "via" in record:
                self.send(record)

    def pytest_runtest_logreport(self, report: Any) -> None:
        outcome = report.outcome
        self.send({"k": "r", "id": report.nodeid, "w": report.when, "o": outcome})
        if report.when == "call":
            self.judge_call(report.nodeid, outcome)
        if report.when == "teardown":  # a test's own patches are undone by then
            self.check_machinery(exits=False)

    def judge_call(self, test: str, outcome: Any) -> None:
        """A watched test's call reported passed is the body's own verdict: one that never
        returned (an exception raised out of every entry, or its end unseen) was made to pass
        by what reported it, however that spared the known answer."""
        exit = self.exits.pop(test, "returned")
        if outcome == "passed":
            self.passed.add(test)
            self.judge_exit(test, exit)

    def judge_exit(self, test: str, exit: str) -> None:
        """Say so when `test`, reported passed, had a body that never returned (`exit`)."""
        if exit != "returned":
            what = "raised out of" if exit == "raised" else "left unseen by"
            self.tampered(test, f"its call was reported passed, its body {what} every entry")

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: Any) -> None:
        # a body that ran after its call was reported passed (a report sent first) has no
        # report of its own to be judged with
        for test, exit in self.exits.items():
            if test in self.passed:
                self.judge_exit(test, exit)
        self.known_answer("end")
        self.check_machinery()
        self.send({"k": "end", "status": int(session.exitstatus)})


def _watcher(
    target: Any, namespace: Any, seen: dict[str, Any]
) -> Callable[[FrameType, str, Any], None]:
    """The profile function for a watched test's call: it notes in `seen` whether the code
    object `target` (the test's body) was entered, how it left, the Python comparison dunders
    that ran, and the comparison slots of the values handed back to the body. How the body
    left counts for a frame the interpreter made (a profile function is plain Python: code may
    call it with an object that looks like a frame) running in the test module's own
    `namespace` (a copy of the body's code made to run against other globals is not the
    test)."""

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        code = frame.f_code
        if event == "return" and code is target:  # the body left: how
            left = _left(frame)
            ours = namespace is None or frame.f_globals is namespace
            if left and ours and type(frame) is FrameType:
                seen[left] = True
            return
        if event == "return":  # a value handed to the test's body: its comparison slots
            back = frame.f_back
            if back is not None and back.f_code is target and arg is not None:
                _aliased(type(arg), seen["types"])
                _handed(arg, code.co_filename, seen)
            return
        if event != "call":
            return
        if code is target:
            seen["ran"] = True
        if code.co_name in WATCHED and len(seen["types"]) < MAX_WATCH_TYPES:
            _comparison(frame, code, seen["types"])

    return profile


def _handed(value: Any, file: str, seen: dict[str, Any]) -> None:
    """Note the Python `__eq__` of `value`, handed back to a watched test's body by code in
    `file`, and of the items of a list, tuple, set or dict's values it is (one level): the
    comparison may run where no profile function sees it (a C container's `__eq__`)."""
    items = value.values() if isinstance(value, dict) else value
    values = [value, *items][:MAX_WATCH_TYPES] if isinstance(value, _CONTAINERS) else [value]
    types = seen["types"]
    for one in values:
        kind = type(one)
        function = next((vars(k)["__eq__"] for k in kind.__mro__ if "__eq__" in vars(k)), None)
        key = (kind, "__eq__")
        if getattr(function, "__code__", None) is None or len(types) >= MAX_WATCH_TYPES:
            continue
        types.setdefault(key, (one, function))
        seen["handed"].setdefault(key, file)


_CONTAINERS = (list, tuple, set, frozenset, dict)


def _left(frame: FrameType) -> str | None:
    """How `frame`, at its profile function's `return` event, left its code: "returned",
    "raised" (an exception unwinds it), or None (suspended at a `yield` or an `await`)."""
    code = frame.f_code.co_code
    op = code[frame.f_lasti] if 0 <= frame.f_lasti < len(code) else -1
    return "returned" if op in RETURNS else None if op in SUSPENDS else "raised"


def _identity(function: Any) -> tuple[int, int]:
    """The identities of the function a test item calls (unbound) and of the code under its
    decorators, which can be swapped in place (`f.__code__ = ...`)."""
    return id(_outer(function)), id(getattr(_innermost(function), "__code__", None))


def _innermost(function: Any) -> Any:
    """The function under `function`'s decorators (their `__wrapped__`), a method's function."""
    function = getattr(function, "__func__", function)
    for _ in range(100):
        inner = getattr(function, "__wrapped__", None)
        if inner is None or getattr(inner, "__code__", None) is None:
            break
        function = inner
    return function


def _outer(function: Any) -> Any:
    """The function a test item calls, unbound (a method's `__func__`), as it stands."""
    return getattr(function, "__func__", function)


def _globals_read(function: Any) -> dict[str, int]:
    """The identities of the module globals that `function`'s code, and the code nested in it
    (comprehensions, lambdas), reads, by name ({} for what has no Python code)."""
    namespace = getattr(function, "__globals__", None)
    code = getattr(function, "__code__", None)
    if not isinstance(namespace, dict) or code is None:
        return {}
    names: set[str] = set()
    stack = [code]
    while stack and len(names) < 200:
        current = stack.pop()
        names.update(current.co_names)
        stack.extend(c for c in current.co_consts if hasattr(c, "co_names"))
    return {name: id(namespace[name]) for name in names if name in namespace}


def _must_fail() -> None:
    """The known-answer test: it fails, whatever the code under test does."""
    raise AssertionError(KNOWN + ": this test must fail")


_SLOT = object()  # marks a comparison slot noted by `_aliased` (no instance was seen)


def _aliased(kind: type, types: dict[Any, Any]) -> None:
    """Note a comparison slot of `kind` that is neither a Python function (which the profile
    function sees run) nor a method implemented in C under its own name: a C method of another
    name (`__eq__ = int.__le__`), a `functools.partial`, a `staticmethod` (whose function is
    called without the instance the profile function looks for). The value handed to a
    watched test's body is asked instead."""
    for dunder in COMPARISONS:
        for klass in kind.__mro__:
            if dunder in vars(klass):
                slot = vars(klass)[dunder]
                named = getattr(slot, "__name__", dunder)
                native = getattr(slot, "__code__", None) is None and slot is not None
                other = named != dunder or not isinstance(slot, _C_METHODS)
                if native and other and len(types) < MAX_WATCH_TYPES:
                    types.setdefault((kind, dunder), (_SLOT, slot))
                break


# a method implemented in C, as a class's dictionary holds it (`int.__eq__`, `str.lower`)
_C_METHODS = (
    WrapperDescriptorType,
    MethodDescriptorType,
    BuiltinFunctionType,
    MethodWrapperType,
    ClassMethodDescriptorType,
)


def _slot(test: str, kind: type, dunder: str, slot: Any, root: str) -> dict[str, Any]:
    """The record of a comparison slot that is another method (`_aliased`): where its class is
    defined, and which method stands as it."""
    module = sys.modules.get(getattr(kind, "__module__", ""))
    file = getattr(module, "__file__", None) or "<" + str(getattr(kind, "__module__", "?")) + ">"
    record = _eq_record(test, kind, dunder, file, 0, None, root)
    record["aliased"] = (
        getattr(slot, "__qualname__", "?")
        if isinstance(slot, _C_METHODS)
        else " ".join(["a", type(slot).__qualname__, *_qualname(slot)])
    )
    return record


def _eq_record(
    test: str, kind: type, dunder: str, file: str, line: int, always: Any, root: str
) -> dict[str, Any]:
    """The `eq` record of a comparison dunder of `kind` a watched test ran, its code in `file`
    at `line`; `built` where no such file exists (code compiled from a string: `<string>`, or a
    made-up name)."""
    name = getattr(kind, "__module__", "?") + "." + getattr(kind, "__qualname__", "?")
    return {
        "k": "eq",
        "id": test,
        "type": name,
        "dunder": dunder,
        "file": _relative(file, root),
        "line": line,
        "always": always,
        "built": not os.path.isfile(file),
    }


def _qualname(value: Any) -> list[str]:
    """`value`'s own qualified name, as a one-item list, or [] where it has none."""
    name = getattr(value, "__qualname__", None)
    return [name] if isinstance(name, str) else []


def _sender(out: int, nonce: str) -> Callable[[dict[str, Any]], None]:
    """A function writing one record to descriptor `out`; the nonce and the functions it uses
    (captured now: the code under test may rebind `os.write`) live in its closure alone."""
    write, dumps = os.write, json.dumps

    def send(record: dict[str, Any]) -> None:
        line = nonce + "\t" + dumps(record, default=str) + "\n"
        data = line.encode("utf-8", "replace")
        try:
            while data:
                data = data[write(out, data) :]
        except OSError:
            pass

    return send


def _plugin_name(plugin: Any) -> str:
    """A plugin's name that is the same in every run: a module's own name (a conftest's too),
    else its class's."""
    if isinstance(plugin, type(sys)):
        return plugin.__name__
    kind = type(plugin)
    return kind.__module__ + "." + kind.__qualname__


def _relative(name: str, root: str) -> str:
    """A plugin's name with the rootdir taken off (a conftest is named by its path)."""
    prefix = root.rstrip("/") + "/"
    return name[len(prefix) :] if name.startswith(prefix) else name


def _comparison(frame: FrameType, code: Any, types: dict[Any, Any]) -> None:
    """Note the type whose comparison dunder (or a lambda standing as one) `frame` runs."""
    names = code.co_varnames[: code.co_argcount]
    if names:
        instance = frame.f_locals.get(names[0])
    elif code.co_flags & inspect.CO_VARARGS:  # `lambda *a: ...`: the instance is a[0]
        rest = frame.f_locals.get(code.co_varnames[code.co_argcount + code.co_kwonlyargcount])
        if not isinstance(rest, tuple) or not rest:
            return
        instance = rest[0]
    else:
        return
    kind = type(instance)
    for dunder in (*COMPARISONS, "__bool__"):
        function = None
        for klass in kind.__mro__:
            if dunder in vars(klass):
                function = vars(klass)[dunder]
                break
        if getattr(function, "__code__", None) is code:
            types.setdefault((kind, dunder), (instance, function))


class _Stranger:
    """An object no project type can know: equal to nothing but itself."""

    __hash__ = object.__hash__


def _probe(
    test: str, kind: type, dunder: str, instance: Any, function: Any, root: str
) -> dict[str, Any]:
    """The record of one comparison dunder a watched test ran: where it is defined and whether
    it holds against a stranger (`__eq__` true, `__ne__` false: it cannot tell anything apart)."""
    code = function.__code__
    always: bool | None = None
    if dunder in COMPARISONS:
        try:
            said = function(instance, _Stranger())
            if said is not NotImplemented:
                always = bool(said) if dunder == "__eq__" else not bool(said)
            always = always or _bends(instance, function, dunder)
        except Exception:  # the probe is a question; a dunder that raises answered it
            always = False
    return _eq_record(test, kind, dunder, code.co_filename, code.co_firstlineno, always, root)


# A built-in base type, and a value of it that its own `==` says differs from an instance
# (made with the base's own C methods, which a subclass's dunders do not reach).
_BASES: tuple[tuple[type, Callable[[Any], Any]], ...] = (
    (bool, lambda v: None),
    (int, lambda v: int.__add__(v, 1)),
    (float, lambda v: float.__add__(v, 1.0)),
    (str, lambda v: str.__add__(v, "\x00")),
    (bytes, lambda v: bytes.__add__(v, b"\x00")),
    (tuple, lambda v: tuple.__add__(v, (_Stranger(),))),
    (list, lambda v: list.__add__(v, [_Stranger()])),
    (frozenset, lambda v: frozenset.__or__(v, {_Stranger()})),
    (set, lambda v: set.__or__(v, {_Stranger()})),
    (dict, lambda v: {**dict.copy(v), _Stranger(): 0}),
)


def _bends(instance: Any, function: Any, dunder: str) -> bool:
    """Whether a comparison dunder of a subclass of a built-in type says equal (`__ne__`: not
    unequal) to a value of that base type which the base's own `==` says differs from the
    instance: equal to every int, not only to the one the test expects. Raises what the
    dunder raises."""
    for base, make in _BASES:
        if isinstance(instance, base):
            other = make(instance)
            if other is None or base.__eq__(instance, other) is not False:  # type: ignore[call-arg]
                return False
            said = function(instance, other)
            if said is NotImplemented:
                return False
            return bool(said) if dunder == "__eq__" else not bool(said)
    return False


def _open() -> Observer | None:
    """The channel named by `VARIABLE` (removed from the environment), or None without one."""
    value = os.environ.pop(VARIABLE, "")
    try:
        (given, given_ino), (out, out_ino) = (
            (int(fd), int(ino)) for fd, _, ino in (part.partition(":") for part in value.split(","))
        )
    except ValueError:
        return None
    line = b""
    try:
        # a process that did not inherit the pipes (a runner that closes descriptors, as tox
        # does) may hold other files under these numbers: only the pipes themselves are used
        if (os.fstat(given).st_ino, os.fstat(out).st_ino) != (given_ino, out_ino):
            return None
        while not line.endswith(b"\n"):  # one line: each pytest of the check reads its own
            byte = os.read(given, 1)
            if not byte:
                break
            line += byte
        os.close(given)
        settings = json.loads(line.decode("utf-8"))
        high = fcntl.fcntl(out, fcntl.F_DUPFD_CLOEXEC, HIGH_FD)
        os.close(out)
    except (OSError, ValueError):
        return None
    root = settings.get("root")
    root = os.path.realpath(root) if isinstance(root, str) and os.path.isdir(root) else None
    return Observer(high, str(settings["nonce"]), settings.get("watch", []), root)


def _root(observer: Observer) -> Callable[[], str]:
    """What reached files are named relative to: the work tree's root fixbot named (the fix's
    files are named relative to it, wherever pytest's rootdir is: a `pytest.ini` under
    `tests/` moves that), else pytest's rootdir once known (the current folder before)."""
    root = observer.root
    if root is not None:
        return lambda: root
    return lambda: OBSERVER_ROOT[0]


def _reach() -> Any:
    """The audit hook's module, copied beside this one (`<module>_reach`), or
    `fixbot.observe.reach` where this file is imported from fixbot's package."""
    package, _, name = __name__.rpartition(".")
    return importlib.import_module(f"{package}.reach" if package else f"{name}_reach")


# Opened and captured as the plugin is imported (`-p` imports it while pytest parses its
# arguments, before any conftest or test module): what the code under test does later is
# compared with this.
OBSERVER_ROOT = [os.path.realpath(os.getcwd())]  # what reached files are named relative to
OBSERVER = _open()
if OBSERVER is not None:
    OBSERVER.capture()
    _reach().install(OBSERVER.send, os.path.dirname(os.path.abspath(__file__)), _root(OBSERVER))


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: Any) -> None:
    """Register the observer (once per process: a nested pytest.main finds no channel)."""
    global OBSERVER
    observer, OBSERVER = OBSERVER, None
    if observer is not None:
        OBSERVER_ROOT[0] = os.path.realpath(str(getattr(config, "rootpath", config.rootdir)))
        config.pluginmanager.register(observer, __name__ + "-observer")
