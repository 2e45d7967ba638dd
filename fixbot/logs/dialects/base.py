"""The interface of one test-runner (or checker) output dialect: what its output looks like.

A `Dialect` is data: regular-expression sources for its summary lines, failing-test-id lines,
failure-block headers and ends, error lines and locations, plus one pure function from text to
the counts its summary lines report. `fixbot.logs.dialects` lists every dialect; the condensing
pass, the whole-log facts, the signature and the classifier build their patterns from that list.
Adding a runner is one module here (listed in `DIALECTS`) and one corpus file
(`tests/data/summaries/<name>.txt`).

Every source but `failing`, `id_forms` and `locations` (searched anywhere) and `diagnostics`
(right after a file's path) is matched at the start of a line after its indentation (ANSI codes
removed), so it must begin with a literal or a character class (the combined patterns skip lines
that cannot match at once) and use `$` (not `\\n`) for a line's end. Named groups: a test-id or
header source has `test` (and optionally `where`), a location source `path`, `line` and
optionally `col`, a tally source `outcome`.
"""

from __future__ import annotations

import re
import shlex
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from pydantic import BaseModel

from fixbot.core.bashgrammar import bashlex
from fixbot.core.failure import Counts

WORD_COUNT_RE = re.compile(r"(\d+) (\w+)")
# The summary words of node's test runner (its TAP and spec reporters) and of mocha's TAP: a
# cancelled test fails the run, a todo counts as skipped.
NODE_WORDS = {"pass": "passed", "fail": "failed", "cancelled": "failed", "skipped": "skipped"}
NODE_WORDS |= {"todo": "skipped"}
# The summary words of jest and vitest (`Tests: 1 failed, 1 todo, 2 passed, 4 total`).
JEST_WORDS = {"passed": "passed", "failed": "failed", "skipped": "skipped", "todo": "skipped"}


def no_counts(text: str) -> list[Counts]:
    """The counts of a dialect that reports none."""
    return []


def plain_id(groups: Mapping[str, str]) -> str:
    """A test id that is its `test` group as printed."""
    return groups.get("test", "")


def no_file(test: str) -> str | None:
    """The file of a test id, for dialects whose ids name none."""
    return None


# A test's outcome in a structured report, worst first: an id reported twice (a test that
# passed and then failed its teardown) takes the worse one.
OUTCOMES = ("failed", "skipped", "xfailed", "passed")


def no_variables(path: str, env: Mapping[str, str]) -> dict[str, str]:
    """The environment of a runner asked through its command line alone: nothing added."""
    return {}


@dataclass(frozen=True)
class Report:
    """How a runner writes a structured, per-test report of one check run.

    - `runs(words)`: whether the check command (its shell words, `fixbot.process.shellwords`)
      runs this runner exactly once, so the one report speaks for the whole check;
    - `read(text)`: the report's text into `{test id: "passed" | "failed" | "skipped"}`
      (pytest's also "xfailed": `junit_outcomes`);
      raises ValueError when it is not a report;
    - `ask(path, env)`: the environment variables that make it write the report to `path`
      (merged over the check's environment `env`, whose own value of a variable is kept);
    - `argv(words, path)`: for a runner that can be asked only on its command line, the check's
      words (one simple command, `simple_words`) with the runner's own flags added, None when
      this command cannot be asked (the check then runs unchanged, verified by exit code only);
    - `plain(output)`: for a runner whose report is its own standard output (`go test -json`),
      the output as the dialect's patterns read it (the report stripped back to the runner's
      own lines); None: the report is the file `file_name`, in the fresh folder fixbot makes
      for each check run;
    - `observe(words, reporter, environment)`: the words `argv` made with fixbot's reporter (the
      absolute path of the run's copy of `fixbot/observe/node/reporter.cjs`) added to the
      runner's reporters, and jest's test environment `environment` (None: none) where the
      runner takes one, None when the reporter cannot be added (the check then runs
      unobserved).
    """

    file_name: str
    runs: Callable[[Sequence[str]], bool]
    read: Callable[[str], dict[str, str]]
    ask: Callable[[str, Mapping[str, str]], dict[str, str]] = no_variables
    argv: Callable[[list[str], str], list[str] | None] | None = None
    plain: Callable[[str], str] | None = None
    observe: Callable[[list[str], str, str | None], list[str] | None] | None = None

    def command(
        self, check: str, path: str, reporter: str | None = None, environment: str | None = None
    ) -> str | None:
        """The check command that asks for the report at `path`: `check` itself for a runner
        asked through its environment, the words `argv` makes (quoted for /bin/sh) for one asked
        on its command line, with fixbot's `reporter` added where the runner takes one
        (`observe`; None: none added) and jest's test `environment` (None: none), None when
        this check cannot be asked."""
        if self.argv is None:
            return check
        words = simple_words(check)
        asked = None if words is None else self.argv(words, path)
        if asked is not None and reporter is not None and self.observe is not None:
            asked = self.observe(asked, reporter, environment) or asked
        return None if asked is None else shlex.join(asked)


