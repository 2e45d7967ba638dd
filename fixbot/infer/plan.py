"""A plan inferred from the repository: the set-up, the check and the fix commands, each with
where it came from, the tools they need, and what could not be resolved (with the input to set).

Pure data: `Plan.lines()` is what `fixbot run --explain` prints and what a run says before it
starts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CHECK_INPUT = "check-command"
SETUP_INPUT = "setup-command"
FIX_INPUT = "fix-commands"


@dataclass(frozen=True)
class Origin:
    """Where a command came from: a repository-relative file, and in a workflow its job and step
    (their ids or names as the file writes them); `detail` says more (`script "test"`)."""

    file: str
    job: str = ""
    step: str = ""
    detail: str = ""

    def __str__(self) -> str:
        parts = [f"from {self.file}"] if self.file else []
        parts += [f"job `{self.job}`"] if self.job else []
        parts += [f"step `{self.step}`"] if self.step else []
        parts += [self.detail] if self.detail else []
        return ", ".join(parts)


@dataclass(frozen=True)
class Inferred:
    """One shell command (run with `/bin/sh -c`) and its origin."""

    command: str
    origin: Origin

    def describe(self) -> str:
        """ "`pytest -q` (from .github/workflows/ci.yml, job `test`, step `Run tests`)"."""
        return f"`{self.command}` ({self.origin})"


@dataclass(frozen=True)
class Tool:
    """A program the commands need on PATH (`program`), as a set-up action asked for it
    (`wanted`: "Python 3.12"), and the action that asked."""

    program: str
    wanted: str
    origin: Origin


@dataclass(frozen=True)
class Plan:
    """The set-up steps (run in order, joined by `&&`), the check, the fix commands, the tools
    they need, what could not be resolved (each sentence names the input to set) and notes (the
    matrix values chosen, steps left out and why)."""

    check: Inferred | None
    setup: tuple[Inferred, ...] = ()
    fixes: tuple[Inferred, ...] = ()
    tools: tuple[Tool, ...] = ()
    unresolved: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())

    def setup_command(self) -> str | None:
        """The set-up steps as one shell command, None when there are none."""
        return " && ".join(step.command for step in self.setup) or None

    def lines(self) -> list[str]:
        """The plan in words, one line each: set-up, check, fix commands, tools, the rest."""
        out = [f"set-up: {step.describe()}" for step in self.setup] or ["set-up: none"]
        out.append(f"check: {self.check.describe()}" if self.check else "check: none found")
        out += [f"fix command: {fix.describe()}" for fix in self.fixes]
        out += [f"needs: {tool.wanted} (`{tool.program}`, {tool.origin})" for tool in self.tools]
        out += [f"unresolved: {item}" for item in self.unresolved]
        out += [f"note: {item}" for item in self.notes]
        return out
