"""The fixing of a run: an attempt's fix (`Fix`), its verification and, when green, its
commit (`Verify`), the diagnosis of a failed attempt (`Diagnose`) and the self-review of the
diff (`Review`), with the `FixContext` each agent is given. `fixbot.run.executor.Run.execute`
calls them (`checks` and `ending` reach `verify` and `context` through the run); they call the
agents, `fixbot.run.verify.Checker`, `fixbot.process.git`, `fixbot.run.integrity`,
`fixbot.run.outcome` and `fixbot.run.reflect`."""

from __future__ import annotations

import time
from typing import Any

from fixbot.core.models import Attempt, FixContext, Phase, ReviewRound
from fixbot.core.observed import Observation
from fixbot.core.repofiles import past_the_second, regular_text
from fixbot.logs.dialects import go
from fixbot.observe import judge, reporter
from fixbot.policy import breaker, rules
from fixbot.process import commits, git
from fixbot.run import checkfiles, integrity, outcome, reflect
from fixbot.run.fixcommand import FixCommandFixer
from fixbot.run.phases.base import RunParts
from fixbot.run.report import review_word
from fixbot.tamper.cheats import Cheat
from fixbot.tamper.reports import counted, disagreements, unexpected
from fixbot.ui.progress import fix_line, problem_lines


def fix(run: RunParts, number: int, phase: Phase) -> None:
    """Record attempt `number` with the tree it starts from (saved before the fixer runs),
    run the fixer, record it. A fixer that a killed process had started gets its starting
    tree back first, so its half-done edits are neither kept nor applied twice."""
    attempt, fixer = _start(run, number, phase), run.agents.fixer
    assert fixer is not None
    run.progress.phase(number, run.settings.max_attempts, f"fix ({fixer.name})")
    started = time.monotonic()
    result = fixer.fix(context(run, attempt, **_asked(run, phase)))
    # the check runs on what the commit will check out as: a file the repository's attributes
    # convert on `git add` and checkout is written in that form now (`publishable` refuses
    # any path still not so)
    commits.unfaithful_paths(run.repo, result.files_changed, rewrite=True)
    past_the_second(run.repo, result.files_changed)
    attempt.record_fix(result, time.monotonic() - started, run.redactor.redact)
    _note_once(run, number, result.notes)
    run.state.add_usage(result.tokens, result.cost_usd, result.cost_known)
    run.progress.line(fix_line(result))
    for line in problem_lines(result):
        run.progress.line(line)
    event = "threads" if phase is Phase.THREADS else "fix"
    run.events.emit(event, number, **reflect.fix_event(attempt))


def _start(run: RunParts, number: int, phase: Phase) -> Attempt:
    """Attempt `number`, recorded with the tree it starts from; a resumed one (a killed
    process had started it) gets that tree back."""
    if run.state.attempts[-1].number != number:
        base = git.worktree_tree(run.repo)
        run.state.attempts.append(Attempt(number=number, phase=phase, base_tree=base))
        run.save()
    elif run.state.attempts[-1].base_tree:
        git.restore_worktree(run.repo, run.state.attempts[-1].base_tree)
        run.progress.line(f"  resumed: the tree attempt {number} started from is back")
    return run.state.attempts[-1]


def _asked(run: RunParts, phase: Phase) -> dict[str, Any]:
    """What the fixer is asked to address besides the failure: the last review's blocking
    findings (a review phase) or the review threads (a threads phase)."""
    reviews = run.state.reviews
    return {
        "findings": reviews[-1].blocking if phase is Phase.REVIEW and reviews else [],
        "threads": list(run.request.threads) if phase is Phase.THREADS else [],
    }


def _note_once(run: RunParts, number: int, notes: list[str]) -> None:
    """Add the fixer's `notes` (redacted) to the run's, each once a run, not each attempt."""
    for note in (run.redactor.redact(n) for n in notes):
        if not any(known.endswith(note) for known in run.state.notes):
            run.state.notes.append(f"attempt {number}: {note}")


def verify(run: RunParts, attempt: Attempt, rerun: bool) -> None:
    """Run the check on the attempt's tree (or carry the previous result over), snapshot
    and commit a green fix, and measure the diff since the start."""
    if not rerun:
        run.checker.carry_over(attempt, standing(run))
    else:
        _check(run, attempt)
    if attempt.is_fix:
        start = run.state.start_sha
        attempt.diff_lines = git.diff_lines(run.repo, start, attempt.snapshot_sha)
    attempt.done = True


