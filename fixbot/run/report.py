"""The report: `.fixbot/report.md`, for a success and for an escalation.

Rendered from `fixbot/templates/report.md.j2`; the whole text passes through the redactor.
The failure chart is a Mermaid `xychart-beta`, which GitHub renders in Markdown
(https://docs.github.com/get-started/writing-on-github/working-with-advanced-formatting/creating-diagrams).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from pydantic import BaseModel

from fixbot.core.failure import ErrorClass
from fixbot.core.models import Attempt, OutcomeKind
from fixbot.core.settings import Settings
from fixbot.policy.breaker import failing_signatures, repeats, tripped
from fixbot.policy.manifests import failure_details
from fixbot.policy.state import RunState
from fixbot.run.invocation import command_line, secret_variables
from fixbot.security.redact import Redactor

NEXT_STEPS = {
    "timeout": "The check ran past --timeout. Look for a hang or raise --timeout.",
    "network": "The check needs the network. Check the service it calls, or mock it in tests.",
    "rate_limit": "A service rate-limited the check. Retry later or reduce parallel jobs.",
    "auth": "Credentials are missing or wrong: set the secret the check needs. Code can't fix it.",
    "permission": "The environment refused an operation: check file modes and job permissions.",
    "command_not_found": "The check command was not found: install the tool, or fix --check.",
    "cd_failed": "A `cd` in the check command failed: fix the folder in --check; code can't.",
    "server_error": "A service the check calls answered 5xx. Retry later, or mock it in tests.",
    "disk_full": "The machine ran out of disk space. Free space or use a bigger runner.",
    "out_of_memory": "The check was killed for memory. Use a bigger runner or fewer workers.",
    "schema": "The data broke a schema or constraint: fix the data or migration, not the code.",
    "missing_dependency": "A package the check imports is not installed: declare it where the "
    "recovery plan says and install it in the set-up. Code can't fix it.",
}
DEFAULT_STEPS = (
    "Read the repeated error above and the diagnoses in the attempts table; the fix likely needs "
    "context the model did not have (a design decision, a dependency, a fixture)."
)
NO_MODEL_STEPS = (
    "Read the repeated error above: the fix commands did not fix it, and no model was "
    "configured. Fix it by hand, or run fixbot again with a model (--model)."
)


class OnGitHub(BaseModel):
    """Where the report of an Action run is read: on GitHub, not next to the working tree.

    `run_url` is the workflow run's page (GITHUB_SERVER_URL/GITHUB_REPOSITORY/actions/runs/
    GITHUB_RUN_ID), whose job log holds every check's output; `pull_request` is True when the
    reader can comment `/fixbot retry [hint]` (the run was for a pull request)."""

    run_url: str
    pull_request: bool


class Row(BaseModel):
    """One row of the attempts table."""

    number: int
    phase: str
    exit_code: str
    klass: str
    signature: str
    fixer: str
    files: str
    duration: str
    problems: int | None
    diagnosis: str


def row(a: Attempt) -> Row:
    """Format an attempt for the table."""
    return Row(
        number=a.number,
        phase=a.phase.value,
        exit_code=_exit_code(a),
        klass="passed" if a.passed else f"{a.error_class or '-'}/{a.category or '-'}",
        signature=(a.signature or "")[:12] or "-",
        fixer=a.fixer or "-",
        files=_files(a.files_changed) or "-",
        duration=f"{a.fix_duration_s + a.check_duration_s:.1f} s",
        problems=0 if a.passed else a.counts.problems,
        diagnosis=tried(a),
    )


def _exit_code(a: Attempt) -> str:
    """The check's exit code, `timeout`, `-` when none, or `(not run)`."""
    if not a.done:
        return "(not run)"
    if a.timed_out:
        return "timeout"
    return "-" if a.exit_code is None else str(a.exit_code)


def _files(paths: list[str], most: int = 5) -> str:
    """The first `most` paths in backticks, then how many more."""
    files = ", ".join(f"`{f}`" for f in paths[:most])
    return files + f" (+{len(paths) - most})" if len(paths) > most else files


class CallRow(BaseModel):
    """One row of the model calls table (`fixbot.core.models.ModelCall`, formatted)."""

    attempt: int
    index: int
    purpose: str
    model: str
    tokens_in: int
    tokens_out: int
    seconds: str
    speed: str
    end: str


