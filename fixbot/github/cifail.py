"""Before the engine, on a pull request or a failed `workflow_run`: the pull request gates, then
the failed run's own log as the first failing run (no initial check), or a re-run of a flake.

`prepare` is called by `fixbot.github.action` once the branch is checked out. Order:
1. pull request gates (`fixbot.github.events.prgates`: bots, labels, drafts), from the event payload
   or, for `workflow_run` (whose `pull_requests` carry no author or labels), from
   `GET /repos/{owner}/{repo}/pulls/{pull_number}`;
2. `workflow_run` only: the head moved past the failed commit;
3. the per-pull-request budget, counted from fixbot's commit trailers in `base..HEAD`; past it
   the status comment says so;
4. `workflow_run` only: the failed jobs' logs. A transient failure (`fixbot.github.failedjobs`:
   `fixbot.logs.classify`, plus the runner's own signs) on the run's first attempt re-runs the
   failed jobs once, with no model call and no edit, and records the re-run in the pull
   request's memory (`memory.Rerun`, pending). Any other failure becomes the loop's first
   failing run, which saves one full check; every fix is still verified by it.

The flake record: the re-run's outcome comes back as another `workflow_run` of the same run id.
Passing on the same commit (`settle_passed`, called for a successful run's later attempt) is a
flake, with both attempts linked in the status comment; failing again is real, never called
flaky, whatever its log reads like. A failure is called flaky only on that evidence, never from
its text alone; when the failing log names a file the pull request changed, the record says so:
the flake may be the pull request's own.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TextIO

from fixbot.core.config import Gates
from fixbot.core.errors import GitHubError
from fixbot.core.failure import Classification
from fixbot.core.github_env import GitHubEnv
from fixbot.core.models import Outcome, OutcomeKind
from fixbot.github.api.rest import Connector, GitHub, mapped
from fixbot.github.api.runs import JobLog, RunFacts, Runs, first_failure
from fixbot.github.events import prgates
from fixbot.github.events.data import Event
from fixbot.github.events.gates import Verdict
from fixbot.github.events.inputs import Inputs
from fixbot.github.events.kinds import registry
from fixbot.github.failedjobs import FailedStep, failed_step, transient
from fixbot.github.publish import memory, render
from fixbot.logs.joblog import FirstFailure
from fixbot.process import git
from fixbot.ui import workflow


class Where(Protocol):
    """What `prepare` needs of the Action's run (`fixbot.github.action.Context` has it)."""

    github: GitHubEnv
    inputs: Inputs
    out: TextIO
    run_url: str

    def gates(self) -> Gates:
        """The gate settings as the workflow sets them (`fixbot.core.config.read_gates`)."""

    @property
    def connect(self) -> Connector:
        """Makes the REST client: (token, API URL, `owner/name`) -> `GitHub`."""

    @property
    def git_env(self) -> dict[str, str]:
        """Environment for git commands that reach the remote."""

    @property
    def repo(self) -> Path:
        """fixbot's clone, on the branch to fix (`fixbot.process.worlds`)."""


def _failed_run(event: Event) -> bool:
    """True when the event reports another workflow's run (its kind's `failed_run`)."""
    kind = registry.find(event.name)
    return kind is not None and kind.failed_run


def github(where: Where, repository: str) -> GitHub:
    """The REST client for `repository` at `GITHUB_API_URL` (no request made)."""
    return where.connect(where.inputs.token, where.github.api_url, repository)


@dataclass
class Prepared:
    """`refusal` ends the run (outcome `refused`); else `first` seeds the loop (may be None).
    `failed_again`: the triggering run is a re-run that failed again, which settles a pending
    re-run record as real (`settled`, applied to the run's history by the caller)."""

    refusal: str | None = None
    first: FirstFailure | None = None
    notes: list[str] = field(default_factory=list)
    failed_again: int | None = None  # the attempt of a re-run that failed again (see `settled`)
    failed: FailedStep | None = None  # the failed job's failed step (the check reproduces it)


def policy(gates: Gates) -> prgates.Policy:
    """The pull request gates' part of the workflow's gate settings (trust-bearing)."""
    return prgates.Policy(
        allow_bots=gates.allow_bots,
        skip_label=gates.skip_label,
        require_label=gates.require_label,
        allow_drafts=gates.allow_drafts,
        max_fixes_per_pr=gates.max_fixes_per_pr,
    )


