"""The structured diagnosis after a failed attempt, and the deterministic recovery plan.

`Diagnosis` is what one model call returns after a fix attempt whose verifying check still fails
(validated with pydantic; a malformed answer is dropped and the run goes on without it). The
next attempt's prompt opens with `Diagnosis.opening()`.

`recovery_plan` is for failures that editing code cannot fix (a missing program, credentials, a
timeout, a full disk, ...): no model call, a few candidate strategies scored as
confidence x 1/sqrt(estimated steps) x 2.5 for automated ones or x 0.6 for asking a person, the
best one chosen and the alternatives recorded (all pure, well under 50 ms).
"""

from __future__ import annotations

import json
import math
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, ValidationError, field_validator

if TYPE_CHECKING:  # `fixbot.core.models` imports this module (an attempt holds its diagnosis)
    from fixbot.core.models import Failure


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
    (`problem`), and the model usage (tokens; USD, None when the price is unknown)."""

    diagnosis: Diagnosis | None
    tokens: int = 0
    cost_usd: float | None = 0.0
    problem: str | None = None


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


NOT_FOUND = re.compile(
    r"(?:^|\n)\S*(?:sh|bash|dash|zsh)?:? ?(?:\d+: |line \d+: )?(?P<p>[\w./+-]+): "
    r"(?:command )?not found|No module named '?(?P<m>[\w.]+)'?"
)


def missing_program(condensed: str) -> str | None:
    """The program (or Python module) the shell or Python reported missing, if any."""
    match = NOT_FOUND.search(condensed)
    if not match:
        return None
    return match["p"] or f"python module {match['m']}"


def check_program_missing(check: str, condensed: str) -> str | None:
    """The check's own program when the output says it is missing, else None.

    A module is the check's program only when the check runs it with `-m` (`python -m pytest`
    printing `No module named pytest`); a module a test imports is the code's problem (fixable).
    """
    program = missing_program(condensed)
    if program is None or not program.startswith("python module "):
        return program
    module = program.removeprefix("python module ")
    try:
        words = shlex.split(check)
    except ValueError:
        words = check.split()
    runs = {words[i + 1] for i, word in enumerate(words[:-1]) if word == "-m"}
    tops = {run.split(".")[0] for run in runs}
    return program if module in runs or module.split(".")[0] in tops else None


def _candidates(
    category: str, failure: Failure, timeout_s: float, in_action: bool, measured_s: float | None
) -> list[Strategy]:
    where = "the `setup-command` input" if in_action else "--setup-command"
    program = missing_program(failure.condensed) or "the check's program"
    name = program.removeprefix("python module ")
    ran = f"it ran {measured_s:.1f} s before it was stopped" if measured_s else "it was stopped"
    table: dict[str, list[Strategy]] = {
        "command_not_found": [
            Strategy(
                action=f"{program} is missing: install it with {where} "
                f"(e.g. `pip install {name}` or `pip install -e '.[test]'`)",
                automated=False,
                confidence=0.8,
                steps=1,
            ),
            Strategy(
                action=f"fix the check command if `{name}` is a typo",
                automated=False,
                confidence=0.4,
                steps=1,
            ),
            Strategy(
                action="use the runner mode (`<owner>/fixbot/runner@v1`) after your set-up steps, "
                f"so the check finds {name} where your workflow installed it",
                automated=False,
                confidence=0.6,
                steps=2,
            ),
        ],
        "timeout": [
            Strategy(
                action=f"raise --timeout above {timeout_s:g} s if the check is merely slow ({ran})",
                automated=False,
                confidence=0.6,
                steps=1,
            ),
            Strategy(
                action="narrow the check (run the failing tests only, e.g. `pytest -x "
                "tests/test_one.py`) so it fits the timeout",
                automated=False,
                confidence=0.5,
                steps=2,
            ),
            Strategy(
                action="re-run the check once in case the machine was slow",
                automated=True,
                confidence=0.1,
                steps=1,
            ),
        ],
        "auth": [
            Strategy(
                action="set the credential the check needs (a secret passed with `env:`)",
                automated=False,
                confidence=0.9,
                steps=1,
            )
        ],
        "permission": [
            Strategy(
                action="grant the permission (file modes, `permissions:` of the job)",
                automated=False,
                confidence=0.8,
                steps=1,
            )
        ],
        "disk_full": [
            Strategy(
                action="free disk space or use a larger runner",
                automated=False,
                confidence=0.7,
                steps=2,
            )
        ],
        "out_of_memory": [
            Strategy(
                action="run the check with fewer parallel workers",
                automated=False,
                confidence=0.6,
                steps=1,
            ),
            Strategy(
                action="use a runner with more memory", automated=False, confidence=0.5, steps=2
            ),
        ],
    }
    for transient in ("network", "rate_limit", "server_error"):
        table[transient] = [
            Strategy(
                action="re-run later (the failure is the service's, not the code's)",
                automated=True,
                confidence=0.5,
                steps=1,
            ),
            Strategy(
                action="mock the service in the tests", automated=False, confidence=0.4, steps=3
            ),
        ]
    return table.get(category, [])


def recovery_plan(
    failure: Failure, timeout_s: float, *, in_action: bool = False, measured_s: float | None = None
) -> RecoveryPlan | None:
    """The recovery plan for a failure code cannot fix, or None when code may fix it.

    `timeout_s` is the check's limit and `measured_s` how long the check ran (seconds);
    `in_action` names the Action's input instead of the CLI flag. Pure, no model call.
    """
    category = failure.classification.category
    found = _candidates(category, failure, timeout_s, in_action, measured_s)
    ranked = sorted(found, key=lambda s: -s.score)
    if not ranked:
        return None
    return RecoveryPlan(category=category, chosen=ranked[0], alternatives=ranked[1:])
