"""The observer inside unittest's watch on the calls the test files' code makes (Python 3.12 and
later, `sys.monitoring`'s `CALL`): an assert method set on the running test, its class or
`TestCase` itself is named as the code calls (`_present`), not only at the
test's end, where one that took itself away as it was called is gone (round 27); the watch
switched off by the code under test, found at a test's start or end, is named (round 30). A
part of the observer (`unittest_observer.py`'s `PARTS`), copied beside it as
`<module>_unittest_watch`; it imports `unittest_asserts` beside it (`_sibling`), and the
standard library alone."""

from __future__ import annotations

import importlib
import sys
import unittest
from types import CodeType, FunctionType, MethodType

# nothing more is imported: `typing` for the checker alone
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _sibling(name: str) -> Any:
    """The observer's part `name`, copied beside this one (`<module>_<name>`, this module being
    `<module>_unittest_watch`), or `fixbot.observe.<name>` where imported from fixbot's
    package."""
    package, _, module = __name__.rpartition(".")
    return importlib.import_module(
        f"{package}.{name}" if package else module[: -len("unittest_watch")] + name
    )


asserts = _sibling("unittest_asserts")  # `_set_on`, `_judged`: the assert methods set on a test
MAX_CODES, WRAPPED = 100_000, 8  # code objects `_codes` walks, decorators it unwraps, at most


def _case_changed(
    kept: tuple[tuple[str, Any], ...],
    root: str,
    _modules: Any = sys.modules,
    _vars: Any = vars,
    _ns: Any = type.__dict__["__dict__"].__get__,
    _isinstance: Any = isinstance,
    _type: Any = type,
    _code_file: Any = asserts._code_file,
    _len: Any = len,
) -> list[str]:
    """`unittest: <name> of TestCase set by <file>` (relative to `root`; "?": no Python
    function, or gone) for each of `kept` ((name, value): `TestCase`'s own assert and fail
    methods as loaded) that `unittest.case.TestCase` holds no longer (its namespace read past a
    metaclass, `_ns`; every one where it is no class)."""
    case = _vars(_modules.get("unittest.case")).get("TestCase")
    case = _ns(case) if _isinstance(case, _type) else {}
    changed = [(n, _code_file(case.get(n)) or "?") for n, v in kept if case.get(n) is not v]
    cut = [(n, f[_len(root) :] if f.startswith(root) else f) for n, f in changed]
    return ["unittest: " + n + " of TestCase set by " + f for n, f in cut]


def _present(
    test: Any,
    root: str,
    ours: Any = asserts._word,
    kept: tuple[tuple[str, Any], ...] = (),
    _set_on: Any = asserts._set_on,
    _judged: Any = asserts._judged,
    _case_changed: Any = _case_changed,
) -> list[str]:
    """`unittest_asserts._foreign`'s names for the assert methods set on `test` now (not its
    `__class__` and `__bases__` written: answered once, at the test's end) and
    `_case_changed`'s (`kept`)."""
    found, files = _set_on(test, ours)
    names: list[str] = _judged(found, files, root, ours) + _case_changed(kept, root)
    return names


KEPT = ("assert", "fail")  # `TestCase`'s own methods held as loaded (`_case_changed`)
TOOLS = (4, 3)  # `sys.monitoring` tool ids the watcher takes, the first one free (3.12 and later)


def _spaces(
    test: Any,
    _mro: Any = type.__dict__["__mro__"].__get__,
    _ns: Any = type.__dict__["__dict__"].__get__,
) -> tuple[list[Any], Any]:
    """(the values in `test`'s classes below `TestCase` (each one's namespace read past a
    metaclass, `_ns`) and in their modules, their files)."""
    spaces = [_ns(k) for k in _mro(type(test)) if _ns(k).get("__module__") != "unittest.case"]
    named = [s.get("__module__") for s in spaces]
    spaces += [vars(sys.modules[n]) for n in named if type(n) is str and n in sys.modules]
    return [v for space in spaces for v in space.values()], {s.get("__file__") for s in spaces}


def _codes(test: Any, _spaces: Any = _spaces, _code: Any = CodeType) -> list[Any]:
    """The code objects of the functions (and their decorators' `__wrapped__`, `WRAPPED` deep)
    `_spaces(test)` holds, in their modules' files, each with those nested in it (`MAX_CODES`
    at most). Runs none of the project's code."""
    (values, files), found = _spaces(test), []
    for value in values:
        for _ in range(WRAPPED):
            value = value.__func__ if type(value) in (classmethod, staticmethod) else value
            if type(value) is not FunctionType:
                break
            found += [value.__code__] if value.__code__.co_filename in files else []
            value = vars(value).get("__wrapped__")
    for code in found:
        found += [c for c in code.co_consts if type(c) is _code][: MAX_CODES - len(found)]
    return found


OFF = "unittest: the watch on calls switched off"  # the name `_off` streams (round 30)


