"""mocha (12.x, spec reporter): `1 passing (4ms)`, `2 pending`, `2 failing`, then each failure
as `1) suite` with the test's title on the next line."""

from __future__ import annotations

import re

from fixbot.core.models import Counts
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


DIALECT = Dialect(
    name="mocha",
    source="mocha 12.0.3",
    summary=(r"\d+ (?:passing|failing|pending)\b[^\n]*",),
    counts=counts,
    heads=(r"\d+\) (?P<test>[^\n]+)",),
    armed_by=r"\d+ failing\b",  # `1) name` is a failure only in the list after `N failing`
)
