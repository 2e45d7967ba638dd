"""pytest 7, 8 and 9: `=== 1 failed, 2 passed in 0.12s ===`, `-q`'s bare line, `FAILED node::id`.

The summary words are pytest's `KNOWN_TYPES` (`src/_pytest/terminal.py`, 9.2.0): failed,
passed, skipped, deselected, xfailed, xpassed, warnings, error, and since 9.0 `subtests
passed`, `subtests failed`, `subtests skipped` (the built-in `subtests` fixture; the
pytest-subtests plugin printed the same words before). pytest 9.2 reports a failing subtest in
`failed` and a skipped one in `skipped` already, and `N subtests passed` counts subtests, not
tests: the passed subtests are not added to `passed`.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence

from fixbot.core.failure import Counts
from fixbot.logs.dialects.base import Dialect, Report, junit_outcomes

WORD = r"(?:subtests )?\w+"
SUMMARY_RE = re.compile(
    rf"^[ \t]*=*[ \t]*((?:\d+ {WORD}(?:, )?)+) in [\d.]+s", re.MULTILINE
)  # `=== 1 failed, 2 passed in 0.1s ===`, `2 failed, 8 subtests passed in 0.61s`
WORD_COUNT_RE = re.compile(rf"(\d+) ({WORD})")
FIELDS = {
    "passed": "passed",
    "failed": "failed",
    "error": "errors",
    "errors": "errors",
    "skipped": "skipped",
    "xfailed": "skipped",
    "subtests failed": "failed",
    "subtests skipped": "skipped",
}  # not counted: deselected, xpassed, warnings, subtests passed


def counts(text: str) -> list[Counts]:
    """One `Counts` per pytest summary line in `text`."""
    found = []
    for match in SUMMARY_RE.finditer(text):
        fields: dict[str, int] = {}
        for number, word in WORD_COUNT_RE.findall(match.group(1)):
            if word in FIELDS:
                fields[FIELDS[word]] = fields.get(FIELDS[word], 0) + int(number)
        found.append(Counts(**fields))
    return found


def file_of(test: str) -> str | None:
    """`tests/x.py` of the node id `tests/x.py::TestX::test_y`."""
    return test.split("::", 1)[0] if "::" in test else None


def runs(words: Sequence[str]) -> bool:
    """The command runs pytest once: `pytest`, `py.test`, `.../bin/pytest` or `-m pytest`."""
    named = [word for word in words if word.rsplit("/", 1)[-1] in ("pytest", "py.test")]
    return len(named) == 1


def ask(path: str, env: Mapping[str, str]) -> dict[str, str]:
    """`PYTEST_ADDOPTS` with `--junitxml=<path>` added to the check's own value (pytest reads the
    variable before its command line: https://docs.pytest.org/en/stable/reference/reference.html
    #envvar-PYTEST_ADDOPTS); `-o junit_family=xunit2` fixes the schema `junit_outcomes` reads,
    and `-o junit_logging=no` keeps the test output out of the report."""
    own = env.get("PYTEST_ADDOPTS", "")
    added = shlex.join(["--junitxml", path, "-o", "junit_family=xunit2", "-o", "junit_logging=no"])
    return {"PYTEST_ADDOPTS": f"{own} {added}".strip()}


# a node id whose parametrization holds a space: `test_x.py::test_unit[1 millisecond]`
PARAMETRIZED = r"[^\s:]++(?:::[^\s\[:]++)+\[[^\n]*?\]"


DIALECT = Dialect(
    name="pytest",
    source="pytest 7.4.4, 8.4.2, 9.2.0 (terminal.py)",
    summary=(
        r"=+ (?:\d+ \w+|no tests ran)[^\n]* in [\d.]+s[^\n]*",
        r"\d+ (?:failed|passed|skipped|errors?|xfailed|xpassed|deselected|warnings?"
        r"|subtests (?:passed|failed|skipped))\b[^\n]* in [\d.]+s[^\n]*",  # -q
        r"no tests ran in ",
    ),
    counts=counts,
    # the short test summary, `FAILED <node id>[ - <message>]`: a parametrization may hold
    # spaces (`test_unit[1 millisecond]`), so a bracketed one runs to the `]` the message or the
    # line's end follows
    test_ids=(rf"(?:FAILED|ERROR) (?P<test>{PARAMETRIZED}(?=(?: - [^\n]*)?[ \t]*$)|\S+::[^\s]+)",),
    condensed_ids=(rf"(?P<test>{PARAMETRIZED}|[^\s:]++::\S++) (?:FAILED|ERROR)\b",),  # -v
    id_forms=(r"\S+::\S+",),
    heads=(r"_{3,} (?P<test>[^\n]+?) _{3,}[ \t]*$",),
    heads_name_tests=False,  # `____ TestX.test_y ____`: the node ids come from `FAILED` lines
    ends=(r"={5,}",),
    errors=(
        r"E {2,}\S",  # assertion detail
        r"(?:FAILED|FAIL|ERROR)(?::|\s(?!\s)|$)",  # also unittest's and go's; not captured logs
    ),
    markers=(
        r"___+ .+ ___",  # a test's report header
        r"===+ (?:FAILURES|ERRORS|short test summary info) ===",
        r">\s",  # the failing source line
    ),
    progress=(
        r"[.FEsxXu,]+\s*(?:\[\s*\d+%\])?$",  # `u`: a subtest (9.x), `,` (pytest-subtests)
        r"\S+::\S+ (?:PASSED|SKIPPED|XFAIL|SUBPASSED|SUBSKIPPED)\b",  # -v
    ),
    failing=(r"^(?:FAILED|FAIL)\b", r"\b\d+ failed\b"),
    file_of=file_of,
    report=Report(file_name="junit.xml", runs=runs, ask=ask, read=junit_outcomes),
)