def _off(tool: int, called: Any, codes: list[Any], api: tuple[Any, ...]) -> bool:
    """Whether the watch was off (round 30: the code under test switched it off; no audit
    event for `set_local_events`): `tool` no longer fixbot's (freed, or taken by another name:
    left), a callback other than `called` registered for `CALL` (`register_callback` hands back
    the one it replaces), or one of `codes` whose local events lack `CALL`; each put back.
    `api`: `sys.monitoring`'s `get_tool`, `register_callback`, `get_local_events`,
    `set_local_events`, `use_tool_id`, `events.CALL`, captured at load (not looked up in the
    namespace the project can write)."""
    get_tool, register, get_local, set_local, use, call = api
    name = get_tool(tool)
    if name is None:
        use(tool, "fixbot")
    elif name != "fixbot":
        return True
    off = register(tool, call, called) is not called or name is None
    for code in codes:
        events = get_local(tool, code)
        if not events & call:
            off = True
            set_local(tool, code, events | call)
    return off


def _watcher(send: Any, state: list[Any], held: tuple[Any, ...]) -> tuple[Any, Any, Any]:
    """(`watch(test)`, `now`: [the test whose body runs], `_codes`), `now` set by
    `unittest_result._caller` around each body, `watch` as it begins: on Python 3.12 and later
    each call the code of the test's classes' files makes (`sys.monitoring`'s `CALL`, set on
    `_codes`'s, once; `called`, held by `watch`, guarded) of anything but `TestCase`'s own
    functions asks `_present` as it is called, and each name not streamed before is streamed
    (`machinery`) while a run goes on (`state`); (None, None, None) before 3.12 or with no tool
    id free (`TOOLS`). Round 27: an assert method set by `add` that took itself away as it was
    called was gone by the test's end, where `_foreign` looks. `watch(test, codes=None)` returns
    the code objects it watches for `test` (`_codes`'s, or `codes` as given: the body's end,
    `_profiled`) and proves the watch on over them (`_off`: `OFF` streamed once; round 30)."""
    monitoring: Any = getattr(sys, "monitoring", None)
    free = [t for t in TOOLS if monitoring is not None and monitoring.get_tool(t) is None]
    if not free:
        return None, None, None
    said: set[str] = set()
    now: list[Any] = [None]
    own = tuple(v for v in vars(unittest.TestCase).values() if type(v) is FunctionType)
    kept = tuple((n, v) for n, v in vars(unittest.TestCase).items() if n.startswith(KEPT))
    disable = monitoring.DISABLE  # a call site's events, off

    def called(
        code: Any,
        offset: int,
        callee: Any,
        arg0: Any,
        _now: list[Any] = now,
        _send: Any = send,
        _state: list[Any] = state,
        _held: tuple[Any, ...] = held,
        _said: set[str] = said,
        _own: frozenset[int] = frozenset(id(f) for f in own),
        _owned: tuple[Any, ...] = own,  # kept alive: no identity of `_own` reused
        _kept: tuple[tuple[str, Any], ...] = kept,
        _present: Any = _present,
        _type: Any = type,
        _method: Any = MethodType,
        _id: Any = id,
        _disable: Any = disable,
    ) -> Any:
        bound = _type(callee) is _method
        if _now[0] is None or not _state[0] or _id(callee.__func__ if bound else callee) in _own:
            return None
        names = _present(_now[0], _held[3], _held[4], _kept)
        new = [n for n in names if n not in _said]
        if new:
            _said.update(new)
            _send({"k": "machinery", "changed": new})
        # a call site that called no method of the test's, and saw nothing, is not asked again
        return None if names or (bound and callee.__self__ is _now[0]) else _disable

    done: set[Any] = set()  # the code objects whose calls are watched, kept alive
    monitoring.use_tool_id(free[0], "fixbot")
    monitoring.register_callback(free[0], monitoring.events.CALL, called)
    where = (monitoring.set_local_events, free[0], monitoring.events.CALL)

    api: tuple[Any, ...] = (monitoring.get_tool, monitoring.register_callback)
    api += (monitoring.get_local_events, monitoring.set_local_events, monitoring.use_tool_id)
    api += (monitoring.events.CALL,)

    def watch(
        test: Any,
        given: Any = None,
        _codes: Any = _codes,
        _done: set[Any] = done,
        _at: Any = where,
        _c: Any = called,
        _off: Any = _off,
        _api: tuple[Any, ...] = api,
        _send: Any = send,
        _state: list[Any] = state,
        _said: set[str] = said,
        _name: str = OFF,
    ) -> Any:
        codes = _codes(test) if given is None else given
        for code in codes:
            if code not in _done:
                _done.add(code)
                _at[0](_at[1], code, _at[2])
        if _off(_at[1], _c, codes, _api) and _state[0] and _name not in _said:
            _said.add(_name)
            _send({"k": "machinery", "changed": [_name]})
        return codes

    return watch, now, _codes
