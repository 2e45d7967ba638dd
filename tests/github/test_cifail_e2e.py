"""End to end: `fixbot action` on a failed `workflow_run`, against the fake GitHub and model.

Each check run appends a line to a counter file outside the repository, so the tests count the
check runs fixbot made: a run seeded from the failed job's log makes exactly one (the verifying
one), and a refused or re-run one makes none.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from fixbot.github.publish import memory
from fixbot.github.publish.render import STATUS_MARKER
from tests.fakes.action_env import REPOSITORY, ActionRun, ActionSandbox, load_event
from tests.fakes.counted import CALC_BUGGY, CALC_GOOD, CHECK_PY, CheckCounter
from tests.fakes.github_server import BLOB_PREFIX, FakeGitHub
from tests.fakes.model_server import FakeModelServer, text
from tests.fakes.paths import DATA
from tests.fakes.repo import git
from tests.github.api.test_rest import openapi_routes

pytestmark = pytest.mark.slow
JOBLOGS = DATA / "joblogs"
RUN_ID = 4242
PR = 2
CALC = CALC_BUGGY
# The text edit protocol (SEARCH/REPLACE blocks), then a clean self-review (a JSON list).
FIX = (
    text(
        "calc.py\n<<<<<<< SEARCH\n    return sum(xs) - 1\n=======\n    return sum(xs)\n"
        ">>>>>>> REPLACE\n\nSUMMARY: drop the off-by-one"
    ),
    text("[]"),
)
STEPS = [("Set up job", "success"), ("Run tests", "failure"), ("Post job cleanup", "success")]


class Scene:
    """A sandbox with a pull request on `changes` whose CI run failed, and a check counter."""

    def __init__(self, root: Path, github: FakeGitHub, model: FakeModelServer) -> None:
        self.box = ActionSandbox(root, github)
        self.github = github
        self.model = model
        self.counter = CheckCounter(root / "check-runs.txt")
        self.box.commit("main", {"calc.py": CALC_GOOD, "check.py": CHECK_PY}, "initial")
        self.sha = self.box.commit("changes", {"calc.py": CALC}, "off by one")

    @property
    def checks(self) -> int:
        """How many times the check ran."""
        return self.counter.runs

    def failed_run(self, log: str = "pytest-failure.log", attempt: int = 1) -> None:
        text = (JOBLOGS / log).read_text(encoding="utf-8")
        jobs = [("test", "failure", STEPS, text), ("lint", "success", STEPS[:1], "ok\n")]
        self.github.add_run(REPOSITORY, RUN_ID, self.sha, "changes", jobs, attempt=attempt)

    def event(self, sha: str | None = None, attempt: int = 1) -> dict[str, Any]:
        event = load_event("workflow_run.completed")
        event["repository"].update({"full_name": REPOSITORY, "default_branch": "main"})
        api = f"{self.github.url}/repos/{REPOSITORY}"
        event["workflow_run"].update(
            {
                "id": RUN_ID,
                "run_attempt": attempt,
                "conclusion": "failure",
                "head_branch": "changes",
                "head_sha": sha or self.sha,
                "head_repository": {"full_name": REPOSITORY},
                "pull_requests": [
                    {
                        "number": PR,
                        "head": {"ref": "changes", "sha": sha or self.sha, "repo": {"url": api}},
                        "base": {"ref": "main", "sha": "0" * 40, "repo": {"url": api}},
                    }
                ],
            }
        )
        return event

    def run(self, event: dict[str, Any], **inputs: str) -> ActionRun:
        ws = self.box.workspace("main")  # actions/checkout on workflow_run: the default branch
        settings = {
            "check-command": self.counter.command,
            "model": "openai/fake",
            "api-base": self.model.url,
            **inputs,
        }
        env = self.box.env("workflow_run", event, ws, settings)
        env.update({"FIXBOT_EDIT_PROTOCOL": "text", "OPENAI_API_KEY": "sk-fake"})
        return self.box.run(env)

    def nothing_done(self, run: ActionRun, why: str) -> None:
        """Refused before anything ran: no check, no model call, no push."""
        assert run.code == 0, run.stdout + run.stderr
        assert run.outputs["outcome"] == "refused" and why in run.outputs["reason"]
        assert why in run.summary
        assert self.checks == 0 and self.model.bodies() == []
        assert self.box.origin_sha("changes") == self.sha


@pytest.fixture
def scene(tmp_path: Path, github_server: FakeGitHub, model_server: FakeModelServer) -> Scene:
    return Scene(tmp_path, github_server, model_server)


def test_a_failed_run_is_fixed_from_its_job_log_with_one_check(scene: Scene) -> None:
    scene.failed_run()
    scene.github.add_pull(REPOSITORY, PR, ("changes", scene.sha))
    scene.model.enqueue(*FIX)
    run = scene.run(scene.event())

    assert run.code == 0 and run.outputs["outcome"] == "fixed", run.stdout + run.stderr
    assert scene.checks == 1  # the verifying run only: no initial check
    assert "E       assert 2 == 3" in scene.model.all_text()  # the job's own log
    pushed = scene.box.origin_sha("changes")
    assert pushed == run.outputs["commit-sha"] != scene.sha
    assert git(scene.box.origin, "show", f"{pushed}:calc.py").endswith("return sum(xs)")
    assert "log of job `test`, step `Run tests` of run 4242 (attempt 1)" in run.summary
    assert "one full check saved" in run.summary
    assert scene.github.unmatched == []
    called = scene.github.routes_called() - {f"GET {BLOB_PREFIX}"}
    assert "GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs" in called
    assert called - {"POST /graphql"} <= openapi_routes()


def test_a_network_failure_is_re_run_once_without_a_model_call(scene: Scene) -> None:
    scene.failed_run("network-failure.log")
    scene.github.add_pull(REPOSITORY, PR, ("changes", scene.sha))
    run = scene.run(scene.event())

    scene.nothing_done(run, "re-run once")
    assert "transient failure (network)" in run.outputs["reason"]
    assert scene.github.repo(REPOSITORY).reruns == [RUN_ID]
    [rerun] = memory.decode(status_body(scene)).reruns  # recorded, not yet settled
    assert (rerun.run, rerun.sha, rerun.verdict) == (RUN_ID, scene.sha, "pending")
    assert "the outcome is not in yet" in status_body(scene)


def status_body(scene: Scene) -> str:
    [comment] = scene.github.repo(REPOSITORY).comments
    assert comment["body"].startswith(STATUS_MARKER)
    return str(comment["body"])


def passed_event(scene: Scene, attempt: int = 2) -> dict[str, Any]:
    """The `workflow_run` of the re-run's attempt that passed on the same commit."""
    event = scene.event(attempt=attempt)
    event["workflow_run"]["conclusion"] = "success"
    return event


