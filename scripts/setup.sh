#!/usr/bin/env bash
# Create .venv and install fixbot (editable) with its test and lint tools. Idempotent.
#
#   bash scripts/setup.sh           enough for the demo (README command 1): pip installs only, no
#                                   compiler, no system packages
#   bash scripts/setup.sh --tests   also what the whole test suite needs (README command 2): the
#                                   real-model extra (scripts/realmodel.sh builds llama.cpp once
#                                   into a cache) and, as root with apt-get, the image tools
set -euo pipefail
cd "$(dirname "$0")/.."
tests=0
for arg in "$@"; do
  case "$arg" in
    --tests) tests=1 ;;
    *) echo "setup.sh: unknown option $arg (use --tests for the test suite's extras)" >&2; exit 2 ;;
  esac
done
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.fixbot-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ constraints.txt -nt "$stamp" ]; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
  .venv/bin/python -m pip install --quiet --disable-pip-version-check \
    -c constraints.txt -e '.[test,lint]'
  touch "$stamp"
fi
[ "$tests" = 1 ] || exit 0
# The real-model test's extra: llama-cpp-python is built once and its wheel cached.
realmodel_stamp=.venv/.fixbot-realmodel-installed
if [ ! -f "$realmodel_stamp" ] || [ "$stamp" -nt "$realmodel_stamp" ]; then
  bash scripts/realmodel.sh
  # A skipped build (FIXBOT_SKIP_REAL_MODEL=1) leaves no stamp: the next --tests set-up tries again.
  [ "${FIXBOT_SKIP_REAL_MODEL:-}" = "1" ] || touch "$realmodel_stamp"
fi
# The container image's tests build the image with buildah (as root, with apt-get: installed here).
bash scripts/image-tools.sh
# The runner-report tests run jest and vitest for real (installed once into ~/.cache/fixbot/node).
bash scripts/node-tools.sh
