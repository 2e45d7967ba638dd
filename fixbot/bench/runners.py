"""The runners, the middle phase of a case (`fixbot.bench.run.run_case`, after the check failed
on the prepared tree, before the final tree is graded): each works on a copy of the prepared
repository at `work/repo` and says what the run cost and claimed.

`fixbot` (the model given) runs through `fixbot.run.engine.run` (the path `fixbot run` takes),
with the case's budget as the run's own budget settings (attempts, tokens, USD, seconds);
`oracle` (`fixbot.bench.oracle`: the reference fix as the model's answer), `localize` (the
first request alone, measured against the reference fix), `deterministic` (`--model none`: the
ecosystem's recommended fix commands, `RECIPES`, no model) are fixbot's engine too;
`baseline` (`fixbot.bench.baseline`) is one request and no engine.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from fixbot.bench import localize
from fixbot.bench.results import (
    GRADE_TIMEOUT_S,
    CaseResult,
    Grade,
    Job,
    Options,
    Runner,
    case_env,
    copy_repo,
)
from fixbot.bench.results import result as make_result

ORACLE_KEY = {"OPENAI_API_KEY": "sk-fixbot-oracle-no-key"}  # the scripted server reads no key

# The deterministic tier: the fix commands the README recommends per ecosystem. ruff's pyupgrade
# rules (UP) rewrite removed and deprecated APIs, e.g. unittest's assertEquals (gone in Python
# 3.12, rule UP005: https://docs.astral.sh/ruff/rules/deprecated-unittest-alias/).
RECIPES: dict[str, list[str]] = {
    "python": [
        "ruff check --fix --unsafe-fixes --no-cache --exit-zero --select UP"
        " --extend-exclude setup.py,conftest.py ."
    ],
    "npm": ["npx --no-install eslint --fix ."],
}


@contextlib.contextmanager
def recording() -> Iterator[list[dict[str, Any]]]:
    """Record the body of every model request fixbot makes in this process (the worker's own):
    fixbot reaches litellm only through `fixbot.agent.llm.litellm_module`, which is wrapped for
    the duration. Yields the list the bodies (`messages`, `tools`) are appended to."""
    from fixbot.agent import llm

    real = llm.litellm_module
    bodies: list[dict[str, Any]] = []

    class Recorded:
        """litellm's module as fixbot sees it for the duration: its `completion` recorded."""

        def __getattr__(self, name: str) -> Any:
            return getattr(real(), name)

        def completion(self, **kwargs: Any) -> Any:
            """litellm's `completion(**kwargs)`, its `messages` and `tools` recorded first."""
            bodies.append({"messages": kwargs.get("messages"), "tools": kwargs.get("tools")})
            return real().completion(**kwargs)

    llm.litellm_module = Recorded  # type: ignore[assignment]
    try:
        yield bodies
    finally:
        llm.litellm_module = real  # type: ignore[assignment]


@contextlib.contextmanager
def _environ(extra: dict[str, str] | None) -> Iterator[None]:
    """`extra` in this process's environment for the duration: litellm reads a provider's key
    from `os.environ`, not from the environment fixbot gives the project's commands."""
    saved = {key: os.environ.get(key) for key in extra or {}}
    os.environ.update(extra or {})
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _settings(job: Job, options: Options, **changes: Any) -> Any:
    from fixbot.core.settings import Settings

    b = options.budget
    values: dict[str, Any] = {
        "check": job.check,
        "model": options.model,
        "api_base": options.api_base,
        "edit_protocol": options.edit_protocol,
        "max_attempts": b.attempts,
        "max_tokens_per_run": b.tokens,
        "max_cost_usd": b.usd,
        "max_duration": b.seconds,
        "request_timeout": options.request_timeout,
        "timeout": min(b.seconds, GRADE_TIMEOUT_S),
    }
    return Settings(**{**values, **changes})


def run_fixbot(
    job: Job,
    options: Options,
    work: Path,
    *,
    extra_env: dict[str, str] | None = None,
    fix_commands: Sequence[str] = (),
    refusals_are_alarms: bool = False,
) -> CaseResult:
    """fixbot's engine on a copy of the case, with `options`' model and budget, `fix_commands`
    run before the model, `extra_env` over the case's environment. `false_alarms` are the
    suspected cheats of the final diffs and, with `refusals_are_alarms` (the oracle, whose
    edits are the real fix), the edits the tampering guard refused."""
    from fixbot.core.errors import ConfigError
    from fixbot.run import engine
    from fixbot.ui.progress import Progress

    repo = copy_repo(job.repo, work / "repo")
    settings = _settings(job, options, fix_commands=list(fix_commands))
    env = case_env(job, extra_env)
    runner = Runner.FIXBOT if options.model else Runner.DETERMINISTIC
    with recording() as bodies, (work / "progress.log").open("w") as out, _environ(extra_env):
        try:
            outcome, state = engine.run(settings, repo, env=env, progress=Progress(out))
        except ConfigError as exc:
            return make_result(job, runner, Grade.ERROR, reason="; ".join(exc.problems))
    found = make_result(
        job,
        runner,
        Grade.ESCALATED,
        outcome=outcome.outcome.value,
        reason=outcome.reason,
        attempts=len(state.fix_attempts),
        model_calls=len(bodies),
        tokens=state.tokens,
        usd=state.cost_usd if state.cost_known else None,
        false_alarms=_false_alarms(state, refusals_are_alarms),
        spectrum=skipped_spectrum(state.notes),
    )
    if bodies:
        found.localization = _first_request(job, options, state, repo, env, bodies[0])
    return found


def _false_alarms(state: Any, refusals_are_alarms: bool) -> list[str]:
    """The suspected cheats of the run's attempts and, with `refusals_are_alarms`, the edits
    the tampering guard refused, sorted."""
    cheats = {c for a in state.attempts for c in a.cheats}
    if refusals_are_alarms:
        cheats |= {f"edit refused: {r}" for a in state.attempts for r in a.refused}
    return sorted(cheats)


def _first_request(
    job: Job,
    options: Options,
    state: Any,
    repo: Path,
    env: dict[str, str],
    body: dict[str, object],
) -> localize.Localization:
    """How much of the reference fix the first model request (`body`, as sent) held; the
    request's text is kept in `options.requests_dir` when set."""
    from fixbot.process import worlds

    clone = worlds.clone_of(repo, env)  # fixbot's clone of the case: its logs are there
    first = localize.request_text(body)
    measured = localize.measure(job.fix_patch, first, naive_size(job, state, clone))
    if options.requests_dir:
        options.requests_dir.mkdir(parents=True, exist_ok=True)
        (options.requests_dir / f"{job.id}.txt").write_text(first, encoding="utf-8")
    return measured


def skipped_spectrum(notes: Sequence[str]) -> str:
    """Why the first attempt's coverage spectrum was skipped, from the run's notes (the line
    `fixbot.agent.fixer` adds, `fixbot.agent.spectrum.SKIPPED`); '' when it ran or no model
    was asked."""
    from fixbot.agent.spectrum import SKIPPED

    for note in notes:
        _, found, why = note.partition(SKIPPED)
        if found:
            return why
    return ""


def naive_size(job: Job, state: Any, repo: Path) -> int | None:
    """The naive prompt's size for the run's first failing check log (None without one);
    `repo` is fixbot's clone of the case (`fixbot.process.worlds.clone_of`)."""
    from fixbot.logs.signature import parse_locations

    first = state.attempts[0].log_path if state.attempts else None
    if not first or not (repo / first).is_file():  # the state records it repository-relative
        return None
    log = (repo / first).read_text(errors="replace")
    named = {}
    for loc in parse_locations(log, repo):
        path = repo / loc.path
        if loc.path not in named and path.is_file() and path.resolve().is_relative_to(repo):
            named[loc.path] = path.read_text(errors="replace")
    return localize.naive_chars(log, named)


def run_oracle(job: Job, options: Options, work: Path) -> CaseResult:
    """fixbot with the oracle's scripted model (`fixbot.bench.oracle`) answering the case's
    reference fix, through litellm's real HTTP path."""
    from fixbot.bench.oracle import ScriptedModel, fixed_files, reference_answer

    answer = reference_answer(fixed_files(job.repo, job.fix_patch), job.fix_patch)
    with ScriptedModel(answer) as server:
        scripted = options.model_copy(
            update={"model": "openai/oracle", "api_base": server.url, "edit_protocol": "tools"}
        )
        found = run_fixbot(
            job, scripted, work, extra_env=dict(ORACLE_KEY), refusals_are_alarms=True
        )
    found.runner = Runner.ORACLE
    return found


def run_localize(job: Job, options: Options, work: Path) -> CaseResult:
    """Localization alone: fixbot's first attempt with a scripted model that changes nothing
    (the oracle's answers for an empty fix), so the first request is built as in any run (the
    check, its evidence, the coverage spectrum) and measured; no grading (`Grade.MEASURED`)."""
    from fixbot.bench.oracle import ScriptedModel, reference_answer

    once = options.budget.model_copy(update={"attempts": 1})
    with ScriptedModel(reference_answer({})) as server:
        scripted = options.model_copy(
            update={
                "model": "openai/silent",
                "api_base": server.url,
                "edit_protocol": "tools",
                "budget": once,
            }
        )
        found = run_fixbot(job, scripted, work, extra_env=dict(ORACLE_KEY))
    found.runner = Runner.LOCALIZE
    if found.outcome == "passed":  # fixbot's own first check passed: nothing to localize
        found.grade = Grade.NEVER_FAILED
    elif found.grade is not Grade.ERROR:
        found.grade = Grade.MEASURED
    return found


def tool_path(work: Path, programs: Sequence[str]) -> str:
    """A folder holding links to only `programs` (found on our PATH, e.g. the ruff of fixbot's
    environment): put after the case's PATH, it adds them and nothing else of ours."""
    folder = work / "tools"
    folder.mkdir(exist_ok=True)
    for name in programs:
        # fixbot's own environment's scripts folder too: a venv's bin is not always on PATH
        found = shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))
        if found and not (folder / name).exists():
            (folder / name).symlink_to(found)
    return str(folder)


def run_deterministic(job: Job, options: Options, work: Path) -> CaseResult:
    """The deterministic tier: the ecosystem's recipe of fix commands (`RECIPES`), no model."""
    recipe = RECIPES.get(job.ecosystem, [])
    path = case_env(job).get("PATH", "") + os.pathsep + tool_path(work, ["ruff"])
    none = options.model_copy(update={"model": None, "api_base": None})
    found = run_fixbot(job, none, work, extra_env={"PATH": path}, fix_commands=recipe)
    found.runner = Runner.DETERMINISTIC
    return found


def _baseline(job: Job, options: Options, work: Path) -> CaseResult:
    from fixbot.bench import baseline

    return baseline.one_request(job, options, work)


RUNNERS: dict[Runner, Callable[[Job, Options, Path], CaseResult]] = {
    Runner.FIXBOT: run_fixbot,
    Runner.ORACLE: run_oracle,
    Runner.DETERMINISTIC: run_deterministic,
    Runner.BASELINE: _baseline,
    Runner.LOCALIZE: run_localize,
}