def test_the_same_commit_passing_on_the_re_run_is_recorded_as_a_flake(scene: Scene) -> None:
    scene.failed_run("network-failure.log")
    scene.github.add_pull(REPOSITORY, PR, ("changes", scene.sha))
    scene.run(scene.event())  # attempt 1 failed: re-run

    run = scene.run(passed_event(scene))  # attempt 2 passed

    scene.nothing_done(run, "a flake, recorded in the status comment")
    body = status_body(scene)
    [rerun] = memory.decode(body).reruns
    assert (rerun.verdict, rerun.attempt) == ("flaky", 2)
    server = scene.box.server.as_uri()  # GITHUB_SERVER_URL
    assert rerun.url == f"{server}/{REPOSITORY}/actions/runs/{RUN_ID}"
    first, second = f"{rerun.url}/attempts/1", f"{rerun.url}/attempts/2"
    assert f"[attempt 1]({first}) failed, [attempt 2]({second}) passed" in body
    assert "**flaky**" in body and "this pull request changed" not in body


def test_a_flake_in_a_file_the_pull_request_changed_is_called_out(scene: Scene) -> None:
    log = (JOBLOGS / "network-failure.log").read_text(encoding="utf-8")
    log = log.replace("##[error]", "calc.py:2: while importing the fixture\n##[error]", 1)
    jobs = [("test", "failure", STEPS, log)]
    scene.github.add_run(REPOSITORY, RUN_ID, scene.sha, "changes", jobs)
    scene.github.add_pull(REPOSITORY, PR, ("changes", scene.sha))
    scene.run(scene.event())

    scene.run(passed_event(scene))

    body = status_body(scene)
    assert memory.decode(body).reruns[0].suspects == ["calc.py"]
    assert "names `calc.py`, which this pull request changed: the flake may be" in body


