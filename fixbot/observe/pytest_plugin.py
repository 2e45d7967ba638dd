"""fixbot's observer inside pytest: each test's outcome streamed, as pytest decides it, to a
channel fixbot holds, with what it saw of the runner's machinery and of the tests' bodies.

This file runs inside the project's own Python (3.8 or later, whatever its version), loaded by
`-p <name>` from a folder fixbot made (`fixbot.observe.channel`), before any conftest or test
module is imported. It imports the standard library and pytest alone, and none of fixbot; its
parts are copied beside it (`<module>_bodies`: a digest of each test's body and the tracer
around its call; `<module>_hooks`: the hook around a test's call; `<module>_collection`: the
hooks of a session's start, its collection and its plugins; `<module>_operands`: what a test's
body compared, each operand's type read by `<module>_shapes` (the standard library's
Python comparisons by `<module>_library`, what those reach held at load by
`<module>_libreach`, a truth test's by `<module>_truth`, a failing bare
assertion's by `<module>_failedtruth`);
`<module>_calls`: what a watched test's call did; `<module>_watch`: the profile function that
sees it, with `<module>_classes` and `<module>_bracket` (the body's locals around each call it
makes, 3.13 and later);
`<module>_integrity`: what it captures at load and compares later; `<module>_modulecode`: the
work tree's files the process imported, streamed once as the session ends (`imported`);
`<module>_identities`: what it is made of; `<module>_sender`: the writing end of its
channel; `<module>_reach`: its audit hook).

The rule: a fact is streamed when it is known; fixbot, not the process, compares. The observer
shares its process with the code under test, which can reach its memory (the running `Config`
from the frames of pytest's collection, the plugin pluggy lists, its functions' closure cells)
and change a container it keeps in place, unseen by any comparison made in the process. So
nothing is kept to be reported later: how a watched test's body left its call goes out as the
call ends (`exit`), and fixbot pairs it with the call's report; the machinery's fingerprints
go out at load, before any conftest or test module is imported (`load`), and the observer's
own hash at registration (`sealed`), then again at each check (`check`), and fixbot compares
them (`fixbot.observe.judge.moved`).

The observer has no class: its hooks are functions bound to each other and to what they share
through closure cells, registered on a bare module object that is in no `sys.modules`, and
its modules leave `sys.modules` once it is registered. Nothing of its behaviour is looked up
through a module, class or instance attribute at each call; what the code under test can still
reach (pluggy's `HookImpl.function`, a function's closure cells and `__globals__`) is compared
with what it was at registration, at each test's teardown and at the session's end
(`integrity.seal`): a hook implementation, a closure cell or a function's code or defaults
changed ends the process (`sender.FAIL_CLOSED`), since the report of it would go through
what may be a changed sender; a module global changed is streamed. The sender and the checks
hold what they use as positional defaults, not closure cells, and serialize with the
observer's own encoder (`sender._encode`), not `json`, whose module the project can rebind;
its functions' `__code__` or `__defaults__` read is reported by the audit hook, and written
ends the process.

The channel: `FIXBOT_OBSERVER=<in>:<inode>,<out>:<inode>` names two inherited descriptors,
each an end of a Unix socket pair (by number, and by inode so that a process holding other
files under those numbers leaves them alone; a socket, which no path opens: `/proc/self/fd/N`
fails with ENXIO, so the records cannot be read back out of the channel). From `<in>` the plugin
reads one line (the run's nonce and the test ids to watch) and closes it; `<out>` is moved to a
high, close-on-exec descriptor; the variable leaves `os.environ`. The sender trusts that
descriptor by the file it names, not by its number: before and after each record it compares
the kernel's identity of the file (`os.fstat`'s device and inode) with the channel's, and where
the code under test put another file under the number (`os.dup2`, closed and reopened), or
where a record cannot be written whole (the socket shut down through a copy), it ends the
process at once (`sender.FAIL_CLOSED`, 76, through `os._exit`: no atexit handler or
thread of the project's runs after it), the stream without its end. It answers only the
observer's own code (its code objects, by identity): a record the project's code sends through
it, having found it in a hook's closure, ends the process the same way. Each record is one
line, `nonce<TAB>json`, a JSON object of a kind (`k`), listed where fixbot reads them
(`fixbot.observe.stream`).

The comparisons come from a profile function set for a watched test's call phase alone (the
tests that failed at the start, named by fixbot; `watch.py`: made once, holding no closure cell,
running none of the project's code): it sees the Python `__eq__`/`__ne__`/`__bool__` that run
and the object they run on, streams each as it runs (`saw`), and the object is asked, as the
call ends, about an object it cannot know (`eq`).
pytest's `pytest_assertion_pass` hook gives an assertion's text, not its operands, so it cannot
say which type compared. A comparison implemented in C (`int.__add__` standing as `__eq__`) is
not seen; the body and machinery checks do not depend on it. A value the project's code hands
back to the body (and the items of a list, tuple, set or dict it is) is probed too, whatever
file its type's `__eq__` is in (`unittest.mock.ANY` returned by the code under test).

The body's own verdict: the profile function also sees how each entry of the body's code left
it (the instruction its frame stopped at: a return, a suspension at `await`, else an exception
unwinding it), streamed as the call ends; only an entry made while no other entry of the body
runs counts (the code under test calling the test's function again, from inside it, to return
the one value that passes, does not make the call's own entry return). A watched test whose
call is reported passed while no entry of its body returned was passed by what reported it,
however that told the known-answer test apart and spared it; one whose call report came with
no exit record before it (a report sent before the body ran) is no better: fixbot pairs them,
and missing is not "returned".

The known answer: before the first watched test's call and at the session's end the observer
runs a test of its own that must fail (it raises AssertionError) through pytest's own call and
report machinery (`Function.runtest`, the `pytest_pyfunc_call` implementations, `CallInfo`,
every `pytest_runtest_makereport` implementation and wrapper, registered early or late), and
streams what that machinery reported. Whatever in the process makes a failing test pass makes
this one pass too, however it is spelled: the observer asks the machinery a question whose
answer it knows instead of recognising the objects that give it. The report is not logged (no
terminal line, no JUnit entry, no effect on the exit status).

The body's code: as each test's call begins, the observer streams a digest of the code the
call is about to run (the function under its decorators: its instructions, names, constants,
first line and qualified name; `bodies._code_digest`), for every test, since the start's run watches
none; fixbot compares a watched test's with the start's run's where the fix left its test file
alone (`judge`). What pytest runs is then the test file's own body as the start ran it,
however the code under test swapped it (a module of its own under the test module's name in
`sys.modules`, pytest's `Function.__init__` wrapped to give the item another function): the
digest follows the code, not the objects that hand it over. Beside it, whether a trace function
is set as the call begins and as it ends (`sys.gettrace`, captured at load, or on Python 3.12
and later a `sys.monitoring` tool registered: `bodies._tracing`): a trace function runs at each
instruction of the body and can write its locals, and one set under no project frame (a
property getter pytest's collection reads, `functools.partial` of `sys.settrace`) raises no
audit event the reach hook counts; fixbot compares it with the start's run's same test (a
coverage tool traces both). The observer's own trace function (`operands.tracer`, set around a
watched call, chaining the one set before) is not counted: as the call ends the one set before
is put back and asked about, and the observer's found replaced or removed counts as traced.

A record is written when its fact is known, not at exit: a process that ends early leaves a
stream without its `end`, and a report rewritten at exit disagrees with what was streamed.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Iterable
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest


def _sibling(name: str) -> Any:
    """The observer's module `name`, copied beside this one (`<module>_<name>`), or
    `fixbot.observe.<name>` where this file is imported from fixbot's package."""
    package, _, module = __name__.rpartition(".")
    return importlib.import_module(f"{package}.{name}" if package else f"{module}_{name}")


