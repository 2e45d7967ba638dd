"""Model-server faults through litellm's real HTTP path: each call retries, falls back
or fails with the true reason, within a bounded time, and says so as it happens."""

from __future__ import annotations

import time
from typing import Any

import pytest

from fixbot.agent.llm import DEFAULT_OUTPUT_TOKENS, LLM, ModelConfigError, ModelError, output_cap
from fixbot.core.budget import Deadline
from fixbot.security.redact import Redactor
from tests.fakes.agent_repo import model_env
from tests.fakes.model_server import (
    FakeModelServer,
    cut,
    error,
    hang,
    model_server,
    refused_url,
    text,
    trickle,
    truncated_json,
)

__all__ = ["model_env", "model_server"]  # pytest fixtures used by name below

OK = text("all good")


@pytest.fixture(scope="module", autouse=True)
def warm_litellm() -> None:
    """Make litellm's first call (it loads its provider modules then: ~3-10 s on 2 busy cores)
    before the timed tests, whose deadlines are a second or two."""
    with pytest.MonkeyPatch.context() as mp, FakeModelServer() as server:
        mp.setenv("OPENAI_API_KEY", "sk-fake-key-for-tests")
        mp.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        server.enqueue(OK)
        ask(llm(server.url, Recorder(), request_timeout=120))


class Recorder:
    """The sleeps and progress lines an `LLM` produced."""

    def __init__(self) -> None:
        self.sleeps: list[float] = []
        self.lines: list[str] = []


def llm(api_base: str, rec: Recorder, models: list[str] | None = None, **kw: Any) -> LLM:
    kw.setdefault("deadline", Deadline.start(None))  # a run without a wall-time budget
    return LLM(
        models or ["openai/fake"],
        Redactor.from_env({}),
        api_base,
        sleep=rec.sleeps.append,
        notify=rec.lines.append,
        **kw,
    )


def ask(model: LLM) -> str:
    return model.complete([{"role": "user", "content": "hello"}]).content


@pytest.mark.slow
def test_a_reply_trickling_past_the_deadline_is_abandoned_and_retried(
    model_server: FakeModelServer, model_env: dict[str, str]
) -> None:
    # One byte every 0.2 s: every socket read succeeds, so only a total deadline can end it.
    model_server.enqueue(trickle(OK, interval=0.2), OK)
    rec = Recorder()
    started = time.monotonic()
    assert ask(llm(model_server.url, rec, request_timeout=1.0)) == "all good"
    # the trickled reply alone takes over a minute: well under it, it was abandoned at the timeout
    assert time.monotonic() - started < 30
    assert len(model_server.requests) == 2
    assert len(rec.lines) == 1 and "retrying in" in rec.lines[0]
    assert rec.lines[0].endswith("(timed out)")


@pytest.mark.slow
def test_a_model_that_always_trickles_fails_on_time_naming_the_timeout(
    model_server: FakeModelServer, model_env: dict[str, str]
) -> None:
    model_server.enqueue(trickle(OK, interval=0.2), trickle(OK, interval=0.2))
    rec = Recorder()
    started = time.monotonic()
    with pytest.raises(ModelError, match="timed out") as caught:
        ask(llm(model_server.url, rec, request_timeout=1.0, tries_per_model=2))
    # Each trickled reply takes over a minute (a byte every 0.2 s): well under that shows the
    # calls were cut off at the timeout, with room for a busy machine.
    assert time.monotonic() - started < 30
    said = str(caught.value)
    # A slow server wants more time or a shorter reply; another model would not help it.
    assert "raise --request-timeout, or lower --max-output-tokens" in said
    assert "--fallback-models" not in said


@pytest.mark.slow
def test_a_silent_server_is_cut_off_by_the_read_timeout(
    model_server: FakeModelServer, model_env: dict[str, str]
) -> None:
    model_server.enqueue(hang(120), OK)
    rec = Recorder()
    started = time.monotonic()
    assert ask(llm(model_server.url, rec, request_timeout=1.0)) == "all good"
    assert time.monotonic() - started < 60  # the silent server would have held it for 120 s
    assert rec.lines[0].endswith("(timed out)")


def test_connection_refused_is_retried_then_reported(model_env: dict[str, str]) -> None:
    rec = Recorder()
    with pytest.raises(ModelConfigError, match=r"could not reach .*\(connection refused\)"):
        ask(llm(refused_url(), rec, tries_per_model=3))
    assert len(rec.sleeps) == 2
    assert all("(connection refused)" in line for line in rec.lines)


def test_server_errors_are_retried_and_shown(
    model_server: FakeModelServer, model_env: dict[str, str]
) -> None:
    model_server.enqueue(error(500, "oops"), error(503, "overloaded"), OK)
    rec = Recorder()
    assert ask(llm(model_server.url, rec)) == "all good"
    assert rec.lines[0] == f"openai/fake: retrying in {rec.sleeps[0]:.0f} s (500 server error)"
    assert rec.lines[1].endswith("(503 service unavailable)")


