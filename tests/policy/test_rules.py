"""The loop's transitions as a table: one row per transition of `fixbot.policy.rules.next_step`
(pure)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from fixbot.core.diagnosis import Diagnosis
from fixbot.core.failure import Counts, ErrorClass
from fixbot.core.models import Attempt, Finding, Outcome, OutcomeKind, Phase, ReviewRound, Severity
from fixbot.policy.breaker import Limits
from fixbot.policy.divergence import REASON as DIVERGING
from fixbot.policy.manifests import SetupReason, SetupRun
from fixbot.policy.rules import (
    NO_FIXER,
    TABLE,
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
    next_step,
)
from fixbot.policy.state import RunState

SEEN = Observation(limits=Limits(max_attempts=5, threshold=3), fixer=True)
DIAGNOSER = replace(SEEN, diagnoser=True, analyst=True)
WHY = Diagnosis.model_validate(
    {
        "why": ["w"],
        "root_cause": {"category": "code_bug", "description": "d", "confidence": 0.5},
        "next_step": "n",
    }
)
REFUSED = "openai/x refused the request (BadRequestError: content policy); check --model"
BLOCKER = Finding(path="a.py", line=1, severity=Severity.BLOCKER, message="wrong")


def red(number: int, sig: str = "A", phase: Phase | None = None, **kw: Any) -> Attempt:
    """A verified attempt whose check failed with signature `sig`."""
    fields: dict[str, Any] = {"error_class": ErrorClass.FIXABLE, "category": "assertion"}
    return _attempt(number, phase, passed=False, signature=sig, **(fields | kw))


def green(number: int, phase: Phase | None = None, **kw: Any) -> Attempt:
    """A verified attempt whose check passed."""
    return _attempt(number, phase, passed=True, **kw)


def _attempt(number: int, phase: Phase | None, **kw: Any) -> Attempt:
    fix: dict[str, Any] = {"fixer": "scripted", "files_changed": ["a.py"]} if number else {}
    phase = phase or (Phase.FIX if number else Phase.CHECK)
    return Attempt(**({"number": number, "phase": phase, "done": True} | fix | kw))


def failing(n: int) -> Counts:
    """Counts of `n` failing tests."""
    return Counts(failed=n)


def state(*attempts: Attempt, **kw: Any) -> RunState:
    """A run's state with these attempts."""
    return RunState(settings_digest="d", check="c", start_sha="s", attempts=list(attempts), **kw)


PASSED = Succeed(OutcomeKind.PASSED, "the check passes; nothing was changed")
FIXED_1 = Succeed(OutcomeKind.FIXED, "the check passes after 1 fix attempt")
FIXED_2 = Succeed(OutcomeKind.FIXED, "the check passes after 2 fix attempts")
THREADS_NOTE = "2 open review threads were not addressed: no model is set"
CLEAN = ReviewRound(after=1)
REVIEWER, THREADS = replace(SEEN, reviewer=True), replace(SEEN, threads=2, threads_fixer=True)

SETUP = replace(SEEN, setup=True)


def ran(number: int, exit_code: int = 0) -> SetupRun:
    """A recorded run of the set-up command before attempt `number`'s check."""
    reason = SetupReason.INITIAL if number == 0 else SetupReason.MANIFEST
    return SetupRun(
        command="make deps",
        reason=reason,
        attempt=number,
        exit_code=exit_code,
        timeout_s=900,
        duration_s=1.0,
        log_path=".fixbot/setup.log",
    )


def fixed_files(number: int, *files: str) -> Attempt:
    """Attempt `number` whose fixer reported changing `files`, not verified yet."""
    return Attempt(number=number, fixer="scripted", files_changed=list(files))


