"""tsc (TypeScript 5.x and 7.x with `--pretty`, the default on a terminal): `Found 3 errors in 2
files.`, `Found 1 error in src/b.ts:1`; diagnostics `src/a.ts(1,7): error TS2322: ...`. Without
`--pretty` tsc prints no count line."""

from __future__ import annotations

import re

from fixbot.core.failure import Counts
from fixbot.logs.dialects.base import Dialect
from fixbot.logs.dialects.paths import SOURCE_EXTENSIONS

FOUND_RE = re.compile(r"^Found (\d+) errors? in (?:\d+ files\.|\S+:\d+)", re.MULTILINE)


def counts(text: str) -> list[Counts]:
    """The errors of each `Found N errors in` line."""
    return [Counts(errors=int(n)) for n in FOUND_RE.findall(text)]


DIALECT = Dialect(
    name="tsc",
    source="tsc 7.0.2 (TypeScript native preview)",
    summary=(r"Found \d+ errors? in (?:\d+ files\.|\S+:\d+)[^\n]*",),
    counts=counts,
    diagnostics=(r"\(\d+,\d+\): error\b|:\d+:\d+ - error\b",),  # plain and --pretty
    locations=(
        rf"(?<![\w./\\~+-])(?P<path>[\w./\\~+-]*[\w-]\.(?:{SOURCE_EXTENSIONS}))"
        r"\((?P<line>\d+),(?P<col>\d+)\)",
    ),
)
