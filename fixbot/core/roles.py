"""The roles a run's agents play, as protocols: `Fixer`, `Reviewer`, `Analyst`, `Diagnoser`.

The executor and the reflection step (`fixbot.run`) call them; the fix commands
(`fixbot.run.fixcommand`) and the model agent (`fixbot.agent`) implement them. A fixer changes
files in the working tree to address one failure; the engine then verifies by re-running the
check. Fixers never commit and never run the check themselves.
"""

from __future__ import annotations

from typing import Protocol

from fixbot.core.diagnosis import DiagnosisResult
from fixbot.core.models import FixContext, FixResult, ReviewResult


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


class Diagnoser(Protocol):
    """Something that says, structured, why a fix attempt did not make the check pass."""

    def diagnose(self, ctx: FixContext, tried: str) -> DiagnosisResult:
        """Diagnose `ctx.failure` after attempt `ctx.attempt`, which did `tried` (its summary)."""
        ...
