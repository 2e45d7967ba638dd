"""jest (30.x): `Test Suites: 1 failed, 1 passed, 2 total`, `Tests:       2 failed, 1 skipped, 1
todo, 2 passed, 6 total`, `● suite > name`.

A suite that fails to run (a syntax error, an import that throws) fails no test: jest then
prints `Tests:       1 passed, 1 total` under `Test Suites: 1 failed`. Each suite with failing
tests has at least one, so at least (failed suites - failed tests) suites failed to run: those
are counted as errors, or a red run would read as "0 failing".
"""

from __future__ import annotations

import re

from fixbot.core.models import Counts
from fixbot.logs.dialects.base import JEST_WORDS, Dialect, counts_after_units

SUMMARY_RE = re.compile(r"^(Test Suites|Tests):\s+(.*\d+ total)", re.MULTILINE)


def counts(text: str) -> list[Counts]:
    """One `Counts` per `Tests:` line (a skipped or todo test counts as skipped), with the
    suites that failed to run, as far as the `Test Suites:` line before it tells, as errors."""
    return counts_after_units(text, SUMMARY_RE, JEST_WORDS, "Test Suites")


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
)
