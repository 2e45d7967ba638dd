"""The order (CI, task files, ecosystem defaults), the fix commands declared, the tools missing
here, and files read without following a link."""

from __future__ import annotations

import json
import os
from pathlib import Path

from fixbot.infer.inference import infer, missing_tools

WORKFLOW = """
on: pull_request
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/setup-go@v5
        with: {go-version: "1.22"}
      - run: go test -race ./...
"""


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_the_ci_workflow_comes_first(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            ".github/workflows/ci.yml": WORKFLOW,
            "go.mod": "module x\n",
            "Makefile": "test:\n\tgo test\n",
        },
    )
    plan = infer(root)
    assert plan.check and plan.check.command == "go test -race ./..."
    assert [f.command for f in plan.fixes] == ["gofmt -w ."]
    assert missing_tools(plan, lambda name: None) == [
        "`go` is not installed here, and the CI sets up Go 1.22 (from .github/workflows/ci.yml, "
        "job `test`, step `Run actions/setup-go@v5`): install Go 1.22, or set check-command to a "
        "check that runs here"
    ]
    assert missing_tools(plan, lambda name: f"/usr/bin/{name}") == []


def test_then_the_task_files(tmp_path: Path) -> None:
    root = write(tmp_path, {"tox.ini": "[tox]\nenv_list = py3\n[testenv]\ncommands = pytest\n"})
    assert infer(root).check.command == "tox"  # type: ignore[union-attr]
    root = write(
        tmp_path / "n", {"noxfile.py": "import nox\n@nox.session\ndef tests(session): ...\n"}
    )
    assert infer(root).check.command == "nox -s tests"  # type: ignore[union-attr]
    scripts = {"scripts": {"test": "jest"}, "devDependencies": {"prettier": "3", "eslint": "9"}}
    root = write(tmp_path / "p", {"package.json": json.dumps(scripts), "package-lock.json": "{}"})
    plan = infer(root)
    assert (plan.check.command, plan.setup_command()) == ("npm test", "npm ci")  # type: ignore[union-attr]
    assert [f.command for f in plan.fixes] == ["npx prettier --write .", "npx eslint --fix ."]
    assert infer(root, fixes=False).fixes == ()


def test_then_the_ecosystem_default(tmp_path: Path) -> None:
    root = write(tmp_path, {"Cargo.toml": "[package]\nname='x'\n", "rustfmt.toml": ""})
    plan = infer(root)
    assert (plan.check.command, plan.setup_command()) == ("cargo test", "cargo fetch")  # type: ignore[union-attr]
    assert "the rust default" in str(plan.check.origin)  # type: ignore[union-attr]
    assert [f.command for f in plan.fixes] == ["cargo fmt"]
    empty = infer(write(tmp_path / "e", {"README": ""}))
    assert empty.check is None and "check-command" in empty.unresolved[0]


def test_npm_placeholder_and_precommit_hooks(tmp_path: Path) -> None:
    placeholder = {"scripts": {"test": 'echo "Error: no test specified" && exit 1'}}
    hooks = "repos:\n  - repo: x\n    hooks: [{id: ruff}, {id: ruff-format}, {id: black}]\n"
    root = write(
        tmp_path, {"package.json": json.dumps(placeholder), ".pre-commit-config.yaml": hooks}
    )
    plan = infer(root)
    assert plan.check and "the node default" in str(plan.check.origin)
    assert [f.command for f in plan.fixes] == [
        "ruff check --fix .",
        "ruff format .",
        "black .",
        "npx prettier --write .",
    ][:3]


def test_a_linked_workflow_is_not_read(tmp_path: Path) -> None:
    outside = write(tmp_path / "outside", {"ci.yml": WORKFLOW})
    root = tmp_path / "repo"
    (root / ".github").mkdir(parents=True)
    os.symlink(outside, root / ".github" / "workflows")
    assert infer(root).check is None
    (root / ".github" / "workflows").unlink()
    (root / ".github" / "workflows").mkdir()
    os.symlink(outside / "ci.yml", root / ".github" / "workflows" / "ci.yml")
    assert infer(root).check is None
