"""A failed workflow run through the REST API: its jobs, the failed jobs' logs, re-running them.

PyGithub has the calls (`Repository.get_workflow_run`, `WorkflowRun.jobs`,
`WorkflowJob.logs_url`, `WorkflowRun.rerun_failed_jobs`); the log itself is a redirect to a
short-lived download URL, fetched with `requests` under the same retry policy
(`fixbot.github.api.rest.default_retry`) and without the token (the URL carries its own grant).
Routes (https://docs.github.com/en/rest/actions/workflow-runs,
https://docs.github.com/en/rest/actions/workflow-jobs): GET /repos/{owner}/{repo}/actions/runs/
{run_id}, GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs, GET /repos/{owner}/{repo}/actions/
jobs/{job_id}/logs, POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs and
POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches (both need `actions: write`;
reading needs `actions: read`).
"""

from __future__ import annotations

import re
from collections import deque

import requests
from github import GithubException
from github.WorkflowJob import WorkflowJob
from github.WorkflowRun import WorkflowRun
from pydantic import BaseModel, Field
from requests.adapters import HTTPAdapter

from fixbot.core.errors import ConfigError, GitHubError
from fixbot.github.api.rest import GitHub, default_retry, explain, mapped, message_of
from fixbot.github.publish.dispatch import MISSING_TRIGGER, Dispatched, missing_trigger
from fixbot.logs.joblog import FirstFailure, clean_log

ACTIONS_READ = "actions: read"
ACTIONS_WRITE = "actions: write"
FAILED = ("failure", "timed_out")
MAX_LOG_BYTES = 8 * 1024 * 1024  # the last bytes of a job log kept (the failure is at the end)
DOWNLOAD_TIMEOUT_S = 60.0
RUN_URL_RE = re.compile(r"^https?://[^/]+/([^/]+/[^/]+)/actions/runs/(\d+)(?:/.*)?$")


class Step(BaseModel):
    """A step of a job (`steps[]` of the jobs API): 1-based `number`, `conclusion` or None."""

    number: int
    name: str
    conclusion: str | None = None


class Job(BaseModel):
    """A job of a workflow run, as the jobs API lists it."""

    id: int
    name: str
    conclusion: str | None = None
    html_url: str | None = None
    steps: list[Step] = Field(default_factory=list)

    @property
    def failed(self) -> bool:
        """True when the job ended `failure` or `timed_out`."""
        return self.conclusion in FAILED

    @property
    def failed_step(self) -> Step | None:
        """The first step that failed or timed out, or None (e.g. the runner was lost)."""
        return next((s for s in self.steps if s.conclusion in FAILED), None)


class RunFacts(BaseModel):
    """What fixbot needs of a workflow run: id, attempt (1-based), head, conclusion, link."""

    id: int
    attempt: int = 1
    head_sha: str | None = None
    head_branch: str | None = None
    conclusion: str | None = None
    html_url: str | None = None
    workflow: str | None = None


class JobLog(BaseModel):
    """A failed job and its downloaded log text (None when it could not be read, with why)."""

    job: Job
    text: str | None = None
    problem: str | None = None


def parse_run_ref(value: str) -> tuple[str | None, int]:
    """(repository or None, run id) of `--from-run`: a run id, or a run's (or job's) web URL
    such as `https://github.com/o/r/actions/runs/123/job/456`. Raises `ConfigError`."""
    text = value.strip()
    if text.isdigit():
        return None, int(text)
    if found := RUN_URL_RE.match(text):
        return found[1], int(found[2])
    raise ConfigError(
        [
            f"--from-run {value!r}: expected a run id (123456) or a run's URL "
            "(https://github.com/OWNER/REPO/actions/runs/123456)"
        ]
    )


def step_name(job: Job) -> str | None:
    """The failed step's name, or None."""
    step = job.failed_step
    return step.name if step else None


def first_failure(run: RunFacts, logs: list[JobLog]) -> FirstFailure | None:
    """The first failing run made of the failed jobs' cleaned logs, or None when none was read.

    Each job's log is headed `== job <name>, step <step> ==` when more than one job failed.
    """
    readable = [(log, clean_log(log.text)) for log in logs if log.text is not None]
    if not readable:
        return None
    parts = []
    for log, clean in readable:
        if len(readable) > 1:
            parts.append(f"== job {log.job.name}, step {step_name(log.job) or '?'} ==")
        parts.append(clean.text)
    first, clean = readable[0]
    jobs = ", ".join(f"`{log.job.name}`" for log, _ in readable)
    step = step_name(first.job) or clean.step
    where = f"job {jobs}" + (f", step `{step}`" if step else "")
    return FirstFailure(
        text="\n".join(parts),
        source=f"{where} of run {run.id} (attempt {run.attempt})",
        job=first.job.name,
        step=step,
        exit_code=clean.exit_code,
        commit=run.head_sha,
    )


