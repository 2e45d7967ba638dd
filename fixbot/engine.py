"""The loop: run the check, digest the failure, decide, fix, verify, review, report.

`run()` wires the pure decisions (`fixbot.breaker`, `fixbot.classify`, `fixbot.signature`) to the
adapters (`fixbot.runner`, `fixbot.git`, the fixers). The state is saved after every step, so a
run killed at any point continues with `--resume` and loses no attempt.
"""

from __future__ import annotations

import itertools
import os
import signal
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

from tenacity import Retrying, retry_if_result, stop_after_attempt

from fixbot import breaker, git, sandbox
from fixbot.agent.errors import KEY_VARIABLES
from fixbot.commands import Launcher
from fixbot.digest import digest
from fixbot.errors import ConfigError
from fixbot.fixers import Analyst, ChainFixer, FixCommandFixer, Fixer, Reviewer
from fixbot.models import (
    Attempt,
    BreakerState,
    CheckResult,
    ErrorClass,
    Failure,
    FixContext,
    FixResult,
    Outcome,
    OutcomeKind,
    Phase,
    ReviewThread,
)
from fixbot.progress import Progress, attempt_label
from fixbot.redact import Redactor
from fixbot.report import write_report
from fixbot.settings import Settings
from fixbot.state import RunState, load_state, save_state

EXCERPT_LINES = 25
# Never handed to the check or the fix commands, which run the repository's (and the model's) code:
# the Action's inputs (the GitHub token among them), GitHub's own tokens, and model provider keys.
SCRUBBED_PREFIXES = ("INPUT_", "FIXBOT_", "ACTIONS_RUNTIME_", "ACTIONS_ID_TOKEN_")
# The model provider keys (`fixbot.agent.errors.KEY_VARIABLES`, the `*_API_KEY` ones: cloud
# credentials such as AWS_* stay, the check may need them) and GitHub's tokens.
SCRUBBED_NAMES = frozenset(
    {"GITHUB_TOKEN", "GH_TOKEN", "AZURE_OPENAI_API_KEY"}
    | {name for name in KEY_VARIABLES.values() if name.endswith("_API_KEY")}
)


def check_environment(env: Mapping[str, str]) -> dict[str, str]:
    """`env` without the variables the check and fix commands must never see."""
    return {
        name: value
        for name, value in env.items()
        if name not in SCRUBBED_NAMES and not name.startswith(SCRUBBED_PREFIXES)
    }


def is_transient(failure: Failure | None) -> bool:
    """True for a failure the loop re-runs after backoff instead of fixing."""
    return failure is not None and failure.classification.error_class is ErrorClass.TRANSIENT


class Cancelled(Exception):
    """Raised in the main thread by the SIGTERM handler: the run stops, its state is saved."""


class Agents:
    """The fixer chain, reviewer and analyst a run uses (None where not configured)."""

    def __init__(
        self,
        fixer: Fixer | None,
        reviewer: Reviewer | None = None,
        analyst: Analyst | None = None,
        notes: list[str] | None = None,
        threads: bool = True,
    ) -> None:
        self.fixer = fixer
        self.reviewer = reviewer
        self.analyst = analyst
        self.notes = notes or []
        self.threads = threads  # whether the fixer can address review threads (a model can)


def build_agents(
    settings: Settings,
    env: Mapping[str, str],
    workdir: Path | None = None,
    launcher: Launcher | None = None,
) -> Agents:
    """Fix commands (run in `workdir` by `launcher`) first, then the model agent when
    `settings.model` is set."""
    fixers: list[Fixer] = []
    if settings.fix_commands:
        launcher = launcher or Launcher(workdir or Path.cwd(), check_environment(env))
        fixers.append(
            FixCommandFixer(
                settings.fix_commands,
                launcher,
                workdir,
                timeout=settings.fix_command_timeout,
                state_dir=settings.state_dir,
            )
        )
    if not settings.model:
        note = "no model is set (--model / FIXBOT_MODEL): only the fix commands can fix failures"
        return Agents(ChainFixer(fixers) if fixers else None, notes=[note], threads=False)
    from fixbot.agent import build_agent

    agent: Any = build_agent(settings, env)
    fixers.append(agent)
    reviewer = agent if settings.review else None
    return Agents(ChainFixer(fixers), reviewer, agent)


