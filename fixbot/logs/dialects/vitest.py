"""vitest (4.x): ` Test Files  1 failed | 1 passed (2)`, `      Tests  2 failed | 2 passed | 1
skipped | 1 todo (6)` (`Tests  no tests` when no file could run) and ` FAIL  src/x.test.ts >
group > name` (a failing test's report).

A test file that fails to run fails no test; as with jest (`fixbot.logs.dialects.jest`), at least
(failed files - failed tests) files failed to run, counted as errors.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from fixbot.core.failure import Counts
from fixbot.logs.dialects.base import (
    JEST_WORDS,
    Dialect,
    Report,
    counts_after_units,
    jest_outcomes,
    names_runner,
    runner_at,
)

SUMMARY_RE = re.compile(
    r"^[ \t]*(Test Files|Tests)[ \t]+(\d+ \w+(?: \| \d+ \w+)* \(\d+\)|no tests)", re.MULTILINE
)
FAIL = r"FAIL[ \t]+(?P<test>\S+ > [^\n]+?)[ \t]*$"


def counts(text: str) -> list[Counts]:
    """One `Counts` per `Tests` line (a skipped or todo test counts as skipped), with the files
    that failed to run, as far as the `Test Files` line before it tells, as errors."""
    return counts_after_units(text, SUMMARY_RE, JEST_WORDS, "Test Files")


def file_of(test: str) -> str | None:
    """`src/x.test.ts` of `src/x.test.ts > group > name`."""
    path, sep, _ = test.partition(" > ")
    return path if sep and " " not in path else None


def runs(words: Sequence[str]) -> bool:
    """The command runs vitest once (`vitest run`, `npx vitest`, `node_modules/.bin/vitest`,
    `node node_modules/vitest/vitest.mjs`)."""
    return sum(names_runner(word, "vitest") for word in words) == 1


def argv(words: list[str], path: str) -> list[str] | None:
    """`words` with `--reporter=default --reporter=json --outputFile.json=<path>` after `vitest`
    (after `vitest run`), when the command runs vitest itself (`vitest`, `npx vitest`); None
    when it runs vitest some other way (`npm test`) or names reporters or output files itself.

    vitest has no environment variable for its reporters: its command line or its configuration
    (the project's) chooses them (https://vitest.dev/guide/reporters,
    https://vitest.dev/config/outputfile). A `--reporter` on the command line replaces the
    configured list and vitest's automatic one (`github-actions` added under GitHub Actions), so
    `default` is named too: the terminal output stays the one the dialect reads (a project that
    configured another reporter sees vitest's default one instead)."""
    at = runner_at(words, "vitest", frozenset({"npx"}))
    if at is None or any(w.startswith(("--reporter", "--outputFile")) for w in words):
        return None
    at += 1 if words[at + 1 : at + 2] == ["run"] else 0
    added = ["--reporter=default", "--reporter=json", f"--outputFile.json={path}"]
    return [*words[: at + 1], *added, *words[at + 1 :]]


def observe(words: list[str], reporter: str, environment: str | None = None) -> list[str] | None:
    """`words` (`argv`'s, which name vitest's `default` and `json` reporters) with
    `--reporter=<reporter>` added after them: fixbot's reporter
    (`fixbot/observe/node/reporter.cjs`), which streams each test's outcome to fixbot's channel;
    None where `argv` added no reporter. `environment` (jest's alone) is not used."""
    if "--reporter=json" not in words:
        return None
    at = words.index("--reporter=json")
    return [*words[: at + 1], f"--reporter={reporter}", *words[at + 1 :]]


DIALECT = Dialect(
    name="vitest",
    source="vitest 4.1.12",
    summary=(
        r"Tests[ \t]+(?:\d+ \w+(?: \| \d+ \w+)* \(\d+\)|no tests$)",
        r"Test Files[ \t]+\d+ \w+(?: \| \d+ \w+)* \(\d+\)",
    ),
    counts=counts,
    test_ids=(FAIL,),
    id_forms=(r"(?<=FAIL  )\S+ > .+",),
    heads=(FAIL,),
    ends=("\u23af{3,}", r"Test Files[ \t]"),
    errors=(r"FAIL[ \t]+\S+ > ",),
    failing=(r"^[ \t]*Tests[ \t]+\d+ failed",),
    file_of=file_of,
    report=Report(
        file_name="vitest.json", runs=runs, read=jest_outcomes, argv=argv, observe=observe
    ),
)
