"""The edit protocol registry: the fixer, the self-review and the diagnosis ask the protocol
object, the `--edit-protocol` values are `auto` and the registry's names, and a new protocol is
one module and its instructions template (README.md, "Extending fixbot"), which
`test_a_new_protocol_is_one_module_and_its_template` follows for a protocol whose replies are
whole files: the module tests/data/extending/protocols/whole.py joins the package."""

from __future__ import annotations

import re
from pathlib import Path

import jinja2
import pytest

from fixbot.agent import prompts, protocols
from fixbot.agent.protocols import registry
from fixbot.agent.protocols.base import ProtocolSpec
from fixbot.core.errors import ConfigError
from fixbot.run.preflight import preflight
from tests.fakes.agent_repo import (
    BUGGY_LINE,
    FIXED_LINE,
    fix_context,
    make_repo,
    model_agent,
    model_env,
    model_settings,
)
from tests.fakes.model_server import InProcessModel, text
from tests.fakes.paths import ROOT
from tests.fakes.plugin import EXTENDING, AddModule

__all__ = ["model_env"]  # a pytest fixture used by name below


def test_the_settings_values_are_auto_and_every_registered_protocol(tmp_path: Path) -> None:
    assert sorted(registry.names()) == ["text", "tools"]
    assert len(set(registry.names())) == len(registry.all_protocols())
    assert registry.check("auto") is None and registry.check("text") is None
    problem = registry.check("whole")
    assert problem == "edit-protocol `whole` is no edit protocol fixbot speaks: choose `auto`, " + (
        ", ".join(f"`{name}`" for name in registry.names())
    )
    repo = make_repo(tmp_path / "r")
    settings = model_settings("http://127.0.0.1:9").model_copy(update={"edit_protocol": "whole"})
    assert problem in preflight(settings, repo, {"OPENAI_API_KEY": "k"})  # before anything runs


def test_an_unknown_protocol_is_a_clear_error() -> None:
    with pytest.raises(
        ConfigError, match=r"no edit protocol called 'whole': fixbot speaks text, tools$"
    ):
        registry.get("whole")
    assert registry.get("text").name == "text"


@pytest.mark.parametrize("spec", registry.all_protocols(), ids=registry.names())
def test_each_protocol_brings_its_instructions_to_the_system_prompt(spec: ProtocolSpec) -> None:
    system = prompts.render(
        "system.j2", check="pytest", protected=[], instructions=spec.instructions, max_tool_calls=7
    )
    own = prompts.render(spec.instructions, max_tool_calls=7)
    assert own.strip() and own.strip() in system
    others = [s for s in registry.all_protocols() if s is not spec]
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


def whole_file(path: str, content: str) -> str:
    return f"FILE: {path}\n```\n{content}```\n"


# The template a new protocol brings: `fixbot/templates/protocol_whole.j2`.
WHOLE_INSTRUCTIONS = (
    "- Send each changed file whole: `FILE: <path>`, then its full new content between ``` "
    "lines. Then `SUMMARY:` and a one-line summary.\n"
)


def test_a_new_protocol_is_one_module_and_its_template(
    tmp_path: Path,
    inprocess_model: InProcessModel,
    model_env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    add_module: AddModule,
) -> None:
    repo = make_repo(tmp_path / "r")
    fixed = (repo / "calc.py").read_text().replace(BUGGY_LINE, FIXED_LINE)
    settings = model_settings(inprocess_model.url).model_copy(update={"edit_protocol": "whole"})
    assert registry.check("whole") is not None  # not yet known
    # The change: the module `whole.py` in `fixbot/agent/protocols/` ...
    add_module(protocols, EXTENDING / "protocols" / "whole.py", registry.all_protocols)
    # ... and its template (stood in for by a loader, not written into the package).
    env = prompts.environment()
    assert env.loader is not None
    whole = jinja2.DictLoader({"protocol_whole.j2": WHOLE_INSTRUCTIONS})
    monkeypatch.setattr(env, "loader", jinja2.ChoiceLoader([whole, env.loader]))
    assert registry.check("whole") is None  # `--edit-protocol whole` is now a choice
    agent = model_agent(settings, model_env)
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
