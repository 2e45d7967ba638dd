"""A workflow's jobs read as data (PyYAML's `safe_load`) and ranked by how surely each runs the
project's tests: the job to reproduce and, in it, the step that is the check.

Nothing is resolved or run here: a step is scored by its `run:` text and its name, a job by its
triggers, id, name, runner and the steps before its check that fixbot could not reproduce
(`fixbot.infer.actions`). `fixbot.infer.workflow` turns the chosen job into a plan. YAML 1.1
reads the `on:` key as True.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from fixbot.infer import actions
from fixbot.infer.expressions import Context

# A test runner's command: its own word, a tool's `test` subcommand, a task runner's test
# target, or a script named test (`scripts/test`, `ci/test-complete`).
_START = r"(?:^|(?<=[\s;&|(]))"
TEST = re.compile(
    _START + r"(?:pytest|py\.test|tox|nox|gotestsum|jest|vitest|mocha|ava|xvfb-run)(?![\w-])"
    r"|\bpython\d?(?:\.\d+)?\s+-m\s+(?:pytest|unittest)\b"
    r"|(?:\b(?:go|cargo|deno|bun|hatch|dotnet)|\}\})\s+(?:[+\w-]+\s+)?(?:test|nextest)\b"
    r"|\b(?:npm|yarn|pnpm|bun)\s+(?:run\s+|run-script\s+)?(?:-\S+\s+)*(?:t|test[\w:.-]*|ci-test[\w:.-]*|unit[\w:.-]*)(?![\w-])"
    r"|\b(?:make|just|hatch\s+run|task)\s+(?:-\S+\s+|\w+=\S+\s+)*(?:\S+:)?(?:[\w.-]*test[\w:.-]*|check)(?![\w-])"
    r"|\bnode\s+--test\b"
    r"|" + _START + r"(?:\./|[\w.-]+/)+test[\w.-]*(?=\s|$)",
    re.M,
)
# A step that is a check of its own (lint, types, format): not a set-up.
LINT = re.compile(
    _START + r"(?:ruff|flake8|mypy|pyright|pylint|black|isort|eslint|prettier|tsc|xo|"
    r"golangci-lint|staticcheck|gofmt|go\s+vet|cargo\s+(?:clippy|fmt|doc)|rustfmt|codespell|"
    r"pre-commit|typos|cargo\s+audit|cargo\s+deny)(?![\w-])"
    r"|\b(?:make|just|npm\s+run|yarn|pnpm)\s+(?:lint|vet|fmt|format|typecheck|type-check|"
    r"format-check)[\w:.-]*",
    re.M,
)
WORD_TEST = re.compile(r"test", re.I)
WINDOWS_OR_MAC = re.compile(r"windows|macos|mac-", re.I)


@dataclass(frozen=True)
class Job:
    """One job of one workflow file: its id, its mapping and the workflow's mapping."""

    path: str
    id: str
    body: Mapping[str, Any]
    workflow: Mapping[Any, Any]

    @property
    def name(self) -> str:
        """The job's `name:` as written, else its id."""
        return str(self.body.get("name") or self.id)


def load(text: str) -> Mapping[Any, Any] | None:
    """A workflow file's mapping, None when it is not YAML or has no jobs."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("jobs"), dict):
        return None
    return data


def jobs(files: Mapping[str, str]) -> list[Job]:
    """Every job of every workflow in `files` (path -> text), in file then job order."""
    found: list[Job] = []
    for path, text in files.items():
        data = load(text)
        if data is None:
            continue
        for job_id, body in data["jobs"].items():
            if isinstance(body, dict):
                found.append(Job(path, str(job_id), body, data))
    return found


def steps_of(job: Job) -> list[Mapping[str, Any]]:
    """The job's steps (a reusable-workflow job has none)."""
    steps = job.body.get("steps")
    return [s for s in steps if isinstance(s, dict)] if isinstance(steps, list) else []


