"""What a test's body compared: the operands of each comparison a watched test's body made, in
its own frame or one of other code of the test module's (`tracer`, the verifying run; those of
the comparison a failing assertion made, every run, are `failed.py`'s, which reads them with
`operand_sources` and `reading._values`), each as a *shape* of its type (`shapes.py`, given to
these functions as `shape`), which fixbot compares (`fixbot.observe.turned`): a comparison whose
expected side the test fixes turns only when a value of a type the start's run did not compare
there decides it.

Copied beside the plugin as `<module>_operands` and loaded with it, inside the project's own
Python (3.8 or later). It imports the standard library and the observer's `shapes`, `bytecode`,
`truth`, `library`, `followed`, `reading` and `unstored` parts alone; what its functions use is
held as positional defaults, made once at load (the code under test shares the process and can
reach a closure cell).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def _sibling(name: str) -> Any:
    """The observer's part `name`, copied beside this one (`<module>_<name>`, this module being
    `<module>_operands`), or `fixbot.observe.<name>` where imported from fixbot's package."""
    package, _, module = __name__.rpartition(".")
    return importlib.import_module(
        f"{package}.{name}" if package else module.rsplit("_", 1)[0] + "_" + name
    )


shapes = _sibling("shapes")  # the shape of an operand's type
bytecode = _sibling("bytecode")  # the body's instructions and line starts, read without `dis`
truth = _sibling("truth")  # a body's truth tests (`assert r`), read as comparisons (op "bool")
DECIDERS = shapes.DECIDERS  # the rich comparisons and containment, each with its dunders
SIDES = shapes.SIDES  # the op each operand of a containment is read as (item, container)
# the standard library's comparison dunders that decide for a type `shapes` read as its own
# (held here: their code objects' identities stay theirs while the plugin lives)
library = _sibling("library")  # the standard library's types whose comparison is Python
LIBRARY_CODES = library.comparison_codes()
# the library's types themselves, by identity: only for an instance of one of them exactly
# does one of `LIBRARY_CODES` decide as the library's own (the code runs for any class that
# borrows it: `__eq__ = Fraction.__eq__` on a class made on the spot)
LIBRARY_TYPES = library.library_types()
# the standard library's Python hashes a containment of an item whose `==` is `object`'s own
# runs (`Enum.__hash__`), held as `LIBRARY_CODES` are: excused where what the containment
# decided is held against what identity decides (`_decider`)
HASH_CODES = library.hash_codes()
# what the instruction decided, held against what the values read decide (`followed.py`)
followed = _sibling("followed")
# what the trace function reads at a comparison's event: the operands' values in the frame, their
# shapes streamed (`_streamer`), the follow planned
reading = _sibling("reading")
# the frame's locals held by identity from one `opcode` event to the next (round 15)
unstored = _sibling("unstored")
LOADS, PAIRS, STORE_LOADS = bytecode.LOADS, bytecode.OPERAND_PAIRS, bytecode.STORE_LOADS


def _comparison_of(
    instruction: tuple[int, str, Any],
    last: tuple[Any, Any],
    starts: list[tuple[int, int]],
    _deciders: Mapping[str, tuple[str, ...]] = DECIDERS,
    _pushed: Any = bytecode.pushed,
    _line_at: Any = bytecode.line_at,
) -> tuple[str, tuple[tuple[str, Any], ...], int] | None:
    """`(operator, sources, line)` of one `COMPARE_OP` or `CONTAINS_OP` `instruction`
    (`operand_sources`), the two instructions before it `last` and the code's sorted line
    starts `starts`; None for a comparison that is no rich one nor a containment, or whose
    operands are not plain loads."""
    op = instruction[2]
    if instruction[1] == "CONTAINS_OP":  # 3.9 and later: `arg` 1 is `not in`
        op = "not in" if op else "in"
    pushed = _pushed(last)
    if op not in _deciders or pushed is None:
        return None
    return op, pushed, _line_at(starts, instruction[0])


