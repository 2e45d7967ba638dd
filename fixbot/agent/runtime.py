"""What the fixer, reviewer and analyst share: settings, the redactor, models and budgets."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fixbot.agent.llm import LLM, models_for, output_cap, supports_tools
from fixbot.agent.reply import Reply
from fixbot.agent.waiting import quiet
from fixbot.core.budget import Deadline
from fixbot.core.calls import CallPurpose, ModelCall
from fixbot.core.models import FixContext
from fixbot.core.settings import Settings
from fixbot.core.values import AUTO_PROTOCOL
from fixbot.policy import breaker
from fixbot.process.launcher import Launcher
from fixbot.security.redact import Redactor

MIN_OUTPUT_TOKENS = 256  # the oracle's median edit answer is ~250 tokens (bench/README.md)
FIT = 0.8  # of the request timeout a full reply may take: the prompt's time varies
SLOW_REPLY_S = 30.0  # a full reply longer than this: the progress line gives the projection
TYPICAL_REPLIES = 3  # the oracle's tools answer: read, edit, finish


def keep(model: str, cap: int) -> int:
    """`cap` as it is (the user set `max-output-tokens`)."""
    return cap


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
    # the first measured call of each model: its output speed sizes the later calls' caps
    measured: dict[str, ModelCall] = field(default_factory=dict)

    def llm(
        self,
        attempt: int,
        output_tokens: int | None = None,
        purpose: CallPurpose = CallPurpose.FIX,
    ) -> LLM:
        """The adapter with the models for `attempt` (escalation model from attempt 2 on), its
        calls marked as made for `purpose`.

        `output_tokens` is what one reply of the edit protocol needs (`ProtocolSpec`): the cap
        per reply when `max-output-tokens` is not set, never above the model's own limit, and
        lowered for a model measured slow (`sized`)."""
        s = self.settings
        models = models_for(s, attempt)
        cap = s.max_output_tokens
        if cap is None and output_tokens:
            cap = min(output_cap(models[0], None), output_tokens)
        return LLM(
            models,
            self.redactor,
            s.api_base,
            s.temperature,
            self.sleep,
            max_output_tokens=cap,
            request_timeout=s.request_timeout,
            notify=self.notify,
            deadline=self.deadline,
            observe=self.observe,
            size=self.sized if s.max_output_tokens is None else keep,
            purpose=purpose,
        )

    def sized(self, model: str, cap: int) -> int:
        """`cap`, lowered for a model measured slow so that a full reply fits its request
        timeout: a reply cut off by the timeout is lost whole, one cut at `max_tokens` ends
        with `length` and is read. Its measured speed times `FIT` of the time its first call
        left after the first chunk; never below `MIN_OUTPUT_TOKENS`."""
        call = self.measured.get(model)
        speed = call.tokens_per_s if call else None
        if call is None or speed is None:
            return cap
        room = self.settings.request_timeout - (call.first_s or 0.0)
        return max(MIN_OUTPUT_TOKENS, min(cap, int(speed * room * FIT)))

    def observe(self, call: ModelCall, cap: int) -> None:
        """Keep the first measured call of `call.model` (whose reply was capped at `cap`
        tokens); for a slow model, one progress line with its speed and the projected time of
        a full reply and of an attempt."""
        if call.model in self.measured or call.tokens_per_s is None:
            return
        self.measured[call.model] = call
        speed = call.tokens_per_s
        if self.settings.max_output_tokens is None:
            cap = self.sized(call.model, cap)
        full = (call.first_s or 0.0) + cap / speed
        if full < SLOW_REPLY_S:
            return
        self.notify(
            f"{call.model} writes {speed:.1f} tokens/s ({call.first_s or 0:.0f} s before its "
            f"first token): a reply of up to {cap} tokens takes ~{full:.0f} s, "
            f"an attempt of {TYPICAL_REPLIES} replies ~{TYPICAL_REPLIES * full:.0f} s"
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