@contextmanager
def sigterm_cancels() -> Iterator[None]:
    """While active, SIGTERM raises `Cancelled` in the main thread (a cancelled workflow)."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise Cancelled(f"received signal {signum}")

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class Run:
    """One run of the loop over a repository; holds the state and the I/O it needs."""

    def __init__(
        self,
        settings: Settings,
        repo: Path,
        state: RunState,
        agents: Agents,
        progress: Progress,
        redactor: Redactor,
        *,
        env: Mapping[str, str],
        hint: str | None = None,
        sleep: Callable[[float], None] = time.sleep,
        workdir: Path | None = None,
        threads: Sequence[ReviewThread] = (),
        launcher: Launcher | None = None,
    ) -> None:
        self.settings = settings
        self.repo = repo
        self.workdir = workdir or repo
        self.state = state
        self.agents = agents
        self.progress = progress
        self.redactor = redactor
        self.check_env = check_environment(env)
        self.launcher = launcher or Launcher(repo, self.check_env, redact=redactor.redact)
        self.hint = hint
        self.threads = list(threads)
        self.sleep = sleep
        self.state_dir = repo / settings.state_dir
        self.failures: dict[int, Failure] = {}
        self.clock = time.monotonic()

    # -- persistence -------------------------------------------------------------------------

    def save(self) -> None:
        """Account elapsed time and write the state atomically."""
        now = time.monotonic()
        self.state.elapsed_s += now - self.clock
        self.clock = now
        save_state(self.state_dir, self.state)

    # -- the loop ----------------------------------------------------------------------------

    def loop(self) -> Outcome:
        """Run attempts until the check passes (and review is done) or the breaker opens."""
        if not self.state.attempts:
            self.state.attempts.append(Attempt(number=0, phase=Phase.CHECK))
            self.save()
        while True:
            attempt = self.state.attempts[-1]
            if not attempt.done:
                self.finish_attempt(attempt)
            if attempt.passed:
                if self.wants_review_round() or self.wants_thread_round():
                    continue
                return self.succeed()
            if attempt.phase in (Phase.REVIEW, Phase.THREADS):
                return self.undo_fix(attempt)
            outcome = self.after_failure(attempt)
            if outcome is not None:
                return outcome

    def finish_attempt(self, attempt: Attempt) -> None:
        """Apply the fix (unless already applied) and verify it by running the check."""
        title = attempt_label(attempt.number)
        with self.progress.group(f"fixbot: {title} ({attempt.phase.value})"):
            if attempt.number > 0 and attempt.fixer is None:
                self.apply_fix(attempt)
            self.verify(attempt)

    def after_failure(self, attempt: Attempt) -> Outcome | None:
        """Ask the breaker; escalate when OPEN, otherwise queue the next fix attempt."""
        before = sum(1 for n in self.state.oscillated if n < attempt.number)
        decision = breaker.decide(self.state.attempts, self.usage(), self.limits(), before)
        if decision.oscillation and attempt.number not in self.state.oscillated:
            self.state.oscillated.append(attempt.number)
        if decision.state is BreakerState.OPEN:
            return self.escalate(decision.reason or "the circuit breaker opened")
        if self.agents.fixer is None:
            return self.escalate("no fixer is configured: set --model or add --fix-command")
        self.state.attempts.append(Attempt(number=attempt.number + 1, phase=Phase.FIX))
        self.save()
        return None

    # -- fixing ------------------------------------------------------------------------------

    def context(self, attempt: Attempt, **extra: Any) -> FixContext:
        """The FixContext for `attempt`: the last failure, the history, the budget used."""
        previous = self.state.attempts[-2] if len(self.state.attempts) > 1 else None
        failure = (
            self.failure_of(previous) if previous is not None and not previous.passed else None
        )
        return FixContext(
            repo=self.repo,
            attempt=attempt.number,
            max_attempts=self.settings.max_attempts,
            phase=attempt.phase,
            failure=failure,
            history=[a for a in self.state.attempts if a.done],
            start_sha=self.state.start_sha,
            desired=self.settings.desired,
            hint=self.hint,
            oscillation=previous is not None and previous.number in self.state.oscillated,
            tokens_used=self.state.tokens,
            cost_used_usd=self.state.cost_usd,
            **extra,
        )

    def apply_fix(self, attempt: Attempt) -> None:
        """Run the fixer for `attempt` and record what it changed."""
        assert self.agents.fixer is not None
        self.progress.phase(
            attempt.number, self.settings.max_attempts, f"fix ({self.agents.fixer.name})"
        )
        findings = self.state.pending_findings if attempt.phase is Phase.REVIEW else []
        threads = self.threads if attempt.phase is Phase.THREADS else []
        started = time.monotonic()
        result = self.agents.fixer.fix(self.context(attempt, findings=findings, threads=threads))
        self.record_fix(attempt, result, time.monotonic() - started)

    def record_fix(self, attempt: Attempt, result: FixResult, seconds: float) -> None:
        """Copy a FixResult into the attempt and the run totals, then save."""
        attempt.fixer = result.fixer
        attempt.files_changed = result.files_changed
        attempt.summary = self.redactor.redact(result.summary)
        attempt.diagnosis = self.redactor.redact(result.diagnosis) if result.diagnosis else None
        attempt.refused = [self.redactor.redact(r) for r in result.refused]
        attempt.tokens = result.tokens
        attempt.cost_usd = result.cost_usd
        attempt.fix_error = self.redactor.redact(result.error) if result.error else None
        attempt.resolved_thread_ids = list(result.resolved_thread_ids)
        attempt.fix_duration_s = seconds
        self.add_usage(result.tokens, result.cost_usd, result.cost_known)
        changed = ", ".join(result.files_changed) or "nothing"
        self.progress.line(f"  {result.fixer} changed {changed}")
        self.save()

    def add_usage(self, tokens: int, cost: float | None, known: bool) -> None:
        """Add model usage to the run totals."""
        self.state.tokens += tokens
        self.state.cost_usd += cost or 0.0
        self.state.cost_known = self.state.cost_known and known

    # -- verifying ---------------------------------------------------------------------------

    def verify(self, attempt: Attempt) -> None:
        """Run the check (re-running transient failures after backoff) and record the result."""
        if attempt.fix_error is not None or (attempt.number > 0 and not attempt.files_changed):
            self.carry_over(attempt)
            return
        self.progress.phase(attempt.number, self.settings.max_attempts, "run the check")
        failure = self.check_with_retries(attempt)
        attempt.done = True
        if attempt.number > 0:
            attempt.snapshot_sha = git.snapshot(
                self.repo,
                f"refs/fixbot/attempt-{attempt.number}",
                f"fixbot attempt {attempt.number}",
                paths=self.changed_paths(),
            )
        if attempt.passed and attempt.number > 0:
            self.commit(attempt)
        self.report_check(attempt, failure)
        self.save()

    def carry_over(self, attempt: Attempt) -> None:
        """Nothing changed (or the fixer failed): the previous check result stands, no re-run."""
        previous = self.state.attempts[-2]
        for name in (
            *("exit_code", "timed_out", "passed", "signature", "error_class", "category"),
            *("counts", "excerpt", "log_path"),
        ):
            setattr(attempt, name, getattr(previous, name))
        if previous.number in self.failures:
            self.failures[attempt.number] = self.failures[previous.number]
        attempt.done = True
        self.progress.line("  nothing changed: the previous check result stands (not re-run)")
        self.save()

    def check_with_retries(self, attempt: Attempt) -> Failure | None:
        """Run the check up to 1 + max_transient_retries times while it fails transiently."""
        tries = itertools.count()
        retrying = Retrying(
            stop=stop_after_attempt(self.settings.max_transient_retries + 1),
            wait=breaker.backoff_wait(self.settings.backoff),
            retry=retry_if_result(is_transient),
            sleep=self.sleep,
            retry_error_callback=lambda state: state.outcome.result() if state.outcome else None,
        )
        failure: Failure | None = retrying(lambda: self.run_check_once(attempt, next(tries)))
        return failure

    def run_check_once(self, attempt: Attempt, retry_index: int) -> Failure | None:
        """Run the check once, store the result in `attempt`, return the Failure (None if green)."""
        log = (
            self.state_dir
            / "attempts"
            / f"{attempt.number:03d}"
            / ("check.log" if retry_index == 0 else f"check-retry{retry_index}.log")
        )
        result = self.launcher.run(self.settings.check, self.workdir, log, self.settings.timeout)
        attempt.exit_code, attempt.timed_out, attempt.passed = (
            result.exit_code,
            result.timed_out,
            result.passed,
        )
        attempt.check_duration_s += result.duration_s
        attempt.transient_retries = retry_index
        attempt.log_path = str(log.relative_to(self.repo))
        if result.passed:
            attempt.signature = attempt.error_class = attempt.category = None
            self.failures.pop(attempt.number, None)
            return None
        failure = self.digest(result)
        self.failures[attempt.number] = failure
        attempt.signature = failure.signature
        attempt.error_class = failure.classification.error_class
        attempt.category = failure.classification.category
        attempt.counts = failure.counts
        attempt.excerpt = self.redactor.redact(
            "\n".join(failure.condensed.splitlines()[:EXCERPT_LINES])
        )
        if failure.classification.error_class is ErrorClass.TRANSIENT:
            self.progress.line(
                f"  transient failure ({failure.classification.category}), will re-run"
            )
        return failure

    def digest(self, result: CheckResult) -> Failure:
        """Digest a failed check; locations become relative to the repository root."""
        failure = digest(result, self.workdir)
        if self.workdir == self.repo:
            return failure
        prefix = self.workdir.relative_to(self.repo)
        moved = [
            loc.model_copy(update={"path": (prefix / loc.path).as_posix()})
            if not Path(loc.path).is_absolute() and (self.workdir / loc.path).exists()
            else loc
            for loc in failure.locations
        ]
        return failure.model_copy(update={"locations": moved})

    def failure_of(self, attempt: Attempt) -> Failure | None:
        """The Failure of a finished attempt, re-digested from its log after a resume."""
        if attempt.passed or attempt.log_path is None:
            return None
        if attempt.number not in self.failures:
            log = self.repo / attempt.log_path
            result = CheckResult(
                command=self.settings.check,
                exit_code=attempt.exit_code,
                timed_out=attempt.timed_out,
                duration_s=attempt.check_duration_s,
                log_path=log,
                output_bytes=log.stat().st_size if log.exists() else 0,
            )
            self.failures[attempt.number] = self.digest(result)
        return self.failures[attempt.number]

    def report_check(self, attempt: Attempt, failure: Failure | None) -> None:
        """One progress line for a finished check."""
        if failure is None:
            self.progress.line(f"  check passed ({attempt.check_duration_s:.1f} s)")
            return
        counts = failure.counts.problems
        self.progress.line(
            f"  check failed: exit {attempt.exit_code}, {attempt.error_class}/{attempt.category}, "
            f"signature {(attempt.signature or '')[:12]}"
            + (f", {counts} failing" if counts is not None else "")
        )

    def commit(self, attempt: Attempt) -> None:
        """Commit a verified fix when `--commit` is on."""
        if not self.settings.commit:
            return
        title = (attempt.summary.splitlines() or ["verified fix"])[0].strip() or "verified fix"
        title = title[:60]
        body = (
            f"Verified by `{self.settings.check}` "
            f"(attempt {attempt.number}, fixer {attempt.fixer})."
        )
        message = f"fixbot: {title}\n\n{body}\n\nfixbot-attempt: {attempt.number}\n"
        attempt.commit_sha = git.commit_paths(
            self.repo, self.changed_paths(), message
        ) or self.committed_before(attempt)

    def changed_paths(self) -> list[str]:
        """Every path a fixer changed in this run: the only paths fixbot commits or snapshots,
        never what the check leaves behind."""
        return sorted({p for a in self.state.attempts for p in a.files_changed})

    def committed_before(self, attempt: Attempt) -> str | None:
        """HEAD, when a run killed right after committing `attempt` left it unrecorded."""
        trailer = git.run(
            self.repo, "log", "-1", "--format=%(trailers:key=fixbot-attempt,valueonly)"
        )
        recorded = {a.commit_sha for a in self.state.attempts}
        head = git.head_sha(self.repo)
        if trailer.strip() == str(attempt.number) and head not in recorded:
            return head
        return None

    # -- review ------------------------------------------------------------------------------

    def wants_review_round(self) -> bool:
        """After green: review the diff; queue a review attempt for blocker/major findings."""
        reviewer = self.agents.reviewer
        if reviewer is None or not self.state.fix_attempts or self.state.review_done:
            return False
        if self.state.review_rounds >= self.settings.max_review_rounds:
            return False
        last = self.state.attempts[-1]
        self.progress.phase(last.number, self.settings.max_attempts, "self-review of the diff")
        result = reviewer.review(self.context(last))
        self.add_usage(result.tokens, result.cost_usd, result.cost_usd is not None)
        self.state.minor_findings.extend(f for f in result.findings if f not in result.blocking)
        if result.error or not result.blocking:
            self.state.review_done = True
            if result.error:
                self.state.notes.append(f"review skipped: {result.error}")
            self.save()
            return False
        self.state.review_rounds += 1
        self.state.pending_findings = result.blocking
        self.state.attempts.append(Attempt(number=last.number + 1, phase=Phase.REVIEW))
        self.save()
        return True

    def wants_thread_round(self) -> bool:
        """After green (and review): one attempt at the open review threads, if any."""
        if not self.threads or self.state.threads_done:
            return False
        self.state.threads_done = True
        if self.agents.fixer is None or not self.agents.threads:
            self.state.notes.append(
                f"{len(self.threads)} open review threads were not addressed: no model is set"
            )
            self.save()
            return False
        last = self.state.attempts[-1]
        self.state.attempts.append(Attempt(number=last.number + 1, phase=Phase.THREADS))
        self.save()
        return True

    def undo_fix(self, attempt: Attempt) -> Outcome:
        """A review or threads fix broke the check: restore the last green tree, finish green.

        What was verified stays; what the fix was for is reported as not done.
        """
        green = next(a for a in reversed(self.state.attempts) if a.passed and not a.undone)
        if green.snapshot_sha:
            git.restore_worktree(self.repo, green.snapshot_sha)
        else:  # the initial check passed: its tree is the start commit
            git.restore_worktree(self.repo, self.state.start_sha)
        attempt.undone = True
        what = "review findings" if attempt.phase is Phase.REVIEW else "review threads"
        self.state.notes.append(
            f"attempt {attempt.number} (a fix for {what}) made the check fail; "
            f"it was undone and the verified tree of attempt {green.number} kept"
        )
        self.state.minor_findings.extend(self.state.pending_findings)
        self.state.pending_findings = []
        self.state.review_done = True
        self.save()
        return self.succeed()

    # -- ending ------------------------------------------------------------------------------

    def usage(self) -> breaker.Usage:
        """What the run has spent so far."""
        return breaker.Usage(
            fix_attempts=sum(1 for a in self.state.attempts if a.phase is Phase.FIX),
            tokens=self.state.tokens,
            cost_usd=self.state.cost_usd if self.state.cost_known else None,
            elapsed_s=self.state.elapsed_s + (time.monotonic() - self.clock),
            diff_lines=self.diff_lines(),
        )

    def diff_lines(self) -> int:
        """Diff size since the start, from the last attempt's snapshot when there is one."""
        if not self.state.fix_attempts:
            return 0
        snapshot = self.state.attempts[-1].snapshot_sha
        return git.diff_lines(self.repo, self.state.start_sha, snapshot)

    def limits(self) -> breaker.Limits:
        """The budget from the settings."""
        return breaker.Limits.from_settings(self.settings)

    def succeed(self) -> Outcome:
        """The check is green: passed (nothing kept changed) or fixed."""
        kept = [a for a in self.state.fix_attempts if a.files_changed and not a.undone]
        if not kept:
            return self.finish(OutcomeKind.PASSED, "the check passes; nothing was changed")
        n = len(self.state.fix_attempts)
        return self.finish(
            OutcomeKind.FIXED, f"the check passes after {n} fix attempt{'s' * (n != 1)}"
        )

    def escalate(self, reason: str) -> Outcome:
        """The breaker is OPEN: keep the best attempt, ask for an analysis, write the report."""
        self.state.breaker = BreakerState.OPEN
        self.state.breaker_reason = reason
        self.state.best_snapshot = best_snapshot(self.state.attempts)
        analyst = self.agents.analyst
        spent = breaker.model_budget_spent(self.usage(), self.limits())
        if analyst is not None and self.state.analysis is None and not spent:
            self.progress.phase(
                self.state.attempts[-1].number, self.settings.max_attempts, "escalation analysis"
            )
            result = analyst.analyze(self.context(self.state.attempts[-1], reason=reason))
            self.add_usage(result.tokens, result.cost_usd, result.cost_known)
            self.state.analysis = self.redactor.redact(result.summary) if not result.error else None
        return self.finish(OutcomeKind.ESCALATED, reason)

    def finish(self, kind: OutcomeKind, reason: str) -> Outcome:
        """Record the outcome, write the report, save."""
        commits = [a.commit_sha for a in self.state.attempts if a.commit_sha]
        report = self.state_dir / "report.md"
        outcome = Outcome(
            outcome=kind,
            reason=reason,
            attempts=len(self.state.fix_attempts),
            commit_sha=commits[-1] if commits else None,
            report_path=str(report),
            cost_usd=round(self.state.cost_usd, 6) if self.state.cost_known else None,
        )
        self.state.outcome = outcome
        write_report(report, self.state, self.settings, self.redactor)
        self.save()
        return outcome


