"""The data of a run's attempts and its end: what an agent is told (`FixContext`) and returns
(`FixResult`, `ReviewResult`), an attempt as the state records it (`Attempt`), the review's
findings and threads, and how the run ended (`Outcome`).

What one check said is `fixbot.core.failure`'s. Every decision module (breaker, rules, publish
plan) takes and returns these models; only the adapters at the edges (runner, git, litellm,
GitHub) do I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from fixbot.core.calls import ModelCall
from fixbot.core.diagnosis import Diagnosis
from fixbot.core.failure import Counts, ErrorClass, Failure
from fixbot.core.observed import Observation
from fixbot.core.secrets import DEFAULT_STATE_DIR


class BreakerState(StrEnum):
    """The circuit breaker: CLOSED lets the loop go on, OPEN stops it."""

    CLOSED = "closed"
    OPEN = "open"


class OutcomeKind(StrEnum):
    """How a run ended; see `Outcome.exit_code` for the process exit code of each."""

    PASSED = "passed"
    FIXED = "fixed"
    ESCALATED = "escalated"
    REFUSED = "refused"
    ERROR = "error"


class Phase(StrEnum):
    """What an attempt was for."""

    CHECK = "check"  # the initial check run, no fix
    FIX = "fix"  # fix a failing check
    REVIEW = "review"  # fix blocker/major findings of the self-review
    THREADS = "threads"  # address open pull request review threads


class Severity(StrEnum):
    """Severity of a review finding; blocker and major findings are fixed, minor ones reported."""

    BLOCKER = "blocker"
    MAJOR = "major"
    MINOR = "minor"


class Finding(BaseModel):
    """One self-review finding (the `submit_review` tool's item)."""

    path: str
    line: int | None = None
    severity: Severity
    message: str


class ReviewThread(BaseModel):
    """An unresolved, not outdated pull request review thread (untrusted text)."""

    id: str
    path: str
    line: int | None = None
    author: str
    body: str
    url: str | None = None


class FixContext(BaseModel):
    """Everything a fixer is given for one attempt.

    `attempt` is 1-based; `history` holds every earlier attempt of this run (and of earlier
    runs on the same pull request); `oscillation` is True when the failure returned to an earlier
    signature after a different one; `findings` are set in the review phase, `threads` in the
    review-thread phase.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    repo: Path
    attempt: int
    max_attempts: int
    phase: Phase = Phase.FIX
    failure: Failure | None = None
    history: list[Attempt] = Field(default_factory=list)
    start_sha: str
    desired: str | None = None
    hint: str | None = None
    tried: list[str] = Field(default_factory=list)  # earlier runs' attempts (a retry's memory)
    oscillation: bool = False
    findings: list[Finding] = Field(default_factory=list)
    threads: list[ReviewThread] = Field(default_factory=list)
    tokens_used: int = 0
    cost_used_usd: float = 0.0
    reason: str | None = None  # why the circuit breaker opened (for the escalation analysis)
    diagnosis: Diagnosis | None = None  # why the previous attempt failed (its prompt opens so)
    diverged: str | None = None  # the earlier attempts made the failure worse: the tree restored
    state_dir: str = DEFAULT_STATE_DIR  # fixbot's state folder (repository-relative), never shown


class FixResult(BaseModel):
    """What a fixer did in one attempt.

    `files_changed` are repository-relative POSIX paths; `tokens` counts prompt plus completion
    tokens; `cost_usd` is None when the price is unknown; `refused` lists edits that were refused
    (with the reason given to the model); `error` is set when the fixer hit a permanent error (for
    example a model authentication failure) and the run must escalate. `summary` is the
    fixer's own account (the commit title, and what later attempts and the diagnosis are told
    the attempt did); `notes` are fixbot's remarks on the attempt (an unknown price, a fallback,
    a rebuilt prompt), for the user's report only, never for the model. `problems` has one line
    per fix command that exited non-zero or timed out: its exit code and first output lines
    (`fixbot.run.fixcommand`), so a crashing command does not read as "changed nothing".
    """

    fixer: str
    files_changed: list[str] = Field(default_factory=list)
    summary: str = ""
    notes: list[str] = Field(default_factory=list)
    diagnosis: str | None = None
    tokens: int = 0
    cost_usd: float | None = None
    cost_known: bool = True
    refused: list[str] = Field(default_factory=list)
    error: str | None = None
    resolved_thread_ids: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)  # research: packages read, pages searched
    problems: list[str] = Field(default_factory=list)  # fix commands that failed, one line each
    commands: list[str] = Field(default_factory=list)  # the fix commands that ran
    calls: list[ModelCall] = Field(default_factory=list)  # the model calls, in order

    @property
    def changed(self) -> bool:
        """True when the fixer changed at least one file."""
        return bool(self.files_changed)


# The fields that describe the check run that verified an attempt (see `Attempt.carry_check`).
CHECK_FIELDS = (
    *("exit_code", "timed_out", "passed", "signature", "error_class", "category", "counts"),
    *("excerpt", "log_path", "tests", "seen", "observed"),
)


class Attempt(BaseModel):
    """One row of the run's history.

    Number 0 is the initial check (phase CHECK, no fixer). Number n >= 1 is the n-th fix attempt
    (see `is_fix`, the one definition of "an attempt"): the fixer fields say what was changed,
    the check fields (`CHECK_FIELDS`) describe the check run that verified it. `done` is False
    while the attempt is in progress (a resumed run finishes it). Durations are seconds; `tokens`
    and `cost_usd` are the fixer's model usage (the diagnosis's are in the run's totals);
    `diff_lines` counts the lines added plus deleted since the run's start sha once the attempt
    is verified.

    `hypothesis` is the fixer's own root-cause guess (`finish(diagnosis=...)`); `diagnosis` the
    structured diagnosis made after the attempt's check failed (`fixbot.core.diagnosis`), or
    `diagnosis_problem` why there is none; `restored_to` is set when the attempt diverged and the
    tree of that attempt (0: the start) was restored; `sources` lists the research it used.
    """

    number: int
    phase: Phase = Phase.FIX
    done: bool = False
    fixer: str | None = None
    files_changed: list[str] = Field(default_factory=list)
    summary: str = ""
    hypothesis: str | None = None
    diagnosis: Diagnosis | None = None
    diagnosis_problem: str | None = None
    restored_to: int | None = None
    sources: list[str] = Field(default_factory=list)
    refused: list[str] = Field(default_factory=list)
    tokens: int = 0
    cost_usd: float | None = None
    fix_duration_s: float = 0.0
    fix_error: str | None = None
    fix_problems: list[str] = Field(default_factory=list)  # `FixResult.problems`, redacted
    fix_commands: list[str] = Field(default_factory=list)  # `FixResult.commands`, redacted
    calls: list[ModelCall] = Field(default_factory=list)  # its model calls: fix, then the rest
    exit_code: int | None = None
    timed_out: bool = False
    passed: bool | None = None
    signature: str | None = None
    error_class: ErrorClass | None = None
    category: str | None = None
    counts: Counts = Field(default_factory=Counts)
    check_duration_s: float = 0.0
    transient_retries: int = 0
    log_path: str | None = None
    excerpt: str = (
        ""  # the lines of the condensed failure that explain it, redacted, for the report
    )
    resolved_thread_ids: list[str] = Field(default_factory=list)  # threads the fixer claimed
    undone: bool = False  # reverted: a review/threads fix that broke the check, or fix
    # commands' changes that did not change the failure (`fixbot.run.phases.fixing.verify`)
    snapshot_sha: str | None = None  # a commit object of the working tree after the fix
    # the working tree before the fixer ran (a git tree sha, `fixbot.process.git.worktree_tree`): a
    # resumed run puts it back before it runs a fixer that a killed process had started
    base_tree: str | None = None
    commit_sha: str | None = None  # set when this attempt's changes were committed
    diff_lines: int = 0
    # a green fix's integrity (`fixbot.run.integrity`): the suspected cheats of the final diff and
    # the check's counts (`fixbot.tamper.cheats`), and the paths that changed after the verifying
    # check saw them (never committed)
    cheats: list[str] = Field(default_factory=list)
    drift: list[str] = Field(default_factory=list)
    # the runner's own per-test report of this check run, `{test id: "passed" | "failed" |
    # "skipped" | "xfailed"}` (pytest's JUnit alone tells "xfailed": `fixbot.logs.dialects.
    # base.junit_outcomes`; `fixbot.logs.dialects.Report`); None: the runner wrote none, the
    # check was judged by its exit code and printed counts only
    tests: dict[str, str] | None = None
    # what fixbot's observer inside pytest streamed during this check run
    # (`fixbot.observe.channel`; None: no channel), and why it does not verify a green one
    # (`fixbot.observe.judge`, and the log's own summary: `fixbot.logs.signature.said_failed`);
    # a green check with one of these is never `fixed`, whatever the settings allow
    seen: Observation | None = None
    observed: list[str] = Field(default_factory=list)
    # the verification against the start commit's tests (`fixbot.run.integrity.pinned`): the
    # test files, configuration and check scripts the fix changed and that were put back for
    # it, and the tests that fail there (expected when the fix changes those tests, or, with
    # `failing_outside`, when its change to the configuration only lets them run on)
    pinned: list[str] = Field(default_factory=list)
    failing_on_original: list[str] = Field(default_factory=list)
    failing_outside: bool = False

    @model_validator(mode="before")
    @classmethod
    def _text_diagnosis_is_the_hypothesis(cls, data: Any) -> Any:
        """A state from before the structured diagnosis kept the fixer's text as `diagnosis`."""
        if isinstance(data, dict) and isinstance(data.get("diagnosis"), str):
            data = {**data, "hypothesis": data.get("hypothesis") or data["diagnosis"]}
            del data["diagnosis"]
        return data

    @property
    def is_fix(self) -> bool:
        """True for a fix attempt: a fixer ran (phase FIX, REVIEW or THREADS), so not the
        initial check. This is what "attempts" means everywhere: the breaker's budget
        (`max_attempts`), the outcome's and the Action's `attempts`, the report and the CLI;
        fix attempts are numbered 1, 2, ... in order, so `number` is also their count so far."""
        return self.phase is not Phase.CHECK

    def record_fix(self, result: FixResult, seconds: float, redact: Callable[[str], str]) -> None:
        """Copy what the fixer did (`seconds` of wall time) into the attempt, text redacted."""
        self.fixer, self.files_changed = result.fixer, result.files_changed
        self.summary = redact(result.summary)
        self.hypothesis = redact(result.diagnosis) if result.diagnosis else None
        self.sources = [redact(source) for source in result.sources]
        self.refused = [redact(r) for r in result.refused]
        self.tokens, self.cost_usd = result.tokens, result.cost_usd
        self.fix_error = redact(result.error) if result.error else None
        self.fix_problems = [redact(problem) for problem in result.problems]
        self.fix_commands = [redact(command) for command in result.commands]
        self.calls = []
        self.add_calls(result.calls, redact)
        self.resolved_thread_ids = list(result.resolved_thread_ids)
        self.fix_duration_s = seconds

    def add_calls(self, calls: list[ModelCall], redact: Callable[[str], str]) -> None:
        """Append `calls` (the fixer's, a diagnosis's, a review's or the analysis's made for
        this attempt) to the attempt's, their `why` redacted."""
        self.calls += [c.model_copy(update={"why": redact(c.why)}) for c in calls]

    def carry_check(self, previous: Attempt) -> None:
        """Take `previous`'s check result (`CHECK_FIELDS`): nothing changed, it still stands."""
        for name in CHECK_FIELDS:
            setattr(self, name, getattr(previous, name))


