"""The README's quick start is the shipped workflow, and its two set-up commands are the ones CI
runs."""

from __future__ import annotations

import re

from tests.fakes.paths import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_quick_start_workflow_is_the_shipped_one() -> None:
    found = re.search(
        r"<!-- workflow:start -->\n```yaml\n(.*?)```\n<!-- workflow:end -->", README, re.S
    )
    assert found, "README.md lacks the quick start workflow between its markers"
    shipped = (ROOT / ".github" / "workflows" / "fixbot.yml").read_text(encoding="utf-8")
    assert found[1] == shipped


def test_the_two_commands_then_the_quick_start() -> None:
    headings = re.findall(r"^## (.+)$", README, re.M)
    assert headings[:3] == ["Two commands", "Quick start", "What a run costs"]
    assert "bash scripts/setup.sh && .venv/bin/python demo/run.py" in README
    test_command = "bash scripts/setup.sh --tests && .venv/bin/python -m pytest"
    assert test_command in README
    assert test_command in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_the_demo_set_up_builds_nothing_and_the_test_set_up_builds_llama_cpp() -> None:
    """README command 1 installs wheels only; the llama.cpp build belongs to the test command."""
    lines = (ROOT / "scripts" / "setup.sh").read_text(encoding="utf-8").splitlines()
    setup_sh = "\n".join(line for line in lines if not line.lstrip().startswith("#"))
    demo_part, tests_part = setup_sh.split('[ "$tests" = 1 ] || exit 0')
    assert "realmodel.sh" not in demo_part and "image-tools.sh" not in demo_part
    assert "bash scripts/realmodel.sh" in tests_part
    setup = README.split("## Two commands")[1].split("## Quick start")[0]
    assert "builds llama.cpp" in setup and "7 minutes" in setup
    assert "FIXBOT_SKIP_REAL_MODEL=1 bash scripts/setup.sh\n--tests" in setup
    skip = (ROOT / "scripts" / "realmodel.sh").read_text(encoding="utf-8")
    assert '"${FIXBOT_SKIP_REAL_MODEL:-}" = "1"' in skip  # the variable the README names works
