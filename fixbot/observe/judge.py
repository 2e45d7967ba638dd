"""What the observer's stream says about a green check: pure, over two `Observation`s.

`findings(start, last, changed)` compares the verifying run's stream (`last`) with the start
commit's (`start`, the first failing run's) and names each thing that makes the green
unverified, as `rule: evidence` lines (the rule first, as `fixbot.tamper.record.Cheat` reads):

    observer-missing     the start's check streamed from pytest (or from jest or vitest, through
                         fixbot's reporter, `fixbot.observe.reporter`, or from unittest, through
                         `unittest_observer.py`, or from go's test binaries, through
                         `go/observer.go`), the verifying one did not (pytest never ran
                         under the observer, was told not to load it, or its channel was
                         closed; a unittest run ended before its run began); or the start's
                         jest run streamed from fixbot's test environment and fixbot named
                         none for the verifying one (`Observation.environment`: the fix made
                         it unsure, several projects, another runner, `--showConfig` failing),
                         or a test file jest's reporter saw run (`Observation.jested`) had no
                         record of that environment where the start's run had one; or the
                         start's `jest --showConfig` started a thread without fixbot's
                         preload (`Observation.unthreaded`), or what it handed over was cut at
                         a bound (`Observation.cut`): the files its configuration read, the
                         check's, are unknown
    observer-cut-short   a session began and never sent its end: the process ended inside it,
                         or the observer ended it (`sender.FAIL_CLOSED`) when its channel's
                         descriptor no longer named the channel
    observer-forged      lines on the channel without the run's nonce
    observer-overflow    the stream was longer than fixbot reads (64 MiB) where the start's was
                         not: what the observer sent after that is unknown; or a watched call
                         compared or got back more of the project's values than the observer
                         keeps where the start's did not
    observer-machinery   the runner's machinery (pytest's runtest protocol, report construction,
                         pluggy's hook calls, `builtins.__build_class__`; unittest's `TestCase.run`,
                         what it calls, `TestCase`'s own functions (its assert methods) and
                         `TestResult`'s methods, the unittest modules' global names, at
                         each test's end; at the session's end
                         `os._exit`, `sys.exit`, `atexit.register`) is no longer the objects the
                         observer captured before any project code ran, where the start's run saw no
                         such change: as the observer said, or as fixbot finds comparing the
                         fingerprints streamed at load (and the observer's own hash at registration)
                         with those of each later check (`moved`), a name left out counting
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
                         with the nonce written by other code), or a comparison the profile
                         function streamed as it ran was never judged as the call ended, or
                         one its trace function streamed as read as built-ins' own, at a
                         comparison it follows, was never followed (no `fol` record); or
                         its body's code is not the start's run's (a digest of it streamed as
                         each call began) where the fix left its test file alone; or a trace
                         function was set around its call where the start's run's same test
                         had none (a coverage tool traces both)
    observer-known-answer the known-answer test (one that must fail, run through pytest's own
                         call and report machinery) was reported otherwise, or a session ended
                         without asking it, where the start's run did not say the same
    observer-always-equal a test that failed at the start passed by comparing with a type whose
                         `__eq__` (`__ne__`) holds for an object it cannot know, defined in the
                         code (not a test helper the fix left alone) or built at run time, or
                         handed back to the test's body by the code wherever it is defined
                         (or by a library's method called on an instance a project module
                         holds), or handed back so and equal to values its compared type
                         tells apart (a tolerance), or whose dunder answered the test otherwise
                         than the same question asked again after the call
    observer-new-operand a test whose body failed at a comparison at the start passed with a
                         value of a type there that the start's run did not compare at that
                         line and whose comparison is no built-in type's own (`turned`), or
                         with no comparison seen at that line (not reached, or the observer's
                         trace function removed)
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
    observer-retried     a test that failed at the start passed only on a later try (jest's
                         `jest.retryTimes`, vitest's `retry`) than the start's run made of it:
                         the code under test can turn retries on (every module jest loads gets
                         `jest`; vitest's worker configuration is reachable) and fail a first
                         try it then passes; a test whose own file retries it retried at the
                         start as often
    observer-report      (not here: `fixbot.observe.reporter.disagreements`) jest's or
                         vitest's JSON report names a test the stream of fixbot's reporter
                         does not, or with another outcome; or a test reported passed whose
                         function's last run failed as jest-circus dispatched it to fixbot's
                         jest test environment, or, in a file that environment was built
                         for, whose function it was dispatched no verdict on; unittest's
                         `Ran N tests` in the log counts other than its observer saw run

The verdict depends on these, not on the tampering rules' reading of the diff. Two of them
say which tests or plugins ran rather than that the runner lied (`TEST_EDITS`): a change to the
tests does that, and `allow-test-edits` lets it through as it does the tampering rules' findings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from fixbot.core.observed import MAX_STREAM_BYTES, Observation
from fixbot.observe import alike, compared, reached, turned
from fixbot.tamper.changes import is_harness

# pytest's exit statuses a green check may hold: OK and NO_TESTS_COLLECTED (a check may run
# pytest on a folder that has none); any other is a session that did not pass
GREEN_STATUSES = frozenset({0, 5})
TEST_EDITS = frozenset({"observer-unseen", "observer-hooks"})
MISSING = (
    "observer-missing: the start commit's check ran its tests under fixbot's observer (its"
    " pytest plugin, its observer inside unittest or inside go's test binaries, or its reporter"
    " in jest or vitest); the verifying check streamed nothing from it"
)


def findings(
    start: Observation | None, last: Observation | None, changed: Iterable[str] = ()
) -> list[str]:
    """Why the verifying run `last` is not verified by what the observer saw, against the
    start's `start` (None: that run had no channel, as a failure log from elsewhere);
    `changed` are the repository-relative files the fix changed. [] when nothing is wrong or
    neither run streamed anything."""
    observed_start = start is not None and start.sessions > 0
    unsure = _unthreaded(start)
    if last is None or last.sessions == 0:
        return ([MISSING] if observed_start else []) + unsure
    files = list(changed)
    # what an installed plugin changes in every run is no finding of the fix's
    before = set(start.machinery + moved(start)) if start is not None else set()
    changed_now = dict.fromkeys(last.machinery + moved(last))
    found = _stream(last, [name for name in changed_now if name not in before])
    found += _overflow(start, last)
    watched = set(start.failed()) if start is not None else set()
    found += _tests(last, watched, files)
    found += alike.known(start, last) + _tampered(last, watched)
    found += alike.swapped(start, last, watched, files) + alike.traced(start, last, watched)
    found += alike.retried(start, last, watched) + _unenvironed(start, last) + unsure
    found += _unenvironed_files(start, last)
    found += alike.rebased(start, last, watched, files)
    found += compared.comparisons(last, watched, files) + compared.unjudged(last, watched)
    found += compared.unfollowed(last, watched)
    found += compared.crowded(start, last, watched) + compared.told(last, watched, files)
    found += reached.reached(start, last, files) + turned.new_operands(start, last, watched, files)
    return found + (_new_hooks(start, last) + _new_plugins(start, last) if observed_start else [])


def _unenvironed(start: Observation | None, last: Observation) -> list[str]:
    """`observer-missing` where the start's jest run streamed from fixbot's test environment
    (`environed`) and fixbot named none for `last` (`environment`, why): the fix would
    otherwise reopen jest-circus's state (round 21) by making the environment unsure."""
    if start is None or not start.environed or not last.environment:
        return []
    return [
        "observer-missing: the start's jest run streamed from fixbot's test environment; the"
        f" verifying run had none ({last.environment})"
    ]


