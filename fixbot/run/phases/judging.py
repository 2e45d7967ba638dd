"""A green fix judged before it is committed, and committed: the suspected cheats of the final
diff, the counts and the runner's per-test report (`publishable`), the check once more against
the start commit's tests (`original_tests`) and, for go, as written (`as_written`), the files
the rules judge as the tests' (`check_files`, `helpers`). Moved out of
`fixbot.run.phases.fixing`, whose verification (`_check`) calls `publishable`; they call
`fixbot.run.integrity`, `fixbot.observe.judge`, `fixbot.tamper.reports`, `fixbot.process.git`
and `fixbot.run.outcome`."""

from __future__ import annotations

from collections.abc import Callable

from fixbot.core.models import Attempt
from fixbot.core.observed import Observation
from fixbot.core.repofiles import regular_text
from fixbot.logs.dialects import go
from fixbot.observe import failchains, judge, reporter
from fixbot.policy import rules
from fixbot.process import commits, git
from fixbot.run import checkfiles, integrity, originals, outcome, ranbytes, supportfiles
from fixbot.run.phases.base import RunParts
from fixbot.tamper import xfailed
from fixbot.tamper.changes import is_test_file
from fixbot.tamper.record import Cheat
from fixbot.tamper.reports import counted, disagreements


def publishable(run: RunParts, attempt: Attempt, seen: str, paths: list[str]) -> None:
    """Judge a green fix before it is committed: the suspected cheats of the final diff, the
    counts and the runner's per-test report, and the check against the start commit's tests
    when the fix changed them (`original_tests`) (recorded; `fixbot.policy.rules.unverified`
    escalates them unless test edits are allowed), and the tree, compared again right before
    and after the commit. Commit exactly the tree `seen` the verifying check saw, or nothing
    (the drift is recorded)."""
    found = _suspected(run, attempt, seen)
    if attempt.pinned and not found:
        found += original_tests(run, attempt, seen)
    attempt.cheats = [str(cheat) for cheat in found]
    _verification_notes(run, attempt)
    if _held_back(run, attempt) or not as_written(run, attempt):
        return
    if attempt.cheats:
        run.state.notes.append(integrity.allowed_note(attempt.cheats))
    attempt.drift = integrity.drift(run.repo, seen, commits.paths_tree(run.repo, paths))
    # the tree seen is git's blobs; the check ran on the files, which an attribute may make
    # differ from those blobs checked out again: such a path is drift too, never committed
    attempt.drift = attempt.drift or commits.unfaithful_paths(run.repo, paths)
    if not attempt.drift:
        _commit(run, attempt, seen)


def as_written(run: RunParts, attempt: Attempt) -> bool:
    """Whether the green fix `attempt` also passes the check as the project wrote it: where
    fixbot's observer inside go watched its run (`Observation.runners` holds `go`), that run
    turned go test's built-in vet step off (`-vet=off`: go 1.19's vet cannot read the observer's
    overlay, `fixbot.observe.golang`), so the check runs once more as written, vet on
    (`Checker.run_as_written`, through the run's launcher), and must exit 0; red, the finding
    `check-as-written` (with the log's first lines saying why, redacted) is recorded in
    `attempt.observed`: never committed, escalated. True without running anything for any other
    check. Only the run that decides the commit runs it (`publishable`, after every other
    judgement): one more run of the check for each green go fix."""
    if attempt.seen is None or "go" not in attempt.seen.runners:
        return True
    result = run.checker.run_as_written(attempt)
    log = result.log_path
    run.events.emit(
        "check-as-written",
        attempt.number,
        exit_code=result.exit_code,
        timed_out=result.timed_out,
        duration_ms=round(result.duration_s * 1000),
        log=str(log.relative_to(run.repo) if log.is_relative_to(run.repo) else log),
    )
    if result.passed:
        run.progress.line(f"  the check as written (vet on) passed ({result.duration_s:.1f} s)")
        return True
    how = "timed out" if result.timed_out else f"exit {result.exit_code}"
    said = "; ".join(_why_failed(result.tail))
    attempt.observed.append(
        f"{rules.AS_WRITTEN}the check run again as written, go test's vet step on (the observed "
        f"run turns it off), failed ({how}{': ' if said else ''}{run.redactor.redact(said)})"
    )
    run.progress.line(f"  the check as written (vet on) failed ({how})")
    return False