def _check(run: RunParts, attempt: Attempt) -> None:
    """Run the check on the attempt's tree, snapshot it, and judge a green fix (`publishable`)
    or undo fix commands that did not change the failure (`leave_out_if_unchanged`)."""
    run.progress.phase(attempt.number, run.settings.max_attempts, "run the check")
    paths = outcome.changed_paths(run.state)
    seen = commits.paths_tree(run.repo, paths)  # the tree the verifying check sees
    observed = run.state.attempts[0].seen if run.state.attempts else None
    # the tests that failed at the start: the observer watches their bodies
    run.checker.watch = observed.failed() if observed is not None and attempt.is_fix else []
    run.checker.check(attempt)
    if attempt.is_fix or attempt.number == 0:  # the start, too: a diverged run returns
        ref = f"refs/fixbot/attempt-{attempt.number}"
        message = f"fixbot attempt {attempt.number}"
        attempt.snapshot_sha = commits.snapshot(run.repo, ref, message, paths=paths)
    if not attempt.is_fix:
        return
    attempt.drift = integrity.drift(run.repo, seen, commits.paths_tree(run.repo, paths))
    # the tree seen is git's blobs; the check ran on the files, which an attribute may make
    # differ from those blobs checked out again: such a path is drift too, never committed
    attempt.drift = attempt.drift or commits.unfaithful_paths(run.repo, paths)
    if attempt.passed:
        publishable(run, attempt, seen, paths)
    elif attempt.fixer == FixCommandFixer.name:
        leave_out_if_unchanged(run, attempt)


def leave_out_if_unchanged(run: RunParts, attempt: Attempt) -> None:
    """Undo the fix commands' changes of `attempt` when the check fails as it did before them
    (the same signature, or the same failing tests, and as many failures, counted): an unpinned
    formatter's rewrites that did not touch the failure are no part of the fix, and the next
    attempt starts without them.
    The files go back to the tree the attempt started from; the note names them, for the
    report and the commit message."""
    before = standing(run)
    if before.passed or not _fails_as_before(attempt, before):
        return
    if not attempt.base_tree or not attempt.files_changed:
        return
    git.restore_paths(run.repo, attempt.base_tree, attempt.files_changed)
    attempt.undone = True
    files = _some(attempt.files_changed, 8)
    run.state.notes.append(
        f"attempt {attempt.number}: the fix commands changed {files} but not the failure: "
        "their changes were undone and are not in the commit"
    )
    run.progress.line(f"  the fix commands did not change the failure: {files} undone")


def _fails_as_before(attempt: Attempt, before: Attempt) -> bool:
    """True when `attempt`'s check fails as `before`'s did: the same signature, or the same
    failing tests, and as many failures, counted. Fewer failures is progress, and unknown
    counts cannot tell: False then."""
    failing = _failed(attempt)
    same = attempt.signature == before.signature or (bool(failing) and failing == _failed(before))
    now, then = attempt.counts.problems, before.counts.problems
    return same and now is not None and then is not None and now >= then


def _failed(attempt: Attempt) -> set[str]:
    """The tests the runner's report of `attempt` names as failed."""
    return {t for t, o in (attempt.tests or {}).items() if o == "failed"}


def _some(names: list[str], most: int) -> str:
    """The first `most` of `names`, then how many more."""
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(names[:most]) + more


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
    found = integrity.cheats(
        run.repo,
        start,
        seen,
        *counted(was, (attempt.counts, attempt.tests)),
        files,
        collected,
        supports,
    )
    attempt.pinned = integrity.pinned(run.repo, start, seen, files | supports)
    found += disagreements(
        first.tests if first is not None else None, attempt.tests, attempt.pinned
    )
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
    whatever their names. pytest's observer streams no classes: none there."""
    first = run.state.attempts[0] if run.first is None and run.state.attempts else None
    seen = first.seen if first is not None else None
    if seen is None:
        return frozenset()
    made = (f for t, fs in seen.classes.items() if seen.tests.get(t) != "passed" for f in fs)
    return integrity.helpers(run.repo, run.state.start_sha, made)


def original_tests(run: RunParts, attempt: Attempt, seen: str) -> list[Cheat]:
    """Run the check once more with the fix but the start commit's tests (`attempt.pinned` as
    the start had them), then put the fix's tree back. Green: the fix holds against the
    original tests. Red only in the tests the fix changed (the runner's report names them):
    a test change the fix needs, recorded in `attempt.failing_on_original` and called out; red
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
    failing = sorted(t for t, o in (tests or {}).items() if o == "failed")
    if result.passed and not failing:
        return _observed_on_original(run, seen, observed)
    others = _unexpected(run, attempt, seen, failing)
    if tests is None or not failing or others:
        what = ", ".join(others[:5]) if others else "no per-test report names which tests fail"
        evidence = f"against the start commit's tests the check fails: {what}"
        return [Cheat("original-tests", None, evidence)]
    attempt.failing_on_original = failing
    return []


def _unexpected(run: RunParts, attempt: Attempt, seen: str, failing: list[str]) -> list[str]:
    """The `failing` tests against the start's tests that are not among those the fix changed;
    none when the fix only lets the tests run on past a dependency's warning."""
    others = unexpected(failing, attempt.pinned, go_module(run))
    if others and integrity.lets_tests_run_on(run.repo, run.state.start_sha, seen, attempt.pinned):
        return []  # only a dependency's warning is ignored now: any test it stopped may fail
    return others


