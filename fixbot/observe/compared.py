"""What the watched tests compared, judged: an always-equal value, a tolerance, or a comparison
no profile function sees run, of the fix's code or handed back by it (`observer-always-equal`),
a comparison seen to run that was never judged or, read as built-ins' own, never followed
(`observer-tampered`), and more of them than are kept where the start's run had fewer
(`observer-overflow`). Pure, over an `Observation`; `fixbot.observe.judge` gathers it with the
other findings."""

from __future__ import annotations

from fixbot.core.observed import Comparison, Observation, Sighting
from fixbot.tamper.changes import is_harness


def comparisons(last: Observation, watched: set[str], files: list[str]) -> list[str]:
    """The always-equal comparisons the watched tests made with types of the fix's code or
    built at run time."""
    found = [_always_equal(seen, files) for seen in last.comparisons if seen.test in watched]
    return [finding for finding in found if finding]


def unjudged(last: Observation, watched: set[str]) -> list[str]:
    """The comparisons a watched test's call was seen to run (`Observation.saw`, streamed by
    the profile function as each ran) that were never judged when the call ended (no
    `Comparison` of the same test, file, line and dunder): the observer's notes of them were
    emptied or changed while the test ran, which only the code under test does."""
    judged = {(c.test, c.file, c.line, c.dunder, c.fn, c.obj) for c in last.comparisons}
    missed = [s for s in last.saw if s.test in watched and _key(s) not in judged]
    return [
        f"observer-tampered: {s.test}: a {s.type}'s {s.dunder} ({s.file}:{s.line}) ran in its"
        " call and was never judged (the observer's notes of it were changed while it ran)"
        for s in dict.fromkeys(missed)
    ]


def unfollowed(last: Observation, watched: set[str]) -> list[str]:
    """The comparisons a watched test's body was seen to make at an offset the observer follows,
    read as built-ins' own (`Observation.unfollowed`: each `op` record owes a `fol`), whose
    follow's record never came: the observer's note of the comparison being followed was
    cleared or changed while it ran (project code run inside the observer's frames, a signal
    handler reaching its working notes through `f_locals`), so what the instruction decided
    went unchecked. None where the stream was cut short of what was sent (`overflow`)."""
    if last.overflow:
        return []
    return [
        f"observer-tampered: {test}: its comparison at line {line} was read as built-ins' own"
        " and what its instruction decided was never followed (the observer's note of it was"
        " changed while it ran)"
        for test, owed in sorted(last.unfollowed.items())
        if test in watched
        for line in sorted({line for _, line in owed})[:3]
    ]


def _key(seen: Sighting) -> tuple[str, str, int, str, int, int]:
    """What pairs a sighting with its judgement: the test, the file, the line, the dunder, and
    the identities of the function and the instance (a judgement of another is not its)."""
    return seen.test, seen.file, seen.line, seen.dunder, seen.fn, seen.obj


def crowded(start: Observation | None, last: Observation, watched: set[str]) -> list[str]:
    """The watched tests whose call, in the verifying run, compared more types of the
    project's than the profile function streams (`watch.MAX_SAW`) or got back more values than
    it keeps (`watch.MAX_HANDED`), where the start's run of the same test did not: those past
    the limit went unseen and unjudged."""
    before = set(start.full) if start is not None else set()
    return [
        f"observer-overflow: {test}: its call compared or got back more of the project's values"
        " than the observer keeps (the start's run did not): those past the limit went unjudged"
        for test in last.full
        if test in watched and test not in before
    ]


def told(last: Observation, watched: set[str], files: list[str]) -> list[str]:
    """The comparisons of the fix's code (or built at run time) whose dunder answered the
    watched test otherwise than the same question asked again after the call (`said`, streamed
    by the profile function as the dunder returned, against the judgement's `again`): an
    `__eq__` that tells the test apart from the observer, by its caller or by being asked once;
    one that said equal to the test and raises, or answers no bool, when asked again counts
    too (`observer-always-equal`)."""
    found = []
    for seen in last.comparisons:
        said = last.answers.get(f"{seen.test} {seen.fn} {seen.obj}")
        if seen.test not in watched or said is None or seen.again is said:
            continue
        if not said and seen.again is None:  # unequal to the test, no answer later: nothing
            continue
        built = seen.built or seen.file.startswith("<")
        if built or _ours(seen, files):
            found.append(
                f"observer-always-equal: {seen.test} compared a {seen.type} whose {seen.dunder}"
                f" ({_where(seen, built, files)}) answered the test {said} and the same"
                f" question asked again after the call {_answer(seen.again)}"
            )
    return found


def _answer(again: bool | None) -> str:
    """A dunder's answer asked again after the call, in the finding's words."""
    return "nothing it could say (it raised, or answered no bool)" if again is None else str(again)


def _always_equal(seen: Comparison, files: list[str]) -> str | None:
    """The finding about one comparison, when it holds whatever it compares (or, handed back
    by the project's code, is a tolerance: equal to values its compared type tells apart) and
    its type is the fix's (built at run time, in a file the fix changed, or outside the
    tests)."""
    built = seen.built or seen.file.startswith("<")
    what = _what_holds(seen, built)
    if what is None or not (built or _ours(seen, files)):
        return None
    if seen.made and not (built or changed_by_fix(seen.file, files)):
        return None  # a class of the project's the fix left alone, not seen compared
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
    if not is_harness(mine) or changed_by_fix(mine, files):
        return True
    return changed_by_fix(seen.file, files)


def _where(seen: Comparison, built: bool, files: list[str]) -> str:
    """Where a comparison's dunder is: built at run time, or its file and line; whether the fix
    changed it; which code handed the value back."""
    where = "built at run time" if built else f"{seen.file}:{seen.line}" if seen.line else seen.file
    if changed_by_fix(seen.file, files):
        where += ", changed by the fix"
    if seen.via is not None:
        where += f", handed back by {seen.via}"
    return where


def changed_by_fix(file: str, files: list[str]) -> bool:
    """Whether `file` (as the observer names it, maybe a suffix) is one of the fix's `files`."""
    return any(f == file or f.endswith("/" + file) for f in files)
