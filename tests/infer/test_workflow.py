"""The test job of a workflow into a plan: the job chosen, the steps before the test step as the
set-up, matrix, env, working-directory, shell and `if:` resolved, the rest named."""

from __future__ import annotations

import subprocess
import textwrap

from fixbot.infer import workflow

CI = textwrap.dedent(
    """
    name: CI
    on: [push, pull_request]
    env: {FORCE_COLOR: "1"}
    jobs:
      lint:
        runs-on: ubuntu-latest
        steps:
          - uses: actions/checkout@v4
          - run: ruff check .
      test:
        runs-on: ${{ matrix.os }}
        strategy:
          matrix:
            os: [windows-latest, ubuntu-latest]
            python: ["3.12", "3.11"]
        services:
          redis: {image: redis}
        defaults:
          run: {working-directory: pkg}
        steps:
          - uses: actions/checkout@v4
          - uses: actions/setup-python@v5
            with: {python-version: "${{ matrix.python }}"}
          - uses: some/builder@v1
          - name: Windows only
            if: runner.os == 'Windows'
            run: choco install thing
          - name: Lint
            run: flake8
          - name: Install
            run: |
              pip install -e .
              pip install pytest
          - name: Run tests
            run: pytest -q
            env: {TOKEN: "${{ secrets.TOKEN }}", PY: "${{ matrix.python }}"}
    """
)


def plan():  # type: ignore[no-untyped-def]
    files = {".github/workflows/ci.yml": CI}
    job = workflow.choose(files)
    assert job is not None and job.id == "test"
    return workflow.plan_for(job)


def test_the_test_step_is_the_check_with_its_origin() -> None:
    found = plan()
    assert found.check is not None
    assert found.check.command == "cd pkg && export FORCE_COLOR=1 PY=3.12 && pytest -q"
    assert str(found.check.origin) == "from .github/workflows/ci.yml, job `test`, step `Run tests`"


def test_the_steps_before_are_the_set_up_lint_and_windows_left_out() -> None:
    found = plan()
    assert [s.origin.step for s in found.setup] == ["Install"]
    assert found.setup[0].command.startswith("(cd pkg && export FORCE_COLOR=1 && bash -e -c ")
    assert any("`Lint` is left out" in n for n in found.notes)
    assert any("`Windows only` is left out" in n for n in found.notes)
    assert any("os=ubuntu-latest, python=3.12" in n for n in found.notes)


def test_what_cannot_be_reproduced_is_named_with_the_input() -> None:
    found = plan()
    text = "\n".join(found.unresolved)
    assert "some/builder@v1" in text and "setup-command" in text
    assert "`redis`" in text
    assert any("TOKEN" in n and "secrets.TOKEN" in n for n in found.notes)  # never passed on
    assert [(t.program, t.wanted) for t in found.tools] == [("python", "Python 3.12")]


def test_a_multiline_script_runs_as_github_runs_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    command = workflow.render("false\necho reached", None, None, {})
    done = subprocess.run(["/bin/sh", "-c", command], capture_output=True, text=True, check=False)
    assert done.returncode == 1 and "reached" not in done.stdout  # bash -e stops at `false`
    command = workflow.render("false | true", "bash", None, {"A": "it's"})
    assert command == "export A='it'\"'\"'s' && false | true"


def test_no_test_job_is_none() -> None:
    assert (
        workflow.choose({".github/workflows/x.yml": "on: push\njobs: {a: {steps: [{run: ls}]}}"})
        is None
    )
    assert workflow.choose({".github/workflows/x.yml": "not: [yaml"}) is None
