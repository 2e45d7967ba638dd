"""The model fixer: one attempt as a bounded tool loop (or SEARCH/REPLACE text for models
without function calling), with one nudge when the model finishes without changing anything.

A model that answers `TOOLLESS_LIMIT` times without the tool call the tools protocol needs ends
the attempt (with `--edit-protocol auto`, later attempts use the text protocol), and the attempt's
notes say so: such a model must not burn the attempt's whole tool-call budget.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from fixbot.agent import context, paths, prompts
from fixbot.agent.editblocks import EditError, apply_block, parse_blocks
from fixbot.agent.llm import LLM, ContextTooLong, ModelError, Reply
from fixbot.agent.research import Research
from fixbot.agent.runtime import Runtime, Usage
from fixbot.agent.tools import TOOL_SCHEMAS, Toolbox, read_text
from fixbot.core.models import FixContext, FixResult, Phase
from fixbot.core.settings import EditProtocol
from fixbot.process import git

SHRINKS = 2
RESEARCH_FROM = 2  # the attempt from which the research tools are offered
TEXT_ROUNDS = 3
TOOLLESS_LIMIT = 2
Message = dict[str, Any]


@dataclass
class Session:
    """One attempt's mutable state: the toolbox, usage, notes and the nudge."""

    box: Toolbox
    usage: Usage = field(default_factory=Usage)
    notes: list[str] = field(default_factory=list)
    nudged: bool = False
    calls: int = 0
    toolless: int = 0  # replies without a tool call
    text_summary: str = ""
    text_diagnosis: str | None = None
    research: Research | None = None  # read_dependency / search_web, from attempt 2 on


def earlier_approaches(ctx: FixContext) -> list[str]:
    """One line per earlier fix attempt: what it tried (for 'do not repeat these')."""
    return [
        f"attempt {a.number}: {a.summary or 'no summary'}"
        + (f" (hypothesis: {a.hypothesis})" if a.hypothesis else "")
        + (f" (root cause: {a.diagnosis.root_cause.description})" if a.diagnosis else "")
        for a in ctx.history
        if a.number >= 1
    ]


