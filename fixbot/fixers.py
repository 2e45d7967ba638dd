"""The `Fixer` interface and the deterministic fix-command fixer.

A fixer changes files in the working tree to address one failure; the engine then verifies by
re-running the check. Fixers never commit and never run the check themselves.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from fixbot import git
from fixbot.models import FixContext, FixResult, ReviewResult


class Fixer(Protocol):
    """Something that edits the working tree to fix a failure."""

    name: str

    def fix(self, ctx: FixContext) -> FixResult:
        """Change files under `ctx.repo` to address `ctx.failure` (or findings/threads)."""
        ...


class Reviewer(Protocol):
    """Something that reviews the diff since `ctx.start_sha` once the check is green."""

    def review(self, ctx: FixContext) -> ReviewResult:
        """Return findings for the whole diff; an empty list means clean."""
        ...


class Analyst(Protocol):
    """Something that writes the escalation analysis for the human when the breaker opens."""

    def analyze(self, ctx: FixContext) -> FixResult:
        """Return the analysis in `summary` (markdown), with the model usage."""
        ...


FIX_COMMAND_TIMEOUT_S = 300.0


class FixCommandFixer:
    """Run each `--fix-command` in order (e.g. `ruff check --fix`) and keep what they changed.

    A command's exit code is recorded in the summary but does not stop the others: linters exit
    non-zero when problems remain after fixing. Each command gets `FIX_COMMAND_TIMEOUT_S` seconds.
    """

    name = "fix-commands"

    def __init__(
        self, commands: list[str], env: Mapping[str, str] | None = None, cwd: Path | None = None
    ) -> None:
        self.commands = list(commands)
        self.env = dict(env) if env is not None else None
        self.cwd = cwd

    def fix(self, ctx: FixContext) -> FixResult:
        """Run the commands in `ctx.repo`; `files_changed` lists files whose content changed."""
        before = git.tree_fingerprint(ctx.repo)
        notes: list[str] = []
        for command in self.commands:
            notes.append(self._run(command, self.cwd or ctx.repo))
        changed = git.changed_since(ctx.repo, before)
        ran = ", ".join(f"`{command}`" for command in self.commands)
        summary = f"ran {ran}\n" + "\n".join(notes)
        return FixResult(fixer=self.name, files_changed=changed, summary=summary)

    def _run(self, command: str, repo: Path) -> str:
        started = time.monotonic()
        try:
            done = subprocess.run(
                command,
                shell=True,
                cwd=repo,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=FIX_COMMAND_TIMEOUT_S,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return f"`{command}` timed out after {FIX_COMMAND_TIMEOUT_S:.0f} s"
        return f"`{command}` exit {done.returncode} ({time.monotonic() - started:.1f} s)"


class ChainFixer:
    """Try fixers in order; the first that changes a file makes the attempt.

    Deterministic fix commands go first so the model is only asked when they change nothing.
    A fixer that reports an `error` ends the chain with that error.
    """

    def __init__(self, fixers: list[Fixer]) -> None:
        self.fixers = fixers
        self.name = "+".join(f.name for f in fixers) or "none"

    def fix(self, ctx: FixContext) -> FixResult:
        """Return the first result that changed files or carries an error, else the last one."""
        last = FixResult(fixer="none", summary="no fixer configured")
        tokens, cost, known = 0, 0.0, True
        for fixer in self.fixers:
            last = fixer.fix(ctx)
            tokens += last.tokens
            cost += last.cost_usd or 0.0
            known = known and last.cost_known
            if last.changed or last.error:
                break
        return last.model_copy(
            update={"tokens": tokens, "cost_usd": cost if known else None, "cost_known": known}
        )