calls = _sibling("calls")
identities = _sibling("identities")
integrity = _sibling("integrity")
profiler = _sibling("watch")  # the profile function (`watch.py`)
sender = _sibling("sender")
bodies = _sibling("bodies")  # the body's digest and the tracer around its call
around = _sibling("hooks")  # the hook around a test's call
collection = _sibling("collection")  # the hooks of a session's start, its collection, plugins
operands = _sibling("operands")  # what a test's body compared
failed = _sibling("failed")  # what a test's failing assertion compared
shapes = _sibling("shapes")  # the shape of a compared operand's type
truth = _sibling("truth")  # a bare assertion's truth test, read as a comparison
failedtruth = _sibling("failedtruth")  # the truth test a failing bare assertion made
modulecode = _sibling("modulecode")  # the module code each work-tree file ran: those imported
known = _sibling("known")  # the known-answer test's function, alone in its file
# the parts the hooks of the observer's other parts use, given to them
_PARTS = SimpleNamespace(
    calls=calls,
    watch=profiler,
    bodies=bodies,
    integrity=integrity,
    operands=operands,
    failed=failed,
    shapes=shapes,
    truth=truth,
    failedtruth=failedtruth,
)


def _parts() -> list[ModuleType]:
    """The observer's modules, this one and its parts (`channel.PARTS`): their code objects are
    the observer's own (the only callers its sender answers), and they are sealed and taken
    out of `sys.modules` once it is registered."""
    here = sys.modules[__name__]
    parts = [around, bodies, calls, collection, identities, operands, integrity, profiler]
    later = [sender, shapes, _sibling("library"), _sibling("libreach"), _sibling("classes")]
    found = [here, *parts, *later, _sibling("reach"), _sibling("bytecode"), failed, truth]
    found += [_sibling("sourced"), modulecode, known]
    last = [failedtruth, _sibling("bracket"), _sibling("followed"), _sibling("jumps")]
    unread, unstored, holds = _sibling("unread"), _sibling("unstored"), _sibling("holds")
    held = [unread, unstored, _sibling("closures"), holds, _sibling("contents")]
    held += [_sibling("classbody"), _sibling("storing"), _sibling("dunders")]
    return [*found, *last, _sibling("reading"), *held]