def test_a_passing_run_fixbot_did_not_re_run_is_left_alone(scene: Scene) -> None:
    scene.failed_run()
    scene.github.add_pull(REPOSITORY, PR, ("changes", scene.sha))
    run = scene.run(passed_event(scene))

    scene.nothing_done(run, "not failed: nothing to fix")
    assert scene.github.repo(REPOSITORY).comments == []


def test_a_second_transient_failure_is_real_not_flaky(scene: Scene) -> None:
    scene.failed_run("network-failure.log")
    scene.github.add_pull(REPOSITORY, PR, ("changes", scene.sha))
    scene.run(scene.event())
    scene.failed_run("network-failure.log", attempt=2)
    run = scene.run(scene.event(attempt=2))

    scene.nothing_done(run, "the failure is real")
    assert "flaky" not in run.outputs["reason"]
    assert scene.github.repo(REPOSITORY).reruns == [RUN_ID]  # not re-run again
    assert "::warning title=fixbot%3A the failure repeats::" in run.stdout
    body = status_body(scene)
    assert memory.decode(body).reruns[0].verdict == "real"
    assert "failed again: **real**, not a flake" in body


def test_a_re_run_failing_again_in_the_code_is_real_and_fixed(scene: Scene) -> None:
    scene.failed_run("network-failure.log")
    scene.github.add_pull(REPOSITORY, PR, ("changes", scene.sha))
    scene.run(scene.event())
    scene.failed_run(attempt=2)  # the re-run fails in a test: the failure is the code's
    scene.model.enqueue(*FIX)
    run = scene.run(scene.event(attempt=2))

    assert run.outputs["outcome"] == "fixed", run.stdout + run.stderr
    body = status_body(scene)
    assert memory.decode(body).reruns[0].verdict == "real" and "**real**" in body


@pytest.mark.parametrize(
    ("pull", "why"),
    [
        ({"author": "dependabot[bot]"}, "the bot dependabot[bot]"),
        ({"labels": ("no-fixbot",)}, "has the `no-fixbot` label"),
        ({"draft": True}, "is a draft"),
    ],
)
def test_gated_pull_requests_are_refused_with_nothing_run(
    scene: Scene, pull: dict[str, Any], why: str
) -> None:
    scene.failed_run()
    scene.github.add_pull(REPOSITORY, PR, ("changes", scene.sha), **pull)
    run = scene.run(scene.event())

    if os.geteuid() != 0 and "bot" in why and "dependabot[bot] (none permission)" in run.summary:
        # an ordinary user's runner mode has no uid split: the bot, no collaborator, is refused
        # by that gate first; refused all the same, with nothing run
        why = "dependabot[bot] (none permission)"
    scene.nothing_done(run, why)
    assert scene.github.repo(REPOSITORY).comments == []
    assert not any("actions/jobs" in r.path for r in scene.github.requests)  # no log read


def test_a_moved_head_is_refused(scene: Scene) -> None:
    scene.failed_run()
    failed = scene.sha
    scene.sha = scene.box.commit("changes", {"notes.txt": "newer\n"}, "a newer commit")
    scene.github.add_pull(REPOSITORY, PR, ("changes", scene.sha))
    run = scene.run(scene.event(sha=failed))

    scene.nothing_done(run, "a newer commit is being checked")
    assert failed[:12] in run.outputs["reason"]