def best_snapshot(attempts: list[Attempt]) -> str | None:
    """The snapshot of the attempt with the fewest failures (latest on ties), or None.

    Only attempts that changed files and whose failure counts are known compete; an attempt
    whose counts are unknown is kept only when nothing else qualifies.
    """
    tried = [a for a in attempts if a.number > 0 and a.snapshot_sha and a.done]
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


def prepare_state(settings: Settings, repo: Path) -> RunState:
    """Resume an unfinished run with the same settings, or start a new one.

    Raises `ConfigError` when the working tree is dirty on a fresh start (unless
    `allow_dirty`), or the state file is unreadable or from a newer fixbot.
    """
    state_dir = repo / settings.state_dir
    git.exclude_path(repo, f"/{settings.state_dir.strip('/')}/")
    previous = load_state(state_dir) if settings.resume else None
    head = git.head_sha(repo)
    if (
        previous is not None
        and previous.outcome is None
        and previous.settings_digest == settings.digest()
    ):
        return previous
    unfinished = previous is not None and previous.outcome is None
    dirty = git.status_lines(repo)
    if dirty and not settings.allow_dirty:
        shown = "\n    ".join(dirty[:10])
        why = (
            "  (an unfinished run with other settings left them: rerun it with the same "
            "settings to resume it)\n"
            if unfinished
            else ""
        )
        raise ConfigError(
            [
                "the working tree has uncommitted changes:\n    "
                + shown
                + "\n"
                + why
                + "  commit them (git commit -am ...), stash them (git stash -u), "
                "or pass --allow-dirty to let fixbot work on top of them"
            ]
        )
    notes = ["an unfinished run with other settings was discarded"] if unfinished else []
    return RunState(
        settings_digest=settings.digest(),
        check=settings.check,
        start_sha=head,
        notes=notes,
        branch=git.current_branch(repo),
    )


