"""The loop as data: the next step is a pure function of the run's state and an observation.

`next_step(state, observation)` does no I/O. `fixbot.run.engine` executes the step it returns (runs
the check, a fixer, the reviewer, git), records the result in the `RunState`, saves the state and
asks again, until `Done`. Because the position is derived from the saved state alone (the
attempts and the reviews), a run killed at any point resumes where it stopped.

The phases and their steps:

    setup   Setup(n, manifests)   run the set-up command before the check of attempt n (0: the
                                  initial check; n > 0: its fix changed a dependency manifest)
    seed    Seed()                attempt 0 from a failure log given from elsewhere (a failed
                                  CI run's job log, `--from-log`): no check is run
    recheck Recheck(n)            such a run would give up with no check run yet (the log may
                                  be older than the code): run the check once on the tree
    check   Check()               run the check on the tree as it is (attempt 0)
    fix     Fix(n, phase)         a fixer makes attempt n: FIX a failure, REVIEW findings, THREADS
    verify  Verify(n, rerun)      run the check on attempt n's tree (rerun=False: it changed
                                  nothing or the fixer failed, the previous result stands)
    diverge Restore(n, to)        attempts n-1 and n made the failure worse than the best tree:
                                  restore attempt `to`'s tree (a second time: Escalate)
    diagnose Diagnose(n)          one model call: why attempt n failed (`fixbot.core.diagnosis`)
    review  Review(after=n)       self-review the diff of the tree attempt n verified
    threads Fix(n, THREADS)       one attempt at the open pull request review threads
    undo    Undo(n)               a REVIEW/THREADS attempt broke the check: restore the green tree
    unverified Escalate(reason)   a green fix whose tree changed after the check saw it, or that
                                  passed by a suspected cheat (`fixbot.tamper.cheats`; unless
                                  test edits are allowed): never `fixed`
    done    Succeed(kind, reason) / Escalate(reason) record the outcome; then Done()

`TABLE` lists the transitions in order, one row each (name, rule); the first rule that returns a
step wins. tests/policy/test_rules.py has one row per transition.

Adding a phase is one new step type, one row in `TABLE` (a rule: "when the state shows the phase is
due -> its step") and one `case` in `fixbot.run.executor.Run.execute` that runs it and records its
result in the state. Never a flag: the row derives "is it due?" from the recorded results, so a
resumed run neither skips nor repeats it. SETUP was added that way: step `Setup(n)`, row `setup`
right after `done` ("a set-up command is configured and no successful set-up is recorded for the
attempt about to be checked -> Setup(n)"), the runs recorded in `RunState.setups`; a failed set-up
raises `SetupError`, which the engine records as the outcome `error`. Planned next:

- DIAGNOSE (done): `Diagnose(n)` after a failed FIX attempt; its executor stores
  `Attempt.diagnosis` (or `diagnosis_problem`), and `Run.context` hands it to the next fixer.
  Once recorded, the breaker is asked again (the call may have spent the budget).

What the rows read of the state (the last attempt, whether it is verified red or green, the
breaker's counts and usage) and the `Escalate`/`Succeed` steps they build are in
`fixbot.policy.readings`.
"""

from __future__ import annotations

from collections.abc import Callable

from fixbot.core.models import BreakerState, Phase
from fixbot.policy import breaker, divergence, manifests
from fixbot.policy.readings import (
    _failed,
    _green,
    _judged,
    _last,
    _threads_due,
    counts,
    escalation,
    restores,
    success,
    usage,
)
from fixbot.policy.state import RunState
from fixbot.policy.steps import (
    Check,
    Diagnose,
    Done,
    Escalate,
    Fix,
    Observation,
    Recheck,
    Restore,
    Review,
    Seed,
    Setup,
    Step,
    Succeed,
    Undo,
    Verify,
)

__all__ = [
    "NO_FIXER",
    "TABLE",
    "Check",
    "Diagnose",
    "Done",
    "Escalate",
    "Fix",
    "Observation",
    "Recheck",
    "Restore",
    "Review",
    "Rule",
    "Seed",
    "Setup",
    "Step",
    "Succeed",
    "Undo",
    "Verify",
    "breaker_open",
    "check",
    "diagnose",
    "diverging",
    "done",
    "fix",
    "fix_again",
    "next_step",
    "no_fixer",
    "prepare",
    "recheck",
    "review",
    "review_fix",
    "seed",
    "succeed",
    "threads",
    "threads_unaddressed",
    "undo",
    "unverified",
    "verify",
]

