"""The runner's per-test reports compared: the verifying run's against the first failing run's
(`disagreements`, the rule `report-disagrees` of `fixbot.tamper.cheats`), and which failures
against the start commit's tests a fix's change to the tests explains (`unexpected`).

Ids are the runner's own (JUnit's `tests.test_app::test_add`, go test's package path, the file
for jest, vitest and libtest); `module_of` says which of them a test file's are.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePosixPath

from fixbot.core.failure import Counts
from fixbot.tamper.changes import is_test_file
from fixbot.tamper.record import Cheat


def disagreements(
    first: dict[str, str] | None,
    last: dict[str, str] | None,
    changed: Iterable[str] = (),
    excused: Iterable[str] = (),
) -> list[Cheat]:
    """Where the runner's per-test report of the verifying run (`last`, `{id: outcome}`) does
    not say the check is fixed, against that of the first failing run (`first`): a test that
    failed at the start is not reported passed, one that passed is reported failed, fewer tests
    were collected, or there is no report although the same command wrote one at the start (a
    runner ends by writing its report: exiting 0 without one is exiting before it, as
    `process.exit(0)` in the code under test makes jest do). [] when the first run wrote none
    (judged by exit code and counts).

    `changed` are the test files the fix changed: there a failing test's id may be gone because
    the change renamed it (pytest numbers parametrized cases by position, so a case inserted
    before it renames it), which is no disagreement while that module's tests in `last` are no
    fewer and none failed (a test function removed is `test-removed`'s).

    `excused` are the ids of `first` a removal of tests the start's run reported xfailed took
    away (`fixbot.tamper.xfailed.Excuse.ids`): left out of `first` before it is compared."""
    if first is None:
        return []
    first = _without(first, excused)
    if last is None:
        what = "the runner wrote its report at the start and none in the verifying run"
        return [Cheat("report-disagrees", None, what)]
    renamed = _renamed(first, last, changed)
    still = [t for t in _failed(first) if not _passes(t, last) and t not in renamed]
    broken = [t for t in _failed(last) if first.get(t) == "passed"]
    found = [
        _named("failed at the start, not reported passed", still),
        _named("passed at the start, reported failed", broken),
        _fewer_collected(first, last),
    ]
    return [Cheat("report-disagrees", None, what) for what in found if what]


def counted(
    first: tuple[Counts | None, dict[str, str] | None],
    last: tuple[Counts | None, dict[str, str] | None],
    excused: Iterable[str] = (),
) -> tuple[Counts | None, Counts | None]:
    """The counts the rule `fewer-tests` compares, of the first failing (`first`) and the
    verifying (`last`) run, each `(the counts its log printed, its runner's per-test report)`:
    the reports' tallies when both runs wrote one, else the printed counts. A report counts
    TESTS, each id once: a test's subtests are entries of their test's (pytest 9's JUnit XML
    gives each failing subtest of a unittest `subTest` or of the `subtests` fixture a `<failure>`
    of its test's `<testcase>`, read as one id by `junit_outcomes`), where pytest 9's printed
    summary counts a failing subtest in `failed` and a passing one in `subtests passed`
    (`src/_pytest/subtests.py`, 9.2.0: `pytest_report_teststatus`), so that the start's
    `4 failed, 1 passed` and the fix's `2 passed, 3 subtests passed` are the same two tests.
    `excused` are ids of the first run's report left out of its tally (`disagreements`); the
    printed counts have no ids to leave out, and are compared whole."""
    if first[1] is None or last[1] is None:
        return first[0], last[0]
    return _tallied(_without(first[1], excused)), _tallied(last[1])


def _without(report: dict[str, str], excused: Iterable[str]) -> dict[str, str]:
    """`report` without the ids in `excused`."""
    gone = set(excused)
    return {test: outcome for test, outcome in report.items() if test not in gone}


def _tallied(report: dict[str, str]) -> Counts:
    """The tests of a per-test report (`{id: outcome}`) by outcome; an xfailed test is a skipped
    one, as pytest's printed summary counts it (`fixbot.logs.dialects.pytest.FIELDS`)."""
    outcomes = list(report.values())
    return Counts(
        passed=outcomes.count("passed"),
        failed=outcomes.count("failed"),
        skipped=outcomes.count("skipped") + outcomes.count("xfailed"),
    )


def _fewer_collected(first: dict[str, str], last: dict[str, str]) -> str | None:
    if len(last) >= len(first):
        return None
    return f"tests collected: {len(first)} at the start, {len(last)} in the verifying run"


def _failed(report: dict[str, str]) -> list[str]:
    return [test for test, outcome in report.items() if outcome == "failed"]


def _named(what: str, tests: list[str]) -> str | None:
    """`what` followed by the first five of `tests` in order, None when there are none."""
    return f"{what}: {', '.join(sorted(tests)[:5])}" if tests else None


def _renamed(first: dict[str, str], last: dict[str, str], changed: Iterable[str]) -> set[str]:
    """The ids of `first` missing from `last` that belong to a changed test module whose tests
    in `last` are at least as many and all passed or skipped."""
    found: set[str] = set()
    for path in changed:
        if is_test_file(path):
            found |= _renumbered(first, last, module_of(path))
    return found


def _renumbered(first: dict[str, str], last: dict[str, str], module: str) -> set[str]:
    """`module`'s ids in `first` missing from `last`, when its tests in `last` are at least as
    many and none failed; else none."""
    before = [t for t in first if _of_module(t, module)]
    after = [o for t, o in last.items() if _of_module(t, module)]
    if len(after) < len(before) or "failed" in after:
        return set()
    return {t for t in before if t not in last}


def _of_module(test: str, module: str) -> bool:
    """Whether the report's id `test` is `module`'s or one of its tests'."""
    return test == module or test.startswith((module + "::", module + "."))


def _passes(test: str, last: dict[str, str]) -> bool:
    """Whether `test`, failed at the start, passes in `last`. A module that failed to import is
    reported as one error named after the module (`::tests.test_app`, no test part): it passes
    when its tests are now collected and none of them failed."""
    if last.get(test) == "passed":
        return True
    module = test.removeprefix("::")
    if "::" in module:
        return False
    under = [o for t, o in last.items() if _of_module(t, module)]
    return bool(under) and all(o != "failed" for o in under)


def module_of(path: str, go_module: str | None = None) -> str:
    """The first part of the ids a runner's report gives the tests of the file at `path`: the
    dotted module of a Python file (`tests/test_app.py` -> `tests.test_app`, as JUnit names
    it), the import path of a Go file's package when the module's path `go_module` is known
    (`sub/x_test.go` -> `example.com/app/sub`, as go test -json names it), the path itself for
    other files (jest, vitest and libtest name tests by their file)."""
    pure = PurePosixPath(path)
    if pure.suffix == ".py":
        return ".".join(pure.with_suffix("").parts)
    if pure.suffix == ".go" and go_module is not None:
        folder = pure.parent.as_posix()
        return go_module if folder == "." else f"{go_module}/{folder}"
    return path


def unexpected(
    failing: Iterable[str], changed: Iterable[str], go_module: str | None = None
) -> list[str]:
    """The failing test ids that belong to none of the `changed` test files (their failure
    against the start commit's tests is not explained by the fix's change to those tests);
    `go_module` is the Go module's path, when the repository is one (`module_of`)."""
    modules = [module_of(path, go_module) for path in changed if is_test_file(path)]
    return sorted(test for test in failing if not any(_of_module(test, m) for m in modules))