def test_the_fourth_fix_on_a_pull_request_is_refused_with_a_comment(scene: Scene) -> None:
    message = "fixbot: fix {}\n\nVerified by the check.\n\nfixbot-attempt: 1"
    shas = [
        scene.box.commit("changes", {f"fix{n}.txt": f"{n}\n"}, message.format(n)) for n in (1, 2, 3)
    ]
    scene.sha = scene.box.commit("changes", {"calc.py": CALC + "# again\n"}, "break it again")
    scene.failed_run()
    scene.github.add_pull(REPOSITORY, PR, ("changes", scene.sha))
    run = scene.run(scene.event())

    scene.nothing_done(run, "`max-fixes-per-pr` limit (3)")
    [comment] = scene.github.repo(REPOSITORY).comments
    assert comment["body"].startswith(STATUS_MARKER)
    assert all(f"{sha[:12]} fixbot: fix {n}" in comment["body"] for n, sha in enumerate(shas, 1))

    scene.model.enqueue(*FIX)  # the limit is the workflow's to raise
    raised = scene.run(scene.event(), **{"max-fixes-per-pr": "4"})
    assert raised.outputs.get("outcome") == "fixed", raised.stdout + raised.stderr


def test_a_refused_re_run_names_the_permission(scene: Scene) -> None:
    scene.failed_run("network-failure.log")
    scene.github.add_pull(REPOSITORY, PR, ("changes", scene.sha))
    route = "/repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs"
    scene.github.fail("POST", route, 403, body={"message": "Resource not accessible"})
    run = scene.run(scene.event())

    assert run.code == 2 and run.outputs["outcome"] == "error", run.stdout + run.stderr
    assert "`permissions: actions: write`" in run.outputs["reason"]
    assert scene.checks == 0 and scene.model.bodies() == []


ZERO_CONFIG_CI = """\
name: CI
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - name: Prepare
        run: echo prepared
      - name: Check totals
        run: {check}
      - name: Run tests
        run: python -m pytest -q
"""


def test_no_check_command_reproduces_the_failed_step(scene: Scene) -> None:
    ci = ZERO_CONFIG_CI.format(check=scene.counter.command)
    scene.sha = scene.box.commit("changes", {".github/workflows/ci.yml": ci}, "ci")
    log = (JOBLOGS / "pytest-failure.log").read_text(encoding="utf-8")
    steps = [
        ("Set up job", "success"),
        ("Run actions/checkout@v4", "success"),
        ("Prepare", "success"),
        ("Check totals", "failure"),
        ("Run tests", "skipped"),
    ]
    scene.github.add_run(
        REPOSITORY, RUN_ID, scene.sha, "changes", [("test", "failure", steps, log)]
    )
    scene.github.add_pull(REPOSITORY, PR, ("changes", scene.sha))
    scene.model.enqueue(*FIX)
    event = scene.event()
    event["workflow_run"]["path"] = ".github/workflows/ci.yml"
    run = scene.run(event, **{"check-command": ""})

    assert run.code == 0 and run.outputs["outcome"] == "fixed", run.stdout + run.stderr
    origin = "from .github/workflows/ci.yml, job `test`, step `Check totals`"
    assert f"fixbot: check: `{scene.counter.command}` ({origin})" in run.stdout
    assert "fixbot: set-up: `echo prepared`" in run.stdout
    assert scene.checks == 1  # the failed step, verifying the fix (the log was the first run)
    assert "the check reproduces the failed step" in run.summary and "`Check totals`" in run.summary
    pushed = scene.box.origin_sha("changes")
    message = git(scene.box.origin, "log", "-1", "--format=%B", pushed)
    assert f"the check inferred {origin}" in message