def _why_failed(tail: str, most: int = 3) -> list[str]:
    """The first `most` lines of a failed go check's `tail` that say why (go's `# package`
    headers and `FAIL`/`ok` summary lines left out), each at most 200 characters."""
    skipped = ("#", "FAIL", "ok ", "ok\t")
    lines = (line.strip() for line in tail.splitlines())
    return [line[:200] for line in lines if line and not line.startswith(skipped)][:most]


def _suspected(run: RunParts, attempt: Attempt, seen: str) -> list[Cheat]:
    """The suspected cheats of the tree `seen` against the start commit: the final diff's, the
    counts' and the runner's per-test report's, and the observer's test edits; records the
    test files the fix changed (`attempt.pinned`) and the observer's other findings
    (`attempt.observed`)."""
    start, files, supports = run.state.start_sha, check_files(run, seen), helpers(run)
    # a failure log from elsewhere (`Seed`) counted another command's tests: not comparable
    first = run.state.attempts[0] if run.first is None else None
    was = (first.counts, first.tests) if first is not None else (None, None)
    collected = [*(first.tests or {}), *(first.seen.tests if first.seen else {})] if first else []
    # tests the start's run reported xfailed, every item, that the fix removed: no cheat
    diff = integrity.changes(run.repo, start, seen)  # read once, for the excuse and the rules
    pardon = xfailed.excuse(diff, was[1], attempt.tests)
    found = integrity.cheats(
        run.repo,
        start,
        seen,
        *counted(was, (attempt.counts, attempt.tests), pardon.ids),
        files,
        collected,
        supports,
        pardon.functions,
        diff,
    )
    attempt.pinned = integrity.pinned(run.repo, start, seen, files | supports)
    found += _unimported_since(first, attempt, supports)
    found += ranbytes.rewritten(run.repo, seen, attempt.seen, _of_the_tests(files | supports))
    found += disagreements(was[1], attempt.tests, attempt.pinned, pardon.ids)
    # the verdict: what fixbot's observer inside the runner saw, against the start's run
    changed = git.changed_files(run.repo, start, seen)
    findings = judge.findings(first.seen if first is not None else None, attempt.seen, changed)
    # the node runners' report file against what their reporter streamed as tests were decided
    for finding in findings + reporter.disagreements(attempt.tests, attempt.seen):
        rule, _, evidence = finding.partition(": ")
        if rule in judge.TEST_EDITS:  # which tests or plugins run: a test edit, when allowed
            found.append(Cheat(rule, None, evidence))
        else:
            attempt.observed.append(finding)
    return found


def _verification_notes(run: RunParts, attempt: Attempt) -> None:
    """Note an allowed change of the tests, and a fix verified by the exit code only."""
    if attempt.pinned and not attempt.cheats:
        run.state.notes.append(outcome.test_change_note(attempt))
    exit_code_only = outcome.verified_line(attempt)
    if exit_code_only.startswith("Verified by exit code") and exit_code_only not in run.state.notes:
        run.state.notes.append(exit_code_only)


def _held_back(run: RunParts, attempt: Attempt) -> bool:
    """True when the green fix must not be committed: the tree drifted, the observer found
    something, or cheats are suspected and test edits are not allowed."""
    if attempt.drift or attempt.observed:
        return True
    return bool(attempt.cheats) and not run.settings.allow_test_edits


