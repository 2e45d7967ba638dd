"""The self-review of the whole diff (`submit_review`) and the escalation analysis."""

from __future__ import annotations

import json
from typing import Any

from pydantic import TypeAdapter, ValidationError

from fixbot.agent import context, prompts
from fixbot.agent.llm import LLM, ModelError
from fixbot.agent.protocols import registry
from fixbot.agent.protocols.base import ProtocolSpec
from fixbot.agent.reply import Reply
from fixbot.agent.runtime import Runtime, Spend
from fixbot.agent.tools import REVIEW_SCHEMA
from fixbot.core.calls import CallPurpose
from fixbot.core.models import Finding, FixContext, FixResult, ReviewResult
from fixbot.process import git

FINDINGS = TypeAdapter(list[Finding])
RETRY_ASK = "Submit the review now: call submit_review (an empty list when the change is clean)."
# The text protocol offers no tool: the review is a JSON list in the reply (review.j2 says so).
RETRY_ASK_TEXT = (
    "Submit the review now: reply with the findings as one JSON list "
    "(`[]` when the change is clean)."
)
# The start of a ReviewResult error when no review was attempted; every other error is a
# review that was tried and failed.
NO_BUDGET = "no budget left for the review"


def retry_ask(tool_answers: bool) -> str:
    """What the model is asked after a review it did not submit or that failed to parse: the
    `submit_review` call where the protocol offers tools, a JSON list where it does not."""
    return RETRY_ASK if tool_answers else RETRY_ASK_TEXT


def parse_findings(reply: Reply, tool_answers: bool = True) -> list[Finding]:
    """Findings from a `submit_review` call, or from a JSON list in the text.

    Raises `ValueError` (message for the model, asking as `retry_ask(tool_answers)` does) when
    neither is present or valid.
    """
    for call in reply.tool_calls:
        if call.name == "submit_review":
            return _validate(call.parsed().get("findings", []))
    ask = retry_ask(tool_answers)
    text = reply.content.strip()
    start, end = text.find("["), text.rfind("]")
    if start < 0 or end < start:
        raise ValueError("no review found: " + ask)
    try:
        return _validate(json.loads(text[start : end + 1]))
    except json.JSONDecodeError as exc:
        raise ValueError(f"the findings are not valid JSON ({exc}): {ask}") from exc


def _validate(raw: Any) -> list[Finding]:
    try:
        return FINDINGS.validate_python(raw)
    except ValidationError as exc:
        raise ValueError(
            f"the findings do not match the schema ({exc.error_count()} errors)"
        ) from exc


class ModelReviewer:
    """The `Reviewer` and `Analyst` backed by the configured model."""

    name = "model"

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    def review(self, ctx: FixContext) -> ReviewResult:
        """Review the diff since `ctx.start_sha`; an empty diff is clean without a model call."""
        diff = git.diff_since(ctx.repo, ctx.start_sha)
        if not diff.strip():
            return ReviewResult()
        llm = self.runtime.llm(ctx.attempt, purpose=CallPurpose.REVIEW)
        protocol = registry.for_model(self.runtime, llm.models[0])
        s = self.runtime.settings
        prompt = prompts.render(
            "review.j2",
            check=s.check,
            tool_answers=protocol.tool_answers,
            desired=ctx.desired or s.desired,
            diff=diff,
        )
        messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
        found = self._rounds(ctx, llm, messages, protocol.answer_tools(REVIEW_SCHEMA), protocol)
        return found.model_copy(update={"calls": list(llm.calls)})

    def _rounds(
        self,
        ctx: FixContext,
        llm: LLM,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        protocol: ProtocolSpec,
    ) -> ReviewResult:
        """Ask for the review, once more when the answer does not parse; the findings, or why
        there are none, with the usage (the caller adds the calls' figures)."""
        usage, error = Spend(), "the review was not submitted"
        for _ in range(2):
            if self.runtime.budget_problem(ctx, usage):
                return ReviewResult(tokens=usage.tokens, cost_usd=usage.cost_usd, error=NO_BUDGET)
            try:
                reply = llm.complete(messages, tools)
            except ModelError as exc:
                return ReviewResult(tokens=usage.tokens, cost_usd=usage.cost_usd, error=str(exc))
            usage.add(reply)
            try:
                findings = [self._clean(f) for f in parse_findings(reply, protocol.tool_answers)]
                return ReviewResult(findings=findings, tokens=usage.tokens, cost_usd=usage.cost_usd)
            except ValueError as exc:
                error = str(exc)
                ask = retry_ask(protocol.tool_answers)
                messages += [reply.message(), *_answers(reply, error, ask)]
        return ReviewResult(
            tokens=usage.tokens, cost_usd=usage.cost_usd, error=f"review failed: {error}"
        )

    def _clean(self, finding: Finding) -> Finding:
        return finding.model_copy(update={"message": self.runtime.redactor.redact(finding.message)})

    def analyze(self, ctx: FixContext) -> FixResult:
        """Write the escalation analysis (markdown in `summary`) when budget remains."""
        llm = self.runtime.llm(ctx.attempt, purpose=CallPurpose.ANALYSIS)
        usage = Spend()
        name = f"analysis:{llm.models[0]}"
        problem = self.runtime.budget_problem(ctx, usage)
        if problem:
            return FixResult(fixer=name, error=f"no escalation analysis: {problem}")
        prompt = prompts.render(
            "analysis.j2",
            check=self.runtime.settings.check,
            reason=ctx.reason,
            ev=context.gather(ctx),
        )
        try:
            reply = llm.complete([{"role": "user", "content": prompt}])
        except ModelError as exc:
            return FixResult(
                fixer=name, error=f"no escalation analysis: {exc}", calls=list(llm.calls)
            )
        usage.add(reply)
        return FixResult(
            fixer=name,
            summary=reply.content,  # the engine redacts the analysis it records
            tokens=usage.tokens,
            cost_usd=usage.cost_usd,
            cost_known=usage.cost_usd is not None,
            calls=list(llm.calls),
        )


def _answers(reply: Reply, error: str, ask: str) -> list[dict[str, Any]]:
    """Tool results for every call of `reply` (the API requires them), then the retry request
    `ask`."""
    results = [
        {"role": "tool", "tool_call_id": c.id, "content": f"Error: {error}"}
        for c in reply.tool_calls
    ]
    return [*results, {"role": "user", "content": ask}]
