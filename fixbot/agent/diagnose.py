"""The diagnostic reflection: one model call after a failed fix attempt (see fixbot.core.diagnosis).

Counted in the run's budget and skipped when it is spent; a malformed or missing answer yields
no diagnosis (the caller notes it), never an exception.
"""

from __future__ import annotations

from typing import Any

from fixbot.agent import context, prompts
from fixbot.agent.llm import LLM, ModelError
from fixbot.agent.protocols import registry
from fixbot.agent.runtime import Runtime, Spend
from fixbot.core.calls import CallPurpose
from fixbot.core.diagnosis import (
    DIAGNOSIS_SCHEMA,
    Diagnosis,
    DiagnosisResult,
    RootCauseCategory,
    parse_diagnosis,
)
from fixbot.core.models import FixContext

__all__ = ["DiagnosisResult", "diagnose"]


def _result(
    diagnosis: Diagnosis | None, usage: Spend, problem: str | None, llm: LLM | None = None
) -> DiagnosisResult:
    calls = list(llm.calls) if llm else []
    return DiagnosisResult(diagnosis, usage.tokens, usage.cost_usd, problem, calls)


def diagnose(runtime: Runtime, ctx: FixContext, tried: str) -> DiagnosisResult:
    """Ask the model why attempt `ctx.attempt` failed; `tried` is the attempt's summary.

    `ctx.failure` is the failure after the attempt. Never raises for a model error: the result
    then has no diagnosis and a `problem` the run notes.
    """
    usage = Spend()
    problem = runtime.budget_problem(ctx, usage)
    if problem:
        return _result(None, usage, f"no diagnosis: {problem}")
    llm = runtime.llm(ctx.attempt, purpose=CallPurpose.DIAGNOSIS)
    protocol = registry.for_model(runtime, llm.models[0])
    prompt = prompts.render(
        "diagnose.j2",
        attempt=ctx.attempt,
        check=runtime.settings.check,
        categories=[c.value for c in RootCauseCategory],
        tool_answers=protocol.tool_answers,
        tried=tried,
        ev=context.gather(ctx),
    )
    messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
    try:
        reply = llm.complete(messages, protocol.answer_tools(DIAGNOSIS_SCHEMA))
    except ModelError as exc:
        return _result(None, usage, f"no diagnosis: {exc}", llm)
    usage.add(reply)
    arguments = next((c.arguments for c in reply.tool_calls if c.name == "submit_diagnosis"), None)
    found = parse_diagnosis(arguments, reply.content)
    if found is None:
        return _result(None, usage, "the model's diagnosis was malformed; going on without it", llm)
    clean = found.redacted(runtime.redactor.redact)
    return _result(clean, usage, None, llm)
