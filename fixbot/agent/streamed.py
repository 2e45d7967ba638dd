"""litellm's streamed reply, read: its chunks (the openai client's own stream under litellm's
wrapper where there is one), the stream closed so the server stops generating, the response a
non-streamed call would have given rebuilt from `fixbot.agent.stream`'s assembly, and how the
call ended. `fixbot.agent.llm` drives a call with these."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from fixbot.agent.stream import Assembly
from fixbot.core.calls import CallEnd, ModelCall
from fixbot.core.secrets import provider_of


class IncompleteReply(RuntimeError):
    """A streamed reply ended without a finish reason (a body that was no event stream, a
    server that stopped mid-reply): the cause of the litellm `APIError` raised, which is
    retried, and named by `fixbot.agent.errors.CAUSES`."""


def close(stream: Any) -> None:
    """Close a litellm stream and the HTTP response under it, so that the server stops
    generating (litellm's `CustomStreamWrapper` keeps the openai client's `Stream` as
    `completion_stream`, which has `close`)."""
    for thing in (getattr(stream, "completion_stream", None), stream):
        closer = getattr(thing, "close", None)
        if callable(closer):
            # closing is best effort: the reply is already in hand
            with contextlib.suppress(Exception):
                closer()


def response_of(litellm: Any, model: str, built: Assembly, call: ModelCall) -> Any:
    """litellm's `ModelResponse` for a streamed reply (what a non-streamed call returns), with
    `call`'s token counts as its usage, so that pricing reads it as before."""
    calls = [
        {
            "id": c.id or f"call_{index}",
            "type": "function",
            "function": {"name": c.name, "arguments": c.arguments},
        }
        for index, c in sorted(built.calls.items())
    ]
    message: dict[str, Any] = {"role": "assistant", "content": built.content or None}
    if calls:
        message["tool_calls"] = calls
    usage = {
        "prompt_tokens": call.tokens_in,
        "completion_tokens": call.tokens_out,
        "total_tokens": call.tokens_in + call.tokens_out,
    }
    choice = {"index": 0, "message": message, "finish_reason": built.finish_reason or "stop"}
    return litellm.ModelResponse(model=model, choices=[choice], usage=usage)


def chunks_of(litellm: Any, model: str, stream: Any) -> Iterator[Any]:
    """The chunks of a litellm stream. For an OpenAI-compatible provider, the openai client's own
    `Stream` under litellm's wrapper: the wrapper's work per chunk (its chunk objects, rules,
    debug text) costs ~3 ms a chunk against ~0.7 ms for the client's alone (bench/README.md,
    "Streaming"), more than a fast model takes to send one. An error while reading it becomes
    litellm's `APIError` (retried, `fixbot.agent.errors`), its cause kept for the reason."""
    import openai

    inner = getattr(stream, "completion_stream", None)
    if not isinstance(inner, openai.Stream):
        yield from stream
        return
    try:
        yield from inner
    except Exception as exc:
        status = getattr(exc, "status_code", None)
        broken: Exception = litellm.APIError(
            status_code=status if isinstance(status, int) else 502,
            message=f"the streamed reply broke off: {type(exc).__name__}: {exc}",
            llm_provider=provider_of(model),
            model=model,
        )
        raise broken from exc


def refuse_incomplete(litellm: Any, model: str, built: Assembly, stopped: str | None) -> None:
    """Raise litellm's `APIError` (502, caused by `IncompleteReply`) when the stream ended by
    itself (not `stopped` early) without a finish reason: the reply is not whole."""
    if stopped is not None or built.finished:
        return
    cause = IncompleteReply(
        f"the streamed reply ended without a finish reason after {built.pieces} pieces"
    )
    broken: Exception = litellm.APIError(
        status_code=502, message=str(cause), llm_provider=provider_of(model), model=model
    )
    raise broken from cause


def mark_end(call: ModelCall, stopped: str | None, finish_reason: str | None) -> None:
    """Say how `call` ended when not plainly: stopped early for the reason `stopped` (a
    degenerate reply), or at its token cap (`finish_reason` "length")."""
    if stopped:
        call.end, call.why = CallEnd.DEGENERATE, stopped
    elif finish_reason == "length":
        call.end = CallEnd.LENGTH
