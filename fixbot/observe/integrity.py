"""The observer's load phase: what it captures before any project code runs and compares
later (`fixbot.observe.pytest_plugin`), and the channel it opens for its records (`_open`;
the sender that writes them is `fixbot.observe.sender`).

Two things are captured. The runner's machinery (`MACHINERY`: pytest's runtest protocol,
report construction, pluggy's hook calls, how a process ends), by identity and code object.
And the observer itself (`seal`): it has no class and no module the code under test can find
by name (its modules leave `sys.modules` once it is registered), but it runs in the same
process, so what it is made of (`fixbot.observe.identities`) is compared too: the hook
implementations pluggy holds for it (`HookImpl.function`, which pluggy calls), the objects
each of its functions' closure cells hold and the code objects they run, and the globals of
its modules (each function's `__globals__`). A changed global is streamed as a change of the
machinery (`observer:` names). Neither comparison is trusted alone, since its inputs are in
the process too: the machinery's fingerprints (`fingerprints`) are streamed at load and at
each check, the observer's hash (what `seal`'s check compared, as it is now) at registration
and at each check, and fixbot compares them (`fixbot.observe.judge.moved`): an input emptied
or changed in place shows there. A hook implementation, a closure cell or a function's code or
defaults found changed ends the process (`sender.FAIL_CLOSED`, `sender._fail`) rather than
being streamed: the report would go through what may be a changed sender. What stays open:
whatever does the comparing is itself in the process, and what a cell holds in a container
(the plugin's shared `state` dict, which holds the check itself) can be changed in place
between checks, and a cell swapped has the records sent until the next check.

The self-check holds what it uses as positional default arguments, as the sender does, bound
before any project code runs, not as closure cells: a cell's content is replaced without an
audit event, a function's `__defaults__` only by writing it, which raises one, and `reach`
ends the process on it (see `fixbot.observe.sender`).

Copied beside the plugin as `<module>_integrity`, inside the project's own Python (3.8 or
later). It imports the standard library alone.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sys
from collections.abc import Callable, Iterable
from types import FunctionType, ModuleType
from typing import Any

VARIABLE = "FIXBOT_OBSERVER"
HIGH_FD = 700  # the channel's descriptor is moved at or above this number
# what a teardown's check reports: pytest's and pluggy's machinery and the observer itself (a
# process's exits a test may patch until a session-wide fixture's end)
SESSION_WIDE = ("_pytest.", "pluggy.", "observer:")
# A number that is an object's own while it lives (no other live object has it): its address
# as `object.__hash__` computes it for any object, whatever hash its type defines (a dict's,
# a project class's), in C, raising no audit event. Not `id`, which raises `builtins.id`: each
# audit event calls every audit hook (`reach`'s is Python), and the self-check takes one per
# identity, thousands at each teardown.
_pointer: Callable[[Any], int] = object.__hash__


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
    ("builtins", "__build_class__"),  # what a `class` statement calls: the class it makes
)


def _lookup(module: str, path: str, owner: Any = None) -> Any:
    """The raw attribute at `path` in `module` (a class attribute as its class's `__dict__`
    holds it: a classmethod stays one object), or None. `owner`: the module object itself, as
    captured at load (None: `sys.modules`' entry now)."""
    owner = sys.modules.get(module) if owner is None else owner
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
    return (_pointer(value), _pointer(getattr(inner, "__code__", None)), value)


def _plugin_name(plugin: Any) -> str:
    """A plugin's name that is the same in every run: a module's own name (a conftest's too),
    else its class's."""
    if isinstance(plugin, type(sys)):
        return plugin.__name__
    kind = type(plugin)
    return kind.__module__ + "." + kind.__qualname__


def capture() -> dict[tuple[str, str], tuple[int, int, Any, Any]]:
    """The fingerprint of each piece of `MACHINERY` this pytest and pluggy have, with the
    module object it was found in (what is compared later is looked up in that object, not in
    `sys.modules`, where the code under test may put a module holding what was captured)."""
    captured = {}
    for module, path in MACHINERY:
        try:
            __import__(module)
        except ImportError:  # another pytest or pluggy: what it lacks is not compared
            continue
        owner = sys.modules[module]
        value = _lookup(module, path, owner)
        if value is not None:
            captured[(module, path)] = (*_fingerprint(value), owner)
    return captured


def fingerprints(captured: dict[tuple[str, str], tuple[int, int, Any, Any]]) -> list[str]:
    """One short text per piece of `MACHINERY`, in its order: a hash of the identities of what
    is now at its place in the module object captured with it, of its code object and of that
    module object ("-": not captured, or no longer there). Streamed at load and at each check:
    fixbot compares them, so a `captured` emptied or changed in place is seen outside."""
    return survey(captured)[1]


def survey(
    captured: dict[tuple[str, str], tuple[int, int, Any, Any]],
) -> tuple[list[str], list[str]]:
    """`(changed, fingerprints(captured))` in one pass, each piece of the machinery looked up
    once (a check makes both at every teardown): `changed` the names (`module.path`) of the
    `captured` machinery no longer what it was, looked up in the module objects captured with
    it."""
    found: list[str] = []
    prints: list[str] = []
    for module, path in MACHINERY:
        entry = captured.get((module, path))
        now = None if entry is None else _lookup(module, path, entry[3])
        if entry is None or now is None:
            if entry is not None:
                found.append(module + "." + path)
            prints.append("-")
            continue
        ident, code, _ = _fingerprint(now)
        if (ident, code) != entry[:2]:
            found.append(module + "." + path)
        prints.append(_short((ident, code, _pointer(entry[3]))))
    return found, prints


def digest(prints: Iterable[str]) -> str:
    """One 12-digit hash of fingerprints (`fingerprints`' texts), the same in every process:
    what a teardown's check streams of the session-wide machinery, which fixbot computes too
    from what was streamed at load."""
    return hashlib.blake2b(",".join(prints).encode(), digest_size=6).hexdigest()


def session_wide(names: Iterable[str]) -> list[bool]:
    """For each name (`module.path`), whether a teardown's check compares it."""
    return [name.startswith(SESSION_WIDE) for name in names]


def _short(
    values: tuple[Any, ...],
    _hash: Callable[[Any], int] = hash,
    _format: Callable[[Any, str], str] = format,
) -> str:
    """A 48-bit hash of `values` (identities: the same in one process), as 12 hex digits."""
    return _format(_hash(values) & 0xFFFFFFFFFFFF, "012x")


def seal(
    made: list[FunctionType],
    modules: list[ModuleType],
    hooks: list[tuple[str, Any, Any, Any]],
    fail: Callable[[], None],
) -> Callable[[], tuple[list[str], str]]:
    """A check of the observer as it is now: `made` its functions (`identities.functions`),
    `modules` its modules (their globals), `hooks` what pluggy calls for it, as registered
    (`identities.registered`). The check ends the process (`fail`: the observer's fail-closed
    end, `sender._fail`) when a hook implementation, a closure cell or a function's code or
    defaults differs; else it returns the modules' globals that differ, as `observer: ...`
    names, and a hash of what it compared (12 hex digits): the one at registration is
    streamed, and each later one, so that the check's own inputs changed in place are seen by
    fixbot."""
    cells = [
        (f.__name__, f.__code__.co_freevars[i], cell, _held(cell))
        for f in made
        for i, cell in enumerate(f.__closure__ or ())
    ]
    code = [(f, f.__code__, f.__defaults__) for f in made]
    # each module's global names, and what each held at registration (`_pointer`s)
    names = [
        (m.__name__, vars(m), tuple(vars(m)), tuple(map(_pointer, vars(m).values())))
        for m in modules
    ]

    def check(
        _hooks: list[tuple[str, Any, Any, Any]] = hooks,
        _cells: list[tuple[str, str, Any, int]] = cells,
        _code: list[tuple[Any, Any, Any]] = code,
        _names: list[tuple[str, dict[str, Any], tuple[str, ...], tuple[int, ...]]] = names,
        _held: Any = _held,
        _short: Any = _short,
        _label: Any = _label,
        _fail: Any = fail,
        _pointer: Any = _pointer,
        _len: Any = len,
        _tuple: Any = tuple,
        _map: Any = map,
        _get: Any = dict.get,
        _zip: Any = zip,
    ) -> tuple[list[str], str]:
        """What differs (`observer: ...` names) and a hash of everything compared as it is
        now, which fixbot compares with the one streamed at registration. A hook
        implementation, a closure cell or a function's code or defaults changed ends the
        process (`_fail`) instead: the report would go through what may be the changed
        sender. Its inputs and what it calls are positional defaults (see `sender._fail`).
        It runs at every teardown, so it raises as few audit events as it can (each one calls
        every audit hook, `reach`'s among them): each function's `__code__` and
        `__defaults__` read once, identities by `_pointer` (`id` raises `builtins.id`), a
        module's globals compared as one tuple in C and named one by one only where it
        differs."""
        found = []
        now: list[Any] = [_len(_hooks), _len(_cells), _len(_code), _len(_names)]
        for _, impl, function, listed in _hooks:
            registered = impl in listed()
            now.append((_pointer(impl.function), registered))
            if impl.function is not function or not registered:
                _fail()
        for _, _, cell, was in _cells:
            now.append(_held(cell))
            if now[-1] != was:
                _fail()
        for function, was, defaults in _code:
            code_now, defaults_now = function.__code__, function.__defaults__
            now.append((_pointer(function), _pointer(code_now), _pointer(defaults_now)))
            if code_now is not was or defaults_now is not defaults:
                _fail()
        for module, namespace, keys, held in _names:
            # `dict.get` as the type holds it: what is bound to each name now, or None
            values = _tuple(_map(_pointer, _map(_get, (namespace,) * _len(keys), keys)))
            now.append(values)
            if values != held:
                for name, was, value in _zip(keys, held, values):
                    if value != was:
                        found.append(f"observer: {_label(module)}.{name}")
        return found, _short(_tuple(now))

    return check


def _label(module: str) -> str:
    """The observer's module `module` by the file it was copied from (`calls`, ...; the plugin
    itself is `pytest_plugin`), whatever name the run gave it."""
    parts = module.split("_")
    if not module.startswith("fixbot_observer_"):
        return module.rpartition(".")[2]
    return parts[3] if len(parts) > 3 else "pytest_plugin"


def _held(
    cell: Any, _pointer: Callable[[Any], int] = _pointer, _valueerror: Any = ValueError
) -> int:
    """The identity (`_pointer`) of what closure `cell` holds (0: nothing)."""
    try:
        return _pointer(cell.cell_contents)
    except _valueerror:
        return 0


def _open(observer: Callable[[int, str, list[str], str | None], Any]) -> Any:
    """The `observer` made on the channel named by `VARIABLE` (removed from the environment),
    or None without one."""
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
    return observer(high, str(settings["nonce"]), settings.get("watch", []), root)


def _root(root: str | None, rootdir: list[str]) -> Callable[[], str]:
    """What reached files are named relative to: the work tree's root fixbot named (the fix's
    files are named relative to it, wherever pytest's rootdir is: a `pytest.ini` under
    `tests/` moves that), else pytest's rootdir once known (`rootdir[0]`: the current folder
    before)."""
    if root is not None:
        return lambda: root
    return lambda: rootdir[0]


def _checker(
    send: Callable[[dict[str, Any]], None],
    captured: dict[Any, Any],
    state: dict[str, Any],
    token: str,
) -> Callable[[bool], None]:
    """The check of what changed since load, the observer itself included (`state["seal"]`):
    each change named once (`machinery`), and at each check the fingerprints of the machinery
    (at a teardown, one hash of the session-wide ones) and the observer's hash (`check`, with
    the process's `token`), which fixbot compares with those streamed at load and at
    registration."""
    reported: set[str] = set()

    def check_machinery(everything: bool) -> None:
        """`everything` False leaves out the process's exits, which a test may patch until a
        session-wide fixture's end (`monkeypatch.setattr(sys, "exit", ...)`)."""
        itself, digest_ = state["seal"]()
        found, prints = survey(captured)
        found += itself
        record = {"k": "check", "p": token, "at": "end", "m": prints, "s": digest_}
        if not everything:
            found = [n for n in found if n.startswith(SESSION_WIDE)]
            wide = session_wide(m for m, _ in MACHINERY)
            kept = [p for i, p in enumerate(prints) if wide[i]]
            # one hash at each teardown keeps the stream small: fixbot computes the same one
            # from the load's fingerprints, and names the change from the end's list
            record = {"k": "check", "p": token, "at": "t", "h": digest(kept), "s": digest_}
        send(record)
        fresh = [n for n in found if n not in reported]
        if fresh:
            reported.update(fresh)
            send({"k": "machinery", "changed": fresh})

    return check_machinery


def _tampered(send: Callable[[dict[str, Any]], None]) -> Callable[[str, str], None]:
    """The function streaming that what a watched test `test` runs was tampered with."""

    def tampered(test: str, what: str) -> None:
        send({"k": "tampered", "id": test, "what": what})

    return tampered
