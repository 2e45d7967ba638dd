"""The observer's load phase: what it captures before any project code runs and compares
later (`fixbot.observe.pytest_plugin`), and the sender of its records.

Two things are captured. The runner's machinery (`MACHINERY`: pytest's runtest protocol,
report construction, pluggy's hook calls, how a process ends), by identity and code object.
And the observer itself (`seal`): it has no class and no module the code under test can find
by name (its modules leave `sys.modules` once it is registered), but it runs in the same
process, so what it is made of is compared too: the hook implementations pluggy holds for it
(`HookImpl.function`, which pluggy calls), the objects each of its functions' closure cells
hold and the code objects they run, and the globals of its modules (each function's
`__globals__`). A changed global is streamed as a change of the machinery (`observer:` names).
Neither comparison is trusted alone, since its inputs are in the process too: the machinery's
fingerprints (`fingerprints`) are streamed at load and at each check, the observer's hash (what
`seal`'s check compared, as it is now) at registration and at each check, and fixbot compares
them (`fixbot.observe.judge.moved`): an input emptied or changed in place shows there.
A hook implementation, a closure cell or a function's code or defaults found changed ends the
process (`FAIL_CLOSED`, `_fail`) rather than being streamed: the report would go through what
may be a changed sender. What stays open: whatever does the comparing is itself in the process,
and what a cell holds in a container (the plugin's shared `state` dict, which holds the check
itself) can be changed in place between checks, and a cell swapped has the records sent until
the next check.

The sender (`_sender`), its check of the descriptor (`_verify`), its end (`_fail`), its
serializer (`_encode`) and the self-check hold what they use as positional default arguments,
bound before any project code runs, not as closure cells: a cell's content is replaced without
an audit event, a function's `__defaults__` only by writing it, which raises one, and `reach`
ends the process on it. They bind only builtins whose behaviour the project cannot change
(`os.write`, `os.fstat`, `os._exit`, builtin types' methods) and one another, and look no name
up when called. The sender trusts its descriptor by the file it names: a different file under
the number (a pipe `os.dup2`'ed there, the number closed or reopened) ends the process with
`FAIL_CLOSED` before or right after the record it was writing. What is left of that: a thread
swapping the file in and back out inside one write (a race, not a method).

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
# the exit status of a process whose channel was replaced or shut down by the code under test, or
# where what the observer's sender and checks trust was changed (`seal`, `reach`):
# the observer fails closed (`_sender`, `reach`) with a status no runner uses for a verdict
# (pytest's are 0 to 5), said on standard error as `FAIL_WORDS`
FAIL_CLOSED = 76
FAIL_WORDS = b"fixbot observer: its channel or its own code was changed by the code under test\n"
# what a teardown's check reports: pytest's and pluggy's machinery and the observer itself (a
# process's exits a test may patch until a session-wide fixture's end)
SESSION_WIDE = ("_pytest.", "pluggy.", "observer:")


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
    return (id(value), id(getattr(inner, "__code__", None)), value)


def _fail(
    _write: Any = os.write,
    _end: Any = os._exit,
    _words: bytes = FAIL_WORDS,
    _status: int = FAIL_CLOSED,
    _oserror: Any = OSError,
) -> None:
    """The observer's fail-closed end: say so on standard error and end the process at once
    with `FAIL_CLOSED` (`os._exit`: no atexit handler, `finally` or other thread runs after
    it). `os._exit` rather than a SIGKILL to itself: as final, and its status is the observer's
    own where -9 is also the OOM killer's. What it uses is bound as positional defaults when
    the module is imported, before any project code runs: a default is replaced only by
    writing `__defaults__`, which raises an audit event (`reach` ends the process on it),
    where a closure cell's content is replaced silently; and no name is looked up on the way
    out (`OSError` included: the project may rebind builtins)."""
    # no module's name looked up on the way out (`contextlib.suppress` would be)
    try:  # noqa: SIM105
        _write(2, _words)
    except _oserror:
        pass
    _end(_status)


def failer() -> Callable[[], None]:
    """The observer's fail-closed end (`_fail`), for the observer's other modules."""
    return _fail


# `str.translate`'s table for a JSON string's body: the characters JSON requires escaped (the
# quote, the backslash, control characters below U+0020; RFC 8259, section 7), by code point;
# a tuple (immutable), and past its end a character maps to itself (`str.translate` treats the
# `IndexError` as "unchanged")
_ESCAPES = tuple(
    f"\\u{point:04x}" if point < 0x20 else {0x22: '\\"', 0x5C: "\\\\"}.get(point, chr(point))
    for point in range(0x5D)
)


def _scalar(
    value: Any,
    _str: Any = str,
    _int: Any = int,
    _float: Any = float,
    _isinstance: Any = isinstance,
    _translate: Callable[[str, Any], str] = str.translate,
    _int_repr: Callable[[int], str] = int.__repr__,
    _float_repr: Callable[[float], str] = float.__repr__,
    _escapes: tuple[str, ...] = _ESCAPES,
) -> str | None:
    """`value` as JSON text if it is None, a bool, a str, an int or a float (a subclass's by
    the builtin type's method, not its own), else None. See `_encode`."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if _isinstance(value, _str):
        return '"' + _translate(value, _escapes) + '"'
    if _isinstance(value, _int):
        return _int_repr(value)
    if _isinstance(value, _float):  # the infinities and NaN as `json.dumps` writes them
        text = _float_repr(value)
        return {"inf": "Infinity", "-inf": "-Infinity", "nan": "NaN"}.get(text, text)
    return None


def _encode(
    record: Any,
    _scalar: Any = _scalar,
    _str: Any = str,
    _list: Any = list,
    _tuple: Any = tuple,
    _dict: Any = dict,
    _isinstance: Any = isinstance,
    _items: Any = dict.items,
) -> str:
    """`record` as one line of JSON text, as `json.dumps(record, default=str,
    ensure_ascii=False)` writes it: dicts (str keys), lists and tuples, str, int, bool, float,
    None; anything else as the string `str` makes of it. Written with builtin types' methods
    alone, bound as positional defaults (see `_fail`): `json.dumps` is Python code that follows
    the `json` module's globals (`json.encoder.c_make_encoder`, `JSONEncoder`), which the
    project can rebind. Iterative (no recursion through a name). fixbot parses it with
    `json.loads`. Raises what `str()` of an unknown object raises."""
    out: list[str] = []
    stack: list[Any] = [(False, record)]
    while stack:
        literal, value = stack.pop()
        text = value if literal else _scalar(value)
        if text is not None:
            out.append(text)
            continue
        pending: list[Any] = []
        if _isinstance(value, _dict):
            out.append("{")
            for key, item in _list(_items(value)):
                name = _scalar(key if _isinstance(key, _str) else _str(key))
                pending += [(True, ", ")] if pending else []
                pending += [(True, name + ": "), (False, item)]
            pending.append((True, "}"))
        elif _isinstance(value, (_list, _tuple)):
            out.append("[")
            for item in _tuple(value):
                pending += [(True, ", ")] if pending else []
                pending.append((False, item))
            pending.append((True, "]"))
        else:
            pending.append((False, _str(value)))
        pending.reverse()
        stack += pending
    return "".join(out)


def _verify(
    out: int,
    dev: int,
    ino: int,
    _fstat: Any = os.fstat,
    _fail: Any = _fail,
    _oserror: Any = OSError,
) -> None:
    """End the process (`_fail`) unless descriptor `out` names the pipe (`dev`, `ino`: its
    `st_dev`, `st_ino`) it named when the observer opened it. `os.fstat` is a builtin the
    project cannot change, only rebind the name of; it and the end are bound as positional
    defaults (see `_fail`)."""
    try:
        now = _fstat(out)
        same = now.st_dev == dev and now.st_ino == ino
    except _oserror:
        same = False
    if not same:
        _fail()


def _sender(
    out: int, nonce: str, callers: frozenset[int] = frozenset()
) -> Callable[[dict[str, Any]], None]:
    """A function writing one record to descriptor `out` as `nonce<TAB>json`; the nonce, the
    descriptor, the pipe's identity and the functions it uses are its positional defaults, not
    closure cells: a cell's content is replaced without an audit event, a default only by
    writing `__defaults__`, which `reach`'s audit hook answers by ending the process (and a
    read of them is streamed). It has no closure at all.

    The descriptor is trusted by the file it names, not by its number: the kernel's identity
    of the pipe (`st_dev`, `st_ino`, by `os.fstat`) is taken now, while `_open` runs before any
    project code, and compared before and after each write (`_verify`). A descriptor that names
    another file (a pipe of the project's `os.dup2`'ed or reopened under the number, the number
    closed), or a record that cannot be written whole (the channel shut down or made
    non-blocking through a copy of the descriptor, `socket.fromfd`), ends the process at once
    with `FAIL_CLOSED` (`_fail`): no atexit handler, no thread
    and no `finally` of the project's code runs after it, and the stream lacks its `end`
    (fixbot's judge: `observer-cut-short`). What is left is a race, not a method: a thread that
    swaps the file in after the check before the write and back before the check after it,
    inside one write. The record is serialized by `_encode` (not `json.dumps`, whose module the
    project can rebind).

    `callers`: the identities of the observer's code objects (`codes`); where given, a record
    sent by any other code (the project's, having found the sender through a hook's closure,
    to write lines with the nonce that speak for a session it then ends) ends the process: no
    one but the observer ever calls it. By the caller's code object, not its file name, which
    code compiled elsewhere may claim."""
    given = os.fstat(out)

    def send(
        record: dict[str, Any],
        _out: int = out,
        _nonce: str = str(nonce),
        _dev: int = given.st_dev,
        _ino: int = given.st_ino,
        _encode: Any = _encode,
        _verify: Any = _verify,
        _write: Any = os.write,
        _oserror: Any = OSError,
        _fail: Any = _fail,
        _callers: frozenset[int] = callers,
        _frame: Any = sys._getframe,
        _id: Any = id,
    ) -> None:
        if _callers and _id(_frame(1).f_code) not in _callers:
            _fail()
        data = (_nonce + "\t" + _encode(record) + "\n").encode("utf-8", "replace")
        _verify(_out, _dev, _ino)
        try:
            while data:
                data = data[_write(_out, data) :]
        except _oserror:  # shut down through a copy, made non-blocking and filled: never lost
            _fail()
        _verify(_out, _dev, _ino)

    return send


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


def changed(captured: dict[tuple[str, str], tuple[int, int, Any, Any]]) -> list[str]:
    """The names (`module.path`) of the `captured` machinery no longer what it was, looked up
    in the module objects captured with it."""
    found = []
    for (module, path), (ident, code, _, owner) in captured.items():
        now = _lookup(module, path, owner)
        if now is None or _fingerprint(now)[:2] != (ident, code):
            found.append(module + "." + path)
    return found


def fingerprints(captured: dict[tuple[str, str], tuple[int, int, Any, Any]]) -> list[str]:
    """One short text per piece of `MACHINERY`, in its order: a hash of the identities of what
    is now at its place in the module object captured with it, of its code object and of that
    module object ("-": not captured, or no longer there). Streamed at load and at each check:
    fixbot compares them, so a `captured` emptied or changed in place is seen outside."""
    found = []
    for module, path in MACHINERY:
        entry = captured.get((module, path))
        now = None if entry is None else _lookup(module, path, entry[3])
        if entry is None or now is None:
            found.append("-")
        else:
            ident, code, _ = _fingerprint(now)
            found.append(_short((ident, code, id(entry[3]))))
    return found


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


def functions(roots: Iterable[Any], folder: str) -> list[FunctionType]:
    """The observer's functions: `roots` and every function their closure cells and default
    arguments (`__defaults__`, `__kwdefaults__`) hold, transitively, whose code is in a file
    under `folder` (the observer's own)."""
    found: dict[int, FunctionType] = {}
    stack = [r for r in roots if isinstance(r, FunctionType)]
    while stack:
        function = stack.pop()
        if id(function) in found or not function.__code__.co_filename.startswith(folder):
            continue
        found[id(function)] = function
        stack += [h for h in _holds(function) if isinstance(h, FunctionType)]
    return list(found.values())


def _holds(function: FunctionType) -> list[Any]:
    """What `function` holds: its default arguments (`__defaults__`, `__kwdefaults__`) and
    the contents of its closure cells (an empty cell, a name assigned after the function was
    made, holds nothing)."""
    held = list(function.__defaults__ or ()) + list((function.__kwdefaults__ or {}).values())
    for cell in function.__closure__ or ():
        try:
            held.append(cell.cell_contents)
        except ValueError:
            continue
    return held


def nested(functions: Iterable[Any]) -> set[int]:
    """The identities of `functions`' code objects and of the code nested in them (their
    inner functions, lambdas, comprehensions)."""
    found: dict[int, Any] = {}
    stack = [f.__code__ for f in functions if isinstance(f, FunctionType)]
    while stack:
        code = stack.pop()
        if id(code) not in found:
            found[id(code)] = code
            stack += [c for c in code.co_consts if hasattr(c, "co_code")]
    return set(found)


def codes(modules: Iterable[ModuleType]) -> set[int]:
    """The identities of every code object of `modules`' functions (and their classes'),
    nested ones too: a frame running one of them is the observer's, whatever file name a
    code object made elsewhere claims."""
    found: dict[int, Any] = {}
    stack: list[Any] = []
    for module in modules:
        for value in list(vars(module).values()):
            members = vars(value).values() if isinstance(value, type) else [value]
            stack += [m.__code__ for m in members if isinstance(m, FunctionType)]
    while stack:
        code = stack.pop()
        if id(code) not in found:
            found[id(code)] = code
            stack += [c for c in code.co_consts if hasattr(c, "co_code")]
    return set(found)


def seal(
    made: list[FunctionType], modules: list[ModuleType], hooks: list[tuple[str, Any, Any, Any]]
) -> Callable[[], tuple[list[str], str]]:
    """A check of the observer as it is now: `made` its functions, `modules` its modules (their
    globals), `hooks` what pluggy calls for it, as registered
    (`registered`). The check ends the process (`_fail`) when a hook implementation, a closure
    cell or a function's code or defaults differs; else it returns the modules' globals that
    differ, as `observer: ...` names, and a hash of what it compared (12 hex digits): the one
    at registration is streamed, and each later one, so that the check's own inputs changed in
    place are seen by fixbot."""
    cells = [
        (f.__name__, f.__code__.co_freevars[i], cell, _held(cell))
        for f in made
        for i, cell in enumerate(f.__closure__ or ())
    ]
    code = [(f, f.__code__, f.__defaults__) for f in made]
    names = [(m.__name__, vars(m), k, id(v)) for m in modules for k, v in vars(m).items()]

    def check(
        _hooks: list[tuple[str, Any, Any, Any]] = hooks,
        _cells: list[tuple[str, str, Any, int]] = cells,
        _code: list[tuple[Any, Any, Any]] = code,
        _names: list[tuple[str, dict[str, Any], str, int]] = names,
        _held: Any = _held,
        _short: Any = _short,
        _label: Any = _label,
        _fail: Any = _fail,
        _id: Any = id,
        _len: Any = len,
        _tuple: Any = tuple,
    ) -> tuple[list[str], str]:
        """What differs (`observer: ...` names) and a hash of everything compared as it is
        now, which fixbot compares with the one streamed at registration. A hook
        implementation, a closure cell or a function's code or defaults changed ends the
        process (`_fail`) instead: the report would go through what may be the changed
        sender. Its inputs and what it calls are positional defaults (see `_fail`)."""
        found = []
        now: list[Any] = [_len(_hooks), _len(_cells), _len(_code), _len(_names)]
        for _, impl, function, listed in _hooks:
            now.append((_id(impl.function), impl in listed()))
            if impl.function is not function or impl not in listed():
                _fail()
        for _, _, cell, held in _cells:
            now.append(_held(cell))
            if now[-1] != held:
                _fail()
        for function, was, defaults in _code:
            now.append((_id(function), _id(function.__code__), _id(function.__defaults__)))
            if function.__code__ is not was or function.__defaults__ is not defaults:
                _fail()
        for module, namespace, name, held in _names:
            now.append(_id(namespace.get(name)))
            if now[-1] != held:
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


def _held(cell: Any, _id: Callable[[Any], int] = id, _valueerror: Any = ValueError) -> int:
    """The identity of what closure `cell` holds (0: nothing)."""
    try:
        return _id(cell.cell_contents)
    except _valueerror:
        return 0


def registered(manager: Any, plugin: Any) -> list[tuple[str, Any, Any, Any]]:
    """(hook name, `HookImpl`, its function, the hook's `get_hookimpls`) for each hook
    implementation of `plugin` that pluggy's `manager` holds, as it holds them now."""
    found = []
    for hook, caller in list(vars(manager.hook).items()):
        get = getattr(caller, "get_hookimpls", None)
        if get is None:
            continue
        for impl in get():
            if impl.plugin is plugin:
                found.append((hook, impl, impl.function, get))
    return found


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
        found = changed(captured) + itself
        prints = fingerprints(captured)
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
