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
# Two set-ups at once (parallel CI jobs, worktrees sharing one HOME) must not install into the
# same folder together: npm's tree would come out with files missing and the stamp written. One
# at a time (flock, where util-linux has it), each into a fresh folder swapped in whole.
mkdir -p "$(dirname "$dest")"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$dest.lock"
  flock 9
  [ -f "$stamp" ] && exit 0
fi
echo "node-tools: installing ${packages[*]} into $dest" >&2
fresh="$dest.new.$$"  # mkdir, not mktemp: the folder keeps the umask's mode (0755), as before
rm -rf "$fresh"
mkdir "$fresh"
trap 'rm -rf "$fresh"' EXIT
npm install --no-audit --no-fund --prefix "$fresh" "${packages[@]}" >&2
touch "$fresh/$(basename "$stamp")"
if [ -e "$dest" ]; then
  old=$(mktemp -d "$dest.old.XXXXXX")
  mv "$dest" "$old/"
  mv "$fresh" "$dest"
  rm -rf "$old"
else
  mv "$fresh" "$dest"
fi