def pull_facts(where: Where, event: Event) -> prgates.PullFacts | None:
    """The event's pull request for the gates (read through REST when the payload lacks it)."""
    pr = event.pull_request
    if pr is None:
        return None
    if pr.author is not None and pr.labels is not None:
        return prgates.PullFacts(
            number=pr.number,
            author=pr.author,
            labels=pr.labels,
            draft=bool(pr.draft),
            head_sha=pr.head_sha,
        )
    with mapped(f"read pull request #{pr.number}", "pull-requests: read"):
        pull = github(where, event.repository).repo.get_pull(pr.number)
        return prgates.PullFacts(
            number=pr.number,
            author=pull.user.login,
            labels=[label.name for label in pull.labels],
            draft=bool(pull.draft),
            head_sha=pull.head.sha,
        )


def source_tip(repo: Path, branch: str) -> str | None:
    """The branch's tip as `fixbot.github.api.checkout.switch` fetched it, or None."""
    return git.resolve(repo, f"refs/remotes/origin/fixbot-source/{branch}")


def fix_commits(where: Where, base: str) -> list[prgates.FixCommit]:
    """fixbot's commits on HEAD since the pull request's `base` branch (fetched first)."""
    ref = f"refs/remotes/origin/fixbot-base/{base}"
    git.fetch_branch(where.repo, base, ref, where.git_env)
    return prgates.fix_commits(git.commits_with_trailer(where.repo, ref, "fixbot-attempt"))


def comment(where: Where, event: Event, number: int, kind: OutcomeKind, reason: str) -> str:
    """Write `reason` into the pull request's status comment; a note when that fails."""
    data = render.Report(
        outcome=Outcome(outcome=kind, reason=reason), links=render.Links(run_url=where.run_url)
    )
    try:
        github(where, event.repository).upsert_status_comment(number, render.status_comment(data))
    except GitHubError as exc:
        return f"the pull request's status comment was not written: {exc}"
    return ""


def gates(where: Where, event: Event) -> Verdict | None:
    """The pull request, moved-head and budget gates; the first refusal, else None."""
    rules = policy(where.gates())
    facts = pull_facts(where, event)
    if facts is not None:
        verdict = prgates.gate_pull_request(facts, rules)
    else:
        verdict = prgates.gate_actor(event.run_actor, rules)
    if not verdict.allowed:
        return verdict
    if _failed_run(event) and event.branch:
        verdict = prgates.gate_moved_head(event.sha, source_tip(where.repo, event.branch))
        if not verdict.allowed:
            return verdict
    if facts is not None and event.pull_request is not None and event.pull_request.base_ref:
        done = fix_commits(where, event.pull_request.base_ref)
        verdict = prgates.gate_budget(facts.number, done, rules)
        if not verdict.allowed:
            note = comment(where, event, facts.number, OutcomeKind.REFUSED, verdict.reason)
            return verdict.model_copy(
                update={"reason": "; ".join(filter(None, [verdict.reason, note]))}
            )
    return None


def run_page(where: Where, event: Event, run_id: int) -> str:
    """The web page of workflow run `run_id`."""
    return where.github.run_page(event.repository, run_id)


def changed_in_log(where: Where, base: str | None, text: str) -> list[str]:
    """The files the pull request changed (`base...HEAD`, the base fetched by `fix_commits`)
    that the failing log `text` names; [] when the base was not fetched."""
    if not base:
        return []
    ref = f"refs/remotes/origin/fixbot-base/{base}"
    if git.resolve(where.repo, ref) is None:
        return []
    return [name for name in git.changed_on_branch(where.repo, ref) if name in text][:10]


def remember(
    where: Where,
    event: Event,
    change: Callable[[memory.History], memory.History | None],
    kind: OutcomeKind,
    reason: str,
) -> str:
    """Apply `change` to the pull request's run history and write the status comment with
    `reason` and the re-runs (nothing when `change` returns None); '' when done or nothing to
    do, else a note saying why not (GitHub refused)."""
    pr = event.pull_request
    if pr is None:
        return ""
    try:
        gh = github(where, event.repository)
        login = gh.login()
        found = gh.status_comment(pr.number, login)
        try:
            history = memory.decode(found[1]) if found else memory.History()
        except ValueError:
            history = memory.History()
        changed = change(history)
        if changed is None:
            return ""
        history = changed
        data = render.Report(
            outcome=Outcome(outcome=kind, reason=reason),
            links=render.Links(run_url=where.run_url),
            reruns=history.reruns,
        )
        body = render.status_comment(data, memory.encode(history))
        gh.upsert_status_comment(pr.number, body, login=login)
    except GitHubError as exc:
        return f"the pull request's status comment was not written: {exc}"
    return ""


