"""A failed `workflow_run`'s jobs judged, pure: the step that failed (the check that reproduces
it, `fixbot.github.inferred`) and whether the failure is transient (the runner lost, a set-up
step timing out, or what `fixbot.logs.classify` calls transient), which `fixbot.github.cifail`
answers with one re-run instead of a fix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fixbot.core.failure import Classification, ErrorClass
from fixbot.github.api.runs import Job
from fixbot.logs.joblog import FirstFailure, classify_first

# Signs in a job log that the runner, not the code, failed (GitHub's own messages).
RUNNER_LOST_RE = re.compile(
    r"runner has received a shutdown signal|lost communication with the server"
    r"|The hosted runner encountered an error|Unable to (?:download|resolve) action",
    re.IGNORECASE,
)
SETUP_STEP_RE = re.compile(r"^(?:Set up job|Set up |Initialize containers|Run actions/)")


@dataclass(frozen=True)
class FailedStep:
    """The step that failed in the triggering run: the job's name and the step's name and
    number as the jobs API shows them (`number` 1 is GitHub's "Set up job")."""

    job: str
    step: str
    number: int


def failed_step(jobs: list[Job]) -> FailedStep | None:
    """The first failed job's first failed step, or None (a lost runner fails no step)."""
    for job in jobs:
        step = job.failed_step if job.failed else None
        if step is not None:
            return FailedStep(job.name, step.name, step.number)
    return None


def transient(first: FirstFailure, jobs: list[Job]) -> Classification | None:
    """The transient classification of a failed run's log, or None when code may be at fault.

    Transient: `fixbot.logs.classify` says so (network, rate limit, server error, ...), the runner
    was lost, or a job timed out in a set-up step.
    """
    if RUNNER_LOST_RE.search(first.text) or any(j.failed and not j.failed_step for j in jobs):
        return Classification(error_class=ErrorClass.TRANSIENT, category="runner", rule="runner")
    for job in jobs:
        step = job.failed_step
        if job.conclusion == "timed_out" and step and SETUP_STEP_RE.match(step.name):
            return Classification(
                error_class=ErrorClass.TRANSIENT, category="timeout", rule="setup_timeout"
            )
    found = classify_first(first)
    return found if found.error_class is ErrorClass.TRANSIENT else None