NO_FIXER = "no fixer is configured: set --model or add --fix-command"
# the finding of a green go fix whose check, run again as written (vet on), failed
# (`fixbot.run.phases.judging.as_written`): named as it is, not as the observer's
AS_WRITTEN = "check-as-written: "


Rule = Callable[[RunState, Observation], Step | None]


# -- the rows ---------------------------------------------------------------------------------


def done(state: RunState, seen: Observation) -> Step | None:
    """The outcome is recorded -> Done."""
    return Done() if state.outcome is not None else None


def prepare(state: RunState, seen: Observation) -> Step | None:
    """A set-up command is set and has not run for the attempt about to be checked: attempt 0
    before the initial check, or a fix that changed a dependency manifest -> Setup(n)."""
    if not state.attempts or not state.attempts[0].done:
        number, changed = 0, []
    else:
        last = _last(state)
        if last.done or last.fixer is None or last.fix_error is not None:
            return None
        number, changed = last.number, last.files_changed
    due = manifests.setup_due(seen.setup, state.setups, number, changed)
    return Setup(due.attempt, tuple(due.manifests)) if due is not None else None


def seed(state: RunState, seen: Observation) -> Step | None:
    """A failure log was given and attempt 0 is not recorded yet -> Seed (no initial check)."""
    return Seed() if seen.seeded and (not state.attempts or not state.attempts[0].done) else None


def check(state: RunState, seen: Observation) -> Step | None:
    """Nothing checked yet (or the initial check was cut short) -> Check."""
    return Check() if not state.attempts or not state.attempts[0].done else None


def fix(state: RunState, seen: Observation) -> Step | None:
    """A fix attempt is recorded but its fixer has not reported (a resumed run) -> Fix(n)."""
    last = _last(state)
    return Fix(last.number, last.phase) if not last.done and last.fixer is None else None


def verify(state: RunState, seen: Observation) -> Step | None:
    """The fixer reported -> Verify(n); no re-run when it changed nothing or failed."""
    last = _last(state)
    if last.done:
        return None
    return Verify(last.number, rerun=last.fix_error is None and bool(last.files_changed))


def undo(state: RunState, seen: Observation) -> Step | None:
    """A REVIEW or THREADS attempt made the check fail -> Undo(n)."""
    last = _last(state)
    red = last.done and last.passed is False and not last.undone
    return Undo(last.number) if red and last.phase in (Phase.REVIEW, Phase.THREADS) else None


def unverified(state: RunState, seen: Observation) -> Step | None:
    """A green fix whose tree changed after the verifying check saw it, that passed by a
    suspected cheat while test edits are not allowed, or that fixbot's observer inside the
    runner did not see pass, or whose check run again as written failed (`Attempt.observed`,
    whatever is allowed; `AS_WRITTEN`) -> Escalate, naming the evidence."""
    last = _last(state)
    if not _green(state) or not last.is_fix:
        return None
    if last.drift:
        changed = ", ".join(last.drift)
        why = f"the tree changed after the verifying check saw it ({changed}); nothing committed"
        return escalation(state, seen, why)
    reasons = []
    if last.cheats and not seen.allow_test_edits:
        reasons.append("by a suspected cheat: " + "; ".join(last.cheats))
    reasons += _not_seen_green(last.observed)  # never published, whatever is allowed
    if reasons:
        return escalation(state, seen, "the check passed, but " + "; and ".join(reasons))
    return None


def _not_seen_green(observed: list[str]) -> list[str]:
    """The reasons a green fix's `observed` findings give: the observer's, then each of the
    check run again as written (`AS_WRITTEN`), named as they are; none for no finding."""
    seen_by = [f for f in observed if not f.startswith(AS_WRITTEN)]
    said = ["not as fixbot's observer saw it: " + "; ".join(seen_by)] if seen_by else []
    return said + [f for f in observed if f.startswith(AS_WRITTEN)]


def recheck(state: RunState, seen: Observation) -> Step | None:
    """The run started from a failure log, would give up now (breaker open, no fixer), and no
    check has run: the log may be older than the code -> Recheck(n), once."""
    if not seen.seeded or state.rechecked or not _failed(state):
        return None
    if any(a.is_fix and a.files_changed and not a.fix_error for a in state.attempts):
        return None  # the check ran to verify that attempt
    if breaker_open(state, seen) is None and no_fixer(state, seen) is None:
        return None
    return Recheck(_last(state).number)