def operand_sources(
    code: Any,
    _instructions: Any = bytecode.instructions,
    _line_starts: Any = bytecode.line_starts,
    _comparison: Any = _comparison_of,
    _dict: Any = dict,
) -> dict[int, tuple[str, tuple[tuple[str, Any], ...], int]]:
    """The rich comparisons (`COMPARE_OP`) and containments (`CONTAINS_OP`, 3.9 and later;
    `COMPARE_OP` `in` on 3.8) of `code` whose two operands are pushed by the
    instructions right before it, each a plain load (pytest's rewritten assertions compare
    names it assigned, `@py_assertN`): `{offset: (operator, ((how, what), (how, what)),
    line)}`, `how` "local" (a name of the frame's locals, cells or free variables), "global"
    (its globals, then builtins) or "const" (`what` the constant), `line` the source line the
    code's line table gives the comparison (the compared expression's first line: in a
    rewritten assertion spread over lines, not the `assert`'s). Other comparisons are left
    out. The code is read by the observer's own reader (`bytecode.py`), with nothing looked up
    at run time where the project can rebind it (`dis`)."""
    found: dict[int, tuple[str, tuple[tuple[str, Any], ...], int]] = _dict()
    starts = _line_starts(code)
    last = (None, None)
    for instruction in _instructions(code):
        if instruction[1] == "COMPARE_OP" or instruction[1] == "CONTAINS_OP":
            compared = _comparison(instruction, last, starts)
            if compared is not None:
                found[instruction[0]] = compared
        last = (last[1], instruction)
    return found


# what the trace function reads of a body: its comparisons and truth tests (op "bool", one shape)
READ = truth.with_truths(operand_sources)


def _decider(send: Callable[[dict[str, Any]], None]) -> Callable[[Any, list[Any]], None]:
    """`decided(frame, notes)`, at each `call` event the trace function gets: a Python function
    called by the frame that made the comparison read last (`notes[6]`: its offset, whether
    both operands were read as built-ins' own, whether one was a standard library type's whose
    comparison is Python, `library.py`, and that frame: the body's entry pytest called, or one
    of other code of the test module's) while it runs that comparison
    decided that comparison (but for that library comparison's own dunders, `LIBRARY_CODES`,
    where one was and the instance they run for is of a library type exactly, `LIBRARY_TYPES`,
    not a class that borrowed them; and for the library's hash, `HASH_CODES`, of the item a
    containment looks up, where the follow holds what identity decides, `notes[7]`): where the
    operands were read
    as built-ins' own, what was read is not what decided (their class swapped after the read,
    by project code run inside the observer's reading or between it and the instruction), and
    `tampered` is streamed once."""

    def decided(
        frame: Any,
        notes: list[Any],
        _send: Any = send,
        _id: Any = id,
        _library: frozenset[int] = frozenset(id(c) for c in LIBRARY_CODES),
        _types: frozenset[int] = frozenset(id(t) for t in LIBRARY_TYPES),
        _type: Any = type,
        _hashes: frozenset[int] = frozenset(id(c) for c in HASH_CODES),
        _held: tuple[Any, ...] = HASH_CODES,  # the codes alive while their ids are held
    ) -> None:
        back = frame.f_back
        last = notes[6]
        if back is None or back is not last[3] or back.f_lasti != last[0] or not last[1]:
            return
        code = frame.f_code
        # a library type's own, read as such, running for an instance of that type: its first
        # argument read from the frame (C: no project code runs)
        if (
            last[2]
            and _id(code) in _library
            and code.co_argcount
            and _id(_type(frame.f_locals.get(code.co_varnames[0]))) in _types
        ):
            return
        # the library's hash of the very item a containment looks up, where what it decides is
        # followed and held against what identity decides (`followed._by_identity`): a hash
        # only says where to look, and a stale one is the follow's `tampered`
        follow = notes[7]
        if (
            _id(code) in _hashes
            and follow is not None
            and follow[3] is not None
            and code.co_argcount
            and frame.f_locals.get(code.co_varnames[0]) is follow[4][0]
        ):
            return
        if notes[0] and "decided" not in notes[4]:
            notes[4].add("decided")
            what = "a comparison read as a built-in's own ran Python code as it was decided"
            _send({"k": "tampered", "id": notes[0], "what": what})

    return decided


