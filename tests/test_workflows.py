"""The workflows a user copies (the README's and the shipped ones) are right as copied:
a `workflow_run` job may re-run a flaky job (`actions: write`), one fixbot runs per pull request
whatever the event, and a `docker://` reference is lowercase once `OWNER` is filled in."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.fakes.paths import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
SHIPPED = ROOT / ".github" / "workflows" / "fixbot.yml"


def copied_workflows() -> list[tuple[str, dict[str, Any]]]:
    """(where, workflow) for each workflow in the README's yaml blocks and the shipped one."""
    found = []
    for index, block in enumerate(re.findall(r"```yaml\n(.*?)```", README, re.S)):
        data = yaml.safe_load(block)
        if isinstance(data, dict) and "jobs" in data:
            found.append((f"README.md yaml block {index + 1}", data))
    found.append((str(SHIPPED.relative_to(ROOT)), yaml.safe_load(SHIPPED.read_text())))
    return found


def triggers(workflow: dict[str, Any]) -> dict[str, Any]:
    on = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as True
    return on if isinstance(on, dict) else {name: None for name in on}


@pytest.mark.parametrize(("where", "workflow"), copied_workflows(), ids=lambda v: str(v)[:40])
def test_a_workflow_run_job_may_rerun_a_flaky_job(where: str, workflow: dict[str, Any]) -> None:
    if "workflow_run" not in triggers(workflow):
        pytest.skip("no workflow_run trigger")
    for name, job in workflow["jobs"].items():
        assert job["permissions"].get("actions") == "write", f"{where}: job {name}"


def github_value(path: str, github: dict[str, Any]) -> Any:
    """`github.a.b[0].c` in the `github` context, or None where a part is missing."""
    value: Any = github
    for key, index in re.findall(r"([A-Za-z_-]+)(?:\[(\d+)\])?", path.removeprefix("github.")):
        value = value.get(key) if isinstance(value, dict) else None
        if index and isinstance(value, list):
            value = value[int(index)] if len(value) > int(index) else None
    return value


def group_of(expression: str, github: dict[str, Any]) -> str:
    """The concurrency group `fixbot-${{ a || b || ... }}` for the `github` context."""
    found = re.fullmatch(r"(.*)\$\{\{ (.+) \}\}", expression)
    assert found, expression
    values = [github_value(p.strip(), github) for p in found[2].split("||")]
    return found[1] + str(next((v for v in values if v), ""))


PR = {"number": 7, "head": {"ref": "feature"}}
EVENTS = {
    "pull_request": {"event": {"pull_request": PR}, "ref_name": "7/merge"},
    "pull_request_review": {"event": {"pull_request": PR}, "ref_name": "feature"},
    "issue_comment": {"event": {"issue": {"number": 7, "pull_request": {}}}, "ref_name": "main"},
    "workflow_run": {
        "event": {"workflow_run": {"head_branch": "feature", "pull_requests": [{"number": 7}]}},
        "ref_name": "main",
    },
}


def test_one_fixbot_per_pull_request_whatever_the_event() -> None:
    job = yaml.safe_load(SHIPPED.read_text())["jobs"]["fixbot"]
    expression = job["concurrency"]["group"]
    groups = {event: group_of(expression, github) for event, github in EVENTS.items()}
    assert set(groups.values()) == {"fixbot-7"}, groups
    lone = {"event": {"workflow_run": {"head_branch": "topic", "pull_requests": []}}}
    pushed = {"event": {}, "ref_name": "topic"}
    assert group_of(expression, lone) == group_of(expression, pushed) == "fixbot-topic"


def test_docker_references_are_lowercase_once_owner_is_filled_in() -> None:
    texts = [README, *(p.read_text() for p in (ROOT / ".github" / "workflows").glob("*.yml"))]
    references = [r for text in texts for r in re.findall(r"docker://([^\s`#'\"]+)", text)]
    assert references
    for reference in references:  # the repository part; a tag may hold capitals (`vX.Y.Z`)
        name = reference.split(":")[0].split("@")[0]
        assert name.replace("OWNER", "owner") == name.lower(), reference
    assert "write the owner in lowercase" in README
    assert "replace `OWNER` with the GitHub user or organization" in README


@pytest.mark.slow
def test_the_shipped_workflow_passes_actionlint() -> None:
    import shutil
    import subprocess
    import sys

    actionlint = shutil.which("actionlint", path=str(Path(sys.executable).parent))
    assert actionlint, "actionlint comes with the lint extra (scripts/setup.sh installs it)"
    done = subprocess.run([actionlint, str(SHIPPED)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
