"""fixbot's observer inside unittest: each test's outcome streamed, as unittest's own
`TestCase.run` decides it, to the channel fixbot holds (`fixbot.observe.channel`), with the
fingerprints of the runner's machinery at load, at each test's end and at the run's end.

unittest has no plugin option, so this module is loaded by Python's startup: fixbot copies
`startup.py` into the run's observer folder as `sitecustomize.py` (the folder is first on the
check's PYTHONPATH) and this file beside it as `<module>_unittest_observer`; `site` imports
`sitecustomize` before the main module or `-m` runs, and before the script's folder or the
current folder joins `sys.path` (checked on CPython 3.8 to 3.13), so the workspace cannot
shadow it. `startup.py` then runs the project's own `sitecustomize` (the next one on the
path, a virtual environment's), after this observer loaded.

Silent outside a unittest run: it does anything only where the process is `python -m unittest`
(the command line: `sys.orig_argv`, or `/proc/self/cmdline` before 3.10) or a script whose text
names `unittest` (a script calling `unittest.main()`); anywhere else (pytest, which runs
TestCase classes itself and is observed by the pytest plugin; a plain script; pip) it consumes
no settings line, leaves `FIXBOT_OBSERVER` and the channel's descriptors alone and streams
nothing. The run's nonce is read at load, before any project code, by peeking at the settings
channel (`MSG_PEEK`: nothing consumed); `python -m unittest` then takes its line and closes the
settings end at load, a script at its run's start (`TestProgram.runTests`): until then the
script and what it imports share a process holding that end, and could read the nonce too.

What it uses is taken at load and held as positional defaults, what never changes in a tuple (its
places, round 22: a list among them was rewritten in place); it imports the standard library alone
and nothing of fixbot's (the sender is `<module>_sender`, copied beside it, as are its `PARTS`, each
`<module>_<part>`: what it fingerprints and the records that stream them, `unittest_machinery.py`,
the result it hands `TestCase.run`, `unittest_result.py`, the code each file was compiled to as
imported, `unittest_compiled.py`, the assert methods it names, `unittest_asserts.py`, its watch on
calls, `unittest_watch.py`, its own `_getAssertEqualityFunc`, `unittest_asserter.py`, the values
handed to the test's code probed, `unittest_seen.py`, the pytest plugin's `bodies`, `identities`,
`reach`, `sourced`: in a unittest run alone, out of `sys.modules` once loaded). First it refuses
each bytecode cache outside the interpreter's libraries (`sourced.install`); then it streams the
machinery's fingerprints (`load`, before any project code: `_loaded`), puts its own `run` in
`unittest.TestCase.run` (the one it captured called inside, with a result that forwards everything
to the runner's and streams each outcome as `TestCase.run` reports it: `unittest_result._Watched`;
before that, a digest of the body the test runs: `code`), its own `_callTestMethod` and `subTest`
(counting the body's entries, returns and stops leaving a subtest: a success whose body did not
return, or that a stop left a subtest of, is "failed", `unittest_result._caller`, `_subtester`; the
calls the test files' code makes watched (3.12+), an assert method set on the test or `TestCase`
named as one is made: `unittest_watch._watcher`), its own `_getAssertEqualityFunc` (judging what
`assertEqual` is about to call as it is picked: `unittest_asserter._asserter`), `__init_subclass__`
(the file each test class is made in: `unittest_made._maker`) and its own `runTests` in
`unittest.main.TestProgram.runTests` (`python -m unittest` and `unittest.main()` go through it),
which streams the run's `start` and, as the run ends, the fingerprints again and the `end` (status 1
where a test was seen to fail, `ran`: the tests `TestCase.run` started on its result, as unittest
counts `Ran N tests`). Each test's start and end stream them too (`check`), so fixbot compares
(`judge.moved`: `observer-machinery`): `TestCase.run` and what it calls, the `_Outcome` class,
`TestCase.__init_subclass__`, every function and class in `TestCase`'s own `__dict__` (its assert
and fail methods, `failureException`; one set on the test's own class or instance by code outside
its classes' files, or not compiled from them as imported, is named at its end:
`unittest_asserts._foreign`), `TestResult`'s methods, the runner, the suite, `TestProgram.runTests`,
the observer's own result class, `os._exit`, `sys.exit`, `atexit.register`. Then it adds the pytest
observer's audit hook (`reach.install`, `_guard`) over its own functions: their `__code__` or
`__defaults__` read by the project's code is streamed (`machinery`), written ends the process
(`sender.FAIL_CLOSED`), and the project's reaches (`gc`, frames, tracers, ctypes) are streamed
(`reach`). Records (`fixbot.observe.stream`):

    {"k": "start", "watch": [], "runner": "unittest"}
    {"k": "load", "p": process, "n": [names], "m": [fingerprints]}
    {"k": "code", "id": test.id(), "h": digest, "f": file, "c": files}   each test's run: the
                                        body it runs and its classes' files (`_began`), which
                                        fixbot holds against the start's run of the same id
    {"k": "machinery", "changed": [...]}, {"k": "reach", ...}   from the audit hook
    {"k": "r", "id": test.id(), "w": "call", "o": outcome}   each outcome as reported: a
                                        failure, an error, an unexpected success or a failing
                                        subtest "failed", a skip or an expected failure
                                        "skipped", a success "passed" ("failed" where the
                                        outcome holds a failure kept as expected, or is no
                                        `_Outcome`, or the body did not return); none: "failed"
    {"k": "failer", "id": test.id(), "f": [file, ...]}   a failure's traceback (a subtest's): the
                                        files that called unittest's failure (`unittest_failers`)
    {"k": "check", "p": process, "at": "begin", "h": hash}   each test's start: all, one hash
    {"k": "check", "p": process, "at": "end", "m": [fingerprints]}   each test's end, the run's
    {"k": "end", "status": 0|1, "runner": "unittest", "ran": n}

Limits: the code under test shares the process: it can end it (`os._exit`: the stream is cut short),
write lines with the nonce it read from this module's defaults (they add to the stream: a failure
streamed stays, the worst outcome counts; the read is streamed), change the mutable objects it
reaches without an audit event (the counters `state`, a `_Watched`'s slots, found through
`sys._getframe`), or on 3.13 rebind the locals of the observer's `run` frame (PEP 667); an
environment's `.pth` file runs before `sitecustomize`; a runner other than `TestProgram` (a script
calling `TextTestRunner().run` itself) streams nothing.
"""

