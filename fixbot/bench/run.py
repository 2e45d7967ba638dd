"""Put fixbot (and the baselines) on prepared cases, grade the final trees, collect the costs.

Each case runs in a worker process of its own (`run_all`, `--jobs` at a time: the engine takes
SIGTERM in its main thread, and a case's model recording and scripted server stay in its
process). The check first runs on a copy of the prepared tree: a case whose check passes there
has nothing to fix and is graded `never-failed` without running anyone (with
`Options.start_by_engine`, fixbot's runners skip that run: fixbot's own first check decides,
and a run that ends `passed` on a tree whose plain check passes is `never-failed`). Otherwise a
run works in a throwaway copy of the prepared repository, through `fixbot.run.engine.run` (the path
`fixbot run` takes), with the case's budget as the run's own budget settings (attempts, tokens,
USD, seconds). Its final tree is then graded in a second copy:

    fixed               the check failed at the start, passes now, the hidden tests pass, and
                        fixbot's own outcome is `fixed` (a baseline says nothing: its tree decides)
    green-unclaimed     the check and the hidden tests pass but fixbot's outcome is not `fixed`
    verified-but-wrong  the check passes, the hidden tests fail (the fix fits the visible tests)
    escalated           the check still fails (fixbot gave up, the baseline's reply did not fix)
    never-failed        the check passed on the prepared tree: the case proves nothing
    error               the run could not start (configuration, a patch that does not apply)

The runners (`fixbot.bench.runners`): `fixbot`, `oracle`, `deterministic`, `baseline`, and
`localize`, which measures the first request and grades nothing.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from fixbot.bench.results import (
    Budget,
    CaseResult,
    Grade,
    Job,
    Options,
    Runner,
    apply_patch,
    case_env,
    copy_repo,
    run_in,
)
from fixbot.bench.results import result as make_result
from fixbot.bench.runners import RUNNERS
from fixbot.core.secrets import DEFAULT_STATE_DIR

__all__ = ["Budget", "CaseResult", "Grade", "Job", "Options", "Runner", "run_all", "run_case"]


NEVER_FAILED_WHY = "the check passes on the prepared tree: there is nothing to fix"


def default_jobs() -> int:
    """Worker processes by default: half the cores, at least one (each case runs its own
    check processes beside fixbot)."""
    return max(1, (os.cpu_count() or 2) // 2)


def grade(job: Job, tree: Path, work: Path) -> tuple[bool, bool | None, list[str]]:
    """Grade the tree `tree` in a copy under `work`: (check passes, hidden tests pass or None
    without hidden tests, notes)."""
    copy = copy_repo(tree, work / "graded")
    shutil.rmtree(copy / DEFAULT_STATE_DIR, ignore_errors=True)
    env = case_env(job)
    check_ok = run_in(job.check, copy, env, work / "grade-check.log") == 0
    if not job.hidden_command:
        return check_ok, None, []
    if job.hidden_patch.strip() and (problem := apply_patch(copy, job.hidden_patch)):
        return check_ok, False, [f"the hidden tests do not apply: {problem}"]
    hidden_ok = run_in(job.hidden_command, copy, env, work / "grade-hidden.log") == 0
    return check_ok, hidden_ok, []


def verdict(check_ok: bool, hidden_ok: bool | None, outcome: str | None = None) -> Grade:
    """The grade of a final tree from its check, its hidden tests and, for fixbot's runners,
    fixbot's own outcome (`outcome`; None for a baseline, which claims nothing)."""
    if not check_ok:
        return Grade.ESCALATED
    if hidden_ok is False:
        return Grade.WRONG
    return Grade.FIXED if outcome in (None, "fixed") else Grade.UNCLAIMED


def fails_at_start(job: Job, work: Path) -> bool:
    """Whether the case's check fails on a copy of the prepared tree (under `work`)."""
    copy = copy_repo(job.repo, work / "start")
    try:
        return run_in(job.check, copy, case_env(job), work / "start-check.log") != 0
    finally:
        shutil.rmtree(copy, ignore_errors=True)


def run_case(job: Job, runner: Runner, options: Options) -> CaseResult:
    """Run `runner` on `job` in a temporary folder and grade it (the worker's entry point)."""
    with tempfile.TemporaryDirectory(prefix=f"fixbot-bench-{job.id}-") as tmp:
        work = Path(tmp)
        start = time.monotonic()
        # fixbot's own first check judges the start (`Options.start_by_engine`): no plain check
        engine_judged = options.start_by_engine and runner.claims
        try:
            checks_start = runner is not Runner.LOCALIZE and not engine_judged
            if checks_start and not fails_at_start(job, work):
                result = make_result(job, runner, Grade.NEVER_FAILED, reason=NEVER_FAILED_WHY)
            else:
                result = RUNNERS[runner](job, options, work)
        except (ValueError, OSError) as exc:
            result = make_result(job, runner, Grade.ERROR, reason=str(exc))
        if result.grade not in (Grade.ERROR, Grade.MEASURED, Grade.NEVER_FAILED):
            _grade(job, runner, work, result, engine_judged)
        result.wall_s = round(time.monotonic() - start, 2)
        result.over_budget = over_budget(result, options.budget)
        return result


def _grade(job: Job, runner: Runner, work: Path, result: CaseResult, engine_judged: bool) -> None:
    """Grade the run's final tree into `result`. When fixbot's first check judged the start
    (`engine_judged`) and fixbot ended `passed`, the final tree is the prepared one, unchanged:
    its plain check passing there is `never-failed`, as `fails_at_start` would have found; its
    failing there is graded as before (`escalated`)."""
    check_ok, hidden_ok, notes = grade(job, work / "repo", work)
    result.check_passes, result.hidden_passes = check_ok, hidden_ok
    claimed = result.outcome if runner.claims else None
    result.grade = verdict(check_ok, hidden_ok, claimed)
    result.notes = [*result.notes, *notes]
    if engine_judged and check_ok and result.outcome == "passed":
        result.grade, result.reason = Grade.NEVER_FAILED, NEVER_FAILED_WHY


def over_budget(result: CaseResult, budget: Budget) -> list[str]:
    """Which of `budget`'s limits `result` passed (a run may finish the request or command in
    flight when its budget runs out: the figures say by how much)."""
    found = []
    if result.attempts > budget.attempts:
        found.append(f"attempts {result.attempts} > {budget.attempts}")
    if result.tokens > budget.tokens:
        found.append(f"tokens {result.tokens} > {budget.tokens}")
    if result.usd is not None and result.usd > budget.usd:
        found.append(f"USD {result.usd:.4f} > {budget.usd}")
    return found


def run_all(
    jobs: Sequence[Job],
    runners: Sequence[Runner],
    options: Options,
    workers: int | None = None,
    done: Callable[[CaseResult], None] | None = None,
) -> list[CaseResult]:
    """Every job by every runner, `workers` cases at a time (default `default_jobs()`), each in
    a fresh worker process; results in the order of `jobs` then `runners`. `done` is called
    with each result as it arrives (progress)."""
    pairs = [(job, runner) for job in jobs for runner in runners]
    spawn = multiprocessing.get_context("spawn")  # no forked copy of a parent's threads or locks
    with ProcessPoolExecutor(max_workers=workers or default_jobs(), mp_context=spawn) as pool:
        futures = [pool.submit(run_case, job, runner, options) for job, runner in pairs]
        results = []
        for future in futures:
            results.append(future.result())
            if done:
                done(results[-1])
    return results