# Characters a word may not hold for fixbot to re-quote it unchanged in meaning: globs, a tilde
# (both expanded by the shell when unquoted) and braces.
UNQUOTABLE = frozenset("*?[]{}~")


def simple_words(command: str) -> list[str] | None:
    """The words of `command` when it is one simple command of literal words (`npx jest --ci`),
    so that adding a flag and quoting the words again runs the same program with the same
    arguments; None for anything else (a list, a pipe, a redirection, an assignment, an
    expansion, a glob). Parsed with bashlex (a port of bash's grammar)."""
    try:
        nodes = bashlex.parse(command)
    except Exception:  # bashlex raises its own errors and, on some syntax, plain ones
        return None
    if len(nodes) != 1 or nodes[0].kind != "command":
        return None
    parts = nodes[0].parts
    if any(part.kind != "word" or getattr(part, "parts", None) for part in parts):
        return None
    found = [str(part.word) for part in parts]
    return None if any(UNQUOTABLE & set(word) for word in found) else found


# Each runner's own entry script (its package's `bin`, `node_modules/<runner>/...`): a path
# ending so names the runner as a path ending in `/<runner>` does.
ENTRIES = {"jest": "jest/bin/jest.js", "vitest": "vitest/vitest.mjs"}
NODE = "node"
# node's options that leave which program runs, and in which process, to the script named after
# them (`--name` or `--name=value`, one word): no code loaded before it (`-r`, `--import`,
# `--loader`), evaluated instead (`-e`, `-p`, `--test`, `--run`), environment read from a file
# (`--env-file`) or a debugger let in (`--inspect`): any other keeps the command from being taken
# as the runner run directly
NODE_KEPT = frozenset(
    {"--experimental-vm-modules", "--no-warnings", "--no-deprecation", "--enable-source-maps"}
    | {"--trace-warnings", "--trace-deprecation", "--trace-uncaught", "--expose-gc"}
    | {"--max-old-space-size", "--max-semi-space-size", "--stack-size", "--stack-trace-limit"}
    | {"--unhandled-rejections", "--throw-deprecation", "--pending-deprecation"}
)


def names_runner(word: str, name: str) -> bool:
    """Whether `word` names the program `name`: `jest`, a path ending in `/jest`, or one ending
    in its entry script (`ENTRIES`: `node_modules/jest/bin/jest.js`)."""
    entry = ENTRIES.get(name)
    ends = entry is not None and (word == entry or word.endswith("/" + entry))
    return word.rsplit("/", 1)[-1] == name or ends


def runner_at(words: Sequence[str], name: str, launchers: frozenset[str]) -> int | None:
    """Where the program `name` (`jest`, or a path naming it, `names_runner`) stands in `words`,
    when it is run directly, by one of `launchers` (`npx`, with its options), or by `node` with
    options of `NODE_KEPT` alone (`node node_modules/.bin/jest`: the process is the runner's):
    its index, else None."""
    found = [i for i, word in enumerate(words) if names_runner(word, name)]
    if len(found) != 1:
        return None
    return found[0] if _launches(words[: found[0]], launchers) else None


def _launches(before: Sequence[str], launchers: frozenset[str]) -> bool:
    """Whether the words `before` a runner leave it the program that runs: none, one of
    `launchers` with options, or `node` with options of `NODE_KEPT`."""
    if not before:
        return True
    if before[0] == NODE:
        return all(w.split("=", 1)[0] in NODE_KEPT for w in before[1:])
    return before[0] in launchers and all(w.startswith("-") for w in before[1:])


def worse(a: str | None, b: str) -> str:
    """The worse of two outcomes of one test id (`OUTCOMES`)."""
    return b if a is None else min(a, b, key=OUTCOMES.index)


