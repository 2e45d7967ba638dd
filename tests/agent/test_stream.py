"""Streamed replies: assembled as the non-streamed reply would be, and stopped once they stop
being an answer (a repeating span, prose where a tool call should be, arguments that cannot
become JSON); the call's figures are kept, and a stopped reply ends the attempt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fixbot.agent import stream
from fixbot.agent.llm import LLM
from fixbot.agent.stream import Assembly, degenerate, not_json, repeating
from fixbot.core.budget import Deadline
from fixbot.core.calls import CallEnd, ModelCall
from fixbot.security.redact import Redactor
from tests.fakes.agent_repo import fix_context, make_repo, model_agent, model_env, model_settings
from tests.fakes.model_server import (
    FakeModelServer,
    InProcessModel,
    _message,
    inprocess_model,
    model_server,
    repeat,
    stream_events,
    text,
    tool_calls,
    trickle,
)

__all__ = ["inprocess_model", "model_env", "model_server"]  # fixtures used by name below

CODE = """def total(items):
    result = 0
    for item in items:
        result += item
    return result


def test_total():
    assert total([1, 2, 3]) == 6
    assert total([]) == 0
    assert total([5]) == 5
"""


def plain_llm(api_base: str) -> LLM:
    return LLM(["openai/fake"], Redactor.from_env({}), api_base, deadline=Deadline.start(None))


class Chunk:
    """A chunk as litellm yields it, built from the fake server's JSON events."""

    def __init__(self, event: dict[str, Any]) -> None:
        from fixbot.agent.llm import litellm_module

        self.inner = litellm_module().ModelResponseStream(**event)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_a_span_repeated_past_the_bound_is_found_and_real_text_is_not() -> None:
    line = "I will now fix the bug in calc.py.\n"  # 35 characters
    assert repeating(line * 8) == (line, 8)
    assert "repeated 'I will now fix the bug in calc.py.\\n' 8+ times" in str(degenerate(line * 8))
    # the bound: 256 characters of one character repeated, not one fewer
    assert repeating("x" + "=" * 255) is None
    assert repeating("x" + "=" * 256) == ("=", 256)
    assert repeating("=" * 1000) == ("=", 1000)
    # a unit must repeat REPEAT_TIMES times: three copies of a 100-character unit are not enough
    unit = "".join(chr(65 + i % 26) for i in range(100))
    assert repeating("start " + unit * 3) is None
    assert repeating("start " + unit * 4) == (unit, 4)
    # code with similar lines, a SEARCH/REPLACE answer, a rule of 80 '=' are answers
    block = f"calc.py\n<<<<<<< SEARCH\n{CODE}=======\n{CODE}>>>>>>> REPLACE\n" + "=" * 80
    for answer in (CODE * 1, block, CODE + "    pass\n" * 20):
        assert degenerate(answer) is None, answer


def test_arguments_are_judged_as_a_prefix_of_json() -> None:
    assert not not_json('{"path": "calc.py", "old": "' + "x" * 100)  # still being written
    assert not not_json("I think the fix")  # too short to judge
    assert not_json("I think the fix is to change the loop so that it starts at zero instead.")
    assert not_json('{"path" "calc.py", "old": "x", "new": "y", "and more": "text text text"}')


