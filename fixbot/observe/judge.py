"""What the observer's stream says about a green check: pure, over two `Observation`s.

`findings(start, last, changed)` compares the verifying run's stream (`last`) with the start
commit's (`start`, the first failing run's) and names each thing that makes the green
unverified, as `rule: evidence` lines (the rule first, as `fixbot.tamper.cheats.Cheat` reads):

    observer-missing     the start's check streamed from pytest, the verifying one did not (pytest
                         never ran under the observer, was told not to load it, or its channel
                         was closed)
    observer-cut-short   a session began and never sent its end: the process ended inside it,
                         or the observer ended it (`integrity.FAIL_CLOSED`) when its channel's
                         descriptor no longer named the channel
    observer-forged      lines on the channel without the run's nonce
    observer-overflow    the stream was longer than fixbot reads (64 MiB) where the start's was
                         not: what the observer sent after that is unknown
    observer-machinery   the runner's machinery (pytest's runtest protocol, report construction,
                         pluggy's hook calls; at the session's end `os._exit`, `sys.exit`,
                         `atexit.register`) is no longer the objects the observer captured
                         before any project code ran, where the start's run saw no such change:
                         as the observer said, or as fixbot finds comparing the fingerprints
                         streamed at load (and the observer's own hash at registration) with
                         those of each later check (`moved`), a name left out counting
    observer-failed      tests the observer saw fail, or a session that ended red, while the
                         check exited 0
    observer-unseen      a test that failed at the start and was not seen to pass (its test
                         file unchanged by the fix)
    observer-body        a test that failed at the start passed without its body running, or
                         with no record of its body where the observer said it watched it
    observer-no-call     a test that failed at the start counted as passed with no report of
                         its call phase (the session was left from inside it)
    observer-tampered    what a test that failed at the start runs was changed after
                         collection (its function or its code, the globals its code reads),
                         the observer's profile function was removed while it ran, or its
                         call was reported passed while no entry of its body returned (as
                         the observer streamed when the call ended), with no record of
                         how its body left it, or with more such records than calls (lines
                         with the nonce written by other code)
    observer-known-answer the known-answer test (one that must fail, run through pytest's own
                         call and report machinery) was reported otherwise, or a session ended
                         without asking it, where the start's run did not say the same
    observer-always-equal a test that failed at the start passed by comparing with a type whose
                         `__eq__` (`__ne__`) holds for an object it cannot know, defined in the
                         code (not a test helper the fix left alone) or built at run time, or
                         handed back to the test's body by the code wherever it is defined
                         (or by a library's method called on an instance a project module
                         holds), or handed back so and equal to values its compared type
                         tells apart (a tolerance)
    observer-hooks       a plugin the start's run did not have implements a hook a verdict is
                         shaped through (`pytest_runtest_makereport`, ...)
    observer-plugin      a plugin from the project's own code (not a test module or conftest)
                         that the start's run did not have: registered at run time by the code
                         under test, whatever its name or hooks
    observer-reach       the project's code raised an audit event through which code reaches
                         objects it holds no name for (the garbage collector's lists, every
                         thread's frames, the profile or trace function, ctypes) from a file
                         the start's run did not raise it from (`fixbot.observe.reach`): any
                         file, not only those the fix changed, since code compiled under the
                         name of a file the fix left alone reaches in that file's name

The verdict depends on these, not on the tampering rules' reading of the diff. Two of them
say which tests or plugins ran rather than that the runner lied (`TEST_EDITS`): a change to the
tests does that, and `allow-test-edits` lets it through as it does the tampering rules' findings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from fixbot.core.observed import MAX_REACHED, MAX_STREAM_BYTES, Comparison, Observation, Reach
from fixbot.tamper.changes import is_harness, is_test_file

# pytest's exit statuses a green check may hold: OK and NO_TESTS_COLLECTED (a check may run
# pytest on a folder that has none); any other is a session that did not pass
GREEN_STATUSES = frozenset({0, 5})
TEST_EDITS = frozenset({"observer-unseen", "observer-hooks"})
MISSING = (
    "observer-missing: the start commit's check ran pytest under fixbot's observer;"
    " the verifying check streamed nothing from it"
)


def findings(
    start: Observation | None, last: Observation | None, changed: Iterable[str] = ()
) -> list[str]:
    """Why the verifying run `last` is not verified by what the observer saw, against the
    start's `start` (None: that run had no channel, as a failure log from elsewhere);
    `changed` are the repository-relative files the fix changed. [] when nothing is wrong or
    neither run streamed anything."""
    observed_start = start is not None and start.sessions > 0
    if last is None or last.sessions == 0:
        return [MISSING] if observed_start else []
    files = list(changed)
    # what an installed plugin changes in every run is no finding of the fix's
    before = set(start.machinery + moved(start)) if start is not None else set()
    changed_now = dict.fromkeys(last.machinery + moved(last))
    found = _stream(last, [name for name in changed_now if name not in before])
    found += _overflow(start, last)
    watched = set(start.failed()) if start is not None else set()
    found += _tests(last, watched, files)
    found += _known(start, last) + _tampered(last, watched)
    found += _comparisons(last, watched, files) + _reached(start, last, files)
    return found + (_new_hooks(start, last) + _new_plugins(start, last) if observed_start else [])


def moved(seen: Observation) -> list[str]:
    """The names of the machinery (and `observer: itself`) whose fingerprint at a later check
    of a process differs from the one that process streamed at load (or registration), a name
    left out at the session's end included: the comparison is made here, not by the observer,
    whose own inputs the code under test can change in place."""
    found: dict[str, None] = {}
    for process, loaded in seen.loaded.items():
        later = seen.checked.get(process, {})
        for name, was in loaded.items():
            if any(now != was for now in later.get(name, ())):
                found[name] = None
    return list(found)


def _new_hooks(start: Observation | None, last: Observation) -> list[str]:
    """The finding about hook implementations `last` saw that the start's run did not."""
    new = sorted(set(last.hooks) - set(start.hooks)) if start is not None else []
    return [f"observer-hooks: not in the start's run: {', '.join(new[:5])}"] if new else []


