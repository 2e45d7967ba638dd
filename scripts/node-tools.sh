#!/usr/bin/env bash
# Install the npm packages the runner-report tests run for real (jest and vitest:
# tests/run/test_runner_reports.py) once into ~/.cache/fixbot/node, from the npm registry.
# Without npm it says so and returns 0: those tests then skip with that reason, or fail under
# CI=true.
set -euo pipefail
dest="$HOME/.cache/fixbot/node"
packages=(jest@30.5.2 vitest@4.1.12)
stamp="$dest/.installed-$(printf '%s_' "${packages[@]}")"
[ -f "$stamp" ] && exit 0
if ! command -v npm >/dev/null 2>&1; then
  echo "node-tools: npm missing (install node and npm to run tests/run/test_runner_reports.py)" >&2
  exit 0
fi
echo "node-tools: installing ${packages[*]} into $dest" >&2
mkdir -p "$dest"
npm install --no-audit --no-fund --prefix "$dest" "${packages[@]}" >&2
touch "$stamp"
