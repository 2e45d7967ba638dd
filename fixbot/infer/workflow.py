"""A GitHub Actions workflow's test job as a plan: the job that runs the tests (read and ranked
by `fixbot.infer.jobs`), its steps before the test step as the set-up and the test step as the
check.

Resolved without running anything: `${{ matrix.* }}` to the first combination (a Linux one
where `os` varies), `env:` of the workflow, job and step as `export` assignments,
`working-directory` as a `cd`, `shell:` as the interpreter a multi-line script runs under,
`if:` over the matrix and the runner's OS. What cannot be resolved (a `uses:` step that is not a
known set-up action, a service container, an expression over secrets or another job's outputs)
is named in the plan with the input to set.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fixbot.infer import actions
from fixbot.infer.expressions import Context, Unknowable, condition, interpolate
from fixbot.infer.jobs import (
    LINT,
    LINT_NAME,
    Job,
    check_step,
    jobs,
    ranked,
    step_name,
    steps_of,
    test_score,
)
from fixbot.infer.matrix import combinations, merge_include, short, shown_in
from fixbot.infer.plan import CHECK_INPUT, SETUP_INPUT, Inferred, Origin, Plan, Tool

# A step writing these files changes the environment of the later steps, which a command
# cannot do for the next.
GITHUB_FILES = re.compile(r"\$\{?GITHUB_(?:ENV|PATH|OUTPUT)\b")
LINUX = re.compile(r"ubuntu|linux", re.I)


def choose(files: Mapping[str, str]) -> Job | None:
    """The job that runs the tests: the best ranked whose check can be reproduced, else the
    best ranked (its plan says why not); None when no job runs a test runner."""
    jobs_ = ranked(files)
    return next((job for job in jobs_ if plan_for(job).check is not None), None) or next(
        iter(jobs_), None
    )


def combination(job: Job, shown: str = "") -> tuple[dict[str, object], list[str], list[str]]:
    """The matrix combination used (a Linux one where `os` varies, else the first; with
    `shown`, a job's name as a run shows it, the first whose every value it shows), notes
    saying which, and what could not be known (a matrix computed from an expression)."""
    strategy = job.body.get("strategy")
    matrix = strategy.get("matrix") if isinstance(strategy, dict) else None
    if matrix is None:
        return {}, [], []
    if not isinstance(matrix, dict):
        return {}, [], [f"the matrix of job `{job.id}` is computed (`{matrix}`)"]
    chosen, unknown = _first_combination(job, matrix)
    how = "the first combination"
    if shown and (rendered := _named(job, matrix, shown)) is not None:
        chosen, how = rendered, f"the combination named `{shown}`"
    else:
        if shown and (named := shown_in(matrix, shown)) is not None:
            chosen, how = named, f"the combination of `{shown}`"
        merge_include(matrix.get("include"), chosen)
    said = ", ".join(f"{k}={short(v)}" for k, v in chosen.items())
    return chosen, [f"matrix of job `{job.id}`: {said} ({how})"] if said else [], unknown


def _first_combination(job: Job, matrix: Mapping[str, Any]) -> tuple[dict[str, object], list[str]]:
    """The first value of each listed key of `matrix` (a Linux one for `os`), and what could
    not be known (a key whose values are computed)."""
    chosen: dict[str, object] = {}
    unknown: list[str] = []
    for key, values in matrix.items():
        if key in ("include", "exclude"):
            continue
        if not isinstance(values, list):
            unknown.append(f"matrix `{key}` of job `{job.id}` is computed (`{values}`)")
        elif values:
            linux = [v for v in values if LINUX.search(str(v))]
            chosen[key] = linux[0] if key == "os" and linux else values[0]
    return chosen, unknown


def _named(job: Job, matrix: Mapping[str, Any], shown: str) -> dict[str, object] | None:
    """The combination of `matrix` (`include:` merged, `exclude:` left out) over which the job's
    `name:`, when it holds an expression (`${{ matrix.name || matrix.python }}`), renders as
    `shown`, the name the jobs API gives the run's job; None when no combination does."""
    if "${{" not in job.name:
        return None
    for values in combinations(matrix):
        try:
            if interpolate(job.name, Context(values, {}, "Linux")).strip() == shown:
                return values
        except Unknowable:
            return None
    return None


def _env(layer: object, ctx: Context, where: str, dropped: list[str]) -> dict[str, str]:
    """An `env:` mapping interpolated; a value that cannot be known is left out (and said)."""
    out: dict[str, str] = {}
    if not isinstance(layer, dict):
        return out
    for key, value in layer.items():
        text = (
            "" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
        )
        try:
            out[str(key)] = interpolate(text, Context(ctx.matrix, {**ctx.env, **out}, ctx.os))
        except Unknowable as exc:
            dropped.append(f"`env: {key}` of {where} is left out: it reads {exc}")
    return out


def _defaults(body: Mapping[Any, Any]) -> Mapping[str, Any]:
    defaults = body.get("defaults")
    run = defaults.get("run") if isinstance(defaults, dict) else None
    return run if isinstance(run, dict) else {}


class Unrunnable(Exception):
    """A `run:` step fixbot cannot turn into a command for `/bin/sh -c` (the reason)."""


def render(body: str, shell: str | None, folder: str | None, env: Mapping[str, str]) -> str:
    """One `run:` script as one command for `/bin/sh -c`: a one-line script as it is, a longer
    one under its shell with `-e` (GitHub's default on Linux is `bash -e`, an explicit `bash`
    adds `-o pipefail`), preceded by `cd` and `export` where the step has them. Raises
    `Unrunnable` for a shell fixbot cannot run here (pwsh, cmd)."""
    script = body.strip()
    program = (shell or "").split()[0] if shell else ""
    if program not in ("", "bash", "sh", "python"):
        raise Unrunnable(f"it runs under `shell: {shell}`")
    if program == "python":
        script = f"python -c {shlex.quote(script)}"
    elif "\n" in script:
        flags = {"": "-e", "bash": "-eo pipefail", "sh": "-e"}[program]
        script = f"{program or 'bash'} {flags} -c {shlex.quote(script)}"
    prefix = [f"cd {shlex.quote(folder)}"] if folder else []
    if env:
        prefix.append("export " + " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items()))
    return " && ".join([*prefix, script])


@dataclass
class _Reading:
    """What is gathered while a job is read: the plan's parts."""

    setup: list[Inferred]
    tools: list[Tool]
    unresolved: list[str]
    notes: list[str]


def plan_for(job: Job, check_index: int | None = None, shown: str = "") -> Plan:
    """The plan of `job`: the steps before the check as the set-up, the check step as the
    check. `check_index` (0-based, in the job's steps) names the check step; None: the step
    with the best `test_score`, the first of equals. `shown`: the job's name as a run shows
    it, which picks the matrix combination (`combination`)."""
    steps = steps_of(job)
    check_index = check_step(job) if check_index is None else check_index
    matrix, notes, unknown = combination(job, shown)
    reading = _Reading([], [], [], notes)
    reading.unresolved += [f"{item}: set {CHECK_INPUT} and {SETUP_INPUT}" for item in unknown]
    _job_facts(job, reading)
    dropped: list[str] = []
    env = _job_env(job, matrix, dropped)
    check: Inferred | None = None
    upto = (check_index + 1) if check_index is not None else 0
    for index, step in enumerate(steps[:upto]):
        origin = Origin(job.path, job.id, _shown_name(step, Context(matrix, env)))
        is_check = index == check_index
        command = _step(job, step, origin, Context(matrix, env), reading, dropped, is_check)
        if command is not None and is_check:
            check = Inferred(command, origin)
        elif command is not None:
            reading.setup.append(Inferred(_alone(command), origin))
    reading.notes.extend(dropped)
    if check is not None and check_index is not None:
        reading.notes += _later_tests(job, steps[check_index + 1 :], check)
    return Plan(
        check=check,
        setup=tuple(reading.setup),
        tools=tuple(reading.tools),
        unresolved=tuple(reading.unresolved),
        notes=tuple(reading.notes),
    )


def _job_env(job: Job, matrix: Mapping[str, object], dropped: list[str]) -> dict[str, str]:
    """The workflow's `env:` and then the job's, interpolated for `matrix` on Linux; what
    cannot be known is left out and said in `dropped`."""
    env = _env(job.workflow.get("env"), Context(matrix, {}, "Linux"), "the workflow", dropped)
    env.update(_env(job.body.get("env"), Context(matrix, env), f"job `{job.id}`", dropped))
    return env


def _later_tests(job: Job, after: list[Mapping[str, Any]], check: Inferred) -> list[str]:
    """A note naming the test steps (`test_score` 2) of `after`, the steps after the check."""
    later = [step_name(s) for s in after if test_score(s) == 2]
    if not later:
        return []
    return [
        f"job `{job.id}` runs {len(later)} more test step(s) after `{check.origin.step}` "
        f"({', '.join(f'`{n}`' for n in later)}): set {CHECK_INPUT} to run them too"
    ]


def _in_checkout(folder: object, job: Job) -> str | None:
    """`working-directory` with the folder a checkout step put the repository in read as the
    work tree (`.`): that is where fixbot's commands run. None for the work tree itself."""
    if not folder:
        return None
    text = str(folder).rstrip("/")
    for step in steps_of(job):
        with_ = step.get("with")
        path = str(with_.get("path") or "").rstrip("/") if isinstance(with_, dict) else ""
        checkout = actions.split(str(step.get("uses", "")))[0] == "actions/checkout"
        if checkout and path and (text == path or text.startswith(path + "/")):
            text = text[len(path) :].lstrip("/")
    return text or None


def _alone(command: str) -> str:
    """A set-up step's command, in a subshell when its `cd` or `export` would reach the next."""
    return f"({command})" if command.startswith(("cd ", "export ")) else command


def _job_facts(job: Job, reading: _Reading) -> None:
    services = job.body.get("services")
    if isinstance(services, dict) and services:
        names = ", ".join(f"`{name}`" for name in services)
        reading.unresolved.append(
            f"job `{job.id}` starts service containers ({names}), which fixbot does not start: "
            f"start them where fixbot runs, or set {SETUP_INPUT} to"
        )
    if job.body.get("container"):
        reading.notes.append(
            f"job `{job.id}` runs in the container `{short(job.body['container'])}`; fixbot "
            "runs the commands here"
        )


def _step(
    job: Job,
    step: Mapping[str, Any],
    origin: Origin,
    ctx: Context,
    reading: _Reading,
    dropped: list[str],
    is_check: bool,
) -> str | None:
    """One step read: its command, or None (a tool noted, a step left out and said why)."""
    name = origin.step
    if _false_here(step, name, ctx, reading):
        return None
    if "uses" in step:
        _uses(str(step["uses"]), step.get("with"), origin, ctx, reading)
        return None
    if "run" not in step:
        return None
    body = str(step["run"])
    if not is_check and _own_check(step, body, name):
        reading.notes.append(f"step `{name}` is left out of the set-up: it is a check of its own")
        return None
    if GITHUB_FILES.search(body):
        reading.unresolved.append(
            f"step `{name}` of job `{job.id}` writes $GITHUB_ENV, $GITHUB_PATH or "
            f"$GITHUB_OUTPUT for the later steps, which a command cannot do: set {SETUP_INPUT} "
            "(and the check) with what it sets"
        )
        return None
    env = dict(ctx.env)
    env.update(_env(step.get("env"), ctx, f"step `{name}`", dropped))
    try:
        return _command(job, step, body, Context(ctx.matrix, env, ctx.os))
    except (Unknowable, Unrunnable) as exc:
        wanted = CHECK_INPUT if is_check else SETUP_INPUT
        reading.unresolved.append(
            f"step `{name}` of job `{job.id}` cannot be reproduced: {exc}; set {wanted}"
        )
        return None


def _false_here(step: Mapping[str, Any], name: str, ctx: Context, reading: _Reading) -> bool:
    """True when the step's `if:` is false here (noted); one that cannot be evaluated is kept
    (noted too)."""
    if "if" not in step:
        return False
    try:
        if condition(str(step["if"]), ctx):
            return False
    except Unknowable as exc:
        reading.notes.append(f"step `{name}` has `if: {step['if']}`, not evaluated ({exc}): kept")
        return False
    reading.notes.append(f"step `{name}` is left out: its `if: {step['if']}` is false here")
    return True


def _own_check(step: Mapping[str, Any], body: str, name: str) -> bool:
    """True for a step that runs tests or a linter: a check of its own, not set-up."""
    return bool(test_score(step) or LINT.search(body) or LINT_NAME.search(name))


def _command(job: Job, step: Mapping[str, Any], body: str, local: Context) -> str:
    """The step's `run:` as one command (`render`) under its shell and working directory,
    interpolated in `local`. Raises `Unknowable` and `Unrunnable`."""
    script = interpolate(body, local)
    shell = _setting(job, step, "shell")
    folder = _in_checkout(_setting(job, step, "working-directory"), job)
    folder = interpolate(folder, local) if folder else None
    return render(script, str(shell) if shell else None, folder, local.env)


def _setting(job: Job, step: Mapping[str, Any], key: str) -> Any:
    """The step's `key` (`shell`, `working-directory`), else the job's `defaults.run`, else
    the workflow's."""
    return step.get(key) or _defaults(job.body).get(key) or _defaults(job.workflow).get(key)


def _uses(uses: str, with_: object, origin: Origin, ctx: Context, reading: _Reading) -> None:
    if uses.startswith("docker://"):
        reading.unresolved.append(
            f"step `{origin.step}` runs the image `{uses}`, which fixbot does not run: set "
            f"{SETUP_INPUT} if the check needs what it does"
        )
        return
    tool = actions.tool_of(uses, with_, ctx)
    if tool is not None:
        reading.tools.append(Tool(tool[0], tool[1], origin))
    elif not actions.harmless(uses):
        reading.unresolved.append(
            f"step `{origin.step}` uses `{uses}`, which fixbot does not run: if the check needs "
            f"what it does, set {SETUP_INPUT}"
        )


def infer(files: Mapping[str, str]) -> Plan | None:
    """The plan of the workflows' test job (`choose`), None when no job runs tests."""
    job = choose(files)
    return plan_for(job) if job is not None else None


def at_failure(
    files: Mapping[str, str], path: str, job_name: str, step_name: str, step_number: int | None
) -> Plan | None:
    """The plan that reproduces a failed step: in the workflow `path` (its text in `files`), the
    job a run showed as `job_name` (its id, its `name:`, or either followed by its matrix values
    in parentheses), the steps before the failed one as the set-up and the failed one
    (`step_name` as the run showed it, else the jobs API's `step_number`: 1 is GitHub's "Set up
    job") as the check. None when the job or step is not found in the file."""
    for job in jobs({path: files[path]} if path in files else {}):
        if not _shows(job, job_name):
            continue
        matrix, _, _ = combination(job, job_name)
        steps = steps_of(job)
        ctx = Context(matrix, {}, "Linux")
        names = [_shown_name(step, ctx) for step in steps]
        if step_name in names:
            return plan_for(job, names.index(step_name), job_name)
        if step_number is not None and 0 <= step_number - 2 < len(steps):
            return plan_for(job, step_number - 2, job_name)
    return None


def _shows(job: Job, shown: str) -> bool:
    """True when a run's job name `shown` is this job's (matrix values may follow)."""
    literal = job.name.split("${{")[0].strip()
    if not literal and "${{" in job.name:
        return _renders_as(job, shown)
    for name in {job.id, literal}:
        if name and (shown == name or shown.startswith(f"{name} (")):
            return True
    return bool(literal) and "${{" in job.name and shown.startswith(literal)


def _renders_as(job: Job, shown: str) -> bool:
    """True when the job's all-expression `name:` renders as `shown` over one of its matrix
    combinations."""
    strategy = job.body.get("strategy")
    matrix = strategy.get("matrix") if isinstance(strategy, dict) else None
    return _named(job, matrix if isinstance(matrix, dict) else {}, shown) is not None


def _shown_name(step: Mapping[str, Any], ctx: Context) -> str:
    try:
        return interpolate(step_name(step), ctx)
    except Unknowable:
        return step_name(step)