def _observed_on_original(run: RunParts, seen: str, observed: Observation | None) -> list[Cheat]:
    """Green against the start's tests: what the observer of that run found against the
    start's run, as cheats."""
    start = run.state.attempts[0].seen if run.first is None else None
    found = judge.findings(start, observed, git.changed_files(run.repo, run.state.start_sha, seen))
    return [Cheat("original-tests", None, f"against the start commit's tests: {f}") for f in found]


def go_module(run: RunParts) -> str | None:
    """The Go module's path the check's folder declares in its go.mod (None: not a Go module),
    so that go test's ids name the test files a fix changed (`fixbot.tamper.reports.module_of`)."""
    workdir = run.checker.workdir
    text = regular_text(workdir, workdir / "go.mod")
    return None if text is None else go.module_path(text)


def standing(run: RunParts) -> Attempt:
    """The attempt whose tree the last one started from: the one before it, or the best
    one its divergence restored."""
    previous = run.state.attempts[-2]
    restored = previous.restored_to
    return previous if restored is None else run.state.attempts[restored]


def context(run: RunParts, attempt: Attempt, **extra: Any) -> FixContext:
    """The FixContext for `attempt`: the last failure and its diagnosis (or the restored
    tree's failure after a divergence), the history, the budget used."""
    previous = run.state.attempts[-2] if len(run.state.attempts) > 1 else None
    source = standing(run) if previous is not None else None
    failure = None
    if source is not None and not source.passed:
        failure = run.checker.failure_of(source)
    values: dict[str, Any] = dict(
        repo=run.repo,
        attempt=attempt.number,
        max_attempts=run.settings.max_attempts,
        phase=attempt.phase,
        failure=failure,
        history=[a for a in run.state.attempts if a.done],
        start_sha=run.state.start_sha,
        desired=run.settings.desired,
        hint=run.request.hint,
        tried=list(run.request.tried),
        oscillation=previous is not None
        and previous.number in breaker.oscillations(run.state.attempts),
        tokens_used=run.state.tokens,
        cost_used_usd=run.state.cost_usd,
        diagnosis=source.diagnosis if source is previous and source is not None else None,
        diverged=outcome.diverged_note(run.state, previous),
        state_dir=run.settings.state_dir,
    )
    return FixContext(**(values | extra))


def diagnose(run: RunParts, attempt: Attempt) -> None:
    """Record why `attempt` failed: the earlier diagnosis of the same failure stands (no
    model call), else one call to the diagnoser (see `fixbot.run.reflect`)."""
    if not reflect.standing_diagnosis(run.state, attempt):
        assert run.agents.diagnoser is not None
        run.progress.phase(attempt.number, run.settings.max_attempts, "diagnose")
        failure = run.checker.failure_of(attempt)
        ctx = context(run, attempt, failure=failure, diagnosis=None, diverged=None)
        reflect.ask(run.state, attempt, run.agents.diagnoser, ctx, run.redactor.redact)
    run.progress.line(f"  {reflect.summary(attempt)}")
    run.events.emit("diagnosis", attempt.number, **reflect.diagnosis_event(attempt))


def review(run: RunParts, after: int) -> None:
    """Self-review the diff; record the round (its minor findings are reported)."""
    reviewer = run.agents.reviewer
    assert reviewer is not None
    last = run.state.attempts[-1]
    run.progress.phase(last.number, run.settings.max_attempts, "self-review of the diff")
    result = reviewer.review(context(run, last))
    run.state.add_usage(result.tokens, result.cost_usd, result.cost_usd is not None)
    last.add_calls(result.calls, run.redactor.redact)
    run.state.minor_findings.extend(f for f in result.findings if f not in result.blocking)
    if result.error:
        run.state.notes.append(f"self-review {review_word(result.error)}: {result.error}")
    run.events.emit("review", last.number, **reflect.review_event(result))
    run.state.reviews.append(ReviewRound(after=after, blocking=result.blocking, error=result.error))