def junit_outcomes(text: str) -> dict[str, str]:
    """The per-test outcomes of a JUnit XML report (pytest's `--junitxml`, the schema its
    `junit_family=xunit2` writes: `<testcase classname name>` with a `<failure>`, `<error>` or
    `<skipped>` child), ids `classname::name`; a `<skipped type="pytest.xfail">` is "xfailed"
    (pytest's `junitxml.py`, `append_skipped`, 8.3.3: an xfailed test), not "skipped". The
    text comes from the project's process: expat (Python >= 3.7.1) refuses entity expansion
    attacks, and the caller bounds its size.
    Raises ValueError when it is not JUnit XML."""
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as error:
        raise ValueError(f"not a JUnit report: {error}") from error
    if root.tag not in ("testsuites", "testsuite"):
        raise ValueError(f"not a JUnit report: <{root.tag}>")
    found: dict[str, str] = {}
    for case in root.iter("testcase"):
        test = f"{case.get('classname', '')}::{case.get('name', '')}"
        tags = {child.tag for child in case}
        outcome = "failed" if tags & {"failure", "error"} else "passed"
        if outcome == "passed" and "skipped" in tags:
            outcome = _skipped(case)
        found[test] = worse(found.get(test), outcome)
    return found


def _skipped(case: ElementTree.Element) -> str:
    """A JUnit `<testcase>` with a `<skipped>` child: "xfailed" when each says pytest's xfail
    (`type="pytest.xfail"`), else "skipped"."""
    kinds = {child.get("type") for child in case if child.tag == "skipped"}
    return "xfailed" if kinds == {"pytest.xfail"} else "skipped"


# jest's per-test statuses (`@jest/test-result`'s `Status`); vitest's JSON reporter writes
# jest's schema (https://vitest.dev/guide/reporters#json-reporter).
JEST_STATUSES = {"passed": "passed", "failed": "failed"} | dict.fromkeys(
    ("pending", "skipped", "todo", "disabled", "focused"), "skipped"
)


class JestCase(BaseModel):
    """One test of a jest JSON report (the fields read, by jest's names; others ignored)."""

    ancestorTitles: list[str] = []
    title: str = ""
    status: str = "failed"


class JestFile(BaseModel):
    """One test file of a jest JSON report: its absolute path, status and tests."""

    name: str = ""
    status: str = ""
    assertionResults: list[JestCase] = []


class JestReport(BaseModel):
    """A jest JSON report (`jest --json`; vitest's `--reporter=json`), the part read."""

    testResults: list[JestFile]


def jest_outcomes(text: str) -> dict[str, str]:
    """The per-test outcomes of a jest JSON report (`jest --json --outputFile`, jest 30.5.2) or
    vitest's (`--reporter=json`, vitest 4.1.12): ids `<test file>::<describe> > <title>`. A
    test file that failed without a failing test (it did not load, a hook threw) fails each of
    its tests, or stands as one failed id (the file) when it ran none. An unknown status counts
    as failed. Raises ValueError (pydantic's ValidationError is one) when `text` is not such a
    report: it comes from the project's process."""
    report = JestReport.model_validate_json(text)
    found: dict[str, str] = {}
    for suite in report.testResults:
        outcomes = {
            f"{suite.name}::{' > '.join([*case.ancestorTitles, case.title])}": (
                JEST_STATUSES.get(case.status, "failed")
            )
            for case in suite.assertionResults
        }
        if suite.status == "failed" and "failed" not in outcomes.values():
            outcomes = dict.fromkeys(outcomes or [suite.name], "failed")
        for test, outcome in outcomes.items():
            found[test] = worse(found.get(test), outcome)
    return found


