"""The model fixer against the fake OpenAI-compatible server (litellm's real HTTP path)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from fixbot.agent import Agent, build_agent
from fixbot.agent.llm import ModelConfigError
from fixbot.core.models import Attempt
from tests.fakes.agent_repo import (
    BUGGY_LINE,
    FIXED_LINE,
    fix_context,
    make_repo,
    model_agent,
    model_env,
    model_settings,
    run_launcher,
)
from tests.fakes.model_server import (
    FakeModelServer,
    InProcessModel,
    error,
    model_server,
    text,
    tool_call,
    tool_calls,
)

__all__ = ["model_env", "model_server"]  # pytest fixtures used by name below


def agent(
    server: FakeModelServer, env: dict[str, str], sleeps: list[float] | None = None, **changes: Any
) -> Agent:
    return model_agent(
        model_settings(server.url, **changes),
        env,
        sleep=(sleeps if sleeps is not None else []).append,
    )


def user_prompt(body: dict[str, Any]) -> str:
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


def tool_results(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


FIX = tool_call("replace_in_file", path="calc.py", old=BUGGY_LINE, new=FIXED_LINE)


def test_fixed_in_one_attempt(
    tmp_path: Path, model_server: FakeModelServer, model_env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "r")
    model_server.enqueue(
        tool_call("read_file", path="calc.py"),
        FIX,
        tool_call("finish", summary="sum every item", diagnosis="items[1:] skipped the first item"),
    )
    result = agent(model_server, model_env).fix(fix_context(repo))
    assert result.files_changed == ["calc.py"]
    assert (repo / "calc.py").read_text().count(FIXED_LINE) == 1
    assert result.diagnosis == "items[1:] skipped the first item"
    # The summary is the model's words only: fixbot's note on the unknown price is kept apart,
    # for the user's report, and never reaches a later prompt as what the attempt did.
    assert result.summary == "sum every item"
    assert any("no price known for openai/fake" in note for note in result.notes)
    assert result.tokens > 0 and result.error is None
    assert result.cost_usd is None and not result.cost_known  # no price for openai/fake
    first = model_server.bodies()[0]
    assert [t["function"]["name"] for t in first["tools"]] == [
        "read_file",
        "list_files",
        "search_code",
        "replace_in_file",
        "write_file",
        "finish",
    ]
    prompt = user_prompt(first)
    assert "E       assert 3 == 5" in prompt  # the condensed log
    assert BUGGY_LINE.strip() in prompt  # the snippet around calc.py:3
    assert '<untrusted-data source="check output">' in prompt
    assert "direct fix" in prompt
    assert "    3|" in tool_results(model_server.bodies()[1])[0]  # read_file numbered lines


def test_wrong_fix_then_right_fix_uses_history_and_escalation_model(
    tmp_path: Path, model_server: FakeModelServer, model_env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "r")
    bot = agent(model_server, model_env, escalation_model="openai/big")
    model_server.enqueue(
        tool_call(
            "replace_in_file", path="calc.py", old="/ len(items)", new="/ max(len(items), 1)"
        ),
        tool_call("finish", summary="guard division", diagnosis="division by zero"),
    )
    first = bot.fix(fix_context(repo))
    assert first.files_changed == ["calc.py"]
    history = [
        Attempt(
            number=1,
            done=True,
            summary=first.summary,
            diagnosis=first.diagnosis,
            files_changed=first.files_changed,
            exit_code=1,
            passed=False,
        )
    ]
    model_server.enqueue(FIX, tool_call("finish", summary="sum every item"))
    second = bot.fix(fix_context(repo, attempt=2, history=history))
    assert FIXED_LINE in (repo / "calc.py").read_text()
    assert second.fixer == "model:openai/big"
    body = model_server.bodies()[2]
    assert body["model"] == "big"  # the escalation model from attempt 2 on
    prompt = user_prompt(body)
    assert "Look wider" in prompt
    assert "Attempt 1 (fix): guard division" in prompt and "division by zero" in prompt
    assert "max(len(items), 1)" in prompt  # the diff since the start sha


def test_third_attempt_lists_earlier_approaches_not_to_repeat(
    tmp_path: Path, inprocess_model: InProcessModel, model_env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "r")
    history = [
        Attempt(number=n, summary=f"approach {n}", passed=False, exit_code=1) for n in (1, 2)
    ]
    inprocess_model.enqueue(FIX, tool_call("finish", summary="third way"))
    agent(inprocess_model, model_env).fix(fix_context(repo, attempt=3, history=history))
    prompt = user_prompt(inprocess_model.bodies()[0])
    assert "Do not repeat any of these" in prompt
    assert "- attempt 1: approach 1" in prompt and "- attempt 2: approach 2" in prompt


def test_model_finishing_without_change_gets_one_nudge(
    tmp_path: Path, inprocess_model: InProcessModel, model_env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "r")
    inprocess_model.enqueue(
        tool_call("finish", summary="looks fine"), tool_call("finish", summary="still fine")
    )
    result = agent(inprocess_model, model_env).fix(fix_context(repo))
    assert not result.changed and result.error is None
    assert len(inprocess_model.requests) == 2  # one nudge, no more
    last = inprocess_model.bodies()[1]["messages"][-1]
    assert last["role"] == "user" and "without changing any file" in last["content"]


def test_nudge_leads_to_a_fix(
    tmp_path: Path, inprocess_model: InProcessModel, model_env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "r")
    inprocess_model.enqueue(text("I think it is fine."), FIX, tool_call("finish", summary="fixed"))
    result = agent(inprocess_model, model_env).fix(fix_context(repo))
    assert result.files_changed == ["calc.py"]


def test_edits_outside_or_into_protected_places_are_refused(
    tmp_path: Path, model_server: FakeModelServer, model_env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n", ".github/workflows/ci.yml": "on: push\n"})
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, repo / "link")
    attempts = [
        ("../x", "'..'"),
        ("/etc/x", "absolute"),
        ("link/x", "outside the repository"),
        (".git/config", ".git/"),
        (".github/workflows/ci.yml", "protected"),
    ]
    model_server.enqueue(
        tool_calls(*[("write_file", {"path": p, "content": "pwned\n"}) for p, _ in attempts]),
        tool_call("finish", summary="tried"),
        tool_call("finish", summary="tried again"),
    )
    result = agent(model_server, model_env).fix(fix_context(repo))
    assert not (tmp_path / "x").exists() and not (outside / "x").exists()
    assert "pwned" not in (repo / ".git" / "config").read_text()
    assert (repo / ".github/workflows/ci.yml").read_text() == "on: push\n"
    assert len(result.refused) == 5
    results = tool_results(model_server.bodies()[1])
    for (_, why), answer in zip(attempts, results, strict=True):
        assert why in answer and "Nothing was written" in answer


def test_deleting_or_skipping_tests_is_refused(
    tmp_path: Path, model_server: FakeModelServer, model_env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "r")
    original = (repo / "tests/test_calc.py").read_text()
    skipped = original.replace("def test_total", "import pytest\n@pytest.mark.skip\ndef test_total")
    model_server.enqueue(
        tool_call("write_file", path="tests/test_calc.py", content=skipped),
        tool_call("write_file", path="tests/test_calc.py", content="# nothing\n"),
        tool_call("finish", summary="done"),
        tool_call("finish", summary="done"),
    )
    result = agent(model_server, model_env).fix(fix_context(repo))
    assert (repo / "tests/test_calc.py").read_text() == original
    assert "skip/xfail" in result.refused[0] and "test_mean" in result.refused[1]
    assert "fix the code under test" in tool_results(model_server.bodies()[1])[0]


def test_test_edits_allowed_when_configured(
    tmp_path: Path, model_server: FakeModelServer, model_env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "r")
    model_server.enqueue(
        tool_call("write_file", path="tests/test_calc.py", content="# gone\n"),
        tool_call("finish", summary="ok"),
    )
    result = agent(model_server, model_env, allow_test_edits=True).fix(fix_context(repo))
    assert result.files_changed == ["tests/test_calc.py"] and not result.refused


def test_rate_limit_honours_retry_after(
    tmp_path: Path, model_server: FakeModelServer, model_env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "r")
    sleeps: list[float] = []
    model_server.enqueue(
        error(429, "Rate limit reached", {"Retry-After": "7"}),
        FIX,
        tool_call("finish", summary="ok"),
    )
    result = agent(model_server, model_env, sleeps).fix(fix_context(repo))
    assert sleeps == [7.0]
    assert result.files_changed == ["calc.py"]


def test_server_errors_back_off_exponentially(
    tmp_path: Path, model_server: FakeModelServer, model_env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "r")
    sleeps: list[float] = []
    model_server.enqueue(
        error(503, "overloaded"), error(500, "oops"), FIX, tool_call("finish", summary="ok")
    )
    result = agent(model_server, model_env, sleeps).fix(fix_context(repo))
    assert len(sleeps) == 2 and 1 <= sleeps[0] < 1.5 and 2 <= sleeps[1] < 2.5
    assert result.changed


def test_authentication_error_ends_the_run_naming_the_variable(
    tmp_path: Path, model_server: FakeModelServer, model_env: dict[str, str]
) -> None:
    """A rejected key is a configuration error (exit 2), not an escalation: no retry, no
    fallback, and no later review or analysis call swallows it."""
    repo = make_repo(tmp_path / "r")
    model_server.enqueue(error(401, "Incorrect API key provided"))
    with pytest.raises(ModelConfigError) as caught:
        agent(model_server, model_env, fallback_models=["openai/other"]).fix(fix_context(repo))
    assert "set OPENAI_API_KEY" in caught.value.problems[0]
    assert len(model_server.requests) == 1  # no retry, no fallback


def test_an_unreachable_provider_names_its_host(tmp_path: Path, model_env: dict[str, str]) -> None:
    """A real connection refused on 127.0.0.1 (nothing listens): the run ends as a configuration
    error naming the host and the likely cause, after the retries."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again: connections are refused
    repo = make_repo(tmp_path / "r")
    sleeps: list[float] = []
    built = model_agent(
        model_settings(f"http://127.0.0.1:{port}/v1"), model_env, sleep=sleeps.append
    )
    with pytest.raises(ModelConfigError) as caught:
        built.fix(fix_context(repo))
    problem = caught.value.problems[0]
    assert f"could not reach the model provider's host (127.0.0.1:{port})" in problem
    assert "proxy" in problem and "--fallback-models" in problem
    assert len(sleeps) == 3  # retried with backoff before giving up


