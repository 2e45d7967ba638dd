"""A jest or vitest check's functions from the test runner's own coverage.

A check that starts jest or vitest by name (`runner`: `jest ...`, `npx vitest run ...`, or
`npm test` whose script is one plain jest or vitest command) is asked for the runner's own V8
coverage (`RUNNER_OPTIONS`), which the runner maps back to the files' lines through its
transforms' source maps and writes as istanbul's JSON (`runner_command`, `parse_report`); its
functions are ranked as `fixbot.agent.nodecov.rank_lines` ranks them. jest ships it; vitest's
needs the project's `@vitest/coverage-v8`, and without it the check is not re-run here (fixbot
installs nothing into the project): `parse_report` says so, and the spectrum asks V8's own
coverage instead, mapped through the source maps vitest's transforms leave in the code they run
(`fixbot.agent.nodecov.command`).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path, PurePosixPath

from fixbot.agent.nodecov import MARK, Lines
from fixbot.core.repofiles import regular_text
from fixbot.process.shellwords import word_ends

# The programs that start a runner named by the word after them (`npx jest`, `yarn vitest`).
RUNNER_LAUNCHERS = ("npx", "yarn", "pnpm", "bunx", "exec", "dlx")
# Each test runner's own coverage, by V8 and mapped back to the files on disk (its transforms'
# source maps), as istanbul's `coverage-final.json` in the folder "$fixbot_cov":
# https://jestjs.io/docs/cli#--coverageproviderprovider and https://vitest.dev/config/#coverage
# (vitest's needs its `@vitest/coverage-v8` package, which fixbot does not install).
RUNNER_OPTIONS = {
    "jest": (
        "--coverage --coverageProvider=v8 --coverageReporters=json "
        '--coverageDirectory="$fixbot_cov"'
    ),
    "vitest": (
        "--coverage.enabled=true --coverage.provider=v8 --coverage.reporter=json "
        '--coverage.reportsDirectory="$fixbot_cov"'
    ),
}
VITEST_PROVIDER = "@vitest/coverage-v8"
# Whether a package is installed where node would look for it from the working folder (its
# `node_modules` folders upward, NODE_PATH, the global folders: `require.resolve.paths`), read on
# disk: resolving it would fail for an ESM-only package whose `exports` has no `require`.
INSTALLED = (
    "const {existsSync} = require('fs'), {join} = require('path');\n"
    f"const installed = (require.resolve.paths('{VITEST_PROVIDER}') || []).some(\n"
    f"  dir => existsSync(join(dir, '{VITEST_PROVIDER}', 'package.json')));\n"
)


# Runs under the project's node after a jest or vitest check: its istanbul report
# (https://github.com/istanbuljs/istanbuljs/blob/main/docs/raw-output.md) cut to the repository's
# scripts, as {"provider": whether the runner's coverage package resolves, "files": {path
# relative to the working folder: {"functions": [[name, first line, last line, count], ...],
# "blocks": [[first line, last line, count], ...]}}}; argv: the report's folder, the runner.
PRINT_REPORT = r"""
const fs = require("fs"), path = require("path");
const [dir, runner] = process.argv.slice(1), root = process.cwd() + path.sep;
%s
const provider = runner !== "vitest" || installed;
let report = {};
try {
  report = JSON.parse(fs.readFileSync(path.join(dir, "coverage-final.json"), "utf8"));
} catch (e) {}
const files = {};
for (const [name, data] of Object.entries(report)) {
  const file = data.path || name;
  if (!file.startsWith(root) || file.includes("/node_modules/")) continue;
  const lines = loc => [loc.start.line, loc.end.line];
  const functions = Object.entries(data.fnMap || {}).map(
    ([id, fn]) => [fn.name || "", ...lines(fn.loc || fn.decl), (data.f || {})[id] || 0]);
  const blocks = [];
  for (const [id, branch] of Object.entries(data.branchMap || {})) {
    (branch.locations || []).forEach(
      (loc, i) => blocks.push([...lines(loc), ((data.b || {})[id] || [])[i] || 0]));
  }
  files[file.slice(root.length)] = {functions, blocks};
}
process.stdout.write(JSON.stringify({provider, files}) + "\n");
""".replace("%s", INSTALLED)


def runner(check: str, repo: Path | None = None) -> tuple[str, int, str] | None:
    """The test runner whose own coverage `check` can be asked for: ("jest" or "vitest", the
    offset in `check` its options go at, what goes before them), or None (another runner, a
    script: V8's coverage through `command` instead). The options go past the runner's word
    (and vitest's `run`); for `npm test` or `npm run NAME` alone (`--prefix DIR` allowed), whose
    script in `repo`'s package.json is one plain jest or vitest command, at the end after `--`
    (npm hands what follows it to the script: https://docs.npmjs.com/cli/commands/npm-run-script)."""
    words = word_ends(check)
    named = _named_runner(words)
    if named is not None or repo is None:
        return named
    script = _npm_script(repo, [w for w, _, _ in words])
    found = _named_runner(word_ends(script)) if script else None
    if script is None or found is None or sum(p for _, _, p in word_ends(script)) != 1:
        return None
    return found[0], len(check.rstrip()), "-- "


def _named_runner(words: list[tuple[str, int, bool]]) -> tuple[str, int, str] | None:
    """The runner `words` (`word_ends`) start by name, as `runner` says it (nothing before its
    options), or None: a word named jest or vitest that is a program word or follows one of
    `RUNNER_LAUNCHERS`."""
    for i, (word, _, program) in enumerate(words):
        name = PurePosixPath(word).name
        launched = i > 0 and words[i - 1][0] in RUNNER_LAUNCHERS
        if name in RUNNER_OPTIONS and (program or launched):
            return name, _options_at(words, i, name), ""
    return None


def _options_at(words: list[tuple[str, int, bool]], i: int, name: str) -> int:
    """The offset the runner `name` at `words[i]` takes its options at: past its word, or past
    the `run` after vitest's (vitest's own options follow its subcommand)."""
    if name == "vitest" and i + 1 < len(words) and words[i + 1][0] == "run":
        return words[i + 1][1]
    return words[i][1]


def _npm_script(repo: Path, words: list[str]) -> str | None:
    """The package.json script `npm test` or `npm run NAME` (the whole of `words`, maybe with
    `--prefix DIR`) runs, None for any other command or a script that cannot be read."""
    folder = "."
    if "--prefix" in words[:-1]:
        at = words.index("--prefix")
        folder, words = words[at + 1], words[:at] + words[at + 2 :]
    if words in (["npm", "test"], ["npm", "t"]):
        name = "test"
    elif len(words) == 3 and words[:2] in (["npm", "run"], ["npm", "run-script"]):
        name = words[2]
    else:
        return None
    try:
        scripts = json.loads(regular_text(repo, repo / folder / "package.json") or "")
        script = scripts["scripts"][name]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return script if isinstance(script, str) else None


def runner_command(check: str, found: tuple[str, int, str]) -> str:
    """The shell command that re-runs `check` with its runner's own coverage (`RUNNER_OPTIONS`
    added where `runner` found) and prints the repository's part of the report after `MARK`
    (`PRINT_REPORT`). A vitest without its coverage package is not re-run: the report then says
    `provider` false."""
    name, at, lead = found
    covered = f"{check[:at]} {lead}{RUNNER_OPTIONS[name]}{check[at:]}"
    run = f"({covered}) </dev/null >/dev/null 2>&1"
    if name == "vitest":
        probe = shlex.quote(INSTALLED + "process.exit(installed ? 0 : 1);")
        run = f"if node -e {probe} >/dev/null 2>&1; then {run}; fi"
    return (
        "fixbot_cov=$(mktemp -d) && export fixbot_cov && "
        f"{run}; echo {MARK}; "
        f'command -v node >/dev/null && node -e {shlex.quote(PRINT_REPORT)} "$fixbot_cov" {name}; '
        'rm -rf "$fixbot_cov"'
    )


def parse_report(output: str) -> tuple[bool, dict[str, Lines]]:
    """(whether the runner's coverage package resolved, path -> its `Lines`) from
    `runner_command`'s output; (True, {}) when the report is missing, cut or malformed."""
    _, marker, rest = output.partition(MARK)
    start = rest.find("{")
    try:
        report, _ = (
            json.JSONDecoder().raw_decode(rest[start:]) if marker and start >= 0 else ({}, 0)
        )
        files = report.get("files") or {}
        found = {
            str(path): Lines(
                tuple((str(n), int(a), int(b), int(c)) for n, a, b, c in data["functions"]),
                tuple((int(a), int(b), int(c)) for a, b, c in data["blocks"]),
            )
            for path, data in files.items()
        }
    except (RecursionError, AttributeError, KeyError, TypeError, ValueError):  # nested too deep
        return True, {}
    return report.get("provider") is not False, found