def _observer(out: int, nonce: str, watch: Iterable[str], root: str | None) -> SimpleNamespace:
    """The plugin object (`plugin`: a namespace of hook functions bound to each other and to
    what they share through closure cells, not attributes: no class of its own, no method
    looked up at each call), its `send`, its `hooks`, and `sealed(manager, modules)`, which
    captures what it is made of once pluggy holds it. `root` is the work tree's root fixbot
    named, as this process sees it."""
    watched = frozenset(watch)
    # the observer's own code objects: the only callers its sender answers (this module's
    # functions are all made by now: `_open` calls this from the module's last lines)
    codes = frozenset(identities.codes(_parts()))
    send = sender._sender(out, nonce, codes)
    # which process a check's fingerprints belong to (a fork keeps its parent's: its checks
    # are the same observer's)
    token = os.urandom(4).hex()
    # each watched test as collected: the identities of its function, of its code and of the
    # module globals its code reads (a plugin may swap any after collection)
    collected: dict[str, tuple[int, int, dict[str, int]]] = {}
    # the watched tests whose call phase is running: a report logged meanwhile (a subtest's)
    # is not the call's own
    calling: set[str] = set()
    # a test module's node the known-answer test is made under; whether the known answer was
    # asked before the first watched call; the check of the observer itself (`seal`)
    state: dict[str, Any] = {"anchor": None, "asked": False, "seal": lambda: ([], "")}
    # the object pluggy registers (hashable; in no `sys.modules`): it holds the hook functions
    # until pluggy has taken them
    plugin = ModuleType("fixbot-observer")
    captured = integrity.capture()
    # the work tree's files the process imports, from the audit hook's install on (before any
    # conftest or test module: `reach.install` hands it each `exec` event), streamed once, as
    # the session ends (`imported`)
    recorded, imported = modulecode.recorder(os.path.join(root or OBSERVER_ROOT[0], ""))
    # the machinery as captured, streamed now: fixbot compares each check's with it
    names = [module + "." + path for module, path in integrity.MACHINERY]
    send({"k": "load", "p": token, "n": names, "m": integrity.fingerprints(captured)})
    check = integrity._checker(send, captured, state, token)
    known = _asker(send, state)
    hooks = [
        *collection.collection_hooks(
            send, watched, collected, state, plugin, integrity._root(root, OBSERVER_ROOT), _PARTS
        ),
        *around.call_hooks(send, watched, collected, calling, state, known, _PARTS),
        *_report_hooks(send, calling, known, check, imported),
    ]
    vars(plugin).update({h.__name__: h for h in hooks})

    def sealed(manager: Any, modules: list[ModuleType]) -> None:
        made = identities.functions(hooks, FOLDER)
        registered = identities.registered(manager, plugin)
        state["seal"] = integrity.seal(made, modules, registered, sender.failer())
        # the observer as registered, streamed now: fixbot compares each check's with it
        send({"k": "sealed", "p": token, "s": state["seal"]()[1]})

    return SimpleNamespace(
        plugin=plugin,
        send=send,
        sealed=sealed,
        hooks=hooks,
        root=root,
        codes=codes,
        recorded=recorded,
    )


