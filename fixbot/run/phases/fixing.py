"""The fixing of a run: an attempt's fix (`Fix`), its verification and, when green, its
commit (`Verify`), the diagnosis of a failed attempt (`Diagnose`) and the self-review of the
diff (`Review`), with the `FixContext` each agent is given. `fixbot.run.executor.Run.execute`
calls them (`checks` and `ending` reach `verify` and `context` through the run); they call the
agents, `fixbot.run.verify.Checker`, `fixbot.process.git`, `fixbot.run.integrity`,
`fixbot.run.outcome` and `fixbot.run.reflect`. A green fix is judged and committed by
`fixbot.run.phases.judging` (`publishable`), which `_check` calls."""

from __future__ import annotations

import time
from typing import Any

from fixbot.core.models import Attempt, FixContext, Phase, ReviewRound
from fixbot.core.repofiles import past_the_second
from fixbot.policy import breaker
from fixbot.process import commits, git
from fixbot.run import integrity, outcome, reflect
from fixbot.run.fixcommand import FixCommandFixer
from fixbot.run.phases import judging
from fixbot.run.phases.base import RunParts
from fixbot.run.report import review_word
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
        judging.publishable(run, attempt, seen, paths)
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
