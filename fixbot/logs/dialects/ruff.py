"""ruff (0.17): `Found 3 errors.`, `Found 3 errors (2 fixed, 1 remaining).`, `All checks
passed!`. tsc before 5.x printed the same `Found 3 errors.`; it is counted here, once."""

from __future__ import annotations

import re

from fixbot.core.failure import Counts
from fixbot.logs.dialects.base import Dialect

FOUND_RE = re.compile(r"^Found (\d+) errors?(?:\.| \(\d+ fixed, (\d+) remaining\))", re.MULTILINE)
CLEAN_RE = re.compile(r"^All checks passed!", re.MULTILINE)


def counts(text: str) -> list[Counts]:
    """The errors left by each `Found` line (after `--fix`: the remaining ones); 0 for each
    `All checks passed!`."""
    found = [Counts(errors=int(left or n)) for n, left in FOUND_RE.findall(text)]
    return found + [Counts(errors=0) for _ in CLEAN_RE.findall(text)]


DIALECT = Dialect(
    name="ruff",
    source="ruff 0.17.6",
    summary=(r"Found \d+ errors?(?:\.| \(\d+ fixed)[^\n]*", r"All checks passed!"),
    counts=counts,
    diagnostics=(r":\d+:\d+: [A-Z]{1,4}\d{1,4}\b",),  # the concise format (flake8's too)
    errors=(r"[A-Z]{1,4}\d{2,4}(?: \[\*\])? \S",),  # the full format: `F401 [*] ...`
)