def tracer(
    send: Callable[[dict[str, Any]], None],
    shape: Callable[[Any, str], dict[str, Any]],
    callers: frozenset[int],
) -> Callable[[Any, str, Any], Any]:
    """The observer's trace function (`trace(frame, event, arg)`), made once: set around a
    watched test's call (`hooks.py`), it traces the body's frame (and those of other code of the
    test module's, below), instruction by instruction (`f_trace_opcodes`), and at each
    comparison or truth test `READ` finds streams `{"k": "op", "id": test, "line": n, "op": op,
    "s": [shape, shape]}` once per distinct (line, operator, shapes), `reading.MAX_OPS` at most;
    the first comparison past them streams `{"k": "full", "id": test}` (those past it went
    unseen). Its local trace function called by anything but the interpreter (a function of the
    code under test's, holding the body frame's `f_trace`, that wraps it) streams `{"k":
    "tampered", ...}` once. A trace function set before it (a coverage tool's) is chained: it
    gets every event it would have got, and is put back as the call ends. Control events
    (`frame` None), answered for the observer's code alone (`callers`, code identities): `begin`
    with (test id, the body's code, the trace function set before) starts a call, `end` ends it
    and returns whether any was streamed.

    Round 14: every frame of other code of the test module's (its globals the body's entry's
    own, by identity: a generator expression, a comprehension before 3.12, a lambda, a helper
    function, a class's method of the module's), made while the body's entry runs, is traced as
    the body's entry is: each comparison read, shaped and followed (its code's comparisons and
    followers read once per code object, `reading.MAX_OPS` codes at most, past them `full`),
    streamed with `"n": True` at the line the body's entry is at (`reading._streamer`)."""
    # test, code, chained, comparisons, seen, the live entry of the body pytest called, the
    # comparison last read (offset, whether both operands were read as built-ins' own, whether
    # one was a standard library type's whose comparison is Python, its frame), the comparison
    # being followed, the body's comparisons whose result is followed (`followed.py`), the
    # test module's globals (the entry's), the tables of its other code ({id: (code, reads,
    # follows)}) and the body's line starts
    notes: list[Any] = [None, None, None, {}, set(), None, None, None, {}, None, {}, []]
    callers = callers | {id(_prime.__code__)}

    note = _local_tracer(notes, send, shape)
    decided = _decider(send)
    begun = followed.announcer(send)  # the body's comparisons to follow: streamed, then kept

    def trace(
        frame: Any,
        event: str,
        arg: Any,
        _notes: list[Any] = notes,
        _callers: frozenset[int] = callers,
        _getframe: Any = sys._getframe,
        _gettrace: Any = sys.gettrace,
        _settrace: Any = sys.settrace,
        _id: Any = id,
        _sources: Any = READ,
        _note: Any = note,
        _decided: Any = decided,
        _bool: Any = bool,
        _set: Any = set,
        _followers: Any = begun,
        _starts: Any = bytecode.line_starts,
        _entered: Any = reading._entered,
        _send: Any = send,
        _most: int = reading.MAX_OPS,
    ) -> Any:
        if frame is None:
            if _id(_getframe(1).f_code) not in _callers:
                return None
            if event == "begin":
                test, code, chained = arg
                _notes[:] = [test, code, chained, _sources(code), _set(), None, None, None, {}]
                _notes[8:] = [_followers(test, code), None, {}, _starts(code)]
                return None
            streamed = _bool(_notes[4] - {"ridden", "decided", "keyed", "followed", "unstored"})
            _notes[:] = [None, None, None, {}, _set(), None, None, None, {}, None, {}, []]
            return streamed
        if event == "call" and _notes[6] is not None:
            _decided(frame, _notes)
        chained = _notes[2]
        local = None
        if chained is not None:
            local = chained(frame, event, arg)
            if event == "call" and _gettrace() is not trace:
                # a C tracer called from Python installs itself again at each call (coverage's):
                # the observer's is put back, and keeps chaining it
                _settrace(trace)
        entered = _entered(frame, _notes, _send, _most, _sources) if event == "call" else None
        if entered is None:
            return local
        mine = _note(frame, local, frame.f_trace_opcodes, *entered)  # what the chained asked
        # set before the opcode flag: on 3.12 and later the flag instruments the frame's code
        # only where the frame has a trace function already
        frame.f_trace = mine
        frame.f_trace_opcodes = True
        return mine

    _prime(trace)
    return trace


def _compare_once() -> bool:
    """A comparison the observer's trace function follows once as it is made (`_prime`)."""
    one = 1
    return one == 1


def _prime(trace: Callable[[Any, str, Any], Any]) -> None:
    """Follow one call of the observer's own (`_compare_once`) with `trace`, as the plugin is
    loaded (before any code of the project's but a coverage tool's, whose trace function is put
    back): on Python 3.12.1 the first frame a process gives `f_trace_opcodes` gets no `opcode`
    event, a later one does (seen by hand; not on 3.8 or 3.13). Its control events are
    answered: `tracer` counts this function's code among the observer's."""
    previous = sys.gettrace()
    trace(None, "begin", ("", _compare_once.__code__, None))
    sys.settrace(trace)
    try:
        _compare_once()
    finally:
        sys.settrace(previous)
        trace(None, "end", None)