def test_context_window_error_rebuilds_a_smaller_prompt(
    tmp_path: Path, model_server: FakeModelServer, model_env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "r")
    long_log = "E   assert 3 == 5\n" + "\n".join(
        f"E   failure detail {i} " + "x" * 60 for i in range(2000)
    )
    ctx = fix_context(
        repo, failure=fix_context(repo).failure.model_copy(update={"condensed": long_log})
    )  # type: ignore[union-attr]
    overflow = (
        "This model's maximum context length is 4096 tokens. "
        "However, your messages resulted in 9000 tokens."
    )
    model_server.enqueue(
        error(400, overflow, code="context_length_exceeded"), FIX, tool_call("finish", summary="ok")
    )
    result = agent(model_server, model_env).fix(ctx)
    first, second = (len(user_prompt(b)) for b in model_server.bodies()[:2])
    # the log is halved; the code the failing test calls (a few hundred characters) stays whole
    assert second < first * 0.65
    assert "E   assert 3 == 5" in user_prompt(model_server.bodies()[1])  # error lines first
    assert result.changed and "rebuilt within 3000 tokens" in " ".join(result.notes)


def test_fallback_model_takes_over(
    tmp_path: Path, model_server: FakeModelServer, model_env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "r")
    model_server.enqueue(
        error(404, "The model `fake` does not exist", code="model_not_found"),
        FIX,
        tool_call("finish", summary="ok"),
    )
    result = agent(model_server, model_env, fallback_models=["openai/backup"]).fix(
        fix_context(repo)
    )
    assert [b["model"] for b in model_server.bodies()] == ["fake", "backup", "backup"]
    assert result.changed
    assert "openai/fake unavailable (NotFoundError: 404 model not found)" in result.notes[0]
    assert "unavailable" not in result.summary  # the model's words only