def _new_plugins(start: Observation | None, last: Observation) -> list[str]:
    """The finding about plugins that come from the project's own code (a work-tree file that
    is no test module or conftest) which `last` held and the start's run did not: registered
    at run time by the code under test (it found the `Config` through the frames pytest keeps
    and called its plugin manager), whatever its name or its hooks. A plugin of the tests is a
    test edit (`observer-hooks`); an installed one has no file here."""
    if start is None or not start.plugins:
        return []
    new = [
        f"{name} ({file})"
        for name, file in sorted(last.plugins.items())
        if file and name not in start.plugins and not is_harness(file)
    ]
    if not new:
        return []
    return [
        "observer-plugin: a plugin the project's code registered at run time, which the"
        " start's run did not have: " + ", ".join(new[:4])
    ]


def _reached(start: Observation | None, last: Observation, files: list[str]) -> list[str]:
    """The findings about audit events raised under the project's code (a file the fix changed
    or an installed copy of one, as tox runs; where the start's run was observed, any project
    file, or none at all: a thread's, a callback's, `file` empty) that the start's run did not
    raise from that file: the project's own habits are no finding of the fix's. A stream with
    more reaches than are kept (`MAX_REACHED`) is one where the start's was not: what was left
    out is unknown."""
    before = set(start.reached) if start is not None else set()
    habits = {(r.event, r.file) for r in before}
    observed = start is not None and start.sessions > 0
    new = [
        r for r in last.reached if (r.event, r.file) not in habits and _the_fixs(r, files, observed)
    ]
    found = []
    if new:
        what = "; ".join(_reach_words(r) for r in new[:4])
        found.append(
            f"observer-reach: {what}: the fix's code reached objects it holds no name for (the"
            " observer's among them), which the start's run did not"
        )
    if len(last.reached) >= MAX_REACHED > len(before):
        found.append(
            f"observer-reach: {len(last.reached)} reaches or more (the start's run had"
            f" {len(before)}): those past the first {MAX_REACHED} are not kept"
        )
    return found


def _the_fixs(reached: Reach, files: list[str], observed: bool) -> bool:
    """Whether a reach is the fix's to answer for: raised under a file it changed or an
    installed copy of one; where the start's run was observed (and would have shown the
    project's habit), under any other project file too, or under no project code at all. A
    file name is what a code object says: code compiled under the name of a file the fix left
    alone (its test file) is the fix's all the same."""
    if _changed_by_fix(reached.file, files) or _installed_copy(reached.by, files):
        return True
    return observed


def _reach_words(reached: Reach) -> str:
    """One reach in the finding's words: where, what, and through which file."""
    where = reached.file or "code outside the project"
    through = f" (through {reached.by})" if reached.by not in ("", reached.file) else ""
    return f"{where} raised {reached.event}{through}"


def _installed_copy(path: str, files: list[str]) -> bool:
    """Whether `path` (absolute, an installed package's file) is a copy of one of the fix's
    `files`: it ends with the file's last two or more path parts (`pkg/mod.py` of
    `src/pkg/mod.py`)."""
    if "-packages/" not in path:
        return False
    for file in files:
        parts = file.split("/")
        tails = ("/".join(parts[i:]) for i in range(len(parts) - 1))
        if any(path.endswith("/" + tail) for tail in tails):
            return True
    return False