def call_rows(attempts: list[Attempt]) -> list[CallRow]:
    """Every model call of every attempt (the fixer's, then its diagnosis, self-review or
    the escalation analysis), in order, formatted for the table."""
    rows = []
    for a in attempts:
        for index, c in enumerate(a.calls, 1):
            first = f" ({c.first_s:.1f})" if c.first_s is not None else ""
            speed = c.tokens_per_s
            rows.append(
                CallRow(
                    attempt=a.number,
                    index=index,
                    purpose=c.purpose.value,
                    model=c.model,
                    tokens_in=c.tokens_in,
                    tokens_out=c.tokens_out,
                    seconds=f"{c.seconds:.1f}{first}",
                    speed="-" if speed is None else f"{speed:.1f}",
                    end=(f"{c.end.value}: {c.why}" if c.why else c.end.value).replace("|", "\\|"),
                )
            )
    return rows


def tried(a: Attempt) -> str:
    """One line on what attempt `a` tried: the fixer's own words (unverified), "changed no
    file" when its edits came to nothing, and each fix command that failed (its exit code and
    first output lines)."""
    said = (a.hypothesis or a.summary.partition("\n")[0]).replace("|", "\\|")[:200]
    if a.is_fix and a.done and not a.files_changed and not a.fix_error:
        said = f"{said or a.fixer or 'the fixer'}: changed no file"
    failed = [p.replace("|", "\\|")[:300] for p in a.fix_problems]
    return "; ".join([said, *failed]) if failed else said


def repeated_error(state: RunState) -> Attempt | None:
    """The attempt whose signature occurred most often among the failing checks, if any repeated."""
    failing = [a for a in state.attempts if _failed_with_signature(a)]
    if not failing:
        return None
    signature, count = Counter(a.signature for a in failing).most_common(1)[0]
    if count < 2 and not _escalated_or_running(state):
        return None
    return next(a for a in reversed(failing) if a.signature == signature)


def _failed_with_signature(a: Attempt) -> bool:
    """True for an attempt whose check ran and failed with a signature."""
    return a.done and not a.passed and bool(a.signature)


def _escalated_or_running(state: RunState) -> bool:
    """True while the run has no outcome, or when it escalated."""
    return not state.outcome or state.outcome.outcome is OutcomeKind.ESCALATED


def setup_failure(state: RunState) -> str:
    """The markdown section of a failed set-up that ended the run (command, exit code, last
    lines of its output, next step), or '' (see `fixbot.policy.manifests.failure_details`)."""
    last = state.setups[-1] if state.setups else None
    return failure_details(last) if last is not None and not last.ok else ""


def retry_command(settings: Settings, state: RunState) -> str:
    """The command line that repeats this run with three more attempts: every setting the user
    gave comes back (`fixbot.run.invocation`); a secret one with a credential is read from its
    variable (`exported`). `--discard` when the working tree holds the run's best attempt (a new
    run refuses a dirty tree, exit 2, without it)."""
    overrides: dict[str, object] = {"max_attempts": settings.max_attempts + 3}
    return command_line(settings, overrides=overrides | _discard(state))


def hint_command(settings: Settings, state: RunState) -> str:
    """The command line that repeats this run with a hint for the model (`--discard` as in
    `retry_command`)."""
    return command_line(settings, overrides=_discard(state)) + " --hint '<what to try>'"


def _discard(state: RunState) -> dict[str, object]:
    return {"discard": True} if state.kept else {}


def code_can_help(state: RunState) -> bool:
    """True when the last failure is one a code change may fix (not a permanent error, no
    recovery plan instead of a fix)."""
    failing = [a for a in state.attempts if a.done and not a.passed]
    return (
        state.recovery is None
        and bool(failing)
        and failing[-1].error_class is not (ErrorClass.PERMANENT)
    )


def more_attempts_help(state: RunState, settings: Settings) -> bool:
    """True when more attempts could help: fix attempts were made, the failure is one code can
    fix, it did not repeat `circuit_breaker` times in a row, and the last attempts changed
    files. After a permanent error, a repeated failure or attempts that changed nothing, more
    of the same cannot help, and the report does not offer it."""
    fixes = [a for a in state.attempts if a.is_fix]
    if not fixes or not code_can_help(state):
        return False
    if repeats(failing_signatures(state.attempts)) >= settings.circuit_breaker:
        return False
    return any(a.files_changed for a in fixes[-2:])