def _unenvironed_files(start: Observation | None, last: Observation) -> list[str]:
    """`observer-missing` where jest's reporter saw the verifying run `last` start a test file
    (`jested`, streamed by the main process, signed with the nonce) that fixbot's test
    environment streamed no file record for (`environed`) and the start's run did: the
    environment's records of that file were kept from the channel (round 36: the code under
    test, in a jest worker, wraps the worker's `process.send` to drop every line naming the
    file, its file record too, so that no test of it counts as having no verdict). Nothing
    where the start's run had no environment's record of the file (another
    `@jest-environment`, no environment named: unsure) or fixbot named none for `last`
    (`_unenvironed` says so)."""
    if start is None or last.environment:
        return []
    had, has = set(start.environed), set(last.environed)
    unseen = sorted(f for f in last.jested if f in had and f not in has)
    if not unseen:
        return []
    return [
        "observer-missing: jest ran the test file and fixbot's test environment, built for it at"
        " the start, streamed no record of it in the verifying run: " + ", ".join(unseen[:5])
    ]


def _unthreaded(start: Observation | None) -> list[str]:
    """`observer-missing` where the start's `jest --showConfig` started a thread without
    fixbot's preload (`Observation.unthreaded`, `fixbot/observe/node/loaded.cjs`): what it read
    is not among the check's files (`Observation.configured`), so no fix of that start is
    verified by them (round 33: a Worker of node's own constructor given `env: {}` read the
    configuration's base, which the fix then rewrote), or what it handed over was cut at a
    bound (`Observation.cut`, `fixbot.run.jestloaded.CUT`: round 34, a configuration reading 250
    packages' package.json before its base, which the cap dropped)."""
    if start is None:
        return []
    unknown = ": the files jest's configuration read are unknown"
    thread = "started a thread without fixbot's preload" if start.unthreaded else ""
    cut = "was observed past fixbot's bounds (the files handed over cut)" if start.cut else ""
    return [
        f"observer-missing: the start's jest --showConfig {why}{unknown}"
        for why in (thread, cut)
        if why
    ]


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
            f"observer-cut-short: {last.sessions - last.ended} of {last.sessions} observed "
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
        runner = "/".join(last.runners) or "pytest"
        found.append(f"observer-failed: the observer saw {runner} fail ({what}); the check exit 0")
    return found


def _unseen(t: str, last: Observation, files: list[str]) -> bool:
    """Failed at the start, not seen to fail nor to pass now, its test file left alone."""
    seen = last.tests.get(t) == "failed" or _passes(t, last)
    return not seen and not alike.in_changed_test(t, files) and not last.overflow


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


def _passes(test: str, last: Observation) -> bool:
    """Whether `test` passed in `last`; a collector that failed to collect at the start (a
    module's id, no `::`) passes when its tests were now seen and none failed."""
    if last.tests.get(test) == "passed":
        return True
    if "::" in test:
        return False
    under = [o for t, o in last.tests.items() if t.startswith(test + "::")]
    return bool(under) and "failed" not in under