def test_text_protocol_for_models_without_function_calling(
    tmp_path: Path, inprocess_model: InProcessModel, model_env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "r")
    reply = (
        f"calc.py\n<<<<<<< SEARCH\n{BUGGY_LINE}=======\n{FIXED_LINE}>>>>>>> REPLACE\n"
        "\nDIAGNOSIS: slice skipped one\nSUMMARY: sum all"
    )
    inprocess_model.enqueue(text(reply))
    result = agent(inprocess_model, model_env, edit_protocol="auto").fix(fix_context(repo))
    body = inprocess_model.bodies()[0]
    assert "tools" not in body  # openai/fake has no function calling in litellm's data
    assert "<<<<<<< SEARCH" in body["messages"][0]["content"]
    assert FIXED_LINE in (repo / "calc.py").read_text()
    assert result.diagnosis == "slice skipped one" and result.summary == "sum all"


@pytest.mark.parametrize(
    "said",
    ["**Summary:** sum all", "- summary: sum all", "## SUMMARY: sum all", "Summary: *sum all*"],
)
def test_the_text_protocol_reads_a_summary_dressed_as_markdown(
    tmp_path: Path, inprocess_model: InProcessModel, model_env: dict[str, str], said: str
) -> None:
    """Real models bold or bullet the label; the summary (the commit title) is read all the same."""
    repo = make_repo(tmp_path / "r")
    reply = f"calc.py\n<<<<<<< SEARCH\n{BUGGY_LINE}=======\n{FIXED_LINE}>>>>>>> REPLACE\n\n{said}"
    inprocess_model.enqueue(text(reply))
    result = agent(inprocess_model, model_env, edit_protocol="text").fix(fix_context(repo))
    assert result.changed and result.summary == "sum all"