def _overflow(start: Observation | None, last: Observation) -> list[str]:
    """The finding about a stream longer than fixbot reads, where the start's was not."""
    if not last.overflow or (start is not None and start.overflow):
        return []
    return [
        "observer-overflow: the stream was longer than fixbot reads"
        f" ({MAX_STREAM_BYTES // 2**20} MiB) where the start's was not: what the observer"
        " sent after it is unknown"
    ]


def _stream(last: Observation, machinery: list[str]) -> list[str]:
    """The findings about the stream itself and the runner's `machinery` changed."""
    found = []
    if last.ended < last.sessions:
        found.append(
            f"observer-cut-short: {last.sessions - last.ended} of {last.sessions} pytest "
            "session(s) never finished (the process ended inside the session, or the observer"
            " ended it, status 76, when the code under test replaced its channel)"
        )
    if last.forged:
        found.append(f"observer-forged: {last.forged} line(s) on the channel without the nonce")
    if machinery:
        found.append("observer-machinery: changed while the tests ran: " + ", ".join(machinery[:6]))
    failed = last.failed()
    red = [s for s in last.statuses if s not in GREEN_STATUSES]
    if failed or red:
        what = ", ".join(failed[:5]) if failed else f"session exit status {red[0]}"
        found.append(f"observer-failed: the observer saw pytest fail ({what}); the check exit 0")
    return found


def _unseen(t: str, last: Observation, files: list[str]) -> bool:
    """Failed at the start, not seen to fail nor to pass now, its test file left alone."""
    seen = last.tests.get(t) == "failed" or _passes(t, last)
    return not seen and not _in_changed_test(t, files) and not last.overflow


def _idle(t: str, last: Observation, files: list[str]) -> bool:
    """Its body was watched and never entered."""
    return last.bodies.get(t) is False


def _silent(t: str, last: Observation, files: list[str]) -> bool:
    """A test (not a module that failed to collect) the observer said it watched, seen to
    pass, with no word of its body (whose bodies xdist's workers run unobserved)."""
    if "::" not in t or t not in last.watching or t in last.bodies:
        return False
    return _passes(t, last) and not (last.distributed or last.overflow)


def _unreturned(t: str, last: Observation, files: list[str]) -> bool:
    """A call reported passed while, as the observer streamed when the call ended, no entry of
    its body returned (an exception raised out of each, its end unseen, or never entered)."""
    return any(how not in ("returned", "native", "missing") for how in last.exits.get(t, ()))


def _exitless(t: str, last: Observation, files: list[str]) -> bool:
    """A call reported passed with no record, before its report, of how the body left it,
    where the observer said it watched the test (a report sent before the body ran, or a call
    the observer's hook never wrapped): missing is not `returned`."""
    if t not in last.watching or last.distributed or last.overflow:
        return False
    return "missing" in last.exits.get(t, ())


def _uncalled(t: str, last: Observation, files: list[str]) -> bool:
    """Counted as passed (by its setup's report) with no report of its call phase."""
    passed = "::" in t and last.tests.get(t) == "passed"
    return passed and t not in last.called and not last.overflow


# Each finding about the tests that failed at the start: its words, and when a test earns it.
TEST_RULES: tuple[tuple[str, Callable[[str, Observation, list[str]], bool]], ...] = (
    ("observer-unseen: failed at the start, not seen to pass", _unseen),
    ("observer-body: passed without its body running", _idle),
    ("observer-body: passed with no record of its body", _silent),
    ("observer-no-call: counted as passed with no report of its call", _uncalled),
    (
        "observer-tampered: its call was reported passed while no entry of its body returned",
        _unreturned,
    ),
    (
        "observer-tampered: its call was reported passed with no record of how its body left it",
        _exitless,
    ),
)


def _tests(last: Observation, watched: set[str], files: list[str]) -> list[str]:
    """The findings about the tests that failed at the start (`watched`)."""
    found = []
    for words, earns in TEST_RULES:
        tests = sorted(t for t in watched if earns(t, last, files))
        if tests:
            found.append(f"{words}: " + ", ".join(tests[:5]))
    return found


def _tampered(last: Observation, watched: set[str]) -> list[str]:
    """The findings about what changed around the tests that failed at the start."""
    found = [
        f"observer-tampered: {test}: {'; '.join(what[:3])}"
        for test, what in sorted(last.tampered.items())
        if test in watched and what
    ]
    doubled = [t for t in last.doubled if t in watched]
    if doubled and not last.distributed:
        found.append(
            "observer-tampered: more records of how the body left its call than calls (lines"
            " with the nonce written by other code): " + ", ".join(doubled[:5])
        )
    return found


