"""Which workflows are dispatched after a push (pure), and how they are reported."""

from __future__ import annotations

import pytest

from fixbot.core.github_env import GitHubEnv
from fixbot.github.events.data import Event
from fixbot.github.events.event import parse_event
from fixbot.github.publish.dispatch import Dispatched, lines, missing_trigger, targets

RUN = Event(name="workflow_run", repository="o/r", branch="b", run_workflow="ci.yml")
PUSH = Event(name="pull_request", repository="o/r", branch="b")


@pytest.mark.parametrize(
    ("configured", "event", "job_token", "expected"),
    [
        ([], RUN, True, ["ci.yml"]),  # default: the workflow whose failure started the run
        ([], PUSH, True, []),  # no default outside workflow_run
        (["lint.yml", "ci.yml", "lint.yml"], PUSH, True, ["lint.yml", "ci.yml"]),
        (["none"], RUN, True, []),
        (["NONE"], RUN, True, []),
        (["ci.yml"], RUN, False, []),  # a token whose pushes start workflows
        ([" ", ""], RUN, True, ["ci.yml"]),
    ],
)
def test_targets(configured: list[str], event: Event, job_token: bool, expected: list[str]) -> None:
    assert targets(configured, event, job_token) == expected


def test_lines_say_each_fate() -> None:
    found = lines(
        [
            Dispatched(workflow="ci.yml", branch="b", run_id=5, url="https://x/5", status="queued"),
            Dispatched(workflow="ci.yml", branch="b", run_id=6, status="action_required"),
            Dispatched(workflow="old.yml", branch="b", problem=missing_trigger("old.yml", "b")),
        ]
    )
    assert found[0] == "- CI re-run `ci.yml` on `b`: https://x/5 (queued)"
    assert "6 waits for a maintainer's approval" in found[1]
    assert "Add `workflow_dispatch:` under `on:` in `.github/workflows/old.yml`" in found[2]


def test_the_workflow_run_event_names_its_workflow_file() -> None:
    payload = {
        "repository": {"full_name": "o/r", "default_branch": "main"},
        "workflow_run": {
            "head_branch": "b",
            "head_sha": "a" * 40,
            "path": ".github/workflows/ci.yml@refs/heads/main",
            "conclusion": "failure",
        },
    }
    assert parse_event("workflow_run", payload, GitHubEnv.read({})).run_workflow == "ci.yml"
