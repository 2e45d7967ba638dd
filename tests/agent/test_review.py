"""Self-review, review-driven fixes and the escalation analysis against the fake server."""

from __future__ import annotations

from pathlib import Path

from fixbot.core.models import Attempt, Finding, Phase, Severity
from tests.fakes.agent_repo import (
    BUGGY_LINE,
    FIXED_LINE,
    fix_context,
    make_repo,
    model_agent,
    model_env,
    model_settings,
)
from tests.fakes.model_server import InProcessModel, inprocess_model, text, tool_call

__all__ = ["inprocess_model", "model_env"]


def _agent(server: InProcessModel, env: dict[str, str], **changes: object):  # type: ignore[no-untyped-def]
    return model_agent(model_settings(server.url, **changes), env, sleep=lambda s: None)


def _fixed_repo(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "r")
    calc = repo / "calc.py"
    calc.write_text(calc.read_text().replace(BUGGY_LINE, FIXED_LINE) + "\nprint('debug')\n")
    return repo


def test_review_blocker_becomes_a_fix_aimed_at_it(
    tmp_path: Path, inprocess_model: InProcessModel, model_env: dict[str, str]
) -> None:
    repo = _fixed_repo(tmp_path)
    bot = _agent(inprocess_model, model_env)
    blocker = {
        "path": "calc.py",
        "line": 9,
        "severity": "blocker",
        "message": "debug print left in",
    }
    minor = {"path": "calc.py", "severity": "minor", "message": "docstring could say USD"}
    inprocess_model.enqueue(tool_call("submit_review", findings=[blocker, minor]))
    review = bot.review(fix_context(repo))
    assert [f.severity for f in review.blocking] == [Severity.BLOCKER]
    assert len(review.findings) == 2 and review.tokens > 0
    body = inprocess_model.bodies()[0]
    assert [t["function"]["name"] for t in body["tools"]] == ["submit_review"]
    prompt = body["messages"][0]["content"]
    assert "+print('debug')" in prompt and "test tampering" in prompt and "unrelated" in prompt

    inprocess_model.enqueue(
        tool_call("replace_in_file", path="calc.py", old="\nprint('debug')\n", new=""),
        tool_call("finish", summary="removed debug print"),
    )
    ctx = fix_context(repo, phase=Phase.REVIEW, findings=review.blocking)
    result = bot.fix(ctx)
    assert "print('debug')" not in (repo / "calc.py").read_text()
    assert result.files_changed == ["calc.py"]
    fix_prompt = inprocess_model.bodies()[1]["messages"][1]["content"]
    assert "[blocker] calc.py:9:" in fix_prompt and "debug print left in" in fix_prompt


def test_clean_review(
    tmp_path: Path, inprocess_model: InProcessModel, model_env: dict[str, str]
) -> None:
    repo = _fixed_repo(tmp_path)
    inprocess_model.enqueue(tool_call("submit_review", findings=[]))
    review = _agent(inprocess_model, model_env).review(fix_context(repo))
    assert review.findings == [] and review.error is None and review.tokens > 0


def test_review_without_a_diff_needs_no_model(
    tmp_path: Path, inprocess_model: InProcessModel, model_env: dict[str, str]
) -> None:
    review = _agent(inprocess_model, model_env).review(fix_context(make_repo(tmp_path / "r")))
    assert review.findings == [] and inprocess_model.requests == []


def test_review_as_text_json_list(
    tmp_path: Path, inprocess_model: InProcessModel, model_env: dict[str, str]
) -> None:
    repo = _fixed_repo(tmp_path)
    inprocess_model.enqueue(
        text('Here: [{"path": "calc.py", "line": 9, "severity": "major", "message": "unrelated"}]')
    )
    review = _agent(inprocess_model, model_env, edit_protocol="text").review(fix_context(repo))
    assert review.findings == [
        Finding(path="calc.py", line=9, severity=Severity.MAJOR, message="unrelated")
    ]


def test_review_not_submitted_is_asked_again_then_an_error(
    tmp_path: Path, inprocess_model: InProcessModel, model_env: dict[str, str]
) -> None:
    repo = _fixed_repo(tmp_path)
    inprocess_model.enqueue(text("Looks good to me!"), text("Really, it is fine."))
    review = _agent(inprocess_model, model_env).review(fix_context(repo))
    assert review.error is not None and "submit_review" in review.error
    assert len(inprocess_model.requests) == 2  # one reminder, never a silent "clean"
    assert review.findings == []


def test_escalation_analysis(
    tmp_path: Path, inprocess_model: InProcessModel, model_env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "r")
    history = [
        Attempt(
            number=1, summary="guarded division", diagnosis="zero length", passed=False, exit_code=1
        )
    ]
    analysis = "## Most likely root cause\nThe slice `items[1:]` drops the first item.\n"
    inprocess_model.enqueue(text(analysis))
    result = _agent(inprocess_model, model_env).analyze(
        fix_context(repo, attempt=2, history=history)
    )
    assert result.summary == analysis and result.error is None
    prompt = inprocess_model.bodies()[0]["messages"][0]["content"]
    assert "## Next steps" in prompt and "guarded division" in prompt and "assert 3 == 5" in prompt


def test_escalation_analysis_skipped_without_budget(
    tmp_path: Path, inprocess_model: InProcessModel, model_env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "r")
    bot = _agent(inprocess_model, model_env, max_cost_usd=0.5)
    result = bot.analyze(fix_context(repo, cost_used_usd=0.5))
    assert (
        inprocess_model.requests == []
        and result.error is not None
        and "cost budget" in result.error
    )


def test_the_text_protocols_review_retry_asks_for_a_json_list_not_a_tool(
    tmp_path: Path, inprocess_model: InProcessModel, model_env: dict[str, str]
) -> None:
    """The text protocol offers no tool: its reminder must not say "call submit_review"."""
    repo = _fixed_repo(tmp_path)
    inprocess_model.enqueue(text("Looks good to me!"), text("Really, it is fine."))
    review = _agent(inprocess_model, model_env, edit_protocol="text").review(fix_context(repo))
    retry = inprocess_model.bodies()[1]
    assert "tools" not in retry or not retry["tools"]
    reminder = retry["messages"][-1]["content"]
    assert "submit_review" not in reminder and "JSON list" in reminder
    assert review.error is not None and "submit_review" not in review.error
