"""TAP (the Test Anything Protocol) as node's test runner (20.x, `--test-reporter=tap`, the
default when not on a terminal), `mocha --reporter tap`, tape, `ava --tap` and node-tap print
it: `not ok 2 - name`, `# tests 4`, `# pass 1`, `# fail 1`, `# cancelled 0`, `# skipped 1`,
`# todo 1`. tape pads its words to one width (`# pass  148`, `# fail  2`); ava's TAP says
`# skip 1`; node-tap (the `tap` package) ends with one line, `# { total: 3, pass: 2, fail: 1 }`.
A cancelled test fails the run (counted as failed); a todo or skip counts as skipped."""

from __future__ import annotations

import re

from fixbot.core.failure import Counts
from fixbot.logs.dialects.base import NODE_WORDS, Dialect, summed_lines

WORDS = NODE_WORDS | {"skip": "skipped"}
SUMMARY_RE = re.compile(
    r"^# (pass|fail|cancelled|skipped|skip|todo)[ \t]+(\d+)[ \t]*$", re.MULTILINE
)
NODE_TAP_RE = re.compile(r"^# \{ total: \d+((?:, \w+: \d+)*) \}[ \t]*$", re.MULTILINE)
PAIR_RE = re.compile(r"(\w+): (\d+)")


def counts(text: str) -> list[Counts]:
    """The counts of the `# pass N`-style lines at the end of a TAP stream, and of node-tap's
    `# { total: N, pass: N, fail: N }` lines, one each."""
    found = summed_lines(text, SUMMARY_RE, WORDS)
    for pairs in NODE_TAP_RE.findall(text):
        fields: dict[str, int] = {}
        for word, number in PAIR_RE.findall(pairs):
            if word in WORDS:
                fields[WORDS[word]] = fields.get(WORDS[word], 0) + int(number)
        found.append(Counts(**fields))
    return found


DIALECT = Dialect(
    name="tap",
    source="node 20.20.2 --test (TAP reporter), mocha 12.0.3 --reporter tap, tape 5.10.2, "
    "ava 7.0.0 --tap, tap 21.8.0",
    summary=(
        r"# (?:tests|pass|fail|cancelled|skipped|skip|todo)[ \t]+\d+[ \t]*$",
        r"# \{ total: \d+(?:, \w+: \d+)* \}[ \t]*$",
    ),
    counts=counts,
    test_ids=(r"not ok \d+(?: -)? (?P<test>[^\n#]+?)[ \t]*(?:#[^\n]*)?$",),
    errors=(r"not ok \d+",),
    failing=(r"^not ok \d+",),
)