class ModelFixer:
    """The `Fixer` that asks the configured model(s) to fix the failure."""

    name = "model"

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    def fix(self, ctx: FixContext) -> FixResult:
        """Run one attempt in `ctx.repo`; `error` is set for permanent model errors."""
        s = self.runtime.settings
        box = Toolbox(ctx.repo, tuple(s.protected_paths), s.allow_test_edits, s.state_dir)
        session, llm = Session(box), self.runtime.llm(ctx.attempt)
        if ctx.attempt >= RESEARCH_FROM:
            provider = s.search_provider
            session.research = Research(
                ctx.repo, self.runtime.search_path, provider, launcher=self.runtime.launcher
            )
        before = git.tree_fingerprint(ctx.repo)
        error = self._attempt(ctx, session, llm)
        return self._result(ctx, session, llm, error, git.changed_since(ctx.repo, before))

    def _attempt(self, ctx: FixContext, session: Session, llm: LLM) -> str | None:
        budget = context.DEFAULT_BUDGET_TOKENS
        protocol = self.runtime.protocol(llm.models[0])
        for _ in range(SHRINKS + 1):
            try:
                messages = self._opening(ctx, budget, protocol)
                run = self._tool_loop if protocol == "tools" else self._text_loop
                run(ctx, session, llm, messages)
                return None
            except ContextTooLong:
                budget //= 2
                session.notes.append(
                    f"prompt too long for the model: rebuilt within {budget} tokens"
                )
            except ModelError as exc:
                return str(exc)
        return (
            f"the prompt does not fit the model's context window even at {budget} tokens: "
            "use a model with a larger context window"
        )

    def _opening(self, ctx: FixContext, budget: int, protocol: str) -> list[Message]:
        s = self.runtime.settings
        system = prompts.render(
            "system.j2",
            check=s.check,
            protected=s.protected_paths,
            protocol=protocol,
            max_tool_calls=s.max_tool_calls,
        )
        user = prompts.render(
            "fix.j2",
            phase=ctx.phase.value,
            attempt=ctx.attempt,
            max_attempts=ctx.max_attempts,
            earlier=earlier_approaches(ctx),
            oscillation=ctx.oscillation,
            desired=ctx.desired or s.desired,
            hint=ctx.hint,
            tried=ctx.tried,
            findings=ctx.findings,
            threads=ctx.threads,
            opening=ctx.diagnosis.opening() if ctx.diagnosis else None,
            diverged=ctx.diverged,
            ev=context.gather(ctx, budget),
        )
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def _ask(
        self, ctx: FixContext, session: Session, llm: LLM, messages: list[Message], tools: bool
    ) -> Reply | None:
        problem = self.runtime.budget_problem(ctx, session.usage)
        if problem:
            session.notes.append(f"stopped: {problem}")
            return None
        research = session.research.schemas() if session.research else []
        reply = llm.complete(messages, [*TOOL_SCHEMAS, *research] if tools else None)
        session.usage.add(reply)
        messages.append(reply.message())
        return reply

    def _tool_loop(
        self, ctx: FixContext, session: Session, llm: LLM, messages: list[Message]
    ) -> None:
        limit = self.runtime.settings.max_tool_calls
        while session.calls < limit:
            reply = self._ask(ctx, session, llm, messages, tools=True)
            if reply is None:
                return
            if not reply.tool_calls:
                if self._toolless(session, llm):
                    return
                messages.append({"role": "user", "content": prompts.render("use_tools.j2")})
                continue
            for call in reply.tool_calls:
                messages.append(
                    {"role": "tool", "tool_call_id": call.id, "content": self._run(session, call)}
                )
            if session.box.finished and not self._nudge(ctx, session, messages, "tools"):
                return
        session.notes.append(f"stopped after {limit} tool calls (max-tool-calls)")

    def _toolless(self, session: Session, llm: LLM) -> bool:
        """Count a reply without a tool call; True when the attempt should end."""
        session.toolless += 1
        if session.toolless < TOOLLESS_LIMIT:
            return False
        note = (
            f"{llm.current} answered {session.toolless} times without calling a tool "
            "(the tools protocol needs tool calls): attempt ended"
        )
        if self.runtime.settings.edit_protocol is EditProtocol.AUTO:
            self.runtime.text_only.add(llm.current)
            note += "; later attempts use the text protocol"
        session.notes.append(note)
        self.runtime.notify(note)
        return True

    def _run(self, session: Session, call: Any) -> str:
        session.calls += 1
        if session.calls > self.runtime.settings.max_tool_calls:
            return "Error: tool call limit reached; call finish now."
        try:
            args = call.parsed()
        except ValueError as exc:
            return f"Error: {exc}"
        found = session.research.call(call.name, args) if session.research else None
        if found is not None:
            return found
        return session.box.call(call.name, args)  # redacted by `LLM` when sent

    def _nudge(
        self, ctx: FixContext, session: Session, messages: list[Message], protocol: str
    ) -> bool:
        """Nudge once when the model stops without a change; True when the loop should go on.

        Never in the threads phase: the check passes there, and a `finish` without edits
        (the earlier fix already did what the reviewer asked) is a valid answer.
        """
        if session.box.changed or session.nudged or ctx.phase is Phase.THREADS:
            return False
        session.nudged = True
        session.box.finished = None
        messages.append({"role": "user", "content": prompts.render("nudge.j2", protocol=protocol)})
        return True

    def _text_loop(
        self, ctx: FixContext, session: Session, llm: LLM, messages: list[Message]
    ) -> None:
        for _ in range(TEXT_ROUNDS):
            reply = self._ask(ctx, session, llm, messages, tools=False)
            if reply is None:
                return
            problems = self._apply_text(ctx, session, reply.content)
            if problems:
                messages.append(
                    {
                        "role": "user",
                        "content": "Some edits failed:\n"
                        + "\n".join(problems)
                        + "\nResend corrected blocks for those files only.",
                    }
                )
            elif not self._nudge(ctx, session, messages, "text"):
                return

    def _apply_text(self, ctx: FixContext, session: Session, content: str) -> list[str]:
        session.text_summary = _field(content, "SUMMARY") or session.text_summary
        session.text_diagnosis = _field(content, "DIAGNOSIS") or session.text_diagnosis
        try:
            blocks = parse_blocks(content)
        except EditError as exc:
            return [str(exc)]
        problems = []
        for block in blocks:
            try:
                current = read_text(session.box.resolve(block.path, write=True))
                result = session.box.write(block.path, apply_block(current, block))
            except paths.PathRefused as exc:
                result = session.box.refuse(str(exc))
            except (EditError, OSError) as exc:  # the model's text never ends the run
                result = f"Error: {exc}"
            if result.startswith("Error"):
                problems.append(f"{block.path}: {result}")
        return problems

    def _result(
        self, ctx: FixContext, session: Session, llm: LLM, error: str | None, changed: list[str]
    ) -> FixResult:
        # Not redacted here: `LLM` redacts everything sent, the engine everything it records.
        finish = session.box.finished
        summary = finish.summary if finish else session.text_summary
        diagnosis = finish.diagnosis if finish else session.text_diagnosis
        notes = [*llm.notes, *session.notes]
        # The first line is the summary (it becomes the commit title); notes follow, one a line.
        full = "\n".join(x for x in [summary or "model edits", *notes] if x)
        return FixResult(
            fixer=f"model:{llm.current}",
            files_changed=changed,
            summary=full,
            diagnosis=diagnosis,
            tokens=session.usage.tokens,
            cost_usd=session.usage.cost_usd,
            cost_known=session.usage.cost_usd is not None,
            refused=list(session.box.refused),
            error=error,
            resolved_thread_ids=finish.resolved_thread_ids if finish else [],
            sources=list(session.research.sources) if session.research else [],
        )


def _field(content: str, name: str) -> str | None:
    match = re.search(rf"^{name}:\s*(.+)$", content, re.MULTILINE)
    return match.group(1).strip() if match else None
