"""vitest (4.x): ` Test Files  1 failed | 1 passed (2)`, `      Tests  2 failed | 2 passed | 1
skipped | 1 todo (6)` (`Tests  no tests` when no file could run) and ` FAIL  src/x.test.ts >
group > name` (a failing test's report).

A test file that fails to run fails no test; as with jest (`fixbot.logs.dialects.jest`), at least
(failed files - failed tests) files failed to run, counted as errors.
"""

from __future__ import annotations

import re

from fixbot.core.models import Counts
from fixbot.logs.dialects.base import JEST_WORDS, Dialect, counts_after_units

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
)