def flake(
    where: Where, event: Event, run: RunFacts, why: Classification, first: FirstFailure
) -> str:
    """Re-run the failed jobs on the first attempt and record it (pending); on a later attempt
    the failure repeats: real, not a flake. Returns the reason."""
    kind = f"a transient failure ({why.category})"
    if run.attempt <= 1:
        Runs(github(where, event.repository)).rerun_failed_jobs(run.id)
        reason = (
            f"run {run.id} failed with {kind}, not a code problem: its failed jobs were re-run "
            "once (attempt 2); no model call, no edit. Passing there makes it a flake"
        )
        base = event.pull_request.base_ref if event.pull_request else None
        record = memory.Rerun(
            run=run.id,
            sha=run.head_sha or event.sha or "",
            why=str(why.category),
            at=int(time.time()),
            url=run_page(where, event, run.id),
            suspects=changed_in_log(where, base, first.text),
        )
        note = remember(
            where, event, lambda h: memory.add_rerun(h, record), OutcomeKind.REFUSED, reason
        )
        return "; ".join(filter(None, [reason, note]))
    reason = (
        f"run {run.id} failed again on attempt {run.attempt}, with {kind}: the failure is real "
        "(it repeats on the same commit), not a flake, though its log reads like network, rate "
        "limit or runner trouble; fixbot neither re-runs it again nor edits code for it"
    )
    workflow.warning(reason, where.out, title="fixbot: the failure repeats")
    note = remember(
        where,
        event,
        lambda h: settled(h, run.id, False, run.attempt),
        OutcomeKind.REFUSED,
        reason,
    )
    return "; ".join(filter(None, [reason, note]))


def settled(history: memory.History, run: int, passed: bool, attempt: int) -> memory.History:
    """`history` with the pending re-run of CI run `run` settled (unchanged when none)."""
    done = memory.settle(history, run, passed, attempt)
    return history if done is None else memory.add_rerun(history, done)


def settle_passed(where: Where, event: Event) -> str | None:
    """A successful later attempt of a run fixbot re-ran: record the flake (both attempts
    linked in the status comment) and return the reason; None for any other event."""
    if (
        not _failed_run(event)
        or event.run_conclusion != "success"
        or (event.run_attempt or 1) < 2
        or event.run_id is None
        or event.pull_request is None
    ):
        return None
    run = RunFacts(id=event.run_id, attempt=event.run_attempt or 2, head_sha=event.sha)
    found: list[memory.Rerun] = []

    def change(history: memory.History) -> memory.History | None:
        done = memory.settle(history, run.id, True, run.attempt)
        if done is None:
            return None  # fixbot did not re-run it: the status comment stays as it is
        found.append(done)
        return memory.add_rerun(history, done)

    reason = (
        f"run {run.id} passed on attempt {run.attempt} on the same commit after failing with a "
        "transient failure: a flake, recorded in the status comment; nothing to fix"
    )
    note = remember(where, event, change, OutcomeKind.PASSED, reason)
    if not found and not note:
        return None  # fixbot did not re-run it: nothing to record
    return "; ".join(filter(None, [reason, note]))


def from_run(where: Where, event: Event) -> Prepared:
    """The failed jobs' logs of the triggering run: a flake re-run, or the first failure."""
    assert event.run_id is not None
    run = RunFacts(id=event.run_id, attempt=event.run_attempt or 1, head_sha=event.sha)
    runs = Runs(github(where, event.repository))
    try:
        jobs = runs.jobs(run.id)
        logs = [runs.log(job) for job in jobs if job.failed]
    except GitHubError as exc:
        return Prepared(notes=[f"the failed run's logs were not read ({exc}); ran the check"])
    problems = _log_problems(logs)
    first = first_failure(run, logs)
    if first is None:
        return _no_failure(run, problems)
    hiccup = transient(first, jobs)
    if hiccup is not None:
        return Prepared(refusal=flake(where, event, run, hiccup, first))
    again = run.attempt if run.attempt > 1 else None  # a re-run that failed again: real
    return Prepared(first=first, notes=problems, failed_again=again, failed=failed_step(jobs))


def _log_problems(logs: list[JobLog]) -> list[str]:
    """Why the failed jobs' logs could not be read, one line per job."""
    return [f"job `{log.job.name}`: {log.problem}" for log in logs if log.problem]


def _no_failure(run: RunFacts, problems: list[str]) -> Prepared:
    """No failure found in the run's logs: the check runs, with a note saying why."""
    why = "; ".join(problems) or f"run {run.id} has no failed job with a log"
    return Prepared(notes=[f"the failed run's logs were not read ({why}); ran the check"])


def prepare(where: Where, event: Event) -> Prepared:
    """Gates, then (on `workflow_run`) the failed run's logs; see the module docstring.

    Raises `GitHubError` when the pull request cannot be read or a re-run is refused.
    """
    verdict = gates(where, event)
    if verdict is not None:
        return Prepared(refusal=verdict.reason)
    if not _failed_run(event) or event.run_id is None:
        return Prepared()
    return from_run(where, event)
