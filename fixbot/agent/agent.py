"""The model agent, whole: fix, self-review, diagnosis and escalation analysis through
litellm (`fixbot.agent` hands out `build_agent` and `Agent` from here, on first use).

`build_agent(settings, env, launcher=...)` returns None when no model is configured
(the run then uses the fix commands only). litellm is imported lazily, on the first model call.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from fixbot.agent.diagnose import diagnose
from fixbot.agent.fixer import ModelFixer
from fixbot.agent.review import ModelReviewer
from fixbot.agent.runtime import Runtime
from fixbot.core.diagnosis import DiagnosisResult
from fixbot.core.models import FixContext, FixResult, ReviewResult
from fixbot.core.settings import Settings
from fixbot.process.launcher import Launcher
from fixbot.security.redact import Redactor

NO_MODEL = (
    "no model is set: fixbot runs the fix commands only; pass --model (e.g. "
    "anthropic/claude-sonnet-4-5 or openai/gpt-4o) or set FIXBOT_MODEL to let a model fix the code"
)


class Agent:
    """Implements the `Fixer`, `Reviewer` and `Analyst` protocols of `fixbot.run.fixcommand` and
    the `Diagnoser` of `fixbot.run.agents`."""

    name = "model"

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.fixer = ModelFixer(runtime)
        self.reviewer = ModelReviewer(runtime)

    def fix(self, ctx: FixContext) -> FixResult:
        """One fix attempt (see `ModelFixer.fix`)."""
        return self.fixer.fix(ctx)

    def review(self, ctx: FixContext) -> ReviewResult:
        """Self-review of the diff since the start sha (see `ModelReviewer.review`)."""
        return self.reviewer.review(ctx)

    def analyze(self, ctx: FixContext) -> FixResult:
        """The escalation analysis for the human (see `ModelReviewer.analyze`)."""
        return self.reviewer.analyze(ctx)

    def diagnose(self, ctx: FixContext, tried: str) -> DiagnosisResult:
        """Why the attempt failed, structured (see `fixbot.agent.diagnose.diagnose`)."""
        return diagnose(self.runtime, ctx, tried)


def build_agent(
    settings: Settings,
    env: Mapping[str, str],
    sleep: Callable[[float], Any] = time.sleep,
    notify: Callable[[str], None] | None = None,
    *,
    launcher: Launcher,
) -> Agent | None:
    """The agent for `settings`, or None when `settings.model` is not set (see `NO_MODEL`).

    `env` supplies the secrets to redact; `sleep` (seconds) is the retry policy's wait; `notify`
    receives one progress line per retry wait, fallback and early stop, as they happen;
    `launcher` is the run's (`fixbot.process.launcher.launcher_for`): it runs the check's
    Python for the research tool and the check under coverage (the run's boundary), and its
    `deadline` is the run's one wall-time budget (`fixbot.core.budget.Deadline`), which caps
    every model request's timeout.
    """
    if not settings.model:
        return None
    runtime = Runtime(
        settings,
        Redactor.from_env(env),
        sleep,
        search_path=env.get("PATH", ""),
        launcher=launcher,
        deadline=launcher.deadline,
    )
    if notify is not None:
        runtime.notify = notify
    return Agent(runtime)


__all__ = ["NO_MODEL", "Agent", "build_agent"]
