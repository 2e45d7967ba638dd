"""One model call's figures as the report shows them (`ModelCall`), why it ended (`CallEnd`)
and what it was for (`CallPurpose`): kept by the litellm adapter (`fixbot.agent.llm`), recorded
on each attempt (`fixbot.core.models.Attempt.calls`) and on a diagnosis's result
(`fixbot.core.diagnosis.DiagnosisResult`)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel


class CallEnd(StrEnum):
    """Why one model call ended: the model finished its reply, it reached the output cap
    (`length`), fixbot stopped it because it had stopped being an answer (`degenerate`,
    `fixbot.agent.stream`), or no complete reply came in time (`timed out`)."""

    FINISHED = "finished"
    LENGTH = "length"
    DEGENERATE = "degenerate"
    TIMED_OUT = "timed out"


class CallPurpose(StrEnum):
    """What a model call was for: the fixer's edit (`fix`, threads too), the diagnosis of a
    failed attempt, the self-review of the diff, or the escalation analysis for the human."""

    FIX = "fix"
    DIAGNOSIS = "diagnosis"
    REVIEW = "review"
    ANALYSIS = "analysis"


class ModelCall(BaseModel):
    """One model call as the report shows it: what it was `purpose`d for, `tokens_in` and
    `tokens_out` (the provider's usage, else output pieces streamed), `seconds` of wall time
    from sending to the last chunk, `first_s` seconds until the first chunk (the prompt's
    processing), and how it `end`ed; `why` says what made it degenerate or time out."""

    model: str
    purpose: CallPurpose = CallPurpose.FIX
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0
    first_s: float | None = None
    end: CallEnd = CallEnd.FINISHED
    why: str = ""

    @property
    def tokens_per_s(self) -> float | None:
        """Output tokens per second of generation (after the first chunk), None without output
        or a measurable generation time."""
        span = self.seconds - (self.first_s or 0.0)
        if self.tokens_out < 2 or span <= 0:
            return None
        return self.tokens_out / span
