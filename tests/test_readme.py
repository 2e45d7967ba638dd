"""The README's quick start is the shipped workflow, and its two set-up commands are the ones CI
runs."""

from __future__ import annotations

import re
import tomllib

import pytest

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


# Install lines that resolve to nothing before the first release (no PyPI package, no v1 tag, no
# published image).
RELEASE_ONLY = re.compile(
    r"pipx install fixbot|uvx fixbot|pip install fixbot|pip install 'fixbot\[|fixbot(?:/runner)?@v1"
    r"|fixbot:v1"
)
SHOWN = [
    ROOT / "README.md",
    ROOT / ".github" / "workflows" / "fixbot.yml",
    *sorted((ROOT / "examples").glob("*.yml")),
]


def test_every_release_only_install_line_is_marked_and_what_works_today_leads() -> None:
    """A release-only line (PyPI, `@v1`, the published image) says "after the first release" on
    its line (YAML) or in its paragraph (Markdown); the forms that work from the repository lead."""
    unmarked = []
    for path in SHOWN:
        text = path.read_text(encoding="utf-8")
        units = text.split("\n\n") if path.suffix == ".md" else text.splitlines()
        for unit in units:
            flat = " ".join(unit.split()).lower()
            if RELEASE_ONLY.search(unit) and "after the first release" not in flat:
                unmarked.append(f"{path.name}: {unit.strip()[:160]}")
    assert unmarked == []
    quick = README.split("## Quick start")[1].split("## What a run costs")[0]
    assert "pip install 'git+https://github.com/OWNER/fixbot@main'" in quick
    assert "pip install ." in quick and "uses: OWNER/fixbot@main" in quick
    # What `@main` and the git URL use: the repository's own action (its Dockerfile, built on the
    # runner), the runner action, and the package named as the lines name it.
    assert re.search(r"^  image: Dockerfile$", (ROOT / "action.yml").read_text(), re.M)
    assert (ROOT / "runner" / "action.yml").is_file()
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert pyproject["project"]["name"] == "fixbot"
    assert "chart" in pyproject["project"]["optional-dependencies"]


def test_the_supported_model_client_range_starts_at_the_tested_pins() -> None:
    """The lower end of litellm's and openai's declared range is what constraints.txt pins (and
    CI installs and tests); the pins lie inside the range. The upper end is the newest pair tried
    (pyproject.toml's comment): raising it means running the suite on the newer pair first."""
    from packaging.requirements import Requirement
    from packaging.version import Version

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    declared = {Requirement(r).name: Requirement(r) for r in pyproject["project"]["dependencies"]}
    pins = dict(
        line.split("==", 1)
        for line in (ROOT / "constraints.txt").read_text().splitlines()
        if "==" in line and not line.startswith("#")
    )
    for name in ("litellm", "openai"):
        specifier = declared[name].specifier
        lower = [s.version for s in specifier if s.operator == ">="]
        upper = [s for s in specifier if s.operator == "<"]
        assert lower == [pins[name]] and upper, (name, str(specifier))
        assert Version(pins[name]) in specifier


def test_run_help_names_nothing_a_pip_install_lacks(capsys: pytest.CaptureFixture[str]) -> None:
    """A wheel holds the `fixbot` package only: `run --help` must not send its reader to the
    repository's files (bench/, docs/, tests/, a README) or into fixbot's modules."""
    from fixbot.cli import main

    with pytest.raises(SystemExit):
        main(["run", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    repository_only = re.compile(
        r"\b(?:bench|docs|tests|scripts|demo)/|\b[\w-]+\.md\b|`fixbot\.\w+|\bfixbot/\w+\.py\b"
    )
    assert repository_only.findall(shown) == []
    assert "pyproject.toml / .fixbot.toml" in shown  # the user's own files may be named
