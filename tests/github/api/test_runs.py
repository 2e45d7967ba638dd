"""The Actions REST adapter against the fake GitHub: jobs, log redirects, re-runs, routes."""

from __future__ import annotations

import pytest

from fixbot.core.errors import ConfigError, GitHubError
from fixbot.core.github_env import GitHubEnv
from fixbot.github.api.rest import GitHub, default_retry
from fixbot.github.api.runs import (
    Job,
    JobLog,
    RunFacts,
    Runs,
    Step,
    download,
    first_failure,
    parse_run_ref,
)
from fixbot.github.fromrun import api_url
from tests.fakes.github_server import BLOB_PREFIX, FakeGitHub
from tests.fakes.paths import DATA
from tests.github.api.test_rest import openapi_routes

REPO = "octo/app"
JOBLOGS = DATA / "joblogs"
FAILED_STEPS = [("Set up job", "success"), ("Run tests", "failure"), ("Post", "success")]


def runs(server: FakeGitHub) -> Runs:
    return Runs(GitHub.connect("ghs_token", server.url, REPO, retry=default_retry(0.01, 0.01)))


def add_run(server: FakeGitHub, attempt: int = 1) -> None:
    log = (JOBLOGS / "pytest-failure.log").read_text(encoding="utf-8")
    server.add_run(
        REPO,
        42,
        "a" * 40,
        "feature",
        [
            ("lint", "success", [("Set up job", "success")], "all good\n"),
            ("test", "failure", FAILED_STEPS, log),
        ],
        attempt=attempt,
    )


def test_the_failed_jobs_logs_are_read_through_the_redirect_without_the_token(
    github_server: FakeGitHub,
) -> None:
    add_run(github_server, attempt=2)
    client = runs(github_server)

    run = client.run(42)
    logs = client.failed_logs(42)

    assert (run.attempt, run.head_sha, run.head_branch) == (2, "a" * 40, "feature")
    assert [log.job.name for log in logs] == ["test"]
    assert logs[0].job.failed_step == Step(number=2, name="Run tests", conclusion="failure")
    assert logs[0].text is not None and "E       assert 2 == 3" in logs[0].text
    blob = [r for r in github_server.requests if r.path.startswith(BLOB_PREFIX)]
    assert len(blob) == 1 and "Authorization" not in blob[0].headers
    api = [r for r in github_server.requests if not r.path.startswith(BLOB_PREFIX)]
    assert all(r.headers["Authorization"] == "token ghs_token" for r in api)


def test_a_long_log_keeps_its_last_bytes(github_server: FakeGitHub) -> None:
    github_server.logs[1] = "".join(f"line {n}\n" for n in range(10_000))
    text = download(f"{github_server.url}{BLOB_PREFIX}1", limit=1000)
    assert len(text.encode()) == 1000 and text.endswith("line 9999\n")


def test_rerun_failed_jobs_posts_once(github_server: FakeGitHub) -> None:
    add_run(github_server)
    runs(github_server).rerun_failed_jobs(42)
    assert github_server.repo(REPO).reruns == [42]


def test_a_refused_rerun_names_the_permission(github_server: FakeGitHub) -> None:
    add_run(github_server)
    github_server.fail("POST", "/repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs", 403)
    with pytest.raises(GitHubError, match="actions: write"):
        runs(github_server).rerun_failed_jobs(42)


def test_an_unreadable_log_is_reported_not_raised(github_server: FakeGitHub) -> None:
    add_run(github_server)
    github_server.fail("GET", "/repos/{owner}/{repo}/actions/jobs/{job_id}/logs", 410)
    [log] = runs(github_server).failed_logs(42)
    assert log.text is None and log.problem is not None and "410" in log.problem


def test_server_errors_on_the_jobs_list_are_retried(github_server: FakeGitHub) -> None:
    add_run(github_server)
    github_server.fail("GET", "/repos/{owner}/{repo}/actions/runs/{run_id}/jobs", 502)
    assert [j.name for j in runs(github_server).jobs(42)] == ["lint", "test"]


def test_every_route_called_is_in_githubs_openapi_description(github_server: FakeGitHub) -> None:
    add_run(github_server)
    client = runs(github_server)
    client.run(42)
    client.failed_logs(42)
    client.rerun_failed_jobs(42)
    api = {r for r in github_server.routes_called() if not r.startswith(f"GET {BLOB_PREFIX}")}
    assert github_server.unmatched == [] and len(api) == 4
    assert api <= openapi_routes()


def job(name: str, step: str | None) -> Job:
    steps = [Step(number=1, name=step, conclusion="failure")] if step else []
    return Job(id=1, name=name, conclusion="failure", steps=steps)


def test_first_failure_joins_the_failed_jobs_and_names_job_and_step() -> None:
    run = RunFacts(id=42, attempt=1)
    logs = [
        JobLog(job=job("test", "Run tests"), text="2026-11-20T10:00:00Z E  assert 1 == 2\n"),
        JobLog(job=job("types", None), text="mypy: error: x\n"),
        JobLog(job=job("gone", "Build"), problem="410"),
    ]
    first = first_failure(run, logs)
    assert first is not None
    assert first.text.splitlines() == [
        "== job test, step Run tests ==",
        "E  assert 1 == 2",
        "== job types, step ? ==",
        "mypy: error: x",
    ]
    assert (first.job, first.step) == ("test", "Run tests")
    assert first.source == "job `test`, `types`, step `Run tests` of run 42 (attempt 1)"
    assert first_failure(run, logs[2:]) is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("123", (None, 123)),
        (" 123 ", (None, 123)),
        ("https://github.com/o/r/actions/runs/123", ("o/r", 123)),
        ("https://github.com/o/r/actions/runs/123/job/456", ("o/r", 123)),
        ("https://ghe.example.com/o/r/actions/runs/9/attempts/2", ("o/r", 9)),
    ],
)
def test_parse_run_ref(value: str, expected: tuple[str | None, int]) -> None:
    assert parse_run_ref(value) == expected


def test_a_bad_run_ref_says_what_to_pass() -> None:
    with pytest.raises(ConfigError, match="expected a run id"):
        parse_run_ref("https://github.com/o/r/pull/3")


@pytest.mark.parametrize(
    ("value", "env", "expected"),
    [
        ("123", {}, "https://api.github.com"),
        ("https://github.com/o/r/actions/runs/1", {}, "https://api.github.com"),
        ("https://ghe.example.com/o/r/actions/runs/1", {}, "https://ghe.example.com/api/v3"),
        ("https://ghe.example.com/o/r/actions/runs/1", {"GITHUB_API_URL": "http://x"}, "http://x"),
    ],
)
def test_api_url(value: str, env: dict[str, str], expected: str) -> None:
    assert api_url(value, GitHubEnv.read(env)) == expected
