"""The model fixer: one attempt as a conversation in the model's edit protocol.

The fixer builds the opening messages (the system prompt with the protocol's instructions, the
task with its evidence), hands them to the protocol's loop (`fixbot.agent.protocols`: a bounded
tool loop, or SEARCH/REPLACE text for models without function calling), shrinks the prompt when
it is too long for the model, and turns the session into a `FixResult`.
"""

from __future__ import annotations

from pathlib import Path

from fixbot.agent import context, formatdiff, prompts, spectrum
from fixbot.agent.llm import LLM, ContextTooLong, ModelError, models_for
from fixbot.agent.locate import Span
from fixbot.agent.protocols import registry
from fixbot.agent.protocols.base import Conversation, Message, ProtocolSpec, Session
from fixbot.agent.research import Research
from fixbot.agent.runtime import Runtime
from fixbot.agent.tools import Toolbox
from fixbot.core.models import FixContext, FixResult, Phase
from fixbot.process import git, shellwords
from fixbot.tamper.facts import is_check_script
from fixbot.tamper.filters import module_names

SHRINKS = 2
RESEARCH_FROM = 2  # the attempt from which the research tools are offered


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
        self.suspects: list[Span] = []  # attempt 1's spectrum ranking (`fixbot.agent.spectrum`)
        self.formatter = ""  # attempt 1's formatter diff (`fixbot.agent.formatdiff`)

    def locate(self, ctx: FixContext, notes: list[str]) -> list[Span]:
        """The functions the failing tests' coverage spectrum ranks first (attempt 1 only: the
        check runs once more under coverage, through the run's launcher; [] without a failure).
        Why it was skipped, when it was, goes to `notes` (the report's)."""
        launcher, failure = self.runtime.launcher, ctx.failure
        if ctx.attempt != 1 or failure is None or ctx.phase is not Phase.FIX:
            return []
        s = self.runtime.settings
        pointed = [
            (context.relative_to_repo(loc.path, ctx.repo), loc.line) for loc in failure.locations
        ]
        located = [path for path, _ in pointed]
        text = "\n".join([failure.condensed, *(g.text for g in failure.groups)])
        found, why = spectrum.suspects(
            launcher,
            ctx.repo,
            s.check,
            failure.failing_tests,
            s.timeout,
            located,
            pointed,
            evidence=text,
        )
        if why:
            notes.append(f"{spectrum.SKIPPED}{why}")
        return found

    def format_diff(self, ctx: FixContext) -> str:
        """What the check's formatter would change (attempt 1 only: the formatter runs once
        more with `--diff`, through the run's launcher; '' for any other check)."""
        if ctx.attempt != 1 or ctx.phase is not Phase.FIX:
            return ""
        s = self.runtime.settings
        return formatdiff.formatter_diff(self.runtime.launcher, ctx.repo, s.check, s.timeout)

    def fix(self, ctx: FixContext) -> FixResult:
        """Run one attempt in `ctx.repo`; `error` is set for permanent model errors."""
        s = self.runtime.settings
        box = Toolbox(ctx.repo, tuple(s.protected_paths), s.allow_test_edits, s.state_dir)
        box.check_files = check_files(s.check, ctx.repo)
        box.modules = module_names(git.run(ctx.repo, "ls-files", "-z").split("\0"))
        box.start = start_report(ctx)
        protocol = registry.for_model(self.runtime, models_for(s, ctx.attempt)[0])
        session = Session(box)
        llm = self.runtime.llm(ctx.attempt, protocol.output_tokens)
        if ctx.attempt >= RESEARCH_FROM:
            provider = s.search_provider
            session.research = Research(
                ctx.repo, self.runtime.search_path, self.runtime.launcher, provider
            )
        self.suspects = self.locate(ctx, session.notes)
        self.formatter = self.format_diff(ctx)
        before = git.tree_fingerprint(ctx.repo)
        error = self._attempt(ctx, session, llm, protocol)
        return self._result(ctx, session, llm, error, git.changed_since(ctx.repo, before))

    def _attempt(
        self, ctx: FixContext, session: Session, llm: LLM, protocol: ProtocolSpec
    ) -> str | None:
        budget = context.DEFAULT_BUDGET_TOKENS
        for _ in range(SHRINKS + 1):
            try:
                messages = self._opening(ctx, budget, protocol)
                protocol.loop(Conversation(ctx, session, llm, self.runtime, messages, protocol))
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

    def _opening(self, ctx: FixContext, budget: int, protocol: ProtocolSpec) -> list[Message]:
        s = self.runtime.settings
        system = prompts.render(
            "system.j2",
            check=s.check,
            protected=s.protected_paths,
            instructions=protocol.instructions,
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
            ev=context.gather(ctx, budget, self.suspects, self.formatter),
        )
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def _result(
        self, ctx: FixContext, session: Session, llm: LLM, error: str | None, changed: list[str]
    ) -> FixResult:
        # Not redacted here: `LLM` redacts everything sent, the engine everything it records.
        finish = session.box.finished
        summary = finish.summary if finish else session.summary
        if session.stopped and not summary:
            # what the next attempt reads of this one: be brief
            summary = f"reply stopped by fixbot: {session.stopped}; answer with the edit only"
        diagnosis = finish.diagnosis if finish else session.diagnosis
        # fixbot's own notes stay apart from the model's summary: a later attempt or the
        # diagnosis reads the summary as what the attempt did, and must not take a note on
        # pricing or a fallback for the failure.
        return FixResult(
            fixer=f"model:{llm.current}",
            files_changed=changed,
            summary=summary or "",
            notes=[*llm.notes, *session.notes],
            diagnosis=diagnosis,
            tokens=session.usage.tokens,
            cost_usd=session.usage.cost_usd,
            cost_known=session.usage.cost_usd is not None,
            refused=list(session.box.refused),
            error=error,
            resolved_thread_ids=finish.resolved_thread_ids if finish else [],
            sources=list(session.research.sources) if session.research else [],
            calls=list(llm.calls),
        )


def check_files(command: str, repo: Path) -> frozenset[str]:
    """The files in `repo` (repository-relative) that the check `command`'s words name."""
    root = repo.resolve()
    found = set()
    for word in shellwords.words(command):
        path = (root / word).resolve()
        if path.is_file() and path.is_relative_to(root) and is_check_script(path.name):
            found.add(path.relative_to(root).as_posix())
    return frozenset(found)


def start_report(ctx: FixContext) -> dict[str, str] | None:
    """The runner's per-test report of the run's initial check (attempt 0, phase CHECK: the
    start commit's tests and code), None when the run has none (a failure log from elsewhere,
    or a runner that writes no report); never a fix attempt's, whose tests are the model's."""
    first = next((a for a in ctx.history if a.number == 0 and a.phase is Phase.CHECK), None)
    return first.tests if first is not None else None
