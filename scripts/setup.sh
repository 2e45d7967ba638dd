#!/usr/bin/env bash
# Create .venv and install fixbot (editable) with its test and lint tools. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.fixbot-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ constraints.txt -nt "$stamp" ]; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
  .venv/bin/python -m pip install --quiet --disable-pip-version-check \
    -c constraints.txt -e '.[test,lint]'
  # The real-model test's extra: llama-cpp-python is built once and its wheel cached.
  bash scripts/realmodel.sh
  touch "$stamp"
fi
# The container image's tests build the image with buildah (as root, with apt-get: installed here).
bash scripts/image-tools.sh