from __future__ import annotations

import os
import sys

# nothing more is imported where the process is no unittest run: `typing` for the checker alone
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

VARIABLE = "FIXBOT_OBSERVER"  # the channel's descriptors, as the pytest plugin reads them
RUNNER = "unittest"
HIGH_FD = 700  # the records' descriptor is copied at or above this number (close-on-exec)
PEEK_BYTES = 64 * 1024  # the settings channel peeked at (bytes): more than one line
GATE = "_unittest_gate"  # whether this is a unittest run, copied beside this as `<module>` + GATE
PART = "_unittest_machinery"  # the fingerprints' part, copied beside this as `<module>` + PART
RESULT = "_unittest_result"  # the result class's part (`_Watched`), copied beside it likewise
COMPILED = "_unittest_compiled"  # the code each file was compiled to as imported, likewise
# the parts it imports, each `<module>` + part (the module docstring says what each holds)
PARTS: tuple[str, ...] = (PART, RESULT, COMPILED, "_unittest_asserts", "_unittest_watch")
PARTS += ("_unittest_equal", "_unittest_asserter", "_bodies", "_identities", "_reach")
PARTS += ("_calls", "_sourced", "_unittest_helped", "_unittest_seen", "_unittest_failers")


def load(module: str) -> bool:
    """Load the observer into this process where it is a unittest run (see the module
    docstring); `module` is the observer folder's module name (`fixbot_observer_<hex>`), whose
    `<module>_sender` it sends through. False (nothing done) where the channel is absent or
    this is no unittest run, or where loading failed: nothing that breaks the process."""
    try:  # `contextlib` is not imported: silent processes import nothing
        return _load(module)
    except Exception:
        return False


