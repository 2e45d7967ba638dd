"""What a run keeps and how it ends: the verified commit, the undo of a fix that broke the check,
the best attempt of an escalation, and the recorded outcome with its report.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from fixbot import git
from fixbot.models import Attempt, Outcome, OutcomeKind, Phase
from fixbot.redact import Redactor
from fixbot.report import write_report
from fixbot.settings import Settings
from fixbot.state import RunState


def commit_message(settings: Settings, attempt: Attempt) -> str:
    """The commit message of a verified fix, with a `fixbot-attempt: n` trailer."""
    title = (attempt.summary.splitlines() or ["verified fix"])[0].strip() or "verified fix"
    body = f"Verified by `{settings.check}` (attempt {attempt.number}, fixer {attempt.fixer})."
    return f"fixbot: {title[:60]}\n\n{body}\n\nfixbot-attempt: {attempt.number}\n"


def commit(repo: Path, settings: Settings, state: RunState, attempt: Attempt) -> None:
    """Commit a verified fix when `--commit` is on; record the sha in `attempt`."""
    if not settings.commit:
        return
    made = git.commit_paths(repo, changed_paths(state), commit_message(settings, attempt))
    attempt.commit_sha = made or committed_before(repo, state, attempt)


def changed_paths(state: RunState) -> list[str]:
    """Every path a fixer changed in this run: the only paths fixbot commits or snapshots,
    never what the check leaves behind (issue 14)."""
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


def best_snapshot(attempts: list[Attempt]) -> str | None:
    """The snapshot of the attempt with the fewest failures (latest on ties), or None.

    Only attempts that changed files and whose failure counts are known compete; an attempt
    whose counts are unknown is kept only when nothing else qualifies.
    """
    tried = [a for a in attempts if a.is_fix and a.snapshot_sha and a.done]
    with_changes = [a for a in tried if a.files_changed or a.number > 1]
    if not with_changes:
        return None
    initial = attempts[0].counts.problems if attempts else None

    def score(a: Attempt) -> tuple[int, int]:
        problems = a.counts.problems
        return (problems if problems is not None else (initial or 10**9), -a.number)

    best = min(with_changes, key=score)
    if initial is not None and best.counts.problems is not None and best.counts.problems >= initial:
        return None
    return best.snapshot_sha


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
