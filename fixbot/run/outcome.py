"""What a run keeps and how it ends: the verified commit, the undo of a fix that broke the check,
the restore of the best tree when attempts diverge, the best attempt of an escalation (kept in the
working directory), and the recorded outcome with its report.
"""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Sequence
from pathlib import Path

from fixbot.core.models import Attempt, Outcome, OutcomeKind, Phase
from fixbot.core.observed import Observation
from fixbot.core.settings import Settings
from fixbot.policy import breaker
from fixbot.policy.state import RunState
from fixbot.process import commits, git
from fixbot.run.report import write_report
from fixbot.security.redact import Redactor

# Characters of the summary in the title after "fixbot: ", so the whole title stays within the
# 72 columns git's tools (and GitHub's commit list) show before cutting it.
TITLE_CHARS = 60


def commit_message(
    settings: Settings, attempt: Attempt, earlier: Sequence[Attempt] = (), origin: str = ""
) -> str:
    """The commit message of a verified fix, with a `fixbot-attempt: n` trailer.

    The title is the summary's first line, cut at a word boundary to `TITLE_CHARS` characters
    (with "..." when cut); a summary that does not fit whole, or has more lines, is kept in full
    in the body. A fixer that gave no summary is named by the files it changed. `earlier` are
    the run's attempts before `attempt`: the body says which of their changes are in the
    commit too (by fixer and file), and which were left out (`undone`). `origin`: where an
    inferred check came from ("from .github/workflows/ci.yml, job `test`, step `Run tests`")."""
    summary = attempt.summary.strip()
    first = summary.partition("\n")[0].strip()
    if not first:
        files = ", ".join(attempt.files_changed[:3]) or "the check"
        first = f"fix {files}" + (" and more" if len(attempt.files_changed) > 3 else "")
    title = textwrap.shorten(first, TITLE_CHARS, placeholder="...")
    if title == "...":  # one word longer than the title: cut it, since a title must say something
        title = first[: TITLE_CHARS - 3] + "..."
    body = summary + "\n\n" if summary and summary != title else ""
    where = f"; the check inferred {origin}" if origin else ""
    body += (
        f"Verified by `{settings.check}` (attempt {attempt.number}, fixer {attempt.fixer}{where})."
    )
    body += " " + verified_line(attempt)
    if attempt.pinned:
        body += "\n\n" + test_change_note(attempt)
    if attempt.cheats:  # published only because allow-test-edits is set (`fixbot.tamper.cheats`)
        body += "\n\nThe tests were changed (allow-test-edits): " + "; ".join(attempt.cheats)
    body += _other_attempts(attempt, earlier)
    return f"fixbot: {title}\n\n{body}\n\nfixbot-attempt: {attempt.number}\n"


def _files(paths: Sequence[str], at_most: int = 8) -> str:
    more = len(paths) - at_most
    return ", ".join(paths[:at_most]) + (f" and {more} more" if more > 0 else "")


def _other_attempts(attempt: Attempt, earlier: Sequence[Attempt]) -> str:
    """The commit body's lines on what earlier attempts put in the commit, or left out."""
    kept = [a for a in earlier if a.number != attempt.number and _kept_changes(a)]
    dropped = [a for a in earlier if _undone_changes(a)]
    lines = [
        f"Also in this commit: attempt {a.number}'s changes ({a.fixer}): {_files(a.files_changed)}."
        for a in kept
    ]
    lines += [
        f"Left out: attempt {a.number}'s changes ({a.fixer}) to {_files(a.files_changed)}, "
        "which did not change the failure."
        for a in dropped
    ]
    return "\n\n" + "\n".join(lines) if lines else ""


def _kept_changes(a: Attempt) -> bool:
    """True for a fix attempt whose changes are in the tree (not undone)."""
    return a.is_fix and bool(a.files_changed) and not a.undone


def _undone_changes(a: Attempt) -> bool:
    """True for an undone FIX attempt: fix commands' changes that did not change the failure."""
    return a.phase is Phase.FIX and a.undone and bool(a.files_changed)


def verified_line(attempt: Attempt) -> str:
    """How the green was judged: by the runner's own per-test report and fixbot's observer
    inside pytest, or its reporter inside jest or vitest (`Attempt.seen`; why jest ran without
    fixbot's test environment, `Observation.environment`; that its node had no module hooks, so
    the ES modules jest's configuration imported were not observed, `Observation.unhooked`; the
    go folders whose own `TestMain` kept the go observer out, `Observation.own_main`), or
    by exit code only; with why the runner ran where fixbot's reporter could not stream
    (`Observation.unreached`: an `npx jest` or `npm exec`/yarn/pnpm jest check with no local
    bin)."""
    seen, observer = attempt.seen, ""
    if seen is not None and seen.sessions > 0:
        inside = "/".join(seen.runners) or "pytest"  # jest's, vitest's: the node reporter
        unseen = f"; jest's test environment not observed: {seen.environment}"
        unhooked = "; ES modules of jest's configuration not observed: node has no module hooks"
        observer = f"fixbot's observer inside {inside} ({len(seen.tests)} tests"
        observer += f"{unseen if seen.environment else ''}{unhooked if seen.unhooked else ''}"
        observer += f"{_own_main(seen)})"
    unreached = _unreached(seen)
    if attempt.tests is None:
        if observer:
            return f"Verified by {observer}."
        return f"Verified by exit code only (the test runner wrote no per-test report){unreached}."
    also = f" and {observer}" if observer else ""
    count = len(attempt.tests)
    return f"Verified by the test runner's own report ({count} tests){also}{unreached}."