def _load(module: str) -> bool:
    gate = _gate(module)
    channel = gate._channel(os.environ.get(VARIABLE, ""))
    mode = gate._mode() if channel is not None else None
    settings = _peek(channel[0]) if channel is not None and mode is not None else None
    if channel is None or mode is None or settings is None:
        return False
    nonce, root, failed = settings  # `failed`: the ids of the tests that failed at the start
    import fcntl
    import importlib
    import unittest

    sender = importlib.import_module(module + "_sender")
    parts = _imported(module)
    sourced = parts["_sourced"].install()  # the project's modules run from their source bytes
    machinery, watched = parts[PART], parts[RESULT]._Watched
    out = fcntl.fcntl(channel[1], fcntl.F_DUPFD_CLOEXEC, HIGH_FD)
    if mode == "module":
        _take(channel)
    codes = (watched._decide.__code__, *_CALLERS, *machinery.CALLERS)
    hooks = parts["_identities"].codes([parts["_reach"]])  # and the audit hook's (`_guard`)
    send = sender._sender(out, nonce, frozenset(id(code) for code in codes) | hooks)
    # what can change: running, tests entered, red, settings still to take (a script's)
    state: list[Any] = [False, 0, False, channel if mode == "script" else None]
    # what cannot, a tuple (round 22): the process's token, the machinery's places, unittest's
    # outcome class, the root, each file's compiled code and class's file (`unittest_compiled`)
    places = machinery._places(parts[RESULT])
    kind = getattr(unittest.case, "_Outcome", None)
    hook, ours, made = parts[COMPILED]._recorder(root)
    sys.addaudithook(hook)
    held = (f"u{os.getpid()}", places, kind, root, ours)
    case, program = unittest.TestCase, unittest.TestProgram  # `unittest.main` is the class
    digest = parts["_bodies"]._code_digest
    bodies: list[list[Any]] = []  # each running test's body record (`unittest_result._caller`)
    kept = (state, held, bodies)
    run, run_tests = _wrappers(case.run, program.runTests, send, kept, (machinery, watched, digest))
    watch = parts["_unittest_watch"]._watcher(send, state, held)  # `caller`'s watch (3.12+)
    seen = parts["_unittest_seen"]._seer(vars(case)["_callTestMethod"], send, state, held, failed)
    caller = parts[RESULT]._caller(seen, bodies, *watch)  # the body's values probed, `seen`
    sub = parts[RESULT]._subtester(vars(case)["subTest"], bodies, unittest.case)
    asserter = parts["_unittest_asserter"]._asserter
    judge = asserter(vars(case)["_getAssertEqualityFunc"], send, state, held)
    case.run, case._callTestMethod, case.subTest = run, caller, sub  # type: ignore
    case._getAssertEqualityFunc, case.__init_subclass__ = judge, made  # type: ignore
    program.runTests = run_tests  # type: ignore
    _loaded(send, held, machinery._prints(places))
    mine = (run, run_tests, caller, sub.__wrapped__, judge, hook, ours, made.__func__, sourced)
    _guard(parts, sender, send, mine, root)
    return True


def _gate(module: str) -> Any:
    """The observer's gate (`unittest_gate.py`, copied beside it as `<module>_unittest_gate`,
    which `startup.py` asked first), or `fixbot.observe.unittest_gate` where this module is
    fixbot's own."""
    import importlib

    package = __name__.rpartition(".")[0]
    return importlib.import_module(package + ".unittest_gate" if package else module + GATE)


def _imported(module: str) -> dict[str, Any]:
    """The observer's `PARTS`, each imported as `module` + part, out of `sys.modules` at once."""
    import importlib

    try:
        return {part: importlib.import_module(module + part) for part in PARTS}
    finally:
        for part in PARTS:
            sys.modules.pop(module + part, None)


def _root(given: Any) -> str:
    """The work tree's root `given` in the settings line (a file's path is named relative to
    it), real, with a trailing separator; the current folder where it names none."""
    root = given if isinstance(given, str) and os.path.isdir(given) else os.getcwd()
    return os.path.join(os.path.realpath(root), "")


def _peek(given: int) -> tuple[str, str, Any] | None:
    """The run's nonce, the work tree's root (`_root`) and the watched tests' ids, as given, from
    the settings channel's next line, read without consuming it (for a later process), or None."""
    import _socket
    import json

    sock = _socket.socket(fileno=given)
    try:
        data = sock.recv(PEEK_BYTES, _socket.MSG_PEEK | _socket.MSG_DONTWAIT)
    except OSError:
        return None
    finally:
        sock.detach()
    try:
        settings = json.loads(data.split(b"\n", 1)[0].decode("utf-8"))
        nonce = settings["nonce"]
    except (ValueError, KeyError, TypeError):
        return None
    found = (nonce, _root(settings.get("root")), settings.get("watch"))
    return found if isinstance(nonce, str) and nonce else None


def _take(channel: tuple[int, int]) -> None:
    """Consume this process's settings line (one: each observed process of the check reads its
    own), close the settings end and the inherited records end (a copy is the sender's) and
    take the variable out of the environment: the run's children are not observed."""
    given, out = channel
    os.environ.pop(VARIABLE, None)
    line = b""
    try:
        while not line.endswith(b"\n"):
            byte = os.read(given, 1)
            if not byte:
                break
            line += byte
    except OSError:
        pass
    for fd in (given, out):
        try:  # noqa: SIM105
            os.close(fd)
        except OSError:
            pass


