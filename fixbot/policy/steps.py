"""The steps of a run and what the executor observes: the data `fixbot.policy.rules.next_step`
returns and reads (see `fixbot.policy.rules` for what each step means and when it comes).
"""

from __future__ import annotations

from dataclasses import dataclass

from fixbot.core.models import OutcomeKind, Phase
from fixbot.policy import breaker


@dataclass(frozen=True)
class Setup:
    """Run the set-up command before the check of attempt `number` (0: the initial check);
    `manifests` are the dependency manifests attempt `number`'s fix changed (see
    `fixbot.run.setup`). A failed set-up ends the run with the outcome `error`."""

    number: int
    manifests: tuple[str, ...] = ()


@dataclass(frozen=True)
class Check:
    """Run the check on the tree as it is: the initial check, attempt 0 (recorded if missing)."""


@dataclass(frozen=True)
class Recheck:
    """A run from a failure log would give up without the check having run (the log may be
    older than the code): run the check once on the tree as it is, as attempt `number`'s."""

    number: int


@dataclass(frozen=True)
class Seed:
    """Record attempt 0 from the given failure log (`Observation.seeded`) instead of running the
    check: the first failing run comes from elsewhere, and every fix is still verified."""


@dataclass(frozen=True)
class Fix:
    """Start attempt `number` for `phase` (unless recorded) and run the fixer, unless it ran.

    FIX gets the last failure, REVIEW the last review's blocking findings, THREADS the run's open
    review threads.
    """

    number: int
    phase: Phase


@dataclass(frozen=True)
class Verify:
    """Run the check on attempt `number`'s tree (rerun=False: carry the previous result over)."""

    number: int
    rerun: bool = True


@dataclass(frozen=True)
class Diagnose:
    """Diagnose why attempt `number` (a FIX) failed, or let an earlier diagnosis of the same
    failure stand (no model call)."""

    number: int


@dataclass(frozen=True)
class Restore:
    """Attempt `number` diverged: restore the tree of attempt `to` (0: the start), the best."""

    number: int
    to: int


@dataclass(frozen=True)
class Review:
    """Self-review the diff since the start sha of the tree attempt `after` verified."""

    after: int


@dataclass(frozen=True)
class Undo:
    """Attempt `number` (a REVIEW or THREADS fix) broke the check: restore the last green tree."""

    number: int


@dataclass(frozen=True)
class Succeed:
    """Record a green outcome (PASSED or FIXED) with `reason`; `note` goes into the report."""

    outcome: OutcomeKind
    reason: str
    note: str | None = None


@dataclass(frozen=True)
class Escalate:
    """Open the breaker for `reason`, keep the best attempt; `analyze`: ask for an analysis."""

    reason: str
    analyze: bool = False


@dataclass(frozen=True)
class Done:
    """The outcome is recorded: nothing is left to do (publishing is the caller's)."""


Step = (
    Setup
    | Seed
    | Recheck
    | Check
    | Fix
    | Verify
    | Diagnose
    | Restore
    | Review
    | Undo
    | Succeed
    | Escalate
    | Done
)


@dataclass(frozen=True)
class Observation:
    """What the executor knows that the state does not: the run's means and the time spent.

    `elapsed_s` is the run's wall time in seconds (across resumed processes); `fixer`,
    `reviewer`, `analyst`, `diagnoser` say which agents are configured; `threads` counts the open
    review threads given to the run and `threads_fixer` whether the fixer can address them (a
    model); `setup` whether a set-up command is configured;
    `seeded` says a failure log was given as the first failing run (see `Seed`);
    `allow_test_edits` lets a fix that changed the tests or their configuration be published
    (with the finding stated) instead of escalated (`fixbot.tamper.cheats`).
    """

    limits: breaker.Limits
    elapsed_s: float = 0.0
    max_review_rounds: int = 2
    fixer: bool = True
    reviewer: bool = False
    analyst: bool = False
    diagnoser: bool = False
    threads: int = 0
    threads_fixer: bool = False
    setup: bool = False
    seeded: bool = False
    allow_test_edits: bool = False