def _commit(run: RunParts, attempt: Attempt, seen: str) -> None:
    """Commit the fix; undo the commit when the committed tree is not `seen` (the drift is
    recorded)."""
    outcome.commit(
        run.repo, run.settings, run.state, attempt, run.redactor, run.request.check_origin
    )
    if attempt.commit_sha and (late := integrity.committed_drift(run.repo, seen)):
        git.run(run.repo, "reset", "-q", "HEAD~1")
        attempt.commit_sha, attempt.drift = None, late


def check_files(run: RunParts, seen: str) -> frozenset[str]:
    """The files the check command names, in the start commit or the verified tree, and those
    jest's configuration loaded in the start commit's run (`Observation.configured`: the
    first attempt's, when it ran here; never a fix's run, whose configuration is the fix's)."""
    folder = run.checker.workdir.relative_to(run.repo).as_posix()
    first = run.state.attempts[0] if run.first is None and run.state.attempts else None
    loaded = first.seen.configured if first is not None and first.seen is not None else []
    revs = (run.state.start_sha, seen)
    return checkfiles.check_files(run.repo, run.settings.check, folder, revs, loaded)


def helpers(run: RunParts) -> frozenset[str]:
    """The files the classes of the tests the start commit's run did not pass were made in
    (`Observation.classes`, unittest's MRO below `TestCase`: the first attempt's, when it ran
    here; never a fix's run) that are test support by the start's text
    (`integrity.helpers`), and the files of the functions that only assert which those and
    the failing tests' files call by an imported name (round 36's checks.py): the tests',
    whatever their names. pytest's observer streams no classes: there, the failing tests' own
    files (a pytest id's part before `::`), whose helper bases `integrity.helpers` finds by
    their imports; and the plugins pytest loads by `-p` (the check's command, folder and
    environment: `supportfiles.Check`). The files the start's run imported
    (`Observation.imported`, either observer's) add the modules of assertions alone the tests
    name. And the files of a failing unittest test's mixins whose frames called unittest's
    failure in the start's run (`failchains.supports`: round 42's `getattr(self, "fa" + "il")`),
    whatever their text."""
    first = run.state.attempts[0] if run.first is None and run.state.attempts else None
    seen = first.seen if first is not None else None
    if seen is None:
        return frozenset()
    imported = seen.imported or ()
    folder = run.checker.workdir.relative_to(run.repo).as_posix()
    check = supportfiles.Check(run.settings.check, folder, run.checker.env)
    found = integrity.helpers(run.repo, run.state.start_sha, _failing_files(seen), imported, check)
    return found | failchains.supports(seen, is_test_file)


def _unimported_since(
    first: Attempt | None, attempt: Attempt, supports: frozenset[str]
) -> list[Cheat]:
    """`unimported` of the first attempt's run (None: a run from elsewhere) and `attempt`'s."""
    return unimported(first.seen if first is not None else None, attempt.seen, supports)


def unimported(
    start: Observation | None, seen: Observation | None, supports: frozenset[str]
) -> list[Cheat]:
    """`original-tests` where a file of the tests' (`supports`, `helpers`) that the start's run
    imported (`Observation.imported`, pytest's and unittest's observers) is not among the files
    run `seen` imported: the deciding check did not run the tests as the start had them (round
    39: app.py put a module of its own in `sys.modules["checks"]`, or a folder of the fix's
    first on `sys.path`, where its checks.py was found; under pytest too since pyimp; round
    41: a file whose names were rebound, or whose module code no loader ran, is left out of
    the record, `modulecode.held`). None
    where either run streamed no such record (another runner's check; a run ended before its
    record, whose stream has no `end` either: `observer-cut-short`), except a run `seen` that
    ended (`Observation.ended`) with no record where the start's run sent one: the observers
    send `imported` just before `end`, so an end alone is a record withheld (and an observer
    changed to send `end` alone fails safe, never switches this check off)."""
    if start is None or seen is None or start.imported is None:
        return []
    if seen.imported is None:
        if not seen.ended:
            return []
        evidence = "this run ended without its record of the files it imported; the start's had one"
        return [Cheat("original-tests", None, evidence)]
    missed = sorted(supports & set(start.imported) - set(seen.imported))
    if not missed:
        return []
    evidence = (
        f"{', '.join(missed[:5])}, the tests' and imported by the start's run, not imported "
        "as written by this run: another module stood for it (sys.modules, sys.path) or its "
        "names were bound elsewhere"
    )
    return [Cheat("original-tests", None, evidence)]