def _wrappers(
    orig_run: Any,
    orig_main: Any,
    send: Any,
    kept: tuple[list[Any], tuple[Any, ...], list[list[Any]]],
    used: tuple[Any, Any, Any],
) -> tuple[Any, Any]:
    """The observer's `TestCase.run` and `TestProgram.runTests` around the ones captured, each
    test's start (`digest`: of the body it runs), end and the run's end streamed by `machinery`
    (`<module>_unittest_machinery`), each test's outcomes by the result class `watched`
    (`<module>_unittest_result`'s `_Watched`), `used` being (`machinery`, `watched`, `digest`);
    `kept` is what changes (`state`), what does not (`held`: `_load`) and the running tests'
    body records (`bodies`: `unittest_result._caller`), one pushed as each test's run begins."""
    state, held, bodies = kept
    machinery, watched, digest = used

    def run(
        self: Any,
        result: Any = None,
        _orig: Any = orig_run,
        _state: list[Any] = state,
        _held: tuple[Any, ...] = held,
        _watched: Any = watched,
        _send: Any = send,
        _began: Any = machinery._began,
        _digest: Any = digest,
        _ended: Any = machinery._test_ended,
        _name: Any = _test_name,
        _bodies: list[list[Any]] = bodies,
    ) -> Any:
        if result is None or not _state[0]:
            return _orig(self, result)
        name, body = _name(self), [self, 0, 0, 0]
        watched = _watched(result, name, _send, _state, _held, body)
        _began(self, name, _send, _held, _digest)
        _bodies.append(body)
        try:
            _orig(self, watched)
        finally:
            if _bodies and _bodies[-1] is body:  # runs nest: a test's run inside another's
                _bodies.pop()
            _ended(self, watched, _send, _state, _held)
        return result

    def run_tests(
        self: Any,
        *args: Any,
        _orig: Any = orig_main,
        _state: list[Any] = state,
        _held: tuple[Any, ...] = held,
        _send: Any = send,
        _begin: Any = _run_began,
        _end: Any = machinery._run_ended,
    ) -> Any:
        if _state[0]:  # a run inside a run: the outer one streams
            return _orig(self, *args)
        _begin(_send, _state)
        try:
            return _orig(self, *args)
        finally:
            _end(_send, _state, _held)

    return run, run_tests


def _guard(parts: dict[str, Any], sender: Any, send: Any, made: tuple[Any, ...], root: str) -> None:
    """Add the pytest observer's audit hook (`<module>_reach`, `reach.install`) over this
    observer's functions (what `made`, its `TestCase.run` and `TestProgram.runTests`, and its
    result class, `<module>_unittest_result`'s `_Watched`, hold, transitively): a read of
    one's `__code__` or `__defaults__` by any code but its own is streamed as a change of the
    machinery (`observer-machinery`), a write ends the process (`sender.FAIL_CLOSED`); and the
    project's code reaching what it has no name for (the garbage collector's lists, frames of
    every thread, ctypes) is streamed (`reach`, `observer-reach`). Round 22:
    `TestCase.run.__defaults__` read, the observer's places rewritten in place."""
    identities, reach = parts["_identities"], parts["_reach"]
    folder = os.path.join(os.path.dirname(os.path.realpath(__file__)), "")
    methods = [m for m in vars(parts[RESULT]._Watched).values() if callable(m)]
    guarded = identities.functions([*made, *methods], folder)
    mine = [sys.modules[__name__], parts[PART], sender, *parts.values()]
    codes = identities.codes(mine) | identities.nested(guarded)
    readers = identities.nested([parts[PART]._prints])
    reach.install(send, folder, lambda: root, codes, guarded, sender.failer(), readers)


def _test_name(test: Any, _str: type[str] = str, _type: Any = type) -> str:
    """The test's id, as unittest prints it (its class's name where `id()` fails)."""
    try:
        return _str(test.id())
    except Exception:
        return _str(_type(test).__name__)


def _loaded(send: Any, held: tuple[Any, ...], prints: list[str], _str: Any = str) -> None:
    """The fingerprints at load (`prints`, of `held`'s places), streamed at once, before any
    project code runs and kept nowhere: fixbot keeps a process's first `load` (round 22:
    streamed at the run's start, they were the observer's list, which the code under test
    had rewritten in place with the fingerprints of the machinery it had patched)."""
    names = [_str(module) + "." + path for module, path, _ in held[1]]
    send({"k": "load", "p": held[0], "n": names, "m": prints})


def _run_began(send: Any, state: list[Any], _take: Any = _take, _runner: str = RUNNER) -> None:
    """The run's start: a script's settings line taken now, `start` streamed (the load's
    fingerprints went out at load: `_loaded`)."""
    if state[3] is not None:
        _take(state[3])
        state[3] = None
    state[0], state[1], state[2] = True, 0, False
    send({"k": "start", "watch": [], "runner": _runner})


# the sender's other callers: `_Watched._decide`, the fingerprints' part's `CALLERS`
_CALLERS = (_loaded.__code__, _run_began.__code__)
