"""jest (30.x): `Test Suites: 1 failed, 1 passed, 2 total`, `Tests:       2 failed, 1 skipped, 1
todo, 2 passed, 6 total`, `● suite > name`.

A suite that fails to run (a syntax error, an import that throws) fails no test: jest then
prints `Tests:       1 passed, 1 total` under `Test Suites: 1 failed`. Each suite with failing
tests has at least one, so at least (failed suites - failed tests) suites failed to run: those
are counted as errors, or a red run would read as "0 failing".
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

SUMMARY_RE = re.compile(r"^(Test Suites|Tests):\s+(.*\d+ total)", re.MULTILINE)


def counts(text: str) -> list[Counts]:
    """One `Counts` per `Tests:` line (a skipped or todo test counts as skipped), with the
    suites that failed to run, as far as the `Test Suites:` line before it tells, as errors."""
    return counts_after_units(text, SUMMARY_RE, JEST_WORDS, "Test Suites")


def runs(words: Sequence[str]) -> bool:
    """The command runs jest once (`jest`, `npx jest`, `node_modules/.bin/jest`,
    `node_modules/jest/bin/jest.js`)."""
    return sum(names_runner(word, "jest") for word in words) == 1


def argv(words: list[str], path: str) -> list[str] | None:
    """`words` with `--json --outputFile=<path>` right after `jest`, when the command runs jest
    itself (`jest ...`, `npx jest ...`, `node node_modules/.bin/jest ...`: `runner_at`); None
    when it runs jest some other way (`npm test`: the words that reach jest are not the
    command's; `yarn jest`, `npm exec -- jest` reach here as the local bin,
    `fixbot.run.npxbin`) or asks for JSON already.

    jest has no environment variable for its reporters or output file: only its command line
    and its configuration (the project's) can ask (https://jestjs.io/docs/cli#--json,
    https://jestjs.io/docs/cli#--outputfilefilename, https://jestjs.io/docs/environment-variables).
    `--json` with `--outputFile` writes the report to the file and leaves the terminal output
    (on standard error) as it was."""
    at = runner_at(words, "jest", frozenset({"npx"}))
    if at is None or any(w.startswith(("--json", "--outputFile")) for w in words):
        return None
    return [*words[: at + 1], "--json", f"--outputFile={path}", *words[at + 1 :]]


def observe(words: list[str], reporter: str, environment: str | None = None) -> list[str] | None:
    """`words` (`argv`'s) with `--reporters=default --reporters=<reporter>` right after `jest`:
    jest's own terminal output and fixbot's reporter (`fixbot/observe/node/reporter.cjs`), which
    streams each test's outcome to fixbot's channel; None when the command names reporters
    itself. A `--reporters` on the command line replaces the configured ones
    (https://jestjs.io/docs/cli#--reporters): a project's configured reporter does not run.

    With them `--testEnvironment=<environment>` where fixbot gives one (the absolute path of
    its test environment, `fixbot/observe/node/environment.cjs`, written by `fixbot.run.jestenv`,
    which builds the environment jest resolved for the project and streams jest-circus's verdict
    on each test's function), unless the command names an environment itself (`--env`,
    `--testEnvironment`: left as it is, the functions unstreamed)."""
    at = runner_at(words, "jest", frozenset({"npx"}))
    if at is None or any(w.startswith("--reporters") for w in words):
        return None
    added = ["--reporters=default", f"--reporters={reporter}"]
    if environment is not None and not names_environment(words):
        added.append(f"--testEnvironment={environment}")
    return [*words[: at + 1], *added, *words[at + 1 :]]


def names_environment(words: Sequence[str]) -> bool:
    """Whether jest's words name a test environment themselves (`--env`, `--testEnvironment`)."""
    return any(w.startswith(("--env", "--testEnvironment")) for w in words)


DIALECT = Dialect(
    name="jest",
    source="jest 30.5.2",
    summary=(r"Tests?:[ \t]+\d+[^\n]*", r"Test Suites:[ \t]+\d+[^\n]*"),
    counts=counts,
    test_ids=("\u25cf (?!Console\\b)(?P<test>.+?)[ \\t]*$",),
    id_forms=("(?<=\u25cf ).+",),
    heads=("\u25cf (?!Console\\b)(?P<test>[^\\n]+)",),
    ends=(r"Test Suites: ",),
    errors=("\u25cf ", r"(?:Expected|Received)(?: value)?:"),  # the second: node's assert too
    failing=("^\\s*\u25cf ", r"^Tests:.*failed"),
    report=Report(file_name="jest.json", runs=runs, read=jest_outcomes, argv=argv, observe=observe),
)