def _own_main(seen: Observation) -> str:
    """The verified line's words on the go folders whose own `TestMain` could not be folded into
    fixbot's observer, their tests unobserved (`Observation.own_main`), "" where none."""
    if not seen.own_main:
        return ""
    return "; go folders whose own TestMain was not folded in: " + ", ".join(seen.own_main[:5])


def _unreached(seen: Observation | None) -> str:
    """The verified line's words on why the runner ran where fixbot's reporter could not reach
    the channel (`Observation.unreached`), "" where it streamed or nothing says why."""
    if seen is None or seen.sessions > 0 or not seen.unreached:
        return ""
    return f" (the test runner was not observed: {seen.unreached})"


def test_change_note(attempt: Attempt) -> str:
    """The commit message's and report's line about a fix that changed the tests (`pinned`):
    what the start commit's tests say about it."""
    changed = ", ".join(attempt.pinned)
    if attempt.failing_on_original:
        failing = ", ".join(attempt.failing_on_original)
        # a test module the fix changed, or tests a changed warning filter stopped at the start
        why = "the fix changes how they run" if attempt.failing_outside else "the fix changes them"
        return (
            f"Test change: this fix changes {changed}. Against the start commit's tests "
            f"{failing} fail (expected: {why}); with the change the check "
            "passes. Review the test change."
        )
    return f"This fix also changes {changed}; the start commit's tests pass with it too."


def commit(
    repo: Path,
    settings: Settings,
    state: RunState,
    attempt: Attempt,
    redactor: Redactor,
    origin: str = "",
) -> None:
    """Commit a verified fix when `--commit` is on; record the sha in `attempt`. The message is
    redacted (the check command or the fixer's summary may quote a secret)."""
    if not settings.commit:
        return
    earlier = [a for a in state.attempts if a.number < attempt.number]
    message = redactor.redact(commit_message(settings, attempt, earlier, origin))
    made = commits.commit_paths(repo, changed_paths(state), message)
    attempt.commit_sha = made or committed_before(repo, state, attempt)


def changed_paths(state: RunState) -> list[str]:
    """Every path a fixer changed in this run: the only paths fixbot commits or snapshots,
    never what the check leaves behind (the check may write anything)."""
    return sorted({path for a in state.attempts for path in a.files_changed})


def committed_before(repo: Path, state: RunState, attempt: Attempt) -> str | None:
    """HEAD, when a run killed right after committing `attempt` left it unrecorded."""
    trailer = git.run(repo, "log", "-1", "--format=%(trailers:key=fixbot-attempt,valueonly)")
    recorded = {a.commit_sha for a in state.attempts}
    head = git.head_sha(repo)
    if trailer.strip() == str(attempt.number) and head not in recorded:
        return head
    return None


def undo(repo: Path, state: RunState, attempt: Attempt) -> None:
    """Restore the last green tree after `attempt` (a REVIEW/THREADS fix) broke the check.

    What was verified stays; what the fix was for is reported as not done (the review's
    blocking findings join the minor ones).
    """
    green = next(a for a in reversed(state.attempts) if a.passed and not a.undone)
    # The initial check passed: its tree is the start commit.
    git.restore_worktree(repo, green.snapshot_sha or state.start_sha)
    attempt.undone = True
    what = "review findings" if attempt.phase is Phase.REVIEW else "review threads"
    state.notes.append(
        f"attempt {attempt.number} (a fix for {what}) made the check fail; "
        f"it was undone and the verified tree of attempt {green.number} kept"
    )
    if attempt.phase is Phase.REVIEW and state.reviews:
        state.minor_findings.extend(state.reviews[-1].blocking)


def _problems(attempt: Attempt) -> str:
    problems = 0 if attempt.passed else attempt.counts.problems
    return "unknown" if problems is None else str(problems)


def _name(attempt: Attempt) -> str:
    return "the start" if attempt.number == 0 else f"attempt {attempt.number}"


def restore(repo: Path, state: RunState, attempt: Attempt, to: int) -> str:
    """Attempt `attempt` diverged: put the tree of attempt `to` (0: the start) back in the
    working directory, record it, and return the note the next attempt is told."""
    target = state.attempts[to]
    git.restore_worktree(repo, target.snapshot_sha or state.start_sha)
    attempt.restored_to = to
    before = state.attempts[attempt.number - 1]
    note = (
        f"attempts {before.number} and {attempt.number} made the failure worse "
        f"({_problems(before)} and {_problems(attempt)} failing) than {_name(target)} "
        f"({_problems(target)} failing): the tree of {_name(target)} was restored"
    )
    state.notes.append(note)
    return note