def step_name(step: Mapping[str, Any]) -> str:
    """A step as GitHub names it: `name:`, else `Run <first line>` or `Run <action>`."""
    if step.get("name"):
        return str(step["name"])
    if "run" in step:
        return f"Run {str(step['run']).strip().splitlines()[0] if str(step['run']).strip() else ''}"
    return f"Run {step.get('uses', '')}"


INSTALL = re.compile(r"\binstall\b")
LINT_NAME = re.compile(r"lint|format|type ?check|mypy|style|spell", re.I)


def test_score(step: Mapping[str, Any]) -> int:
    """How surely a step runs the tests: 2 when it runs a test runner and says `test` (in its
    command or name), 1 for a test runner alone or a step named for tests, 0 otherwise."""
    if "run" not in step:
        return 0
    # a line installing a runner (`pip install pytest`) does not run it
    body = "\n".join(line for line in str(step["run"]).splitlines() if not INSTALL.search(line))
    named = bool(WORD_TEST.search(str(step.get("name", ""))))
    if not TEST.search(body):
        return 1 if named and body.strip() and not LINT.search(body) else 0
    return 2 if named or WORD_TEST.search(body) else 1


def _triggers(workflow: Mapping[Any, Any]) -> object:
    return workflow.get("on", workflow.get(True))  # YAML 1.1 reads `on` as True


def job_score(job: Job) -> tuple[int, ...]:
    """How surely `job` runs the project's tests, compared in order: a pull-request or push
    trigger, its id or name (3: `test` or `tests`, 2: starting with `test`, 1: holding it), its
    best `test_score`, fewer steps fixbot cannot reproduce, a Linux runner, `test` in the
    file's name."""
    steps = steps_of(job)
    scores = [test_score(step) for step in steps]
    best = max(scores, default=0)
    before = steps[: scores.index(best)] if best else steps
    unknown = sum(1 for s in before if "uses" in s and not _known(str(s["uses"])))
    in_file = bool(WORD_TEST.search(job.path.rsplit("/", 1)[-1]))
    return (int(_on_change(job)), _said(job), best, -unknown, int(_linux(job)), int(in_file))


def _said(job: Job) -> int:
    """How surely the job's id or name says it tests: 3 for `test` or `tests`, 2 for a name
    starting with `test`, 1 for one holding the word, else 0."""
    named = f"{job.id} {job.name}".lower()
    said = 3 if job.id.lower() in ("test", "tests") else 2 if named.startswith("test") else 0
    return said or int(bool(WORD_TEST.search(named)))


def _on_change(job: Job) -> bool:
    """True when the job's workflow runs on a pull request or a push."""
    text = str(_triggers(job.workflow))
    return "pull_request" in text or "push" in text


def _linux(job: Job) -> bool:
    """True when the job runs on Linux, or on a runner its matrix chooses."""
    runs_on = str(job.body.get("runs-on", ""))
    return not WINDOWS_OR_MAC.search(runs_on) or "matrix" in runs_on


def _known(uses: str) -> bool:
    return actions.harmless(uses) or actions.tool_of(uses, None, Context()) is not None


def check_step(job: Job) -> int | None:
    """The index of the job's test step: the best `test_score`, the first of equals; in a job
    named `test` or `tests` whose steps name no test runner, its last `run:` step (the job says
    what it runs); None when there is none."""
    steps = steps_of(job)
    ranks = [test_score(step) for step in steps]
    best = max(ranks, default=0)
    if best:
        return ranks.index(best)
    runs = [i for i, step in enumerate(steps) if "run" in step]
    return runs[-1] if runs and job.id.lower() in ("test", "tests") else None


def ranked(files: Mapping[str, str]) -> list[Job]:
    """The jobs with a step that runs tests (`test_score`), best `job_score` first (equals
    in file order)."""
    candidates = [job for job in jobs(files) if check_step(job) is not None]
    return sorted(candidates, key=job_score, reverse=True)  # sorted is stable
