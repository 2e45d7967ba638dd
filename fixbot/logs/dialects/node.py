"""node's test runner with its spec reporter (node 20.x on a terminal; the default everywhere
from node 23): `tests 4`, `pass 1`, `fail 1`, `cancelled 0`, `skipped 1`, `todo 1`, each after
an information sign (U+2139). A cancelled test fails the run (counted as failed); a todo counts
as skipped."""

from __future__ import annotations

import re

from fixbot.core.failure import Counts
from fixbot.logs.dialects.base import NODE_WORDS, Dialect, summed_lines

SUMMARY_RE = re.compile("^\u2139 (pass|fail|cancelled|skipped|todo) (\\d+)[ \\t]*$", re.MULTILINE)


def counts(text: str) -> list[Counts]:
    """The counts of the `pass N`-style lines of the spec reporter."""
    return summed_lines(text, SUMMARY_RE, NODE_WORDS)


DIALECT = Dialect(
    name="node",
    source="node 20.20.2 --test --test-reporter=spec",
    summary=("\u2139 (?:tests|pass|fail|cancelled|skipped|todo) \\d+[ \\t]*$",),
    counts=counts,
    test_ids=("\u2716 (?P<test>.+?) \\([\\d.]+ms\\)$",),  # `✖ fails (0.68ms)`
    failing=("^\u2139 fail [1-9]",),
)
