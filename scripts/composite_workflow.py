"""Print runner/action.yml's steps as a workflow, so actionlint can lint the composite action.

actionlint lints workflows, not action metadata; a composite action's steps are workflow steps,
and its `inputs.*` are what a `workflow_call` workflow with the same inputs sees. The printed
workflow is for linting only (scripts/lint.sh writes it to a temporary folder).

Usage: .venv/bin/python scripts/composite_workflow.py [runner/action.yml]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent


def as_workflow(action: dict[str, Any]) -> dict[str, Any]:
    """A `workflow_call` workflow with the action's inputs and one job running its steps."""
    inputs = {
        name: {"type": "string", "required": bool(spec.get("required", False))}
        for name, spec in action["inputs"].items()
    }
    return {
        "name": f"lint: {action['name']}",
        "on": {"workflow_call": {"inputs": inputs}},
        "permissions": {},
        "jobs": {"composite": {"runs-on": "ubuntu-latest", "steps": action["runs"]["steps"]}},
    }


def main(argv: list[str]) -> int:
    """Print the workflow (JSON, which is YAML) for the action file in `argv` (default: runner)."""
    path = Path(argv[0]) if argv else ROOT / "runner" / "action.yml"
    action = yaml.safe_load(path.read_text(encoding="utf-8"))
    print(json.dumps(as_workflow(action), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