# the known-answer test's outcomes that are no finding: the right one, and, where the start's
# run answered none, those where it could not be asked or pytest's machinery raised on it (a
# plugin that expects state a plain test lacks); where the start's run answered, the fix's code
# can take away what the known answer is made under, so only an answer it gave too is excused
KNOWN_RIGHT = ("failed", "unavailable", "error")


def _known(start: Observation | None, last: Observation) -> list[str]:
    """The findings about the known-answer test: an answer other than `failed` that the start's
    run did not give too (an installed plugin's habit is no finding of the fix's; `unavailable`
    and `error` are none where the start's run gave no answer), or a session that ended without
    asking it."""
    before = set(start.known) if start is not None else set()
    right = KNOWN_RIGHT[:1] if before else KNOWN_RIGHT
    wrong = sorted(
        {a for a in last.known if a.split(": ", 1)[-1].split(":")[0] not in right} - before
    )
    found = []
    if wrong:
        found.append(
            "observer-known-answer: a test that must fail was reported otherwise by pytest's"
            " machinery (" + ", ".join(wrong[:4]) + ")"
        )
    asked = sum(1 for a in last.known if a.startswith("end: "))
    if asked < last.ended and not last.overflow:
        found.append(
            f"observer-known-answer: {last.ended - asked} of {last.ended} pytest session(s)"
            " ended without asking the known answer"
        )
    return found


def _comparisons(last: Observation, watched: set[str], files: list[str]) -> list[str]:
    """The always-equal comparisons the watched tests made with types of the fix's code or
    built at run time."""
    found = [_always_equal(seen, files) for seen in last.comparisons if seen.test in watched]
    return [finding for finding in found if finding]


def _always_equal(seen: Comparison, files: list[str]) -> str | None:
    """The finding about one comparison, when it holds whatever it compares (or, handed back
    by the project's code, is a tolerance: equal to values its compared type tells apart) and
    its type is the fix's (built at run time, in a file the fix changed, or outside the
    tests)."""
    built = seen.built or seen.file.startswith("<")
    what = _what_holds(seen, built)
    if what is None or not (built or _ours(seen, files)):
        return None
    return (
        f"observer-always-equal: {seen.test} compared a {seen.type} whose {seen.dunder}"
        f" ({_where(seen, built, files)}) {what}"
    )


def _what_holds(seen: Comparison, built: bool) -> str | None:
    """How a comparison holds whatever it compares, in the finding's words, or None: it holds
    for an object it cannot know (a `__bool__` built at run time counts), it is a method no
    profile function sees run as it, or, handed back by the project's code, a tolerance."""
    if seen.aliased:
        return f"is {seen.aliased}, which no profile function sees run as {seen.dunder}"
    if seen.always or (seen.dunder == "__bool__" and built):
        return "holds for an object it cannot know"
    if seen.tolerant and seen.via is not None:
        return "is equal to values its compared type tells apart (a tolerance, no single value)"
    return None


def _ours(seen: Comparison, files: list[str]) -> bool:
    """Whether the compared type is the fix's to answer for: a helper of the tests the fix left
    alone may be equal to anything (`ANY`); a type from outside the project counts when the
    project's code (not a test helper) handed it back."""
    mine = seen.via if seen.via is not None else seen.file
    if not is_harness(mine) or _changed_by_fix(mine, files):
        return True
    return _changed_by_fix(seen.file, files)


def _where(seen: Comparison, built: bool, files: list[str]) -> str:
    """Where a comparison's dunder is: built at run time, or its file and line; whether the fix
    changed it; which code handed the value back."""
    where = "built at run time" if built else f"{seen.file}:{seen.line}" if seen.line else seen.file
    if _changed_by_fix(seen.file, files):
        where += ", changed by the fix"
    if seen.via is not None:
        where += f", handed back by {seen.via}"
    return where


def _changed_by_fix(file: str, files: list[str]) -> bool:
    """Whether `file` (as the observer names it, maybe a suffix) is one of the fix's `files`."""
    return any(f == file or f.endswith("/" + file) for f in files)


def _passes(test: str, last: Observation) -> bool:
    """Whether `test` passed in `last`; a collector that failed to collect at the start (a
    module's id, no `::`) passes when its tests were now seen and none failed."""
    if last.tests.get(test) == "passed":
        return True
    if "::" in test:
        return False
    under = [o for t, o in last.tests.items() if t.startswith(test + "::")]
    return bool(under) and "failed" not in under


def _in_changed_test(test: str, files: list[str]) -> bool:
    """Whether node id `test` belongs to a test file the fix changed (renamed ids are its)."""
    path = test.split("::", 1)[0]
    return any(is_test_file(f) and (f == path or f.endswith("/" + path)) for f in files)