def breaker_open(state: RunState, seen: Observation) -> Step | None:
    """The check failed and the circuit breaker is OPEN -> Escalate(its reason)."""
    if not _failed(state):
        return None
    before = sum(1 for n in breaker.oscillations(state.attempts) if n < _last(state).number)
    decision = breaker.decide(state.attempts, usage(state, seen), seen.limits, before)
    if decision.state is BreakerState.CLOSED:
        return None
    return escalation(state, seen, decision.reason or "the circuit breaker opened")


def no_fixer(state: RunState, seen: Observation) -> Step | None:
    """The check failed, the breaker is CLOSED, but nothing can fix it -> Escalate."""
    return escalation(state, seen, NO_FIXER) if _failed(state) and not seen.fixer else None


def diverging(state: RunState, seen: Observation) -> Step | None:
    """Two FIX attempts in a row failed worse than the best tree so far -> Restore(n, best);
    when the best tree was restored once already -> Escalate("diverging")."""
    if not _failed(state) or _last(state).phase is not Phase.FIX:
        return None
    found = counts(state)
    done = restores(state)
    since = max((a.number + 1 for a in done), default=0)
    if not divergence.diverged(found, since):
        return None
    if done:
        return escalation(state, seen, divergence.REASON)
    best = divergence.best_index(found)
    return Restore(_last(state).number, _judged(state)[best or 0].number)


def diagnose(state: RunState, seen: Observation) -> Step | None:
    """A FIX attempt failed, a model is set, no diagnosis is recorded for it -> Diagnose(n)."""
    last = _last(state)
    if not _failed(state) or last.phase is not Phase.FIX or not seen.diagnoser:
        return None
    recorded = last.diagnosis is not None or last.diagnosis_problem is not None
    return None if recorded or last.restored_to is not None else Diagnose(last.number)


def fix_again(state: RunState, seen: Observation) -> Step | None:
    """The check failed and the breaker is CLOSED -> Fix(n + 1, FIX)."""
    return Fix(_last(state).number + 1, Phase.FIX) if _failed(state) else None


def review_fix(state: RunState, seen: Observation) -> Step | None:
    """The review of the green tree found blocker/major findings -> Fix(n + 1, REVIEW)."""
    last = _last(state)
    review = state.reviews[-1] if state.reviews else None
    if not _green(state) or review is None or review.after != last.number or review.final:
        return None
    return Fix(last.number + 1, Phase.REVIEW)


def review(state: RunState, seen: Observation) -> Step | None:
    """Green after a fix that changed files, a reviewer is set, no review ended the phase,
    rounds left -> Review. Green after attempts that changed nothing (a failure log older than
    the code, re-checked) has no diff to review: `succeed` says `passed`."""
    kept = any(a.files_changed and not a.undone for a in state.fix_attempts)
    if not _green(state) or not seen.reviewer or not kept:
        return None
    ended = any(r.final for r in state.reviews)
    if ended or state.review_rounds >= seen.max_review_rounds:
        return None
    return Review(after=_last(state).number)


def threads(state: RunState, seen: Observation) -> Step | None:
    """Green, open review threads, none addressed yet, a model is set -> Fix(n + 1, THREADS)."""
    if not _threads_due(state, seen) or not (seen.fixer and seen.threads_fixer):
        return None
    return Fix(_last(state).number + 1, Phase.THREADS)


def threads_unaddressed(state: RunState, seen: Observation) -> Step | None:
    """Green, open review threads, but no model to address them -> Succeed with a note."""
    if not _threads_due(state, seen):
        return None
    return success(state, f"{seen.threads} open review threads were not addressed: no model is set")


def succeed(state: RunState, seen: Observation) -> Step | None:
    """Green (or a broken review/threads fix undone), nothing else due -> Succeed."""
    return success(state)


TABLE: tuple[tuple[str, Rule], ...] = (
    ("done", done),
    ("setup", prepare),
    ("seed", seed),
    ("check", check),
    ("fix", fix),
    ("verify", verify),
    ("undo", undo),
    ("unverified", unverified),
    ("recheck", recheck),
    ("breaker_open", breaker_open),
    ("no_fixer", no_fixer),
    ("diverging", diverging),
    ("diagnose", diagnose),
    ("fix_again", fix_again),
    ("review_fix", review_fix),
    ("review", review),
    ("threads", threads),
    ("threads_unaddressed", threads_unaddressed),
    ("succeed", succeed),
)


def next_step(state: RunState, seen: Observation) -> Step:
    """The step that comes next for `state`: the first row of `TABLE` that matches (pure)."""
    for _, rule in TABLE:
        step = rule(state, seen)
        if step is not None:
            return step
    raise AssertionError("unreachable: the last row always matches")  # pragma: no cover
