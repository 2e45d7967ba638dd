"""mypy (2.x): `Found 2 errors in 1 file (checked 3 source files)`, `Success: no issues found in
1 source file`."""

from __future__ import annotations

import re

from fixbot.core.failure import Counts
from fixbot.logs.dialects.base import Dialect

FOUND = r"Found (\d+) errors? in \d+ files? \(checked"
FOUND_RE = re.compile(rf"^{FOUND}", re.MULTILINE)
CLEAN_RE = re.compile(r"^Success: no issues found", re.MULTILINE)


def counts(text: str) -> list[Counts]:
    """The errors of each `Found` line; 0 for each `Success` line."""
    found = [Counts(errors=int(n)) for n in FOUND_RE.findall(text)]
    return found + [Counts(errors=0) for _ in CLEAN_RE.findall(text)]


DIALECT = Dialect(
    name="mypy",
    source="mypy 2.4.1",
    summary=(r"Found \d+ errors? in \d+ files? \(checked[^\n]*", r"Success: no issues found[^\n]*"),
    counts=counts,
)
