"""What every edit protocol is (`ProtocolSpec`), and the conversation its loop drives.

An edit protocol is how a model hands fixbot its edits: `tools` (function calling) or `text`
(SEARCH/REPLACE blocks, for models without function calling). The fixer builds the opening
messages, then gives the protocol's `loop` a `Conversation`: the model to ask, the attempt's
`Session` (the guarded `Toolbox` every edit goes through) and the messages so far.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fixbot.agent import prompts
from fixbot.agent.llm import LLM
from fixbot.agent.reply import Reply
from fixbot.agent.research import Research
from fixbot.agent.runtime import Runtime, Spend
from fixbot.agent.tools import Toolbox
from fixbot.core.calls import CallEnd
from fixbot.core.models import FixContext, Phase

Message = dict[str, Any]
Schema = dict[str, Any]


@dataclass
class Session:
    """One attempt's mutable state: the toolbox, usage, notes and the nudge.

    `summary` and `diagnosis` are what a protocol without a `finish` call read from the model's
    replies; `finish`, when called, wins. `calls` and `toolless` count tool calls and replies
    without one (the tools protocol).
    """

    box: Toolbox
    usage: Spend = field(default_factory=Spend)
    notes: list[str] = field(default_factory=list)
    nudged: bool = False
    calls: int = 0
    toolless: int = 0
    summary: str = ""
    diagnosis: str | None = None
    research: Research | None = None  # read_dependency / search_web, from attempt 2 on
    stopped: str | None = None  # why fixbot cut a reply short (it stopped being an answer)


@dataclass
class Conversation:
    """One fix attempt's conversation, as a protocol's `loop` sees it.

    `messages` are those sent so far (the system prompt and the task first); `ask` and `say`
    append to them. Model errors propagate (`ModelError`, `ContextTooLong`): the fixer handles
    them.
    """

    ctx: FixContext
    session: Session
    llm: LLM
    runtime: Runtime
    messages: list[Message]
    protocol: ProtocolSpec

    def ask(self, tools: list[Schema] | None = None) -> Reply | None:
        """The model's next reply, offered `tools` (None: plain text), appended to `messages`.

        None when the run's budget allows no further call, or when fixbot stopped the reply
        because it had stopped being an answer (`session.stopped`); the session's notes say why.
        Raises `ModelError` or `ContextTooLong` from the model.
        """
        problem = self.runtime.budget_problem(self.ctx, self.session.usage)
        if problem:
            self.session.notes.append(f"stopped: {problem}")
            return None
        reply = self.llm.complete(self.messages, tools)
        self.session.usage.add(reply)
        call = reply.call
        if call is not None and call.end is CallEnd.DEGENERATE:
            # the reply stopped being an answer: the attempt ends, and the next one is told
            self.session.stopped = f"{call.why} (stopped after {call.tokens_out} tokens)"
            note = f"{self.llm.current}'s reply was stopped: {self.session.stopped}; attempt ended"
            self.session.notes.append(note)
            self.runtime.notify(note)
            return None
        self.messages.append(reply.message())
        return reply

    def say(self, content: str) -> None:
        """Append a user message (feedback for the model's next reply)."""
        self.messages.append({"role": "user", "content": content})

    def nudge(self) -> bool:
        """Nudge once when the model stops without a change; True when the loop should go on.

        Never in the threads phase: the check passes there, and a `finish` without edits
        (the earlier fix already did what the reviewer asked) is a valid answer.
        """
        session = self.session
        if session.box.changed or session.nudged or self.ctx.phase is Phase.THREADS:
            return False
        session.nudged = True
        session.box.finished = None
        self.say(prompts.render("nudge.j2", how=self.protocol.nudge))
        return True


Loop = Callable[[Conversation], None]


@dataclass(frozen=True)
class ProtocolSpec:
    """One edit protocol.

    `name`: its `--edit-protocol` value (the module's name, by convention).
    `instructions`: the template in `fixbot/templates/` the system prompt includes to tell the
    model how to edit (it sees the system prompt's values, e.g. `max_tool_calls`). `nudge`: the
    words after "Make the code change that fixes it now" when the model stops without a change
    ("as SEARCH/REPLACE blocks"). `tool_answers`: structured answers (the self-review, the
    diagnosis) are asked for as a tool call with a schema (True) or as JSON in the reply's text
    (False). `loop`: the conversation of one fix attempt: it asks the model, applies the edits
    through `conversation.session.box` and returns when the attempt is over (the fixer reads
    the changed files and the session afterwards). `output_tokens`: what one reply of an edit
    needs, the cap per reply unless `max-output-tokens` says otherwise (measured on the bench
    corpus's reference fixes written in the protocol: bench/README.md, "Streaming").
    """

    name: str
    instructions: str
    nudge: str
    tool_answers: bool
    loop: Loop
    output_tokens: int = 4096

    def answer_tools(self, schema: Schema) -> list[Schema] | None:
        """The tools to offer for a structured answer with `schema`: `[schema]`, or None (JSON
        in text)."""
        return [schema] if self.tool_answers else None
