"""fixbot's reading of the observer's stream: the records of `nonce<TAB>json` lines the plugin
wrote (`fixbot.observe.pytest_plugin`), each added to an `Observation` by its kind.

Reading the stream pairs what the observer streamed when it knew it: each call report of a
watched test takes the oldest `exit` record of that test not yet taken (`missing` where there
is none; a report logged inside the call, a subtest's, takes none), and each process's
`check` fingerprints are kept by the names its `load` record gave, beside those of load and
registration (`Observation.loaded`, `checked`), for `judge.moved` to compare; a teardown's
check streams one hash of the session-wide fingerprints (`integrity.digest`), which is
computed from the load's too (`fingerprints.WIDE`: the fingerprint records are read there;
the node runners' own records, the worker keys that sign a jest worker's lines, the verdicts
on a test's function, the files jest ran and a test's tries, in `jestrecords`).

The records, one a line, `nonce<TAB>json`, each a JSON object of a kind (`k`), as the plugin
and its parts write them:

    {"k": "start", "watch": [nodeid, ...]}          a session began, watching these tests;
                                                    `"runner": "jest"|"vitest"` from the node
                                                    runners' reporter (`node/reporter.cjs`),
                                                    which streams `start`, `r`, `fn`, `key`, `end`;
                                                    `"runner": "unittest"` from the observer
                                                    inside unittest (`unittest_observer.py`:
                                                    `start`, `load`, `r`, `check`, `end`; a
                                                    test's `r` once for each outcome unittest
                                                    reports of it, the worst counting)
    {"k": "r", "id": nodeid, "w": when, "o": outcome}   one report (setup, call, teardown;
                                                    a test's worst counts; from the node
                                                    reporter, "call" each, its last counts,
                                                    with its `"n": tries`, kept where
                                                    more than one, `Observation.tries`);
                                                    `"in": true` when logged while the test's
                                                    watched call runs (a subtest's): not the
                                                    call's own report
    {"k": "fn", "id": id, "o": "failed"|"passed"}   jest-circus's verdict on a run of a test's
                                                    function, from fixbot's jest test
                                                    environment (`node/environment.cjs`) as it
                                                    was dispatched (`Observation.functions`);
                                                    `"o": "file"`, `id` a test file: the
                                                    environment was built for it
                                                    (`Observation.environed`); in jest's
                                                    workers headed `mac<TAB>json`, the
                                                    HMAC-SHA256 of the JSON under a worker
                                                    key the nonce announced, the one record
                                                    a key signs, one key a test file
    {"k": "key", "key": hex}                        jest's reporter, as a worker's first file
                                                    starts: that worker's key (32 hex
                                                    digits), handed over in a file the
                                                    worker's environment takes
                                                    (`node/reporter.cjs`)
    {"k": "ran", "id": file}                        jest's reporter, in the main process: a
                                                    test file jest started to run
                                                    (`onTestFileStart`; `Observation.jested`),
                                                    signed with the nonce alone
    {"k": "body", "id": nodeid, "ran": bool}        a watched test's body entered or not
    {"k": "code", "id": nodeid, "h": digest, "f": file, "tr": bool}
                                                    a test's call begins (every test's: the
                                                    start's run watches none): a digest of the
                                                    body's code (`bodies.py`), the file its
                                                    code names, and whether a trace function
                                                    (or a `sys.monitoring` tool) is set
                                                    (`bodies._tracing`); unittest's observer's
                                                    as each test's run begins, no `tr`, kept
                                                    for every test (it watches none), with
                                                    `"c": [file, ...]`, its classes' files
    {"k": "failer", "id": nodeid, "f": [file, ...]}  unittest's observer: the files a failure's
                                                    traceback went through into unittest's
                                                    failing machinery (`failchains`)
    {"k": "exit", "id": nodeid, "how": how, "tr": bool}   how a watched test's body left this
                                                    call, as it ends: "returned" (an entry
                                                    returned), "raised", "unseen",
                                                    "unentered", "native" (no Python function:
                                                    a doctest); `tr`: a tracer as it ends
    {"k": "traced", "id": nodeid}                   a trace function (`bodies.py`) is set as the
                                                    call of a test not watched ends (said only
                                                    when set)
    {"k": "tampered", "id": nodeid, "what": text}   a watched test's function (or its code) or
                                                    the globals it reads replaced after
                                                    collection, the observer's profile removed
                                                    while it ran, or its trace function of the
                                                    body called by another's (`operands.py`)
    {"k": "full", "id": nodeid}                     a watched test's call compared, got back or
                                                    made more than the observer keeps (the
                                                    profile function's tables, the classes
                                                    walked, a value handed back whose pins'
                                                    walk was cut, `classes.pinner`, the trace
                                                    function's `MAX_OPS`):
                                                    those past it went unseen; said once
    {"k": "known", "at": "first"|"end", "o": outcome}   the known-answer test's report
    {"k": "eq", "id": nodeid, "type": ..., "dunder": ..., "file": ..., "always": bool}
                                                    a comparison judged as the call ended
    {"k": "saw", "id": nodeid, "file": ..., "line": n, "type": qualname, "dunder": ...}
                                                    a comparison as the profile function saw
                                                    it run (`watch.py`): fixbot pairs each
                                                    with an `eq` of its test, file, line and
                                                    dunder
    {"k": "fail", "id": nodeid, "line": n, "op": op, "s": [shape, shape]}
                                                    a test's body failed at a comparison (its
                                                    rewritten assertion's: every test's, from
                                                    `pytest_assertrepr_compare`), with each
                                                    operand's type shape (`failed.py`)
    {"k": "op", "id": nodeid, "at": offset, "line": n, "op": op, "s": [shape, shape]}
                                                    a comparison a watched test's body made,
                                                    seen by the observer's trace function as
                                                    it ran (`operands.tracer`), once per
                                                    offset, line, operator and types;
                                                    `"n": true` where a frame of other code
                                                    of the test module's made it (`line` the
                                                    body's line that ran it, `at` that
                                                    code's offset)
    {"k": "follows", "id": nodeid, "at": [offset, ...]}   a watched call began: the offsets of
                                                    its body's comparisons whose instruction
                                                    the observer follows (`jumps.followers`)
    {"k": "fol", "id": nodeid, "at": offset, "ok": bool}  a follow's outcome (`followed.py`):
                                                    each `op` of the body's own (no `n`) at a
                                                    followed offset whose operands are
                                                    built-ins' own owes one
                                                    (`comparisons.fol` pairs them)
    {"k": "load", "p": process, "n": [names], "m": [fingerprints]}   the machinery at load
                                                    (`integrity.MACHINERY`'s names, a 12-digit
                                                    hash of identities each, "-": absent)
    {"k": "sealed", "p": process, "s": hash}        the observer itself at registration
    {"k": "check", "p": process, "at": "t", "h": hash, "s": hash}   at each teardown: one
                                                    hash of the session-wide fingerprints
                                                    (`integrity.digest`), the observer's own
    {"k": "check", "p": process, "at": "end", "m": [...], "s": hash}   at the session's end:
                                                    every fingerprint, the observer's own
    {"k": "check", "p": process, "at": "begin", "h": hash}   at each unittest test's start:
                                                    one hash of every fingerprint
    {"k": "machinery", "changed": [names]}          runner machinery no longer what it was, as
                                                    the observer itself found
    {"k": "hooks", "hooks": [[hook, plugin], ...]}  who implements the verdict's hooks
    {"k": "plugin", "n": name, "f": file}           a plugin pytest holds, and the work tree's
                                                    file it comes from ("": none)
    {"k": "end", "status": exitstatus}              the session finished (`"runner"`: the
                                                    node reporter's or unittest's observer's,
                                                    which ask no known answer; unittest's
                                                    `"ran": n`, the tests it saw run)
    {"k": "imported", "f": [file, ...], "b": {file: sha256}}   pytest's and unittest's
                                                    observers, at a run's end, before its
                                                    `end`: the work tree's files its process
                                                    imported, and each one's bytes as its
                                                    code ran (`modulecode.record_of`,
                                                    read by `importrecord`)
    {"k": "reach", "ev": event, "file": f, "by": g} the project's file `f` raised an audit event
                                                    through which code reaches what it has no
                                                    name for (`gc.get_objects`,
                                                    `sys.setprofile`, `ctypes`...; `by` the
                                                    raising code's file): from `reach.py`,
                                                    whose audit hook cannot be removed
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from fixbot.core.observed import MAX_REACHED, Observation, Reach
from fixbot.observe import comparisons, failchains, fingerprints, importrecord, jestrecords

MAX_WATCH = 500  # test ids watched at most (the plugin is told no more: `channel`)
OUTCOMES = ("failed", "skipped", "passed")  # worst first
NODE_RUNNERS = frozenset({"jest", "vitest"})  # whose test's last outcome streamed counts
UNWATCHING = frozenset({"unittest"})  # whose observer streams each test's body, watching none


def _worse(a: str | None, b: str) -> str:
    return b if a is None else min(a, b, key=OUTCOMES.index)


MAX_EXITS = 8  # distinct ways a test's body left its passed calls, kept at most
MAX_CLASSES = 64  # files of a unittest test's classes kept at most (`Observation.classes`)
MAX_PENDING = 64  # a test's exit records waiting for their call's report, kept at most


@dataclass
class _Scratch:
    """What reading a stream keeps between records: the hook pairs, each watched test's exit
    records not yet paired with a call's report (oldest first), each process's machinery
    names in the order its fingerprints come."""

    hooks: set[str] = field(default_factory=set)
    pending: dict[str, list[str]] = field(default_factory=dict)
    names: dict[str, list[str]] = field(default_factory=dict)
    keys: set[str] = field(default_factory=set)
    signers: dict[str, str] = field(default_factory=dict)


def parse(text: str, nonce: str) -> Observation:
    """The `Observation` of a stream of `nonce<TAB>json` lines (the plugin's records); a line
    with another nonce, or that is not a record, counts as `forged`; a line signed under a
    worker key an earlier `key` record announced (`jestrecords.signed`) is taken where it is an
    `fn` record."""
    seen = Observation()
    scratch = _Scratch()
    for line in text.splitlines():
        given, _, body = line.partition("\t")
        record = jestrecords.signed(given, body, nonce, scratch)
        if record is None:
            seen.forged += bool(line.strip())
            continue
        _record(seen, record, scratch)
    seen.hooks = sorted(scratch.hooks)
    seen.doubled += [t for t, left in scratch.pending.items() if left and t not in seen.doubled]
    _keep_compared(seen)
    return seen


def _keep_compared(seen: Observation) -> None:
    """Every test's body is streamed; keep only those a later run compares: the tests that
    failed (the start's run watches none) and those watched; under unittest, whose observer
    watches none, every test's."""
    kept = set(seen.failed()) | set(seen.watching)
    if UNWATCHING & set(seen.runners):
        kept |= set(seen.digests)
    seen.digests = {t: d for t, d in seen.digests.items() if t in kept}
    seen.sources = {t: f for t, f in seen.sources.items() if t in kept}
    seen.traced = [t for t in seen.traced if t in kept]
    seen.traced_after = [t for t in seen.traced_after if t in kept]


def _record(seen: Observation, record: dict[str, object], scratch: _Scratch) -> None:
    """Add one record of the plugin to `seen` (`scratch`: what is kept between records)."""
    kind = record.get("k")
    add = _RECORDS.get(kind) if isinstance(kind, str) else None
    if add is not None:
        add(seen, record, str(record.get("id", "")), scratch)


def _start(seen: Observation, record: dict[str, object], test: str, scratch: _Scratch) -> None:
    seen.sessions += 1
    seen.distributed |= bool(record.get("dist"))
    runner = str(record.get("runner", ""))[:20]
    if runner and runner not in seen.runners:
        seen.runners.append(runner)
    watch = record.get("watch")
    if isinstance(watch, list):
        seen.watching += [str(t) for t in watch[:MAX_WATCH] if str(t) not in seen.watching]


def _result(seen: Observation, record: dict[str, object], test: str, scratch: _Scratch) -> None:
    outcome = record.get("o")
    own = record.get("w") == "call" and not record.get("in")  # not a subtest's, logged inside
    if own and test in seen.watching:  # the call's report meets how the body left that call
        _paired(seen, test, outcome == "passed", scratch.pending.get(test))
    if outcome in OUTCOMES:  # pytest-rerunfailures' `rerun`: not final
        # jest's and vitest's: the runner's last word (jest.retryTimes streams each try's, then
        # the file's); pytest's and unittest's: the worst of a test's phases or outcomes
        last = str(outcome) if set(seen.runners) & NODE_RUNNERS else None
        seen.tests[test] = last or _worse(seen.tests.get(test), str(outcome))
        if last:
            jestrecords.tried(seen, test, record.get("n"))
        if own and test not in seen.called:
            seen.called.append(test)


def _paired(seen: Observation, test: str, passed: bool, pending: list[str] | None) -> None:
    """A watched test's call report takes the oldest of its `pending` exit records (`missing`
    where there is none; kept when the call passed); one call, one exit: more than one waiting
    are lines of someone else's (`doubled`)."""
    if pending and len(pending) > 1 and test not in seen.doubled:
        seen.doubled.append(test)
    how = pending.pop(0) if pending else "missing"
    exits = seen.exits.setdefault(test, [])
    if passed and how not in exits and len(exits) < MAX_EXITS:
        exits.append(how)


def _plugin(seen: Observation, record: dict[str, object], test: str, scratch: _Scratch) -> None:
    name, file = str(record.get("n", ""))[:200], str(record.get("f", ""))[:400]
    if name and len(seen.plugins) < MAX_PLUGINS:
        seen.plugins.setdefault(name, file)


MAX_PLUGINS = 400  # plugins an observation keeps (the plugin streams 200 a process)


def _exit(seen: Observation, record: dict[str, object], test: str, scratch: _Scratch) -> None:
    pending = scratch.pending.setdefault(test, []) if test in seen.watching else []
    if len(pending) < MAX_PENDING:
        pending.append(str(record.get("how", ""))[:20])
    _traced(seen, record, test, scratch)


def _code(seen: Observation, record: dict[str, object], test: str, scratch: _Scratch) -> None:
    """A test's call began: the digest of its body's code, the file it names, a tracer set."""
    for values, value in (
        (seen.digests, str(record.get("h", ""))[:16]),
        (seen.sources, str(record.get("f", ""))[:400]),
    ):
        kept = values.setdefault(test, [])
        if value not in kept and len(kept) < MAX_EXITS:
            kept.append(value)
    classes = record.get("c")
    listed = classes[:MAX_CLASSES] if isinstance(classes, list) else []
    made = Counter(str(f)[:400] for f in listed)
    for file, count in made.items():  # each file as often as one record named it, at most
        kept = seen.classes.setdefault(test, [])
        kept += [file] * min(count - kept.count(file), MAX_CLASSES - len(kept))
    if record.get("tr") is True and test not in seen.traced:
        seen.traced.append(test)


def _traced(seen: Observation, record: dict[str, object], test: str, scratch: _Scratch) -> None:
    """A trace function was set as a test's call ended (a `traced` record, or an `exit`'s
    `tr`)."""
    said = record.get("k") == "traced" or record.get("tr") is True
    if said and test not in seen.traced_after:
        seen.traced_after.append(test)


def _tampered(seen: Observation, record: dict[str, object], test: str, scratch: _Scratch) -> None:
    what = str(record.get("what", ""))[:200]
    if what not in seen.tampered.setdefault(test, []):
        seen.tampered[test].append(what)


def _known(seen: Observation, record: dict[str, object], test: str, scratch: _Scratch) -> None:
    seen.known.append(f"{str(record.get('at', ''))[:10]}: {str(record.get('o', ''))[:60]}")


def _body(seen: Observation, record: dict[str, object], test: str, scratch: _Scratch) -> None:
    seen.bodies[test] = bool(record.get("ran"))


def _hooks(seen: Observation, record: dict[str, object], test: str, scratch: _Scratch) -> None:
    pairs = record.get("hooks")
    if isinstance(pairs, list):
        scratch.hooks |= {" ".join(map(str, pair)) for pair in pairs if isinstance(pair, list)}


def _reach(seen: Observation, record: dict[str, object], test: str, scratch: _Scratch) -> None:
    reached = Reach(
        event=str(record.get("ev", ""))[:40],
        file=str(record.get("file", ""))[:300],
        by=str(record.get("by", ""))[:300],
    )
    if reached not in seen.reached and len(seen.reached) < MAX_REACHED:
        seen.reached.append(reached)


def _end(seen: Observation, record: dict[str, object], test: str, scratch: _Scratch) -> None:
    seen.ended += 1
    seen.reported += bool(record.get("runner"))  # node's or unittest's: no known answer asked
    ran = record.get("ran")  # unittest's: the tests `TestCase.run` started (`testsRun`)
    seen.ran += ran if type(ran) is int and ran > 0 else 0
    status = record.get("status")
    seen.statuses.append(status if isinstance(status, int) else -1)


# The plugin's records by kind (`k`), each with what adds it to the observation: a session's
# start and end, a test's result, whether its body ran, what changed around it, a comparison it
# made (judged as its call ended, and seen as it ran), the runner's machinery changed, the hook
# implementations registered, the known answer,
# an audit event the project's code raised to reach what it has no name for, the digest of a
# test's body as its call began, how a watched test's body left its call, the fingerprints of
# the machinery at load, registration and each check.
_RECORDS: dict[str, Callable[[Observation, dict[str, object], str, _Scratch], None]] = {
    "start": _start,
    "r": _result,
    "fn": jestrecords.function,
    "ran": jestrecords.ran,
    "body": _body,
    "exit": _exit,
    "code": _code,
    "failer": failchains.failer,
    "traced": _traced,
    "plugin": _plugin,
    "imported": importrecord.imported,
    "load": fingerprints.load,
    "sealed": fingerprints.sealed,
    "check": fingerprints.check,
    "tampered": _tampered,
    "known": _known,
    "eq": comparisons.eq,
    "saw": comparisons.saw,
    "full": comparisons.full,
    "said": comparisons.said,
    "fail": comparisons.fail,
    "op": comparisons.op,
    "follows": comparisons.follows,
    "fol": comparisons.fol,
    "reach": _reach,
    "machinery": fingerprints.machinery,
    "hooks": _hooks,
    "end": _end,
}
