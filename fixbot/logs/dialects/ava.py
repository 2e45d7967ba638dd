"""ava (7.x, its default reporter; `ava --tap` is the TAP dialect): one line a test
(`✔ name`, `✘ [fail]: name`, `- [skip] name`, `- [todo] name`), then the summary one count a
line: `2 tests passed`, `1 test failed`, `1 test skipped`, `1 test todo`, `1 known failure`,
`1 uncaught exception`, `1 unhandled rejection` (ava's `lib/reporters/default.js`). An uncaught
exception or unhandled rejection counts as an error; a todo as skipped; a known failure (a
`test.failing` that failed, as expected) as passed."""

from __future__ import annotations

import re

from fixbot.core.failure import Counts
from fixbot.logs.dialects.base import Dialect

SUMMARY_RE = re.compile(
    r"^[ \t]*(\d+) (?:tests? (passed|failed|skipped|todo)|(known failure|uncaught exception"
    r"|unhandled rejection)s?)[ \t]*$",
    re.MULTILINE,
)
FIELDS = {"passed": "passed", "failed": "failed", "skipped": "skipped", "todo": "skipped"}
FIELDS |= {"known failure": "passed", "uncaught exception": "errors"}
FIELDS |= {"unhandled rejection": "errors"}


def counts(text: str) -> list[Counts]:
    """One `Counts` summing ava's summary lines, or [] when there is none."""
    fields: dict[str, int] = {}
    for number, outcome, other in SUMMARY_RE.findall(text):
        field = FIELDS[outcome or other]
        fields[field] = fields.get(field, 0) + int(number)
    return [Counts(**fields)] if fields else []


DIALECT = Dialect(
    name="ava",
    source="ava 7.0.0",
    summary=(
        r"\d+ (?:tests? (?:passed|failed|skipped|todo)|(?:known failure|uncaught exception"
        r"|unhandled rejection)s?)[ \t]*$",
    ),
    counts=counts,
    test_ids=("\u2718 \\[fail\\]: (?P<test>.+?)[ \\t]*$",),  # `✘ [fail]: add`
    errors=("\u2718 \\[fail\\]: ",),
    failing=("^[ \\t]*\u2718 \\[fail\\]: ", r"^[ \t]*\d+ tests? failed[ \t]*$"),
)
