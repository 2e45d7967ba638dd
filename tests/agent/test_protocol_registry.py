"""The edit protocol registry: the fixer, the self-review and the diagnosis ask the protocol
object, the `--edit-protocol` values are `auto` and the registry's names, and a new protocol is
one module, its instructions template and one registry entry (README.md, "Extending fixbot"),
which `test_a_new_protocol_is_one_module_and_one_registry_entry` follows step by step for a
protocol whose replies are whole files."""

from __future__ import annotations

import re
from pathlib import Path

import jinja2
import pytest

from fixbot.agent import Agent, build_agent, prompts
from fixbot.agent.protocols import registry
from fixbot.agent.protocols.base import Conversation, ProtocolSpec
from fixbot.core.errors import ConfigError
from fixbot.core.values import EditProtocol
from tests.fakes.agent_repo import (
    BUGGY_LINE,
    FIXED_LINE,
    fix_context,
    make_repo,
    model_env,
    model_settings,
)
from tests.fakes.model_server import InProcessModel, text
from tests.fakes.paths import ROOT

__all__ = ["model_env"]  # a pytest fixture used by name below


def enum_problem() -> str | None:
    """What is wrong between `EditProtocol` and the registry, or None when they agree."""
    values, wanted = sorted(EditProtocol), sorted(["auto", *registry.names()])
    return None if values == wanted else f"EditProtocol is {values}, the registry wants {wanted}"


def test_the_settings_values_are_auto_and_every_registered_protocol() -> None:
    assert enum_problem() is None
    assert registry.names() == ["tools", "text"]  # the order `auto` never depends on
    assert len(set(registry.names())) == len(registry.PROTOCOLS)


def test_an_unknown_protocol_is_a_clear_error() -> None:
    with pytest.raises(ConfigError, match="no edit protocol called 'whole': fixbot speaks tools"):
        registry.get("whole")
    assert registry.get("text") is registry.PROTOCOLS[1]


@pytest.mark.parametrize("spec", registry.PROTOCOLS, ids=registry.names())
def test_each_protocol_brings_its_instructions_to_the_system_prompt(spec: ProtocolSpec) -> None:
    system = prompts.render(
        "system.j2", check="pytest", protected=[], instructions=spec.instructions, max_tool_calls=7
    )
    own = prompts.render(spec.instructions, max_tool_calls=7)
    assert own.strip() and own.strip() in system
    others = [s for s in registry.PROTOCOLS if s is not spec]
    assert all(prompts.render(s.instructions, max_tool_calls=7) not in system for s in others)
    nudge = prompts.render("nudge.j2", how=spec.nudge)
    assert f"now {spec.nudge}." in nudge


def test_no_module_or_template_compares_a_protocol_name() -> None:
    """The choice lives in the protocol objects: nothing outside `protocols/` asks for a name."""
    compared = re.compile(r"""(==|!=|\bis)\s*["'](tools|text)["']|protocol\s*==""")
    sources = [*(ROOT / "fixbot" / "agent").rglob("*.py"), *(ROOT / "fixbot/templates").glob("*")]
    found = [
        str(path.relative_to(ROOT))
        for path in sources
        if "protocols" not in path.parts and compared.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []


# Step 1 of "Extending fixbot": a module exporting one `ProtocolSpec` (here inline; in the
# package it is `fixbot/agent/protocols/whole.py`). The model replies with whole files.
WHOLE_FILE = re.compile(r"^FILE: (?P<path>\S+)\n```\n(?P<body>.*?)^```$", re.M | re.S)


def whole_loop(talk: Conversation) -> None:
    """Write every whole file of the reply through the guarded toolbox; nudge once."""
    for _ in range(2):
        reply = talk.ask()
        if reply is None:
            return
        for found in WHOLE_FILE.finditer(reply.content):
            talk.session.box.write(found["path"], found["body"])
        summary = re.search(r"^SUMMARY: (.+)$", reply.content, re.M)
        talk.session.summary = summary[1] if summary else talk.session.summary
        if not talk.nudge():
            return


WHOLE = ProtocolSpec(
    name="whole",
    instructions="protocol_whole.j2",
    nudge="as whole files",
    tool_answers=False,
    loop=whole_loop,
)
# Step 2: its instructions, `fixbot/templates/protocol_whole.j2`.
WHOLE_INSTRUCTIONS = (
    "- Send each changed file whole: `FILE: <path>`, then its full new content between ``` "
    "lines. Then `SUMMARY:` and a one-line summary.\n"
)


def whole_file(path: str, content: str) -> str:
    return f"FILE: {path}\n```\n{content}```\n"


def test_a_new_protocol_is_one_module_and_one_registry_entry(
    tmp_path: Path,
    inprocess_model: InProcessModel,
    model_env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo = make_repo(tmp_path / "r")
    fixed = (repo / "calc.py").read_text().replace(BUGGY_LINE, FIXED_LINE)
    env = prompts.environment()
    assert env.loader is not None
    whole = jinja2.DictLoader({"protocol_whole.j2": WHOLE_INSTRUCTIONS})
    monkeypatch.setattr(env, "loader", jinja2.ChoiceLoader([whole, env.loader]))
    # Step 3: one entry in `registry.PROTOCOLS`.
    monkeypatch.setattr(registry, "PROTOCOLS", [*registry.PROTOCOLS, WHOLE])
    # Step 4, its name in `EditProtocol`: forgetting it fails the test above ...
    assert enum_problem() is not None and "whole" in str(enum_problem())
    # ... and `--edit-protocol whole` then reaches the settings (stood in for here, unvalidated).
    settings = model_settings(inprocess_model.url).model_copy(update={"edit_protocol": "whole"})
    agent = build_agent(settings, model_env)
    assert isinstance(agent, Agent)
    inprocess_model.enqueue(
        text("It looks right to me."),  # no file: nudged in the protocol's words
        text(
            whole_file("calc.py", fixed)
            + whole_file(".github/workflows/ci.yml", "on: {}\n")
            + "SUMMARY: sum every item"
        ),
    )
    result = agent.fix(fix_context(repo))
    first, second = inprocess_model.bodies()[:2]
    assert "tools" not in first
    assert "Send each changed file whole" in first["messages"][0]["content"]
    assert "SEARCH/REPLACE" not in first["messages"][0]["content"]
    assert "it now as whole files." in second["messages"][-1]["content"]
    assert (repo / "calc.py").read_text() == fixed
    assert result.files_changed == ["calc.py"] and result.error is None
    assert result.summary.splitlines()[0] == "sum every item"
    assert any(".github/workflows/ci.yml" in reason for reason in result.refused)
    assert not (repo / ".github").exists()
    assert len(inprocess_model.requests) == 2  # the change ended the loop: no third reply
    # The self-review asks for JSON in text, as `tool_answers=False` says.
    inprocess_model.enqueue(text("[]"))
    assert agent.review(fix_context(repo)).findings == []
    review = inprocess_model.bodies()[-1]
    assert "tools" not in review and "JSON list" in review["messages"][0]["content"]
