"""The `tools` edit protocol: function calling (`read_file`, `replace_in_file`, `finish`, ...).

A bounded tool loop: at most `max_tool_calls` calls per attempt. A model that answers
`TOOLLESS_LIMIT` times without a tool call ends the attempt (with `--edit-protocol auto`, later
attempts use the text protocol), and the attempt's notes say so: such a model must not burn the
attempt's whole tool-call budget.
"""

from __future__ import annotations

from typing import Any

from fixbot.agent import prompts
from fixbot.agent.protocols.base import Conversation, ProtocolSpec, Session
from fixbot.agent.tools import TOOL_SCHEMAS
from fixbot.core.values import AUTO_PROTOCOL

TOOLLESS_LIMIT = 2


def loop(talk: Conversation) -> None:
    """Ask, run the tool calls, repeat until `finish` (after at most one nudge), the tool-call
    limit, a spent budget or `TOOLLESS_LIMIT` replies without a tool call."""
    session = talk.session
    limit = talk.runtime.settings.max_tool_calls
    research = session.research.schemas() if session.research else []
    while session.calls < limit:
        reply = talk.ask([*TOOL_SCHEMAS, *research])
        if reply is None:
            return
        if not reply.tool_calls:
            if _toolless(talk):
                return
            talk.say(prompts.render("use_tools.j2"))
            continue
        for call in reply.tool_calls:
            talk.messages.append(
                {"role": "tool", "tool_call_id": call.id, "content": _run(talk, call)}
            )
        if session.box.finished and not talk.nudge():
            return
    session.notes.append(f"stopped after {limit} tool calls (max-tool-calls)")


def _toolless(talk: Conversation) -> bool:
    """Count a reply without a tool call; True when the attempt should end."""
    session, runtime, llm = talk.session, talk.runtime, talk.llm
    session.toolless += 1
    if session.toolless < TOOLLESS_LIMIT:
        return False
    note = (
        f"{llm.current} answered {session.toolless} times without calling a tool "
        "(the tools protocol needs tool calls): attempt ended"
    )
    if runtime.settings.edit_protocol == AUTO_PROTOCOL:
        runtime.text_only.add(llm.current)
        note += "; later attempts use the text protocol"
    session.notes.append(note)
    runtime.notify(note)
    return True


def _run(talk: Conversation, call: Any) -> str:
    """One tool call's result, for the model (an `Error: ...` text when it cannot run)."""
    session: Session = talk.session
    session.calls += 1
    if session.calls > talk.runtime.settings.max_tool_calls:
        return "Error: tool call limit reached; call finish now."
    try:
        args = call.parsed()
    except ValueError as exc:
        return f"Error: {exc}"
    found = session.research.call(call.name, args) if session.research else None
    if found is not None:
        return found
    return session.box.call(call.name, args)  # redacted by `LLM` when sent


PROTOCOL = ProtocolSpec(
    name="tools",
    instructions="protocol_tools.j2",
    nudge="with replace_in_file or write_file, then call finish",
    tool_answers=True,
    loop=loop,
    # the 38 reference fixes of the bench corpus as `replace_in_file` calls and `finish`:
    # median 266 tokens, p90 690, largest 3,693 when every call is in one reply
    # (bench/README.md)
    output_tokens=4096,
)
