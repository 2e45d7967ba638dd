"""The set-up's pure side: dependency manifests, when the set-up command is due, and what a
failed set-up tells the user (`failure_reason`, `failure_details`, `missing_tool_notes`).

The set-up runs before the initial check, and again only before the check that verifies a fix
which changed a dependency manifest or lock file (`changed_manifests`); `setup_due` decides it
from the runs recorded so far (`SetupRun`), so a resumed run never repeats one that succeeded.
Running the command is `fixbot.run.setup`'s.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import StrEnum

from pydantic import BaseModel, Field

from fixbot.core.models import Attempt
from fixbot.ecosystems import registry


class SetupReason(StrEnum):
    """Why the set-up ran."""

    INITIAL = "initial"  # before the initial check
    MANIFEST = "manifest"  # a fix changed a dependency manifest


class SetupDue(BaseModel):
    """A set-up run the loop must do now: why, for which attempt, and the manifests that changed.

    `attempt` is the number of the attempt whose check it prepares (0: the initial check).
    """

    reason: SetupReason
    attempt: int
    manifests: list[str] = Field(default_factory=list)


class SetupRun(BaseModel):
    """One finished run of the set-up command, as recorded in the run's state.

    `exit_code` is None on a timeout; `duration_s` is wall time in seconds; `log_path` is
    relative to the repository root; `tail` holds the last `TAIL_LINES` lines of the output,
    redacted; `changed_tracked` the tracked files the set-up modified (a lock file rewritten by
    `npm install`, say), reported because they would show in the diff.
    """

    command: str
    reason: SetupReason
    attempt: int
    manifests: list[str] = Field(default_factory=list)
    exit_code: int | None
    timed_out: bool = False
    timeout_s: float
    duration_s: float
    log_path: str
    tail: str = ""
    changed_tracked: list[str] = Field(default_factory=list)  # tracked files it modified

    @property
    def ok(self) -> bool:
        """True when the command exited 0 within its timeout."""
        return self.exit_code == 0 and not self.timed_out


def is_manifest(path: str) -> bool:
    """True when `path` (relative, `/`-separated) names a dependency manifest or lock file of
    any ecosystem (`fixbot.ecosystems`: pyproject.toml, requirements*.txt, package.json,
    package-lock.json, go.mod, go.sum, Cargo.toml, Cargo.lock, Gemfile, composer.json, ...),
    matched by name, in any folder.
    """
    return registry.is_manifest(path)


def changed_manifests(paths: Iterable[str]) -> list[str]:
    """The dependency manifests among `paths` (changed files), sorted, without duplicates."""
    return sorted({p for p in paths if is_manifest(p)})


def setup_due(
    configured: bool, runs: Sequence[SetupRun], attempt: int, files_changed: Sequence[str]
) -> SetupDue | None:
    """Whether the set-up must run before the check of attempt number `attempt`, and why.

    `configured`: a set-up command is set. Due before the initial check (attempt 0) when it
    has not run yet; due before the check of a fix attempt when that fix changed a dependency
    manifest (`files_changed`) and the set-up has not run yet for that attempt. `runs` are the
    set-up runs recorded so far, so a resumed run never repeats one that succeeded (one that
    failed ended its run; a run resumed after it was killed runs it again).
    """
    if not configured or any(run.attempt == attempt and run.ok for run in runs):
        return None
    if attempt == 0:
        return SetupDue(reason=SetupReason.INITIAL, attempt=0)
    manifests = changed_manifests(files_changed)
    if not manifests:
        return None
    return SetupDue(reason=SetupReason.MANIFEST, attempt=attempt, manifests=manifests)


NEXT_STEP = "the setup command failed; fix it in the workflow"


def last_lines(text: str, count: int) -> str:
    """The last `count` lines of `text`, without the trailing newline."""
    lines = text.rstrip("\n").splitlines()
    if len(lines) > count:
        lines = lines[-count:]
    return "\n".join(lines)


def failure_reason(run: SetupRun) -> str:
    """The one-sentence reason of a run ended by a failed set-up (starts with "setup failed")."""
    if run.timed_out:
        how = f"timed out after {run.timeout_s:g} s (setup-timeout)"
    else:
        how = f"exited with code {run.exit_code}"
    why = ""
    if run.reason is SetupReason.MANIFEST:
        why = f" after fix attempt {run.attempt} changed {', '.join(run.manifests)}"
    return f"setup failed: `{run.command}` {how}{why}; {NEXT_STEP}"


def failure_details(run: SetupRun) -> str:
    """Markdown for the summary, status comment and report: command, exit code, last lines, and
    the next step."""
    code = "timeout" if run.timed_out else str(run.exit_code)
    fence = "````" if "```" in run.tail else "```"
    lines = [
        "## Set-up failed",
        "",
        f"- Command: `{run.command}`",
        f"- Exit code: {code}",
        f"- Full output: `{run.log_path}`",
        "",
        f"Last lines of its output:\n\n{fence}text\n{run.tail}\n{fence}",
        "",
        f"Next step: {NEXT_STEP} (`setup-command`; `--setup` for `fixbot run`). "
        "No model was called and nothing was pushed.",
    ]
    return "\n".join(lines) + "\n"


def missing_tool_hint(category: str | None, exit_code: int | None, runtime: str | None) -> str:
    """The likely cause of a check that failed with 'command not found' (exit 127), or ''.

    `runtime` is where the check ran: "container" (fixbot's image), "runner" (runner mode) or
    None (`fixbot run` on the user's machine: the report's next step says enough).
    """
    if category != "command_not_found" and exit_code != 127:
        return ""
    if runtime == "container":
        return (
            "the check runs inside fixbot's container; install your tools with "
            "`setup-command`, or use the runner mode (`uses: <owner>/fixbot/runner@v1`)"
        )
    if runtime == "runner":
        return (
            "the check runs on the job's runner: install its tools in an earlier step "
            "(actions/setup-python, setup-node, ...) or with `setup-command`"
        )
    return ""


def missing_tool_notes(attempts: Sequence[Attempt], runtime: str | None) -> list[str]:
    """A note naming the likely cause when the run's last check could not find a command.

    `runtime` as for `missing_tool_hint` (`fixbot.process.installation.runtime()`: the image's
    root-owned file, or the `fixbot action` entry point). Empty when the last check passed or
    failed otherwise.
    """
    last = attempts[-1] if attempts else None
    if last is None or not last.done or last.passed:
        return []
    hint = missing_tool_hint(last.category, last.exit_code, runtime)
    return [f"the check could not find a command (exit {last.exit_code}): {hint}"] if hint else []
