"""The executor of the loop: `Run` runs the step `fixbot.policy.rules.next_step` chooses, records
the result in the state and saves it, until the run is done.

The decisions are pure (`fixbot.policy.rules`, `fixbot.policy.breaker`, `fixbot.logs.classify`);
this class wires them to the phases of a run (`fixbot.run.phases`: `checks` sets up and checks,
`fixing` fixes, verifies, diagnoses and reviews, `ending` escalates and records the outcome),
which call the adapters (`fixbot.run.verify` runs the check, the fixers, `fixbot.process.git`,
`fixbot.run.outcome`). `fixbot.run.engine.run` builds a `Run` and drives it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from fixbot.core.errors import SetupError
from fixbot.core.models import Attempt, FixContext, Outcome, OutcomeKind, Phase
from fixbot.core.settings import Settings
from fixbot.logs.joblog import FirstFailure, same_commit
from fixbot.policy import breaker, rules
from fixbot.policy.state import RunState
from fixbot.run import outcome
from fixbot.run.agents import Agents
from fixbot.run.phases import checks, ending, fixing
from fixbot.run.request import RunRequest
from fixbot.run.store import save_state
from fixbot.run.verify import Checker
from fixbot.ui.progress import Progress, attempt_label


def from_this_commit(first: FirstFailure | None, state: RunState) -> FirstFailure | None:
    """`first`, the failure log given from elsewhere, when it names the commit the run starts
    from; else None, and the state's notes say why the check runs first: a log of another
    commit (or of none it names) may be older than the code, and a tree already green must
    not be "fixed" on its word."""
    if first is None or same_commit(first.commit, state.start_sha):
        return first
    which = f"commit {first.commit[:12]}" if first.commit else "no commit it names"
    note = (
        f"the log of {first.source} is from {which}, not {state.start_sha[:12]}: "
        "the check was run first"
    )
    if note not in state.notes:
        state.notes.append(note)
    return None


class Run:
    """One run of the loop over a repository: the state, and the I/O each step needs (the
    `fixbot.run.phases.base.RunParts` the phase functions take)."""

    def __init__(
        self,
        settings: Settings,
        repo: Path,
        state: RunState,
        agents: Agents,
        progress: Progress,
        checker: Checker,
        request: RunRequest,
    ) -> None:
        self.settings, self.repo, self.state, self.request = settings, repo, state, request
        self.first = from_this_commit(request.first_failure, state)  # attempt 0, no check
        self.agents, self.progress, self.checker = agents, progress, checker
        self.redactor = checker.redactor
        self.state_dir = repo / settings.state_dir
        self.events = checker.events  # the one event log, built with the checker
        self.deadline = checker.launcher.deadline  # the run's one clock, resumes counted
        self.groups = ExitStack()  # the open `progress.group` of the attempt being worked on
        self.group_title: str | None = None
        self.means = rules.Observation(
            limits=breaker.Limits.from_settings(settings),
            max_review_rounds=settings.max_review_rounds,
            fixer=agents.fixer is not None,
            reviewer=agents.reviewer is not None,
            analyst=agents.analyst is not None,
            diagnoser=agents.diagnoser is not None,
            threads=len(request.threads),
            threads_fixer=agents.threads,
            setup=bool(settings.setup),
            seeded=self.first is not None,
            allow_test_edits=settings.allow_test_edits,
        )

    def save(self) -> None:
        """Account elapsed time and write the state atomically."""
        self.state.elapsed_s = self.deadline.elapsed()
        save_state(self.state_dir, self.state)

    def observe(self) -> rules.Observation:
        """The run's means and the wall time spent so far (seconds, across resumed processes)."""
        return dataclasses.replace(self.means, elapsed_s=self.deadline.elapsed())

    def drive(self) -> Outcome:
        """Execute steps until `next_step` says Done; save the state after each."""
        with self.groups:
            while not isinstance(step := rules.next_step(self.state, self.observe()), rules.Done):
                try:
                    self.execute(step)
                except SetupError as exc:  # not a code failure: no fixer runs, nothing is kept
                    ending.finish(self, OutcomeKind.ERROR, str(exc))
                self.save()
        assert self.state.outcome is not None
        return self.state.outcome

    def execute(self, step: rules.Step) -> None:
        """Run one step (see `fixbot.policy.rules` for what each one means; `STEPS` for what
        runs it)."""
        self.group(step)
        pair = self.checker.launcher.pair
        if pair is not None and not isinstance(step, UNWRITTEN_STEPS):
            pair.write_files()  # every other step reads or writes fixbot's clone's files
        STEPS[type(step)](self, step)

    def restore(self, step: rules.Restore) -> None:
        """Put attempt `step.number`'s tree back to the one of attempt `step.to` (diverging)."""
        note = outcome.restore(self.repo, self.state, self.state.attempts[-1], step.to)
        self.progress.line(f"  diverging: {note}")
        self.events.emit("divergence", step.number, restored_to=step.to)

    def undo(self, step: rules.Undo) -> None:
        """Revert the last attempt's fix (it broke the check)."""
        outcome.undo(self.repo, self.state, self.state.attempts[-1])
        self.events.emit("undo", step.number)

    def succeed(self, step: rules.Succeed) -> None:
        """End the run with `step.outcome`, its note kept in the state."""
        self.state.notes.extend([step.note] if step.note else [])
        ending.finish(self, step.outcome, step.reason)

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

    def verify(self, attempt: Attempt, rerun: bool) -> None:
        """Run the check for `attempt` and record the verdict (`fixbot.run.phases.fixing.verify`;
        the set-up and checks phase calls it through the run)."""
        fixing.verify(self, attempt, rerun)

    def context(self, attempt: Attempt, **extra: Any) -> FixContext:
        """What an agent is told about `attempt` (`fixbot.run.phases.fixing.context`; the
        ending asks for it through the run)."""
        return fixing.context(self, attempt, **extra)

    def report_error(self, reason: str) -> None:
        """Write the report of a run stopped mid-way by an error; the state records no outcome
        (`fixbot.run.phases.ending.report_error`; `fixbot.run.engine` calls it)."""
        ending.report_error(self, reason)


# The steps a green run takes, which need no file of fixbot's clone written (`Worlds`
# compares the workspace with its index; a failed check's digest writes them): any other
# step writes them first (`Worlds.write_files`)
UNWRITTEN_STEPS = (rules.Setup, rules.Check, rules.Succeed)

# What runs each kind of step (`Run.execute`), one line per kind; `Done` ends the loop instead.
STEPS: dict[type, Callable[[Run, Any], None]] = {
    rules.Setup: lambda run, step: checks.prepare(run, step.number, step.manifests),
    rules.Seed: lambda run, _: checks.seed(run),
    rules.Check: lambda run, _: checks.initial_check(run),
    rules.Recheck: lambda run, _: checks.recheck(run, run.state.attempts[-1]),
    rules.Fix: lambda run, step: fixing.fix(run, step.number, step.phase),
    rules.Verify: lambda run, step: fixing.verify(run, run.state.attempts[-1], step.rerun),
    rules.Diagnose: lambda run, _: fixing.diagnose(run, run.state.attempts[-1]),
    rules.Restore: Run.restore,
    rules.Review: lambda run, step: fixing.review(run, step.after),
    rules.Undo: Run.undo,
    rules.Succeed: Run.succeed,
    rules.Escalate: lambda run, step: ending.escalate(run, step.reason, step.analyze),
}
