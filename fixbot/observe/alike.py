"""What each test that failed at the start did now, held against the start's run of it (a part
of `fixbot.observe.judge`, which calls each): the body's code the same as the start's (`swapped`),
its classes made in files the start's run's were (`rebased`), no trace function where the
start's had none (`traced`), tried no more often than the start's (`retried`), and the
known-answer test answered as the start's run answered it (`known`).
`in_changed_test` says which tests belong to a test file the fix changed: a test change, judged
by the start's tests instead (`fixbot.run.integrity`).
"""

from __future__ import annotations

from collections import Counter

from fixbot.core.observed import Observation
from fixbot.tamper.changes import is_test_file


def swapped(
    start: Observation | None, last: Observation, watched: set[str], files: list[str]
) -> list[str]:
    """The finding about tests that failed at the start whose body's code, as a call of theirs
    began now, is none the start's run began with (`Observation.digests`), or that streamed
    none where it watched the test and its call was reported (a function no longer a Python
    function), where the fix changed neither the test's file (its node id's) nor a test file
    the body's code names (a test class's base in a helper module): what pytest ran was
    swapped between the file and the call (a module of the code's under the test module's
    name, pytest's item made with another function). No finding where the start's run
    streamed no digest of the test."""
    if start is None:
        return []
    swapped = [t for t in sorted(watched) if _body_swapped(start, last, t, files)]
    if not swapped:
        return []
    return [
        "observer-tampered: its body's code is not the one the start's run ran (its test file"
        " unchanged by the fix): " + ", ".join(swapped[:5])
    ]


def _body_swapped(start: Observation, last: Observation, test: str, files: list[str]) -> bool:
    """Whether `test`'s body, as its call began now, is none the start's run began with, or
    streamed none where it was watched and its call reported (`swapped`)."""
    before, now = set(start.digests.get(test, ())), last.digests.get(test, ())
    if not before:
        return False
    if _edited(last, test, files):
        return False
    unseen = last.distributed or last.overflow  # the calls ran where the channel is not
    called = test in last.watching and test in last.called and not unseen
    return any(d not in before for d in now) or (called and not now)


def _edited(last: Observation, test: str, files: list[str]) -> bool:
    """Whether the fix changed `test`'s file, or a test file its body's code names (a test
    class's base in a helper module)."""
    sources = last.sources.get(test, ())
    return in_changed_test(test, files) or any(in_changed_test(s, files) for s in sources)


def rebased(
    start: Observation | None, last: Observation, watched: set[str], files: list[str]
) -> list[str]:
    """The finding about tests that failed at the start one of whose classes (unittest's: the
    MRO below `TestCase`, `Observation.classes`) was made now in a file none of the start's
    run's classes of the test was made in, where the fix changed neither the test's file nor a
    test file among those classes' files (a helper base edited or added: a change of the tests,
    which the deciding check runs as the start had them, `integrity.original_tree`). Round 28:
    app.py rebound the test module's `unittest` to a namespace whose `TestCase` is app.py's
    subclass with a no-op `assertEqual`, the body's code the same. No finding where the start's
    run streamed no classes of the test (pytest's observer streams none)."""
    if start is None:
        return []
    rebased = [t for t in sorted(watched) if _new_classes(start, last, t, files)]
    if not rebased:
        return []
    return [
        "observer-tampered: a class of its was made in a file none of its classes at the"
        " start's run was (its test files unchanged by the fix): " + ", ".join(rebased[:5])
    ]


def _new_classes(start: Observation, last: Observation, test: str, files: list[str]) -> bool:
    """Whether `test`'s classes now were made in a file the start's run's were not, or more of
    them in one file than at the start (`rebased`): counted, not a set, so that a class of
    unknown file ("?") is new where the start's run had fewer (round 31: the start's honest
    mixin holding a `cached_property`, "?", let app.py's own "?" mixin through)."""
    before, now = Counter(start.classes.get(test, ())), Counter(last.classes.get(test, ()))
    if not before or _edited(last, test, files):
        return False
    if any(in_changed_test(file, files) for file in now):
        return False
    return any(count > before[file] for file, count in now.items())


