"""The observer's audit hook: which of the project's files reached what no name leads to.

Copied beside the observer's plugin (`fixbot.observe.channel`) and loaded with it, inside the
project's own Python (3.8 or later), before any conftest or test module is imported. It
imports the standard library alone.

Code in the same interpreter as the observer can reach the observer's objects without naming
them: through the garbage collector (every object it tracks, and who refers to what), the
frames of every thread, the profile and trace functions (the observer's own while a watched
test runs: replaced around a comparison and put back, nothing of it is seen), a
`sys.monitoring` callback (Python 3.12 and later: called in any frame's context, as a trace
function is), and memory (ctypes). Each of these raises an audit event (PEP 578), and an
audit hook, once added, can be neither removed nor listed from Python: `sys.addaudithook` has
no inverse, and the hook is called before the function that raised the event returns anything.
So the observer need not recognise what the code did with what it reached; it notes that the
project's code went there, which an honest fix does not start doing.

For each event below, the hook finds the innermost frame whose code is the project's (a file
under the work tree's root fixbot named, else pytest's rootdir, that is not an installed
package's, not the observer's own, not code
compiled from a string: that one's caller counts, as does that of code named after a file
outside the project, `/tmp/x.py` or a library's) and streams `{"k": "reach", "ev": event,
"file": file, "by": caller}` once per triple (`ctypes` for every `ctypes.*` event but
`ctypes.dlopen`; `by` is the file of the code that raised it, which differs from `file` where
a library did it for the project's code, or where the project's code runs from an installed
copy, as under tox). It
walks the whole stack (no depth hides a frame) and passes over the observer's frames (the
project's `__eq__` it probes runs under them); an event raised by the observer's own code
(known by its code objects' identities, not by a file name code made elsewhere can claim) is
its own act. Where no project frame is on the stack (a thread the project's code started, a
callback run from pytest's code), `file` is empty: which code did it is unknown, not innocent.
The trace or profile function set there is not counted (a coverage tool's, which each new
thread takes); what that function does is.
`fixbot.observe.judge` compares them with the start commit's run: an event from a project
file (or under no project code) the start's run did not raise it from is a finding
(`observer-reach`), whichever file it is: the hook trusts a code object's file name, so code
compiled under the name of a file the fix left alone reaches in that file's name; the
project's own habits are not. What it cannot see: a reach that raises no audit event (frames
from `sys._getframe` and their `f_back`, a function's `__closure__` and `__globals__`, the
closure of the observer's profile function), and code compiled under the name of a project
file that reached the same way at the start.

The observer's own functions are guarded too (`guarded`): reading one's `__code__` or
`__defaults__` raises `object.__getattr__`, which, raised by any code but the observer's own
(the innermost frame that is not a library's or the standard library's decides: pluggy reading
the functions the observer registers is the observer's act), is streamed as a change of the
machinery. Writing one's `__code__`, `__defaults__` or `__kwdefaults__` raises
`object.__setattr__`, and ends the process at once (the observer's fail-closed end, `fail`),
whoever does it: the sender and the checks hold what they use as positional defaults, so a
write there would swap what they trust, and the report of it would go through them.

The list of events: https://docs.python.org/3/library/audit_events.html (3.8 and later).
"""

from __future__ import annotations

import os
import sys
import sysconfig
from collections.abc import Callable, Iterable
from types import FrameType
from typing import Any

# The audit events through which code reaches objects it holds no name for.
EVENTS = frozenset(
    {
        "gc.get_objects",
        "gc.get_referrers",
        "gc.get_referents",
        "sys._current_frames",
        "sys.setprofile",
        "sys.settrace",
        # Python 3.12 and later: a function the interpreter calls in any frame's context, as a
        # trace function is, whose frame (`sys._getframe(1)`) 3.13 lets it rewrite (PEP 667)
        "sys.monitoring.register_callback",
        # a function the interpreter calls at every audit event of any code, the observer's
        # own among them (its `sys._getframe` raises one): inside the observer's reading, as
        # a trace function runs, it can rewrite the body's locals or swap an operand's class
        # after the read (round 12)
        "sys.addaudithook",
    }
)
CTYPES = "ctypes."  # every ctypes event (memory, foreign functions) counts as one: `ctypes`
# but loading a library, which reaches nothing (importing ctypes does it, and so a library
# that imports it: numpy); what is then looked up in it (`ctypes.dlsym`) or read counts
LOADS = frozenset({"ctypes.dlopen"})
# set under no project code, these are a tracer's in a thread of its own (a coverage tool's,
# which `threading.settrace` makes each new thread take): what its function does counts; the
# observer's own profile function is checked by the observer
THREADING = frozenset({"sys.settrace", "sys.setprofile"})
# a code object's file is not the project's: an installed package's folder anywhere
LIBRARIES = (os.sep + "site-packages" + os.sep, os.sep + "dist-packages" + os.sep)