def _job(raw: WorkflowJob) -> Job:
    steps = [
        Step(number=int(s.number), name=str(s.name), conclusion=s.conclusion)
        for s in raw.steps or []
    ]
    return Job(
        id=int(raw.id),
        name=str(raw.name),
        conclusion=raw.conclusion,
        html_url=raw.html_url,
        steps=steps,
    )


def _session() -> requests.Session:
    session = requests.Session()
    adapter = HTTPAdapter(max_retries=default_retry())
    session.mount("https://", adapter)
    session.mount("http://", adapter)
    return session


def download(url: str, limit: int = MAX_LOG_BYTES, session: requests.Session | None = None) -> str:
    """The text at a log download `url` (UTF-8, errors replaced), at most its last `limit`
    bytes. No token is sent. Raises `GitHubError` when the download fails."""
    chunks: deque[bytes] = deque()
    size = 0
    try:
        with (session or _session()).get(url, stream=True, timeout=DOWNLOAD_TIMEOUT_S) as answer:
            answer.raise_for_status()
            for chunk in answer.iter_content(64 * 1024):
                chunks.append(chunk)
                size += len(chunk)
                while size - len(chunks[0]) >= limit:
                    size -= len(chunks.popleft())
    except requests.RequestException as exc:
        raise GitHubError(f"downloading a job log failed ({exc}); re-run the job") from exc
    data = b"".join(chunks)[-limit:]
    return data.decode("utf-8", errors="replace")


class Runs:
    """The Actions REST API of one repository (through `GitHub.repo`, PyGithub)."""

    def __init__(self, gh: GitHub) -> None:
        self.repo = gh.repo

    def run(self, run_id: int) -> RunFacts:
        """The run `run_id`; `GitHubError` naming `actions: read` when it cannot be read."""
        with mapped(f"read workflow run {run_id}", ACTIONS_READ):
            raw = self.repo.get_workflow_run(run_id)
            return RunFacts(
                id=run_id,
                attempt=int(raw.run_attempt or 1),
                head_sha=raw.head_sha,
                head_branch=raw.head_branch,
                conclusion=raw.conclusion,
                html_url=raw.html_url,
                workflow=raw.name,
            )

    def jobs(self, run_id: int) -> list[Job]:
        """Every job of the run's latest attempt."""
        with mapped(f"list the jobs of run {run_id}", ACTIONS_READ):
            return [_job(raw) for raw in self.repo.get_workflow_run(run_id).jobs()]

    def log(self, job: Job) -> JobLog:
        """`job` with its log text, or with the reason it could not be read (logs expire)."""
        try:
            with mapped(f"read the log of job {job.name!r}", ACTIONS_READ):
                url = self.repo.get_workflow_job(job.id).logs_url()
            return JobLog(job=job, text=download(url))
        except GitHubError as exc:
            return JobLog(job=job, problem=str(exc))

    def failed_logs(self, run_id: int) -> list[JobLog]:
        """The logs of the run's failed jobs (each with its problem when unreadable)."""
        return [self.log(job) for job in self.jobs(run_id) if job.failed]

    def rerun_failed_jobs(self, run_id: int) -> None:
        """Re-run the failed jobs of run `run_id` (a new attempt). Raises `GitHubError`."""
        with mapped(f"re-run the failed jobs of run {run_id}", ACTIONS_WRITE):
            self.repo.get_workflow_run(run_id).rerun_failed_jobs()

    def dispatch(self, workflow: str, branch: str) -> Dispatched:
        """Dispatch `workflow` (a file name such as `ci.yml`, or an id) on `branch`; return the
        new run (its id, web URL and status) or, when GitHub refused, why and what to do.

        Uses `return_run_details` (GitHub's dispatch API answers 200 with the run's id and URLs,
        https://github.blog/changelog/2026-02-19-workflow-dispatch-api-now-returns-run-ids).
        Never raises for a refusal: a missing `on: workflow_dispatch` (422) says what to add,
        anything else names the permission (`actions: write`).
        """
        found = Dispatched(workflow=workflow, branch=branch)
        try:
            run = self.repo.get_workflow(workflow).create_dispatch(
                branch, throw=True, return_run_details=True
            )
        except GithubException as exc:
            if exc.status == 422 and MISSING_TRIGGER in message_of(exc):
                return found.model_copy(update={"problem": missing_trigger(workflow, branch)})
            why = explain(exc, f"dispatch `{workflow}` on `{branch}`", ACTIONS_WRITE)
            return found.model_copy(update={"problem": why})
        except requests.RequestException as exc:
            why = f"dispatching `{workflow}` failed ({exc}); re-run the job"
            return found.model_copy(update={"problem": why})
        if not isinstance(run, WorkflowRun):  # an older server: 204 without the run
            return found
        found = found.model_copy(update={"run_id": int(run.id), "url": run.html_url})
        try:
            with mapped(f"read workflow run {run.id}", ACTIONS_READ):
                status = self.repo.get_workflow_run(int(run.id))
                state = status.conclusion if status.conclusion else status.status
        except GitHubError:
            return found
        return found.model_copy(update={"status": state})
