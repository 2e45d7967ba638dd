"""The set-up and checks of a run: the set-up command (`Setup`), attempt 0 from a check
(`Check`) or from a failure log (`Seed`), and the one re-check of a run from a log
(`Recheck`). `fixbot.run.executor.Run.execute` calls them; they call `fixbot.run.setup` and
`fixbot.run.verify.Checker`, and verify an attempt through the run (`RunParts.verify`): no
phase imports another."""

from __future__ import annotations

from fixbot.core.failure import ErrorClass
from fixbot.core.models import Attempt, Phase
from fixbot.logs.joblog import FirstFailure
from fixbot.policy.manifests import SetupDue, SetupReason
from fixbot.run import setup
from fixbot.run.phases.base import RunParts


def prepare(run: RunParts, number: int, manifests: tuple[str, ...]) -> None:
    """Run the set-up command before attempt `number`'s check and record it (saved before a
    failure raises `SetupError`)."""
    assert run.settings.setup is not None
    reason = SetupReason.INITIAL if number == 0 else SetupReason.MANIFEST
    due = SetupDue(reason=reason, attempt=number, manifests=list(manifests))
    why = f" ({', '.join(manifests)} changed)" if manifests else ""
    run.progress.phase(number, run.settings.max_attempts, f"set-up{why}")
    ran = setup.prepare(
        setup.SetupCall(
            run.settings.setup,
            due,
            repo=run.repo,
            workdir=run.checker.workdir,
            state_dir=run.state_dir,
            timeout=run.settings.setup_timeout,
            launcher=run.checker.launcher,
        )
    )
    run.state.setups.append(ran)
    run.save()
    run.progress.line(f"  set-up exit {ran.exit_code} ({ran.duration_s:.1f} s)")
    setup.raise_for(ran)


def initial_check(run: RunParts) -> None:
    """Record attempt 0 (saved before the check runs) and run the check."""
    if not run.state.attempts:
        run.state.attempts.append(Attempt(number=0, phase=Phase.CHECK))
        run.save()
    run.verify(run.state.attempts[0], rerun=True)
    warm_model(run)


def warm_model(run: RunParts) -> None:
    """Start importing the model client in the background when attempt 0 failed in a way a
    model may fix (`fixbot.agent.llm.warm_up`): the first model call then waits less. A green
    or unfixable start imports nothing of the agent."""
    first = run.state.attempts[0]
    if run.settings.model and first.passed is False and first.error_class is ErrorClass.FIXABLE:
        from fixbot.agent.llm import warm_up  # the agent only for a run that will call it

        warm_up()


def seed(run: RunParts) -> None:
    """Record attempt 0 from the given failure log (saved first); no check is run."""
    assert run.first is not None
    if not run.state.attempts:
        run.state.attempts.append(Attempt(number=0, phase=Phase.CHECK))
        run.save()
    run.progress.phase(0, run.settings.max_attempts, f"the log of {run.first.source}")
    run.checker.seed(run.state.attempts[0], run.first)
    run.state.attempts[0].done = True
    warm_model(run)
    run.state.notes.append(seeded_note(run.first))


def recheck(run: RunParts, attempt: Attempt) -> None:
    """Run the check once on the tree as it is before a run from a failure log gives up:
    its result replaces the one carried from the log (`rules.recheck`)."""
    run.state.rechecked = True
    run.state.notes.append(
        "the run would have given up on the given log alone: the check was run once on "
        f"the tree as it is (attempt {attempt.number})"
    )
    run.save()
    run.verify(attempt, rerun=True)


def seeded_note(first: FirstFailure) -> str:
    """The report's line about a run that started from a failure log instead of a check."""
    return (
        f"the first failing run is the log of {first.source}: no initial check was run "
        "(one full check saved); every fix was verified by the check command"
    )
