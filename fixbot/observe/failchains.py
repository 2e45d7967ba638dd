"""What a failing unittest test's failure went through, as fixbot's observer inside unittest
streamed it (`failer` records: `unittest_failers._chain`), and the files that makes the tests'.

The rule (`supports`): in the start commit's run, a failing test's failure called unittest's
failing machinery (`TestCase.fail`, an assert method) from a chain of frames, or a frame raised
the test's `failureException` itself, by a `raise` no `assert` statement made (round 42's
[failure raised]: `raise self.failureException(msg)`, any spelling; the chain then starts at
that frame, `unittest_failers._raised`). Read from the
failure back towards the test, the frames before the first one of a test file (the test's own
class's file, or any file the ecosystems call a test) are the helper that failed the test; each
of them whose file made a class of the test's MRO below `TestCase` (`Observation.classes`: a
mixin the test class is made of) is the tests' support, whatever its text says (round 42's
[fail by getattr]: checker.py's `Checker.same` failing through `getattr(self, "fa" + "il")`,
named by no assert method). The code the test calls is left alone: a method of an app mixin
that returned before the test asserted is not in the traceback, and one that called back into
the test's own code (a hook the test class overrides, which asserts) stops the walk at that
callback; a file the chain passes through that made no class of the test's is not named,
unless the chain called unittest's failing machinery (`TestCase.fail`, an assert method:
the record's `"c"`, kept as the chain's first entry `CALLED`): then every file of the work tree
before the first test file is the tests' support, mixin or not (round 44's [failed through an
app-side helper]: verify.py's `same(case, first, second)` calling `case.assertEqual` for the
test file's `check`), as code that calls unittest's failure on a test's behalf is test support
by what it did; a chain the failure was raised in (`raise ...failureException(...)`,
`unittest_failers._raised`) keeps the mixin rule, as an app's own `raise AssertionError(...)`
on its bug path is common honest code. Over-read on purpose: a project's own testing helper
(its product an assert helper that calls `TestCase` methods) is pinned, so an honest fix of it
ends escalated (its start's version judges the fix: a false alarm on the safe side).
What the rule over-reads, on purpose: an app mixin (the code under test, mixed into a
`TestCase`) whose method calls `TestCase.fail` or an assert method, or raises
`AssertionError(...)` explicitly, on its bug path is pinned as the tests' (it failed the test
as a helper does; an honest fix of it ends escalated, a false alarm on the safe side); its
`assert` statement is not read so, as such a mixin's own checks are the common honest case.
Pure functions over an `Observation`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath

from fixbot.core.observed import Observation

MAX_CHAINS = 8  # distinct chains of one test kept at most (a subtest's failures each stream one)
MAX_FILES = 32  # files of one chain kept at most (the observer's `MAX_FRAMES`)
UNKNOWN = "?"  # a class's file the observer could not tell
# a chain's first entry where it called unittest's failing machinery (the record's "c"): no file
# (a work-tree file's name is relative, a file outside it absolute)
CALLED = "<unittest>"


def failer(seen: Observation, record: dict[str, object], test: str, scratch: object) -> None:
    """Add a `failer` record's chain (`"f"`: files, innermost first) to `seen.failers[test]`,
    each file cut at 400 characters; a chain already kept, or past `MAX_CHAINS`, is not."""
    files = record.get("f")
    if not isinstance(files, list):
        return
    chain = [str(file)[:400] for file in files[:MAX_FILES]]
    if chain and record.get("c") == 1:
        chain.insert(0, CALLED)
    kept = seen.failers.setdefault(test, [])
    if chain and chain not in kept and len(kept) < MAX_CHAINS:
        kept.append(chain)


def supports(seen: Observation, is_test: Callable[[str], bool]) -> frozenset[str]:
    """The files (relative to the work tree's root) that failed a test `seen` did not see pass
    by the rule of the module docstring: for each failing test's chain, the files before the
    first test file (its own class's, or one `is_test` names: the ecosystems' test files,
    `fixbot.tamper.changes.is_test_file`) that made a class of its MRO below `TestCase` other
    than its own, or any file of the work tree there where the chain called unittest's failing
    machinery (`CALLED`)."""
    found: set[str] = set()
    for test, chains in seen.failers.items():
        made = seen.classes.get(test, [])
        if seen.tests.get(test) == "passed" or not made:
            continue
        mixins = set(made[1:]) - {made[0], UNKNOWN}
        for chain in chains:
            found |= _helpers(chain, made[0], mixins, is_test)
    return frozenset(found)


def _helpers(
    chain: list[str], own: str, mixins: set[str], is_test: Callable[[str], bool]
) -> set[str]:
    """The files of `chain` (innermost first) before the first of `own` or a test file
    (`is_test`) that name a file of the work tree (relative, not above it) and are among
    `mixins`, or any such where the chain called unittest's failing machinery (`CALLED`)."""
    found = set()
    called = chain[:1] == [CALLED]
    for file in chain[1:] if called else chain:
        if file == own or is_test(file):
            break
        path = PurePosixPath(file)
        if (called or file in mixins) and not path.is_absolute() and ".." not in path.parts:
            found.add(file)
    return found
