#!/usr/bin/env bash
# Create .venv and install fixbot (editable) with its test and lint tools. Idempotent.
#
#   bash scripts/setup.sh           enough for the demo (README command 1): pip installs only, no
#                                   compiler, no system packages
#   bash scripts/setup.sh --tests   also what the whole test suite needs (README command 2): the
#                                   real-model extra (scripts/realmodel.sh builds llama.cpp once
#                                   into a cache) and, as root with apt-get, the image tools
#                                   and Debian's cargo when no cargo every account can run is on PATH
#                                   (with the llvm of rustc's LLVM, for the Rust spectrum)
#
# The demo's part is required: a failure stops the command with its error. The test extras are
# optional: a failed one never stops it; it says what was optional, which tests skip without
# it (or fail under CI=true) and how to retry, and the set-up goes on.
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
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "setup.sh: fixbot needs Python 3.11 or newer; $PYTHON is $("$PYTHON" --version 2>&1)" \
    "(name another with PYTHON=/path/to/python3.11 bash scripts/setup.sh)" >&2
  exit 1
fi
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

skipped=()
# optional WHAT WITHOUT RETRY COMMAND...: run COMMAND; when it fails, say that WHAT was optional,
# what WITHOUT it skips, and RETRY, then go on.
optional() {
  local what="$1" without="$2" retry="$3"
  shift 3
  if ! "$@"; then
    {
      echo "setup.sh: the optional $what failed (its error is above); the set-up goes on."
      echo "  without it: $without skip with the reason (under CI=true they fail)."
      echo "  to add it later: $retry"
    } >&2
    skipped+=("$what")
  fi
}
# The real-model test's extra: llama-cpp-python is built once and its wheel cached.
realmodel_stamp=.venv/.fixbot-realmodel-installed
if [ ! -f "$realmodel_stamp" ] || [ "$stamp" -nt "$realmodel_stamp" ]; then
  realmodel() {
    bash scripts/realmodel.sh || return 1
    # A skipped build (FIXBOT_SKIP_REAL_MODEL=1) leaves no stamp: the next --tests set-up tries again.
    [ "${FIXBOT_SKIP_REAL_MODEL:-}" = "1" ] || touch "$realmodel_stamp"
  }
  optional "real-model extra (llama-cpp-python, built once)" \
    "tests/test_realmodel_e2e.py and tests/bench/test_run_realmodel.py" \
    "bash scripts/realmodel.sh (or FIXBOT_SKIP_REAL_MODEL=1 bash scripts/setup.sh --tests)" \
    realmodel
fi
# The container image's tests build the image with buildah (as root, with apt-get: installed here).
optional "image tools (buildah, debootstrap, sudo, gcc, go; as root with apt-get)" \
  "tests/test_image_e2e.py, tests/github/test_runner_split.py and the go report tests" \
  "as root: bash scripts/image-tools.sh" \
  bash scripts/image-tools.sh
# The bench corpus's rust cases run cargo (as root, with apt-get: Debian's cargo installed here
# unless a cargo outside root's home is on PATH), and the Rust spectrum reads their coverage with
# Debian's llvm-<major> of the LLVM the rustc on PATH was built with (installed here as root).
optional "Rust tool chain (Debian's cargo and rustc; as root with apt-get)" \
  "the rust cases of tests/bench/test_run_corpus.py" \
  "as root: bash scripts/rust-tools.sh" \
  bash scripts/rust-tools.sh
# The runner-report tests run jest and vitest for real (installed once into ~/.cache/fixbot/node).
optional "node tools (jest and vitest, with npm from the npm registry)" \
  "the jest and vitest tests of tests/run/test_runner_reports.py" \
  "fix npm's access to registry.npmjs.org (a proxy's certificate: NODE_EXTRA_CA_CERTS=/path/to/ca.pem or npm config set cafile), then bash scripts/node-tools.sh" \
  bash scripts/node-tools.sh
if [ "${#skipped[@]}" -gt 0 ]; then
  echo "setup.sh: fixbot and its test tools are installed; optional extras missing: ${skipped[*]}" >&2
fi
exit 0
