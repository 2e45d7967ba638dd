"""Verify an attempt: run the check (transient failures re-run after backoff), digest the
failure, and record the result in the attempt.

The phases, in order: one run of the check (`fixbot.run.checkrun`: the launcher, the observer,
the runner's own report), its failure digested in the run's context (`fixbot.run.checkdigest`),
and here the result recorded in the attempt, the re-runs of a transient failure and the
progress lines. The logs go to `<state dir>/attempts/NNN/check.log` (`check-retryN.log` for
re-runs), bounded and redacted as they are written (`fixbot.process.launcher.Launcher`); the
digested `Failure` of each attempt is kept in memory and re-digested from its log after a
resume.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from tenacity import RetryCallState, Retrying, retry_if_result, stop_after_attempt, stop_any
from tenacity.stop import stop_base

from fixbot.core.failure import CheckResult, ErrorClass, Failure
from fixbot.core.models import Attempt
from fixbot.core.observed import Observation
from fixbot.core.settings import Settings
from fixbot.logs.condense import explaining_lines
from fixbot.logs.digest import passed_counts
from fixbot.logs.joblog import FirstFailure
from fixbot.logs.signature import said_failed
from fixbot.policy import breaker
from fixbot.process.launcher import Launcher
from fixbot.run.checkdigest import digest_check
from fixbot.run.checkrun import CheckRun, run_check
from fixbot.run.eventlog import EventLog
from fixbot.security.redact import Redactor
from fixbot.ui.progress import Progress

EXCERPT_LINES = 25
AS_WRITTEN_LOG = "check-as-written.log"  # `Checker.run_as_written`'s, in the attempt's folder


def is_transient(failure: Failure | None) -> bool:
    """True for a failure the loop re-runs after backoff instead of fixing."""
    return failure is not None and failure.classification.error_class is ErrorClass.TRANSIENT


@dataclass
class Checker:
    """Runs the check for attempts of one run: `repo` is the work tree's root (logs and paths are
    relative to it), `workdir` the folder the check runs in, `env` the check's environment,
    `launcher` the run's (`fixbot.process.launcher.launcher_for`: the one way a project command
    runs, its deadline the run's budget)."""

    settings: Settings
    repo: Path
    workdir: Path
    state_dir: Path
    redactor: Redactor
    progress: Progress
    env: Mapping[str, str]
    events: EventLog  # the run's event log (`fixbot.run.reflect.event_log`)
    launcher: Launcher
    sleep: Callable[[float], None] = time.sleep
    failures: dict[int, Failure] = field(default_factory=dict)
    stdin_path: Path | None = None  # fed to the check's standard input (`inputs-file`)
    # the node ids of the tests that failed at the start, whose bodies and comparisons the
    # observer watches in a verifying run (`fixbot.observe.pytest_plugin`)
    watch: list[str] = field(default_factory=list)

    def run_command(
        self, log: Path
    ) -> tuple[CheckResult, dict[str, str] | None, Observation | None]:
        """Run the check once, its log at `log` (`fixbot.run.checkrun.run_check`): the result,
        the per-test outcomes of the runner's own report (None: it can write none, or wrote
        none) and what fixbot's observer inside pytest streamed (None: unobserved)."""
        where = CheckRun(
            self.settings, self.launcher, self.repo, self.workdir, self.stdin_path, self.watch
        )
        return run_check(where, log)

    def check(self, attempt: Attempt) -> Failure | None:
        """Run the check up to 1 + max_transient_retries times while it fails transiently;
        record the last run in `attempt` and return its Failure (None when green)."""
        tries = itertools.count()
        retrying = Retrying(
            stop=stop_any(
                stop_after_attempt(self.settings.max_transient_retries + 1), _Deadline(self)
            ),
            wait=breaker.backoff_wait(self.settings.backoff),
            retry=retry_if_result(is_transient),
            sleep=self.sleep,
            retry_error_callback=lambda state: state.outcome.result() if state.outcome else None,
        )
        failure: Failure | None = retrying(lambda: self.run_once(attempt, next(tries)))
        self.report(attempt, failure)
        return failure

    def out_of_time(self) -> bool:
        """True once the run's `max-duration` is spent (the launcher's deadline): no re-run."""
        return self.launcher.deadline.spent()

    def run_once(self, attempt: Attempt, retry_index: int) -> Failure | None:
        """Run the check once, store the result in `attempt`, return the Failure (None if green)."""
        name = "check.log" if retry_index == 0 else f"check-retry{retry_index}.log"
        log = self.state_dir / "attempts" / f"{attempt.number:03d}" / name
        result, attempt.tests, attempt.seen = self.run_command(log)
        attempt.observed = []
        attempt.exit_code, attempt.timed_out = result.exit_code, result.timed_out
        attempt.passed = result.passed
        attempt.check_duration_s += result.duration_s
        attempt.transient_retries = retry_index
        attempt.log_path = str(log.relative_to(self.repo))
        self.emit("check", attempt, result, retry_index)
        if result.passed:
            attempt.signature = attempt.error_class = attempt.category = None
            # how many tests the green run ran: fewer than the first failing run is a suspected
            # cheat (`fixbot.tamper.cheats.fewer_tests`); counted over the whole log, as the
            # failing run's are
            attempt.counts = passed_counts(result)
            # the runner's own last words beat the exit code (`said_failed`)
            attempt.observed = said_failed(result.tail)
            self.failures.pop(attempt.number, None)
            return None
        return self.record(attempt, result)

    def run_original(
        self, attempt: Attempt
    ) -> tuple[CheckResult, dict[str, str] | None, Observation | None]:
        """Run the check once more for `attempt`, on whatever tree the caller has set (the start
        commit's tests: `fixbot.run.phases.judging`), its log `check-original.log`; the attempt's
        own result is left as it is."""
        log = self.state_dir / "attempts" / f"{attempt.number:03d}" / "check-original.log"
        return self.run_command(log)

    def run_as_written(self, attempt: Attempt) -> CheckResult:
        """Run the check once more for `attempt` exactly as the project wrote it, through the
        run's launcher: no observer, no report asked, only `-count=1` added after the check's
        own GOFLAGS (no result answered from go's test cache), its log
        `check-as-written.log`; the attempt's own result is left as it is. For a green fix whose
        run fixbot's observer inside go watched: that run turns go test's built-in vet step off
        (`fixbot.observe.golang`), this one leaves it on, as the project's CI runs it."""
        log = self.state_dir / "attempts" / f"{attempt.number:03d}" / AS_WRITTEN_LOG
        flags = f"{self.launcher.env.get('GOFLAGS', '')} -count=1".strip()
        launcher = replace(self.launcher, env={**self.launcher.env, "GOFLAGS": flags})
        s = self.settings
        return launcher.run(s.check, self.workdir, log, s.timeout, self.stdin_path)

    def seed(self, attempt: Attempt, first: FirstFailure) -> Failure:
        """Record `first` (a failure log from elsewhere) as `attempt`'s failed check: its text
        becomes the attempt's `check.log` (redacted) and is digested; nothing is run."""
        log = self.state_dir / "attempts" / f"{attempt.number:03d}" / "check.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(self.redactor.redact(first.text) + "\n", encoding="utf-8")
        code = first.exit_code or 1  # a log given as failed is failed, whatever it says
        attempt.exit_code, attempt.timed_out, attempt.passed = code, False, False
        attempt.log_path = str(log.relative_to(self.repo))
        size = log.stat().st_size
        result = CheckResult(
            command=self.settings.check,
            exit_code=code,
            duration_s=0.0,
            log_path=log,
            output_bytes=size,
        )
        failure = self.record(attempt, result)
        self.report(attempt, failure)
        return failure

    def record(self, attempt: Attempt, result: CheckResult) -> Failure:
        """Digest the failed `result` and record its signature, class and excerpt in `attempt`."""
        failure = self.digest(result)
        self.failures[attempt.number] = failure
        self.emit("classification", attempt, failure)
        attempt.signature = failure.signature
        attempt.error_class = failure.classification.error_class
        attempt.category = failure.classification.category
        attempt.counts = failure.counts
        excerpt = explaining_lines(failure.condensed, EXCERPT_LINES)
        attempt.excerpt = self.redactor.redact(excerpt)
        if failure.classification.error_class is ErrorClass.TRANSIENT:
            category = failure.classification.category
            self.progress.line(f"  transient failure ({category}), will re-run")
        return failure

    def emit(
        self, event: str, attempt: Attempt, what: CheckResult | Failure, retry: int = 0
    ) -> None:
        """Log a check run or a failure's classification in the run's event log."""
        if isinstance(what, CheckResult):
            self.events.emit(
                event,
                attempt.number,
                exit_code=what.exit_code,
                timed_out=what.timed_out,
                duration_ms=round(what.duration_s * 1000),
                output_bytes=what.output_bytes,
                retry=retry,
                log=attempt.log_path,
            )
            return
        c = what.classification
        self.events.emit(
            event,
            attempt.number,
            error_class=c.error_class.value,
            category=c.category,
            rule=c.rule,
            signature=what.signature,
            problems=what.counts.problems,
        )

    def carry_over(self, attempt: Attempt, previous: Attempt) -> None:
        """Nothing changed (or the fixer failed): `previous`'s check result stands, no re-run."""
        attempt.carry_check(previous)
        if previous.number in self.failures:
            self.failures[attempt.number] = self.failures[previous.number]
        self.progress.line("  nothing changed: the previous check result stands (not re-run)")

    def digest(self, result: CheckResult) -> Failure:
        """Digest a failed check in the run's context (`fixbot.run.checkdigest.digest_check`:
        repository-relative locations, a missing program permanent, an installed package the
        code's problem)."""
        return digest_check(self.settings, result, self.repo, self.workdir, self.env, self.launcher)

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

    def report(self, attempt: Attempt, failure: Failure | None) -> None:
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


class _Deadline(stop_base):
    """Tenacity stop: no transient re-run once the run's `max-duration` is spent."""

    def __init__(self, checker: Checker) -> None:
        self.checker = checker

    def __call__(self, retry_state: RetryCallState) -> bool:
        return self.checker.out_of_time()
