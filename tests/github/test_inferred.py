"""The Action's check with no `check-command`: the failed step when it is found at the run's
head, else the CLI's inference, said in the notes and the log; a given check wins."""

from __future__ import annotations

import io
from pathlib import Path

from fixbot.core.settings import Settings
from fixbot.github.cifail import FailedStep
from fixbot.github.events.data import Event
from fixbot.github.inferred import settle
from tests.fakes.repo import git, make_repo

CI = """on: push
jobs:
  test:
    steps:
      - run: make deps
      - name: Lint
        run: make tidy
      - name: Unit
        run: make test
"""


def clone(tmp_path: Path) -> tuple[Path, str]:
    repo = make_repo(tmp_path / "repo", {".github/workflows/ci.yml": CI, "Makefile": "x:\n"})
    return repo, git(repo, "rev-parse", "HEAD")


def test_the_failed_step_is_the_check_and_the_steps_before_the_set_up(tmp_path: Path) -> None:
    repo, sha = clone(tmp_path)
    event = Event(name="workflow_run", repository="o/r", sha=sha, run_workflow="ci.yml")
    out = io.StringIO()
    failed = FailedStep("test", "Lint", 3)
    settings, notes, origin = settle(Settings(infer_fixes=False), event, failed, repo, repo, out)
    assert (settings.check, settings.setup) == ("make tidy", "make deps")
    assert origin == "from .github/workflows/ci.yml, job `test`, step `Lint`"
    assert notes == [f"the check reproduces the failed step: `make tidy` ({origin})"]
    assert f"fixbot: check: `make tidy` ({origin})" in out.getvalue()


def test_a_step_not_found_falls_back_to_the_inference_and_says_so(tmp_path: Path) -> None:
    repo, sha = clone(tmp_path)
    event = Event(name="workflow_run", repository="o/r", sha=sha, run_workflow="ci.yml")
    failed = FailedStep("build", "Compile", 2)
    settings, notes, _ = settle(Settings(), event, failed, repo, repo, io.StringIO())
    assert settings.check == "make test"  # the job's test step, as `fixbot run` infers it
    assert "step `Compile` of job `build` in .github/workflows/ci.yml: not found" in notes[0]


def test_a_given_check_wins(tmp_path: Path) -> None:
    repo, _ = clone(tmp_path)
    given = Settings(check="pytest -q")
    event = Event(name="pull_request", repository="o/r")
    assert settle(given, event, None, repo, repo, io.StringIO()) == (given, [], "")


def test_a_job_named_by_an_expression_is_found_by_its_rendered_name(tmp_path: Path) -> None:
    ci = CI.replace("  test:\n", "  test:\n    name: ${{ matrix.name }}\n").replace(
        "    steps:\n",
        "    strategy:\n      matrix:\n        include:\n"
        "          - {name: Unit tests, go: '1.22'}\n"
        "          - {name: Old Go, go: '1.19'}\n    steps:\n",
        1,
    )
    repo = make_repo(tmp_path / "repo", {".github/workflows/ci.yml": ci, "Makefile": "x:\n"})
    event = Event(name="workflow_run", repository="o/r", sha=git(repo, "rev-parse", "HEAD"))
    event = event.model_copy(update={"run_workflow": "ci.yml"})
    out = io.StringIO()
    failed = FailedStep("Old Go", "Unit", 4)
    settings, notes, _ = settle(Settings(infer_fixes=False), event, failed, repo, repo, out)
    assert settings.check == "make test" and notes[0].startswith("the check reproduces the failed")
    assert "go=1.19 (the combination named `Old Go`)" in out.getvalue()