@pytest.mark.parametrize(
    ("headers", "expected"),
    [({"Retry-After": "4"}, [4.0, 4.0, 4.0]), ({}, None)],
    ids=["retry-after", "no-retry-after"],
)
def test_a_burst_of_429s_waits_as_told_or_backs_off(
    model_server: FakeModelServer,
    model_env: dict[str, str],
    headers: dict[str, str],
    expected: list[float] | None,
) -> None:
    model_server.enqueue(*[error(429, "Rate limit reached", headers)] * 3, OK)
    rec = Recorder()
    assert ask(llm(model_server.url, rec)) == "all good"
    if expected is not None:
        assert rec.sleeps == expected
        assert rec.lines[0] == "openai/fake: retrying in 4 s (429 rate limited)"
    else:
        assert [round(s) for s in rec.sleeps] in ([1, 2, 4], [1, 2, 5], [1, 3, 4], [1, 3, 5])
        assert all(line.endswith("(429 rate limited)") for line in rec.lines)


def test_a_429_burst_longer_than_the_tries_falls_back(
    model_server: FakeModelServer, model_env: dict[str, str]
) -> None:
    model_server.enqueue(*[error(429, "Rate limit reached")] * 2, OK)
    rec = Recorder()
    model = llm(model_server.url, rec, ["openai/fake", "openai/backup"], tries_per_model=2)
    assert ask(model) == "all good"
    assert [b["model"] for b in model_server.bodies()] == ["fake", "fake", "backup"]
    assert rec.lines[-1] == (
        "openai/fake unavailable (429 rate limited): falling back to openai/backup"
    )
    assert model.current == "openai/backup"


@pytest.mark.parametrize("fault", [truncated_json(), cut(OK)], ids=["truncated-json", "cut"])
def test_a_broken_reply_is_retried(
    model_server: FakeModelServer, model_env: dict[str, str], fault: dict[str, Any]
) -> None:
    model_server.enqueue(fault, OK)
    rec = Recorder()
    assert ask(llm(model_server.url, rec, request_timeout=600.0)) == "all good"
    assert len(model_server.requests) == 2 and len(rec.lines) == 1
    assert not rec.lines[0].endswith("(timed out)")  # retried for the reply, not at a timeout


def test_every_request_carries_an_output_cap(
    model_server: FakeModelServer, model_env: dict[str, str]
) -> None:
    model_server.enqueue(OK, OK)
    rec = Recorder()
    ask(llm(model_server.url, rec))
    ask(llm(model_server.url, rec, max_output_tokens=256))
    assert [b["max_tokens"] for b in model_server.bodies()] == [DEFAULT_OUTPUT_TOKENS, 256]


def test_the_output_cap_follows_litellm_model_data(model_env: dict[str, str]) -> None:
    import litellm

    known = litellm.get_model_info("openai/gpt-4o")["max_output_tokens"]
    assert output_cap("openai/gpt-4o", None) == known
    assert output_cap("openai/not-a-real-model", None) == DEFAULT_OUTPUT_TOKENS
    assert output_cap("openai/gpt-4o", 100) == 100


@pytest.mark.slow
def test_the_run_wall_time_budget_shortens_a_request(
    model_server: FakeModelServer, model_env: dict[str, str]
) -> None:
    model_server.enqueue(trickle(OK, interval=0.2))
    rec = Recorder()
    started = time.monotonic()
    model = llm(
        model_server.url,
        rec,
        request_timeout=60,
        deadline=Deadline(1.0, started),
        tries_per_model=1,
    )
    with pytest.raises(ModelError, match="--max-duration"):
        ask(model)
    assert time.monotonic() - started < 30  # the trickled reply alone takes over a minute


def test_a_slow_model_call_sends_heartbeats_and_a_quick_one_none() -> None:
    """While a model call is in flight, `within` says so every `every` seconds (the CLI prints
    it when its output is piped), then returns the reply; a quick call sends none."""
    import time

    from fixbot.agent.waiting import within

    beats: list[float] = []

    def slow() -> str:
        time.sleep(0.5)
        return "reply"

    assert within(30, slow, lambda: TimeoutError(), beats.append, every=0.1) == "reply"
    assert len(beats) >= 2 and beats == sorted(beats) and beats[0] >= 0.1
    quick: list[float] = []
    assert within(30, lambda: "r", lambda: TimeoutError(), quick.append, every=5) == "r"
    assert quick == []
    with pytest.raises(TimeoutError):
        within(0.3, lambda: time.sleep(5), lambda: TimeoutError(), quick.append, every=0.1)
