#!/usr/bin/env bash
# Install fixbot into an isolated virtual environment, pinned by constraints.txt: the install
# step of the runner mode (runner/action.yml), run the same way by tests/github/test_runner_mode.py.
# Usage: runner/install.sh PYTHON VENV   (PYTHON: a Python 3.11+; VENV: the folder to create)
set -euo pipefail
if [ "$#" -ne 2 ]; then
  echo "usage: $0 PYTHON VENV" >&2
  exit 2
fi
python="$1"
venv="$2"
root="$(cd "$(dirname "$0")/.." && pwd)"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  --constraint "$root/constraints.txt" "$root"
"$venv/bin/fixbot" --version