def run(
    settings: Settings,
    repo: Path,
    *,
    env: Mapping[str, str],
    progress: Progress | None = None,
    hint: str | None = None,
    agents: Agents | None = None,
    sleep: Callable[[float], None] = time.sleep,
    threads: Sequence[ReviewThread] = (),
) -> tuple[Outcome, RunState]:
    """Run fixbot's loop in the git repository `repo` and return (outcome, final state).

    `repo` may be a folder inside the work tree (a monorepo's package): the check and the fix
    commands run there, while git, the state folder and the model's file access use the root.
    `threads` are open pull request review threads (untrusted text): once the check is green, one
    attempt addresses them; the ids the fixer claimed are in that attempt's `resolved_thread_ids`.

    Raises `ConfigError` for bad configuration (listing every problem) and `Cancelled` when
    SIGTERM arrives (the check's process group is killed and the state saved first).
    """
    top = git.toplevel(repo)
    if top is None:
        raise ConfigError(
            [f"{repo} is not inside a git repository: run fixbot in a clone (or git init)"]
        )
    root = top.resolve()
    state = prepare_state(settings, root)
    workdir = repo.resolve()
    identity, who_note = sandbox.choose(settings.run_as, os.geteuid())
    with sandbox.confine(root, identity, settings.state_dir) as who:
        redactor = Redactor.from_env(env)
        launcher = Launcher(
            root,
            check_environment(env),
            who,
            redactor.redact,
            settings.max_log_bytes,
            sandbox.private_names(settings.state_dir),
        )
        agents = agents or build_agents(settings, env, workdir, launcher)
        progress = progress or Progress()
        for note in [*agents.notes, *([who_note] if os.geteuid() == 0 else [])]:
            progress.line(f"note: {note}")
        this = Run(
            settings,
            root,
            state,
            agents,
            progress,
            redactor,
            env=env,
            hint=hint,
            sleep=sleep,
            workdir=workdir,
            threads=threads,
            launcher=launcher,
        )
        return _loop(this, progress)


def _loop(this: Run, progress: Progress) -> tuple[Outcome, RunState]:
    with sigterm_cancels():
        try:
            return this.loop(), this.state
        except Cancelled:
            this.save()
            raise
        finally:
            progress.close()
