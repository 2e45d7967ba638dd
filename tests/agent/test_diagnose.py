"""The diagnostic reflection through litellm's real HTTP path (fake OpenAI-compatible server)."""

from __future__ import annotations

import json
from pathlib import Path

from fixbot.agent.diagnose import diagnose
from fixbot.agent.runtime import Runtime
from fixbot.security.redact import Redactor
from tests.fakes.agent_repo import (
    fix_context,
    make_repo,
    model_env,
    model_settings,
    run_launcher,
)
from tests.fakes.model_server import InProcessModel, inprocess_model, text, tool_call

__all__ = ["inprocess_model", "model_env"]  # pytest fixtures used by name below

ANSWER = {
    "why": ["test_total expects 5 and gets 3", "total() skips the first item"],
    "root_cause": {"category": "code_bug", "description": "items[1:] drops one", "confidence": 0.9},
    "evidence": ["E       assert 3 == 5"],
    "next_step": "sum over every item in total()",
}


def runtime(url: str, env: dict[str, str], **changes: object) -> Runtime:
    settings = model_settings(url, **changes)
    launcher = run_launcher(settings, Path.cwd(), env)
    return Runtime(
        settings,
        Redactor.from_env(env),
        lambda s: None,
        launcher=launcher,
        deadline=launcher.deadline,
    )


def test_a_structured_diagnosis_from_the_tool_call(
    tmp_path: Path, inprocess_model: InProcessModel, model_env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "r")
    inprocess_model.enqueue(tool_call("submit_diagnosis", **ANSWER))
    result = diagnose(runtime(inprocess_model.url, model_env), fix_context(repo), "changed calc.py")
    assert result.diagnosis is not None and result.problem is None
    assert result.diagnosis.root_cause.confidence == 0.9
    assert result.tokens > 0
    body = inprocess_model.bodies()[0]
    assert [t["function"]["name"] for t in body["tools"]] == ["submit_diagnosis"]
    assert "assert 3 == 5" in body["messages"][0]["content"]  # the evidence was sent


def test_text_protocol_and_a_malformed_answer(
    tmp_path: Path, inprocess_model: InProcessModel, model_env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "r")
    inprocess_model.enqueue(text("Sure! " + json.dumps(ANSWER)), text("I think it is the loop."))
    rt = runtime(inprocess_model.url, model_env, edit_protocol="text")
    good = diagnose(rt, fix_context(repo), "x")
    assert good.diagnosis is not None and good.diagnosis.why[1] == ANSWER["why"][1]
    assert "tools" not in inprocess_model.bodies()[0]
    bad = diagnose(rt, fix_context(repo), "x")
    assert bad.diagnosis is None and bad.problem and "malformed" in bad.problem


def test_no_call_when_the_budget_is_spent(
    tmp_path: Path, inprocess_model: InProcessModel, model_env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "r")
    rt = runtime(inprocess_model.url, model_env, max_tokens_per_run=100)
    result = diagnose(rt, fix_context(repo, tokens_used=100), "x")
    assert result.diagnosis is None and result.problem and "budget" in result.problem
    assert inprocess_model.bodies() == []