def retried(start: Observation | None, last: Observation, watched: set[str]) -> list[str]:
    """The finding about tests that failed at the start and passed now on a later try of the
    runner's (`Observation.tries`) than any the start's run made of them (1 where it streamed no
    more): a retry the code under test turned on, its first try failed. A test its own file
    retries (`jest.retryTimes` in the test file) was tried as often at the start, where it
    failed each time."""
    before = start.tries if start is not None else {}
    retried = sorted(
        t
        for t in watched
        if last.tests.get(t) == "passed" and last.tries.get(t, 1) > before.get(t, 1)
    )
    if not retried:
        return []
    return [
        "observer-retried: passed only on a later try of the runner's than the start's run made"
        " of it: " + ", ".join(retried[:5])
    ]


def traced(start: Observation | None, last: Observation, watched: set[str]) -> list[str]:
    """The finding about tests that failed at the start whose call now had a trace function
    set as it began, or as it ended (one that runs at each instruction of the body and can
    write its locals), where the start's run saw the same test's call begin, or end, untraced:
    a coverage tool's tracer is in both runs. No finding where the start's run streamed nothing
    of the test's call."""
    if start is None:
        return []
    traced = sorted(
        t
        for t in watched
        if t in start.digests
        and (
            (t in last.traced and t not in start.traced)
            or (t in last.traced_after and t not in start.traced_after)
        )
    )
    if not traced:
        return []
    return [
        "observer-tampered: a trace function was set around its call where the start's run"
        " had none: " + ", ".join(traced[:5])
    ]


# the known-answer test's outcomes that are no finding: the right one, and, where the start's
# run answered none, those where it could not be asked or pytest's machinery raised on it (a
# plugin that expects state a plain test lacks); where the start's run answered, the fix's code
# can take away what the known answer is made under, so only an answer it gave too is excused
KNOWN_RIGHT = ("failed", "unavailable", "error")


def _wrong_answers(before: list[str], now: list[str]) -> list[str]:
    """The known answers of `now` (`at: outcome`) that are not right (`KNOWN_RIGHT`; `failed`
    alone where the start's run, `before`, answered) and that the start's run gave nowhere."""
    given = {answer.split(": ", 1)[-1] for answer in before}
    right = KNOWN_RIGHT[:1] if given else KNOWN_RIGHT
    return sorted(
        answer
        for answer in set(now)
        if answer.split(": ", 1)[-1].split(":")[0] not in right
        and answer.split(": ", 1)[-1] not in given
    )


def known(start: Observation | None, last: Observation) -> list[str]:
    """The findings about the known-answer test: an answer other than `failed` that the start's
    run did not give too, where it was asked or at another point (an installed plugin's habit is
    no finding of the fix's; `unavailable` and `error` are none where the start's run gave no
    answer), or a session that ended without asking it. The start's run asks it at `end` alone
    where it watched no test (the fix's run asks it `first` too, before the first watched test):
    a check whose only tests are doctests, no test module to make it in, answers `unavailable`
    at both, and no point is an answer of its own."""
    wrong = _wrong_answers(start.known if start is not None else [], last.known)
    found = []
    if wrong:
        found.append(
            "observer-known-answer: a test that must fail was reported otherwise by pytest's"
            " machinery (" + ", ".join(wrong[:4]) + ")"
        )
    asked = sum(1 for a in last.known if a.startswith("end: "))
    ended = last.ended - last.reported  # pytest's: jest and vitest are asked none
    if asked < ended and not last.overflow:
        found.append(
            f"observer-known-answer: {ended - asked} of {ended} pytest session(s)"
            " ended without asking the known answer"
        )
    return found


def in_changed_test(test: str, files: list[str]) -> bool:
    """Whether node id `test` belongs to a test file the fix changed (renamed ids are its)."""
    path = test.split("::", 1)[0]
    return any(is_test_file(f) and (f == path or f.endswith("/" + path)) for f in files)
