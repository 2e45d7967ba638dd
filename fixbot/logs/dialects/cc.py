"""clang: `2 errors generated.`, `1 warning and 2 errors generated.` (gcc prints no count)."""

from __future__ import annotations

import re

from fixbot.core.failure import Counts
from fixbot.logs.dialects.base import Dialect

SUMMARY_RE = re.compile(r"^(?:\d+ warnings? and )?(\d+) errors? generated\.", re.MULTILINE)


def counts(text: str) -> list[Counts]:
    """The errors of each `N errors generated.` line."""
    return [Counts(errors=int(n)) for n in SUMMARY_RE.findall(text)]


DIALECT = Dialect(
    name="cc",
    source="clang 13-19, as quoted in public build reports (not installed here)",
    summary=(r"\d+ errors? generated\.", r"\d+ warnings? and \d+ errors? generated\."),
    counts=counts,
)