# (rule of TABLE that fires, what the row shows, state, observation, the step expected)
# fmt: off
ROWS: list[tuple[str, str, RunState, Observation, Step]] = [
    ("done", "the outcome is recorded",
     state(green(0), outcome=Outcome(outcome=OutcomeKind.PASSED, reason="r")), SEEN, Done()),
    ("setup", "a fresh run with a set-up command", state(), SETUP, Setup(0)),
    ("setup", "before a given failure log: the fixes are verified after the set-up",
     state(), replace(SETUP, seeded=True), Setup(0)),
    ("setup", "a resumed run whose set-up failed before its outcome was saved",
     state(setups=[ran(0, exit_code=1)]), SETUP, Setup(0)),
    ("setup", "a fix changed a dependency manifest",
     state(red(0), fixed_files(1, "app.py", "requirements.txt"), setups=[ran(0)]), SETUP,
     Setup(1, ("requirements.txt",))),
    ("seed", "a failure log was given: no initial check", state(), replace(SEEN, seeded=True),
     Seed()),
    ("seed", "a resumed run whose seeding was cut short",
     state(Attempt(number=0, phase=Phase.CHECK)), replace(SEEN, seeded=True), Seed()),
    ("fix_again", "the given failure log is the first failing run",
     state(red(0)), replace(SEEN, seeded=True), Fix(1, Phase.FIX)),
    ("recheck", "a permanent error in a given log: run the check before giving up",
     state(red(0, error_class=ErrorClass.PERMANENT)), replace(SEEN, seeded=True), Recheck(0)),
    ("recheck", "two empty attempts on a given log: the check never ran",
     state(red(0), red(1, files_changed=[]), red(2, files_changed=[])),
     replace(SEEN, seeded=True), Recheck(2)),
    ("succeed", "a given log older than the code: two empty attempts, the re-check is green",
     state(red(0), red(1, files_changed=[]), green(2, files_changed=[]), rechecked=True),
     replace(SEEN, seeded=True), PASSED),
    ("succeed", "the same with a model set: no empty diff to review, no diagnosis, passed",
     state(red(0), red(1, files_changed=[]), green(2, files_changed=[]), rechecked=True),
     replace(DIAGNOSER, seeded=True, reviewer=True), PASSED),
    ("succeed", "a permanent error in a given log, the re-check is green",
     state(green(0, error_class=ErrorClass.PERMANENT), rechecked=True),
     replace(SEEN, seeded=True), PASSED),
    ("breaker_open", "a given log, rechecked once: give up",
     state(red(0, error_class=ErrorClass.PERMANENT), rechecked=True), replace(SEEN, seeded=True),
     Escalate("permanent error (assertion): no code change can fix it")),
    ("check", "a fresh run", state(), SEEN, Check()),
    ("check", "the set-up ran (a resumed run does not repeat it)",
     state(setups=[ran(0)]), SETUP, Check()),
    ("verify", "a fix that changed only code: no second set-up",
     state(red(0), fixed_files(1, "app.py"), setups=[ran(0)]), SETUP, Verify(1)),
    ("verify", "a manifest fix after its set-up",
     state(red(0), fixed_files(1, "go.mod"), setups=[ran(0), ran(1)]), SETUP, Verify(1)),
    ("check", "a resumed run whose initial check was cut short",
     state(Attempt(number=0, phase=Phase.CHECK)), SEEN, Check()),
    ("fix", "a resumed run whose fixer had not reported",
     state(red(0), Attempt(number=1)), SEEN, Fix(1, Phase.FIX)),
    ("fix", "a resumed review attempt",
     state(red(0), green(1), Attempt(number=2, phase=Phase.REVIEW)), SEEN, Fix(2, Phase.REVIEW)),
    ("verify", "the fixer changed files",
     state(red(0), _attempt(1, None, done=False)), SEEN, Verify(1, rerun=True)),
    ("verify", "the fixer changed nothing: the previous result stands",
     state(red(0), _attempt(1, None, done=False, files_changed=[])), SEEN, Verify(1, rerun=False)),
    ("verify", "the fixer failed: the previous result stands",
     state(red(0), _attempt(1, None, done=False, fix_error="auth")), SEEN, Verify(1, rerun=False)),
    ("undo", "a review fix broke the check",
     state(red(0), green(1), red(2, phase=Phase.REVIEW)), SEEN, Undo(2)),
    ("undo", "a threads fix broke the check",
     state(green(0), red(1, phase=Phase.THREADS)), SEEN, Undo(1)),
    ("unverified", "a green fix that passed by a suspected cheat",
     state(red(0), green(1, cheats=["config-changed in .pytest.ini: x"])), SEEN,
     Escalate("the check passed, but by a suspected cheat: config-changed in .pytest.ini: x")),
    ("unverified", "a green fix whose tree changed after the check saw it",
     state(red(0), green(1, drift=["a.py"])), SEEN,
     Escalate("the tree changed after the verifying check saw it (a.py); nothing committed")),
    ("unverified", "green by its exit code, not as the observer saw it, test edits allowed",
     state(red(0), green(1, observed=["observer-failed: x"])), replace(SEEN, allow_test_edits=True),
     Escalate("the check passed, but not as fixbot's observer saw it: observer-failed: x")),
    ("succeed", "a suspected cheat, but the workflow allows test edits",
     state(red(0), green(1, cheats=["test-skipped in t.py: x"])),
     replace(SEEN, allow_test_edits=True),
     Succeed(OutcomeKind.FIXED, "the check passes after 1 fix attempt")),
    ("breaker_open", "the same failure threshold times",
     state(red(0), red(1), red(2)), SEEN,
     Escalate("the same failure occurred 3 times in a row")),
    ("breaker_open", "a permanent error at the initial check",
     state(red(0, error_class=ErrorClass.PERMANENT, category="auth")), SEEN,
     Escalate("permanent error (auth): no code change can fix it")),
    ("breaker_open", "every fix attempt used",
     state(red(0, "A"), red(1, "B"), red(2, "C")), replace(SEEN, limits=Limits(max_attempts=2,
     threshold=3)), Escalate("all 2 fix attempts were used")),
    ("breaker_open", "the time budget, from the observed wall time",
     state(red(0)), replace(SEEN, elapsed_s=61, limits=Limits(max_attempts=5, threshold=3,
     max_duration_s=60)), Escalate("time budget spent (61 s of 60 s)")),
    ("breaker_open", "the diff of the last attempt grew too large",
     state(red(0, "A"), red(1, "B", diff_lines=11)), replace(SEEN, limits=Limits(max_attempts=5,
     threshold=3, max_diff_lines=10)), Escalate("the diff grew to 11 lines (limit 10): a fix "
     "that rewrites this much is not a fix")),
    ("breaker_open", "an analyst is asked while the model budget lasts",
     state(red(0), red(1), red(2)), replace(SEEN, analyst=True),
     Escalate("the same failure occurred 3 times in a row", analyze=True)),
    ("breaker_open", "no analysis once the token budget is spent",
     state(red(0, "A"), red(1, "B"), tokens=100), replace(SEEN, analyst=True, limits=Limits(
     max_attempts=5, threshold=3, max_tokens=100)),
     Escalate("token budget spent (100 of 100 tokens)")),
    ("breaker_open", "a permanent error gets the recovery plan, no analysis",
     state(red(0, error_class=ErrorClass.PERMANENT, category="command_not_found")), DIAGNOSER,
     Escalate("permanent error (command_not_found): no code change can fix it")),
    ("breaker_open", "a diagnosis of the same failure stands in for the analysis",
     state(red(0), red(1, diagnosis=WHY), red(2)), DIAGNOSER,
     Escalate("the same failure occurred 3 times in a row")),
    ("breaker_open", "no analysis by the model that just refused the request",
     state(red(0, "A"), red(1, "B", fix_error=REFUSED, files_changed=[])),
     replace(SEEN, analyst=True), Escalate(f"the fixer failed: {REFUSED}")),
    ("diverging", "two attempts in a row worse than the best: restore it",
     state(red(0, "A", counts=failing(1)), red(1, "B", counts=failing(3)),
           red(2, "C", counts=failing(64))), SEEN, Restore(2, to=0)),
    ("diverging", "the best is an attempt, not the start",
     state(red(0, "A", counts=failing(5)), red(1, "B", counts=failing(2)),
           red(2, "C", counts=failing(4)), red(3, "D", counts=failing(6))), SEEN, Restore(3, to=1)),
    ("diverging", "a second divergence after a restore",
     state(red(0, "A", counts=failing(1)), red(1, "B", counts=failing(3)),
           red(2, "C", counts=failing(64), restored_to=0), red(3, "D", counts=failing(103)),
           red(4, "E", counts=failing(115))), SEEN, Escalate(DIVERGING)),
    ("diagnose", "a fix attempt failed and a model is set",
     state(red(0, "A"), red(1, "B")), DIAGNOSER, Diagnose(1)),
    ("diagnose", "a repeated failure is diagnosed too (the earlier diagnosis stands, no call)",
     state(red(0, "A"), red(1, "B", diagnosis=WHY), red(2, "B")), DIAGNOSER, Diagnose(2)),
    ("no_fixer", "the check fails and nothing can fix it",
     state(red(0)), replace(SEEN, fixer=False), Escalate(NO_FIXER)),
    ("fix_again", "the initial check fails", state(red(0)), SEEN, Fix(1, Phase.FIX)),
    ("fix_again", "a fix attempt made progress", state(red(0, "A"), red(1, "B")), SEEN,
     Fix(2, Phase.FIX)),
    ("fix_again", "the initial check is not diagnosed", state(red(0)), DIAGNOSER,
     Fix(1, Phase.FIX)),
    ("fix_again", "the attempt is diagnosed", state(red(0, "A"), red(1, "B", diagnosis=WHY)),
     DIAGNOSER, Fix(2, Phase.FIX)),
    ("fix_again", "the diagnosis failed and was noted",
     state(red(0, "A"), red(1, "B", diagnosis_problem="malformed")), DIAGNOSER,
     Fix(2, Phase.FIX)),
    ("fix_again", "one attempt since the restore: no divergence yet",
     state(red(0, "A", counts=failing(1)), red(1, "B", counts=failing(3)),
           red(2, "C", counts=failing(64), restored_to=0), red(3, "D", counts=failing(103))),
     SEEN, Fix(4, Phase.FIX)),
    ("fix_again", "a diverged attempt is not diagnosed",
     state(red(0, "A", counts=failing(1)), red(1, "B", counts=failing(3)),
           red(2, "C", counts=failing(64), restored_to=0)), DIAGNOSER, Fix(3, Phase.FIX)),
    ("review_fix", "the review found a blocker",
     state(red(0), green(1), reviews=[ReviewRound(after=1, blocking=[BLOCKER])]), REVIEWER,
     Fix(2, Phase.REVIEW)),
    ("review", "green after a fix", state(red(0), green(1)), REVIEWER, Review(after=1)),
    ("review", "green after a review fix, rounds left",
     state(red(0), green(1), green(2, Phase.REVIEW),
           reviews=[ReviewRound(after=1, blocking=[BLOCKER])]), REVIEWER, Review(after=2)),
    ("review", "a threads fix when no review ran before",
     state(green(0), green(1, Phase.THREADS)), REVIEWER, Review(after=1)),
    ("threads", "green, open threads, a model",
     state(green(0)), THREADS, Fix(1, Phase.THREADS)),
    ("threads", "after a clean review",
     state(red(0), green(1), reviews=[CLEAN]), replace(THREADS, reviewer=True),
     Fix(2, Phase.THREADS)),
    ("threads_unaddressed", "open threads but no model",
     state(green(0)), replace(SEEN, threads=2, fixer=False), replace(PASSED, note=THREADS_NOTE)),
    ("succeed", "already green", state(green(0)), SEEN, PASSED),
    ("succeed", "green after a fix, no reviewer", state(red(0), green(1)), SEEN, FIXED_1),
    ("succeed", "a clean review ended the review phase",
     state(red(0), green(1), reviews=[CLEAN]), REVIEWER, FIXED_1),
    ("succeed", "a failed review ended the review phase",
     state(red(0), green(1), reviews=[ReviewRound(after=1, error="timeout")]), REVIEWER, FIXED_1),
    ("succeed", "every review round used",
     state(red(0), green(1), green(2, Phase.REVIEW),
           reviews=[ReviewRound(after=1, blocking=[BLOCKER])]),
     replace(REVIEWER, max_review_rounds=1), FIXED_2),
    ("succeed", "the threads had their attempt",
     state(green(0), green(1, Phase.THREADS)), THREADS, FIXED_1),
    ("succeed", "a broken review fix was undone: the verified fix stands",
     state(red(0), green(1), red(2, phase=Phase.REVIEW, undone=True)), REVIEWER, FIXED_2),
    ("succeed", "a broken threads fix was undone: nothing kept",
     state(green(0), red(1, phase=Phase.THREADS, undone=True)), THREADS, PASSED),
]
# fmt: on


