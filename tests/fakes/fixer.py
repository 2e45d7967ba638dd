"""Scripted in-process fixer, reviewer and diagnoser that record every context they were given."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from fixbot.core.diagnosis import Diagnosis, DiagnosisResult
from fixbot.core.models import Finding, FixContext, FixResult, ReviewResult

Edit = Mapping[str, str | None] | Callable[[Path], Mapping[str, str | None]]


@dataclass
class ScriptedFixer:
    """Applies scripted file contents per attempt; `history` keeps every FixContext it was given.

    An empty edit (`{}`) changes nothing; a path given None is deleted. When the script runs
    out, the last edit repeats.
    """

    script: list[Edit] = field(default_factory=list)
    name: str = "scripted"
    tokens_per_fix: int = 0
    history: list[FixContext] = field(default_factory=list)

    def enqueue(self, *edits: Edit) -> ScriptedFixer:
        """Append edits to the script; returns self for chaining."""
        self.script.extend(edits)
        return self

    def fix(self, ctx: FixContext) -> FixResult:
        """Write the next scripted files into `ctx.repo`."""
        self.history.append(ctx)
        edit = self.script[min(len(self.history), len(self.script)) - 1] if self.script else {}
        files = edit(ctx.repo) if callable(edit) else edit
        changed = []
        for rel, text in files.items():
            path = ctx.repo / rel
            if text is None:
                if path.exists():
                    path.unlink()
                    changed.append(rel)
                continue
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
                changed.append(rel)
        return FixResult(
            fixer=self.name,
            files_changed=sorted(changed),
            summary=f"scripted edit {len(self.history)}",
            diagnosis=f"hypothesis {len(self.history)}",
            tokens=self.tokens_per_fix,
            cost_usd=0.0,
        )


@dataclass
class ScriptedReviewer:
    """Returns the enqueued review findings in turn (then a clean review); records contexts."""

    rounds: list[list[Finding]] = field(default_factory=list)
    history: list[FixContext] = field(default_factory=list)

    def review(self, ctx: FixContext) -> ReviewResult:
        """The next scripted list of findings."""
        self.history.append(ctx)
        index = len(self.history) - 1
        return ReviewResult(findings=self.rounds[index] if index < len(self.rounds) else [])


@dataclass
class ClaimingFixer(ScriptedFixer):
    """A ScriptedFixer that claims every review thread it was given as resolved."""

    def fix(self, ctx: FixContext) -> FixResult:
        """Apply the scripted edit and claim `ctx.threads`."""
        result = super().fix(ctx)
        return result.model_copy(update={"resolved_thread_ids": [t.id for t in ctx.threads]})


@dataclass
class ScriptedDiagnoser:
    """Returns the enqueued diagnoses in turn (None: a malformed answer); records every call."""

    answers: list[Diagnosis | None] = field(default_factory=list)
    history: list[tuple[FixContext, str]] = field(default_factory=list)
    tokens: int = 7

    def diagnose(self, ctx: FixContext, tried: str) -> DiagnosisResult:
        """The next scripted diagnosis (the last one repeats)."""
        self.history.append((ctx, tried))
        found = self.answers[min(len(self.history), len(self.answers)) - 1]
        problem = None if found else "the model's diagnosis was malformed; going on without it"
        return DiagnosisResult(found, self.tokens, 0.0, problem)


@dataclass
class ScriptedAnalyst:
    """An escalation analyst that records how often it was asked."""

    history: list[FixContext] = field(default_factory=list)

    def analyze(self, ctx: FixContext) -> FixResult:
        """A fixed analysis."""
        self.history.append(ctx)
        return FixResult(fixer="analysis", summary="scripted analysis")
