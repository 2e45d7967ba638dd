"""mocha (12.x, spec reporter): `1 passing (4ms)`, `2 pending`, `2 failing`, then each failure
as `1) suite` with the rest of its title path on the next lines, one title a line, the last
ending with `:` (`lib/reporters/base.js`); the id is the path joined with spaces, as mocha's
`fullTitle()` (and its TAP reporter) names a test."""

from __future__ import annotations

import re

from fixbot.core.failure import Counts
from fixbot.logs.dialects.base import Dialect

SUMMARY_RE = re.compile(r"^\s*(\d+) (passing|failing|pending)\b", re.MULTILINE)


def counts(text: str) -> list[Counts]:
    """The counts of the `passing`/`failing`/`pending` lines (pending counts as skipped)."""
    words = {word: int(n) for n, word in SUMMARY_RE.findall(text)}
    if not words:
        return []
    return [
        Counts(
            passed=words.get("passing"), failed=words.get("failing"), skipped=words.get("pending")
        )
    ]


MAX_TITLE_LINES = 8


def full_name(head: str, following: list[str]) -> str:
    """`suite inner test` from the header `suite` and the lines `inner`, `test:` after it;
    `head` alone when no line within MAX_TITLE_LINES ends the title."""
    parts = [head.strip()]
    for line in following[:MAX_TITLE_LINES]:
        parts.append(line.strip())
        if line.rstrip().endswith(":"):
            return " ".join(parts).removesuffix(":")
    return head.strip()


DIALECT = Dialect(
    name="mocha",
    source="mocha 12.0.3",
    summary=(r"\d+ (?:passing|failing|pending)\b[^\n]*",),
    counts=counts,
    heads=(r"\d+\) (?P<test>[^\n]+)",),
    full_name=full_name,
    armed_by=r"\d+ failing\b",  # `1) name` is a failure only in the list after `N failing`
)
