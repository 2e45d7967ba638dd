"""The agents a run uses (fixer chain, reviewer, analyst, diagnoser), built from the run's
launcher and deadline.

The fix commands run the repository's (and the model's) code: they run through the run's
launcher, whose environment is `fixbot.core.secrets.check_environment`'s (without the Action's
inputs, GitHub's tokens and model keys).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from fixbot.core.roles import Analyst, Diagnoser, Fixer, Reviewer
from fixbot.core.settings import Settings
from fixbot.process.launcher import Launcher
from fixbot.run.fixcommand import ChainFixer, FixCommandFixer


class Agents:
    """The fixer chain, reviewer, analyst and diagnoser a run uses (None where not configured)."""

    def __init__(
        self,
        fixer: Fixer | None,
        reviewer: Reviewer | None = None,
        analyst: Analyst | None = None,
        notes: list[str] | None = None,
        threads: bool = True,
        diagnoser: Diagnoser | None = None,
    ) -> None:
        self.fixer = fixer
        self.reviewer = reviewer
        self.analyst = analyst
        self.notes = notes or []
        self.threads = threads  # whether the fixer can address review threads (a model can)
        self.diagnoser = diagnoser


def build_agents(
    settings: Settings,
    env: Mapping[str, str],
    workdir: Path,
    launcher: Launcher,
    notify: Callable[[str], None] | None = None,
) -> Agents:
    """Fix commands (run in `workdir` by `launcher`, the run's: the one way fixbot runs a
    project command) first, then the model agent when `settings.model` is set.

    `env` is fixbot's environment (the model agent's secrets to redact, the check's PATH); the
    launcher's `deadline` is the run's one wall-time budget, which bounds every model call too;
    `notify` receives the model agent's progress lines (retries, fallbacks) as they
    happen.
    """
    fixers: list[Fixer] = []
    if settings.fix_commands:
        fixers.append(
            FixCommandFixer(
                settings.fix_commands,
                launcher,
                workdir,
                timeout=settings.fix_command_timeout,
            )
        )
    if not settings.model:
        note = "no model is set (--model / FIXBOT_MODEL): only the fix commands can fix failures"
        return Agents(ChainFixer(fixers) if fixers else None, notes=[note], threads=False)
    from fixbot.agent import build_agent

    agent: Any = build_agent(settings, env, notify=notify, launcher=launcher)
    fixers.append(agent)
    reviewer = agent if settings.review else None
    return Agents(ChainFixer(fixers), reviewer, agent, diagnoser=agent)
