"""runner/action.yml, the composite action of the runner mode, against action.yml: the same inputs
and outputs, every input passed to `fixbot action` as its `INPUT_*` variable, fixbot installed
into its own virtual environment by runner/install.sh, keyed on constraints.txt."""

from __future__ import annotations

import os
import re
import runpy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from fixbot.github.events.inputs import variable
from tests.fakes.paths import ROOT


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data


CONTAINER = load(ROOT / "action.yml")
RUNNER = load(ROOT / "runner" / "action.yml")


def step(name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(s for s in RUNNER["runs"]["steps"] if s.get("name") == name)
    return found


def test_inputs_are_identical_to_the_container_action() -> None:
    assert RUNNER["inputs"] == CONTAINER["inputs"]
    assert list(RUNNER["inputs"]) == list(CONTAINER["inputs"])  # same order too


def test_outputs_are_identical_and_come_from_the_run_step() -> None:
    assert list(RUNNER["outputs"]) == list(CONTAINER["outputs"])
    for name, spec in CONTAINER["outputs"].items():
        runner_spec = RUNNER["outputs"][name]
        assert runner_spec["description"] == spec["description"]
        assert runner_spec["value"] == f"${{{{ steps.fixbot.outputs.{name} }}}}"
    assert step("Run fixbot")["id"] == "fixbot"


def test_every_input_reaches_fixbot_as_its_input_variable() -> None:
    env = step("Run fixbot")["env"]
    passed = {k: v for k, v in env.items() if k.startswith("INPUT_")}
    assert passed == {variable(name): f"${{{{ inputs.{name} }}}}" for name in CONTAINER["inputs"]}
    assert not any(name.startswith("FIXBOT_") for name in env)  # where it runs is no variable


def test_it_is_a_composite_action_running_fixbot_from_its_own_virtual_environment() -> None:
    assert RUNNER["runs"]["using"] == "composite"
    python = step("Python for fixbot")
    assert python["uses"].startswith("actions/setup-python@")
    assert python["with"]["update-environment"] is False  # the project's python stays on PATH
    install = step("Install fixbot")
    assert "install.sh" in install["run"] and "cache-hit" in install["if"]
    run = step("Run fixbot")["run"].strip("'")
    assert run == 'cd / && exec "${VENV}/bin/python" -I -m fixbot action'


def test_the_steps_shell_is_replaced_by_fixbot(tmp_path: Path) -> None:
    """Without `exec` the step's bash stays alive above the check, holding the
    step's `env:` (the token among them) where a process of the same user can read it."""
    python = tmp_path / "bin" / "python"  # stands in for fixbot's Python: its parent, its folder
    python.parent.mkdir()
    python.write_text('#!/bin/sh\necho "$PPID $PWD $*"\n')
    python.chmod(0o755)
    script = tmp_path / "step.sh"
    script.write_text(step("Run fixbot")["run"].strip("'") + "\n")
    # How the runner runs a `shell: bash` step: bash --noprofile --norc -eo pipefail {0}
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        env={"VENV": str(tmp_path), "PATH": os.environ["PATH"]},
        capture_output=True,
        text=True,
        check=True,
    )
    parent, folder, args = done.stdout.strip().split(" ", 2)
    assert int(parent) == os.getpid()  # fixbot's parent is the runner, not a shell
    assert folder == "/" and args == "-I -m fixbot action"  # isolated, from a folder of root's


@pytest.mark.slow
def test_the_cache_is_keyed_on_the_constraints_and_the_source(tmp_path: Path) -> None:
    cache = step("Restore fixbot's virtual environment")
    assert cache["uses"].startswith("actions/cache@")
    assert cache["with"]["key"] == "${{ steps.key.outputs.key }}"
    assert "cache_key.py" in step("Cache key of fixbot's virtual environment")["run"]
    tool = runpy.run_path(str(ROOT / "runner" / "cache_key.py"))
    for name in ("constraints.txt", "pyproject.toml", "fixbot/__init__.py", "fixbot/t/a.j2"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("v1\n")
    first = tool["cache_key"](tmp_path, "p")
    assert first.startswith("p-") and len(first) == 22
    (tmp_path / "fixbot" / "__pycache__").mkdir()
    (tmp_path / "fixbot" / "__pycache__" / "x.pyc").write_bytes(b"\0")
    assert tool["cache_key"](tmp_path, "p") == first  # compiled files do not count
    for name in ("constraints.txt", "fixbot/t/a.j2"):
        (tmp_path / name).write_text("v2\n")
        changed = tool["cache_key"](tmp_path, "p")
        assert changed != first
        first = changed
    real = subprocess.run(
        [sys.executable, str(ROOT / "runner" / "cache_key.py"), "fixbot-venv-Linux"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert re.fullmatch(r"fixbot-venv-Linux-[0-9a-f]{20}", real)


def test_install_script_pins_with_the_constraints() -> None:
    script = (ROOT / "runner" / "install.sh").read_text(encoding="utf-8")
    assert '--constraint "$root/constraints.txt" "$root"' in script
    assert '-m venv "$venv"' in script
