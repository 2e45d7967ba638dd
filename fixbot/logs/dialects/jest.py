"""jest (30.x): `Tests:       2 failed, 1 skipped, 1 todo, 2 passed, 6 total`, `● suite > name`."""

from __future__ import annotations

import re

from fixbot.core.models import Counts
from fixbot.logs.dialects.base import Dialect, word_counts

SUMMARY_RE = re.compile(r"^Tests:\s+(.*\d+ total)", re.MULTILINE)
FIELDS = {"passed": "passed", "failed": "failed", "skipped": "skipped", "todo": "skipped"}


def counts(text: str) -> list[Counts]:
    """One `Counts` per `Tests:` line (a skipped or todo test counts as skipped)."""
    found = []
    for match in SUMMARY_RE.finditer(text):
        words = word_counts(match.group(1), FIELDS)
        found.append(
            Counts(passed=words.passed or 0, failed=words.failed or 0, skipped=words.skipped or 0)
        )
    return found


DIALECT = Dialect(
    name="jest",
    source="jest 30.5.2",
    summary=(r"Tests?:[ \t]+\d+[^\n]*", r"Test Suites:[ \t]+\d+[^\n]*"),
    counts=counts,
    test_ids=("\u25cf (?!Console\\b)(?P<test>.+?)[ \\t]*$",),
    heads=("\u25cf (?!Console\\b)(?P<test>[^\\n]+)",),
    ends=(r"Test Suites: ",),
    errors=("\u25cf ", r"(?:Expected|Received)(?: value)?:"),  # the second: node's assert too
    failing=("^\\s*\u25cf ", r"^Tests:.*failed"),
)
