"""What the fixer, reviewer and analyst share: settings, the redactor, models and budgets."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fixbot.agent.llm import LLM, Reply, models_for, supports_tools
from fixbot.agent.waiting import quiet
from fixbot.core.budget import Deadline
from fixbot.core.models import FixContext
from fixbot.core.settings import Settings
from fixbot.core.values import AUTO_PROTOCOL
from fixbot.policy import breaker
from fixbot.process.launcher import Launcher
from fixbot.security.redact import Redactor


@dataclass
class Spend:
    """What one piece of model work (a fix, a review, a diagnosis) spent: tokens
    (prompt+completion) and USD (None once a price is unknown). The run's whole usage, with its
    wall time and attempts, is `fixbot.policy.breaker.Usage`."""

    tokens: int = 0
    cost_usd: float | None = 0.0

    def add(self, reply: Reply) -> None:
        """Count one reply."""
        self.tokens += reply.tokens
        if self.cost_usd is not None and reply.cost_usd is not None:
            self.cost_usd += reply.cost_usd
        else:
            self.cost_usd = None


@dataclass
class Runtime:
    """Builds the LLM for an attempt and answers budget and protocol questions.

    `launcher` is the run's (`fixbot.process.launcher.launcher_for`): it runs the check's Python
    for research and the check again for the first attempt's spectrum and formatter diff;
    `deadline` is the run's wall-time budget (built once per run by the engine, a resumed run's
    earlier time counted): every model call's timeout is capped by what is left of it.
    """

    settings: Settings
    redactor: Redactor
    sleep: Callable[[float], Any] = time.sleep
    notes: list[str] = field(default_factory=list)
    notify: Callable[[str], None] = quiet  # one progress line per retry, fallback or stop
    text_only: set[str] = field(default_factory=set)  # models that would not call tools
    search_path: str = ""  # the check environment's PATH: where research finds its Python
    launcher: Launcher = field(kw_only=True)
    deadline: Deadline = field(kw_only=True)

    def llm(self, attempt: int) -> LLM:
        """The adapter with the models for `attempt` (escalation model from attempt 2 on)."""
        s = self.settings
        return LLM(
            models_for(s, attempt),
            self.redactor,
            s.api_base,
            s.temperature,
            self.sleep,
            max_output_tokens=s.max_output_tokens,
            request_timeout=s.request_timeout,
            notify=self.notify,
            deadline=self.deadline,
        )

    def protocol(self, model: str) -> str:
        """The edit protocol's name for `model` (`fixbot.agent.protocols.registry` has it): the
        explicit setting, else for `auto` 'tools' or 'text' from litellm's capability data (and
        'text' for a model that would not call tools earlier in the run)."""
        chosen = self.settings.edit_protocol
        if chosen != AUTO_PROTOCOL:
            return chosen
        return "tools" if supports_tools(model) and model not in self.text_only else "text"

    def budget_problem(self, ctx: FixContext, usage: Spend) -> str | None:
        """Why no further model call fits the run's budget (tokens, USD, wall time), or None."""
        if self.deadline.spent():
            return f"time budget spent (max-duration {self.deadline.limit_s:g} s)"
        used = breaker.Usage(
            tokens=ctx.tokens_used + usage.tokens,
            cost_usd=ctx.cost_used_usd + (usage.cost_usd or 0.0),
        )
        return breaker.model_budget_spent(used, breaker.Limits.from_settings(self.settings))