def _asker(send: Callable[[dict[str, Any]], None], state: dict[str, Any]) -> Callable[[str], None]:
    """The known answer (`known_answer(at)`): a test that must fail, run through the machinery
    a test's call and report go through, and the outcome that machinery reported streamed
    (`unavailable` where this pytest cannot make such a test, `error: <type>` where its
    machinery raised)."""

    def known_answer(at: str) -> None:
        try:
            make = pytest.Function.from_parent
            runner = sys.modules["_pytest.runner"]
            if state["anchor"] is None:
                raise LookupError("no test module")
            item = make(state["anchor"], name="test_" + known.KNOWN, callobj=known.must_fail)
        except Exception:
            send({"k": "known", "at": at, "o": "unavailable"})
            return
        try:
            call = runner.CallInfo.from_call(item.runtest, "call")
            report = item.ihook.pytest_runtest_makereport(item=item, call=call)
            outcome = str(report.outcome)
            if outcome == "failed" and known.KNOWN not in str(report.longrepr):
                outcome = "failed otherwise"
        except Exception as error:  # the machinery broke on a plain test: say so
            outcome = "error: " + type(error).__name__
        send({"k": "known", "at": at, "o": outcome})

    return known_answer


def _report_hooks(
    send: Callable[[dict[str, Any]], None],
    calling: set[str],
    known_answer: Callable[[str], None],
    check_machinery: Callable[[bool], None],
    imported: Callable[[bool], dict[str, Any]],
) -> list[Callable[..., Any]]:
    """The hooks of each report and of the session's end; at the end, the work tree's files
    the process imported (`imported`: `modulecode.recorder`'s), streamed before the `end`: a
    process ended earlier (`os._exit`) streams neither, and is cut short."""

    def pytest_runtest_logreport(report: Any) -> None:
        """Each report, as pytest logs it; one logged while a watched test's call is running
        (a subtest's) says so (`in`): fixbot pairs the call's own report with how the body
        left it."""
        record = {"k": "r", "id": report.nodeid, "w": report.when, "o": report.outcome}
        if report.nodeid in calling:
            record["in"] = True
        send(record)
        if report.when == "teardown":  # a test's own patches are undone by then
            check_machinery(False)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(session: Any) -> None:
        known_answer("end")
        check_machinery(True)
        send({"k": "imported", **imported(True)})
        send({"k": "end", "status": int(session.exitstatus)})

    return [pytest_runtest_logreport, pytest_sessionfinish]


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: Any) -> None:
    """Register the observer (once per process: a nested pytest.main finds no channel), seal
    it, and take its modules out of `sys.modules`, where code could find them by what they
    hold."""
    global OBSERVER
    observer, OBSERVER = OBSERVER, None
    if observer is None:
        return
    OBSERVER_ROOT[0] = os.path.realpath(str(getattr(config, "rootpath", config.rootdir)))
    config.pluginmanager.register(observer.plugin, __name__ + "-observer")
    modules = _parts()
    observer.sealed(config.pluginmanager, modules)
    for module in modules:
        if module.__name__.startswith("fixbot_observer_"):  # a copy made for this run alone
            sys.modules.pop(module.__name__, None)


# Opened and captured as the plugin is imported (`-p` imports it while pytest parses its
# arguments, before any conftest or test module): what the code under test does later is
# compared with this. The audit hook knows the observer's code objects and functions: a frame
# running one is the observer's, and code reading or writing one's `__code__` is tampering.
FOLDER = os.path.join(os.path.dirname(os.path.realpath(__file__)), "")
OBSERVER_ROOT = [os.path.realpath(os.getcwd())]  # what reached files are named relative to
OBSERVER = integrity._open(_observer)
if OBSERVER is not None:
    # no bytecode cache opened outside the interpreter's libraries: the project's modules run
    # from their source bytes (round 38's planted and put-back caches)
    _SOURCED = _sibling("sourced").install()
    _sibling("reach").install(
        OBSERVER.send,
        FOLDER,
        integrity._root(OBSERVER.root, OBSERVER_ROOT),
        OBSERVER.codes,
        identities.functions([*OBSERVER.hooks, _SOURCED, OBSERVER.recorded], FOLDER),
        sender.failer(),
        # whose reads of its own functions' attributes are the observer's: its self-check and
        # pluggy registering its hooks (the rest of its frames pass a read on to their caller)
        identities.nested(
            [
                identities.functions,
                identities._holds,
                integrity.seal,
                identities.codes,
                pytest_configure,
                _observer,
            ]
        ),
        OBSERVER.recorded,
    )
