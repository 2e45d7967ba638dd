"""The executor of the loop: `Run` runs the step `fixbot.loop.rules.next_step` chooses, records the
result in the state and saves it, until the run is done.

The decisions are pure (`fixbot.loop.rules`, `fixbot.loop.breaker`, `fixbot.logs.classify`); this
class wires them to the adapters (`fixbot.run.verify` runs the check, the fixers,
`fixbot.process.git`, `fixbot.run.outcome`). `fixbot.run.engine.run` builds a `Run` and drives it.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from fixbot.core.errors import SetupError
from fixbot.core.models import (
    Attempt,
    BreakerState,
    FixContext,
    Outcome,
    OutcomeKind,
    Phase,
    ReviewRound,
    ReviewThread,
)
from fixbot.core.settings import Settings
from fixbot.logs.joblog import FirstFailure
from fixbot.loop import breaker, rules
from fixbot.loop.manifests import SetupDue, SetupReason
from fixbot.loop.state import RunState
from fixbot.process import git
from fixbot.run import integrity, outcome, reflect, setup
from fixbot.run.agents import Agents
from fixbot.run.outcome import best_snapshot
from fixbot.run.store import save_state
from fixbot.run.verify import Checker
from fixbot.ui.progress import Progress, attempt_label, fix_line


class Run:
    """One run of the loop over a repository: the state, and the I/O each step needs."""

    def __init__(
        self,
        settings: Settings,
        repo: Path,
        state: RunState,
        agents: Agents,
        progress: Progress,
        checker: Checker,
        *,
        hint: str | None = None,
        threads: Sequence[ReviewThread] = (),
        tried: Sequence[str] = (),
        first: FirstFailure | None = None,
    ) -> None:
        self.settings, self.repo, self.state = settings, repo, state
        self.tried = list(tried)  # earlier runs' attempts on this pull request (a retry)
        self.first = first  # a failure log from elsewhere: attempt 0, no initial check
        self.agents, self.progress, self.checker = agents, progress, checker
        self.redactor, self.hint = checker.redactor, hint
        self.threads = list(threads)
        self.in_action = checker.env.get("GITHUB_ACTIONS") == "true"  # for recovery plans
        self.state_dir = repo / settings.state_dir
        self.events = checker.events = reflect.event_log(self.state_dir, state, self.redactor)
        self.clock = time.monotonic()
        self.groups = ExitStack()  # the open `progress.group` of the attempt being worked on
        self.group_title: str | None = None
        self.means = rules.Observation(
            limits=breaker.Limits.from_settings(settings),
            max_review_rounds=settings.max_review_rounds,
            fixer=agents.fixer is not None,
            reviewer=agents.reviewer is not None,
            analyst=agents.analyst is not None,
            diagnoser=agents.diagnoser is not None,
            threads=len(self.threads),
            threads_fixer=agents.threads,
            setup=bool(settings.setup),
            seeded=first is not None,
            allow_test_edits=settings.allow_test_edits,
        )

    def save(self) -> None:
        """Account elapsed time and write the state atomically."""
        now = time.monotonic()
        self.state.elapsed_s += now - self.clock
        self.clock = now
        save_state(self.state_dir, self.state)

    def observe(self) -> rules.Observation:
        """The run's means and the wall time spent so far (seconds, across resumed processes)."""
        elapsed = self.state.elapsed_s + (time.monotonic() - self.clock)
        return dataclasses.replace(self.means, elapsed_s=elapsed)

    def drive(self) -> Outcome:
        """Execute steps until `next_step` says Done; save the state after each."""
        with self.groups:
            while not isinstance(step := rules.next_step(self.state, self.observe()), rules.Done):
                try:
                    self.execute(step)
                except SetupError as exc:  # not a code failure: no fixer runs, nothing is kept
                    self.finish(OutcomeKind.ERROR, str(exc))
                self.save()
        assert self.state.outcome is not None
        return self.state.outcome

    def execute(self, step: rules.Step) -> None:
        """Run one step (see `fixbot.loop.rules` for what each one means)."""
        self.group(step)
        match step:
            case rules.Setup(number, manifests):
                self.prepare(number, manifests)
            case rules.Seed():
                self.seed()
            case rules.Check():
                self.initial_check()
            case rules.Recheck():
                self.recheck(self.state.attempts[-1])
            case rules.Fix(number, phase):
                self.fix(number, phase)
            case rules.Verify(number, rerun):
                self.verify(self.state.attempts[-1], rerun)
            case rules.Diagnose(number):
                self.diagnose(self.state.attempts[-1])
            case rules.Restore(number, to):
                note = outcome.restore(self.repo, self.state, self.state.attempts[-1], to)
                self.progress.line(f"  diverging: {note}")
                self.events.emit("divergence", number, restored_to=to)
            case rules.Review(after):
                self.review(after)
            case rules.Undo(number):
                outcome.undo(self.repo, self.state, self.state.attempts[-1])
                self.events.emit("undo", number)
            case rules.Succeed(kind, reason, note):
                self.state.notes.extend([note] if note else [])
                self.finish(kind, reason)
            case rules.Escalate(reason, analyze):
                self.escalate(reason, analyze)

    def group(self, step: rules.Step) -> None:
        """Keep the steps of one attempt (check or fix, then verify) in one progress group."""
        title = None
        if isinstance(step, rules.Setup) and step.number == 0:
            title = "fixbot: set-up"
        elif isinstance(step, rules.Check | rules.Seed):
            title = f"fixbot: {attempt_label(0)} ({Phase.CHECK.value})"
        elif isinstance(step, rules.Fix | rules.Verify | rules.Setup):
            phase = step.phase if isinstance(step, rules.Fix) else self.state.attempts[-1].phase
            title = f"fixbot: {attempt_label(step.number)} ({phase.value})"
        if title == self.group_title:
            return
        self.groups.close()
        self.group_title = title
        if title is not None:
            self.groups.enter_context(self.progress.group(title))

    # -- check, fix, verify ----------------------------------------------------------------

    def prepare(self, number: int, manifests: tuple[str, ...]) -> None:
        """Run the set-up command before attempt `number`'s check and record it (saved before a
        failure raises `SetupError`)."""
        assert self.settings.setup is not None
        reason = SetupReason.INITIAL if number == 0 else SetupReason.MANIFEST
        due = SetupDue(reason=reason, attempt=number, manifests=list(manifests))
        why = f" ({', '.join(manifests)} changed)" if manifests else ""
        self.progress.phase(number, self.settings.max_attempts, f"set-up{why}")
        run = setup.prepare(
            self.settings.setup,
            due,
            repo=self.repo,
            workdir=self.checker.workdir,
            state_dir=self.state_dir,
            timeout=self.settings.setup_timeout,
            env=self.checker.env,
            redactor=self.redactor,
            launcher=self.checker.launcher,
        )
        self.state.setups.append(run)
        self.save()
        self.progress.line(f"  set-up exit {run.exit_code} ({run.duration_s:.1f} s)")
        setup.raise_for(run)

    def initial_check(self) -> None:
        """Record attempt 0 (saved before the check runs) and run the check."""
        if not self.state.attempts:
            self.state.attempts.append(Attempt(number=0, phase=Phase.CHECK))
            self.save()
        self.verify(self.state.attempts[0], rerun=True)

    def seed(self) -> None:
        """Record attempt 0 from the given failure log (saved first); no check is run."""
        assert self.first is not None
        if not self.state.attempts:
            self.state.attempts.append(Attempt(number=0, phase=Phase.CHECK))
            self.save()
        self.progress.phase(0, self.settings.max_attempts, f"the log of {self.first.source}")
        self.checker.seed(self.state.attempts[0], self.first)
        self.state.attempts[0].done = True
        self.state.notes.append(seeded_note(self.first))

    def recheck(self, attempt: Attempt) -> None:
        """Run the check once on the tree as it is before a run from a failure log gives up:
        its result replaces the one carried from the log (`rules.recheck`)."""
        self.state.rechecked = True
        self.state.notes.append(
            "the run would have given up on the given log alone: the check was run once on "
            f"the tree as it is (attempt {attempt.number})"
        )
        self.save()
        self.verify(attempt, rerun=True)

    def fix(self, number: int, phase: Phase) -> None:
        """Record attempt `number` with the tree it starts from (saved before the fixer runs),
        run the fixer, record it. A fixer that a killed process had started gets its starting
        tree back first, so its half-done edits are neither kept nor applied twice."""
        if self.state.attempts[-1].number != number:
            base = git.worktree_tree(self.repo)
            self.state.attempts.append(Attempt(number=number, phase=phase, base_tree=base))
            self.save()
        elif self.state.attempts[-1].base_tree:
            git.restore_worktree(self.repo, self.state.attempts[-1].base_tree)
            self.progress.line(f"  resumed: the tree attempt {number} started from is back")
        attempt, fixer = self.state.attempts[-1], self.agents.fixer
        assert fixer is not None
        self.progress.phase(number, self.settings.max_attempts, f"fix ({fixer.name})")
        reviews = self.state.reviews
        findings = reviews[-1].blocking if phase is Phase.REVIEW and reviews else []
        threads = self.threads if phase is Phase.THREADS else []
        started = time.monotonic()
        result = fixer.fix(self.context(attempt, findings=findings, threads=threads))
        attempt.record_fix(result, time.monotonic() - started, self.redactor.redact)
        self.state.add_usage(result.tokens, result.cost_usd, result.cost_known)
        self.progress.line(fix_line(result))
        event = "threads" if phase is Phase.THREADS else "fix"
        self.events.emit(event, number, **reflect.fix_event(attempt))

    def verify(self, attempt: Attempt, rerun: bool) -> None:
        """Run the check on the attempt's tree (or carry the previous result over), snapshot
        and commit a green fix, and measure the diff since the start."""
        if not rerun:
            self.checker.carry_over(attempt, self.standing())
        else:
            self.progress.phase(attempt.number, self.settings.max_attempts, "run the check")
            paths = outcome.changed_paths(self.state)
            seen = git.paths_tree(self.repo, paths)  # the tree the verifying check sees
            self.checker.check(attempt)
            if attempt.is_fix or attempt.number == 0:  # the start, too: a diverged run returns
                ref = f"refs/fixbot/attempt-{attempt.number}"
                message = f"fixbot attempt {attempt.number}"
                attempt.snapshot_sha = git.snapshot(self.repo, ref, message, paths=paths)
            if attempt.is_fix:
                attempt.drift = integrity.drift(self.repo, seen, git.paths_tree(self.repo, paths))
            if attempt.passed and attempt.is_fix:
                self.publishable(attempt, seen, paths)
        if attempt.is_fix:
            start = self.state.start_sha
            attempt.diff_lines = git.diff_lines(self.repo, start, attempt.snapshot_sha)
        attempt.done = True

    def publishable(self, attempt: Attempt, seen: str, paths: list[str]) -> None:
        """Judge a green fix before it is committed: the suspected cheats of the final diff and
        the counts (recorded; `fixbot.loop.rules.unverified` escalates them unless test edits are
        allowed), and the tree, compared again right before and after the commit. Commit exactly
        the tree `seen` the verifying check saw, or nothing (the drift is recorded)."""
        # a failure log from elsewhere (`Seed`) counted another command's tests: not comparable
        first = self.state.attempts[0].counts if self.first is None else None
        found = integrity.cheats(self.repo, self.state.start_sha, seen, first, attempt.counts)
        attempt.cheats = [str(cheat) for cheat in found]
        if attempt.drift or (attempt.cheats and not self.settings.allow_test_edits):
            return
        if attempt.cheats:
            self.state.notes.append(integrity.allowed_note(attempt.cheats))
        attempt.drift = integrity.drift(self.repo, seen, git.paths_tree(self.repo, paths))
        if attempt.drift:
            return
        outcome.commit(self.repo, self.settings, self.state, attempt, self.redactor)
        if attempt.commit_sha and (late := integrity.committed_drift(self.repo, seen)):
            git.run(self.repo, "reset", "-q", "HEAD~1")
            attempt.commit_sha, attempt.drift = None, late

    def standing(self) -> Attempt:
        """The attempt whose tree the last one started from: the one before it, or the best
        one its divergence restored."""
        previous = self.state.attempts[-2]
        restored = previous.restored_to
        return previous if restored is None else self.state.attempts[restored]

    def context(self, attempt: Attempt, **extra: Any) -> FixContext:
        """The FixContext for `attempt`: the last failure and its diagnosis (or the restored
        tree's failure after a divergence), the history, the budget used."""
        previous = self.state.attempts[-2] if len(self.state.attempts) > 1 else None
        source = self.standing() if previous is not None else None
        failure = None
        if source is not None and not source.passed:
            failure = self.checker.failure_of(source)
        values: dict[str, Any] = dict(
            repo=self.repo,
            attempt=attempt.number,
            max_attempts=self.settings.max_attempts,
            phase=attempt.phase,
            failure=failure,
            history=[a for a in self.state.attempts if a.done],
            start_sha=self.state.start_sha,
            desired=self.settings.desired,
            hint=self.hint,
            tried=self.tried,
            oscillation=previous is not None
            and previous.number in breaker.oscillations(self.state.attempts),
            tokens_used=self.state.tokens,
            cost_used_usd=self.state.cost_usd,
            diagnosis=source.diagnosis if source is previous and source is not None else None,
            diverged=outcome.diverged_note(self.state, previous),
            state_dir=self.settings.state_dir,
        )
        return FixContext(**(values | extra))

    def diagnose(self, attempt: Attempt) -> None:
        """Record why `attempt` failed: the earlier diagnosis of the same failure stands (no
        model call), else one call to the diagnoser (see `fixbot.run.reflect`)."""
        if not reflect.standing_diagnosis(self.state, attempt):
            assert self.agents.diagnoser is not None
            self.progress.phase(attempt.number, self.settings.max_attempts, "diagnose")
            failure = self.checker.failure_of(attempt)
            ctx = self.context(attempt, failure=failure, diagnosis=None, diverged=None)
            reflect.ask(self.state, attempt, self.agents.diagnoser, ctx, self.redactor.redact)
        self.progress.line(f"  {reflect.summary(attempt)}")
        self.events.emit("diagnosis", attempt.number, **reflect.diagnosis_event(attempt))

    # -- review and the end ------------------------------------------------------------------

    def review(self, after: int) -> None:
        """Self-review the diff; record the round (its minor findings are reported)."""
        reviewer = self.agents.reviewer
        assert reviewer is not None
        last = self.state.attempts[-1]
        self.progress.phase(last.number, self.settings.max_attempts, "self-review of the diff")
        result = reviewer.review(self.context(last))
        self.state.add_usage(result.tokens, result.cost_usd, result.cost_usd is not None)
        self.state.minor_findings.extend(f for f in result.findings if f not in result.blocking)
        if result.error:
            self.state.notes.append(f"review skipped: {result.error}")
        self.events.emit("review", last.number, **reflect.review_event(result))
        self.state.reviews.append(
            ReviewRound(after=after, blocking=result.blocking, error=result.error)
        )

    def escalate(self, reason: str, analyze: bool) -> None:
        """Open the breaker, keep the best attempt (in the working directory too), make the
        recovery plan or ask for an analysis, record the outcome."""
        self.state.breaker = BreakerState.OPEN
        self.state.breaker_reason = reason
        limit = self.settings.max_diff_lines
        self.state.best_snapshot = best_snapshot(self.state.attempts, limit)
        outcome.keep_best(self.repo, self.state, limit)
        last = self.state.attempts[-1]
        failure = None if last.passed else self.checker.failure_of(last)
        reason = reflect.recover(
            self.state, failure, self.settings, self.in_action, self.events, reason
        )
        analyst, last = self.agents.analyst, self.state.attempts[-1]
        if analyze and analyst is not None:
            self.progress.phase(last.number, self.settings.max_attempts, "escalation analysis")
            result = analyst.analyze(self.context(last, reason=reason))
            self.state.add_usage(result.tokens, result.cost_usd, result.cost_known)
            self.state.analysis = self.redactor.redact(result.summary) if not result.error else None
        self.finish(OutcomeKind.ESCALATED, reason)

    def finish(self, kind: OutcomeKind, reason: str) -> None:
        """Record the outcome and write the report (the loop saves the state)."""
        self.events.emit("outcome", None, outcome=kind.value, reason=reason, kept=self.state.kept)
        now = time.monotonic()  # the report shows the wall time up to this moment
        self.state.elapsed_s += now - self.clock
        self.clock = now
        outcome.finish(
            self.state,
            kind,
            reason,
            settings=self.settings,
            state_dir=self.state_dir,
            redactor=self.redactor,
            repo=self.repo,
        )

    def report_error(self, reason: str) -> None:
        """Write the report of a run stopped mid-way by an error (a rejected key, a refused
        connection: exit 2), so `report.md` describes this run; the state itself records no
        outcome, so the same command continues once the problem is fixed."""
        stopped = self.state.model_copy(deep=True)
        stopped.notes = [
            *stopped.notes,
            "the state is saved: fix the problem above and run the same command to continue",
        ]
        outcome.finish(
            stopped,
            OutcomeKind.ERROR,
            reason,
            settings=self.settings,
            state_dir=self.state_dir,
            redactor=self.redactor,
        )


def seeded_note(first: FirstFailure) -> str:
    """The report's line about a run that started from a failure log instead of a check."""
    return (
        f"the first failing run is the log of {first.source}: no initial check was run "
        "(one full check saved); every fix was verified by the check command"
    )
