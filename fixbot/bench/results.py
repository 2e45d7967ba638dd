"""The data of a bench run: the cases as workers receive them, the budget and options, each
run's result and grade (`fixbot.bench.run` fills them; `report` and `baseline` read them), and
the small helpers both runners share.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, Field

from fixbot.bench.localize import Localization

if TYPE_CHECKING:
    from fixbot.bench.prepare import Prepared

GRADE_TIMEOUT_S = 600.0  # one grading command (the check, the hidden tests), seconds


class Runner(StrEnum):
    """Who fixes the case."""

    FIXBOT = "fixbot"
    ORACLE = "oracle"
    DETERMINISTIC = "deterministic"
    BASELINE = "baseline"
    LOCALIZE = "localize"

    @property
    def claims(self) -> bool:
        """Whether this runner is fixbot's engine, which says how it ended (`fixed`, ...)."""
        return self in (Runner.FIXBOT, Runner.ORACLE, Runner.DETERMINISTIC)


class Grade(StrEnum):
    """How a case ended (`fixbot.bench.run`'s docstring): judged on the prepared tree first, then
    on the final tree and, for fixbot's runners, on what fixbot said."""

    FIXED = "fixed"
    WRONG = "verified-but-wrong"
    ESCALATED = "escalated"
    UNCLAIMED = "green-unclaimed"  # the final tree passes but fixbot did not say `fixed`
    NEVER_FAILED = "never-failed"  # the check passed on the prepared tree: nothing to fix
    ERROR = "error"
    MEASURED = "measured"  # `Runner.LOCALIZE`: only the first request was measured, no grade


class Job(BaseModel):
    """One prepared case, as a worker process receives it."""

    id: str
    family: str
    ecosystem: str
    repo: Path
    env: dict[str, str]
    check: str
    hidden_command: str | None = None
    fix_patch: str
    hidden_patch: str = ""
    part: str = "dev"  # `fixbot.bench.corpus.Part`: dev or held-out

    @classmethod
    def of(cls, prepared: Prepared) -> Job:
        """The job for a case prepared by `fixbot.bench.prepare.prepare`."""
        from fixbot.bench.corpus import part_of

        return cls(
            part=part_of(prepared.case.id).value,
            id=prepared.case.id,
            family=prepared.case.family.value,
            ecosystem=prepared.case.ecosystem.value,
            repo=prepared.repo,
            env=dict(prepared.env),
            check=prepared.check,
            hidden_command=prepared.hidden_command,
            fix_patch=prepared.fix_patch,
            hidden_patch=prepared.hidden_patch,
        )


class Budget(BaseModel):
    """A case's budget: fix attempts, tokens (prompt plus completion), USD and wall seconds."""

    attempts: Annotated[int, Field(ge=1)] = 3
    tokens: Annotated[int, Field(gt=0)] = 200_000
    usd: Annotated[float, Field(gt=0)] = 0.5
    seconds: Annotated[float, Field(gt=0)] = 600.0


class Options(BaseModel):
    """How to run: `model` None with `Runner.DETERMINISTIC`; `api_base` for a local server."""

    model: str | None = None
    api_base: str | None = None
    edit_protocol: str = "auto"
    request_timeout: Annotated[float, Field(gt=0)] = 180.0  # seconds for one model request
    budget: Budget = Field(default_factory=lambda: Budget())
    requests_dir: Path | None = None  # each case's first request is written there as <id>.txt
    # fixbot's own first check alone says whether a case fails at the start (`fixbot.bench.run.
    # run_case`, fixbot's runners only): no plain check of the prepared tree before the run, for a
    # caller that checks that tree's failure itself (tests/bench/test_run_corpus.py's --verify)
    start_by_engine: bool = False


class CaseResult(BaseModel):
    """One case run by one runner: the grade, fixbot's own outcome and reason, and its costs
    (USD None when the model's price is unknown; wall time in seconds)."""

    id: str
    family: str
    ecosystem: str
    runner: Runner
    grade: Grade
    part: str = "dev"  # of the corpus (`fixbot.bench.corpus.Part`)
    outcome: str = ""
    reason: str = ""
    attempts: int = 0
    model_calls: int = 0
    tokens: int = 0
    usd: float | None = 0.0
    wall_s: float = 0.0
    check_passes: bool = False
    hidden_passes: bool | None = None
    false_alarms: list[str] = Field(default_factory=list)
    over_budget: list[str] = Field(default_factory=list)
    localization: Localization | None = None
    spectrum: str = ""  # why the coverage spectrum was skipped in the first attempt ('' ran)
    notes: list[str] = Field(default_factory=list)


def copy_repo(source: Path, into: Path) -> Path:
    """A throwaway copy of the repository `source` (symlinks kept) at `into`."""
    shutil.copytree(source, into, symlinks=True)
    return into


def apply_patch(repo: Path, patch: str) -> str | None:
    """Apply the unified diff `patch` in the git repository `repo` with fixbot's git (`git
    apply`); None when it applied, else git's message."""
    from fixbot.process import git

    with tempfile.NamedTemporaryFile("w", suffix=".patch", delete=False) as handle:
        handle.write(patch)
    try:
        done = git.completed(repo, "apply", "--whitespace=nowarn", handle.name)
    finally:
        os.unlink(handle.name)
    return None if done.returncode == 0 else (done.stderr.strip() or done.stdout.strip())


def run_in(command: str, cwd: Path, env: dict[str, str], log: Path) -> int | None:
    from fixbot.process.spawn import run_command

    return run_command(command, cwd, log, GRADE_TIMEOUT_S, env=env).exit_code


def case_env(job: Job, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a case's commands and of fixbot's run on it: ours, the case's (its
    PATH first), then `extra`."""
    return {**os.environ, **job.env, **(extra or {})}


def result(job: Job, runner: Runner, grade: Grade, **fields: Any) -> CaseResult:
    return CaseResult(
        id=job.id,
        family=job.family,
        ecosystem=job.ecosystem,
        runner=runner,
        grade=grade,
        part=job.part,
        **fields,
    )
