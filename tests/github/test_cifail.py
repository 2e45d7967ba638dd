"""The workflow_run facts fixbot reads from the event, and the transient-failure decision."""

from __future__ import annotations

import pytest

from fixbot.core.github_env import GitHubEnv
from fixbot.github.api.runs import Job, Step
from fixbot.github.cifail import transient
from fixbot.github.events.event import parse_event
from fixbot.logs.joblog import FirstFailure, from_text
from tests.fakes.action_env import load_event
from tests.fakes.paths import DATA

JOBLOGS = DATA / "joblogs"
ENV = GitHubEnv.read({"GITHUB_REPOSITORY": "Codertocat/Hello-World"})


def test_workflow_run_carries_the_run_id_attempt_and_actor() -> None:
    payload = load_event("workflow_run.completed")
    event = parse_event("workflow_run", payload, ENV)
    assert (event.run_id, event.run_attempt, event.run_actor) == (289782451, 1, "Codertocat")
    pr = event.pull_request
    # workflow_run's pull requests carry no author, labels or draft flag: fixbot reads them
    assert pr is not None and (pr.author, pr.labels, pr.draft) == (None, None, None)


def test_pull_request_carries_author_labels_and_draft() -> None:
    payload = load_event("pull_request.opened")
    payload["pull_request"]["labels"] = [{"name": "no-fixbot"}]
    pr = parse_event("pull_request", payload, ENV).pull_request
    assert pr is not None and (pr.author, pr.labels, pr.draft) == (
        "Codertocat",
        ["no-fixbot"],
        False,
    )


def job(conclusion: str, step: str | None, step_conclusion: str = "failure") -> Job:
    steps = [Step(number=1, name="Set up job", conclusion="success")]
    if step:
        steps.append(Step(number=2, name=step, conclusion=step_conclusion))
    return Job(id=1, name="test", conclusion=conclusion, steps=steps)


ASSERTION = from_text((JOBLOGS / "pytest-failure.log").read_text(), "log")
NETWORK = from_text((JOBLOGS / "network-failure.log").read_text(), "log")
LOST = FirstFailure(
    text="The hosted runner: GitHub Actions 12 lost communication with the server.", source="x"
)


@pytest.mark.parametrize(
    ("first", "jobs", "category"),
    [
        (ASSERTION, [job("failure", "Run tests")], None),
        (NETWORK, [job("failure", "Run pip install")], "network"),
        (LOST, [job("failure", "Run tests")], "runner"),
        (ASSERTION, [job("failure", None)], "runner"),  # no step failed: the runner went away
        (ASSERTION, [job("timed_out", "Set up Python", "timed_out")], "timeout"),
        (ASSERTION, [job("timed_out", "Run tests", "timed_out")], None),  # a hang is the code's
    ],
)
def test_transient(first: FirstFailure, jobs: list[Job], category: str | None) -> None:
    found = transient(first, jobs)
    assert (found.category if found else None) == category
