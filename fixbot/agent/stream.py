"""A streamed reply, put together chunk by chunk, and the judgement of when it has stopped being
an answer.

`Assembly` accumulates the chunks of an OpenAI-style chat completion stream (`delta.content`,
`delta.tool_calls` by `index`, `finish_reason`, and the `usage` of the last chunk when the
request asked for `stream_options={"include_usage": true}`; see
https://platform.openai.com/docs/api-reference/chat-streaming). `degenerate` and `Watch` are pure
functions of the text so far: a reply is stopped when its tail is one short span repeated, or,
when tools were offered, when it is long text with no tool call, or tool-call arguments that can
no longer become JSON.

The bounds, with the figures behind them (bench/README.md, "Streaming: answer sizes"):
- `REPEAT_CHARS` = 256, `REPEAT_TIMES` = 4, periods 1 to `MAX_PERIOD` = 200 characters: the last
  max(256, 4 x k) characters are one k-character unit repeated. Over the bench corpus's 38
  reference fixes written as SEARCH/REPLACE blocks and as `replace_in_file` arguments, no answer
  has such a tail anywhere (the longest periodic run is 80 characters: a rule of `=`); a 135M
  model that loops repeats a line of 20-120 characters, found within ~1,000 characters.
- `TOOLLESS_CHARS` = 3,000: the tools protocol asks for tool calls, and the oracle's tool answers
  carry no text at all; a hosted model that explains first writes a paragraph or two (a few
  hundred characters). 3,000 characters (~750 tokens) of text with no tool call begun is not a
  preamble.
- `JSON_GRACE` = 64: tool-call arguments are judged only once this long, then must remain a
  prefix of some JSON value (`jiter`'s partial mode): a model that writes prose into the
  arguments is stopped as soon as the prose begins.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import jiter

REPEAT_CHARS = 256
REPEAT_TIMES = 4
MAX_PERIOD = 200
TOOLLESS_CHARS = 3000
JSON_GRACE = 64
CHECK_EVERY = 32  # characters of new text between two looks for a repeating tail


def repeating(text: str) -> tuple[str, int] | None:
    """The unit and its count when the tail of `text` is one span repeated: for some period k
    in 1..`MAX_PERIOD`, the last max(`REPEAT_CHARS`, `REPEAT_TIMES` x k) characters equal the
    unit of their last k characters repeated. The shortest such unit and how many whole times
    it ends `text`, else None."""
    for k in range(1, MAX_PERIOD + 1):
        span = max(REPEAT_CHARS, REPEAT_TIMES * k)
        if len(text) < span:
            return None
        tail = text[-span:]
        if tail[:-k] == tail[k:]:  # periodic with period k: each char equals the one k later
            unit, times, end = text[-k:], 1, len(text)
            while text[end - (times + 1) * k : end - times * k] == unit:
                times += 1
            return unit, times
    return None


def degenerate(text: str) -> str | None:
    """Why `text` (the reply so far) has stopped being an answer, or None: its tail repeats one
    span (see `repeating`)."""
    found = repeating(text)
    if found is None:
        return None
    unit, times = found
    shown = unit if len(unit) <= 40 else unit[:37] + "..."
    return f"the reply repeated {shown!r} {times}+ times"


def not_json(arguments: str) -> bool:
    """True when `arguments` (tool-call arguments so far, past `JSON_GRACE` characters) cannot
    be the start of a JSON value."""
    if len(arguments) < JSON_GRACE:
        return False
    try:
        jiter.from_json(arguments.encode(), partial_mode="trailing-strings")
    except ValueError:
        return True
    return False


@dataclass
class Call:
    """One tool call being assembled: `arguments` grows as its deltas arrive."""

    id: str = ""
    name: str = ""
    arguments: str = ""


@dataclass
class Assembly:
    """The reply as streamed so far.

    `feed` takes one chunk (litellm's `ModelResponseStream`, or any object with the same
    attributes); `pieces` counts content and tool-call deltas (about one token each on the
    servers tried: llama.cpp and OpenAI send a token a chunk). `usage` is the provider's
    (prompt_tokens, completion_tokens), when a chunk carried it. `finished` is True once the
    provider itself said something and a finish reason came: litellm ends a stream whose body
    held no events with a `stop` chunk of its own, which is no reply.
    """

    content: str = ""
    calls: dict[int, Call] = field(default_factory=dict)
    finish_reason: str | None = None
    usage: tuple[int, int] | None = None
    pieces: int = 0
    spoke: bool = False  # the provider sent a role, a delta or usage (not litellm's own end)
    _checked: int = 0

    def feed(self, chunk: Any) -> None:
        """Add one chunk's deltas, finish reason and usage."""
        usage = getattr(chunk, "usage", None)
        if usage is not None and getattr(usage, "completion_tokens", None) is not None:
            self.usage = (int(usage.prompt_tokens or 0), int(usage.completion_tokens or 0))
            self.spoke = True
        for choice in getattr(chunk, "choices", None) or []:
            if getattr(choice, "finish_reason", None):
                self.finish_reason = choice.finish_reason
            delta = getattr(choice, "delta", None)
            if delta is not None:
                self._delta(delta)

    def _delta(self, delta: Any) -> None:
        """Add one choice's delta: a role, content, tool-call parts."""
        if getattr(delta, "role", None):
            self.spoke = True
        if getattr(delta, "content", None):
            self.content += delta.content
            self.pieces += 1
            self.spoke = True
        for part in getattr(delta, "tool_calls", None) or []:
            self._tool_delta(part)

    def _tool_delta(self, part: Any) -> None:
        index = getattr(part, "index", None)
        index = len(self.calls) if index is None else int(index)
        call = self.calls.setdefault(index, Call())
        call.id = call.id or (getattr(part, "id", None) or "")
        function = getattr(part, "function", None)
        if function is not None:
            call.name = call.name or (getattr(function, "name", None) or "")
            call.arguments += getattr(function, "arguments", None) or ""
        self.pieces += 1
        self.spoke = True

    @property
    def finished(self) -> bool:
        """True when the provider spoke and the reply has a finish reason."""
        return self.spoke and self.finish_reason is not None

    def stop_reason(self, tools: bool) -> str | None:
        """Why the reply should be stopped now (it has stopped being an answer), or None.
        `tools`: tool calls were offered (the tools protocol or a structured answer)."""
        if tools and not self.calls and len(self.content) >= TOOLLESS_CHARS:
            return f"{len(self.content)} characters of text and no tool call"
        size = len(self.content) + sum(len(c.arguments) for c in self.calls.values())
        if size - self._checked < CHECK_EVERY:  # each look reads the whole text: not every piece
            return None
        self._checked = size
        for call in self.calls.values():
            if not_json(call.arguments):
                return f"the arguments of {call.name or 'a tool call'} are not JSON"
        return degenerate(self.content + "".join(c.arguments for c in self.calls.values()))
