"""Python tracebacks, whatever the runner: `File "src/x.py", line 3, in f` (CPython 3.x)."""

from __future__ import annotations

from fixbot.logs.dialects.base import Dialect
from fixbot.logs.dialects.paths import SOURCE_EXTENSIONS

DIALECT = Dialect(
    name="python",
    source="CPython 3.11.7 tracebacks",
    markers=(r"Traceback \(most recent call last\):", r'File "[^"\n]+", line \d+'),
    locations=(rf'File "(?P<path>[^"\n]+\.(?:{SOURCE_EXTENSIONS}))", line (?P<line>\d+)',),
)
