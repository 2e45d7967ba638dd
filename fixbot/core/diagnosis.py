"""The structured diagnosis after a failed attempt, and the recovery plan's data.

`Diagnosis` is what one model call returns after a fix attempt whose verifying check still fails
(validated with pydantic; a malformed answer is dropped and the run goes on without it). The
next attempt's prompt opens with `Diagnosis.opening()`.

`RecoveryPlan` and its `Strategy`s are what `fixbot.policy.recovery.recovery_plan` decides for a
failure that editing code cannot fix (a missing program, credentials, a timeout, a full disk).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field, ValidationError, field_validator

from fixbot.core.calls import ModelCall


class RootCauseCategory(StrEnum):
    """Where the root cause lies (the fixed list the model chooses from)."""

    CODE_BUG = "code_bug"
    TEST_EXPECTATION = "test_expectation"
    MISSING_DEPENDENCY = "missing_dependency"
    ENVIRONMENT = "environment"
    FLAKY = "flaky"
    CONFIGURATION = "configuration"
    UNKNOWN = "unknown"


class RootCause(BaseModel):
    """The root cause: its category, one sentence, and a confidence from 0 to 1."""

    category: RootCauseCategory
    description: str = Field(min_length=1, max_length=1000)
    confidence: float = Field(ge=0, le=1)


class Diagnosis(BaseModel):
    """A why-chain (1 to 5 sentences, each the cause of the one before), the root cause, quoted
    evidence, and what the next attempt should do differently.

    `repeated` is True when the attempt did not change the failure and the earlier diagnosis
    stands (no new model call was made).
    """

    why: list[str] = Field(min_length=1, max_length=5)
    root_cause: RootCause
    evidence: list[str] = Field(default_factory=list, max_length=10)
    next_step: str = Field(min_length=1, max_length=1000)
    repeated: bool = False

    @field_validator("why", "evidence")
    @classmethod
    def _bounded_lines(cls, value: list[str]) -> list[str]:
        return [line.strip()[:500] for line in value if line.strip()]

    def redacted(self, redact: Callable[[str], str]) -> Diagnosis:
        """A copy with every text passed through `redact` (the engine records only that)."""
        cause = self.root_cause
        return self.model_copy(
            update={
                "why": [redact(line) for line in self.why],
                "evidence": [redact(line) for line in self.evidence],
                "next_step": redact(self.next_step),
                "root_cause": cause.model_copy(update={"description": redact(cause.description)}),
            }
        )

    def opening(self) -> str:
        """The sentence the next attempt's prompt opens with."""
        chain = " ".join(f"{n}. {line}" for n, line in enumerate(self.why, 1))
        cause = self.root_cause
        same = " (the attempt did not change the failure)" if self.repeated else ""
        return (
            f"The previous attempt failed{same}. Root cause ({cause.category.value}, confidence "
            f"{cause.confidence:.1f}): {cause.description}; why: {chain}; recommended next step: "
            f"{self.next_step}"
        )


DIAGNOSIS_SCHEMA: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "submit_diagnosis",
        "description": "Submit why the last fix attempt did not make the check pass.",
        "parameters": {
            "type": "object",
            "properties": {
                "why": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 5},
                "root_cause": {
                    "type": "object",
                    "properties": {
                        "category": {
                            "type": "string",
                            "enum": [c.value for c in RootCauseCategory],
                        },
                        "description": {"type": "string"},
                        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                    },
                    "required": ["category", "description", "confidence"],
                },
                "evidence": {"type": "array", "items": {"type": "string"}},
                "next_step": {"type": "string"},
            },
            "required": ["why", "root_cause", "next_step"],
        },
    },
}


@dataclass
class DiagnosisResult:
    """What one diagnostic call gave: the diagnosis (None when the model gave none), why not
    (`problem`), the model usage (tokens; USD, None when the price is unknown) and the
    call's figures (`calls`, `fixbot.core.models.ModelCall`)."""

    diagnosis: Diagnosis | None
    tokens: int = 0
    cost_usd: float | None = 0.0
    problem: str | None = None
    calls: list[ModelCall] = field(default_factory=list)


def parse_diagnosis(arguments: str | None, content: str) -> Diagnosis | None:
    """The diagnosis from a `submit_diagnosis` call's JSON `arguments`, else from the first JSON
    object in the text `content`; None when neither is a valid diagnosis."""
    for text in (arguments, _json_object(content)):
        if not text:
            continue
        try:
            return Diagnosis.model_validate(json.loads(text))
        except (json.JSONDecodeError, ValidationError, TypeError):
            continue
    return None


def _json_object(content: str) -> str | None:
    start, end = content.find("{"), content.rfind("}")
    return content[start : end + 1] if 0 <= start < end else None


# -- the deterministic recovery plan ----------------------------------------------------------


class Strategy(BaseModel):
    """A candidate recovery strategy; `score` = confidence x 1/sqrt(steps) x (2.5 | 0.6)."""

    action: str
    automated: bool
    confidence: float = Field(ge=0, le=1)
    steps: int = Field(ge=1)

    @property
    def score(self) -> float:
        """The strategy's score (higher is better)."""
        weight = 2.5 if self.automated else 0.6
        return self.confidence / math.sqrt(self.steps) * weight


class RecoveryPlan(BaseModel):
    """The chosen strategy and the alternatives, best first, for a failure code cannot fix."""

    category: str
    chosen: Strategy
    alternatives: list[Strategy] = Field(default_factory=list)

    def lines(self) -> list[str]:
        """The plan as report lines: the chosen action first, then the alternatives."""
        out = [f"{self.chosen.action} (score {self.chosen.score:.2f})"]
        out += [f"alternative: {s.action} (score {s.score:.2f})" for s in self.alternatives]
        return out