def diverged_note(state: RunState, previous: Attempt | None) -> str | None:
    """What the next attempt is told when `previous` diverged and the best tree was restored."""
    if previous is None or previous.restored_to is None:
        return None
    target = state.attempts[previous.restored_to]
    return (
        f"The last two attempts diverged: they made the failure worse ({_problems(previous)} "
        f"failing after attempt {previous.number}), so the working tree was restored to "
        f"{_name(target)} ({_problems(target)} failing). Do not redo their changes; take "
        "another approach. Another divergence ends the run."
    )


def keep_best(repo: Path, state: RunState, max_diff_lines: int | None = None) -> None:
    """Leave the best tree in the working directory of an escalated run, never a worse one:
    `state.best_snapshot` (fewest failures), else the start; `state.kept` says which, and which
    attempts were no fix at all (`fixbot.policy.breaker.not_a_fix` with `max_diff_lines`)."""
    if not state.fix_attempts:
        return
    best = next((a for a in state.attempts if a.snapshot_sha == state.best_snapshot), None)
    if state.best_snapshot is None or best is None:
        start = state.attempts[0]
        git.restore_worktree(repo, start.snapshot_sha or state.start_sha)
        state.kept = f"the start ({_problems(start)} failing): no attempt reduced the failures"
        ruled_out = [
            f"attempt {a.number} ({why})"
            for a in state.fix_attempts
            if (why := breaker.not_a_fix(a, max_diff_lines))
        ]
        if ruled_out:
            state.kept += "; not kept as no fix at all: " + ", ".join(ruled_out)
        return
    git.restore_worktree(repo, state.best_snapshot)
    state.kept = f"attempt {best.number} ({_problems(best)} failing), the best attempt"


def best_snapshot(attempts: list[Attempt], max_diff_lines: int | None = None) -> str | None:
    """The snapshot of the attempt with the fewest failures (latest on ties), or None.

    Only attempts that changed files and whose diff is within `max_diff_lines` compete (an
    attempt over it is no fix at all, `fixbot.policy.breaker.not_a_fix`, however its counts read);
    an attempt whose failure counts are unknown is kept only when nothing else qualifies.
    """
    with_changes = [a for a in attempts if _competes(a, max_diff_lines)]
    if not with_changes:
        return None
    initial = attempts[0].counts.problems if attempts else None

    def score(a: Attempt) -> tuple[int, int]:
        problems = a.counts.problems
        return (problems if problems is not None else (initial or 10**9), -a.number)

    best = min(with_changes, key=score)
    return best.snapshot_sha if _fewer(best.counts.problems, initial) else None


def _competes(a: Attempt, max_diff_lines: int | None) -> bool:
    """True for a finished fix attempt with a snapshot, no drift, no unpublished cheat, that
    changed something and is within `max_diff_lines`."""
    if not (a.is_fix and a.snapshot_sha and a.done) or a.drift:
        return False
    if a.cheats and not a.commit_sha:  # an unpublished cheat
        return False
    changed = bool(a.files_changed) or a.number > 1
    return changed and breaker.not_a_fix(a, max_diff_lines) is None


def _fewer(problems: int | None, initial: int | None) -> bool:
    """True unless both counts are known and `problems` is not below `initial`."""
    return initial is None or problems is None or problems < initial


def report_file(state_dir: Path, run_id: str) -> Path:
    """Where run `run_id` keeps its report: `<state_dir>/runs/<run_id>/report.md`."""
    return state_dir / "runs" / run_id / "report.md"


def state_dir_of(report: Path) -> Path:
    """The state folder of a report written by `finish` (the inverse of `report_file`)."""
    return report.parent.parent.parent


def finish(
    state: RunState,
    kind: OutcomeKind,
    reason: str,
    *,
    settings: Settings,
    state_dir: Path,
    redactor: Redactor,
    repo: Path | None = None,
) -> Outcome:
    """Record the outcome in `state` and write the report.

    Each run's report is kept in `<state_dir>/runs/<run id>/report.md` (the outcome's
    `report_path`) and the latest is also `<state_dir>/report.md`. `attempts` is the number of
    fix attempts (`RunState.fix_attempts`); `cost_usd` is None when a price was unknown. Raises
    OSError when the report cannot be written.
    """
    commits = [a.commit_sha for a in state.attempts if a.commit_sha]
    report = report_file(state_dir, state.run_id)
    outcome = Outcome(
        outcome=kind,
        reason=reason,
        attempts=len(state.fix_attempts),
        commit_sha=commits[-1] if commits else None,
        report_path=str(report),
        cost_usd=round(state.cost_usd, 6) if state.cost_known else None,
    )
    state.outcome = outcome
    diffstat = git.run(repo, "diff", "--stat", state.start_sha, "HEAD") if repo and commits else ""
    write_report(report, state, settings, redactor, diffstat=diffstat)
    shutil.copyfile(report, state_dir / "report.md")
    return outcome
