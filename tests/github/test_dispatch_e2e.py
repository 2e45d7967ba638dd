"""End to end: after a push made with the job's `GITHUB_TOKEN`, fixbot dispatches the CI workflow
on the branch and links the new run, against the fake GitHub and model."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixbot.github.publish.render import TOKEN_NOTE
from tests.fakes.action_env import REPOSITORY
from tests.fakes.github_server import BLOB_PREFIX, FakeGitHub
from tests.fakes.model_server import FakeModelServer
from tests.github.api.test_rest import openapi_routes
from tests.github.test_cifail_e2e import FIX, JOBLOGS, PR, STEPS, Scene

pytestmark = pytest.mark.slow
WORKFLOW = "test.yml"  # the `path` of the vendored workflow_run example: .github/workflows/test.yml


@pytest.fixture
def scene(tmp_path: Path, github_server: FakeGitHub, model_server: FakeModelServer) -> Scene:
    found = Scene(tmp_path, github_server, model_server)
    found.failed_run()
    github_server.add_pull(REPOSITORY, PR, ("changes", found.sha))
    model_server.enqueue(*FIX)
    return found


def status_body(scene: Scene) -> str:
    [comment] = scene.github.repo(REPOSITORY).comments
    return str(comment["body"])


def test_the_failed_workflow_is_dispatched_on_the_branch_and_linked(scene: Scene) -> None:
    scene.github.add_workflow(REPOSITORY, WORKFLOW)
    run = scene.run(scene.event())

    assert run.outputs["outcome"] == "fixed", run.stdout + run.stderr
    [dispatch] = scene.github.repo(REPOSITORY).dispatches
    assert dispatch["workflow"] == f".github/workflows/{WORKFLOW}"
    assert dispatch["ref"] == "changes" and dispatch["return_run_details"] is True
    new_run = next(
        r
        for r in scene.github.repo(REPOSITORY).runs.values()
        if isinstance(r, dict) and r.get("event") == "workflow_dispatch"
    )
    body = status_body(scene)
    assert f"CI re-run `{WORKFLOW}` on `changes`: {new_run['html_url']} (queued)" in body
    assert TOKEN_NOTE not in body  # the advice is replaced by the run itself
    assert new_run["html_url"] in run.summary
    called = scene.github.routes_called() - {f"GET {BLOB_PREFIX}", "POST /graphql"}
    assert "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches" in called
    assert called <= openapi_routes() and scene.github.unmatched == []


def test_a_token_with_a_user_dispatches_nothing(scene: Scene) -> None:
    scene.github.add_workflow(REPOSITORY, WORKFLOW)
    scene.github.token_login = "octo-maintainer"  # a PAT: its pushes start workflows
    run = scene.run(scene.event())

    assert run.outputs["outcome"] == "fixed", run.stdout + run.stderr
    assert scene.github.repo(REPOSITORY).dispatches == []
    assert "CI re-run" not in status_body(scene)


def test_dispatch_workflows_none_dispatches_nothing(scene: Scene) -> None:
    scene.github.add_workflow(REPOSITORY, WORKFLOW)
    run = scene.run(scene.event(), **{"dispatch-workflows": "none"})

    assert run.outputs["outcome"] == "fixed", run.stdout + run.stderr
    assert scene.github.repo(REPOSITORY).dispatches == []
    assert TOKEN_NOTE in status_body(scene)


def test_named_workflows_are_dispatched_instead(scene: Scene) -> None:
    scene.github.add_workflow(REPOSITORY, WORKFLOW)
    scene.github.add_workflow(REPOSITORY, "lint.yml")
    run = scene.run(scene.event(), **{"dispatch-workflows": "lint.yml"})

    assert run.outputs["outcome"] == "fixed", run.stdout + run.stderr
    assert [d["workflow"] for d in scene.github.repo(REPOSITORY).dispatches] == [
        ".github/workflows/lint.yml"
    ]


def test_a_workflow_without_workflow_dispatch_says_what_to_add(scene: Scene) -> None:
    scene.github.add_workflow(REPOSITORY, WORKFLOW, dispatch=False)
    run = scene.run(scene.event())

    assert run.outputs["outcome"] == "fixed", run.stdout + run.stderr
    body = status_body(scene)
    assert f"Add `workflow_dispatch:` under `on:` in `.github/workflows/{WORKFLOW}`" in body
    assert scene.github.repo(REPOSITORY).dispatches == []


def test_a_run_waiting_for_approval_is_reported_as_such(scene: Scene) -> None:
    scene.github.add_workflow(REPOSITORY, WORKFLOW, approval=True)
    run = scene.run(scene.event())

    assert run.outputs["outcome"] == "fixed", run.stdout + run.stderr
    assert "waits for a maintainer's approval (`action_required`)" in status_body(scene)


def test_a_refused_dispatch_names_the_permission_and_keeps_the_fix(scene: Scene) -> None:
    scene.github.add_workflow(REPOSITORY, WORKFLOW)
    route = "/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches"
    scene.github.fail("POST", route, 403, body={"message": "Resource not accessible"})
    run = scene.run(scene.event())

    assert run.code == 0 and run.outputs["outcome"] == "fixed", run.stdout + run.stderr
    assert "`permissions: actions: write`" in status_body(scene)


def test_the_dispatched_runs_failure_comes_back_bounded_by_the_fix_budget(scene: Scene) -> None:
    scene.github.add_workflow(REPOSITORY, WORKFLOW)
    first = scene.run(scene.event(), **{"max-fixes-per-pr": "1"})
    pushed = first.outputs["commit-sha"]
    assert first.outputs["outcome"] == "fixed" and pushed, first.stdout + first.stderr
    assert len(scene.github.repo(REPOSITORY).dispatches) == 1
    # The dispatched run fails on fixbot's own commit and comes back as a workflow_run.
    log = (JOBLOGS / "pytest-failure.log").read_text(encoding="utf-8")
    scene.github.add_run(REPOSITORY, 5151, pushed, "changes", [("test", "failure", STEPS, log)])
    event = scene.event(sha=pushed)
    event["workflow_run"]["id"] = 5151
    event["workflow_run"]["pull_requests"][0]["head"]["sha"] = pushed

    again = scene.run(event, **{"max-fixes-per-pr": "1"})

    assert again.outputs["outcome"] == "refused", again.stdout + again.stderr
    assert "`max-fixes-per-pr` limit (1)" in again.outputs["reason"]  # the budget, not a loop
    assert "made by fixbot itself" not in again.outputs["reason"]
    assert scene.box.origin_sha("changes") == pushed
    assert len(scene.github.repo(REPOSITORY).dispatches) == 1