@pytest.mark.parametrize(
    ("rule", "what", "run", "seen", "expected"), ROWS, ids=[f"{r[0]}: {r[1]}" for r in ROWS]
)
def test_transition(rule: str, what: str, run: RunState, seen: Observation, expected: Step) -> None:
    before = run.model_dump()
    assert next_step(run, seen) == expected
    fired = next(name for name, fn in TABLE if fn(run, seen) is not None)
    assert fired == rule
    assert run.model_dump() == before  # pure: the state is not touched


def test_every_row_of_the_table_has_a_transition_test() -> None:
    assert {name for name, _ in TABLE} == {row[0] for row in ROWS}


def test_the_same_real_failure_with_new_object_ids_opens_the_breaker() -> None:
    """Three checks of packaging's Tag comparison, each printing other decimal ids
    (`<py3-none-any @ 139875647075712>`, tests/data/logs/reruns/): one failure, three times."""
    from fixbot.logs.condense import condense_text
    from fixbot.logs.signature import failure_signature
    from tests.fakes.paths import DATA

    runs = [(DATA / "logs" / "reruns" / f"packaging-tags-{n}.log").read_text() for n in (1, 2, 1)]
    sigs = [failure_signature(condense_text(text)) for text in runs]
    seen = state(*(red(n, sig) for n, sig in enumerate(sigs)))
    assert next_step(seen, SEEN) == Escalate("the same failure occurred 3 times in a row")