class ReviewResult(BaseModel):
    """What a self-review returned: findings (empty means clean) and the model usage."""

    findings: list[Finding] = Field(default_factory=list)
    tokens: int = 0
    cost_usd: float | None = None
    error: str | None = None
    calls: list[ModelCall] = Field(default_factory=list)  # the review's model calls

    @property
    def blocking(self) -> list[Finding]:
        """Blocker and major findings: the ones a review round fixes."""
        return [f for f in self.findings if f.severity is not Severity.MINOR]


class ReviewRound(BaseModel):
    """A self-review recorded in the run's state: of the tree verified by attempt `after`.

    `blocking` are the blocker/major findings the next (REVIEW) attempt fixes; `error` is set
    when the review could not be done. A review with no blocking finding or with an error ends
    the review phase.
    """

    after: int
    blocking: list[Finding] = Field(default_factory=list)
    error: str | None = None

    @property
    def final(self) -> bool:
        """True when no review fix follows: the review was clean or failed."""
        return self.error is not None or not self.blocking


class Outcome(BaseModel):
    """How a run ended, with the same names as the Action's outputs (`fixbot run --json`)."""

    outcome: OutcomeKind
    reason: str
    attempts: int = 0
    commit_sha: str | None = None
    pr_url: str | None = None
    report_path: str | None = None
    cost_usd: float | None = None

    @property
    def exit_code(self) -> int:
        """0 for passed/fixed/refused, 1 for escalated, 2 for error."""
        return {OutcomeKind.ESCALATED: 1, OutcomeKind.ERROR: 2}.get(self.outcome, 0)


FixContext.model_rebuild()


class Heartbeat(str):
    """A progress line that only says a wait is still going on (a model call in flight): plain
    output (a pipe, a CI log) shows it; a live terminal status, whose clock ticks, leaves it out."""

    __slots__ = ()
