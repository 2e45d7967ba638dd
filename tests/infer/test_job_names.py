"""A failed job found by the name the jobs API shows when its `name:` is all expression: the
name rendered over every matrix combination (with `include:` as GitHub merges it), and the
combination whose rendered name is the one shown is the one reproduced. The workflows are
real ones vendored under tests/data/workflows/ (sources in tests/data/README.md)."""

from __future__ import annotations

import textwrap

from fixbot.infer import workflow
from tests.fakes.paths import ROOT

DATA = ROOT / "tests" / "data" / "workflows"
FLASK = ".github/workflows/tests.yaml"
FLASK_STEP = "Run uv run --locked --no-default-groups --group dev tox run"


def flask() -> dict[str, str]:
    return {FLASK: (DATA / "pallets__flask" / "tests.yaml").read_text()}


def test_a_name_from_an_include_entry_finds_its_combination() -> None:
    # `name: ${{ matrix.name || matrix.python }}`: the jobs API shows "Minimum Versions"
    plan = workflow.at_failure(flask(), FLASK, "Minimum Versions", FLASK_STEP, 5)
    assert plan is not None and plan.check is not None
    assert plan.check.command.startswith("export TOX_ENV=tests-min && uv run")
    said = "matrix of job `tests`: name=Minimum Versions, python=3.14, tox=tests-min"
    assert f"{said} (the combination named `Minimum Versions`)" in plan.notes


def test_a_name_falling_back_to_another_value_finds_its_combination() -> None:
    plan = workflow.at_failure(flask(), FLASK, "3.12", FLASK_STEP, 5)
    assert plan is not None and plan.check is not None
    assert plan.check.command.startswith("export TOX_ENV=py3.12 && uv run")


def test_a_name_of_several_expressions_finds_its_combination() -> None:
    path = ".github/workflows/test.yml"
    files = {path: (DATA / "urfave__cli" / "test.yml").read_text()}
    plan = workflow.at_failure(files, path, "ubuntu-24.04 @ Go oldstable", "Run make test", None)
    assert plan is not None and plan.check is not None
    assert plan.check.command == "make test"
    assert "go=oldstable" in " ".join(plan.notes)
    # `make ensure-goimports` runs only for Go stable: not a set-up of the oldstable job
    assert [s.command for s in plan.setup] == []


def test_a_format_name_finds_its_combination() -> None:
    ci = textwrap.dedent(
        """\
        on: [push]
        jobs:
          tests:
            name: ${{ format('test ({0}, {1})', matrix.python, matrix.os) }}
            runs-on: ${{ matrix.os }}
            strategy:
              matrix:
                os: [ubuntu-latest, windows-latest]
                python: ['3.10', '3.11', '3.12']
            steps:
              - uses: actions/checkout@v4
              - run: python -m pytest
                env: {PY: '${{ matrix.python }}'}
        """
    )
    path = ".github/workflows/ci.yml"
    plan = workflow.at_failure({path: ci}, path, "test (3.11, ubuntu-latest)", "", 3)
    assert plan is not None and plan.check is not None
    assert plan.check.command == "export PY=3.11 && python -m pytest"
    assert workflow.at_failure({path: ci}, path, "test (3.9, ubuntu-latest)", "", 3) is None


def test_a_step_is_named_as_the_run_shows_it() -> None:
    # GitHub's starter Node.js workflow: `name: Use Node.js ${{ matrix.node-version }}`
    ci = textwrap.dedent(
        """\
        on: [push]
        jobs:
          build:
            runs-on: ubuntu-latest
            strategy:
              matrix:
                node-version: [18.x, 20.x]
            steps:
            - uses: actions/checkout@v4
            - name: Use Node.js ${{ matrix.node-version }}
              uses: actions/setup-node@v4
              with:
                node-version: ${{ matrix.node-version }}
            - name: Test on ${{ matrix.node-version }}
              run: npm test
        """
    )
    path = ".github/workflows/ci.yml"
    plan = workflow.infer({path: ci})
    assert plan is not None and plan.check is not None
    assert plan.check.origin.step == "Test on 18.x"
    assert [t.origin.step for t in plan.tools] == ["Use Node.js 18.x"]
    shown = workflow.at_failure({path: ci}, path, "build (20.x)", "Test on 20.x", None)
    assert shown is not None and shown.check is not None
    assert shown.check.origin.step == "Test on 20.x"