@dataclass(frozen=True)
class Dialect:
    """One output dialect. `name` is the module's name; `source` the tool and versions whose
    output the patterns were taken from (see `tests/data/summaries/<name>.txt`).

    - `summary`: summary lines (counts); `counts(text)` parses them (text without ANSI codes,
      whole lines) into one `Counts` per summary found, `None` fields where not reported;
    - `test_ids`: lines naming a failing test; `test_id(groups)` makes the id from the groups;
      `condensed_ids` the same, looked for in the condensed log only (a form that starts
      like every other line, such as pytest -v's result line, would slow the whole-log pass);
      `id_forms`: a test id as it stands anywhere inside a line, so lines that differ only in
      the test they name compare equal;
    - `heads`/`ends`: the first line of one failing test's report and lines that end it;
      `heads_name_tests`: a header names a failing test (pytest's headers are not node ids);
      `full_name(name, following)`: the test's name when it goes on over the lines after the
      header (mocha prints a title path one title a line), from the header's name and the
      block's next lines (ANSI codes removed);
      `armed_by`: headers count only after a summary line matching it (mocha's `N failing`);
    - `tally` and `tallied`: per-test result lines (go's `--- PASS:`) counted over the whole
      log by their `outcome` group, and the counts those tallies make;
    - `errors`: lines stating a failure, `markers` lines locating it (a report's header, a
      traceback), both kept in the condensed log; `diagnostics`: what follows a file's path on
      a compiler's or linter's diagnostic line (tsc's `(1,7): error`), matched right after it;
      `progress`: whole lines of progress that never stand for a failure (pytest's `..F..
      [ 50%]`); `failing`: lines that say tests failed (the classifier's `test_failure` rule);
    - `locations`: `path:line` forms particular to the dialect;
    - `file_of(test_id)`: the file or module a test id belongs to, None when it names none;
    - `report`: how to ask the runner for a structured per-test report (None: it has none).
    """

    name: str
    source: str
    summary: tuple[str, ...] = ()
    counts: Callable[[str], list[Counts]] = no_counts
    test_ids: tuple[str, ...] = ()
    condensed_ids: tuple[str, ...] = ()
    id_forms: tuple[str, ...] = ()
    test_id: Callable[[Mapping[str, str]], str] = plain_id
    heads: tuple[str, ...] = ()
    heads_name_tests: bool = True
    full_name: Callable[[str, list[str]], str] | None = None
    armed_by: str | None = None
    ends: tuple[str, ...] = ()
    tally: str | None = None
    tallied: Callable[[Mapping[str, int]], Counts] = lambda outcomes: Counts()
    errors: tuple[str, ...] = ()
    markers: tuple[str, ...] = ()
    diagnostics: tuple[str, ...] = ()
    progress: tuple[str, ...] = ()
    failing: tuple[str, ...] = ()
    locations: tuple[str, ...] = ()
    file_of: Callable[[str], str | None] = no_file
    report: Report | None = None


def word_counts(text: str, words: Mapping[str, str]) -> Counts:
    """`Counts` from `N word` pairs in `text`, each word mapped to a field by `words` (others,
    such as `warnings`, ignored); several words of one field are summed."""
    fields: dict[str, int] = {}
    for number, word in WORD_COUNT_RE.findall(text):
        if word in words:
            fields[words[word]] = fields.get(words[word], 0) + int(number)
    return Counts(**fields)


def summed_lines(text: str, summary: re.Pattern[str], words: Mapping[str, str]) -> list[Counts]:
    """One `Counts` summing the lines of `summary` in `text` (group 1 a word mapped to a field by
    `words`, group 2 its number: node's `# pass 3`), or [] when there is none."""
    fields: dict[str, int] = {}
    for word, number in summary.findall(text):
        fields[words[word]] = fields.get(words[word], 0) + int(number)
    return [Counts(**fields)] if fields else []


def compile_lines(sources: Iterable[str]) -> re.Pattern[str]:
    """One multi-line pattern: any of `sources` at a line's start, after indentation."""
    return re.compile(r"^[ \t]*(?:" + "|".join(f"(?:{s})" for s in sources) + ")", re.MULTILINE)


def counts_after_units(
    text: str, summary: re.Pattern[str], words: Mapping[str, str], units: str
) -> list[Counts]:
    """One `Counts` per test line of `summary` (group 1 the line's label, group 2 its `N word`
    pairs, read with `words`); the units (jest's suites, vitest's files) the `units` line before
    it says failed, beyond its failed tests, count as errors: a unit that fails to load runs no
    test, so a red run never reads as 0 failing."""
    found, units_failed = [], 0
    for match in summary.finditer(text):
        counted = word_counts(match.group(2), words)
        if match.group(1) == units:
            units_failed = counted.failed or 0
            continue
        failed = counted.failed or 0
        found.append(
            Counts(
                passed=counted.passed or 0,
                failed=failed,
                errors=max(units_failed - failed, 0) or None,
                skipped=counted.skipped or 0,
            )
        )
        units_failed = 0
    return found
