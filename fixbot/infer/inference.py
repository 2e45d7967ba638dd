"""The plan for a repository with no check written: its CI workflow's test job, else its task
files, else its ecosystem's defaults; and the fix commands it declares. It reads files only
(`infer.files`), never runs anything.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

from fixbot.infer import defaults, fixcmds, jobs, taskfiles, workflow
from fixbot.infer.files import Files
from fixbot.infer.plan import CHECK_INPUT, Origin, Plan, Tool


def infer(root: Path, *, fixes: bool = True) -> Plan:
    """The plan for the repository at `root`; `fixes` False leaves the fix commands out.
    A plan without a check says in `unresolved` which input to set."""
    files = Files(root)
    runs = files.workflows()
    plan = workflow.infer(runs)
    skipped: list[str] = []
    if plan is not None and plan.check is None:
        skipped = [*plan.unresolved]
        plan = None
    if plan is None:
        plan = taskfiles.infer(files.text)
    if plan is None:
        name = defaults.ecosystem(lambda rel: files.text(rel) is not None)
        plan = defaults.plan(name, lambda rel: files.text(rel) is not None) if name else None
    if plan is None:
        plan = Plan(
            check=None,
            unresolved=(
                "no CI workflow runs tests, no task file declares them and no ecosystem was "
                f"recognised: set {CHECK_INPUT}",
            ),
        )
    if skipped:
        plan = replace(
            plan, notes=(*plan.notes, *(f"the CI test job was not used: {s}" for s in skipped))
        )
    if fixes:
        plan = replace(plan, fixes=fixcmds.infer(files.text, _run_steps(runs)))
    return plan


def _run_steps(runs: dict[str, str]) -> Iterable[tuple[str, Origin]]:
    for job in jobs.jobs(runs):
        for step in jobs.steps_of(job):
            if "run" in step:
                yield str(step["run"]), Origin(job.path, job.id, jobs.step_name(step))


def missing_tools(plan: Plan, which: Callable[[str], str | None] = shutil.which) -> list[str]:
    """One sentence per tool the plan needs that is not on PATH here ("install X")."""
    absent: dict[str, Tool] = {}
    for tool in plan.tools:
        if tool.program and which(tool.program) is None:
            absent.setdefault(tool.program, tool)
    return [
        f"`{t.program}` is not installed here, and the CI sets up {t.wanted} ({t.origin}): "
        f"install {t.wanted}, or set {CHECK_INPUT} to a check that runs here"
        for t in absent.values()
    ]