def _of_the_tests(files: frozenset[str]) -> Callable[[str], bool]:
    """Whether a path is the tests': one of `files` (the check's, `helpers`) or a test file."""
    return lambda path: path in files or is_test_file(path)


def _failing_files(seen: Observation) -> list[str]:
    """The files of the tests `seen` did not see pass: their unittest classes' files
    (`Observation.classes`), and a pytest id's own file (its part before `::`)."""
    failing = [test for test, outcome in seen.tests.items() if outcome != "passed"]
    made = [file for test in failing for file in seen.classes.get(test, ())]
    return [*made, *(test.split("::", 1)[0] for test in failing if "::" in test)]


def original_tests(run: RunParts, attempt: Attempt, seen: str) -> list[Cheat]:
    """Run the check once more with the fix but the start commit's tests (`attempt.pinned` as
    the start had them), then put the fix's tree back. Green: the fix holds against the
    original tests. Red only in the tests the fix changed (the runner's report names them):
    a test change the fix needs, recorded in `attempt.failing_on_original` and called out
    (unittest writes no report: the failing tests are those fixbot's observer inside unittest
    streamed, each by the file its class was made in, `fixbot.run.originals`); red
    anywhere when the change to the configuration only ignores a dependency's warning
    (`fixbot.tamper.changes.lets_tests_run_on`), which any test may have stopped at. Red
    anywhere else, or red with no report to say where: not verified."""
    here = git.worktree_tree(run.repo)
    files = check_files(run, seen)
    original = integrity.original_tree(run.repo, seen, run.state.start_sha, attempt.pinned, files)
    changed = ", ".join(attempt.pinned)
    run.progress.line(f"  the fix changed {changed}: the check again, with the start's tests")
    git.restore_worktree(run.repo, original)
    try:
        result, tests, observed = run.checker.run_original(attempt)
    finally:
        git.restore_worktree(run.repo, here)
    failing, made = originals.failing(tests, observed, originals.log_text(result.log_path))
    if result.passed and not failing:
        ran = ranbytes.rewritten(run.repo, original, observed, _of_the_tests(files | helpers(run)))
        return ran + _observed_on_original(run, seen, observed)
    others = originals.unexplained(failing or [], made, attempt.pinned, go_module(run))
    if others and integrity.lets_tests_run_on(run.repo, run.state.start_sha, seen, attempt.pinned):
        attempt.failing_outside, others = True, []  # only a dependency's warning is ignored now
    if not failing or others:
        what = ", ".join(others[:5]) if others else originals.unnamed(observed)
        evidence = f"against the start commit's tests the check fails: {what}"
        return [Cheat("original-tests", None, evidence)]
    attempt.failing_on_original = failing
    return []


def _observed_on_original(run: RunParts, seen: str, observed: Observation | None) -> list[Cheat]:
    """Green against the start's tests: what the observer of that run found against the
    start's run, as cheats."""
    start = run.state.attempts[0].seen if run.first is None else None
    found = judge.findings(start, observed, git.changed_files(run.repo, run.state.start_sha, seen))
    named = [Cheat("original-tests", None, f"against the start commit's tests: {f}") for f in found]
    return named + unimported(start, observed, helpers(run))


def go_module(run: RunParts) -> str | None:
    """The Go module's path the check's folder declares in its go.mod (None: not a Go module),
    so that go test's ids name the test files a fix changed (`fixbot.tamper.reports.module_of`)."""
    workdir = run.checker.workdir
    text = regular_text(workdir, workdir / "go.mod")
    return None if text is None else go.module_path(text)