def test_text_protocol_failed_block_is_sent_back(
    tmp_path: Path, inprocess_model: InProcessModel, model_env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "r")
    wrong = "calc.py\n<<<<<<< SEARCH\nnot in the file\n=======\nx\n>>>>>>> REPLACE\n"
    good = f"calc.py\n<<<<<<< SEARCH\n{BUGGY_LINE}=======\n{FIXED_LINE}>>>>>>> REPLACE\n"
    inprocess_model.enqueue(text(wrong), text(good))
    result = agent(inprocess_model, model_env, edit_protocol="text").fix(fix_context(repo))
    feedback = inprocess_model.bodies()[1]["messages"][-1]["content"]
    assert "not found in calc.py" in feedback
    assert result.files_changed == ["calc.py"]


def test_secrets_never_reach_the_model(
    tmp_path: Path,
    model_server: FakeModelServer,
    model_env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    secret = "s3cr3t-deploy-value-42"
    token = "ghp_" + "Z9y8" * 9
    repo = make_repo(
        tmp_path / "r",
        {"calc.py": f"KEY = '{token}'\n", "tests/test_calc.py": "def test_x():\n    assert 0\n"},
    )
    log = f"E  RuntimeError: login failed with {secret}\ncalc.py:1: error\n"
    ctx = fix_context(
        repo,
        failure=fix_context(repo).failure.model_copy(update={"condensed": log, "locations": []}),
    )  # type: ignore[union-attr]
    model_server.enqueue(
        tool_call("read_file", path="calc.py"),
        tool_call("finish", summary=f"saw {secret}"),
        tool_call("finish", summary="x"),
    )
    built = model_agent(
        model_settings(model_server.url),
        {**model_env, "DEPLOY_SECRET": secret},
        sleep=lambda s: None,
    )
    result = built.fix(ctx)
    sent = model_server.all_text()
    assert secret not in sent and token not in sent
    assert "[REDACTED]" in sent
    assert secret not in result.summary


def test_tool_call_limit_stops_the_loop(
    tmp_path: Path, inprocess_model: InProcessModel, model_env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "r")
    inprocess_model.enqueue(*[tool_call("list_files") for _ in range(5)])
    result = agent(inprocess_model, model_env, max_tool_calls=3).fix(fix_context(repo))
    assert len(inprocess_model.requests) == 3
    assert "stopped after 3 tool calls" in " ".join(result.notes)


def test_spent_token_budget_makes_no_call(
    tmp_path: Path, inprocess_model: InProcessModel, model_env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "r")
    result = agent(inprocess_model, model_env, max_tokens_per_run=1000).fix(
        fix_context(repo, tokens_used=1000)
    )
    assert inprocess_model.requests == [] and "token budget spent" in " ".join(result.notes)


def test_bad_tool_arguments_are_explained(
    tmp_path: Path, inprocess_model: InProcessModel, model_env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "r")
    inprocess_model.enqueue(
        tool_call("read_file", file="calc.py"),
        tool_call("nope"),
        FIX,
        tool_call("finish", summary="ok"),
    )
    agent(inprocess_model, model_env).fix(fix_context(repo))
    bad_args, unknown = (tool_results(inprocess_model.bodies()[i])[i - 1] for i in (1, 2))
    assert "bad arguments for read_file" in bad_args
    assert "unknown tool 'nope'" in unknown


def test_no_model_means_no_agent() -> None:
    settings = model_settings("http://127.0.0.1:9/v1", model=None)
    launcher = run_launcher(settings, Path.cwd(), {})
    assert build_agent(settings, {}, launcher=launcher) is None


def test_request_carries_no_litellm_retries(
    tmp_path: Path, model_server: FakeModelServer, model_env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "r")
    model_server.enqueue(error(400, "bad request from fake"))
    result = agent(model_server, model_env).fix(fix_context(repo))
    assert len(model_server.requests) == 1  # permanent: no retry by litellm or by fixbot
    assert result.error is not None and "check --model and --api-base" in result.error
    json.dumps(result.model_dump(mode="json"))


def test_a_model_that_never_calls_tools_ends_the_attempt_after_two_replies(
    tmp_path: Path, inprocess_model: InProcessModel, model_env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "r")
    inprocess_model.enqueue(text("The bug is in calc.py."), text("Change items[1:] to items."))
    lines: list[str] = []
    built = model_agent(model_settings(inprocess_model.url), model_env, [].append, lines.append)
    result = built.fix(fix_context(repo))
    assert len(inprocess_model.requests) == 2  # not the whole max-tool-calls budget
    assert "Call a tool now" in inprocess_model.bodies()[1]["messages"][-1]["content"]
    assert not result.changed
    assert "answered 2 times without calling a tool" in " ".join(result.notes)
    assert any("attempt ended" in line for line in lines)


def test_with_auto_protocol_a_toolless_model_gets_the_text_protocol_next(
    tmp_path: Path, inprocess_model: InProcessModel, model_env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "r")
    # gpt-4o supports function calling in litellm's data, so `auto` starts with tools.
    fixer = agent(inprocess_model, model_env, model="openai/gpt-4o", edit_protocol="auto")
    inprocess_model.enqueue(text("no tools from me"), text("still none"))
    first = fixer.fix(fix_context(repo))
    assert "later attempts use the text protocol" in " ".join(first.notes)
    inprocess_model.enqueue(text("SUMMARY: nothing to do"), text("SUMMARY: still nothing"))
    fixer.fix(fix_context(repo, attempt=2))
    assert all("tools" in b for b in inprocess_model.bodies()[:2])
    assert all("tools" not in b for b in inprocess_model.bodies()[2:])


NO_MCP = """
import sys
sys.modules["mcp"] = None  # any `import mcp` now raises ImportError, as in a venv without it
from fixbot.agent.llm import LLM
from fixbot.agent.tools import TOOL_SCHEMAS
from fixbot.core.budget import Deadline
from fixbot.security.redact import Redactor
llm = LLM(["openai/fake"], Redactor.from_env({}), sys.argv[1], deadline=Deadline.start(None))
reply = llm.complete(
    [{"role": "user", "content": "fix it"}], TOOL_SCHEMAS
)
print(reply.tool_calls[0].name)
"""


@pytest.mark.slow
def test_tool_calls_need_no_mcp_package(
    model_server: FakeModelServer, model_env: dict[str, str]
) -> None:
    """litellm imports its MCP gateway when tools are passed unless told to skip it; fixbot
    skips it, so its tool calls work in a venv without `mcp` (whatever this venv holds)."""
    import subprocess
    import sys

    model_server.enqueue(tool_call("finish", summary="ok"))
    done = subprocess.run(
        [sys.executable, "-c", NO_MCP, model_server.url],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, **model_env},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "finish"


def test_a_warning_filter_is_judged_against_the_repositorys_own_modules(
    tmp_path: Path, model_server: FakeModelServer, model_env: dict[str, str]
) -> None:
    """The guard knows the project's modules (its tracked Python files): an `ignore` scoped to
    one of them is refused before it lands; one scoped to a dependency is written."""
    repo = make_repo(tmp_path / "r")
    start = '[tool.pytest.ini_options]\nfilterwarnings = [\n    "error",\n]\n'
    (repo / "pyproject.toml").write_text(start)

    def ignoring(module: str) -> str:
        return start.replace('"error",\n', f'"error",\n    "ignore:::{module}",\n')

    model_server.enqueue(
        tool_call("write_file", path="pyproject.toml", content=ignoring("calc")),
        tool_call("write_file", path="pyproject.toml", content=ignoring("olddep")),
        tool_call("finish", summary="done"),
    )
    result = agent(model_server, model_env).fix(fix_context(repo))
    assert len(result.refused) == 1 and "configuration" in result.refused[0]
    assert (repo / "pyproject.toml").read_text() == ignoring("olddep")
