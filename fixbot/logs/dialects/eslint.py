"""eslint (10.x, stylish formatter): `✖ 4 problems (3 errors, 1 warning)`, diagnostics
`  2:5   error    'x' is not defined   no-undef` under the file's name."""

from __future__ import annotations

import re

from fixbot.core.failure import Counts
from fixbot.logs.dialects.base import Dialect

SUMMARY_RE = re.compile("^\u2716 \\d+ problems? \\((\\d+) errors?, \\d+ warnings?\\)", re.MULTILINE)


def counts(text: str) -> list[Counts]:
    """The errors (not the warnings) of each `✖ N problems` line."""
    return [Counts(errors=int(n)) for n in SUMMARY_RE.findall(text)]


DIALECT = Dialect(
    name="eslint",
    source="eslint 10.15.0",
    summary=("\u2716 \\d+ problems?[^\\n]*",),
    counts=counts,
    errors=(r"\d+:\d+\s+error\s",),
)