def test_a_stream_is_assembled_into_the_reply_a_plain_call_gives() -> None:
    item = tool_calls(
        ("read_file", {"path": "calc.py"}),
        ("replace_in_file", {"path": "calc.py", "old": "a", "new": CODE}),
        content="Reading first.",
    )
    request = {"model": "fake", "stream_options": {"include_usage": True}}
    built = Assembly()
    for event in stream_events(item, request):
        built.feed(Chunk(event))
        assert built.stop_reason(tools=True) is None
    message, reason = _message(item)
    assert built.content == "Reading first." and built.finished
    assert built.finish_reason == reason == "tool_calls"
    assert [(c.name, json.loads(c.arguments)) for c in built.calls.values()] == [
        (c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in message["tool_calls"]
    ]
    assert built.usage is not None and built.usage[1] > 0


def test_a_degenerate_stream_is_stopped_long_before_its_end(
    model_server: FakeModelServer, model_env: dict[str, str]
) -> None:
    unit = "The answer is in the file. "  # 27 characters, streamed 4 at a time
    model_server.enqueue(repeat(unit, 2000))
    model = plain_llm(model_server.url)
    reply = model.complete([{"role": "user", "content": "fix it"}])
    call = reply.call
    assert call is not None and call.end is CallEnd.DEGENERATE
    assert "in the file." in call.why  # the unit, as the tail cuts it
    # 2,000 repeats are 54,000 characters (13,500 pieces): stopped within the first thousand
    assert len(reply.content) < 1000 and call.tokens_out < 300
    assert model.calls == [call]


def test_prose_where_tools_were_asked_for_is_stopped(
    model_server: FakeModelServer, model_env: dict[str, str]
) -> None:
    prose = " ".join(f"Step {n}: consider line {n * 7} of the module." for n in range(200))
    model_server.enqueue(text(prose))
    model = plain_llm(model_server.url)
    schema = {"type": "function", "function": {"name": "finish", "parameters": {}}}
    reply = model.complete([{"role": "user", "content": "fix it"}], [schema])
    assert reply.call is not None and reply.call.end is CallEnd.DEGENERATE
    assert "no tool call" in reply.call.why
    assert stream.TOOLLESS_CHARS <= len(reply.content) < len(prose)


def test_a_timed_out_stream_reports_its_speed(
    model_server: FakeModelServer, model_env: dict[str, str]
) -> None:
    # an SSE reply of ~50 pieces, 64 bytes every 0.05 s: far longer than the 2 s allowed
    model_server.enqueue(trickle(text("word " * 400), interval=0.05, chunk=64))
    model = LLM(
        ["openai/fake"],
        Redactor.from_env({}),
        model_server.url,
        deadline=Deadline.start(None),
        request_timeout=2.0,
        tries_per_model=1,
    )
    with pytest.raises(Exception, match="tokens/s"):
        model.complete([{"role": "user", "content": "fix it"}])
    [call] = model.calls
    assert call.end is CallEnd.TIMED_OUT and call.tokens_out > 0
    assert call.tokens_per_s is not None and f"{call.tokens_per_s:.1f} tokens/s" in call.why


def slow_llm(api_base: str, size: Any = None) -> LLM:
    """An adapter with a 2 s request timeout and 4 tries per model; `size` as the run's."""
    extra = {"size": size} if size else {}
    return LLM(
        ["openai/fake"],
        Redactor.from_env({}),
        api_base,
        deadline=Deadline.start(None),
        request_timeout=2.0,
        tries_per_model=4,
        sleep=lambda seconds: None,
        **extra,
    )


def test_a_slow_model_is_not_asked_the_same_request_again_after_a_timeout(
    model_server: FakeModelServer, model_env: dict[str, str]
) -> None:
    # writing, too slowly for its cap, when the timeout fired: the same request (same cap)
    # would time out the same way, so it is not sent again (tenacity would send it 4 times)
    model_server.enqueue(*[trickle(text("word " * 400), interval=0.05, chunk=64)] * 4)
    model = slow_llm(model_server.url)
    with pytest.raises(Exception, match="not retried"):
        model.complete([{"role": "user", "content": "fix it"}])
    assert len(model_server.requests) == 1
    [call] = model.calls
    assert call.end is CallEnd.TIMED_OUT and "the same request would time out again" in call.why


def test_a_slow_model_is_asked_again_with_a_cap_its_speed_fits(
    model_server: FakeModelServer, model_env: dict[str, str]
) -> None:
    # the run's sizing (`Runtime.sized`) lowers the cap once a call measured the model slow:
    # the retry is a different request, and its reply fits
    model_server.enqueue(trickle(text("word " * 400), interval=0.05, chunk=64), text("done"))
    model = slow_llm(model_server.url, size=lambda name, cap: cap if not model.calls else 40)
    reply = model.complete([{"role": "user", "content": "fix it"}])
    assert reply.content == "done"
    caps = [body["max_tokens"] for body in model_server.bodies()]
    assert len(caps) == 2 and caps[1] == 40 < caps[0]
    assert [c.end for c in model.calls] == [CallEnd.TIMED_OUT, CallEnd.FINISHED]


def test_a_stopped_reply_ends_the_attempt_and_the_next_is_told(
    tmp_path: Path, inprocess_model: InProcessModel, model_env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "r")
    inprocess_model.enqueue(text("Let me look at calc.py again. " * 300))
    settings = model_settings(inprocess_model.url, edit_protocol="text")
    result = model_agent(settings, model_env).fix(fix_context(repo))
    assert len(inprocess_model.requests) == 1  # no second round after the stop
    assert result.error is None and result.files_changed == []
    assert result.summary.startswith("reply stopped by fixbot: the reply repeated")
    assert any("attempt ended" in note for note in result.notes)
    [call] = result.calls
    assert isinstance(call, ModelCall) and call.end is CallEnd.DEGENERATE
    assert call.tokens_in > 0 and 0 < call.tokens_out < 400