def exported(settings: Settings) -> str:
    """' (in a shell that exports FIXBOT_X)' for the suggested commands, or ''."""
    names = secret_variables(settings)
    return f" (in a shell that exports {' and '.join(names)})" if names else ""


# The reviewer's error when it made no attempt (agent/review.py's NO_BUDGET; not imported from
# the agent layer, which sits above this one).
REVIEW_NOT_TRIED = "no budget left for the review"


def review_word(error: str) -> str:
    """ "skipped" when the review was not attempted (no budget left), "failed" when it was tried
    and gave no usable review (a model error, findings that did not parse)."""
    return "skipped" if error.startswith(REVIEW_NOT_TRIED) else "failed"


def review_summary(state: RunState) -> str:
    """One sentence on the self-review: clean, findings fixed, or skipped / failed and why (a
    failed review leaves a fix verified by the check only, and the sentence says so)."""
    if not state.reviews:
        return "not run"
    last = state.reviews[-1]
    if last.error:
        word = review_word(last.error)
        unreviewed = "; the fix is verified by the check only, not reviewed"
        return f"{word} ({last.error})" + (unreviewed if word == "failed" else "")
    fixed = sum(len(r.blocking) for r in state.reviews[:-1])
    if last.blocking:
        return f"{len(last.blocking)} blocking finding(s) left after {len(state.reviews)} rounds"
    return "clean" + (f" after fixing {fixed} blocking finding(s)" if fixed else "")


def _next_step(state: RunState, settings: Settings) -> str:
    """What to do next about the last attempt's failure category (`NEXT_STEPS`), else the
    default advice, which differs without a model."""
    last = state.attempts[-1] if state.attempts else None
    category = last.category if last is not None and not last.passed else None
    return NEXT_STEPS.get(category or "", DEFAULT_STEPS if settings.model else NO_MODEL_STEPS)


def _sources(attempts: list[Attempt]) -> list[str]:
    """The sources the attempts cite, each once, in order."""
    return list(dict.fromkeys(source for a in attempts for source in a.sources))


def _breaker_named(state: RunState) -> bool:
    """True when the report names the breaker: only one that counted (repeats, oscillation,
    no change) is named, and its reason is the headline's, never said twice."""
    return state.breaker.value == "open" and tripped(state.breaker_reason)


def _hint(state: RunState, settings: Settings) -> str:
    """The command that repeats the run with a hint, when a model could use one; else ""."""
    return hint_command(settings, state) if settings.model and code_can_help(state) else ""


def render_report(
    state: RunState, settings: Settings, diffstat: str = "", on_github: OnGitHub | None = None
) -> str:
    """Render the report markdown for the run's state (not yet redacted).

    The suggested next steps are the ones that apply to this run and work where the report is
    read: on the terminal (`on_github` None) commands to paste, with `--discard` when the
    working tree holds the best attempt; on GitHub the `/fixbot retry` comment and the job
    log's link. A hint is offered only when a model is configured (a hint is for the model)."""
    # the one Jinja environment, the prompts' (report.md.j2's `+%}` keep its lines under its
    # trim_blocks); imported on use, as jinja2 was: the report is its only use in `run/`
    from fixbot.core.templates import environment

    rows = [row(a) for a in state.attempts]
    return (
        environment()
        .get_template("report.md.j2")
        .render(
            state=state,
            outcome=state.outcome,
            settings=settings,
            rows=rows,
            calls=call_rows(state.attempts),
            chart=[r for r in rows if r.problems is not None],
            diagnosed=[a for a in state.attempts if a.diagnosis or a.diagnosis_problem],
            sources=_sources(state.attempts),
            repeated=repeated_error(state),
            next_step=_next_step(state, settings),
            retry=retry_command(settings, state) if more_attempts_help(state, settings) else "",
            hint=_hint(state, settings),
            on_github=on_github,
            breaker_tripped=_breaker_named(state),
            exported=exported(settings),
            setup_failure=setup_failure(state),
            diffstat=diffstat,
            review=review_summary(state),
        )
    )


def write_report(
    path: Path, state: RunState, settings: Settings, redactor: Redactor, diffstat: str = ""
) -> None:
    """Render, redact and write the report to `path` (parents created); `diffstat` is
    the `git diff` stat summary of what the run committed (shown for a fixed run)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = render_report(state, settings, diffstat)
    path.write_text(redactor.redact(text), encoding="utf-8")
