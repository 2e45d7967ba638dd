"""TAP (the Test Anything Protocol) as node's test runner (20.x, `--test-reporter=tap`, the
default when not on a terminal) and `mocha --reporter tap` print it: `not ok 2 - name`,
`# tests 4`, `# pass 1`, `# fail 1`, `# cancelled 0`, `# skipped 1`, `# todo 1`. A cancelled
test fails the run (counted as failed); a todo counts as skipped."""

from __future__ import annotations

import re

from fixbot.core.models import Counts
from fixbot.logs.dialects.base import NODE_WORDS, Dialect, summed_lines

SUMMARY_RE = re.compile(r"^# (pass|fail|cancelled|skipped|todo) (\d+)[ \t]*$", re.MULTILINE)


def counts(text: str) -> list[Counts]:
    """The counts of the `# pass N`-style lines at the end of a TAP stream."""
    return summed_lines(text, SUMMARY_RE, NODE_WORDS)


DIALECT = Dialect(
    name="tap",
    source="node 20.20.2 --test (TAP reporter), mocha 12.0.3 --reporter tap",
    summary=(r"# (?:tests|pass|fail|cancelled|skipped|todo) \d+[ \t]*$",),
    counts=counts,
    test_ids=(r"not ok \d+(?: -)? (?P<test>[^\n#]+?)[ \t]*(?:#[^\n]*)?$",),
    errors=(r"not ok \d+",),
    failing=(r"^not ok \d+",),
)