def _returned(
    frame: Any, mine: Any, kept: list[Any], notes: list[Any], left: Callable[..., None]
) -> None:
    """At a `return` event of `frame` (it returned, raised out or suspended at a `yield`) seen
    by the local trace function made for `mine`: the body's entry (`notes[5]`) left, and the
    frame's last copy of its locals cut down to what `closures.closed` reads of it after
    (`closures.leaver`)."""
    if notes[5] is frame:
        notes[5] = None
    if frame is mine:
        left(frame, kept)


def _local_tracer(
    notes: list[Any],
    send: Callable[[dict[str, Any]], None],
    shape: Callable[[Any, str], dict[str, Any]],
) -> Callable[[Any, Any, bool, bool, tuple[Any, Any] | None], Any]:
    """`note(frame, chained, opcodes, outer, tables)`: the local trace function of one body
    frame (`tables` None) or of a frame of other code of the test module's (`tables` its code's
    `(reads, follows)`, `_tables`), which streams the operands of the comparisons at its
    `opcode` events (`_streamer`) where `outer` (the entry pytest called, made while no other
    entry of the body ran: a nested entry's comparisons are not the call's; always, for other
    code of the test module's) and passes every other event on to `chained` (the
    earlier tracer's local one for the frame), `opcode` events too where it asked for them
    itself (`opcodes`: it set the frame's `f_trace_opcodes`); after a comparison read as
    built-ins' own, what the instruction decided is followed (`followed.py`) in the frame that
    read it (at another frame's event first, it raised: nothing to follow). It answers its own
    frame alone: called with another (by code holding it, with a frame of its own), or by
    anything but the interpreter, it streams `tampered` once, and a foreign frame is not read.
    At each `opcode` and `line` event of a frame it reads, the frame's locals are held by
    identity against the last event's (`unstored.holder`): one changed where no instruction of
    the frame's stored it is `tampered` (round 15: a signal handler's write)."""
    plan, follow = followed.follower(notes, send)
    read = reading._reader(notes, reading._streamer(notes, send, shape, plan), follow)
    held, entered, left = unstored.holder(send)

    def note(
        frame: Any,
        chained: Any,
        opcodes: bool,
        outer: bool,
        tables: tuple[Any, Any] | None,
        _getframe: Any = sys._getframe,
        _entered: Any = entered,
        _left: Any = left,
        _returned: Any = _returned,
    ) -> Any:
        """The local trace function of one body frame (its defaults, the local one's, are
        read from its own: no name is looked up in a module's globals as a body runs)."""
        kept: list[Any] = [None, -1, 0, False, None]  # its locals at its last event (`unstored`)
        _entered(frame, kept)  # a closure's frame: its maker's cells may be rebound

        def local(
            frame: Any,
            event: str,
            arg: Any,
            _mine: Any = frame,
            _outer: bool = outer,
            _notes: list[Any] = notes,
            _chained: list[Any] = [chained],  # noqa: B006 (one per frame, on purpose)
            _opcodes: bool = opcodes,
            _send: Any = send,
            _read: Any = read,
            _getframe: Any = _getframe,
            _tables: tuple[Any, Any] | None = tables,
            _held: Any = held,
            _kept: list[Any] = kept,
            _left: Any = _left,
            _returned: Any = _returned,
        ) -> Any:
            if _outer and frame is _mine and (event == "opcode" or event == "line"):
                _held(frame, _kept, _notes, event == "opcode")  # a local changed with no store
            foreign = frame is not _mine
            if (foreign or _getframe(1) is not frame) and _notes[0]:
                # handed a frame it was not made for, or called by a function of another's that
                # holds the frame's `f_trace`, not by the interpreter (whose call's caller is
                # the traced frame itself)
                if "ridden" not in _notes[4]:
                    _notes[4].add("ridden")
                    what = "the observer's trace function of its body was called by another's"
                    _send({"k": "tampered", "id": _notes[0], "what": what})
                if foreign:
                    return local
            if event != "opcode":
                if _chained[0] is not None:
                    _chained[0] = _chained[0](frame, event, arg)
                if event == "return":
                    _returned(frame, _mine, _kept, _notes, _left)
                return local
            if _opcodes and _chained[0] is not None:  # it asked for them itself
                _chained[0] = _chained[0](frame, event, arg)
            if _outer:
                _read(frame, _tables)
            return local

        return local

    return note