def install(
    send: Callable[[dict[str, Any]], None],
    own: str,
    root: Callable[[], str],
    codes: Iterable[int] = (),
    guarded: Iterable[Any] = (),
    fail: Callable[[], None] = lambda: None,
    readers: Iterable[int] | None = None,
    executed: Callable[[Any], None] | None = None,
) -> None:
    """Add the audit hook, which streams each (event, file, caller's file) once through `send`;
    `own` is the observer's folder (its files' frames are not the project's), `codes` the
    identities of the observer's code objects (an event raised by a frame running one is the
    observer's own act: by identity, not by a file name code made elsewhere may claim),
    `root()` the folder files are named relative to (the work tree's root, or pytest's rootdir
    once known: a file outside it is not the project's), `guarded` the observer's functions:
    their `__code__` or `__defaults__` read by any code but the observer's own is streamed as a
    change of the machinery (`observer: ...`), and any write of them (`__code__`,
    `__defaults__`, `__kwdefaults__`: the `object.__setattr__` event) calls `fail` (the
    observer's fail-closed end, `sender._fail`), whoever writes: the observer never does,
    and its sender and checks hold what they use as defaults. `readers` (default: every code
    object in `codes`) are the observer's code objects that read its functions' attributes
    themselves (its self-check, pluggy registering its hooks under its `pytest_configure`): a
    read under any other frame of the observer's (one of its hooks the code under test called
    with an object whose hash or name reads them, in C) is the code under test's. `executed`,
    where given, is handed each `exec` and `compile` event's arguments and name first
    (`modulecode.recorder`'s: the
    pytest plugin's record of the files imported rides this hook rather than a second one,
    which cost a Python call at each of a session's audit events, about 0.7 M per 1,000
    tests). Cannot be undone (PEP 578)."""
    getframe = sys._getframe  # captured: the code under test may rebind the name later
    sent: set[tuple[str, str, str]] = set()
    outside = _outside()
    own = os.path.join(os.path.realpath(own), "")
    ours = frozenset(codes)
    # the functions held, by address (their identities stay theirs while held): `_pointer`,
    # not `id`, which raises an audit event of its own inside the hook
    watched = {_pointer(f): f for f in guarded}
    absent = object()  # what no event names (`None` may be an event's object)
    kind, quick = _classifiers(outside, own)
    guard = _guard(send, ours, kind, root, ours if readers is None else frozenset(readers))

    def hook(
        event: str,
        args: Any,
        _watched: dict[int, Any] = watched,
        _fail: Any = fail,
        _pointer: Any = _pointer,
        _str: Any = str,
        _absent: Any = absent,
        _executed: Any = executed,
    ) -> None:
        if event in (EXEC, COMPILE) and _executed is not None:
            _executed(args, event)
        if event in GUARDS and _watched.get(_pointer(args[0]), _absent) is args[0]:
            if event == WRITE:
                _fail()  # nothing legitimate writes an observer function's code or defaults
            guard(event, args[0].__name__, _str(args[1]))
            return
        if event not in EVENTS and (not event.startswith(CTYPES) or event in LOADS):
            return
        frame: FrameType | None = getframe(1)  # the Python caller of what raised the event
        if frame is None:
            return
        classify = quick if event in THREADING else kind
        found, by = classify(frame.f_code)
        if found == OBSERVER and (not ours or id(frame.f_code) in ours):
            return  # the observer's own act
        top = os.path.join(root(), "")
        path = ""  # no project frame on the stack: a thread's, a callback's (unattributed)
        while frame is not None:  # the whole stack: depth is no hiding place
            found, where = classify(frame.f_code)
            if found == OURS and where.startswith(top):
                path = where
                break
            frame = frame.f_back
        if not path and event in THREADING:
            return  # a tracer taking each new thread (a coverage tool's), or leaving it
        seen = (
            "ctypes" if event.startswith(CTYPES) else event,
            path[len(top) :] if path.startswith(top) else path,
            by[len(top) :] if by.startswith(top) else by,
        )
        if seen not in sent:
            sent.add(seen)
            send({"k": "reach", "ev": seen[0], "file": seen[1], "by": seen[2]})

    sys.addaudithook(hook)


def _classifiers(
    outside: tuple[str, ...], own: str
) -> tuple[Callable[[Any], tuple[int, str]], Callable[[Any], tuple[int, str]]]:
    """`kind(code)` and `quick(code)`: whose a code object's file is (`_kind`), remembered by
    file name (not by code object: code objects compare equal whatever their file names)."""
    kinds: dict[str, tuple[int, str]] = {}

    def kind(code: Any) -> tuple[int, str]:
        file = code.co_filename
        known = kinds.get(file)
        if known is None:
            known = kinds[file] = _kind(file, outside, own)
        return known

    def quick(code: Any) -> tuple[int, str]:
        """`kind` without a system call for a file not yet seen (its path as named, not
        resolved, and not kept): during `sys.settrace`/`sys.setprofile` the interpreter is
        installing a trace function, and a hook that lets go of the interpreter lock there
        (a `stat` to resolve a path does) lets a thread starting under `threading.settrace`
        fail to install its own, and never run its target."""
        file = code.co_filename
        known = kinds.get(file)
        return known if known is not None else _kind(file, outside, own, resolve=False)

    return kind, quick


