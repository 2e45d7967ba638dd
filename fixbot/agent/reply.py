"""A model call's result, read: the `Reply` (its text, its `ToolCall`s, its tokens and price)
built from litellm's response, and the call's figures (`ModelCall`: tokens in and out, seconds,
the first token) from what was streamed.

litellm comes in as an argument (what `fixbot.agent.llm.litellm_module` returned for the call,
so that a stand-in for it reaches here too): its price map (`completion_cost`; no price is None
and a note, never an error) and its token counter (for a server whose stream carries no usage).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fixbot.agent.stream import Assembly
from fixbot.core.calls import CallPurpose, ModelCall

Message = dict[str, Any]


@dataclass(frozen=True)
class ToolCall:
    """One function call of the model: `arguments` is the raw JSON text the model wrote."""

    id: str
    name: str
    arguments: str

    def parsed(self) -> dict[str, Any]:
        """The arguments as a dict; `ValueError` with a message for the model when not JSON."""
        try:
            value = json.loads(self.arguments or "{}")
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"the arguments of {self.name} are not valid JSON ({exc}); resend"
            ) from exc
        if not isinstance(value, dict):
            raise ValueError(f"the arguments of {self.name} must be a JSON object")
        return value


@dataclass(frozen=True)
class Reply:
    """A model reply: text, tool calls and usage (`tokens` prompt+completion, `cost_usd` USD)."""

    content: str
    tool_calls: list[ToolCall]
    model: str
    tokens: int
    cost_usd: float | None
    call: ModelCall | None = None  # the call's figures (None for a reply made another way)

    def message(self) -> Message:
        """The assistant message to append to the conversation."""
        msg: Message = {"role": "assistant", "content": self.content or None}
        if self.tool_calls:
            msg["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                }
                for c in self.tool_calls
            ]
        return msg


def reply_of(litellm: Any, model: str, response: Any, notes: list[str]) -> Reply:
    """The `Reply` of `model` in litellm's `response` (a `ModelResponse`): its text, its tool
    calls, its total tokens and its price (`cost_of`, which may add a note to `notes`)."""
    message = response.choices[0].message
    calls = [
        ToolCall(c.id, c.function.name, c.function.arguments or "{}")
        for c in (getattr(message, "tool_calls", None) or [])
    ]
    usage = getattr(response, "usage", None)
    tokens = int(getattr(usage, "total_tokens", 0) or 0)
    return Reply(
        message.content or "", calls, model, tokens, cost_of(litellm, model, response, notes)
    )


def cost_of(litellm: Any, model: str, response: Any, notes: list[str]) -> float | None:
    """`response`'s price in USD by litellm's price map (`completion_cost`); None for a model it
    has no price for, said once in `notes`."""
    try:
        return float(litellm.completion_cost(completion_response=response, model=model))
    except Exception as exc:  # litellm raises bare Exception for models without a price
        note = f"no price known for {model}: counting tokens only ({type(exc).__name__})"
        if note not in notes:
            notes.append(note)
        return None


def figures(
    litellm: Any,
    model: str,
    purpose: CallPurpose,
    messages: Sequence[Message],
    built: Assembly,
    seconds: float,
    first: float | None,
) -> ModelCall:
    """The `ModelCall` of a reply streamed into `built` in `seconds` (`first`: the seconds until
    its first token, None when none came): the provider's usage, else litellm's count of the
    prompt (`count_tokens`) and the output pieces streamed."""
    if built.usage is not None:
        tokens_in, tokens_out = built.usage
    else:
        tokens_in, tokens_out = count_tokens(litellm, model, messages), built.pieces
    return ModelCall(
        model=model,
        purpose=purpose,
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        seconds=round(seconds, 3),
        first_s=None if first is None else round(first, 3),
    )


def count_tokens(litellm: Any, model: str, messages: Sequence[Message]) -> int:
    """litellm's count of the prompt tokens of `messages` for `model` (for a server whose
    stream carries no usage); 0 when litellm cannot count them."""
    try:
        return int(litellm.token_counter(model=model, messages=list(messages)))
    except Exception:  # litellm raises bare Exception for unknown tokenizers
        return 0