def _guard(
    send: Callable[[dict[str, Any]], None],
    ours: frozenset[int],
    kind: Callable[[Any], tuple[int, str]],
    root: Callable[[], str],
    readers: frozenset[int] = frozenset(),
) -> Callable[[str, str, str], None]:
    """The function streaming a read or write of an observer function's attribute (`install`),
    once per (attribute, function, file); `readers` the observer's code objects whose own
    reads they are (any other frame of the observer's is passed over)."""
    getframe = sys._getframe
    sent: set[str] = set()
    # the frame of the last read judged the observer's own act, held (so its identity stays
    # its own while held): the next reads by that same frame, a check reading each of its
    # functions' `__code__` in turn, are its own act too (its callers cannot change while it
    # runs), without walking the stack again at each (a walk reads `f_code`, itself audited)
    own: list[Any] = [None]

    def guard(event: str, function: str, attribute: str) -> None:
        """Stream a read or write of an observer function's `attribute` by code not the
        observer's: the innermost frame that is neither a library's nor the standard library's
        decides (pluggy reading the functions it registers, for the observer, is its act). A
        read under one of the observer's `readers` is its own where the first frame outside
        the observer's code is the runner's (pluggy calling its self-check), not where it is
        the project's (code that found the observer's module calling its reader by hand)."""
        frame: FrameType | None = getframe(2)
        if frame is own[0]:
            return
        own[0] = None
        start = frame
        where = ""
        reader = False  # under a frame of the observer's that reads its functions itself
        while frame is not None:
            if id(frame.f_code) in ours:  # the observer's: a reader, or one of its hooks
                reader = reader or id(frame.f_code) in readers
                frame = frame.f_back
                continue
            found, where = kind(frame.f_code)
            if found == OURS:  # the project's code called it, a reader of the observer's too
                break
            if reader:  # a reader the runner called (pluggy, pytest): the observer's own act
                own[0] = start
                return
            frame = frame.f_back
        if reader and frame is None:  # a reader under no other code: the observer loading
            own[0] = start
            return
        top = os.path.join(root(), "")
        who = where[len(top) :] if frame is not None and where.startswith(top) else "?"
        done = "written" if event == "object.__setattr__" else "read"
        name = f"observer: {attribute} of {function} {done} by {who}"
        if name not in sent:
            sent.add(name)
            send({"k": "machinery", "changed": [name]})

    return guard


OURS, THEIRS, OBSERVER = 0, 1, 2
# An object's address as `object.__hash__` computes it for any object (unique while it lives),
# in C and raising no audit event: `id` raises `builtins.id`, a second event inside each one
# the hook answers
_pointer: Callable[[Any], int] = object.__hash__
# the events raised when a function's `__code__` is read or written (and a code object's, a
# frame's restricted attributes): on the observer's own functions, tampering
GUARDS = frozenset({"object.__getattr__", "object.__setattr__"})
EXEC = "exec"  # the event `exec` raises, with the code object it runs (`install`'s `executed`)
COMPILE = "compile"  # the event `compile` raises, with (source, filename): `executed`'s too
WRITE = "object.__setattr__"


def _outside() -> tuple[str, ...]:
    """The folders whose files are not the project's: the interpreter's standard library and
    its packages' folders (a virtual environment's too), as `sysconfig` names them (not the
    prefix: a project may live under `/usr`)."""
    paths = sysconfig.get_paths()
    kinds = ("stdlib", "platstdlib", "purelib", "platlib")
    return tuple(sorted({os.path.join(os.path.realpath(paths[k]), "") for k in kinds}))


def _kind(file: str, outside: tuple[str, ...], own: str, resolve: bool = True) -> tuple[int, str]:
    """Whether code from `file` is the project's (OURS, where under the rootdir too), the
    observer's (under `own`), or anyone else's (the standard library, an installed package,
    code compiled from a string: `<string>`, `<frozen ...>`, whose caller is asked), and its
    real path (`resolve` False: its normalized path, with no system call)."""
    if not file or file.startswith("<"):
        return THEIRS, file
    path = os.path.realpath(file) if resolve else os.path.normpath(file)
    if path.startswith(own):
        return OBSERVER, path
    if any(part in path for part in LIBRARIES) or path.startswith(outside):
        return THEIRS, path
    return OURS, path
